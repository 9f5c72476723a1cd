"""Flat pictures photographed roughly (``pictable.bench.readers.flat_pictures``): a small
deck names the pictures it holds where they are, and never a picture it does not hold."""

from __future__ import annotations

import numpy as np

from pictable.bench.readers import flat_pictures


def test_a_photo_is_the_picture_where_the_truth_says() -> None:
    import cv2

    picture = np.zeros((200, 300, 3), np.uint8)
    picture[:, 150:] = 255
    frame, corners = flat_pictures.photograph(picture, np.random.default_rng(3), 0.5)
    assert frame.shape == (700, 1000, 3)
    poly = corners.astype(np.float32).reshape(-1, 1, 2)
    centre = corners.mean(axis=0)
    assert cv2.pointPolygonTest(poly, (float(centre[0]), float(centre[1])), False) > 0


def test_no_wrong_picture_named() -> None:
    got = flat_pictures.run(
        seed=0, min_scale=0.5, per_picture=1, deck=("astronaut", "coffee"), distractors=("moon",)
    )
    assert got["photos"] == 3
    assert got["wrong"] == 0, got["wrong_reports"]
    assert got["right"] >= 1
