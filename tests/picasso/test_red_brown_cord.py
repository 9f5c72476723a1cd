"""Issue 25: a dark red-brown cord (BGR about 20-40, 35-55, 90-125), which the reader's
colour classes call wood, must be counted as the string, found by its shape (a line too thin
for a stick), and the sticks it lies over or beside counted as they are (not cut in two
where it crosses them)."""

from __future__ import annotations

import pytest

from pictable.bench.drawers.picasso_board import Look, draw_board
from vision.picasso import BoardReading, read_board


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_red_brown_cord_is_the_string(seed: int) -> None:
    b = draw_board(seed, hand=False, string=True, look=Look(string="red-brown"))
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading), reading
    assert not reading.occluded
    assert reading.string is not None
    assert reading.counts == b.counts, b.pieces
