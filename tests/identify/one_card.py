"""The placement tests' frames (tests/identify/test_settled_by_picture.py,
tests/identify/test_placed_by_correlation.py): a card alone on a plain table, drawn directly
(no renderer's looks), whose outline they move off it and expect back; and how far a card of
a development scene is placed from its own by the live reader."""

from __future__ import annotations

import cv2
import numpy as np

from pictable.bench.readers.identify import placement_error
from vision.identify.deck import open_deck
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit import render_face


def card_on_a_table() -> tuple[np.ndarray, np.ndarray]:
    """pickpic-049's front, about 110 px high, turned a little on a plain grey table (BGR
    frame, 480 x 360), and its corners (4, 2) as printed."""
    face = render_face("pickpic-049", "front", 8.0)
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[200, 100], [276, 112], [262, 220], [186, 208]], np.float32)
    homography = cv2.getPerspectiveTransform(src, dst)
    frame = np.full((360, 480, 3), (70, 90, 110), np.uint8)
    warped = cv2.warpPerspective(face, homography, (480, 360), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), homography, (480, 360))
    frame[mask > 127] = warped[mask > 127]
    return frame, dst.astype(np.float64)


def placement_by_pictures(index: int, card: str) -> float:
    """How far (the farthest corner, a share of the card's height) the live reader, by
    pictures alone, places ``card`` from its own in development scene ``index`` (features,
    normal tier, seed 0)."""
    frame, truth = make_scene("features", "normal", scene_seed(0, index), None)
    read = identify_frame(frame, open_deck("pickpic"), codes=None)
    reading = next(r for r in read.cards if r.card == card)
    true = next(t for t in truth.cards if t.card_id == card)
    return placement_error(reading.corners_px, true.corners_px)
