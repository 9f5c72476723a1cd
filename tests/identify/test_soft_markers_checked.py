"""Cards named by markers read by their likeness alone (soft markers), checked further
(issue 26: no wrong card): not reported where the picture agrees better with the card's
other side than with the face named (``code_cards._other_side_agrees``: the markers were
misread), and, named by one such marker alone, placed only where the outline is seen round
the card. Both failures were found under development looks (``card_room.CARD_LOOKS``)."""

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


def test_a_square_named_alone_is_placed_only_where_its_outline_is_seen() -> None:
    """The second drawer's scene 500069 (seed 5, scene 54), hard camera, development looks:
    pickpic-037 lies under an arm, its one marker in view named by its likeness alone, its
    other marker too blurred to see. The pose the other way, on a pale table by another
    card's edge, agrees better with its picture (0.50 against 0.22) and its edges (0.42
    against 0.30), but its outline is seen on one side only: no card is placed there."""
    scene = draw_card_scene(500069, "codes", "hard", kit_art(), looks="dev")
    truth = {c.card_id: c for c in scene.cards}
    assert "pickpic-037" in truth

    def off_their_cards(cards: object) -> list[str]:
        out = []
        for r in cards:  # type: ignore[attr-defined]
            t = truth.get(r.card)
            far = t is None or np.linalg.norm(
                r.corners_px.mean(0) - t.corners_px.mean(0)
            ) > 0.5 * np.linalg.norm(t.corners_px[1] - t.corners_px[0])
            if far:
                out.append(r.card)
        return out

    read = identify_frame(scene.frame, None, codes="fast", game="pickpic")
    assert off_their_cards(read.cards) == []
    with pytest.MonkeyPatch.context() as m:  # without the rule, it is named 70 px off
        m.setattr(code_cards, "_framed", lambda support: True)
        # The picture round the marker also leaves the choice open here (the true pose's
        # cells there agree 0.57, the other's 0.43): switched off too.
        m.setattr(code_cards, "NEAR_MARKER_WEIGHT", 0.0)
        read = identify_frame(scene.frame, None, codes="fast", game="pickpic")
    assert off_their_cards(read.cards) == ["pickpic-037"]
