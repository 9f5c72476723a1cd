"""``pictable scoreboard --session ID``: serves the scoreboard page for a stored session.

It follows the session in the event store (``pictable.store``) as another process writes it,
polling the database every ``POLL_S`` seconds, and publishes each change to the page
(``pictable.scoreboard``). The page's Undo button withdraws the session's last accepted
event (``EventStore.undo_last``) unless ``--read-only``; confirmations and votes belong to
the live pipeline (``pictable play``), which serves its own board, so this one does not
offer them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pictable.store import EventStore, Session, StoredEvent

POLL_S = 0.2
DEFAULT_PORT = 8765
EXIT_ERROR = 2

HELP = "serve a live scoreboard page for a recorded session (browser, phone)"
DESCRIPTION = """\
Serves a scoreboard page for a session of the event store: scores (ranked, winners
marked), the current turn, the last events, and an Undo button. It follows the session
as another process (`pictable play`, `pictable sessions resume`) writes it: a change is
on the page within half a second.

By default it listens on 127.0.0.1 only (this machine). With --lan it listens on every
network interface and prints its addresses, on this machine and on the network, each with
a secret token: only a browser that opened one of them (or sends the token) gets in, this
machine's included. Stop it with Ctrl+C.
"""
EPILOG = """\
examples:
  pictable scoreboard --session 3              then open http://127.0.0.1:8765/
  pictable scoreboard --session 3 --lan        open the printed address on a phone
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "scoreboard",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--session", metavar="ID", type=int, required=True, help="the session (`sessions list`)"
    )
    p.add_argument(
        "--db",
        metavar="PATH",
        help="the sessions database (default: $PICTABLE_DB, else "
        "~/.local/share/pictable/sessions.db)",
    )
    p.add_argument(
        "--port",
        metavar="N",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port to listen on (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    p.add_argument(
        "--lan",
        action="store_true",
        help="listen on the network (0.0.0.0) too, behind a printed token",
    )
    p.add_argument(
        "--read-only", action="store_true", help="no Undo button: the page only shows the game"
    )
    p.set_defaults(func=run)


def _records(events: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """The store's events as ``Scoreboard.publish`` takes them."""
    return [
        {"event": e.obj, "line": e.line, "seq": e.seq, "status": e.status, "reason": e.reason}
        for e in events
    ]


def _key(session: Session) -> tuple[str, int, int]:
    """What changes whenever the session is written: every append or undo bumps ``updated``
    (milliseconds) and one of the two counts."""
    return session.updated, session.events, session.rejected


class _Follower:
    """Reads the session from the store and publishes it when it changed."""

    def __init__(self, store: EventStore, session_id: int, board: Any) -> None:
        self.store = store
        self.session_id = session_id
        self.board = board
        self.key: tuple[str, int, int] | None = None

    def tick(self) -> bool:
        """Publishes the session if it changed since the last tick; True when it did."""
        session = self.store.session(self.session_id)
        key = _key(session)
        if key == self.key:
            return False
        events = self.store.events(self.session_id)
        self.board.publish(dict(session.summary), _records(events))
        self.key = key
        return True


def run(args: argparse.Namespace) -> int:
    from pictable.scoreboard import InputRefused, Scoreboard, new_token
    from pictable.store import EventStore, StoreError, UnknownSession, resolve_path

    path = resolve_path(args.db)
    session_id: int = args.session
    if not 0 <= args.port <= 65535:
        print(f"--port {args.port}: a port is 0 to 65535", file=sys.stderr)
        return EXIT_ERROR
    try:
        store = EventStore(path, create=False)
    except StoreError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_ERROR
    with store:
        try:
            session = store.session(session_id)
        except StoreError as exc:
            print(str(exc), file=sys.stderr)
            return EXIT_ERROR
        token = new_token() if args.lan else None
        board = Scoreboard(host="0.0.0.0" if args.lan else "127.0.0.1", port=args.port, token=token)

        def undo(obj: dict[str, Any]) -> str:
            # Runs in a request thread: an SQLite connection of its own.
            try:
                with EventStore(path, create=False, check=False) as writer:
                    done = writer.undo_last(session_id)
            except StoreError as exc:
                raise InputRefused(str(exc)) from None
            return f"undone: event {done.seq}"

        if not args.read_only:
            board.on_input(undo, actions=["undo"])
        try:
            board.start()
        except OSError as exc:
            print(
                f"cannot listen on port {args.port}: {exc.strerror or exc} "
                "(another scoreboard? try --port 0)",
                file=sys.stderr,
            )
            return EXIT_ERROR
        follower = _Follower(store, session_id, board)
        try:
            follower.tick()
            # The address printed first is the one to open here: with --lan it carries the
            # token, without which the server answers 403 (loopback included).
            print(
                f"scoreboard of session {session_id} ({session.game}): {board.page_url}",
                flush=True,
            )
            if token is not None:
                where = board.network_url or f"http://THIS-MACHINE:{board.port}/?token={token}"
                print(f"on the network: {where}", flush=True)
                print("(only browsers that opened one of these addresses get in)", flush=True)
            print("press Ctrl+C to stop", flush=True)
            while True:
                time.sleep(POLL_S)
                try:
                    follower.tick()
                except UnknownSession as exc:
                    print(f"{exc}: the session is gone", file=sys.stderr)
                    return EXIT_ERROR
                except StoreError as exc:  # busy or briefly unreadable: try again next tick
                    print(f"warning: {exc}", file=sys.stderr)
        except KeyboardInterrupt:
            return 0
        finally:
            board.stop()


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command on its own (``python -m pictable.commands.scoreboard --session 3``),
    before it is wired into ``pictable``'s command line."""
    parser = argparse.ArgumentParser(prog="pictable")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["scoreboard", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
