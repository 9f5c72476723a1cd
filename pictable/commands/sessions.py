"""``pictable sessions``: the recorded game sessions (the event store, ``pictable.store``).

``list`` shows them, ``export`` writes one as a replayable log, ``new`` starts one, ``resume``
reopens one and appends the events read from stdin (what the live pipeline drives), ``show``
lists every event a session received and ``undo`` withdraws the last accepted one.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pictable.store import EventStore, Session

EXIT_ERROR = 2

HELP = "recorded game sessions: list, export, start, resume (events from stdin), undo"
DESCRIPTION = """\
Every game played at the table is a session in an SQLite database: its start, then every
event received, each recorded as accepted (it moved the game on) or rejected (with the rule
it broke; the game carries on as it was). An event is on disk before it is acknowledged.

The database is --db PATH, else $PICTABLE_DB, else ~/.local/share/pictable/sessions.db
($XDG_DATA_HOME/pictable/sessions.db when XDG_DATA_HOME is set).

Errors (an unknown session, a file that is not a sessions database, a damaged database)
print one line to stderr and exit with status 2.
"""
EPILOG = """\
examples:
  pictable sessions new --game picasso --players Ann,Bob --option cards_per_player=2
  pictable sessions resume 3 < more-events.jsonl
  pictable sessions export 3 > game.jsonl && pictable replay game.jsonl
"""

ACK_HELP = """\
After the state line, each line of stdin is one event (JSON Lines, docs/formats.md section 1),
appended as it arrives; blank lines are skipped. For each, one acknowledgement line is
printed to stdout, after the event is committed to disk:

  ok N              the event was accepted (N: its number in the session)
  rejected N: WHY   it was recorded as rejected; WHY quotes it and names the rule

The state line, and the last line at the end of stdin, are JSON objects:
  {"session": ID, "status": "open"|"finished", "events": N, "rejected": N, "state": {...}}
where "state" is the summary of `pictable replay --json` (game, players, scores, ...).
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sessions",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=lambda _args: _usage(p))
    commands = p.add_subparsers(dest="sessions_command", metavar="ACTION", title="actions")

    db = argparse.ArgumentParser(add_help=False)
    db.add_argument(
        "--db",
        metavar="PATH",
        help="the sessions database (default: $PICTABLE_DB, else "
        "~/.local/share/pictable/sessions.db)",
    )

    def add(name: str, help_: str, description: str, func: Any) -> argparse.ArgumentParser:
        q = commands.add_parser(
            name,
            help=help_,
            description=description,
            parents=[db],
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        q.set_defaults(func=func)
        return q

    q = add(
        "list",
        "list the sessions: id, game, players, events, status, last update, scores",
        "Lists every session, oldest first: its id, game, players, the number of accepted\n"
        "events (not counting start), its status (open or finished), when it was last\n"
        "updated (UTC) and the scores.",
        run_list,
    )
    q.add_argument("--json", action="store_true", help='print {"sessions": [...]} as JSON')

    q = add(
        "export",
        "write a session's game log (JSON Lines) to stdout, replayable by `pictable replay`",
        "Writes the session's accepted events in order, start first, one JSON object a line\n"
        "(docs/formats.md section 1): the game's log, which `pictable replay` replays to the\n"
        "session's state. Rejected and undone events are left out (see `sessions show`).",
        run_export,
    )
    q.add_argument("id", metavar="ID", type=int, help="the session id (see `sessions list`)")

    q = add(
        "show",
        "list every event a session received, accepted, rejected or undone",
        "Prints the session, then every event it received in order with its number, its\n"
        "status (accepted, rejected, undone) and, for a rejected one, the reason.",
        run_show,
    )
    q.add_argument("id", metavar="ID", type=int, help="the session id")
    q.add_argument("--json", action="store_true", help="print one JSON object")

    q = add(
        "new",
        "start a session; with --stdin, then append events read from stdin",
        "Starts a session and prints its id on the first line of stdout. The game is given\n"
        "either by --game and --players (and --option for its options), or by a whole\n"
        "start event with --start. With --stdin it then goes on as `sessions resume`.\n\n"
        + ACK_HELP,
        run_new,
    )
    how = q.add_mutually_exclusive_group(required=True)
    how.add_argument("--game", choices=("pickpic", "picflip", "picasso", "picmix"), help="the game")
    how.add_argument(
        "--start",
        metavar="JSON",
        help="the whole start event as JSON, e.g. "
        '\'{"type": "start", "game": "picasso", "players": ["A", "B"]}\'',
    )
    q.add_argument(
        "--players", metavar="A,B,C", help="the players in seating order, clockwise (with --game)"
    )
    q.add_argument(
        "--option",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="a game option (repeatable); VALUE is read as JSON when it parses, else as text, "
        "e.g. --option target=10 --option three_items_only=true",
    )
    q.add_argument("--note", default="", help="a free note kept with the session")
    q.add_argument(
        "--stdin", action="store_true", help="then read events from stdin, as `sessions resume`"
    )

    add(
        "resume",
        "reopen a session: print its state, append events from stdin, acknowledge each",
        "Reopens the session, prints its state as one JSON line, then appends the events\n"
        "read from stdin.\n\n" + ACK_HELP,
        run_resume,
    ).add_argument("id", metavar="ID", type=int, help="the session id")

    add(
        "undo",
        "withdraw the session's last accepted event (a correction)",
        "Marks the session's last accepted event as undone: it stays in the database (see\n"
        "`sessions show`) but leaves the game's log, and the state is rebuilt without it.\n"
        "Repeat to go further back; the start cannot be undone.",
        run_undo,
    ).add_argument("id", metavar="ID", type=int, help="the session id")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 0


def _fail(message: str) -> int:
    from pictable.store import one_line

    print(f"pictable sessions: {one_line(message)}", file=sys.stderr)
    return EXIT_ERROR


def _with_store(args: argparse.Namespace, body: Any, *, create: bool = False) -> int:
    """Runs ``body(store)`` on the database of ``--db``; the store's and engine's errors
    become one line on stderr and exit status 2."""
    from engine import EngineError
    from pictable.store import EventStore, StoreError, resolve_path

    try:
        with EventStore(resolve_path(args.db), create=create) as store:
            return int(body(store) or 0)
    except (StoreError, EngineError) as exc:
        return _fail(str(exc))


# list


def run_list(args: argparse.Namespace) -> int:
    from pictable.store import json_line, resolve_path

    path = resolve_path(args.db)
    if not path.exists():
        if args.json:
            print(json.dumps({"sessions": []}))
        else:
            print(f"no sessions yet ({path} does not exist)")
        return 0

    def body(store: EventStore) -> int:
        sessions = store.sessions()
        if args.json:
            print(json_line({"sessions": [s.to_json() for s in sessions]}))
        elif not sessions:
            print(f"no sessions yet in {path}")
        else:
            print(format_table(sessions))
        return 0

    return _with_store(args, body)


def format_table(sessions: list[Session]) -> str:
    """A person's view of the sessions, one row each."""
    header = ("ID", "GAME", "PLAYERS", "EVENTS", "STATUS", "UPDATED (UTC)", "SCORES")
    rows = [header]
    for s in sessions:
        scores = s.summary.get("scores", {})
        winners = set(s.summary.get("winners", []))
        shown = ", ".join(f"{p} {scores.get(p, 0)}{'*' if p in winners else ''}" for p in s.players)
        rows.append(
            (
                str(s.id),
                s.game,
                ",".join(s.players),
                str(s.events) + (f" (+{s.rejected} rejected)" if s.rejected else ""),
                s.status,
                s.updated.replace("T", " ").rstrip("Z")[:19],
                shown,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    if any(s.summary.get("winners") for s in sessions):
        lines.append("(* winner)")
    return "\n".join(lines)


# export, show


def run_export(args: argparse.Namespace) -> int:
    def body(store: EventStore) -> int:
        lines = store.export(args.id)
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
        return 0

    return _with_store(args, body)


def run_show(args: argparse.Namespace) -> int:
    from pictable.store import json_line

    def body(store: EventStore) -> int:
        session = store.session(args.id)
        events = store.events(args.id)
        if args.json:
            out = session.to_json()
            out["state"] = dict(session.summary)
            out["received"] = [
                {
                    "seq": e.seq,
                    "status": e.status,
                    "line": e.line,
                    "reason": e.reason,
                    "t": e.t,
                    "created": e.created,
                    "undone": e.undone,
                }
                for e in events
            ]
            print(json_line(out))
            return 0
        players = ",".join(session.players)
        print(f"session {session.id}: {session.game} ({players}), {session.status}")
        if session.note:
            print(f"note: {session.note}")
        for e in events:
            print(f"{e.seq:>5}  {e.status:<8}  {e.line}")
            if e.reason:
                print(f"{'':>5}  {'':<8}  -> {e.reason}")
        return 0

    return _with_store(args, body)


# new, resume, undo


def _state_line(store: EventStore, session_id: int) -> str:
    from pictable.store import json_line

    session = store.session(session_id)
    return json_line(
        {
            "session": session.id,
            "status": session.status,
            "events": session.events,
            "rejected": session.rejected,
            "state": store.load(session_id).summary(),
        }
    )


def feed(store: EventStore, session_id: int, stdin: TextIO, stdout: TextIO) -> None:
    """Prints the session's state line, appends each line of ``stdin`` and prints its
    acknowledgement once it is committed, then prints the state line again at the end."""
    print(_state_line(store, session_id), file=stdout, flush=True)
    raw = stdin.buffer if hasattr(stdin, "buffer") else None
    while True:
        if raw is not None:
            data = raw.readline()
            if not data:
                break
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                text = data.decode("utf-8", errors="replace").strip()
                result = store.reject(session_id, text, f"not UTF-8 text ({exc.reason})")
                print(result.ack(), file=stdout, flush=True)
                continue
        else:
            line = stdin.readline()
            if not line:
                break
        if not line.strip():
            continue
        result = store.append_line(session_id, line)
        print(result.ack(), file=stdout, flush=True)
    print(_state_line(store, session_id), file=stdout, flush=True)


def run_resume(args: argparse.Namespace) -> int:
    def body(store: EventStore) -> int:
        store.load(args.id)  # refuses an unknown or unreplayable session before reading stdin
        feed(store, args.id, sys.stdin, sys.stdout)
        return 0

    return _with_store(args, body)


def start_object(args: argparse.Namespace) -> dict[str, Any] | str:
    """The start event given by ``--start`` or ``--game``/``--players``/``--option``, or a
    one-line complaint."""
    if args.start is not None:
        if args.players or args.option:
            return "--start gives the whole start event: leave out --players and --option"
        try:
            obj = json.loads(args.start)
        except json.JSONDecodeError as exc:
            return f"--start is not JSON ({exc.msg} at column {exc.colno})"
        return obj if isinstance(obj, dict) else "--start must be a JSON object"
    if not args.players:
        return "--game needs --players A,B,..."
    start: dict[str, Any] = {
        "type": "start",
        "game": args.game,
        "players": [p.strip() for p in args.players.split(",")],
    }
    for item in args.option:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            return f"--option {item!r}: expected KEY=VALUE"
        if key in start:
            return f"--option {key}: set by --game/--players, not an option"
        try:
            start[key] = json.loads(text)
        except json.JSONDecodeError:
            start[key] = text
    return start


def run_new(args: argparse.Namespace) -> int:
    start = start_object(args)
    if isinstance(start, str):
        return _fail(start)

    def body(store: EventStore) -> int:
        session = store.create_session(start, note=args.note)
        print(session.id, flush=True)
        if args.stdin:
            feed(store, session.id, sys.stdin, sys.stdout)
        return 0

    return _with_store(args, body, create=True)


def run_undo(args: argparse.Namespace) -> int:
    def body(store: EventStore) -> int:
        undone = store.undo_last(args.id)
        print(f"undone {undone.seq}: {undone.line}")
        print(_state_line(store, args.id))
        return 0

    return _with_store(args, body)
