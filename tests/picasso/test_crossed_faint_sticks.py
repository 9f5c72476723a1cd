"""Two faint sticks crossing that the pixel model calls the string are two sticks (issue 25;
``segment._crossed_bars``, ``segment.wide_strings``).

Under the second drawer's hard camera a glare washes painted sticks out to a pale tint the
width of a stick, and the model calls them the string. One straight bar of that width was
made wood already (``wide_strings``); two crossing were left as the string ("not
straight"), and the board read a string and no long sticks. Now a patch of the string
that two or three straight bars of its width cover (all but 12% of it, each 35 mm to a
fifth over the longest stick) is made wood too, up to four (the third and fourth from
20 mm: a short stick half under the others), when each crosses another 10 mm or more
inside one of them (a string bends, and its straight pieces meet end to end); and the
string's patches joined through the bits the model called stick at the crossing are
measured as one.

On the 14 development sets of issue 25: failed boards 103 -> 100 (boards 0, 21 and 22 of
the hard development looks seed 0 fixed, none broken). Without the crossing rule, a
heap of four (board 25 of seed 5) read right too, and a curving string of the test below
was taken for bars."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from pictable.bench.drawers.picasso_board import board_look, draw_board
from vision.picasso import BoardReading, read_board
from vision.picasso import segment as seg
from vision.picasso.profile import DEFAULT_PROFILE

#: Second drawer, hard tier, development looks, run seed 0: boards 21 (painted red under a
#: glare) and 22 (dark wood, blurred), each with two long sticks crossing.
BOARDS = [21, 22]


@pytest.fixture(scope="module", params=BOARDS)
def board(request: pytest.FixtureRequest):
    b = draw_board(request.param, look=board_look(request.param, "dev"), tier="hard")
    assert not b.hand
    return b


def test_two_faint_sticks_crossing_are_sticks_not_the_string(board) -> None:
    reading = read_board(board.frame)
    assert isinstance(reading, BoardReading) and not reading.occluded
    assert reading.counts == board.counts
    assert reading.counts["string"] == 0


def test_without_crossed_bars_they_read_as_the_string(board, monkeypatch) -> None:
    monkeypatch.setattr(seg, "_crossed_bars", lambda *args: [])
    reading = read_board(board.frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts["string"] == 1
    assert reading.counts["long_stick"] < board.counts["long_stick"]


S = 1.5  # canvas px per mm


def _measure(mask: np.ndarray) -> list:
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5) / S
    ridge = dist[(dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 0)]
    width = 2.0 * float(np.median(ridge))
    return seg._crossed_bars(mask, width, S, DEFAULT_PROFILE)


def _bar(img: np.ndarray, centre: tuple[float, float], length_mm: float, angle: float) -> None:
    d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
    c = np.asarray(centre)
    a, b = c - d * length_mm * S / 2, c + d * length_mm * S / 2
    cv2.line(img, tuple(np.rint(a).astype(int)), tuple(np.rint(b).astype(int)), 1, round(8 * S))


def test_an_x_of_two_long_sticks_is_two_bars() -> None:
    img = np.zeros((260, 300), np.uint8)
    _bar(img, (150, 130), 100, 20)
    _bar(img, (140, 120), 100, 100)
    rects = _measure(img)
    assert len(rects) == 2
    lengths = sorted(max(r[1]) / S for r in rects)
    assert all(95 <= v <= 115 for v in lengths)


@pytest.mark.parametrize(
    "short_at", [(0.0, 0.0), (30.0, -20.0)], ids=["at-one-point", "near-its-end"]
)
def test_three_sticks_crossing_are_three_bars(short_at: tuple[float, float]) -> None:
    """Two long sticks crossing and a short one, across both where they cross or across one
    of them near its own end."""
    img = np.zeros((300, 300), np.uint8)
    _bar(img, (150, 150), 100, 0)
    _bar(img, (150, 150), 100, 60)
    _bar(img, (150 + short_at[0] * S, 150 + short_at[1] * S), 50, 120 if short_at[0] == 0 else 100)
    assert len(_measure(img)) == 3


def test_a_curving_string_is_no_bars() -> None:
    img = np.zeros((260, 400), np.uint8)
    xs = np.arange(20, 380)
    ys = 130 + 60 * np.sin(xs / 40.0)
    pts = np.stack([xs, ys], 1).round().astype(np.int32)
    cv2.polylines(img, [pts], False, 1, round(6 * S))
    assert _measure(img) == []


def test_two_sticks_end_to_end_at_an_angle_are_left_alone() -> None:
    """A V of two bars meeting at their ends is what a bent string looks like."""
    img = np.zeros((260, 300), np.uint8)
    _bar(img, (100, 130), 60, 30)
    end = (100 + 30 * S * math.cos(math.radians(30)), 130 + 30 * S * math.sin(math.radians(30)))
    d = (math.cos(math.radians(-40)), math.sin(math.radians(-40)))
    _bar(img, (end[0] + 30 * S * d[0], end[1] + 30 * S * d[1]), 60, -40)
    assert _measure(img) == []


def test_one_bar_alone_is_left_to_the_straight_test() -> None:
    img = np.zeros((200, 300), np.uint8)
    _bar(img, (150, 100), 100, 30)
    assert _measure(img) == []
