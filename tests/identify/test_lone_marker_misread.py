"""A card named by one marker alone whose square, as blur shows it, looks more like another
card's marker than like its own is not reported (issue 26: no wrong card;
``code_cards._misread``, ``MISREAD_LEAD``): a small blurred marker read bit for bit can read
a cell wrong into another card's marker. Found under held-back looks (the project's hard
tier, seed 1 scene 15: pickpic-068, 35 px wide, named pickpic-064 at 0.94)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.identify import code_cards
from vision.identify.codes import sighting, vote
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit.codes import marker_bits, marker_id


def _blurred_marker(
    card: str, side: str, cell_px: float, blur: float
) -> tuple[np.ndarray, np.ndarray]:
    """A grey frame with ``card``'s marker of ``side`` drawn at ``cell_px`` a cell, turned
    20 degrees and blurred by ``blur`` px; and its corners (4, 2) clockwise from the top left."""
    cells = np.pad(1 - marker_bits(marker_id(card, side)), 2, constant_values=1)  # on its pad
    up = 16  # drawn at 16 px a cell, then mapped down
    tile = np.kron(cells, np.ones((up, up), np.uint8)) * 255
    n = cells.shape[0]
    c, s = np.cos(np.radians(20)), np.sin(np.radians(20))
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64) * cell_px * n
    turned = unit @ np.array([[c, s], [-s, c]]) + (200, 150)
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32) * up
    hm = cv2.getPerspectiveTransform(src, turned.astype(np.float32))
    frame = cv2.warpPerspective(tile, hm, (400, 300), borderValue=(200,))
    frame = cv2.GaussianBlur(frame, (0, 0), blur)
    inner = np.array([[2, 2], [n - 2, 2], [n - 2, n - 2], [2, n - 2]], np.float32) * up
    corners = cv2.perspectiveTransform(inner[None], hm)[0]
    return frame, corners


@pytest.mark.parametrize(("named", "misread"), [("pickpic-064", True), ("pickpic-068", False)])
def test_a_square_like_another_cards_marker_is_a_misread(named: str, misread: bool) -> None:
    grey, corners = _blurred_marker("pickpic-068", "front", 2.2, 1.2)
    card = vote([sighting("marker", named, "front", corners)])
    assert len(card) == 1
    assert (code_cards._misread(grey, card, [0]) == {0}) is misread


def test_a_lone_marker_misread_names_no_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """The held-back scene where it was found: pickpic-068 lies in full view, 35 px wide; one
    of its markers reads bit for bit as pickpic-064's."""
    frame, truth = make_scene("codes", "hard", scene_seed(1, 15), "held")
    lying = {c.card_id for c in truth.cards}
    assert "pickpic-068" in lying and "pickpic-064" not in lying
    named = {r.card for r in identify_frame(frame, None, codes="fast", game="pickpic").cards}
    assert "pickpic-064" not in named
    assert named <= lying
    monkeypatch.setattr(code_cards, "MISREAD_LEAD", 9.0)  # never a misread
    named = {r.card for r in identify_frame(frame, None, codes="fast", game="pickpic").cards}
    assert "pickpic-064" in named
