"""The live pipeline with a scripted follower: storage, rejection, corrections, threads,
the page and the live view. No vision here: the follower says what it "saw"."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine
from pictable.live import LivePipeline
from pictable.liveview import draw_view
from pictable.scoreboard import Scoreboard
from pictable.store import EventStore

FRAME = np.zeros((72, 128, 3), np.uint8)


class Scripted:
    """A follower that emits ``script[i]`` on its i-th frame."""

    def __init__(self, start: dict[str, Any], script: dict[int, list[dict[str, Any]]]) -> None:
        self.start = start
        self.script = script
        self.frames = 0
        self.resumed: dict[str, Any] | None = None
        self.log: list[dict[str, Any]] = []

    def start_event(self) -> dict[str, Any]:
        return self.start

    def update(self, frame: np.ndarray, t: float) -> list[dict[str, Any]]:
        out = [dict(e, t=t) for e in self.script.get(self.frames, [])]
        self.frames += 1
        return out

    def finish(self, t: float) -> list[dict[str, Any]]:
        return []

    def prompt(self) -> str | None:
        return "Ana: draw a card"

    def overlay(self) -> list[dict[str, Any]]:
        return [
            {"kind": "quad", "corners_px": [[1, 1], [30, 1], [30, 20], [1, 20]], "label": "x"},
            {"kind": "quad", "corners_px": "garbage"},
            {"kind": "text", "xy": [5, 60], "label": "hello"},
        ]

    def resume(self, summary: dict[str, Any], events: list[dict[str, Any]]) -> None:
        self.resumed = summary
        self.log = events


PICASSO = {"type": "start", "game": "picasso", "players": ["Ana", "Ben"]}
PICFLIP = {"type": "start", "game": "picflip", "players": ["Ana", "Ben", "Cy"]}


def make(
    tmp_path: Path, start: dict[str, Any], script: dict[int, list[dict[str, Any]]], **kw: Any
) -> tuple[EventStore, LivePipeline]:
    store = EventStore(tmp_path / "s.db")
    follower = Scripted(start, script)
    sid = store.create_session(follower.start_event()).id
    return store, LivePipeline(store, sid, follower, **kw)


def run(pipe: LivePipeline, n: int) -> None:
    for i in range(n):
        pipe.feed(FRAME, i / 10)


def turn() -> dict[int, list[dict[str, Any]]]:
    return {
        1: [{"type": "draw", "player": "Ana", "card": "picasso-001"}],
        3: [{"type": "build", "pieces": {"long_stick": 2, "shape": 1}}],
        5: [{"type": "guess", "player": "Ben"}],
    }


def test_events_are_stored_as_they_happen_and_the_state_is_the_replay(tmp_path: Path) -> None:
    store, pipe = make(tmp_path, PICASSO, turn())
    pipe.feed(FRAME, 0.0)
    pipe.feed(FRAME, 0.1)
    # Durable at once: another connection sees the draw before the next frame.
    with EventStore(tmp_path / "s.db", create=False) as other:
        assert [json.loads(x)["type"] for x in other.export(pipe.session_id)] == ["start", "draw"]
    run(pipe, 6)
    lines = store.export(pipe.session_id)
    assert [json.loads(x)["type"] for x in lines] == ["start", "draw", "build", "guess"]
    replayed = engine.replay([json.loads(x) for x in lines])
    assert pipe.state.summary() == replayed.summary()
    assert (
        pipe.state.summary()["scores"]["Ana"] == 6
    )  # 10 - cost (2 sticks at 1, a shape at 2); Ben wins the card (5)
    assert pipe.stats.frames == 8 and pipe.stats.events == 3
    assert all(r.delay_ms is not None and r.delay_ms >= 0 for r in pipe.records)


def test_a_rejected_event_is_shown_with_its_reason_and_the_game_goes_on(tmp_path: Path) -> None:
    script = turn()
    script[2] = [{"type": "guess", "player": "Ana"}]  # the builder cannot guess
    store, pipe = make(tmp_path, PICASSO, script)
    run(pipe, 6)
    rejected = [r for r in pipe.records if not r.accepted]
    assert len(rejected) == 1 and "guess" in (rejected[0].reason or "")
    assert "rejected guess" in (pipe.banner_text() or "")
    assert pipe.stats.rejected == 1
    assert pipe.state.summary()["scores"] == {"Ana": 6, "Ben": 5}
    statuses = [e.status for e in store.events(pipe.session_id)]
    assert statuses.count("rejected") == 1


def test_undo_withdraws_the_last_event(tmp_path: Path) -> None:
    store, pipe = make(tmp_path, PICASSO, turn())
    run(pipe, 4)
    before = pipe.state.summary()
    assert pipe.command("u").startswith("undone:")
    assert pipe.state.summary()["cost"] == 0 and before["cost"] == 4
    assert [json.loads(x)["type"] for x in store.export(pipe.session_id)] == ["start", "draw"]


def test_rejecting_a_guess_withdraws_it_and_confirming_keeps_it(tmp_path: Path) -> None:
    _, pipe = make(tmp_path, PICASSO, turn())
    run(pipe, 6)
    assert pipe.ask is not None and pipe.ask["kind"] == "confirm"
    assert "Ben" in pipe.ask["text"]
    assert pipe.command("n").startswith("guess withdrawn")
    assert pipe.state.summary()["scores"] == {"Ana": 0, "Ben": 0}
    assert pipe.ask is None
    assert pipe.command("reject") == "nothing to reject"
    # The guess entered again by hand, then confirmed.
    assert pipe.command('{"type": "guess", "player": "Ben"}') == "entered guess"
    assert pipe.records[-1].by == "person"
    assert pipe.command("y").startswith("confirmed")
    assert pipe.state.summary()["scores"] == {"Ana": 6, "Ben": 5}


def test_a_contested_guess_cannot_be_withdrawn_under_later_events(tmp_path: Path) -> None:
    script = turn()
    script[6] = [{"type": "draw", "player": "Ben", "card": "picasso-002"}]
    _, pipe = make(tmp_path, PICASSO, script)
    pipe.ask = None
    run(pipe, 6)
    ask = pipe.ask
    pipe.feed(FRAME, 0.6)
    pipe.ask = ask  # the players answer late, after the next draw
    assert "later events stand" in pipe.command("n")
    assert pipe.state.summary()["scores"] == {"Ana": 6, "Ben": 5}


def test_a_pic_flip_play_voted_down_gets_the_reject_event(tmp_path: Path) -> None:
    script = {
        0: [{"type": "lead", "player": "Ana", "card": "picflip-001"}],
        1: [{"type": "describe", "player": "Ana", "phrase": "red"}],
        2: [{"type": "play", "player": "Ben", "card": "picflip-002"}],
    }
    store, pipe = make(tmp_path, PICFLIP, script)
    run(pipe, 3)
    assert pipe.ask is not None and pipe.ask["kind"] == "vote"
    assert pipe.command("vote no") == "play rejected"
    assert json.loads(store.export(pipe.session_id)[-1])["type"] == "reject"


def test_bad_corrections_are_answered_not_raised(tmp_path: Path) -> None:
    store, pipe = make(tmp_path, PICASSO, turn())
    n = len(store.events(pipe.session_id))
    assert pipe.command("") == "nothing to do"
    assert pipe.command("launch the rockets").startswith("unknown command")
    assert pipe.command("{not json").startswith("not an event")
    assert pipe.command("[1, 2]").startswith("unknown command")
    assert pipe.command('{"type": "guess"' + " " * 10 + "}") == "entered event rejected"
    assert pipe.command("claim 3").startswith("claims by key are for Picmix")
    assert pipe.command("y") == "nothing to confirm"
    # Only the well-formed event reached the store (rejected, with its reason).
    assert len(store.events(pipe.session_id)) == n + 1
    with EventStore(tmp_path / "empty.db") as empty:
        sid = empty.create_session(PICASSO).id
        lone = LivePipeline(empty, sid, Scripted(PICASSO, {}))
        assert lone.command("u").startswith("cannot undo")


def test_corrections_posted_from_other_threads_run_in_the_pipeline_thread(
    tmp_path: Path,
) -> None:
    _, pipe = make(tmp_path, PICASSO, turn())
    run(pipe, 4)
    answers: list[str] = []

    def page_click() -> None:
        answers.append(pipe.page_input({"action": "undo"}) or "")

    t = threading.Thread(target=page_click)
    t.start()
    # The SQLite connection belongs to this thread: the command waits for the next frame.
    while t.is_alive():
        pipe.feed(FRAME, 1.0)
        t.join(timeout=0.05)
    assert answers and answers[0].startswith("undone:")
    assert pipe.state.summary()["cost"] == 0


def test_the_page_shows_each_event_and_takes_corrections(tmp_path: Path) -> None:
    with Scoreboard() as board:
        _, pipe = make(tmp_path, PICASSO, turn(), board=board)
        board.on_input(pipe.page_input)
        run(pipe, 4)
        with urllib.request.urlopen(board.url + "api/state", timeout=5) as res:
            state = json.load(res)
        assert state["summary"]["cost"] == 4
        assert [e["text"] for e in state["events"]][-1].startswith("build")
        assert state["extra"]["call"] == "Ana: draw a card"


def test_a_resumed_session_brings_the_follower_in_line(tmp_path: Path) -> None:
    store, pipe = make(tmp_path, PICASSO, turn())
    run(pipe, 2)
    follower = Scripted(PICASSO, {})
    again = LivePipeline(store, pipe.session_id, follower)
    assert follower.resumed is not None and follower.resumed["card"] == "picasso-001"
    assert [e["type"] for e in follower.log] == ["start", "draw"]  # the log, in order
    assert again.state.summary() == pipe.state.summary()


@pytest.mark.parametrize("shape", [(720, 1280, 3), (480, 640, 3), (30, 40, 3)])
def test_the_live_view_draws_on_any_frame_size(tmp_path: Path, shape: tuple[int, ...]) -> None:
    _, pipe = make(tmp_path, PICASSO, turn())
    run(pipe, 6)
    pipe.command("launch")
    frame = np.full(shape, 90, np.uint8)
    view = draw_view(frame, pipe, fps=29.7)
    assert view.shape == frame.shape and view.dtype == np.uint8
    assert not np.array_equal(view, frame)
    assert np.array_equal(frame, np.full(shape, 90, np.uint8))  # the frame is not drawn on


class Countdown(Scripted):
    """A follower that announces a countdown, one step per frame."""

    steps = ("3...", "2...", "1...", "GO!", None)

    def banner(self) -> str | None:
        return self.steps[min(self.frames, len(self.steps)) - 1] if self.frames else None


def test_a_follower_countdown_reaches_the_page_without_an_event(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "s.db")
    follower = Countdown(PICFLIP, {})
    sid = store.create_session(PICFLIP).id
    seen = []
    with Scoreboard() as board:
        pipe = LivePipeline(store, sid, follower, board=board)
        for i in range(5):
            pipe.feed(FRAME, i / 10)
            with urllib.request.urlopen(board.url + "api/state", timeout=5) as res:
                seen.append(json.load(res)["extra"].get("banner"))
    assert seen == ["3...", "2...", "1...", "GO!", None]
    follower.frames = 4
    view = draw_view(np.zeros((720, 1280, 3), np.uint8), pipe)
    assert view[300:420, 500:780].any()  # "GO!" in large, mid-frame


def test_window_keys_map_to_corrections(tmp_path: Path) -> None:
    from pictable.commands.play import _key

    _, pipe = make(tmp_path, PICASSO, turn())
    run(pipe, 4)
    stop = threading.Event()
    assert _key(ord("u"), pipe, stop) is True
    assert pipe.state.summary()["cost"] == 0
    assert _key(ord("e"), pipe, stop) is True
    assert "JSON line" in (pipe.banner_text() or "")
    assert _key(ord("3"), pipe, stop) is True  # a claim key outside Picmix is answered
    assert "Picmix" in (pipe.banner_text() or "")
    assert _key(ord("q"), pipe, stop) is False and stop.is_set()


def test_a_build_the_reader_doubts_is_asked_and_can_be_withdrawn(tmp_path: Path) -> None:
    """The Picasso reader doubts its counts on a board seen coarsely (``meta.ask`` on the
    build): the page says what was counted and why to check it; n withdraws the build."""
    script = turn()
    script[3] = [
        {
            "type": "build",
            "pieces": {"long_stick": 2, "shape": 1},
            "meta": {"ask": "the camera sees the board coarsely (0.62 px/mm)"},
        }
    ]
    del script[5]
    _, pipe = make(tmp_path, PICASSO, script)
    run(pipe, 3)
    assert pipe.ask is None
    run(pipe, 1)
    assert pipe.ask is not None and pipe.ask["kind"] == "confirm"
    assert pipe.ask["text"].startswith("The build was counted as 2 long stick, 1 shape, but ")
    assert "coarsely (0.62 px/mm)" in pipe.ask["text"]
    assert pipe.command("n").startswith("build withdrawn")
    assert pipe.state.summary()["cost"] == 0


PICKPIC = {"type": "start", "game": "pickpic", "players": ["Ana", "Ben", "Cy"]}


def test_a_give_the_follower_is_unsure_of_is_asked_and_can_be_withdrawn(
    tmp_path: Path,
) -> None:
    script = {
        0: [{"type": "reveal", "player": p, "card": f"pickpic-00{i}"}
            for i, p in enumerate(["Ana", "Ben", "Cy"], 1)],
        1: [{"type": "give", "from": "Ana", "to": "Ben", "card": "pickpic-010"}],
        2: [{"type": "give", "from": "Cy", "to": "Ben", "card": "pickpic-011",
             "meta": {"ask": "giver"}}],
    }  # fmt: skip
    store, pipe = make(tmp_path, PICKPIC, script)
    run(pipe, 2)
    assert pipe.ask is None  # a give the calls and the hand agree on is not asked about
    run(pipe, 1)
    assert pipe.ask is not None and pipe.ask["text"] == "Did Cy give Ben this card?"
    assert pipe.command("n").startswith("give withdrawn")
    assert [json.loads(x)["type"] for x in store.export(pipe.session_id)][-1] == "give"
    assert len(store.export(pipe.session_id)) == 5  # start, 3 reveals, Ana's give
