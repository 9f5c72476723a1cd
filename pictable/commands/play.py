"""``pictable play GAME --players A,B,C``: the live table.

Frames from a camera, a video, an image folder or a stream go through the game's follower
(``pictable.followers``); its events are stored in the session database as they happen,
judged by the engine, shown in a live window (or written to an annotated video with
``--headless``) and on the scoreboard page.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from typing import Any

HELP = "play a game at the camera: events stored, scored and shown as they happen"

DESCRIPTION = """\
Runs the whole pipeline on a camera (or a video, an image folder, a stream): the game's
readers and tracker turn what the table shows into the game's events, each one is stored
in the session database at once (so a crash loses nothing), scored by the rules engine,
drawn on the live window and sent to the scoreboard page.

Corrections, in the live window (keys) or typed in this terminal (one per line):
  u / undo        withdraw the last event
  y / confirm     the last guess, claim or play stands
  n / reject      the players contest it (a Pic Flip play gets a `reject` event; a guess
                  or claim is withdrawn)
  claim N         read seat N's cards for a Picmix claim now (keys 1-9 in the window)
  {"type": ...}   a missed event, as one JSON line (docs/formats.md section 1)
  q               stop (the session stays; continue it with --resume ID)
An event the rules refuse is shown with its reason, and the game goes on.
"""

EPILOG = """\
examples:
  pictable play picasso --players Ana,Ben,Chloe                camera 0, live window
  pictable play picmix --players Ana,Ben --video claim.mp4 --headless --out seen.mp4
  pictable play picasso --players Ana,Ben --images frames/ --calibration table.json
  pictable play --resume 7                                     continue session 7
  pictable play picasso --players Ana,Ben --source rtsp://192.168.1.20/stream

The scoreboard page is served on http://127.0.0.1:8765/ (--port, --no-page); --lan serves
it to the network behind a printed token. Sessions are in $PICTABLE_DB, else
~/.local/share/pictable/sessions.db (--db). Exit status: 0 done, 2 bad arguments or a source
that cannot be opened.
"""

GAMES = ("picasso", "picmix", "pickpic", "picflip")
DEFAULT_PORT = 8765
EXIT_ERROR = 2
log = logging.getLogger("pictable.play")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "play",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", nargs="?", choices=GAMES, help="the game (not with --resume)")
    p.add_argument("--players", metavar="A,B,C", help="players in seating order")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", metavar="N", help="a camera index (default 0)")
    src.add_argument("--video", metavar="FILE", help="a video file")
    src.add_argument("--images", metavar="DIR", help="a folder of frames, in name order")
    src.add_argument("--source", metavar="URL", help="a network stream (rtsp://, http://...)")
    p.add_argument("--fps", type=float, help="frame rate of --images (default 30)")
    p.add_argument("--realtime", action="store_true", help="pace a file like a camera")
    p.add_argument("--calibration", metavar="FILE", help="camera and table calibration")
    p.add_argument("--deck", metavar="NAME", help="a registered deck (pictures) to identify")
    p.add_argument("--headless", action="store_true", help="no window: write --out instead")
    p.add_argument(
        "--out",
        metavar="FILE",
        help="annotated video (default with --headless: pictable-session-ID.mp4)",
    )
    p.add_argument("--resume", metavar="ID", type=int, help="continue a stored session")
    p.add_argument("--db", metavar="PATH", help="the sessions database")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help="scoreboard page port")
    p.add_argument("--no-page", action="store_true", help="do not serve the scoreboard page")
    p.add_argument("--lan", action="store_true", help="serve the page to the network (token)")
    p.add_argument("--quiet", action="store_true", help="print only the final scoreboard")
    p.set_defaults(func=run)


def _error(text: str) -> int:
    print(f"pictable play: {text}", file=sys.stderr)
    return EXIT_ERROR


def _players(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def _source_spec(args: argparse.Namespace) -> str:
    for name in ("video", "images", "source", "camera"):
        value = getattr(args, name)
        if value is not None:
            return str(value)
    return "0"


def _stdin_commands(pipeline: Any, stop: threading.Event) -> threading.Thread | None:
    """A thread that posts each line typed on stdin to the pipeline (corrections)."""
    if sys.stdin is None or sys.stdin.closed:
        return None

    def read() -> None:
        try:
            for line in sys.stdin:
                if stop.is_set():
                    return
                text = line.strip()
                if not text:
                    continue
                if text.lower() in ("q", "quit"):
                    stop.set()
                    return
                pipeline.post(text)
        except (OSError, ValueError):
            return

    thread = threading.Thread(target=read, name="stdin-commands", daemon=True)
    thread.start()
    return thread


def _window_ok() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or (
        sys.platform in ("darwin", "win32")
    )


def run(args: argparse.Namespace) -> int:
    from pictable.followers import NoFollower, make_follower
    from pictable.live import give_back_big_buffers
    from pictable.store import EventStore, StoreError, resolve_path
    from vision.sources import LatestFrameReader, open_source

    give_back_big_buffers()  # frame-sized buffers given back when freed: a lower peak

    if args.resume is None and args.game is None:
        return _error("name the GAME (picasso, picmix, pickpic, picflip) or --resume ID")
    try:
        store = EventStore(resolve_path(args.db))
    except StoreError as exc:
        return _error(str(exc))
    with store:
        if args.resume is not None:
            try:
                session = store.session(args.resume)
            except StoreError as exc:
                return _error(str(exc))
            if args.game is not None and args.game != session.game:
                return _error(f"session {session.id} is a {session.game} game, not {args.game}")
            game, players = session.game, list(session.players)
        else:
            game, players = args.game, _players(args.players)
        try:
            follower = make_follower(game, players, calibration=args.calibration, deck=args.deck)
        except NoFollower as exc:
            return _error(str(exc))
        except (ValueError, OSError) as exc:
            return _error(str(exc))
        try:
            source = open_source(_source_spec(args), fps=args.fps)
        except (ValueError, OSError) as exc:
            return _error(str(exc))
        # The source is opened before a session is created: a camera or file that cannot be
        # read leaves no empty session behind.
        reader = LatestFrameReader(source, live=True if args.realtime else None)
        try:
            reader.start()
        except (OSError, ValueError) as exc:
            return _error(f"cannot open {source.describe()}: {exc}")
        if args.resume is None:
            session = store.create_session(follower.start_event(), note="pictable play")
        print(f"session {session.id}: {game} with {', '.join(players)}", flush=True)
        print(f"reading {reader.name}", flush=True)
        return _play(args, store, session.id, follower, source, reader)


def _play(
    args: argparse.Namespace,
    store: Any,
    session_id: int,
    follower: Any,
    source: Any,
    reader: Any,
) -> int:
    import cv2

    from pictable.live import LivePipeline, drive
    from pictable.liveview import draw_view, open_video_writer
    from pictable.textboard import event_line, scoreboard

    headless = args.headless
    if not headless and not _window_ok():
        print(
            "no display: running headless (the annotated video is written instead)", file=sys.stderr
        )
        headless = True
    board = _start_board(args)
    pipeline = LivePipeline(store, session_id, follower, board=board)
    if board is not None:
        board.on_input(pipeline.page_input)
    stop = threading.Event()
    _stdin_commands(pipeline, stop)
    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    out_path = args.out or (f"pictable-session-{session_id}.mp4" if headless else None)
    started = time.monotonic()
    window = "pictable play - " + reader.name
    state: dict[str, Any] = {"writer": None}

    def on_frame(image: Any, records: list[Any]) -> bool:
        if not args.quiet:
            for rec in records:
                mark = "" if rec.accepted else f"   REJECTED: {rec.reason}"
                print(f"  {event_line(rec.event)}{mark}", flush=True)
        if headless and not out_path:
            return True
        fps = pipeline.stats.frames / max(1e-6, time.monotonic() - started)
        view = draw_view(image, pipeline, fps=fps)
        if out_path:
            if state["writer"] is None:
                state["writer"] = open_video_writer(out_path, view.shape, source.fps)
            state["writer"].write(view)
        if headless:
            return True
        cv2.imshow(window, view)
        return _key(cv2.waitKey(1) & 0xFF, pipeline, stop)

    try:
        for rec in drive(pipeline, reader, live=bool(source.live), stop=stop, on_frame=on_frame):
            if not args.quiet:
                print(f"  {event_line(rec.event)}", flush=True)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        stop.set()
        reader.close()
        if state["writer"] is not None:
            state["writer"].release()
        if not headless:
            cv2.destroyAllWindows()
        if board is not None:
            board.stop()
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
    pipeline.drain()
    stats = reader.stats
    print()
    print(scoreboard(pipeline.state.summary()))
    print(
        f"\n{pipeline.stats.frames} frames, {pipeline.stats.events} events "
        f"({pipeline.stats.rejected} rejected), {pipeline.stats.median_ms():.0f} ms per frame "
        f"(median); {stats.skipped_total} frames skipped, {len(stats.gaps)} camera gaps"
    )
    if out_path and state["writer"] is not None:
        print(f"annotated video: {out_path}")
    if not pipeline.state.finished:
        print(f"continue with: pictable play --resume {session_id}")
    return 0


def _key(key: int, pipeline: Any, stop: threading.Event) -> bool:
    """A key of the live window; False to quit."""
    if key in (ord("q"), 27):
        stop.set()
        return False
    commands = {ord("u"): "undo", ord("y"): "confirm", ord("n"): "reject"}
    if key in commands:
        pipeline.command(commands[key])
    elif ord("1") <= key <= ord("9"):
        pipeline.command(f"claim {key - ord('0')}")
    elif key == ord("e"):
        pipeline.say("type the missed event as one JSON line in the terminal, then Enter")
    return True


def _start_board(args: argparse.Namespace) -> Any:
    if args.no_page:
        return None
    from pictable.scoreboard import Scoreboard, new_token

    token = new_token() if args.lan else None
    host = "0.0.0.0" if args.lan else "127.0.0.1"
    for port in (args.port, 0):
        try:
            board = Scoreboard(host=host, port=port, token=token).start()
        except OSError as exc:
            if port == 0:
                print(f"scoreboard page not served: {exc}", file=sys.stderr)
                return None
            continue
        # Every address printed opens the page: with --lan each carries the token.
        print(f"scoreboard: {board.page_url}", flush=True)
        if args.lan:
            where = board.network_url or f"http://THIS-MACHINE:{board.port}/?token={token}"
            print(f"on the network: {where}", flush=True)
        return board
    return None
