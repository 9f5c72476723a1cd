"""Each true event's settle frame (issue 27): the first frame where every card or piece of
the event lies still with no hand or arm over it, recorded as the frames are rendered."""

from __future__ import annotations

import numpy as np
import pytest

from vision.synth import SequenceRender, StandInTextures, render_sequence
from vision.synth.camera import Camera
from vision.synth.sequences import SequenceFrame, Watch, scaled_camera
from vision.synth.truth import Truth


def _clear(w: Watch, truth: Truth) -> bool:
    """Whether every card ``w`` watches lies in this frame, not held, clear of hands."""
    cards = {c.card_id: c for c in truth.cards if not c.held}
    return all(c in cards and cards[c].hand_fraction == 0.0 for c in w.cards)


def _places(w: Watch, truth: Truth) -> list[np.ndarray]:
    by_id = {c.card_id: c for c in truth.cards}
    return [np.asarray(by_id[c].corners_px) for c in w.cards if c in by_id]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(np.allclose(x, y, atol=0.05) for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def claim(standin: StandInTextures) -> tuple[list[SequenceFrame], SequenceRender]:
    seq = render_sequence("picmix_claim", 2, "easy", fps=6.0, provider=standin)
    return list(seq), seq


def test_every_seen_event_settles_once_the_hand_has_left_and_the_cards_are_still(
    claim: tuple[list[SequenceFrame], SequenceRender],
) -> None:
    frames, seq = claim
    events, watches, settle = seq.events, seq.watches, seq.settle_frames
    assert watches[0] is None and settle[0] is None  # the start is not seen
    for e, w, s in zip(events[1:], watches[1:], settle[1:], strict=True):
        assert w is not None and s is not None, e
        # from the change on, the settle frame is the first with the cards clear and where
        # they lie in the next frame too
        assert frames[s].t >= w.since_s - 1e-6
        assert _clear(w, frames[s].truth)
        if s + 1 < len(frames):
            assert _same(_places(w, frames[s].truth), _places(w, frames[s + 1].truth))
        for f in frames[:s]:
            if f.t < w.since_s - 1e-6:
                continue
            nxt = frames[f.index + 1].truth
            settled = _clear(w, f.truth) and _clear(w, nxt)
            assert not (settled and _same(_places(w, f.truth), _places(w, nxt))), f.index
    claim_i = next(i for i, e in enumerate(events) if e["type"] == "claim")
    tap = events[claim_i]["t"]
    # the tap's hand lies over the objective: the claim settles once it has gone
    assert frames[settle[claim_i]].t > tap
    assert any(not _clear(watches[claim_i], f.truth) for f in frames if f.t >= tap)
    reveal_i = next(i for i, e in enumerate(events) if e["type"] == "reveal")
    # the objective is stamped when the laying hand has left the view, after it settles
    assert frames[settle[reveal_i]].t <= events[reveal_i]["t"] + 1e-6


def test_a_card_held_up_settles_in_its_hand_and_spoken_or_voted_events_never_do(
    standin: StandInTextures,
) -> None:
    seq = render_sequence("picasso_turn", 4, "easy", fps=4.0, provider=standin)
    frames = list(seq)
    draw = next(i for i, e in enumerate(seq.events) if e["type"] == "draw")
    s = seq.settle_frames[draw]
    assert s is not None
    held = [c for c in frames[s].truth.cards if c.held]
    assert held and held[0].card_id == seq.events[draw]["card"]
    builds = [i for i, e in enumerate(seq.events) if e["type"] == "build"]
    for i in builds:  # a piece is clear of the hand before the hand has left the view
        f = frames[seq.settle_frames[i]].truth
        assert f.board is not None
        assert all(p.hand_fraction == 0.0 for p in f.board.pieces if p.on_canvas)
        assert frames[seq.settle_frames[i]].t <= seq.events[i]["t"] + 1e-6
    game = render_sequence("picflip_game", 3, "normal", provider=standin)
    for e, w in zip(game.events, game.watches, strict=True):
        assert (w is None) == (e["type"] in ("start", "describe", "reject")), e


def test_the_same_scene_renders_at_1080p_through_the_same_lens(standin: StandInTextures) -> None:
    small = render_sequence("picmix_claim", 2, "easy", fps=1.0, provider=standin)
    large = render_sequence(
        "picmix_claim", 2, "easy", fps=1.0, provider=standin, size_wh=(1920, 1080)
    )
    assert large.events == small.events and large.size_wh == (1920, 1080)
    a, b = next(iter(small)), next(iter(large))
    assert b.frame.shape == (1080, 1920, 3)
    for ca, cb in zip(a.truth.cards, b.truth.cards, strict=True):
        assert ca.card_id == cb.card_id
        # pixel centres at integers: a point at x is at (x + 0.5) * 1.5 - 0.5
        assert np.allclose((np.asarray(ca.corners_px) + 0.5) * 1.5 - 0.5, cb.corners_px, atol=0.5)
    camera = Camera.from_pose(height_mm=800.0)
    assert scaled_camera(camera, (1280, 720)) is camera
    with pytest.raises(ValueError, match="keep the camera's shape"):
        scaled_camera(camera, (1920, 1200))
