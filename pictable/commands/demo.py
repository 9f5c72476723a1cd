"""``pictable demo [GAME]``: the main job on its embedded default, no camera needed.

For each game that pictable can follow from the camera, a synthetic table session is
rendered (or its cached render reused) and played through the live pipeline exactly as a
camera's frames would be: the game's follower, the event store, the engine, the live view.
The events are printed as they happen, then the final scoreboard, checked against the
rendered session's true events. The annotated videos and a summary page are written to
``--out``. Games without a camera reader yet replay their bundled example log instead, and
say so.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

GAMES = ("picasso", "picmix", "pickpic", "picflip")

DESCRIPTION = """\
Runs pictable on a synthetic table, no camera needed. For each game with camera readers
(Picasso, Picmix, and the others once their readers exist) a rendered video of a session
is played through the live pipeline exactly as a camera would be: pieces and cards are
read, events are confirmed over time, stored, scored by the rules engine. Each event is
printed as it happens, then the final scoreboard and whether it matches the rendered
session's truth. The annotated videos and a summary page (index.html) are written to
--out. Renders are cached, so the second run starts at once.
"""

EPILOG = """\
examples:
  pictable demo                    every game, then open pictable-demo/index.html
  pictable demo picasso --page     one game, with the live scoreboard page served
  pictable demo --seed 7           another rendered session

The demo opens no window (there is no --headless to give): the annotated videos are
written to --out instead, unless --no-video.

Exit status: 0 every game scored as its truth, 1 a game's scores differ from the truth
(or an example event was refused), 2 bad arguments.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="play rendered table sessions through the live pipeline and score them",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", nargs="?", choices=GAMES, help="one game only (default: all four)")
    p.add_argument("--seed", type=int, default=1, help="the rendered session (default 1)")
    p.add_argument("--tier", default="normal", choices=("easy", "normal", "hard"))
    p.add_argument("--out", metavar="DIR", default="pictable-demo", help="videos and summary page")
    p.add_argument("--no-video", action="store_true", help="do not write annotated videos")
    p.add_argument("--page", action="store_true", help="serve the live scoreboard page")
    p.add_argument("--quiet", action="store_true", help="print only the scoreboards")
    p.set_defaults(func=run)


def example_log(game: str) -> list[dict[str, object]]:
    """The bundled example game's events (``pictable/examples/GAME.jsonl``)."""
    text = resources.files("pictable").joinpath("examples", f"{game}.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run(args: argparse.Namespace) -> int:
    from pictable.followers import has_follower
    from pictable.rendered import sequence_kind

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"pictable demo: cannot write to {out}: {exc}", file=sys.stderr)
        return 2
    db = out / "sessions.db"
    for stale in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        stale.unlink(missing_ok=True)
    results = []
    started = time.monotonic()
    for game in [args.game] if args.game else GAMES:
        if has_follower(game) and sequence_kind(game) is not None:
            results.append(_camera_game(game, args, out, db))
        else:
            results.append(_example_game(game, args))
    _write_page(out, results)
    ok = all(r["ok"] for r in results)
    print(f"\nsummary page: {out / 'index.html'}   ({time.monotonic() - started:.0f} s)")
    for r in results:
        print(f"  {r['title']:<9} {r['verdict']}")
    return 0 if ok else 1


def _camera_game(game: str, args: argparse.Namespace, out: Path, db: Path) -> dict[str, Any]:
    from pictable.followers import make_follower
    from pictable.live import LivePipeline, drive
    from pictable.liveview import draw_view, open_video_writer
    from pictable.rendered import rendered_session, truth_state
    from pictable.store import EventStore
    from pictable.textboard import GAME_NAMES, event_line, scoreboard
    from vision.sources import LatestFrameReader, VideoFileSource

    title = GAME_NAMES[game]
    print(f"\n=== {title}: a rendered table (seed {args.seed}, {args.tier} tier) ===", flush=True)
    session = rendered_session(
        game, args.seed, args.tier, progress=lambda text: print(text, flush=True)
    )
    if session.cached:
        print(f"using the cached render {session.video.name}")
    players = session.players
    follower = make_follower(game, players, start=session.events[0])
    board = None
    if args.page:
        from pictable.scoreboard import Scoreboard

        board = Scoreboard().start()
        print(f"scoreboard: {board.page_url}", flush=True)
    video_out = None if args.no_video else out / f"{game}.mp4"
    writer: Any = None
    with EventStore(db) as store:
        sid = store.create_session(follower.start_event(), note=f"demo {session.video.name}").id
        pipeline = LivePipeline(store, sid, follower, board=board)
        if board is not None:
            board.on_input(pipeline.page_input)
        source = VideoFileSource(session.video)
        started = time.monotonic()
        # What no camera sees: the table's vote against a Pic Flip play. The rendered
        # session's true rejects are entered at their time, as players would on the page.
        votes = [float(e.get("t", 0.0)) for e in session.events if e.get("type") == "reject"]

        def on_frame(image: Any, records: list[Any]) -> bool:
            nonlocal writer
            while votes and pipeline.last_t >= votes[0]:
                votes.pop(0)
                answer = pipeline.command("vote no")
                if not args.quiet:
                    print(f"  (the table votes the play down: {answer})", flush=True)
            for rec in records:
                if not args.quiet:
                    mark = "" if rec.accepted else f"   REJECTED: {rec.reason}"
                    print(f"  {event_line(rec.event)}{mark}", flush=True)
            if video_out is not None:
                view = draw_view(image, pipeline)
                if writer is None:
                    writer = open_video_writer(video_out, view.shape, source.fps)
                writer.write(view)
            return True

        with LatestFrameReader(source) as reader:
            final = drive(pipeline, reader, live=False, on_frame=on_frame)
        for rec in final:
            if not args.quiet:
                print(f"  {event_line(rec.event)}", flush=True)
        if writer is not None:
            writer.release()
        if board is not None:
            board.stop()
        elapsed = time.monotonic() - started
        state = pipeline.state
        events = store.export(sid)
    truth = truth_state(session.events)
    got, want = state.summary()["scores"], truth.summary()["scores"]
    ok = got == want
    print()
    print(scoreboard(state.summary()))
    verdict = (
        "scores match the rendered truth"
        if ok
        else f"scores differ from the rendered truth: expected {want}, got {got}"
    )
    print(f"  {'OK' if ok else 'MISMATCH'}: {verdict}")
    print(
        f"  {pipeline.stats.frames} frames in {elapsed:.1f} s "
        f"({pipeline.stats.median_ms():.0f} ms per frame, median)"
    )
    return {
        "game": game,
        "title": title,
        "mode": f"rendered table, seed {args.seed}, {args.tier} tier",
        "ok": ok,
        "verdict": ("OK: " if ok else "MISMATCH: ") + verdict,
        "summary": state.summary(),
        "truth": truth.summary(),
        "events": events,
        "truth_events": [json.dumps(e) for e in session.events],
        "video": video_out.name if video_out is not None else None,
        "video_playable": writer is None or writer.browser_playable,
    }


def _example_game(game: str, args: argparse.Namespace) -> dict[str, Any]:
    import engine
    from pictable.textboard import GAME_NAMES, event_line, scoreboard

    title = GAME_NAMES[game]
    print(f"\n=== {title}: no camera reader yet, the example game replayed ===")
    events = example_log(game)
    state = engine.start(events[0])
    refused = 0
    for obj in events[1:]:
        try:
            state = engine.apply_raw(state, obj)
        except engine.EngineError as exc:
            print(f"  rejected: {exc}", file=sys.stderr)
            refused += 1
            continue
        if not args.quiet:
            print("  " + event_line(obj))
    print()
    print(scoreboard(state.summary()))
    return {
        "game": game,
        "title": title,
        "mode": "example log replayed (no camera reader yet)",
        "ok": refused == 0,
        "verdict": "example replayed" + (f", {refused} events refused" if refused else ""),
        "summary": state.summary(),
        "truth": None,
        "events": [json.dumps(e) for e in events],
        "truth_events": [],
        "video": None,
    }


def _write_page(out: Path, results: list[dict[str, Any]]) -> None:
    """index.html: per game, the verdict, the scoreboard, the events, the video."""
    from pictable.textboard import event_line

    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>pictable demo</title><style>body{font-family:sans-serif;max-width:60em;"
        "margin:2em auto;padding:0 1em}table{border-collapse:collapse}td,th{padding:.2em .8em;"
        "border-bottom:1px solid #ccc;text-align:left}.ok{color:#070}.bad{color:#b00}"
        "li.rej{color:#b00}video{max-width:100%}</style></head><body>",
        "<h1>pictable demo</h1>",
    ]
    for r in results:
        cls = "ok" if r["ok"] else "bad"
        parts.append(f"<h2>{html.escape(r['title'])}</h2>")
        parts.append(f"<p>{html.escape(r['mode'])}</p>")
        parts.append(f"<p class='{cls}'>{html.escape(r['verdict'])}</p>")
        summary = r["summary"]
        truth = r["truth"]
        parts.append("<table><tr><th>player</th><th>score</th>")
        parts.append("<th>truth</th></tr>" if truth else "</tr>")
        for p in summary["players"]:
            row = f"<tr><td>{html.escape(p)}</td><td>{summary['scores'].get(p, 0)}</td>"
            if truth:
                row += f"<td>{truth['scores'].get(p, 0)}</td>"
            parts.append(row + "</tr>")
        parts.append("</table>")
        if r["video"]:
            name = html.escape(r["video"])
            parts.append(f"<p><video controls src='{name}'></video><br>")
            parts.append(f"<a href='{name}'>{name}</a> (annotated live view)</p>")
            if r.get("video_playable") is False:
                parts.append(
                    "<p class='bad'>This video does not play in a browser: it is MPEG-4 "
                    "Part 2, written because PyAV (the Python package av) or its H.264 and "
                    "VP9 encoders were missing. Open it in a desktop player, or install PyAV "
                    "and run the demo again.</p>"
                )
        parts.append("<h3>Events</h3><ol>")
        for line in r["events"]:
            try:
                obj = json.loads(line)
                text = event_line(obj) if isinstance(obj, dict) else line
            except (ValueError, KeyError, TypeError):
                text = line
            parts.append(f"<li>{html.escape(text)}</li>")
        parts.append("</ol>")
        if r["truth_events"]:
            parts.append("<details><summary>True events of the rendered session</summary><ol>")
            for line in r["truth_events"]:
                parts.append(f"<li>{html.escape(event_line(json.loads(line)))}</li>")
            parts.append("</ol></details>")
    parts.append("</body></html>")
    (out / "index.html").write_text("\n".join(parts), "utf-8")
