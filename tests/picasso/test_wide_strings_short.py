"""A faint stick the pixel model calls the string is a stick from half a short stick's length
(``segment.WIDE_STRING_MIN_MM``, 25 mm; 35 before): in a heap seen coarsely and blurred,
each faint stick shows 25-35 mm of its own beyond the others, and the model may call the
whole heap the string. A stub shorter than that stays the string's."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.picasso import segment as seg
from vision.picasso.profile import DEFAULT_PROFILE

from .boards import read_now_and_before

S = 1.5


def _faint_bar(length_mm: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A washed-out stick ``length_mm`` long, blurred, whose 3 mm middle the model called
    the string: (normalised picture, labels, the bar's mask)."""
    h, w = round(200 * S), round(300 * S)
    norm = np.full((h, w, 3), seg.WHITE_LEVEL, np.uint8)
    labels = np.zeros((h, w), np.uint8)
    bar = np.zeros((h, w), np.uint8)
    x0, y0 = 100.0, 100.0
    a = np.radians(20.0)
    x1, y1 = x0 + length_mm * np.cos(a), y0 + length_mm * np.sin(a)
    p0, p1 = (round(x0 * S), round(y0 * S)), (round(x1 * S), round(y1 * S))
    cv2.line(bar, p0, p1, 1, round(8 * S))
    norm[bar > 0] = (150, 150, 190)
    norm = cv2.GaussianBlur(norm, (0, 0), 1.5 * S)
    middle = np.zeros((h, w), np.uint8)
    cv2.line(middle, p0, p1, 1, round(3 * S))
    labels[middle > 0] = seg.DARK
    return norm, labels, bar


def test_a_faint_stick_showing_30_mm_is_wood() -> None:
    norm, labels, bar = _faint_bar(30.0)
    out = seg.wide_strings(labels, norm, S, DEFAULT_PROFILE)
    assert (out[labels == seg.DARK] == seg.WOOD).all()
    assert (out == seg.WOOD).sum() >= 0.8 * bar.sum()


def test_a_stub_of_15_mm_stays_the_string() -> None:
    norm, labels, _ = _faint_bar(15.0)
    out = seg.wide_strings(labels, norm, S, DEFAULT_PROFILE)
    assert (out == labels).all()


# Our renderer's hard tier, kit look, run seed 0: blurred heaps of faint sticks the model
# called the string.
CASES = [("ours", "hard", 0, 6, None), ("ours", "hard", 0, 37, None)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"hard-{c[2]}-{c[3]}")
def test_a_blurred_heap_the_model_called_string_is_counted(
    case: tuple[str, str, int, int, None], monkeypatch: pytest.MonkeyPatch
) -> None:
    reading, want, before = read_now_and_before(case, monkeypatch, seg, "WIDE_STRING_MIN_MM", 35.0)
    assert reading.counts == want
    assert before.counts != want
