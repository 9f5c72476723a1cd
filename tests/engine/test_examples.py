"""Scripted example games (tests/data/games/*.jsonl), each with its expected final
``pictable replay --json`` summary (``NAME.expected.json``, worked out by hand from the
rulebooks), run through the real CLI in a subprocess and through the engine's API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.log import replay_lines

from .helpers import GAMES_DIR, cli, contract_view, run

LOGS = sorted(GAMES_DIR.glob("*.jsonl"))


def expected(log: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(log.with_suffix(".expected.json").read_text("utf-8"))
    return data


def events(log: Path) -> list[Any]:
    return [json.loads(line) for line in log.read_text("utf-8").splitlines() if line.strip()]


def test_the_example_games_are_there() -> None:
    """A complete game of each of the four games; Pick Pic with 3 and with 5 players; a game
    won on a tie; every log with its expected summary."""
    assert LOGS, f"no example games in {GAMES_DIR}"
    summaries = [expected(log) for log in LOGS]
    finished = {s["game"] for s in summaries if s["finished"]}
    assert finished == {"pickpic", "picasso", "picmix", "picflip"}
    pickpic_sizes = {len(s["players"]) for s in summaries if s["game"] == "pickpic"}
    assert {3, 5} <= pickpic_sizes
    assert any(s["finished"] and len(s["winners"]) > 1 for s in summaries)


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_example_through_the_cli(log: Path) -> None:
    """``python -m pictable replay LOG --json`` exits 0 with the expected summary."""
    proc = cli("replay", str(log), "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    summary = json.loads(proc.stdout)
    assert contract_view(summary) == expected(log)


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_example_through_the_api(log: Path) -> None:
    """``engine.replay``, event-by-event ``apply_raw`` and ``engine.log.replay_lines`` agree
    with each other and with the expected summary."""
    objs = events(log)
    state = engine.replay(objs)
    assert contract_view(state.summary()) == expected(log)
    assert run(objs) == state
    result = replay_lines(log.read_text("utf-8").splitlines())
    assert result.error is None
    assert result.events == len(objs)
    assert result.state == state


@pytest.mark.parametrize(
    "log",
    [GAMES_DIR / "pickpic-3p-tie.jsonl", GAMES_DIR / "picflip-3p.jsonl"],
    ids=lambda p: p.stem,
)
def test_example_text_output(log: Path) -> None:
    """Without ``--json`` the CLI prints a row per player with the score and marks the
    winners (the layout itself is free: CONTRACTS 2 fixes only ``--json``)."""
    proc = cli("replay", str(log))
    assert proc.returncode == 0, proc.stderr
    want = expected(log)
    lines = proc.stdout.splitlines()
    for player in want["players"]:
        row = next(line for line in lines[1:] if line.split()[0] == player)
        assert str(want["scores"][player]) in row.split()
        assert ("winner" in row) == (player in want["winners"])


# Checkpoints inside the games, worked out by hand: (events replayed, expected fields).
CHECKPOINTS: dict[str, list[tuple[int, dict[str, Any]]]] = {
    # Round 1: A ranks b1 c1 c2 b2 then the random card (B 2+1, C 1+1, A 4+1); B ranks the
    # random card first (nothing); C ranks a3 b3 then random (A 2, B 1, C 2).
    "pickpic-3p-tie": [
        (22, {"scores": {"A": 7, "B": 4, "C": 4}, "finished": False, "round": 2}),
        (
            43,
            {
                "last_round_points": {"A": 6, "B": 8, "C": 9},
                "scores": {"A": 13, "B": 12, "C": 13},
            },
        ),
    ],
    "pickpic-5p": [(35, {"scores": dict.fromkeys("ABCDE", 0), "phase": "rank"})],
    # The cat: 1 shape + 4 sticks = 6, Ann scores 4; the house costs 11 and is lost.
    "picasso-cat": [
        (6, {"points": {"Ann": 4, "Ben": 0}, "cards_held": {"Ann": 0, "Ben": 1}}),
        (8, {"cost": 7, "builder": "Ben"}),
        (9, {"points": {"Ann": 4, "Ben": 0}, "builder": "Ann", "card": None}),
    ],
    "picmix-to-five": [
        (5, {"won": {"Ann": ["o1"], "Ben": [], "Cat": []}, "pile_bottom": ["o2"]}),
        (9, {"won": {"Ann": ["o1"], "Ben": [], "Cat": []}, "pile_bottom": ["o2", "o3", "o4"]}),
        (15, {"won": {"Ann": ["o5"], "Ben": ["o2"], "Cat": []}}),
    ],
    "picflip-3p": [
        (1, {"cards_left": {"Ann": 3, "Ben": 2, "Cat": 2}}),
        (5, {"cards_left": {"Ann": 2, "Ben": 2, "Cat": 2}}),
        (10, {"finished": True, "winners": ["Cat"]}),
        (11, {"finished": False, "winners": [], "cards_left": {"Ann": 2, "Ben": 1, "Cat": 1}}),
    ],
}


@pytest.mark.parametrize(
    ("name", "count", "fields"),
    [(name, count, fields) for name, points in CHECKPOINTS.items() for count, fields in points],
)
def test_example_checkpoints(name: str, count: int, fields: dict[str, Any]) -> None:
    """The state part-way through an example game, as worked out by hand."""
    summary = run(events(GAMES_DIR / f"{name}.jsonl")[:count]).summary()
    assert {k: summary[k] for k in fields} == fields
