"""The event store: game sessions and every event they received, in one SQLite file.

The event log is the source of truth (STYLE.md): a session's state is the replay of its
accepted events, in order. The store is the "lenient session" of STYLE.md: an event the
engine refuses is still recorded, as rejected with the engine's reason (which quotes the
event and names the rule), and the session carries on with the state it had.

Durability: ``append`` commits before it returns, in WAL mode with ``synchronous=FULL``, so
an acknowledged event survives the writer being killed (and, as far as the disk keeps its
promises, a power cut). Concurrency: SQLite's WAL lets readers read while one writer writes;
writes take ``BEGIN IMMEDIATE``. One process should write a given session at a time, but two
writers stay correct: each session carries a ``revision`` bumped by every write, and a cached
state is used only while its revision is current.

The file identifies itself (``PRAGMA application_id`` and ``user_version``), so a file that
is not SQLite, an SQLite file of another application, a newer schema or a damaged file is
refused with a ``StoreError`` naming the file and the problem, never a traceback.

Layout, schema version 1::

    sessions(id, game, players JSON, created, updated, status, note, revision, summary JSON)
    events(session_id, seq, line, accepted, reason, t, created, undone)

``seq`` numbers a session's events in the order received, from 0 (the ``start`` event);
``line`` is the event as one line of JSON (for a line that was not JSON, the text received);
times are ISO 8601 UTC strings; ``t`` is the event's own ``"t"`` (seconds), when it has one.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import engine
from engine import rules
from engine.errors import escape_surrogates

APPLICATION_ID = 0x50435442  # "PCTB": marks a pictable sessions database
SCHEMA_VERSION = 1
SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_HEADER_BYTES = 100
BUSY_TIMEOUT_S = 5.0
ENV_DB = "PICTABLE_DB"

STATUS_OPEN = "open"
STATUS_FINISHED = "finished"

_SCHEMA = """
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    created TEXT NOT NULL,
    updated TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'finished')),
    note TEXT NOT NULL DEFAULT '',
    revision INTEGER NOT NULL DEFAULT 0,
    summary TEXT NOT NULL
);
CREATE TABLE events (
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    accepted INTEGER NOT NULL CHECK (accepted IN (0, 1)),
    reason TEXT,
    t REAL,
    created TEXT NOT NULL,
    undone TEXT,
    PRIMARY KEY (session_id, seq)
);
"""
_TABLES = frozenset({"sessions", "events"})


class StoreError(Exception):
    """Root of the store's errors; the message is one line naming the file or session."""


class BadDatabase(StoreError):
    """The file is not a pictable sessions database we can use: not SQLite, another
    application's, a newer schema, or damaged."""


class UnknownSession(StoreError, LookupError):
    """No session has this id."""


@dataclass(frozen=True)
class Session:
    """One session as listed: ``events`` counts the accepted events in force (not ``start``),
    ``rejected`` the rejected ones; ``summary`` is ``State.summary()`` after the last
    accepted event; times are ISO 8601 UTC."""

    id: int
    game: str
    players: tuple[str, ...]
    created: str
    updated: str
    status: str
    note: str
    events: int
    rejected: int
    summary: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "players": list(self.players),
            "events": self.events,
            "rejected": self.rejected,
            "status": self.status,
            "created": self.created,
            "updated": self.updated,
            "note": self.note,
            "scores": dict(self.summary.get("scores", {})),
            "winners": list(self.summary.get("winners", [])),
        }


@dataclass(frozen=True)
class StoredEvent:
    """One event as received. ``obj`` is the parsed JSON (None when the line was not JSON);
    ``undone`` is when ``undo_last`` withdrew it (None while it is in force)."""

    seq: int
    line: str
    obj: Any
    accepted: bool
    reason: str | None
    t: float | None
    created: str
    undone: str | None

    @property
    def in_force(self) -> bool:
        """Accepted and not undone: part of the game's log."""
        return self.accepted and self.undone is None

    @property
    def status(self) -> str:
        if not self.accepted:
            return "rejected"
        return "undone" if self.undone is not None else "accepted"


@dataclass(frozen=True)
class AppendResult:
    """What ``append`` recorded: the event's ``seq``, whether it was accepted, the engine's
    reason when not, and the session's state afterwards (unchanged when rejected)."""

    session_id: int
    seq: int
    accepted: bool
    reason: str | None
    state: engine.State

    def ack(self) -> str:
        """The acknowledgement line of ``pictable sessions resume``: ``ok N`` or
        ``rejected N: reason``."""
        if self.accepted:
            return f"ok {self.seq}"
        return f"rejected {self.seq}: {one_line(self.reason or '')}"


@dataclass(frozen=True)
class UndoResult:
    """The event ``undo_last`` withdrew and the state without it."""

    session_id: int
    seq: int
    line: str
    state: engine.State


def one_line(text: str) -> str:
    """``text`` with line breaks folded into spaces (acks and errors are one line each)."""
    return " ".join(text.split())


def default_path() -> Path:
    """Where the sessions live: ``$PICTABLE_DB`` when set, else
    ``$XDG_DATA_HOME/pictable/sessions.db`` (``~/.local/share/pictable/sessions.db``)."""
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "pictable" / "sessions.db"


def resolve_path(path: str | os.PathLike[str] | None) -> Path:
    """``path`` (a ``--db`` option) when given, else ``default_path()``."""
    return Path(path).expanduser() if path else default_path()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def json_line(obj: Any, *, allow_nan: bool = True) -> str:
    """``obj`` as one line of JSON that any UTF-8 writer (a terminal, SQLite, a web page) can
    take: characters as they are, but a lone surrogate (what the JSON escape ``"\\ud800"``
    parses to, which UTF-8 cannot encode) as its escape again, so the line parses back to
    the same value."""
    text = json.dumps(obj, ensure_ascii=False, allow_nan=allow_nan)
    # In JSON text a surrogate can only sit inside a string, where its escape means the same.
    return escape_surrogates(text)


def _dump(obj: Any) -> str:
    return json_line(obj, allow_nan=False)


def _event_t(obj: Any) -> float | None:
    if not isinstance(obj, dict):
        return None
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float):
        return None
    return float(t) if math.isfinite(t) else None


def _not_json(exc: json.JSONDecodeError | RecursionError) -> str:
    """The reason for a line that is not JSON, worded as ``pictable replay`` words it."""
    if isinstance(exc, json.JSONDecodeError):
        return f"not JSON ({exc.msg} at column {exc.colno}) [{rules.LOG_OBJECT}]"
    return f"not JSON (nested too deeply) [{rules.LOG_OBJECT}]"


def _rollback(conn: sqlite3.Connection) -> None:
    """Rolls back an open transaction while another error is on its way up; a failure to
    roll back (a broken connection) must not hide that error, and SQLite rolls back on
    close anyway."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


class EventStore:
    """The sessions database at ``path``.

    ``create`` makes the file (and its folder) when missing; otherwise a missing file is a
    ``StoreError``. ``check`` runs SQLite's ``quick_check`` on opening, so that a damaged
    file is refused at once rather than halfway through a game (about 40 ms for 100,000
    events). ``timeout_s``: how long a write waits for another writer before giving up.
    Use one ``EventStore`` per thread (an SQLite connection is not shared across threads);
    close it, or use it as a context manager.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        create: bool = True,
        check: bool = True,
        timeout_s: float = BUSY_TIMEOUT_S,
    ) -> None:
        self.path = Path(path)
        self.timeout_s = timeout_s
        # session id -> (revision, state after its accepted events): append stays O(1)
        self._cache: dict[int, tuple[int, engine.State]] = {}
        self._conn = self._open(create=create, check=check)

    # Opening and identifying the file.

    def _open(self, *, create: bool, check: bool) -> sqlite3.Connection:
        where = str(self.path)
        if self.path.is_dir():
            raise BadDatabase(f"{where}: is a folder, not a sessions database")
        if self.path.exists():
            self._check_header()
        elif not create:
            raise StoreError(f"{where}: no sessions database here (no session recorded yet)")
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(
                    f"{where}: cannot create its folder: {exc.strerror or exc}"
                ) from None
        try:
            conn = sqlite3.connect(where, timeout=self.timeout_s, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{where}: cannot open the sessions database: {exc}") from None
        try:
            fresh = self._identify(conn)
            # Only a change of journal mode needs the write lock: a reader opening the
            # database while the live session writes must not wait for it.
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise BadDatabase(
                    f"{where}: cannot use write-ahead logging (journal mode stays {mode!r}); "
                    "put the database on a local disk"
                )
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            if fresh:
                self._initialise(conn)
            self._check_tables(conn)
            if check:
                problems = [row[0] for row in conn.execute("PRAGMA quick_check(3)")]
                if problems != ["ok"]:
                    raise BadDatabase(f"{where}: the database is damaged: {'; '.join(problems)}")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise self._translate(exc) from None
        except StoreError:
            conn.close()
            raise
        return conn

    def _check_header(self) -> None:
        """Refuses a file that is not SQLite before SQLite sees it (an empty file is a new
        database, as SQLite treats it)."""
        where = str(self.path)
        try:
            with self.path.open("rb") as f:
                head = f.read(SQLITE_HEADER_BYTES)
        except OSError as exc:
            raise StoreError(f"{where}: cannot read: {exc.strerror or exc}") from None
        if not head:
            return
        if not head.startswith(SQLITE_MAGIC) and not SQLITE_MAGIC.startswith(head):
            raise BadDatabase(f"{where}: not a sessions database (not an SQLite file)")
        if len(head) < SQLITE_HEADER_BYTES:
            raise BadDatabase(f"{where}: the database is truncated ({len(head)} bytes)")

    def _identify(self, conn: sqlite3.Connection) -> bool:
        """Refuses another application's SQLite file and a newer schema; True for a new,
        empty database."""
        where = str(self.path)
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if app_id == 0:
            names = sorted(
                row[0]
                for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
                )
            )
            if names:
                shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
                raise BadDatabase(
                    f"{where}: an SQLite database of another application (tables: {shown}), "
                    "not a pictable sessions database"
                )
            return True
        if app_id != APPLICATION_ID:
            raise BadDatabase(
                f"{where}: an SQLite database of another application "
                f"(application_id {app_id:#010x}), not a pictable sessions database"
            )
        if version > SCHEMA_VERSION:
            raise BadDatabase(
                f"{where}: sessions database schema version {version} is newer than this "
                f"pictable reads ({SCHEMA_VERSION}); upgrade pictable"
            )
        if version < 1:
            raise BadDatabase(f"{where}: the database is damaged (schema version {version})")
        return False

    def _initialise(self, conn: sqlite3.Connection) -> None:
        """Creates the schema in a new, empty database."""
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Checked again under the write lock: another process may have just set it up.
            if conn.execute("PRAGMA application_id").fetchone()[0] == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    def _check_tables(self, conn: sqlite3.Connection) -> None:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        missing = sorted(_TABLES - tables)
        if missing:
            raise BadDatabase(
                f"{self.path}: the database is damaged (missing table {', '.join(missing)})"
            )

    def _translate(self, exc: sqlite3.Error) -> StoreError:
        text = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            return StoreError(
                f"{self.path}: the database is busy (another writer holds it): {text}"
            )
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(
            exc, sqlite3.OperationalError | sqlite3.IntegrityError
        ):
            return BadDatabase(f"{self.path}: the database is damaged: {text}")
        return StoreError(f"{self.path}: database error: {text}")

    # Transactions.

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """SQLite errors raised inside become ``StoreError``s naming the file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._translate(exc) from None

    @contextmanager
    def _transaction(self, begin: str) -> Iterator[sqlite3.Connection]:
        conn = self._conn
        conn.execute(begin)
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction: taken at once (``BEGIN IMMEDIATE``), committed on leaving."""
        return self._transaction("BEGIN IMMEDIATE")

    def _read(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction: one consistent snapshot while a writer goes on."""
        return self._transaction("BEGIN")

    # Reading.

    def close(self) -> None:
        """Closes the connection (the last one to close folds the WAL into the file)."""
        self._conn.close()
        self._cache.clear()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def sessions(self) -> list[Session]:
        """Every session, oldest first."""
        with self._guard(), self._read() as conn:
            rows = conn.execute("SELECT * FROM sessions ORDER BY id").fetchall()
            counts = self._counts(conn, None)
        return [self._session(row, counts.get(row[0], (0, 0))) for row in rows]

    def session(self, session_id: int) -> Session:
        """The session ``session_id``; raises ``UnknownSession``."""
        with self._guard(), self._read() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                raise self._unknown(session_id)
            counts = self._counts(conn, session_id)
        return self._session(row, counts.get(session_id, (0, 0)))

    def events(self, session_id: int) -> list[StoredEvent]:
        """Every event the session received, in order: accepted, rejected and undone."""
        with self._guard(), self._read() as conn:
            self._revision(conn, session_id)
            rows = conn.execute(
                "SELECT seq, line, accepted, reason, t, created, undone FROM events "
                "WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
        return [self._event(row) for row in rows]

    def export(self, session_id: int) -> list[str]:
        """The session's game log: its accepted events in force, ``start`` first, as JSON
        Lines (docs/formats.md section 1, without newlines) that ``pictable replay`` replays."""
        with self._guard(), self._read() as conn:
            self._revision(conn, session_id)
            return [line for (line,) in self._log_rows(conn, session_id)]

    def load(self, session_id: int) -> engine.State:
        """The session's current state: the replay of its accepted events (cached)."""
        with self._guard(), self._read() as conn:
            revision = self._revision(conn, session_id)
            return self._state(conn, session_id, revision)

    # Writing.

    def create_session(self, start: Any, *, note: str = "") -> Session:
        """A new session for the game that ``start`` (a raw ``start`` object) sets up.
        Raises the engine's ``InvalidEvent`` for a bad ``start`` (nothing is recorded). The
        free ``note`` is kept as text: bytes a command line could not decode (lone
        surrogates) are kept as their escapes, so that listing the sessions never fails."""
        state = engine.start(start)
        line = _dump(start)
        note = escape_surrogates(note)
        summary = state.summary()
        now = _now()
        with self._guard(), self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO sessions (game, players, created, updated, status, note, revision,"
                " summary) VALUES (?, ?, ?, ?, ?, ?, 1, ?)",
                (
                    summary["game"],
                    _dump(summary["players"]),
                    now,
                    now,
                    STATUS_FINISHED if state.finished else STATUS_OPEN,
                    note,
                    _dump(summary),
                ),
            )
            session_id = cursor.lastrowid
            assert session_id is not None  # an INSERT into a rowid table always sets it
            conn.execute(
                "INSERT INTO events (session_id, seq, line, accepted, reason, t, created)"
                " VALUES (?, 0, ?, 1, NULL, ?, ?)",
                (session_id, line, _event_t(start), now),
            )
        self._cache[session_id] = (1, state)
        return self.session(session_id)

    def append(self, session_id: int, obj: Any) -> AppendResult:
        """Records ``obj`` (a raw event object) in the session: accepted when the engine
        takes it in the session's current state, else rejected with the engine's reason
        (the state unchanged). Committed before it returns. Raises ``UnknownSession``."""
        try:
            line = _dump(obj)
        except (TypeError, ValueError, RecursionError) as exc:
            reason = f"not a JSON value ({exc}) [{rules.LOG_OBJECT}]"
            return self._record(session_id, one_line(repr(obj)), None, reason)
        return self._record(session_id, line, obj, None)

    def append_line(self, session_id: int, text: str) -> AppendResult:
        """``append`` for one line of JSON Lines; a line that is not JSON is recorded as
        rejected, with the text received."""
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            return self._record(session_id, text.strip(), None, _not_json(exc))
        return self.append(session_id, obj)

    def reject(self, session_id: int, text: str, reason: str) -> AppendResult:
        """Records ``text`` as a rejected event for ``reason`` without showing it to the
        engine: for input that is not an event at all (say, a line that is not UTF-8)."""
        return self._record(session_id, text, None, reason)

    def undo_last(self, session_id: int) -> UndoResult:
        """Withdraws the session's last accepted event in force (a correction): it stays in
        the database, marked undone, and the state is rebuilt without it. ``start`` cannot be
        undone: raises ``StoreError`` when nothing is left to undo."""
        with self._guard(), self._write() as conn:
            revision = self._revision(conn, session_id)
            row = conn.execute(
                "SELECT seq, line FROM events WHERE session_id = ? AND accepted = 1"
                " AND undone IS NULL AND seq > 0 ORDER BY seq DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            if row is None:
                raise StoreError(f"session {session_id}: nothing to undo (only its start is left)")
            seq, line = row
            now = _now()
            conn.execute(
                "UPDATE events SET undone = ? WHERE session_id = ? AND seq = ?",
                (now, session_id, seq),
            )
            self._cache.pop(session_id, None)
            state = self._replay(conn, session_id)
            self._touch(conn, session_id, now, state)
        self._cache[session_id] = (revision + 1, state)
        return UndoResult(session_id, seq, line, state)

    def _record(self, session_id: int, line: str, obj: Any, reason: str | None) -> AppendResult:
        with self._guard(), self._write() as conn:
            revision = self._revision(conn, session_id)
            state = self._state(conn, session_id, revision)
            new_state = state
            if reason is None:
                try:
                    new_state = engine.apply_raw(state, obj)
                except engine.EngineError as exc:
                    reason = str(exc)
                except RecursionError:
                    reason = f"event nested too deeply [{rules.LOG_OBJECT}]"
            accepted = reason is None
            (seq,) = conn.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE session_id = ?",
                (session_id,),
            ).fetchone()
            now = _now()
            conn.execute(
                "INSERT INTO events (session_id, seq, line, accepted, reason, t, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_id, seq, line, int(accepted), reason, _event_t(obj), now),
            )
            self._touch(conn, session_id, now, new_state)
        self._cache[session_id] = (revision + 1, new_state)
        return AppendResult(session_id, seq, accepted, reason, new_state)

    # Helpers (inside a transaction).

    def _unknown(self, session_id: int) -> UnknownSession:
        return UnknownSession(f"no session {session_id} in {self.path}")

    def _revision(self, conn: sqlite3.Connection, session_id: int) -> int:
        row = conn.execute("SELECT revision FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise self._unknown(session_id)
        return int(row[0])

    def _touch(
        self, conn: sqlite3.Connection, session_id: int, now: str, state: engine.State
    ) -> None:
        conn.execute(
            "UPDATE sessions SET revision = revision + 1, updated = ?, status = ?, summary = ?"
            " WHERE id = ?",
            (
                now,
                STATUS_FINISHED if state.finished else STATUS_OPEN,
                _dump(state.summary()),
                session_id,
            ),
        )

    def _log_rows(self, conn: sqlite3.Connection, session_id: int) -> list[tuple[str]]:
        return conn.execute(
            "SELECT line FROM events WHERE session_id = ? AND accepted = 1 AND undone IS NULL"
            " ORDER BY seq",
            (session_id,),
        ).fetchall()

    def _state(self, conn: sqlite3.Connection, session_id: int, revision: int) -> engine.State:
        cached = self._cache.get(session_id)
        if cached is not None and cached[0] == revision:
            return cached[1]
        state = self._replay(conn, session_id)
        self._cache[session_id] = (revision, state)
        return state

    def _replay(self, conn: sqlite3.Connection, session_id: int) -> engine.State:
        rows = self._log_rows(conn, session_id)
        state: engine.State | None = None
        for number, (line,) in enumerate(rows):
            try:
                obj = json.loads(line)
                state = engine.start(obj) if state is None else engine.apply_raw(state, obj)
            except (ValueError, RecursionError) as exc:  # EngineError and JSONDecodeError
                raise StoreError(
                    f"session {session_id}: its accepted event {number} no longer replays "
                    f"with this engine: {one_line(str(exc))}"
                ) from None
        if state is None:
            raise BadDatabase(f"{self.path}: session {session_id} has lost its start event")
        return state

    def _counts(
        self, conn: sqlite3.Connection, session_id: int | None
    ) -> dict[int, tuple[int, int]]:
        """session id -> (accepted events in force, not start; rejected events)."""
        query = (
            "SELECT session_id, SUM(accepted = 1 AND undone IS NULL AND seq > 0),"
            " SUM(accepted = 0) FROM events"
        )
        if session_id is None:
            rows = conn.execute(query + " GROUP BY session_id").fetchall()
        else:
            rows = conn.execute(
                query + " WHERE session_id = ? GROUP BY session_id", (session_id,)
            ).fetchall()
        return {int(sid): (int(a or 0), int(r or 0)) for sid, a, r in rows}

    def _session(self, row: tuple[Any, ...], counts: tuple[int, int]) -> Session:
        sid, game, players, created, updated, status, note, _revision, summary = row
        try:
            players_list = json.loads(players)
            summary_obj = json.loads(summary)
        except (json.JSONDecodeError, TypeError) as exc:
            raise BadDatabase(f"{self.path}: session {sid} is damaged: {exc}") from None
        return Session(
            id=int(sid),
            game=str(game),
            players=tuple(players_list),
            created=str(created),
            updated=str(updated),
            status=str(status),
            note=str(note),
            events=counts[0],
            rejected=counts[1],
            summary=summary_obj,
        )

    @staticmethod
    def _event(row: tuple[Any, ...]) -> StoredEvent:
        seq, line, accepted, reason, t, created, undone = row
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            obj = None
        return StoredEvent(
            seq=int(seq),
            line=str(line),
            obj=obj,
            accepted=bool(accepted),
            reason=reason,
            t=t,
            created=str(created),
            undone=undone,
        )
