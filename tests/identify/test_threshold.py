"""The codes reader's local threshold is OpenCV's adaptive threshold, pixel for pixel."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.identify import dark_squares
from vision.identify.threshold import dark_against_mean


def _opencv(grey: np.ndarray, window: int, c: int) -> np.ndarray:
    return cv2.adaptiveThreshold(
        grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, window, c
    )


def _images() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (97, 131), dtype=np.uint8)
    smooth = cv2.GaussianBlur(noise, (0, 0), 3)
    split = np.zeros((60, 80), np.uint8)
    split[:, 40:] = 255
    speck = np.full((40, 40), 255, np.uint8)
    speck[20, 20] = 245  # its window's mean rounds to 255: dark by 10 levels
    return [
        speck,
        noise,
        smooth,
        split,
        255 - split,
        np.full((40, 40), 255, np.uint8),  # blown out: the saturated sum would say dark
        np.zeros((40, 40), np.uint8),
        np.full((1, 1), 3, np.uint8),
    ]


@pytest.mark.parametrize(
    "window, c", [(dark_squares._THRESH_WINDOW, dark_squares._THRESH_C), (3, 0), (31, 250)]
)
def test_dark_against_mean_is_opencvs_adaptive_threshold(window: int, c: int) -> None:
    for grey in _images():
        assert np.array_equal(dark_against_mean(grey, window, c), _opencv(grey, window, c))
