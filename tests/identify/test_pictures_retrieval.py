"""Cards found by their keypoints when appearance does not shortlist them: the deck-wide
keypoint index (``local.KeypointIndex``), verification with retrieval, the spread of a fit's
inliers that a card named this way needs, and the picture agreement a retrieved card needs."""

from __future__ import annotations

import cv2
import numpy as np

from tests.identify.conftest import mixed_scene, table_scene
from vision.identify import ReferenceDeck, local
from vision.identify.verification import (
    RETRIEVED_MIN_AGREE,
    VERIFY_LEAD,
    VERIFY_MIN_INLIERS,
    VerifiedOutline,
    _fit_agreement,
    verify_outline,
)

FACE_UP = ("pickpic-007", "pickpic-031", "pickpic-066", "pickpic-088", "pickpic-119")


def _others(deck: ReferenceDeck, card: str, n: int) -> list[int]:
    return [i for i, cid in enumerate(deck.ids) if cid != card][:n]


def test_index_retrieves_the_card_in_a_window_and_is_the_same_every_build(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    again = local.KeypointIndex(
        [pickpic.table_keypoints(i) for i in range(len(pickpic))],
        local.WINDOW_INDEX_TABLES, local.WINDOW_INDEX_KEY_BITS,
    )  # fmt: skip
    for card in FACE_UP:
        t = truth.card(card)
        assert t is not None
        window, _ = local.window_keypoints(grey, t.corners_px)
        got = pickpic.table_index.retrieve(window, 3)
        assert got and pickpic.ids[got[0]] == card, (card, [pickpic.ids[c] for c in got])
        assert again.retrieve(window, 3) == got


def test_index_of_no_keypoints_retrieves_nothing() -> None:
    empty = local.Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    assert local.KeypointIndex([]).retrieve(empty) == []
    assert local.KeypointIndex([empty, empty]).retrieve(empty) == []


def test_verification_with_retrieval_names_a_card_missing_from_the_shortlist(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    ids = list(pickpic.ids)
    for card in FACE_UP:
        t = truth.card(card)
        assert t is not None
        shortlist = _others(pickpic, card, 5)
        alone = verify_outline(grey, t.corners_px, shortlist, pickpic, VERIFY_MIN_INLIERS)
        assert alone is None or alone.inliers < VERIFY_MIN_INLIERS
        found = verify_outline(
            grey, t.corners_px, shortlist, pickpic, VERIFY_MIN_INLIERS, retrieve=set()
        )
        assert found is not None and ids[found.card] == card
        assert found.inliers - found.second >= VERIFY_LEAD
        # A card already named elsewhere is not retrieved again.
        taken = verify_outline(
            grey, t.corners_px, shortlist, pickpic, VERIFY_MIN_INLIERS, retrieve={ids.index(card)}
        )
        assert taken is None or ids[taken.card] != card


def test_retrieval_names_no_card_that_is_not_in_the_deck(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = mixed_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    foreign = [t for t in truth.cards if t.card_id.startswith("picflip")]
    assert foreign
    for t in foreign:
        found = verify_outline(grey, t.corners_px, [], pickpic, VERIFY_MIN_INLIERS, retrieve=set())
        assert found is None or found.inliers < VERIFY_MIN_INLIERS, (t.card_id, found)


def test_spread_of_a_fit_is_the_share_of_the_face_its_inliers_span(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    t = truth.card("pickpic-007")
    assert t is not None
    whole = verify_outline(grey, t.corners_px, [pickpic.ids.index("pickpic-007")], pickpic)
    assert whole is not None and whole.spread > 0.3
    # Only a corner of the card left in view (the rest painted over): a small spread.
    hidden = grey.copy()
    c = t.corners_px.astype(np.float64)
    keep = np.array([c[0], c[0] + 0.3 * (c[1] - c[0]), c[0] + 0.3 * (c[2] - c[0])])
    mask = np.zeros_like(grey)
    cv2.fillConvexPoly(mask, np.round(c).astype(np.int32), 255)
    cv2.fillConvexPoly(mask, np.round(keep).astype(np.int32), 0)
    hidden[mask > 0] = 128
    corner = verify_outline(hidden, t.corners_px, [pickpic.ids.index("pickpic-007")], pickpic)
    assert corner is None or corner.spread < 0.15


def test_a_retrieved_card_must_agree_by_picture_where_it_is_fitted(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    ids = list(pickpic.ids)
    for card in FACE_UP:
        t = truth.card(card)
        assert t is not None
        found = verify_outline(grey, t.corners_px, [], pickpic, VERIFY_MIN_INLIERS, retrieve=set())
        assert found is not None and ids[found.card] == card
        assert _fit_agreement(frame, found, pickpic) >= RETRIEVED_MIN_AGREE
        # Another card's picture at the same place does not agree.
        other = VerifiedOutline(ids.index("pickpic-002"), found.corners, found.inliers, 0)
        assert _fit_agreement(frame, other, pickpic) < RETRIEVED_MIN_AGREE
