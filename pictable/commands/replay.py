"""``pictable replay LOG [--json]``: replay an event log and print the final state
(CONTRACTS.md section 2)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any

HELP = "replay a game's event log (JSON Lines) and print the final scores"
DESCRIPTION = """\
Replays a game's event log (JSON Lines, CONTRACTS.md section 1: the first line is
`start`) through the rules engine and prints the final state: scores, whether the
game is finished, and the winners.

At the first malformed or illegal line it stops, writes `LOG:LINE: reason` to
stderr (the reason names the rule broken), prints the state as it stood before
that line, and exits with status 2. Exit status 0 otherwise.
"""

EMPTY_SUMMARY: dict[str, Any] = {
    "game": None,
    "players": [],
    "scores": {},
    "finished": False,
    "winners": [],
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("log", metavar="LOG", help="the event log, JSON Lines ('-' reads stdin)")
    p.add_argument("--json", action="store_true", help="print the state as one JSON object")
    p.set_defaults(func=run)


def _lines(raw: bytes) -> Iterator[str]:
    """Lines of the log; a line that is not UTF-8 becomes text the JSON parser rejects."""
    for line in raw.split(b"\n"):
        try:
            yield line.decode("utf-8")
        except UnicodeDecodeError:
            yield "\x00 not UTF-8"


def format_text(summary: dict[str, Any]) -> str:
    """A person's view of a summary: one row per player."""
    if summary.get("game") is None:
        return "no game started"
    players = summary["players"]
    scores = summary["scores"]
    width = max((len(p) for p in players), default=6)
    lines = [f"{summary['game']}: " + ("finished" if summary["finished"] else "in progress")]
    extra = summary.get("cards_left")
    for p in players:
        row = f"  {p:<{width}}  {scores.get(p, 0):>3}"
        if extra is not None:
            row += f"   {extra.get(p, 0)} cards left"
        if p in summary["winners"]:
            row += "   winner"
        lines.append(row)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from engine.log import replay_lines

    name = args.log
    try:
        raw = sys.stdin.buffer.read() if name == "-" else open(name, "rb").read()
    except OSError as exc:
        print(f"{name}: cannot read the log: {exc.strerror or exc}", file=sys.stderr)
        print(json.dumps(EMPTY_SUMMARY) if args.json else format_text(EMPTY_SUMMARY))
        return 2
    result = replay_lines(_lines(raw))
    summary = result.state.summary() if result.state is not None else dict(EMPTY_SUMMARY)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print(format_text(summary))
    if result.error is not None:
        print(f"{name}:{result.error.line}: {result.error.reason}", file=sys.stderr)
        return 2
    return 0
