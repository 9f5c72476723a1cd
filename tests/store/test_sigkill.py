"""Durability (issue 2 item 5): an event is on disk before it is acknowledged.

A writer process (``pictable sessions new --stdin``, what the live pipeline drives) plays a
real Picasso game; it is killed with SIGKILL in the middle, and the database then holds every
acknowledged event, its state is the replay of exactly those events, and ``resume`` finishes
the game.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

import engine
from pictable.store import EventStore

from .games import (
    OUT_OF_TURN,
    PICASSO_EVENTS,
    PICASSO_FINAL_SCORES,
    PICASSO_START,
    Writer,
    line,
    pictable,
)

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def start_writer(db: Path) -> tuple[Writer, int]:
    writer = Writer("new", "--db", str(db), "--start", json.dumps(PICASSO_START), "--stdin")
    session_id = int(writer.read())
    state = json.loads(writer.read())
    assert state["session"] == session_id
    assert state["state"]["scores"] == {"A": 0, "B": 0}
    return writer, session_id


def parse_ack(text: str) -> tuple[int, bool]:
    """``ok N`` -> (N, True); ``rejected N: why`` -> (N, False)."""
    word, rest = text.split(" ", 1)
    assert word in ("ok", "rejected"), text
    return int(rest.split(":", 1)[0]), word == "ok"


def test_sigkill_mid_game_keeps_every_acknowledged_event_and_resumes(db: Path) -> None:
    # One illegal event in the stream: it is acknowledged as rejected and must stay so.
    sent: list[dict[str, Any]] = [PICASSO_EVENTS[0], OUT_OF_TURN, *PICASSO_EVENTS[1:8]]
    writer, session_id = start_writer(db)
    acks = []
    for obj in sent:
        writer.send(obj)
        acks.append(parse_ack(writer.read()))
    assert acks == [(seq, seq != 2) for seq in range(1, len(sent) + 1)]

    assert writer.kill() == -signal.SIGKILL
    # Killed, not closed: the committed events are still in the write-ahead log.
    assert Path(f"{db}-wal").exists()

    accepted = [obj for obj, (_, ok) in zip(sent, acks, strict=True) if ok]
    with EventStore(db) as store:
        stored = store.events(session_id)
        assert [(e.seq, e.accepted) for e in stored] == [(0, True), *acks]
        assert [e.obj for e in stored] == [PICASSO_START, *sent]
        assert stored[2].reason is not None and "picasso.turn" in stored[2].reason
        assert [json.loads(x) for x in store.export(session_id)] == [PICASSO_START, *accepted]
        state = store.load(session_id)
        assert state == engine.replay([PICASSO_START, *accepted])
        assert not state.finished
        session = store.session(session_id)
        assert (session.status, session.events, session.rejected) == ("open", len(accepted), 1)

    rest = PICASSO_EVENTS[8:]
    done = pictable(
        "sessions", "resume", str(session_id), "--db", str(db),
        stdin="".join(line(obj) for obj in rest),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    resumed = json.loads(out[0])
    assert resumed["state"] == state.summary()
    first = len(sent) + 1
    assert out[1:-1] == [f"ok {seq}" for seq in range(first, first + len(rest))]
    final = json.loads(out[-1])
    assert final["status"] == "finished"
    assert final["state"]["scores"] == PICASSO_FINAL_SCORES
    assert final["state"]["winners"] == ["A"]

    with EventStore(db) as store:
        assert store.load(session_id) == engine.replay([PICASSO_START, *PICASSO_EVENTS])
        assert [json.loads(x) for x in store.export(session_id)] == [
            PICASSO_START,
            *PICASSO_EVENTS,
        ]


@pytest.mark.parametrize("acks_before_kill", [1, 4, 9])
def test_sigkill_with_events_in_flight_loses_only_unacknowledged_ones(
    db: Path, acks_before_kill: int
) -> None:
    """The whole game is written at once and the writer killed after a few acks, while it is
    still working: what is stored is a prefix of what was sent, containing every ack."""
    writer, session_id = start_writer(db)
    for obj in PICASSO_EVENTS:
        writer.send(obj)
    acks = [parse_ack(writer.read()) for _ in range(acks_before_kill)]
    assert writer.kill() == -signal.SIGKILL

    with EventStore(db) as store:
        stored = store.events(session_id)[1:]
        assert len(stored) >= len(acks)
        assert [(e.seq, e.accepted) for e in stored[: len(acks)]] == acks
        assert [e.obj for e in stored] == PICASSO_EVENTS[: len(stored)]
        assert all(e.accepted for e in stored)
        assert store.load(session_id) == engine.replay(
            [PICASSO_START, *PICASSO_EVENTS[: len(stored)]]
        )
