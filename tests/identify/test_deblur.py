"""Motion blur measured on a frame's dark squares and taken out for a second reading of the
codes (``vision.identify.deblur``; ``code_cards._by_codes``; issue 26: codes at low
resolution, read deblur-aware)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from pictable.bench.readers.identify import placement_error
from vision.identify import back_qr, deblur
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed


def _squares_frame(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A grey 480 x 640 frame of 30 dark squares 14-20 px wide turned every way on a pale
    table, sharp; and their corners (30, 4, 2)."""
    rng = np.random.default_rng(seed)
    frame = np.full((480, 640), 200, np.uint8)
    squares = []
    for k in range(30):
        cx, cy = 50 + (k % 6) * 105, 50 + (k // 6) * 92
        side, turn = rng.uniform(14, 20), rng.uniform(0, math.pi / 2)
        c, s = math.cos(turn), math.sin(turn)
        unit = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2
        q = unit @ np.array([[c, s], [-s, c]]) + (cx, cy)
        cv2.fillConvexPoly(frame, np.round(q * 16).astype(np.int32), 30, cv2.LINE_AA, 4)
        squares.append(q)
    return frame, np.asarray(squares, np.float32)


def _camera(frame: np.ndarray, length: float, angle: float, seed: int = 1) -> np.ndarray:
    """``frame`` defocused a little, smeared by ``length`` px at ``angle`` degrees, noised."""
    out = cv2.GaussianBlur(frame.astype(np.float32), (0, 0), 0.7)
    if length >= 1:
        out = cv2.filter2D(out, -1, deblur.line_kernel(length, angle))
    out += np.random.default_rng(seed).normal(0, 2.0, out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("length", "angle"), [(6.0, 30.0), (5.0, 120.0), (4.0, 80.0)])
def test_a_smear_is_measured_on_the_squares_sides(length: float, angle: float) -> None:
    sharp, squares = _squares_frame()
    found = deblur.motion_blur(_camera(sharp, length, angle), squares)
    assert found is not None
    measured, towards = found
    assert abs(measured - length) <= 0.4 * length  # 0.68-1.37 of it on rendered frames
    assert min(abs(towards - angle), 180 - abs(towards - angle)) <= 15


def test_a_frame_with_no_smear_is_left_as_it_is() -> None:
    sharp, squares = _squares_frame()
    assert deblur.motion_blur(_camera(sharp, 0.0, 0.0), squares) is None


def test_too_few_sides_tell_nothing() -> None:
    sharp, squares = _squares_frame()
    smeared = _camera(sharp, 6.0, 30.0)
    assert deblur.motion_blur(smeared, squares[:2]) is None
    assert deblur.motion_blur(smeared, np.zeros((0, 4, 2), np.float32)) is None


def _steepest(frame: np.ndarray) -> float:
    """The 99th percentile of a grey frame's gradient magnitude: how steep its edges are."""
    gx = cv2.Sobel(frame, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(frame, cv2.CV_32F, 0, 1)
    return float(np.percentile(np.hypot(gx, gy), 99))


@pytest.mark.parametrize(("length", "angle"), [(6.0, 30.0), (8.0, 45.0)])
def test_the_smear_taken_out_steepens_the_edges_again(length: float, angle: float) -> None:
    sharp, _ = _squares_frame()
    colour = cv2.cvtColor(_camera(sharp, 0.0, 0.0), cv2.COLOR_GRAY2BGR)
    smeared = cv2.filter2D(colour, -1, deblur.line_kernel(length, angle))
    out = deblur.deconvolved(smeared, length, angle)
    assert out.shape == smeared.shape and out.dtype == np.uint8
    before, after = _steepest(smeared[..., 0]), _steepest(out[..., 0])
    assert after > 1.25 * before
    assert after < 1.1 * _steepest(colour[..., 0])
    # The frame's mean level is kept (the filter's gain at no frequency is 1).
    assert abs(float(out.mean()) - float(smeared.mean())) < 1.0
    grey = deblur.deconvolved(smeared[..., 0], length, angle)  # a grey frame too
    assert grey.shape == smeared.shape[:2]


def test_a_frame_smaller_than_the_smear_is_returned_as_it_is() -> None:
    tiny = np.full((4, 4, 3), 128, np.uint8)
    assert np.array_equal(deblur.deconvolved(tiny, 9.0, 0.0), tiny)


def test_the_line_kernel_sums_to_one_along_its_angle() -> None:
    k = deblur.line_kernel(7.0, 0.0)
    assert k.shape == (7, 7) and k.sum() == pytest.approx(1.0)
    assert k[3].sum() == pytest.approx(1.0, abs=0.05)  # a horizontal line
    assert deblur.line_kernel(0.5, 45.0).sum() == pytest.approx(1.0)


def test_a_smeared_hard_scene_names_a_card_only_once_the_smear_is_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The project's hard tier, development looks, seed 3 scene 6 (smeared 5.3 px at 159
    degrees, measured 5.5 px at 151): pickpic-010's back, in full view, is read only in the
    frame with the smear taken out, and placed on its card."""
    frame, truth = make_scene("codes", "hard", scene_seed(3, 6), "dev")
    lying = {c.card_id: c for c in truth.cards}

    def named() -> dict[str, np.ndarray]:
        read = identify_frame(frame, None, codes="fast", game="pickpic")
        for r in read.cards:  # no card that is not there, none off its card
            assert r.card in lying
            assert placement_error(r.corners_px, lying[r.card].corners_px) <= 0.1
        return {r.card: r.corners_px for r in read.cards}

    assert "pickpic-010" in named()
    monkeypatch.setattr(deblur, "MIN_LENGTH", math.inf)
    # Its big code, read by likeness where its markers put it, now names it in the smeared
    # frame too (vision.identify.back_qr); without that, only the sharper frame does.
    assert "pickpic-010" in named()
    monkeypatch.setattr(back_qr, "confirms", lambda *args: False)
    assert "pickpic-010" not in named()


def test_a_card_named_surely_once_the_smear_is_out_takes_that_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Development looks, hard tier, seed 3, scene 22: pickpic-019's back, 70 px wide in a
    smeared frame. In the frame as it is, its two markers, read by likeness where an outline
    puts them and backed by its code, name it on squares a few degrees off (the outline was),
    placed 19% of its height off; with the smear taken out, both markers are read bit for
    bit and place it on its card. The sharper reading stands."""
    from vision.identify import code_cards

    frame, truth = make_scene("codes", "hard", scene_seed(3, 22), "dev")
    card = next(t for t in truth.cards if t.card_id == "pickpic-019")
    read = identify_frame(frame, None, codes="fast", game="pickpic").card("pickpic-019")
    assert read is not None and read.side == "back" and read.confidence >= code_cards.SURE
    assert placement_error(read.corners_px, card.corners_px) < 0.05
    monkeypatch.setattr(code_cards, "SURE", 2.0)  # nothing is that sure: the first one stays
    first = identify_frame(frame, None, codes="fast", game="pickpic").card("pickpic-019")
    assert first is not None and placement_error(first.corners_px, card.corners_px) > 0.1
