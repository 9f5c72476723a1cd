"""``pictable replay LOG [--json]``: replay an event log and print the final state
(docs/formats.md, section 2)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

HELP = "replay a game's event log (JSON Lines) and print the final scores"
DESCRIPTION = """\
Replays a game's event log (JSON Lines, docs/formats.md section 1: the first line
is `start`) through the rules engine and prints the final state: scores, whether
the game is finished, and the winners (--json: docs/formats.md section 2).

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
    """Lines of the log as text."""
    for line in raw.split(b"\n"):
        # Undecodable bytes become surrogates, which the log reader reports as not UTF-8.
        yield line.decode("utf-8", errors="surrogateescape")


def write_line(text: str, stream: TextIO | None = None, *, ascii_text: str | None = None) -> None:
    """Prints ``text`` and a newline to ``stream`` (stdout). When the stream cannot encode a
    character of it (a terminal that is not UTF-8), prints ``ascii_text`` instead if given (the
    same JSON in ASCII escapes), else ``text`` with that character as its backslash escape:
    never a traceback instead of the output."""
    stream = sys.stdout if stream is None else stream
    try:
        print(text, file=stream)
    except UnicodeEncodeError:
        if ascii_text is None:
            encoding = getattr(stream, "encoding", None) or "utf-8"
            ascii_text = text.encode(encoding, "backslashreplace").decode(encoding)
        print(ascii_text, file=stream)


def run(args: argparse.Namespace) -> int:
    from engine.log import replay_lines
    from pictable.store import json_line
    from pictable.textboard import scoreboard

    name = args.log
    try:
        if name == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(name, "rb") as f:
                raw = f.read()
    except OSError as exc:
        write_line(f"{name}: cannot read the log: {exc.strerror or exc}", sys.stderr)
        write_line(json.dumps(EMPTY_SUMMARY) if args.json else scoreboard(EMPTY_SUMMARY))
        return 2
    result = replay_lines(_lines(raw))
    summary = result.state.summary() if result.state is not None else dict(EMPTY_SUMMARY)
    if args.json:
        write_line(json_line(summary), ascii_text=json.dumps(summary))
    else:
        write_line(scoreboard(summary))
    if result.error is not None:
        write_line(f"{name}:{result.error.line}: {result.error.reason}", sys.stderr)
        return 2
    return 0
