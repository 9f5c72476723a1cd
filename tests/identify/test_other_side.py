"""A card named where its picture has the last word (a lone marker, or markers named by
their likeness) is not reported when its picture agrees better with the card's other side
than with the face named (``code_cards._other_side_agrees``): its codes were misread."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from pictable.bench.drawers import card_room
from pictable.bench.drawers.cards import draw_card_scene
from pictable.bench.readers.identify import kit_art
from vision.identify import code_cards
from vision.identify.identify import identify_frame
from vision.kit import render_face


def _laid(card: str, side: str) -> tuple[np.ndarray, np.ndarray]:
    """A frame with one kit face lying flat, 120 px wide, and its outline (4, 2)."""
    face = render_face(card, side, 8.0)
    h, w = face.shape[:2]
    quad = np.array([[300, 200], [420, 200], [420, 200 + 120 * h / w], [300, 200 + 120 * h / w]])
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    hm = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    frame = np.full((720, 1280, 3), (60, 90, 130), np.uint8)
    warped = cv2.warpPerspective(face, hm, (1280, 720))
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), hm, (1280, 720)) > 127
    frame[mask] = warped[mask]
    return frame, quad.astype(np.float64)


@pytest.mark.parametrize(("lying", "named", "flipped"), [
    (("pickpic-029", "back"), ("pickpic-054", "front"), True),
    (("pickpic-054", "front"), ("pickpic-054", "front"), False),
    (("pickpic-029", "back"), ("pickpic-029", "back"), False),
    (("pickpic-054", "back"), ("pickpic-054", "front"), True),
])  # fmt: skip
def test_a_face_named_where_its_other_side_lies(
    lying: tuple[str, str], named: tuple[str, str], flipped: bool
) -> None:
    frame, quad = _laid(*lying)
    agree = code_cards._face_agreement(frame, quad[None], [named])
    got = code_cards._other_side_agrees(
        frame, quad[None], [SimpleNamespace(card=named[0], side=named[1])], agree
    )
    assert bool(got[0]) is flipped


def test_a_card_backs_markers_misread_as_a_front_name_no_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The second drawer's scene 48, hard camera, development looks (drawn from the looks'
    stream 52, as when it was found): pickpic-029 lies face down in a matt sleeve, 42 px
    wide; its blurred markers pair as pickpic-054's front, and the blurred picture agrees
    with that front (0.42) enough to name it. The back agrees better (0.82)."""
    monkeypatch.setattr(card_room, "LOOKS_STREAM", 52)
    scene = draw_card_scene(48, "codes", "hard", kit_art(), looks="dev")
    assert {(c.card_id, c.face) for c in scene.cards} >= {("pickpic-029", "back")}
    named = {r.card for r in identify_frame(scene.frame, None, codes="fast", game="pickpic").cards}
    assert "pickpic-054" not in named
    assert named <= {c.card_id for c in scene.cards}
    # without the check, the card is named where it does not lie
    monkeypatch.setattr(
        code_cards,
        "_other_side_agrees",
        lambda bgr, poses, cards, agree: np.zeros(len(poses), bool),
    )
    named = {r.card for r in identify_frame(scene.frame, None, codes="fast", game="pickpic").cards}
    assert "pickpic-054" in named
