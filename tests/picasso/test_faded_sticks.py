"""A long stick fading into a glare (issue 25, hard tier: a glare that washes the pieces
out): its near part reads as a stick too short for any kit stick, its far part is pulled
towards the canvas's colour and no longer looks like the stick, so it read as a short
stick. The picture there still differs from the canvas beside it the stick's way, and the
stick is lengthened over that when the whole measures a kit stick and ends squarely
(``vision.picasso.stick_like.lengthened`` with ``faded``, asked by ``stick_extend.extend_short`` of
sticks measuring under ``FADED_SHARE`` of their kit length).

Board: the second drawer's hard tier, development looks, seed 5, board 56 (a long stick
read as a short one before)."""

from __future__ import annotations

import numpy as np
import pytest

from pictable.bench.drawers.picasso_board import board_look, draw_board
from vision.picasso import BoardReading, read_board, stick_extend
from vision.picasso.stick_like import lengthened
from vision.picasso.sticks import StickFit

S = 1.5
WIDTH = 8.0
SHARE = (0.8, 1.08)
CANVAS = np.array([200.0, 200.0, 200.0])
STICK = np.array([80.0, 130.0, 175.0])  # a mid wood, normalised (the canvas is 200 grey)
NEAR = StickFit("short_stick", (50.0, 100.0), (88.0, 100.0), 38.0)


def _glared(far_colour: np.ndarray = STICK, end_mm: float = 150.0) -> np.ndarray:
    """A stick from x = 50 to ``end_mm`` (y = 100) on a canvas whose right part lies under a
    glare: from x = 80 on, everything is pulled towards white, more and more (the canvas
    beside the stick too). The stick's part past x = 88 is drawn in ``far_colour``."""
    h, w = round(200 * S), round(300 * S)
    img = np.tile(CANVAS, (h, w, 1))
    ys, xs = (np.mgrid[0:h, 0:w] + 0.5) / S
    on = (np.abs(ys - 100.0) <= WIDTH / 2) & (xs >= 50.0) & (xs <= end_mm)
    img[on & (xs < 88.0)] = STICK
    img[on & (xs >= 88.0)] = far_colour
    veil = np.clip((xs - 80.0) / 90.0, 0.0, 0.8)[..., None]
    img = img * (1 - veil) + 255.0 * veil
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def _ask(img: np.ndarray, faded: bool = True):
    return lengthened(NEAR, [NEAR], 100.0, SHARE, img, None, S, WIDTH, faded)


def test_a_stick_fading_into_a_glare_is_lengthened() -> None:
    img = _glared()
    ends = _ask(img)
    assert ends is not None
    (x0, y0), (x1, y1) = ends
    assert abs(x0 - 50.0) <= 2.0 and abs(x1 - 150.0) <= 3.0
    assert abs(y0 - 100.0) + abs(y1 - 100.0) < 1.0
    # the stick's own colour alone does not reach so far
    assert _ask(img, faded=False) is None


def test_not_when_the_whole_is_no_kit_length() -> None:
    assert _ask(_glared(end_mm=120.0)) is None  # 70 mm: neither 50 nor 100


def test_not_when_what_goes_on_is_another_colour() -> None:
    """A blue bar going on from a wood stick's end is not the stick, faded or not."""
    assert _ask(_glared(far_colour=np.array([170.0, 110.0, 60.0]))) is None


def test_not_along_a_patch_wider_than_a_stick() -> None:
    img = _glared()
    h, w = img.shape[:2]
    wide = _glared(end_mm=88.0).astype(np.float64)
    ys, xs = (np.mgrid[0:h, 0:w] + 0.5) / S
    veil = np.clip((xs - 80.0) / 90.0, 0.0, 0.8)
    patch = (np.abs(ys - 100.0) <= 15.0) & (xs >= 88.0) & (xs <= 150.0)
    wide[patch] = STICK * (1 - veil[patch, None]) + 255.0 * veil[patch, None]
    assert _ask(np.clip(wide + 0.5, 0, 255).astype(np.uint8)) is None


def _hard_board(seed: int, index: int):
    b = draw_board(
        seed * 100_003 + index, look=board_look(seed * 100_003 + index, "dev"), tier="hard"
    )
    assert not b.hand
    return b.frame, dict(b.counts)


def test_a_long_stick_fading_into_a_glare_on_a_board(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, want = _hard_board(5, 56)
    reading = read_board(frame)
    assert isinstance(reading, BoardReading) and not reading.occluded
    assert reading.counts == want
    monkeypatch.setattr(stick_extend, "FADED", False)
    before = read_board(frame)
    assert isinstance(before, BoardReading)
    assert before.counts["long_stick"] == want["long_stick"] - 1
    assert before.counts["short_stick"] == want["short_stick"] + 1
