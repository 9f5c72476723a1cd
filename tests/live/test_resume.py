"""A session killed at any phase of any game and resumed loses nothing and scores right.

The process dies between two frames: every acknowledged event is in the event store (the
store's own tests kill a real process for that), and nothing else survives. A new follower
is resumed from the store (``LivePipeline`` hands it the summary and the log) and the table
goes on, in two ways a person restarts:

- ``camera``: the frames go on from where the kill left them (a camera filming on);
- ``replay``: the same recording is played again from its start (``pictable play --resume
  ID --video V``), so the follower sees again what the log holds already.

Either way the stored log ends with the scores of the rendered session's truth and no
event refused. The Pic Flip table's vote against a play, which no camera sees, is entered
at its time as players would on the page (as ``pictable demo`` does)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import engine
from pictable.followers import make_follower
from pictable.live import LivePipeline
from pictable.liveview import draw_view
from pictable.rendered import RenderedSession, truth_state
from pictable.store import EventStore
from tests.live.conftest import video_fps, video_frames
from vision.picasso.reading import BoardReading


def kill_and_resume(
    session: RenderedSession, kill_at_s: float, restart: str, tmp_path: Path
) -> tuple[list[dict], list[dict], EventStore, int]:
    """Plays ``session`` up to ``kill_at_s`` (video seconds), drops the pipeline, resumes a
    new one on the same store and plays on (``restart``: "camera" or "replay"). Returns the
    events handled before and after the kill, the store and the session id."""
    frames = list(video_frames(session.video))
    fps = video_fps(session.video)
    kill = round(kill_at_s * fps)
    votes = [float(e.get("t", 0.0)) for e in session.events if e.get("type") == "reject"]
    voted: set[float] = set()

    def feed(pipe: LivePipeline, indices: range) -> list[dict]:
        for n, i in enumerate(indices):
            pipe.feed(frames[i], n / fps)
            for v in votes:
                if v not in voted and i / fps >= v:
                    voted.add(v)
                    pipe.command("vote no")
        return [{**r.event, "_accepted": r.accepted} for r in pipe.records]

    store = EventStore(tmp_path / f"{session.game}.db")
    first = make_follower(session.game, session.players, start=session.events[0])
    sid = store.create_session(first.start_event()).id
    before = feed(LivePipeline(store, sid, first), range(kill))
    # Killed: no finish, nothing but the store survives.
    follower = make_follower(session.game, session.players, start=session.events[0])
    resumed = LivePipeline(store, sid, follower)
    feed(resumed, range(0 if restart == "replay" else kill, len(frames)))
    resumed.finish()
    after = [{**r.event, "_accepted": r.accepted} for r in resumed.records]
    return before, after, store, sid


def assert_scored_as_the_truth(
    session: RenderedSession, after: list[dict], store: EventStore, sid: int
) -> None:
    refused = [e for e in after if not e["_accepted"]]
    assert not refused, refused
    log = [json.loads(line) for line in store.export(sid)]
    truth = truth_state(session.events).summary()["scores"]
    assert engine.replay(log).summary()["scores"] == truth


def kinds(events: list[dict]) -> list[str]:
    return [str(e["type"]) for e in events]


# Picasso (seed 1): A draws at 1.1 s, lays a piece about every 1.15 s from 3.75 s to 11.8 s
# (eight builds, cost 9), shows the card again at about 13.2 s and lays it before B at about
# 15 s. Each piece laid is its own build event, as soon as it settles.
BUILDS_BY_9_S = ["build"] * 5  # the pieces settled at 3.75, 4.9, 6.05, 7.2 and 8.35 s
ALL_BUILDS = ["build"] * 8


@pytest.mark.parametrize("restart", ["camera", "replay"])
@pytest.mark.parametrize(
    ("kill_at_s", "stored"),
    [
        (2.0, ["draw"]),  # before the build
        (9.0, ["draw", *BUILDS_BY_9_S]),  # during the build, a piece in the hand
        (14.0, ["draw", *ALL_BUILDS]),  # during the guess: the card shown again, not yet laid
        (15.0, ["draw", *ALL_BUILDS]),  # during the guess: the card laid, not yet settled
    ],
)
def test_picasso_resumes_at_every_phase_of_a_turn(
    picasso_session: RenderedSession,
    tmp_path: Path,
    kill_at_s: float,
    stored: list[str],
    restart: str,
) -> None:
    before, after, store, sid = kill_and_resume(picasso_session, kill_at_s, restart, tmp_path)
    assert kinds(before) == stored
    assert_scored_as_the_truth(picasso_session, after, store, sid)
    stored_builds = [
        e["pieces"] for e in map(json.loads, store.export(sid)) if e["type"] == "build"
    ]
    true_builds = [e["pieces"] for e in picasso_session.events if e["type"] == "build"]
    assert stored_builds == true_builds  # each piece seen once, never twice, never an empty one
    guess = [e for e in after if e["type"] == "guess"]
    assert len(guess) == 1 and "ask" not in guess[0].get("meta", {})  # a build was seen


@pytest.mark.parametrize("restart", ["camera", "replay"])
def test_picmix_resumes_mid_round(
    picmix_session: RenderedSession, tmp_path: Path, restart: str
) -> None:
    # revealed at 1.5 s, tapped at 4.5 s: killed with the objective open
    before, after, store, sid = kill_and_resume(picmix_session, 3.0, restart, tmp_path)
    assert kinds(before) == ["reveal"]
    assert kinds(after) == ["claim"]  # the objective is not revealed twice
    assert_scored_as_the_truth(picmix_session, after, store, sid)


@pytest.mark.parametrize(
    ("kill_at_s", "restart", "stored"),
    [
        (2.5, "replay", 1),  # one photo revealed of three
        (15.0, "camera", 11),  # the gives half-way (3 reveals, 8 gives)
        (15.0, "replay", 11),
        (37.5, "camera", 19),  # one ranking in, two to come
    ],
)
def test_pickpic_resumes_mid_round(
    pickpic_session: RenderedSession,
    tmp_path: Path,
    kill_at_s: float,
    restart: str,
    stored: int,
) -> None:
    before, after, store, sid = kill_and_resume(pickpic_session, kill_at_s, restart, tmp_path)
    assert len(before) == stored
    assert len(before) + len(after) == len(pickpic_session.events) - 1  # nothing twice
    assert_scored_as_the_truth(pickpic_session, after, store, sid)


@pytest.mark.parametrize("restart", ["camera", "replay"])
def test_picflip_resumes_mid_game(
    picflip_session: RenderedSession, tmp_path: Path, restart: str
) -> None:
    # after three plays; the table's vote against a later play comes after the restart
    before, after, store, sid = kill_and_resume(picflip_session, 12.0, restart, tmp_path)
    assert kinds(before).count("play") == 3
    assert "reject" in kinds(after)
    assert_scored_as_the_truth(picflip_session, after, store, sid)


def test_a_guess_with_no_build_seen_is_asked_about_not_scored_in_silence(
    picasso_session: RenderedSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The board in view all turn long, but every build missed (the reader sees the canvas
    # empty): the card shown again and laid before B is a guess on an empty board, worth
    # 10 to the builder by the rulebook, and far more likely a missed build. It is stored
    # (the engine is right to accept it) and asked about on the view and the page.
    import vision.tracker.picasso as turn

    real = turn.read_board

    def nothing_built(frame: np.ndarray, **kwargs: object) -> object:
        reading = real(frame, **kwargs)  # type: ignore[arg-type]
        if isinstance(reading, BoardReading):
            return dataclasses.replace(reading, sticks=(), shapes=(), string=None)
        return reading

    monkeypatch.setattr(turn, "read_board", nothing_built)
    store = EventStore(tmp_path / "s.db")
    follower = make_follower("picasso", picasso_session.players)
    pipe = LivePipeline(store, store.create_session(follower.start_event()).id, follower)
    for n, frame in enumerate(video_frames(picasso_session.video)):
        pipe.feed(frame, n / video_fps(picasso_session.video))
    pipe.finish()
    assert kinds([r.event for r in pipe.records]) == ["draw", "guess"]
    guess = pipe.records[-1]
    assert guess.accepted and guess.event["player"] == "B"
    assert guess.event["meta"]["ask"] == "no build seen"
    assert pipe.ask is not None and "no build was seen" in pipe.ask["text"]
    view = draw_view(np.zeros((720, 1280, 3), np.uint8), pipe)
    assert view.any()  # the question is drawn (its text is the pipeline's ask)
    assert pipe.reject().startswith("guess withdrawn")  # n: the players say it was not
    assert engine.replay([json.loads(x) for x in store.export(pipe.session_id)]).summary()[
        "scores"
    ] == {"A": 0, "B": 0, "C": 0}


def test_a_guess_after_a_seen_build_asks_only_the_usual_question(
    picasso_session: RenderedSession, tmp_path: Path
) -> None:
    store = EventStore(tmp_path / "s.db")
    follower = make_follower("picasso", picasso_session.players)
    pipe = LivePipeline(store, store.create_session(follower.start_event()).id, follower)
    fps = video_fps(picasso_session.video)
    for n, frame in enumerate(video_frames(picasso_session.video)):
        pipe.feed(frame, n / fps)
    pipe.finish()
    assert kinds([r.event for r in pipe.records]) == kinds(picasso_session.events[1:])
    assert "meta" not in pipe.records[-1].event
    assert pipe.ask is not None and pipe.ask["text"] == "B guessed the word: right?"


class ScriptedWatcher:
    """Stands in for the Picmix claim watcher: the events of each frame, in order."""

    def __init__(self, script: list[list[dict]]) -> None:
        self.script = list(script)
        self.claimed: str | None = None
        self.seat_of = None

    def update(self, frame: np.ndarray, t: float) -> list[dict]:
        return self.script.pop(0) if self.script else []

    def finish(self, t: float) -> list[dict]:
        return []

    def already_claimed(self, card: str) -> None:
        self.claimed = card


def reveal(card: str) -> dict:
    return {"type": "reveal", "card": card, "items": ["house", "star", "tree"]}


def claim(player: str) -> dict:
    return {"type": "claim", "player": player, "visible": ["house", "star", "tree"]}


LOG = [
    {"type": "start", "game": "picmix", "players": ["A", "B"]},
    reveal("picmix-obj-01"),
    claim("A"),
    reveal("picmix-obj-02"),
]
SUMMARY = {"objective": {"card": "picmix-obj-02"}, "won": {"A": ["picmix-obj-01"], "B": []}}


@pytest.mark.parametrize(
    ("restart", "script", "expected"),
    [
        # The recording played again: round 1 revealed and claimed again, then the open
        # round revealed again, then what is new.
        (
            "replay",
            [[reveal("picmix-obj-01")], [claim("A")], [reveal("picmix-obj-02")], [claim("B")]],
            [claim("B")],
        ),
        # The camera films on: the open objective seen afresh, then its claim.
        ("camera", [[reveal("picmix-obj-02")], [claim("B")]], [claim("B")]),
        # The table moved on while nothing watched: a new objective is a new round.
        (
            "camera",
            [[reveal("picmix-obj-05")], [claim("A")]],
            [reveal("picmix-obj-05"), claim("A")],
        ),
    ],
)
def test_picmix_after_a_restart_stores_no_round_twice(
    restart: str, script: list[list[dict]], expected: list[dict]
) -> None:
    follower = make_follower("picmix", ["A", "B"])
    follower.watcher = ScriptedWatcher(script)  # type: ignore[attr-defined]
    follower.resume(SUMMARY, LOG)  # type: ignore[attr-defined]
    frame = np.zeros((72, 128, 3), np.uint8)
    got = [e for n in range(len(script)) for e in follower.update(frame, n / 10)]
    assert got == expected
    assert follower.watcher.claimed == "picmix-obj-01"  # type: ignore[attr-defined]
