"""A stick crossing the middle of a heap (issue 25, the normal tier's most common miss):
the wood map is one blob where the sticks overlap, and the stick search, which reads only
that map, finds no line along a stick whose wood the others' explain but for a sliver. The
picture still shows each stick's sides as straight luminance edges: the second round of the
search proposes lines half a stick in from them (``stick_proposals._picture_lines``)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.picasso import stick_proposals
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.stick_lines import WOOD_PX
from vision.picasso.stick_proposals import _picture_lines

from .boards import read_now_and_before

# (drawer, tier, run seed, board, looks): development boards (the pixel model's wide looks,
# normal tier) where a short stick crossing a heap was missed.
CASES = [
    ("ours", "normal", 2, 37, "wide"),  # four short sticks, one under the others diagonally
    ("ours", "normal", 4, 46, "wide"),  # a heap read with a short stick too many
    ("ours", "normal", 5, 27, "wide"),  # painted sticks, a short one missed
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[2]}-{c[3]}")
def test_a_stick_across_a_heap_is_counted_by_the_pictures_edges(
    case: tuple[str, str, int, int, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    reading, want, before = read_now_and_before(
        case, monkeypatch, stick_proposals, "PICTURE_EDGE_SHARE", math.inf
    )
    assert reading.counts == want
    assert before.counts != want


def _bar(img: np.ndarray, a: tuple[float, float], b: tuple[float, float], w: float, v: int) -> None:
    """A bar from ``a`` to ``b`` (px), ``w`` px wide, of grey level ``v``, drawn in ``img``."""
    d = np.subtract(b, a) / np.hypot(*np.subtract(b, a))
    n = np.array([-d[1], d[0]]) * w / 2
    poly = np.array([a + n, b + n, b - n, a - n], np.float32)
    cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], v, cv2.LINE_AA, 4)


def test_a_bar_hidden_in_a_blob_of_wood_gets_a_line_along_it() -> None:
    """Two bars crossing, each with its own shade: the wood map is one blob, the picture
    shows both bars' sides; a proposed line runs along each bar's middle."""
    s, width = 1.5, DEFAULT_PROFILE.stick_width_mm
    gray = np.full((240, 240), 200, np.uint8)
    bars = [((40.0, 120.0), (200.0, 120.0), 120), ((60.0, 40.0), (180.0, 200.0), 90)]
    for a, b, v in bars:
        _bar(gray, a, b, width * s, v)
    wood_mp = np.where(gray < 180, WOOD_PX, 0).astype(np.uint8)
    rest = wood_mp == WOOD_PX
    lines = _picture_lines(gray, wood_mp, rest, s, width, 30.0)
    assert lines
    for a, b, _ in bars:
        ang = math.atan2(b[1] - a[1], b[0] - a[0])
        mid = np.add(a, b) / 2
        near = [
            ln
            for ln, _, _ in lines
            if abs(math.sin(ln.angle - ang)) < math.sin(math.radians(3))
            and abs((mid[0] - ln.cx) * -ln.sin + (mid[1] - ln.cy) * ln.cos) < 1.5 * s
        ]
        assert near, f"no line along the bar {a} -> {b}"


def test_no_line_where_the_picture_is_flat() -> None:
    """Wood in the map but no edge in the picture: nothing is proposed."""
    s = 1.5
    gray = np.full((200, 200), 150, np.uint8)
    wood_mp = np.full((200, 200), WOOD_PX, np.uint8)
    assert _picture_lines(gray, wood_mp, wood_mp == WOOD_PX, s, 8.0, 30.0) == []
