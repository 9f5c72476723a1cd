"""The keypoint pass (``keypoint_pass._frame_pass``, ``keypoint_pass._by_places``): one ORB
pass over the whole frame places cards by their keypoints; a place whose picture names the
card placed is named before any outline is looked for, with corners fitted on the card's
keypoints there and snapped to its edges; the outlines are then looked for only in what
those cards leave."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.identify.conftest import mixed_scene, table_scene
from vision.identify import (
    ReferenceDeck,
    candidates,
    identify,
    identify_frame,
    keypoint_pass,
    local,
    quads,
)
from vision.identify.candidates import DEFAULT_THRESHOLDS
from vision.identify.keypoint_pass import FramePass, _by_places, _frame_pass, _in_quad, _place_fit
from vision.identify.outlines import card_outlines, match_outlines

FACE_UP = ("pickpic-007", "pickpic-031", "pickpic-066", "pickpic-088", "pickpic-119")


def _grey(frame: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)


def _named_by_places(frame: np.ndarray, deck: ReferenceDeck, frame_pass: FramePass) -> list:
    grey = _grey(frame)
    return _by_places(
        frame, quads.Gradients(grey, whole=True), deck, frame_pass, [], DEFAULT_THRESHOLDS
    )


def test_places_name_the_cards_face_up_where_they_lie(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = table_scene()
    named = _named_by_places(frame, pickpic, _frame_pass(_grey(frame), pickpic))
    assert named and {c.card for c in named} <= set(FACE_UP) | {"pickpic-114", "pickpic-115"}
    for c in named:
        assert c.evidence == ("picture", "keypoints") and c.confidence >= 0.97
        t = truth.card(c.card)
        assert t is not None and t.face == "front"
        if t.visible_fraction > 0.99:  # corners within 3 px of the truth's
            assert np.abs(c.corners - t.corners_px).max() < 3.0, c.card


def test_places_are_matched_as_they_lie_not_grown_by_the_cards_frame(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, _, _ = table_scene()
    asked: list[bool] = []
    match = match_outlines

    def recorded(*args: object, grown: bool = True) -> list:
        asked.append(grown)
        found = match(*args, grown=grown)  # type: ignore[arg-type]
        assert len(found) == (1 if not grown else 2) * len(args[1])  # type: ignore[arg-type]
        return found

    monkeypatch.setattr(keypoint_pass, "match_outlines", recorded)
    assert _named_by_places(frame, pickpic, _frame_pass(_grey(frame), pickpic))
    assert asked == [False]
    assert pickpic.border[0] > 0.01  # (a deck whose outlines are matched grown too)


def test_a_place_whose_picture_is_another_card_names_nothing(pickpic: ReferenceDeck) -> None:
    frame, _, _ = table_scene()
    right = _frame_pass(_grey(frame), pickpic)
    assert _named_by_places(frame, pickpic, right)
    # Every place given to the next card of the deck: no picture there is that card's.
    n = len(pickpic)
    wrong = FramePass(
        right.keypoints,
        [local.Placement((p.card + 1) % n, p.corners, p.inliers) for p in right.places],
    )
    assert _named_by_places(frame, pickpic, wrong) == []


def test_cards_not_in_the_deck_are_not_named_by_their_places(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = mixed_scene()
    named = _named_by_places(frame, pickpic, _frame_pass(_grey(frame), pickpic))
    assert {c.card for c in named} <= {t.card_id for t in truth.cards}
    assert not any(c.card.startswith("picflip") for c in named)


def test_the_outlines_are_looked_for_in_what_the_named_cards_leave(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = _grey(frame)
    named = [truth.card(c).corners_px.astype(np.float64) for c in FACE_UP]
    everywhere = card_outlines(grey, pickpic)
    left = card_outlines(grey, pickpic, cards=named)
    assert len(left) < len(everywhere)

    def on(outline: quads.Outline) -> bool:
        return candidates._overlaps_any(outline.corners_px, named, 0.5)

    assert any(on(o) for o in everywhere) and not any(on(o) for o in left)


def test_a_small_decks_cards_are_not_named_by_places(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deck of a few cards is searched card by card over the whole frame (precise corners).
    frame, _, _ = table_scene()
    faces = {c: pickpic.image(pickpic.ids.index(c)) for c in FACE_UP}
    calls: list[int] = []
    real = _by_places
    monkeypatch.setattr(identify, "_by_places", lambda *a: calls.append(1) or real(*a))
    result = identify_frame(frame, faces, codes=None)
    assert calls == [] and {c.card for c in result.cards} == set(FACE_UP)
    identify_frame(frame, pickpic, codes=None)
    assert calls == [1]


def test_a_places_corners_are_fitted_on_the_cards_keypoints(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = table_scene()
    frame_pass = _frame_pass(_grey(frame), pickpic)
    t = truth.card("pickpic-007")
    card = pickpic.ids.index("pickpic-007")
    rough = t.corners_px.astype(np.float64) + np.array([4.0, -3.0])  # a place a little off
    fitted = _place_fit(frame_pass.keypoints, pickpic, card, rough)
    assert np.abs(fitted - t.corners_px).max() < np.abs(rough - t.corners_px).max()
    # Far from the card (no keypoints of it there), the place's corners stay as they were.
    away = rough + np.array([600.0, 0.0])
    assert np.array_equal(_place_fit(frame_pass.keypoints, pickpic, card, away), away)


def test_in_quad() -> None:
    quad = np.array([[0, 0], [10, 0], [10, 20], [0, 20]], np.float64)
    points = np.array([[5, 5], [10, 10], [11, 5], [-1, 0], [5, 21]], np.float64)
    assert _in_quad(points, quad).tolist() == [True, True, False, False, False]
    assert _in_quad(points, quad[::-1]).tolist() == [True, True, False, False, False]


def test_cards_face_down_are_placed_by_the_pass_and_outlined_no_more(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = _grey(frame)
    backs = keypoint_pass._backs_placed(frame, pickpic, _frame_pass(grey, pickpic), [])
    down = [t for t in truth.cards if t.face == "back"]
    assert len(down) == 2
    for t in down:
        centre = t.corners_px.mean(axis=0)
        assert any(np.linalg.norm(b.mean(axis=0) - centre) < 10 for b in backs), t.card_id
    outlines = card_outlines(grey, pickpic, cards=backs)
    assert not any(candidates._overlaps_any(o.corners_px, backs, 0.5) for o in outlines)
    # Still reported: card-shaped, matching nothing.
    result = identify_frame(frame, pickpic, codes=None)
    for t in down:
        centre = t.corners_px.mean(axis=0)
        assert any(np.linalg.norm(u.center_px - centre) < 10 for u in result.unknown)
