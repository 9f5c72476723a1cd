"""The command line's usage errors: an argument a subcommand does not know is answered with
that subcommand's usage, not the top-level one (``pictable demo --headless`` showed
``usage: pictable [-h] [--version] COMMAND ...``)."""

from __future__ import annotations

import argparse

import pytest

from pictable.cli import build_parser, main


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every subcommand's path, nested ones included (``("sessions", "new")``)."""
    out: list[tuple[str, ...]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out.append((*path, name))
                out.extend(_commands(sub, (*path, name)))
    return out


COMMANDS = _commands(build_parser())


def test_every_command_is_walked() -> None:
    assert ("demo",) in COMMANDS and ("sessions", "new") in COMMANDS
    assert ("verify", "picmix") in COMMANDS and ("analyze", "picasso") in COMMANDS


def test_demo_with_an_option_it_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: demo's usage, and the option named."""
    with pytest.raises(SystemExit) as info:
        main(["demo", "picasso", "--headless"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: pictable demo "), err
    assert err.rstrip().endswith("pictable demo: error: unrecognized arguments: --headless")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_an_unknown_option_shows_the_subcommands_usage(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    """For every subcommand: exit 2 with its own usage (whether the complaint is the unknown
    option or a required argument missing, it is that subcommand's)."""
    with pytest.raises(SystemExit) as info:
        main([*command, "--no-such-option"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    name = " ".join(command)
    assert err.startswith(f"usage: pictable {name} "), err
    assert f"pictable {name}: error: " in err, err


def test_the_top_level_keeps_its_own_usage(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown option before any command is the top level's."""
    with pytest.raises(SystemExit):
        main(["--no-such-option"])
    assert capsys.readouterr().err.startswith("usage: pictable [-h]")
