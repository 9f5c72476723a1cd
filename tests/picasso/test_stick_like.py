"""A long stick whose far part the classes call the string (issue 25: a long stick read as
a short one): the picture there still shows the stick's own colour, and the stick is
lengthened along its own line over it when the whole measures a kit stick and ends
squarely (``vision.picasso.stick_like.lengthened``, asked by ``stick_extend.extend_short``
where the wood map shows no longer stretch).

Boards: our renderer's wide development looks, run seed 6, board 60 (an olive wood whose
dark grain the pixel model calls the string over the far half of a long stick) and run
seed 5, board 12 (a pale green string lying along the far part of a long stick), each read
with a long stick as a short one before."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.picasso.stick_like import MIN_CONTRAST, lengthened
from vision.picasso.sticks import StickFit

from .boards import read_without_hand

S = 1.5
WIDTH = 8.0
STICK_BGR = (90, 140, 170)  # a mid wood, normalised (the canvas is 200 grey)
SHARE = (0.8, 1.08)


def _canvas() -> np.ndarray:
    return np.full((round(200 * S), round(300 * S), 3), 200, np.uint8)


def _bar(img: np.ndarray, p0: tuple[float, float], p1: tuple[float, float], bgr, w=WIDTH):
    """A bar ``w`` mm wide from p0 to p1 (mm)."""
    a, b = np.asarray(p0, float), np.asarray(p1, float)
    d = (b - a) / np.linalg.norm(b - a)
    n = np.array([-d[1], d[0]]) * w / 2
    poly = np.array([a + n, b + n, b - n, a - n]) * S
    cv2.fillPoly(img, [np.round(poly).astype(np.int32)], bgr)


def _ask(img: np.ndarray, fits: list[StickFit], shapes: np.ndarray | None = None):
    return lengthened(fits[0], fits, 100.0, SHARE, img, shapes, S, WIDTH)


SHORT_PART = StickFit("short_stick", (50.0, 100.0), (100.0, 100.0), 50.0)


def test_a_stick_going_on_in_its_colour_is_lengthened() -> None:
    img = _canvas()
    _bar(img, (50.0, 100.0), (150.0, 100.0), STICK_BGR)
    ends = _ask(img, [SHORT_PART])
    assert ends is not None
    (x0, y0), (x1, y1) = ends
    assert abs(x0 - 50.0) <= 1.5 and abs(x1 - 150.0) <= 2.0 and abs(y0 - 100) + abs(y1 - 100) < 1


def test_not_when_the_whole_is_no_kit_length() -> None:
    img = _canvas()
    _bar(img, (50.0, 100.0), (120.0, 100.0), STICK_BGR)  # 70 mm: neither 50 nor 100
    assert _ask(img, [SHORT_PART]) is None


def test_not_when_what_goes_on_turns_away() -> None:
    """A cord of the stick's colour lying along its line, then leaving it sideways: the
    run does not end squarely."""
    img = _canvas()
    _bar(img, (50.0, 100.0), (100.0, 100.0), STICK_BGR)
    _bar(img, (100.0, 100.0), (148.0, 100.0), STICK_BGR, w=4.0)
    _bar(img, (148.0, 100.0), (150.0, 170.0), STICK_BGR, w=4.0)
    assert _ask(img, [SHORT_PART]) is None


def test_not_along_a_patch_wider_than_a_stick() -> None:
    img = _canvas()
    _bar(img, (50.0, 100.0), (100.0, 100.0), STICK_BGR)
    _bar(img, (100.0, 100.0), (150.0, 100.0), STICK_BGR, w=30.0)
    assert _ask(img, [SHORT_PART]) is None


def test_not_for_a_stick_the_canvas_colour() -> None:
    pale = (185, 195, 200)
    assert np.linalg.norm(np.subtract(pale, 200)) < MIN_CONTRAST
    img = _canvas()
    _bar(img, (50.0, 100.0), (150.0, 100.0), pale)
    assert _ask(img, [SHORT_PART]) is None


def test_not_over_a_shape() -> None:
    img = _canvas()
    _bar(img, (50.0, 100.0), (150.0, 100.0), STICK_BGR)
    shapes = np.zeros(img.shape[:2], np.uint8)
    shapes[round(80 * S) : round(120 * S), round(102 * S) : round(140 * S)] = 1
    assert _ask(img, [SHORT_PART], shapes) is None


def test_the_run_ends_where_another_stick_meets_it() -> None:
    """The far end of a long stick against the end of another stick of the same wood,
    turned away: the run stops at that stick's rectangle, which is no sign of a cord
    turning away."""
    img = _canvas()
    _bar(img, (50.0, 100.0), (150.0, 100.0), STICK_BGR)
    _bar(img, (150.0, 100.0), (170.0, 55.0), STICK_BGR)
    other = StickFit("short_stick", (151.0, 102.0), (171.0, 56.0), 50.0)
    ends = _ask(img, [SHORT_PART, other])
    assert ends is not None
    assert 140.0 <= ends[1][0] <= 152.0


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(("project", "normal", 6, 60, "wide"), id="grain-called-string"),
        pytest.param(("project", "normal", 5, 12, "wide"), id="string-along-its-end"),
    ],
)
def test_the_boards_long_sticks_are_counted(case: tuple[str, str, int, int, str]) -> None:
    reading, want = read_without_hand(case)
    assert reading.counts["long_stick"] == want["long_stick"]
    assert reading.counts["short_stick"] == want["short_stick"]
