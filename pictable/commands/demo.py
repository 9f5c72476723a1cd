"""``pictable demo [GAME]``: the main job on its embedded default.

Until the camera pipeline can follow a game, the demo replays a bundled example game of each
of the four games through the rules engine, event by event, and prints each scoreboard.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from importlib import resources

GAMES = ("pickpic", "picasso", "picmix", "picflip")

DESCRIPTION = """\
Runs pictable on its built-in example games, no camera needed: each game's
events go through the rules engine as they would at a real table, each line
shows what it changed in the scores, and the final scoreboard is printed.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="run the built-in example games and print their scoreboards",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", nargs="?", choices=GAMES, help="one game only (default: all four)")
    p.add_argument("--quiet", action="store_true", help="print only the scoreboards")
    p.add_argument(
        "--delay", type=float, default=0.0, metavar="S", help="pause S seconds between events"
    )
    p.set_defaults(func=run)


def example_log(game: str) -> list[dict[str, object]]:
    """The bundled example game's events (``pictable/examples/GAME.jsonl``)."""
    text = resources.files("pictable").joinpath("examples", f"{game}.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run(args: argparse.Namespace) -> int:
    import engine
    from pictable.textboard import GAME_NAMES, event_line, scoreboard

    failures = 0
    for game in [args.game] if args.game else GAMES:
        events = example_log(game)
        print(f"\n=== {GAME_NAMES[game]} ===")
        state = engine.start(events[0])
        if not args.quiet:
            print(event_line(events[0]))
        for obj in events[1:]:
            before = state.scores()
            try:
                state = engine.apply_raw(state, obj)
            except engine.EngineError as exc:
                # The live session's way: report the rejected event and carry on.
                print(f"  rejected: {exc}", file=sys.stderr)
                failures += 1
                continue
            if not args.quiet:
                after = state.scores()
                gains = "  ".join(
                    f"{p} {after[p] - before[p]:+d}" for p in after if after[p] != before[p]
                )
                print("  " + event_line(obj) + (f"   ({gains})" if gains else ""))
            if args.delay:
                time.sleep(args.delay)
        print()
        print(scoreboard(state.summary()))
        if not state.finished:
            print("  (the example ends before the game does)")
    return 1 if failures else 0
