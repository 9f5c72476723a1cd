"""The board's frame showing along the canvas edges is blanked (``segment.blank_frame``): a
blurred frame bleeds a few millimetres into the canvas on a coarse view, and a band of it
left along an edge read as the string (hard run seed 0, board 96; seed 1, board 22)."""

from __future__ import annotations

import numpy as np

from vision.picasso.segment import (
    CANVAS,
    DARK,
    EDGE_IGNORE_MM,
    FRAME_SEARCH_MM,
    WOOD,
    blank_frame,
)

S = 1.5


def _labels() -> np.ndarray:
    return np.full((360, 495), CANVAS, np.uint8)


def test_a_band_of_frame_beyond_the_always_blanked_edge_is_blanked() -> None:
    labels = _labels()
    always = max(1, round(EDGE_IGNORE_MM * S))
    labels[always : always + 3, :] = DARK  # top: the blurred frame, 2 mm of it
    labels[-always - 4 : -always, :] = WOOD  # bottom
    labels[:, always : always + 2] = DARK  # left
    out, _ = blank_frame(labels, S)
    assert (out == CANVAS).all()


def test_a_piece_reaching_in_from_the_edge_stays() -> None:
    labels = _labels()
    deep = round((FRAME_SEARCH_MM + 4) * S)
    labels[:deep, 200:212] = WOOD  # a stick end-on to the top edge, 10 mm past the search
    labels[100:112, 100:300] = WOOD  # a stick lying in the middle
    out, _ = blank_frame(labels, S)
    always = max(1, round(EDGE_IGNORE_MM * S))
    assert (out[always:deep, 200:212] == WOOD).all()
    assert (out[100:112, 100:300] == WOOD).all()


def test_a_stick_lying_along_the_edge_a_little_in_stays() -> None:
    labels = _labels()
    labels[6:18, 100:300] = WOOD  # 4 mm in from the top edge, 8 mm wide
    out, _ = blank_frame(labels, S)
    assert (out[6:18, 100:300] == WOOD).all()


def test_a_fingertip_just_over_the_edge_stays() -> None:
    # normal run seed 1, board 79: a hand over 0.28% of the canvas, reaching 4 mm in over
    # 20 mm of the edge; blanked as frame, the hand was no longer seen
    labels = _labels()
    always = max(1, round(EDGE_IGNORE_MM * S))
    labels[always : always + 6, 200:230] = WOOD
    out, _ = blank_frame(labels, S)
    assert (out[always : always + 6, 200:230] == WOOD).all()
