"""The canvas model on a tinted canvas with a glare: the surface is fitted to the cells of
the canvas's own tint, not to the neutral ones (on a cream canvas, only a glare's cells are
neutral, and a surface fitted to them alone washed the whole canvas out: every piece read as
canvas, the glare's rim as a hand)."""

from __future__ import annotations

import numpy as np

from pictable.bench.drawers.picasso_board import board_look, draw_board
from vision.picasso import BoardReading, read_board
from vision.picasso import segment as seg

S = 1.5


def _cream_with_glare() -> tuple[np.ndarray, np.ndarray]:
    h, w = 390, 540
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    light = 1.0 - 0.1 * (xs / w - 0.5) ** 2
    canvas = light[:, :, None] * np.array([178.0, 222.0, 236.0])  # cream, BGR
    glare = np.exp(-(((xs - 520) ** 2 + (ys - 60) ** 2) / (2 * 35.0**2)))
    canvas = canvas + glare[:, :, None] * (255.0 - canvas)
    canvas = np.clip(canvas, 0, 255).astype(np.uint8)
    canvas[100:112, 100:250] = (40, 40, 200)  # a red stick
    bare = (glare < 0.02)[:, :, None].repeat(3, axis=2)
    bare[95:117, 95:255] = False
    return canvas, bare


def test_the_canvas_model_fits_a_cream_canvas_beside_a_glare() -> None:
    canvas, bare = _cream_with_glare()
    norm = seg.normalise(canvas, S)
    assert np.abs(norm[bare].astype(float) - seg.WHITE_LEVEL).max() <= 8.0
    # the stick stays far darker than the canvas
    assert norm[100:112, 110:240].mean() < 0.6 * seg.WHITE_LEVEL


def test_a_board_on_a_cream_canvas_with_a_glare_is_read() -> None:
    """Second drawer, hard tier, development looks, seed 19: red painted sticks on cream,
    a glare at the canvas's edge; read as occluded (the glare's rim) with no stick before."""
    b = draw_board(19, look=board_look(19, "dev"), tier="hard")
    assert not b.hand
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading)
    assert not reading.occluded
    assert reading.counts == b.counts
