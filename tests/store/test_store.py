"""The event store's API: sessions, accepted and rejected events, export, undo, reopening,
concurrency (issue 2 item 5; STYLE.md "lenient session")."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import engine
from engine.log import replay_lines
from pictable.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    EventStore,
    StoreError,
    UnknownSession,
    default_path,
    resolve_path,
)

from .games import OUT_OF_TURN, PICASSO_EVENTS, PICASSO_FINAL_SCORES, PICASSO_START


def play(store: EventStore, events: list[dict[str, object]]) -> int:
    session_id = store.create_session(PICASSO_START).id
    for obj in events:
        assert store.append(session_id, obj).accepted
    return session_id


def test_a_whole_game_is_recorded_and_scored(store: EventStore) -> None:
    session = store.create_session(PICASSO_START, note="friday")
    assert (session.id, session.game, session.players) == (1, "picasso", ("A", "B"))
    assert (session.status, session.events, session.note) == ("open", 0, "friday")
    for seq, obj in enumerate(PICASSO_EVENTS, start=1):
        result = store.append(session.id, obj)
        assert (result.seq, result.accepted, result.reason) == (seq, True, None)
        assert result.ack() == f"ok {seq}"
    assert result.state.finished
    session = store.session(session.id)
    assert (session.status, session.events, session.rejected) == ("finished", 16, 0)
    assert session.summary["scores"] == PICASSO_FINAL_SCORES
    assert session.summary["winners"] == ["A"]
    assert [e.t for e in store.events(session.id)][:5] == [None, 1.0, 5.5, 9.0, 12.0]


def test_export_replays_to_the_stored_state(store: EventStore, tmp_path: Path) -> None:
    """(c) export -> engine.replay equals the stored state, mid-game and at the end, also
    through the log reader of `pictable replay`."""
    session_id = store.create_session(PICASSO_START).id
    store.append(session_id, OUT_OF_TURN)  # rejected: left out of the export
    for count, obj in enumerate(PICASSO_EVENTS, start=1):
        store.append(session_id, obj)
        if count in (3, 9, 16):
            lines = store.export(session_id)
            assert len(lines) == count + 1
            assert engine.replay(json.loads(x) for x in lines) == store.load(session_id)
    replayed = replay_lines(store.export(session_id))
    assert replayed.error is None
    assert replayed.state == store.load(session_id)
    assert replayed.state is not None
    assert replayed.state.summary() == dict(store.session(session_id).summary)


def test_a_rejected_event_is_recorded_with_its_reason_and_the_state_is_unchanged(
    store: EventStore,
) -> None:
    """(d) STYLE.md: the live session records a rejected event with its reason and carries on
    with the state it had."""
    session_id = store.create_session(PICASSO_START).id
    store.append(session_id, PICASSO_EVENTS[0])
    before = store.load(session_id)

    result = store.append(session_id, OUT_OF_TURN)
    assert (result.seq, result.accepted) == (2, False)
    assert result.reason is not None
    assert result.reason.startswith('illegal event {"type": "draw", "player": "B"')
    assert "[picasso.turn:" in result.reason
    assert result.ack() == f"rejected 2: {result.reason}"
    assert result.state == before
    assert store.load(session_id) == before

    stored = store.events(session_id)[2]
    assert (stored.seq, stored.status, stored.obj, stored.reason) == (
        2,
        "rejected",
        OUT_OF_TURN,
        result.reason,
    )
    assert store.session(session_id).rejected == 1
    # The session carries on: the next legal event is accepted.
    assert store.append(session_id, PICASSO_EVENTS[1]).ack() == "ok 3"


@pytest.mark.parametrize(
    ("obj", "reason"),
    [
        ({"type": "draw", "player": "A", "card": "c9", "colour": "red"}, 'unknown key "colour"'),
        ({"type": "jump"}, "jump"),
        ({"type": "start", "game": "picasso", "players": ["A", "B"]}, "exactly one start"),
        ([1, 2], "must be a JSON object"),
        ({"type": "draw", "player": "Zoe", "card": "c1"}, "Zoe"),
        ({"type": "draw", "player": "A", "card": "c1", "t": float("nan")}, "not a JSON value"),
        ({"type": "draw", "player": "A", "card": {1, 2}}, "not a JSON value"),
    ],
)
def test_bad_events_are_rejected_with_the_engines_reason(
    store: EventStore, obj: object, reason: str
) -> None:
    session_id = store.create_session(PICASSO_START).id
    before = store.load(session_id)
    result = store.append(session_id, obj)
    assert not result.accepted
    assert result.reason is not None and reason in result.reason
    assert store.load(session_id) == before
    assert store.export(session_id) == [json.dumps(PICASSO_START)]


def test_a_line_that_is_not_json_is_recorded_as_rejected(store: EventStore) -> None:
    session_id = store.create_session(PICASSO_START).id
    result = store.append_line(session_id, '{"type": "draw", \n')
    assert not result.accepted
    assert result.reason is not None and result.reason.startswith("not JSON (")
    assert "[log.object:" in result.reason
    event = store.events(session_id)[1]
    assert (event.line, event.obj, event.status) == ('{"type": "draw",', None, "rejected")
    assert store.append_line(session_id, json.dumps(PICASSO_EVENTS[0])).accepted


def test_undo_withdraws_the_last_accepted_event(store: EventStore) -> None:
    """(e) undo: the event stays in the database, marked; the state and the export lose it."""
    session_id = play(store, PICASSO_EVENTS)
    assert store.session(session_id).status == "finished"
    store.append(session_id, {"type": "give_up"})  # rejected: the game is finished

    undone = store.undo_last(session_id)  # skips the rejected event, takes the last guess
    assert (undone.seq, json.loads(undone.line)) == (16, PICASSO_EVENTS[-1])
    assert undone.state == engine.replay([PICASSO_START, *PICASSO_EVENTS[:-1]])
    assert store.load(session_id) == undone.state
    session = store.session(session_id)
    assert (session.status, session.events, session.rejected) == ("open", 15, 1)
    statuses = [e.status for e in store.events(session_id)]
    assert statuses == ["accepted"] * 16 + ["undone", "rejected"]
    assert store.events(session_id)[16].undone is not None
    assert [json.loads(x) for x in store.export(session_id)] == [
        PICASSO_START,
        *PICASSO_EVENTS[:-1],
    ]

    # The correction: B was the guesser after all, a rule-breaking move, then the real one.
    assert not store.append(session_id, {"type": "guess", "player": "B"}).accepted
    redo = store.append(session_id, PICASSO_EVENTS[-1])
    assert (redo.seq, redo.accepted, redo.state.finished) == (19, True, True)

    for _ in range(len(PICASSO_EVENTS)):
        store.undo_last(session_id)
    assert store.load(session_id) == engine.start(PICASSO_START)
    with pytest.raises(StoreError, match=r"session 1: nothing to undo \(only its start is left\)"):
        store.undo_last(session_id)


def test_sessions_survive_reopening(db: Path) -> None:
    with EventStore(db) as store:
        first = play(store, PICASSO_EVENTS[:5])
        second = play(store, PICASSO_EVENTS)
        store.append(first, OUT_OF_TURN)
    with EventStore(db) as store:
        listed = store.sessions()
        assert [(s.id, s.events, s.rejected, s.status) for s in listed] == [
            (first, 5, 1, "open"),
            (second, 16, 0, "finished"),
        ]
        assert store.load(first) == engine.replay([PICASSO_START, *PICASSO_EVENTS[:5]])
        assert store.append(first, PICASSO_EVENTS[5]).seq == 7


def test_the_file_identifies_itself_and_uses_wal(db: Path) -> None:
    EventStore(db).close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()
    with EventStore(db) as store:
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_unknown_sessions_and_bad_starts(store: EventStore, db: Path) -> None:
    for call in (store.load, store.session, store.events, store.export, store.undo_last):
        with pytest.raises(UnknownSession, match=f"no session 7 in {db}"):
            call(7)
    with pytest.raises(UnknownSession):
        store.append(7, PICASSO_EVENTS[0])
    with pytest.raises(engine.InvalidEvent, match="at least 2 players"):
        store.create_session({"type": "start", "game": "picasso", "players": ["A"]})
    assert store.sessions() == []


def test_a_missing_database_is_created_only_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "sessions.db"
    with pytest.raises(StoreError, match="no sessions database here"):
        EventStore(path, create=False)
    assert not path.exists()
    EventStore(path).close()
    assert path.exists()


def test_two_stores_on_one_database_stay_coherent(db: Path) -> None:
    """Each store caches its sessions' states; a write by the other is seen all the same."""
    with EventStore(db) as one, EventStore(db) as two:
        session_id = one.create_session(PICASSO_START).id
        for i, obj in enumerate(PICASSO_EVENTS):
            result = (one if i % 2 else two).append(session_id, obj)
            assert (result.seq, result.accepted) == (i + 1, True)
        two.undo_last(session_id)
        expected = engine.replay([PICASSO_START, *PICASSO_EVENTS[:-1]])
        assert one.load(session_id) == expected
        assert one.append(session_id, PICASSO_EVENTS[-1]).state.finished


def test_readers_read_while_a_writer_holds_the_database(db: Path) -> None:
    """WAL: a reader is not blocked by a write transaction; a second writer waits, then
    gives up with a clear error."""
    with EventStore(db) as store:
        session_id = play(store, PICASSO_EVENTS[:3])
    blocker = sqlite3.connect(db, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        blocker.execute("UPDATE sessions SET note = 'being written'")
        with EventStore(db, timeout_s=0.05) as reader:
            assert reader.session(session_id).note == ""
            assert len(reader.export(session_id)) == 4
            with pytest.raises(StoreError, match="the database is busy"):
                reader.append(session_id, PICASSO_EVENTS[3])
        blocker.execute("ROLLBACK")
    finally:
        blocker.close()
    with EventStore(db) as store:
        assert store.append(session_id, PICASSO_EVENTS[3]).ack() == "ok 4"


def test_append_uses_the_cached_state(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Appending does not replay the session (O(1) per event, not a full replay each time)."""
    session_id = store.create_session(PICASSO_START).id
    store.append(session_id, PICASSO_EVENTS[0])

    def no_replay(*_args: object) -> None:
        raise AssertionError("append replayed the session")

    monkeypatch.setattr(store, "_replay", no_replay)
    for obj in PICASSO_EVENTS[1:]:
        assert store.append(session_id, obj).accepted


def test_the_database_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PICTABLE_DB", str(tmp_path / "env.db"))
    assert default_path() == tmp_path / "env.db"
    assert resolve_path(str(tmp_path / "opt.db")) == tmp_path / "opt.db"
    monkeypatch.delenv("PICTABLE_DB")
    assert default_path() == tmp_path / "xdg" / "pictable" / "sessions.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_path() == Path.home() / ".local" / "share" / "pictable" / "sessions.db"
