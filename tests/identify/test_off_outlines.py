"""Which squares lie off the cards placed (:func:`vision.identify.marker_pairs.off_outlines`):
all at once, as ``cv2.pointPolygonTest`` tells for each centre and outline (strictly
outside; a centre on a side is on the card)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.identify.marker_pairs import off_outlines


def _one_by_one(squares: np.ndarray, outlines: list[np.ndarray]) -> np.ndarray:
    free = np.ones(len(squares), bool)
    for outline in outlines:
        poly = np.asarray(outline, np.float32)
        for k, (x, y) in enumerate(squares.mean(axis=1)):
            free[k] &= cv2.pointPolygonTest(poly, (float(x), float(y)), False) < 0
    return free


def test_squares_off_the_outlines_are_those_pointpolygontest_finds_outside_all() -> None:
    rng = np.random.default_rng(26)
    for _ in range(400):
        outlines = []
        for _ in range(int(rng.integers(0, 5))):
            w, h = rng.uniform(5, 40, 2)
            turn = rng.uniform(0, np.pi)
            rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
            q = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2 @ rot.T + rng.uniform(0, 100, 2)
            if rng.random() < 0.2:
                q = q[[0, 2, 1, 3]]  # a crossed outline
            if rng.random() < 0.3:
                q = np.round(q)  # corners on whole pixels, some centres on sides
            outlines.append(q)
        m = int(rng.integers(0, 30))
        squares = rng.uniform(-10, 110, (m, 1, 2)) + rng.uniform(-3, 3, (m, 4, 2))
        if rng.random() < 0.3:
            squares = np.round(squares * 2) / 2
        if outlines and m:
            squares[0] = outlines[0][0]  # a centre on a corner
        np.testing.assert_array_equal(
            off_outlines(squares, outlines), _one_by_one(squares, outlines)
        )


def test_a_square_on_a_cards_side_or_inside_is_not_off_it() -> None:
    card = np.array([[0.0, 0.0], [40.0, 0.0], [40.0, 60.0], [0.0, 60.0]])
    square = np.array([[-2.0, -2.0], [2.0, -2.0], [2.0, 2.0], [-2.0, 2.0]])
    centres = np.array([[20.0, 30.0], [40.0, 30.0], [0.0, 0.0], [41.0, 30.0], [-5.0, -5.0]])
    got = off_outlines(centres[:, None] + square[None], [card])
    assert got.tolist() == [False, False, False, True, True]
    assert off_outlines(centres[:, None] + square[None], []).all()
    assert off_outlines(np.zeros((0, 4, 2)), [card]).shape == (0,)
