"""Issue 25, hard tier: light falling off towards the canvas's edge can push the canvas
out of the colour table's canvas class, and a patch of it along the edge looked like an arm
coming in. An occluding patch is kept only when the pixel model sees something there
(``reader._seen_by_model``): a hand, a sleeve or a card is its "other" over most of it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.picasso import BoardReading, read_board
from vision.picasso import pixel_model as pm
from vision.picasso.dataset import render_board
from vision.picasso.occlusion import Occluders
from vision.picasso.reader import SEEN_MIN, _seen_by_model


def _two_patches() -> Occluders:
    mask = np.zeros((100, 100), np.uint8)
    mask[10:40, 0:20] = 1  # 600 px along the left edge
    mask[60:90, 80:100] = 1  # 600 px along the right edge
    return Occluders(mask, 0.12)


def test_a_patch_the_model_sees_as_canvas_is_dropped() -> None:
    half = np.full((50, 50), pm.CANVAS, np.uint8)
    half[30:45, 40:50] = pm.OTHER  # the right patch is a hand to the model
    out = _seen_by_model(_two_patches(), half)
    assert out.mask[10:40, 0:20].sum() == 0
    assert out.mask[60:90, 80:100].all()
    assert out.fraction == pytest.approx(0.06)


def test_a_patch_the_model_sees_in_part_is_kept() -> None:
    half = np.full((50, 50), pm.CANVAS, np.uint8)
    # a third of the left patch is something to the model: more than SEEN_MIN
    half[5:10, 0:10] = pm.OTHER
    assert SEEN_MIN < 1 / 3
    out = _seen_by_model(_two_patches(), half)
    assert out.mask[10:40, 0:20].all()


def test_hard_board_with_a_dim_canvas_edge_is_not_occluded() -> None:
    """Board 22 of hard run seed 0 (no hand over the canvas): before, 1.9% of the canvas
    along its right edge was reported as covered and the board not counted."""
    frame, truth = render_board("hard", 22)
    board = truth.to_json()["board"]
    assert board["canvas_hand_fraction"] == 0
    reading = read_board(frame)
    assert isinstance(reading, BoardReading), reading
    assert not reading.occluded, reading.occlusion
    assert reading.counts == board["counts"]
