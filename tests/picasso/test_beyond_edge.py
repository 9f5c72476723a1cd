"""What lies just beyond the canvas edge tells a piece lying against the edge from an arm
coming in over it (issue 25, hard case 6): an arm covers the board's frame there too, a piece
does not (``occlusion.strip_beyond``, ``occlusion.Outside``, ``occlusion.entering``). Pieces that
the reader found, lying against an edge with bare frame beyond, are not a hand; anything
else at the edge is judged as before."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.planes import PlaneFit
from vision.picasso.board import BoardView
from vision.picasso.occlusion import BEYOND_MM, Outside, entering, strip_beyond
from vision.picasso.reader import read_board
from vision.picasso.reading import BoardReading

S = 1.5
W_MM, H_MM = 360.0, 260.0
#: Frame pixels per mm, and where the canvas's top-left corner lies in the frame.
K, X0, Y0 = 2.0, 100.0, 80.0
FRAME_BGR = (40, 60, 90)
SLEEVE_BGR = (200, 120, 60)


def _view(frame: np.ndarray | None) -> BoardView:
    """A board seen straight from above at ``K`` px/mm (no lens), its canvas ``S`` px/mm."""
    h = np.array([[K, 0.0, X0], [0.0, K, Y0], [0.0, 0.0, 1.0]])
    fit = PlaneFit("picasso", h, None, (4, 5, 6, 7), 0.0, (W_MM, H_MM))
    canvas = np.full((round(H_MM * S), round(W_MM * S), 3), 230, np.uint8)
    return BoardView(fit, canvas, S, frame)


def _frame() -> np.ndarray:
    """A 1280 x 720 frame: the board's frame colour round a white canvas."""
    f = np.zeros((720, 1280, 3), np.uint8)
    f[:] = FRAME_BGR
    f[int(Y0) : int(Y0 + H_MM * K), int(X0) : int(X0 + W_MM * K)] = 235
    return f


def _mm_to_frame(x_mm: float, y_mm: float) -> tuple[int, int]:
    return round(X0 + x_mm * K), round(Y0 + y_mm * K)


def test_the_strip_beyond_an_edge_shows_what_lies_there() -> None:
    frame = _frame()
    x0, y0 = _mm_to_frame(100.0, -40.0)
    x1, y1 = _mm_to_frame(160.0, 0.0)
    frame[y0:y1, x0:x1] = SLEEVE_BGR  # a sleeve over the frame above the top edge
    strip, seen = strip_beyond(_view(frame), "top", BEYOND_MM)
    assert strip.shape == (round((BEYOND_MM[1] - BEYOND_MM[0]) * S), round(W_MM * S), 3)
    assert seen.all()
    along = (np.arange(strip.shape[1]) + 0.5) / S
    under = (along > 102) & (along < 158)
    assert (np.abs(strip[:, under].astype(int) - SLEEVE_BGR).max(axis=2) <= 2).all()
    bare = (along < 95) | (along > 165)
    assert (np.abs(strip[:, bare].astype(int) - FRAME_BGR).max(axis=2) <= 2).all()


def test_a_strip_leaving_the_frame_is_not_seen() -> None:
    frame = _frame()[: int(Y0 + H_MM * K) + 4]  # the frame ends 2 mm below the canvas
    _strip, seen = strip_beyond(_view(frame), "bottom", BEYOND_MM)
    assert not seen.any()
    assert Outside(_view(frame)).covered("bottom").all()  # unseen counts as covered


def test_covered_where_something_lies_over_the_frame() -> None:
    frame = _frame()
    x0, y0 = _mm_to_frame(-40.0, 200.0)
    x1, y1 = _mm_to_frame(0.0, 240.0)
    frame[y0:y1, x0:x1] = SLEEVE_BGR  # over the frame left of the canvas, y 200-240 mm
    covered = Outside(_view(frame)).covered("left")
    along = (np.arange(covered.size) + 0.5) / S
    assert covered[(along > 202) & (along < 238)].all()
    assert not covered[(along < 195) | (along > 245)].any()


def _patch_at_top(x_mm: float, length_mm: float) -> tuple[np.ndarray, int, int]:
    """A stick 8 mm wide lying along the top edge from ``x_mm``: its (h, w) pixels in its
    box, and the box's corner."""
    mine = np.ones((round(8 * S), round(length_mm * S)), bool)
    return mine, round(x_mm * S), 0


@pytest.mark.parametrize(("sleeve", "want"), [(False, False), (True, True)])
def test_a_patch_at_the_edge_reaches_out_only_over_covered_frame(sleeve: bool, want: bool) -> None:
    frame = _frame()
    if sleeve:
        x0, y0 = _mm_to_frame(100.0, -35.0)
        x1, y1 = _mm_to_frame(200.0, 0.0)
        frame[y0:y1, x0:x1] = SLEEVE_BGR
    mine, x, y = _patch_at_top(120.0, 60.0)
    shape = (round(H_MM * S), round(W_MM * S))
    assert Outside(_view(frame)).reaches_out(mine, x, y, 3, shape, S) is want


def test_without_the_frame_everything_at_the_edge_reaches_out() -> None:
    mine, x, y = _patch_at_top(120.0, 60.0)
    shape = (round(H_MM * S), round(W_MM * S))
    assert Outside(_view(None)).reaches_out(mine, x, y, 3, shape, S)


def _foreground() -> np.ndarray:
    fg = np.zeros((round(H_MM * S), round(W_MM * S)), np.uint8)
    fg[0 : round(8 * S), round(100 * S) : round(200 * S)] = 1  # along the top edge
    return fg


def test_pieces_against_the_edge_with_bare_frame_beyond_do_not_come_in() -> None:
    fg = _foreground()
    outside = Outside(_view(_frame()))
    assert entering(fg, S).any()  # by its contact alone it comes in, as before
    assert not entering(fg, S, outside=outside, pieces=fg).any()


def test_what_no_piece_explains_comes_in_whatever_lies_beyond() -> None:
    fg = _foreground()
    outside = Outside(_view(_frame()))
    assert entering(fg, S, outside=outside, pieces=np.zeros_like(fg)).any()


def test_pieces_against_the_edge_with_an_arm_beyond_come_in() -> None:
    frame = _frame()
    x0, y0 = _mm_to_frame(90.0, -35.0)
    x1, y1 = _mm_to_frame(210.0, 0.0)
    frame[y0:y1, x0:x1] = SLEEVE_BGR
    fg = _foreground()
    assert entering(fg, S, outside=Outside(_view(frame)), pieces=fg).any()


def test_a_rendered_board_with_a_hand_over_its_edge_is_still_occluded() -> None:
    """Board 193 of the normal run seed 0: a grey sleeve, much like the grey frame, over 7%
    of the canvas from its bottom edge."""
    from vision.picasso.dataset import render_board

    frame, _truth = render_board("normal", 193)
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.occluded
