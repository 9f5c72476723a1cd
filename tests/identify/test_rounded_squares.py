"""Small markers blurred to rounded corners are found as dark squares all the same, and read
only with their partner (:func:`vision.identify.dark_squares._rounded_square`, issue 26: the hard
tier, codes at low resolution).

On the hard tier, most card markers missed on cards 35-55 px wide were never found as dark
squares: their blob, traced, had 5 to 10 corners (a marker 12-17 px wide blurred to rounded
corners, or joined to a speck), not 4. Their least rectangle is the square; its corners are
less sure than a traced square's, so such a square names no card alone: it is left to the
steps that read a card's two squares together (pairs lying as a card's two markers, and the
outlines found round them)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from tests.identify.conftest import named_by_codes
from vision.identify import codes, dark_squares
from vision.identify.scenes import make_scene, scene_seed


def _marker_blob(side: float, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """A small marker's dark blob as a blurred frame thresholds it: a square ring of ``side``
    px (a cell thick) round a dark block, its corners cut 3 px, the ring broken on one side,
    turned ``angle`` degrees; drawn 8 times finer and traced at 1 px a pixel: (its outer
    contour, the square's true corners (4, 2))."""
    scale, size = 8, int(3 * side)
    turn = np.deg2rad(angle)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])

    def poly(pts: list[list[float]]) -> np.ndarray:
        return np.int32(np.asarray(pts) @ rot.T * scale + size * scale / 2)

    s, cell, cut = side / 2, side / 6, 3.0
    r = s - cell
    img = np.zeros((size * scale, size * scale), np.uint8)
    outline = [[-s + cut, -s], [s - cut, -s], [s, -s + cut], [s, s - cut]]
    outline += [[s - cut, s], [-s + cut, s], [-s, s - cut], [-s, -s + cut]]
    cv2.fillPoly(img, [poly(outline)], 255)
    cv2.fillPoly(img, [poly([[-r, -r], [r, -r], [r, r], [-r, r]])], 0)
    cv2.fillPoly(img, [poly([[-r, -r], [0, -r], [0, 0], [-r, 0]])], 255)
    cv2.fillPoly(img, [poly([[-s - 1, -cell], [-r, -cell], [-r, cell], [-s - 1, cell]])], 0)
    small = (cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA) > 127).astype(np.uint8)
    contours, _ = cv2.findContours(small, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    corners = np.array([[-s, -s], [s, -s], [s, s], [-s, s]]) @ rot.T + size / 2 - 0.5
    return max(contours, key=len), corners


@pytest.mark.parametrize(("side", "angle"), [(14.0, 0.0), (14.0, 20.0), (16.0, 45.0)])
def test_a_marker_blob_traced_to_more_corners_gives_its_square(side: float, angle: float) -> None:
    contour, corners = _marker_blob(side, angle)
    # Traced as the reader traces a blob, it is no quadrilateral.
    assert len(cv2.approxPolyDP(contour, 0.04 * len(contour), True)) > 4
    found = dark_squares._rounded_square(contour)
    assert found is not None
    # Each true corner has a corner found within a pixel and a quarter (the contour runs
    # through the outermost pixels' centres, half a pixel in).
    near = np.linalg.norm(corners[:, None] - found[None], axis=2).min(axis=1)
    assert near.max() < 1.25


def test_a_blob_that_is_no_square_gives_none() -> None:
    # An L: its least rectangle is mostly empty.
    img = np.zeros((40, 40), np.uint8)
    img[5:35, 5:12] = 1
    img[28:35, 5:35] = 1
    contours, _ = cv2.findContours(img, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    assert dark_squares._rounded_square(contours[0]) is None


@functools.cache
def _scene() -> tuple[np.ndarray, object]:
    # Hard codes tables, development looks, seed 2, scene 66: pickpic-002 (back) and
    # pickpic-077 (front), 49 and 45 px wide, their markers blurred to rounded blobs.
    return make_scene("codes", "hard", scene_seed(2, 66), "dev")


def test_rounded_squares_are_found_but_name_no_card_alone() -> None:
    frame, truth = _scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    rough: list[np.ndarray] = []
    plain = dark_squares.marker_quads(grey)
    np.testing.assert_array_equal(dark_squares.marker_quads(grey, rough=rough), plain)
    card = next(t for t in truth.cards if t.card_id == "pickpic-002")
    inside = [
        cv2.pointPolygonTest(np.float32(card.corners_px), tuple(map(float, q.mean(axis=0))), False)
        >= 0
        for q in rough[0]
    ]
    assert sum(inside) >= 2  # its two markers
    # Read alone, the frame's sightings are those without the rough squares.
    named = codes.read_sightings(frame, grey, "fast", game="pickpic", unread=[])
    again = codes.read_sightings(frame, grey, "fast", game="pickpic", unread=[], rough=[])
    assert [(s.card, s.side) for s in named] == [(s.card, s.side) for s in again]


def test_cards_whose_markers_are_rounded_blobs_are_named_and_placed_on_their_cards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame, truth = _scene()
    read = named_by_codes(frame)
    truths = {f"{t.card_id}/{t.face}": np.asarray(t.corners_px) for t in truth.cards}
    for name in ("pickpic-002/back", "pickpic-077/front"):
        assert name in read
    for name, corners in read.items():
        assert name in truths  # no wrong id
        assert placement_error(corners, truths[name]) <= PLACE_MAX
    # Without the rounded squares, neither is named.
    monkeypatch.setattr(dark_squares, "_ROUNDED_PX", (999, 999))
    without = named_by_codes(frame)
    assert "pickpic-002/back" not in without and "pickpic-077/front" not in without
