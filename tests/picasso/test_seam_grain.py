"""A long stick is not cut in two at a dip of its grain (issue 25: a long and two shorts in
line): the seam's dip must stand out from the deepest the same test measures elsewhere along
the stick by ``seams.STANDS_OUT``. On a long stick of dark, grained wood (our renderer's wide
looks, run seed 2, board 48) the test measured 0.057 at the stick's middle and 0.043
elsewhere: 1.33 times as deep, which cut it in two short sticks at the old factor of 1.3."""

from __future__ import annotations

from vision.picasso import BoardReading, read_board
from vision.picasso.seams import STANDS_OUT, SeamCues

from .boards import board_without_hand


def test_a_grain_dip_barely_deeper_than_the_rest_is_no_seam() -> None:
    assert not SeamCues(0.057, 0.0, 0.0, False, True, elsewhere=0.043).seam
    assert SeamCues(0.057, 0.0, 0.0, False, True, elsewhere=0.057 / STANDS_OUT - 0.001).seam


def test_a_dark_grained_long_stick_stays_whole() -> None:
    frame, want = board_without_hand("project", "normal", 2, 48, "wide")
    reading = read_board(frame)
    assert isinstance(reading, BoardReading) and not reading.occluded
    assert reading.counts == want
    assert not any(s.seam for s in reading.sticks)
