"""Issue 27: a follower emits each event soon after the change has settled on the table: at
most a frame or two past the renderer's settle frame plus the follower's stability time, on
short rendered sessions (the frames count, never the time a machine takes)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from vision.picmix.model import ItemDeck, ItemModel
from vision.synth import render_sequence
from vision.tracker import picmix
from vision.tracker.picasso import PicassoTurnTracker, TurnSettings
from vision.tracker.pickpic import FollowSettings, PickPicFollower

SLACK_FRAMES = 2
"""Frames an event may come after its settle frame and stability time: the frame that shows
the wait is over, and one for a hand just leaving the card's edge (and the part of a frame
the wait ends into, ``_slack``)."""
ROUNDING = 0.01
"""Frames: an event's ``t`` is rounded to the millisecond."""


def _slack(wait_s: float, fps: float) -> float:
    """Frames allowed past settle + ``wait_s``: a wait ends on the next frame."""
    return SLACK_FRAMES + (math.ceil(wait_s * fps - 1e-9) - wait_s * fps) + ROUNDING


def _key(e: dict[str, Any]) -> str:
    return repr(sorted((k, repr(v)) for k, v in e.items() if k not in ("t", "meta")))


def _late_frames(
    truth: list[dict[str, Any]],
    settle_t: list[float | None],
    emitted: list[dict[str, Any]],
    waits: dict[str, float],
    fps: float,
) -> dict[str, list[float]]:
    """Per kind, each true event's emitted twin's frames past settle + wait (the twin: the
    emitted event equal to it but for ``t`` and ``meta``; every true event must have one)."""
    out: dict[str, list[float]] = {}
    pool = list(emitted)
    for e, s in zip(truth, settle_t, strict=True):
        if s is None or e["type"] not in waits:
            continue
        twin = next((m for m in pool if _key(m) == _key(e)), None)
        assert twin is not None, f"not emitted: {e}"
        pool.remove(twin)
        out.setdefault(e["type"], []).append((twin["t"] - s - waits[e["type"]]) * fps)
    return out


@pytest.mark.slow
def test_a_picmix_claim_comes_within_frames_of_the_cards_settling(
    model: ItemModel, deck: ItemDeck
) -> None:
    fps = 6.0
    seq = render_sequence("picmix_claim", 1, "normal", fps=fps)
    watcher = picmix.ClaimWatcher(seq.events[0]["players"], deck, model)
    events: list[dict[str, Any]] = []
    for f in seq:
        events += watcher.update(f.frame, f.t)
    waits = {"reveal": picmix.REVEAL_STABLE_S, "claim": picmix.RELEASE_S}
    late = _late_frames(seq.events, seq.settle_times, events, waits, fps)
    assert set(late) == {"reveal", "claim"}
    assert all(n <= _slack(waits[k], fps) for k, ns in late.items() for n in ns), late


@pytest.mark.slow
def test_picasso_builds_each_piece_and_guesses_within_frames_of_it_settling() -> None:
    fps = 6.0
    seq = render_sequence("picasso_turn", 2, "easy", fps=fps)
    tracker = PicassoTurnTracker(list(seq.events[0]["players"]))
    events: list[dict[str, Any]] = []
    for f in seq:
        events += tracker.update(f.frame, f.t)
    s = TurnSettings()
    waits = {"draw": s.card_stable_s, "build": s.build_stable_s, "guess": s.still_s}
    # every piece's build is emitted, once (a hand in view does not hold the board back)
    assert [e["type"] for e in events] == [e["type"] for e in seq.events[1:]]
    late = _late_frames(seq.events, seq.settle_times, events, waits, fps)
    builds = sorted(late["build"])
    # a hand over the canvas but off the pieces holds a build back (the reader cannot see
    # under it): half of them at least come at once
    assert builds[len(builds) // 2] <= 1.0 + ROUNDING, builds
    for kind in ("draw", "guess"):
        assert late[kind][0] <= _slack(waits[kind], fps), late


@pytest.mark.slow
def test_pick_pic_gives_come_within_frames_of_the_card_settling() -> None:
    fps = 8.0
    seq = render_sequence("pickpic_round", 1, "normal", fps=fps)  # the reveals, four gives
    follower = PickPicFollower(list(seq.events[0]["players"]))
    events: list[dict[str, Any]] = []
    for f in seq:
        events += follower.update(f.frame, f.t)
    wait = FollowSettings().settle_s
    late = _late_frames(seq.events, seq.settle_times, events, {"reveal": wait, "give": wait}, fps)
    assert len(late["give"]) == 4
    assert all(n <= _slack(wait, fps) for ns in late.values() for n in ns), late
