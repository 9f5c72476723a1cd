"""A short stick half under a shape shows too little of itself for the stick search (it
wants 30 mm, and 30 mm beside a circle's edge measure 28): a straight bar of leftover wood,
a stick wide, one end against a shape and the other free, is a short stick
(``reader.sticks_under_shapes``; issue 25's hard case 5, ``test_hard_cases``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.reader import sticks_under_shapes

S = 1.5


def _px(p: tuple[float, float]) -> tuple[int, int]:
    return round(p[0] * S), round(p[1] * S)


def _scene(bar: tuple[tuple[float, float], tuple[float, float]], circles: list) -> tuple:
    shape = (round(260 * S), round(360 * S))
    wood = np.zeros(shape, np.uint8)
    (x0, y0), (x1, y1) = bar
    d = np.array([x1 - x0, y1 - y0]) / np.hypot(x1 - x0, y1 - y0)
    n = np.array([-d[1], d[0]]) * 4.0  # half a stick's width
    corners = np.array([bar[0] + n, bar[1] + n, bar[1] - n, bar[0] - n]) * S
    cv2.fillPoly(wood, [np.round(corners).astype(np.int32)], 1)
    shapes = np.zeros(shape, np.uint8)
    for c in circles:
        cv2.circle(shapes, _px(c), round(20 * S), 1, -1)
    return wood, shapes


def test_a_bar_ending_at_a_shape_is_a_short_stick() -> None:
    # 28 mm of bar ending 1 mm short of a circle's edge
    wood, shapes = _scene(((100.0, 100.0), (128.0, 100.0)), [(149.0, 100.0)])
    found = sticks_under_shapes(wood, shapes, S, DEFAULT_PROFILE)
    assert len(found) == 1
    f = found[0]
    assert f.kind == "short_stick"
    assert f.length_mm == pytest.approx(28, abs=1.5)
    assert abs(f.p0[1] - 100.0) < 1.5 and abs(f.p1[1] - 100.0) < 1.5


@pytest.mark.parametrize(
    ("bar", "circles"),
    [
        (((100.0, 100.0), (128.0, 100.0)), []),  # no shape
        (((100.0, 100.0), (128.0, 100.0)), [(149.0, 160.0)]),  # a shape far away
        (((100.0, 100.0), (128.0, 100.0)), [(79.0, 100.0), (149.0, 100.0)]),  # both ends
        (((100.0, 100.0), (160.0, 100.0)), [(181.0, 100.0)]),  # a stick's length: found already
    ],
)
def test_other_bars_are_not(bar, circles) -> None:
    wood, shapes = _scene(bar, circles)
    assert sticks_under_shapes(wood, shapes, S, DEFAULT_PROFILE) == []
