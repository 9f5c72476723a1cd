"""A shape cut in two by the string (issue 25: the string crossing itself, the sticks and
the shapes). A white or pale string across a shape reads as the canvas's class there, and
the shape's two sides as two patches of its colour. They are one shape when their convex
hull fits a kit shape better than the worse side does alone (``shapes.join_split``), and
the hull's bare canvas is counted without lines as thin as the string
(``shapes.JOIN_THIN_MM``): the string's own line across a 35 mm square is 13% of it.

Board: the second drawer's development looks, seed 5, board 62 (a white string across a red
square), read as two red triangles before; on the 14 development sets the change fixed the
shapes of that board (in the normal and the hard tier) and changed no other reading."""

from __future__ import annotations

import cv2
import numpy as np

from vision.picasso import BoardReading, read_board
from vision.picasso import segment as seg
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.shapes import classify_geometry, colour_patches, join_split

from .boards import board_without_hand

S = 1.5
RED = seg.FIRST_COLOUR + list(DEFAULT_PROFILE.colours).index("red")


def _square_cut(gap_mm: float) -> np.ndarray:
    """Labels of a 35 mm red square on canvas, a band ``gap_mm`` wide of the canvas's class
    along its diagonal."""
    labels = np.zeros((150, 150), np.uint8)
    side = round(35 * S)
    labels[40 : 40 + side, 40 : 40 + side] = RED
    band = np.zeros_like(labels)
    cv2.line(band, (40, 40 + side), (40 + side, 40), 1, max(1, round(gap_mm * S)))
    labels[band > 0] = seg.CANVAS
    return labels


def _joined(labels: np.ndarray) -> list[str]:
    found, _ = colour_patches(labels, RED, "red", S, DEFAULT_PROFILE)
    assert len(found) == 2
    return [
        classify_geometry(p.geometry, DEFAULT_PROFILE)[0]
        for p in join_split(found, labels, S, DEFAULT_PROFILE)
    ]


def test_a_square_cut_by_a_thin_string_is_one_square() -> None:
    assert _joined(_square_cut(4.0)) == ["square"]


def test_two_parts_apart_by_more_than_a_string_stay_two() -> None:
    assert len(_joined(_square_cut(10.0))) == 2


def test_a_white_string_across_a_red_square() -> None:
    frame, want = board_without_hand("second", "normal", 5, 62, "dev")
    reading = read_board(frame)
    assert isinstance(reading, BoardReading) and not reading.occluded
    assert reading.counts["shape"] == want["shape"]
    assert sorted(sh.shape for sh in reading.shapes if sh.colour == "red") == ["square"]
