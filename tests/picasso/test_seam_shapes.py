"""A long stick passing under a shape's edge dips in lightness where it goes under, as at a
joint: no joint is looked for where a shape lies across the stick (``seams.seam_cues``
with ``shapes``), as none is where the string or another stick does."""

from __future__ import annotations

import cv2
import numpy as np

from vision.picasso import BoardReading, read_board
from vision.picasso.dataset import render_board, scene_seed
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.seams import Lightness, seam_cues
from vision.picasso.segment import WHITE_LEVEL

S = 1.5


def _stick_with_a_dip() -> tuple[Lightness, np.ndarray]:
    """A normalised canvas with a 100 mm stick from (50, 100) to (150, 100) mm, darker
    across its width at x = 100 mm (as at a seam, or under a shape's rim), and an empty
    shape mask."""
    h, w = round(200 * S), round(200 * S)
    norm = np.full((h, w, 3), WHITE_LEVEL, np.uint8)
    y0, y1 = round(96 * S), round(104 * S)
    norm[y0:y1, round(50 * S) : round(150 * S)] = (120, 150, 170)
    norm[y0:y1, round(99.5 * S) : round(100.5 * S)] = (60, 75, 85)
    norm = cv2.GaussianBlur(norm, (0, 0), 0.6)
    return Lightness(norm), np.zeros((h, w), np.uint8)


def test_a_dip_with_nothing_across_is_a_seam() -> None:
    gray, _ = _stick_with_a_dip()
    cues = seam_cues(gray, (50.0, 100.0), (150.0, 100.0), 50.0, [], S, DEFAULT_PROFILE)
    assert cues.seam


def test_no_seam_where_a_shape_lies_across() -> None:
    gray, shapes = _stick_with_a_dip()
    # a circle's edge over the stick at the joint
    cv2.circle(shapes, (round(106 * S), round(112 * S)), round(14 * S), 1, -1)
    cues = seam_cues(
        gray, (50.0, 100.0), (150.0, 100.0), 50.0, [], S, DEFAULT_PROFILE, shapes=shapes
    )
    assert not cues.clear
    assert not cues.seam


def test_a_shape_away_from_the_joint_changes_nothing() -> None:
    gray, shapes = _stick_with_a_dip()
    cv2.circle(shapes, (round(140 * S), round(120 * S)), round(12 * S), 1, -1)
    cues = seam_cues(
        gray, (50.0, 100.0), (150.0, 100.0), 50.0, [], S, DEFAULT_PROFILE, shapes=shapes
    )
    assert cues.clear
    assert cues.seam


def test_a_long_stick_under_a_circle_s_edge_on_a_coarse_view_is_one_long_stick() -> None:
    """Hard tier, development looks, run seed 3, board 20: a long stick of dark wood goes
    under a red circle's edge at its middle (0.8 frame px per mm); it was cut in two
    short sticks there (dip 0.067, 1.45 times the deepest elsewhere)."""
    frame, truth = render_board("hard", scene_seed(3, 20), looks="dev")
    board = truth.to_json()["board"]
    reading = read_board(frame)
    assert isinstance(reading, BoardReading), reading
    assert reading.counts == board["counts"]
    assert not any(s.seam for s in reading.sticks)
