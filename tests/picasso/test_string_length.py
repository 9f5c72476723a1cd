"""The string counts when a quarter of KIT.md's string (about 600 mm) shows
(``cord.MIN_LENGTH_MM``): pieces of line where there is no string (a shape's colour fringe,
the pixel model's specks on a blurred heap) added up to 89-146 mm on coarse hard boards and
were counted as the string; a string on the canvas showed 182 mm and more on every rendered
board (a white string on a cream canvas the least)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.picasso.cord import MIN_LENGTH_MM, find_cord
from vision.picasso.profile import DEFAULT_PROFILE

S = 1.5


def _pieces(lengths_mm: list[float]) -> np.ndarray:
    """Pieces of a 2.5 mm dark line, laid apart on the canvas, each ``lengths_mm`` long."""
    dark = np.zeros((round(240 * S), round(330 * S)), np.uint8)
    for k, length in enumerate(lengths_mm):
        y = round((20 + 30 * k) * S)
        cv2.line(dark, (round(20 * S), y), (round((20 + length) * S), y), 1, round(2.5 * S))
    return dark


def test_a_few_short_pieces_of_line_are_not_the_string() -> None:
    cord = find_cord(_pieces([40.0, 34.0, 26.0, 20.0]), S, DEFAULT_PROFILE)
    assert 80.0 < cord.length_mm < MIN_LENGTH_MM
    assert not cord.present


def test_a_string_in_pieces_that_shows_a_third_of_itself_is_the_string() -> None:
    cord = find_cord(_pieces([90.0, 70.0, 40.0]), S, DEFAULT_PROFILE)
    assert cord.length_mm >= MIN_LENGTH_MM
    assert cord.present
