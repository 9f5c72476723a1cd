"""The ``pictable`` command line: one subcommand per module of ``pictable.commands``."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from pictable import __version__

# Each module registers its subcommand(s); listed in the order --help shows them.
COMMAND_MODULES: tuple[str, ...] = (
    "pictable.commands.demo",
    "pictable.commands.play",
    "pictable.commands.replay",
    "pictable.commands.decode",
    "pictable.commands.identify",
    "pictable.commands.deck",
    "pictable.commands.analyze",
    "pictable.commands.verify",
    "pictable.commands.sessions",
    "pictable.commands.calibrate",
    "pictable.commands.scoreboard",
    "pictable.commands.kit",
    "pictable.commands.bench",
)

DESCRIPTION = """\
A camera table assistant for picture-card party games: it watches a real table,
identifies the cards, reads the Picasso board and Picmix cards, and scores the
games (Pick Pic, Pic Flip, Picasso, Picmix) by their rulebooks.
"""

EPILOG = """\
Start with `pictable demo` (a synthetic table, no camera needed).
`pictable COMMAND --help` explains each command.
"""


class CommandParser(argparse.ArgumentParser):
    """The parser of a subcommand (and, through ``add_subparsers``, of its own subcommands):
    an argument it does not know is its error, shown with its usage.

    argparse hands a subcommand's unknown arguments up to the top-level parser, which then
    complains with ``pictable``'s usage; ``pictable demo --headless`` should show demo's."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pictable",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"pictable {__version__}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands", parser_class=CommandParser
    )
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # a command not written yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
