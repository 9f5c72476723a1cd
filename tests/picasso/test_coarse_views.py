"""Sticks seen coarsely (issue 25, hard tier): in-line pieces joined with the tolerance the
camera's resolution allows, and a seam only where the dip is deeper than anywhere else along
the same stick."""

from __future__ import annotations

from vision.picasso.reader import _in_line
from vision.picasso.seams import STANDS_OUT, SeamCues
from vision.picasso.sticks import StickFit


def _pieces() -> tuple[StickFit, StickFit]:
    # A long stick read as two halves on a coarse view; the second half's near end lies
    # 2.1 mm off the line through the far ends (as read on a board seen at 0.87 px/mm).
    a = StickFit("short_stick", (271.1, 206.4), (217.7, 198.7), 54.0)
    b = StickFit("short_stick", (223.8, 196.7), (170.7, 190.3), 53.5)
    return a, b


def test_in_line_pieces_off_by_more_than_a_fine_view_allows_are_not_one_line() -> None:
    a, b = _pieces()
    assert _in_line(a, b, 20.0, 1.5) is None


def test_in_line_tolerance_grows_with_a_coarse_view() -> None:
    a, b = _pieces()
    joined = _in_line(a, b, 20.0, 3.0 / 0.87)
    assert joined is not None
    far_a, _, far_b = joined
    assert {far_a, far_b} == {(271.1, 206.4), (170.7, 190.3)}


def test_a_dip_no_deeper_than_elsewhere_along_the_stick_is_no_seam() -> None:
    assert not SeamCues(0.06, 0.0, 0.0, False, True, elsewhere=0.07).seam
    assert SeamCues(0.06, 0.0, 0.0, False, True, elsewhere=0.03).seam
    assert not SeamCues(0.04, 0.0, 0.0, False, True, elsewhere=0.0).seam
    assert not SeamCues(0.2, 0.0, 0.0, True, True, elsewhere=0.0).seam


def test_a_seam_stands_out_from_the_sticks_own_dips() -> None:
    # Hard run seed 1, boards 19 and 95: whole long sticks on views of 0.84 and 0.82 frame
    # px/mm, a dip of 0.06 at mid-length against 0.054 and 0.047 elsewhere along them.
    assert not SeamCues(0.06, 0.0, 0.0, False, True, elsewhere=0.054).seam
    assert not SeamCues(0.06, 0.0, 0.0, False, True, elsewhere=0.047).seam
    assert SeamCues(0.06, 0.0, 0.0, False, True, elsewhere=0.06 / STANDS_OUT - 0.001).seam
