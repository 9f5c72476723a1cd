"""One shape found twice (issue 25: an extra shape): a patch of a shape's own colour inside
its outline (its lighter middle, or its rim) read as a second shape. Flat cut-outs of one
size cannot lie one within another, so a shape lying half or more inside another's outline
is part of it (``vision.picasso.shapes.without_nested``).

Boards: our renderer's wide development looks, run seed 5, board 20 (a teal half-circle
read as a half-circle and a "C" inside it) and run seed 3, board 81 (a green half-circle
read twice)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.picasso.reading import Shape
from vision.picasso.shapes import NESTED_SHARE, without_nested

from .boards import read_without_hand


def _square(cx: float, cy: float, side: float, confidence: float = 0.9) -> Shape:
    h = side / 2
    outline = np.array(
        [[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float32
    )
    return Shape("square", "red", (cx, cy), outline, side * side, "model", confidence)


def test_a_shape_inside_another_counts_once() -> None:
    big, small = _square(50, 50, 35, 0.99), _square(52, 50, 18, 0.3)
    assert without_nested([small, big]) == [big]


def test_the_more_confident_of_two_stays() -> None:
    a, b = _square(50, 50, 35, 0.6), _square(51, 50, 33, 0.95)
    assert without_nested([a, b]) == [b]


def test_shapes_side_by_side_or_overlapping_a_little_stay() -> None:
    a, b = _square(50, 50, 35), _square(80, 50, 35)  # 5 mm of 35 overlap: 14%
    assert NESTED_SHARE > 5 / 35
    assert without_nested([a, b]) == [a, b]
    c = _square(150, 50, 35)
    assert without_nested([a, c]) == [a, c]


def test_one_shape_stays() -> None:
    a = _square(50, 50, 35)
    assert without_nested([a]) == [a] and without_nested([]) == []


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(("project", "normal", 5, 20, "wide"), id="teal-half-circle-and-its-middle"),
        pytest.param(("project", "normal", 3, 81, "wide"), id="green-half-circle-twice"),
    ],
)
def test_the_boards_shapes_are_counted_once(case: tuple[str, str, int, int, str]) -> None:
    reading, want = read_without_hand(case)
    assert reading.counts == want
