"""Two pieces of a long stick in a heap, each re-aimed on its own wood, may come out a few
millimetres to either side of the stick's line: they are still one stick in line
(``reader.IN_LINE_MM``). A long stick in a heap of five (our renderer's wide looks, run seed
4, board 83) was read as a 55 and a 45 mm piece, one short stick too many and one long too
few."""

from __future__ import annotations

import numpy as np

from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.reader import IN_LINE_MM, join_in_line
from vision.picasso.sticks import StickFit

from .boards import read_without_hand
from .helpers import wood_bars

S = 1.5


def _pieces(offset_mm: float) -> tuple[list[StickFit], np.ndarray, np.ndarray]:
    """A 55 mm and a 45 mm piece end to end along x at y = 50 mm, the second's line
    ``offset_mm`` lower; a normalised canvas and wood map showing both."""
    bars = [(20.0, 75.0, 50.0), (75.0, 120.0, 50.0 + offset_mm)]
    norm, wm = wood_bars(bars, S)
    fits = [StickFit("short_stick", (x0, y), (x1, y), x1 - x0, False) for x0, x1, y in bars]
    return fits, norm, wm


def test_pieces_a_little_off_one_line_are_one_stick() -> None:
    fits, norm, wm = _pieces(0.8 * IN_LINE_MM)
    out = join_in_line(fits, norm, S, DEFAULT_PROFILE, wm)
    assert [f.kind for f in out] == ["long_stick"]


def test_pieces_a_stick_width_apart_are_two() -> None:
    fits, norm, wm = _pieces(DEFAULT_PROFILE.stick_width_mm)
    out = join_in_line(fits, norm, S, DEFAULT_PROFILE, wm)
    assert len(out) == 2


def test_a_long_stick_in_a_heap_of_five_reads_whole() -> None:
    reading, want = read_without_hand(("project", "normal", 4, 83, "wide"))
    assert reading.counts == want
