"""Sequences of game turns: valid CONTRACTS.md events in time order, frames with truth."""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest

from vision.synth import SEQUENCE_KINDS, StandInTextures, render_sequence

# CONTRACTS.md section 1: the keys each event type may carry (besides "t" and "meta")
KEYS: dict[str, set[str]] = {
    "start": {"game", "players"},
    "reveal": {"player", "card", "items"},
    "give": {"from", "to", "card"},
    "random": {"to", "card"},
    "rank": {"player", "order"},
    "draw": {"player", "card"},
    "build": {"pieces"},
    "guess": {"player"},
    "give_up": set(),
    "claim": {"player", "visible", "returned"},
}


def _check_events(events: list[dict[str, Any]]) -> None:
    assert events and events[0]["type"] == "start"
    ts = [e["t"] for e in events]
    assert ts[0] == 0.0
    assert all(b > a for a, b in itertools.pairwise(ts)), ts
    for e in events:
        assert isinstance(json.loads(json.dumps(e)), dict)
        assert set(e) - {"type", "t", "meta"} <= KEYS[e["type"]], e


@pytest.mark.parametrize("kind", SEQUENCE_KINDS)
@pytest.mark.parametrize("tier", ["easy", "normal", "hard"])
def test_events_are_valid_and_in_time_order(kind: str, tier: str, standin: StandInTextures) -> None:
    seq = render_sequence(kind, 3, tier, provider=standin)
    _check_events(seq.events)
    assert seq.events[-1]["t"] <= seq.duration_s
    if kind == "picasso_turn":
        types = [e["type"] for e in seq.events]
        assert types[1] == "draw" and types[-1] == "guess" and "build" in types
        for e in seq.events:
            if e["type"] == "build":
                p = e["pieces"]
                assert p["long_stick"] + p["short_stick"] + 2 * p["shape"] + 3 * p["string"] <= 10


def test_events_replay_in_the_engine(standin: StandInTextures) -> None:
    api = pytest.importorskip("engine.api")
    for kind in SEQUENCE_KINDS:
        api.replay(render_sequence(kind, 1, "normal", provider=standin).events)


def test_picmix_claim_frames_and_truth(standin: StandInTextures) -> None:
    seq = render_sequence("picmix_claim", 2, "easy", fps=2.0, provider=standin)
    frames = list(seq)
    assert len(frames) == seq.n_frames
    assert [f.t for f in frames] == [i / 2.0 for i in range(len(frames))]
    for f in frames:
        assert f.frame.shape == (720, 1280, 3) and f.frame.dtype == np.uint8
    claim = next(e for e in seq.events if e["type"] == "claim")
    last = frames[-1].truth
    (area,) = last.picmix_areas
    assert list(area.visible_items) == claim["visible"]
    assert any(f.truth.hands for f in frames) and not last.hands


def test_sequence_is_deterministic(standin: StandInTextures) -> None:
    a = render_sequence("picasso_turn", 4, "normal", fps=1.0, provider=standin)
    b = render_sequence("picasso_turn", 4, "normal", fps=1.0, provider=standin)
    assert a.events == b.events
    fa = [f.frame for _, f in zip(range(3), a, strict=False)]
    fb = [f.frame for _, f in zip(range(3), b, strict=False)]
    assert all(np.array_equal(x, y) for x, y in zip(fa, fb, strict=True))


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown sequence kind 'poker'"):
        render_sequence("poker", 0)
