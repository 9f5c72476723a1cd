"""Cards found by the keypoints of the whole frame (``local.place_cards``,
``frame_search._by_frame_search``), the index lookup behind it, the keypoints of faces at smaller
sizes, near-duplicate windows, and the card backs of built-in decks (outlines of cards face
down are not verified by keypoints)."""

from __future__ import annotations

from collections.abc import Callable

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
    leftovers,
    local,
    outlines,
    quads,
    verification,
)
from vision.identify.deck import build_deck
from vision.identify.frame_search import _by_frame_search
from vision.identify.keypoint_pass import _backs_placed, _frame_pass
from vision.identify.outlines import card_outlines, match_outlines
from vision.identify.quads import Outline
from vision.identify.scenes import make_scene, scene_seed
from vision.identify.verification import BACK_MIN_COSINE, _same_place
from vision.synth import Truth, random_cards_scene, render_scene

FACE_UP = ("pickpic-007", "pickpic-031", "pickpic-066", "pickpic-088", "pickpic-119")
FACE_DOWN = ("pickpic-052", "pickpic-101")


def _grey(frame: np.ndarray) -> np.ndarray:
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)


def _searched(frame: np.ndarray, deck: ReferenceDeck, chosen: list) -> list:
    """The search over the whole frame on the frame's keypoint pass."""
    grey = _grey(frame)
    return _by_frame_search(frame, grey, deck, _frame_pass(grey, deck), chosen)


def _near(corners: np.ndarray, truth: np.ndarray, share: float = 0.25) -> bool:
    """Whether two card outlines have their centres within ``share`` of the card's width."""
    width = float(np.linalg.norm(truth[1] - truth[0]))
    return float(np.linalg.norm(corners.mean(axis=0) - truth.mean(axis=0))) < share * width


def _named_at_its_place(frame: np.ndarray, truth: Truth, deck: ReferenceDeck, card: str) -> None:
    """Reads ``frame`` by pictures alone: ``card`` is named where it lies, and no card that is
    not on the table is named."""
    lying = truth.card(card)
    assert lying is not None
    corners = lying.corners_px.astype(np.float64)
    found = identify_frame(frame, deck, codes=None)
    assert any(r.card == card and _near(r.corners_px, corners) for r in found.cards)
    assert {r.card for r in found.cards} <= {c.card_id for c in truth.cards}


def _named_only_with_the_change(
    deck: ReferenceDeck,
    scene: int,
    card: str,
    take_back: Callable[[], object],
    also: tuple[str, ...] = (),
    seed: int = 1,
) -> None:
    """The benchmark's ``scene`` of ``seed`` read by pictures alone: ``card`` (and the cards
    ``also``) named at its place, and ``card`` no longer once ``take_back`` (undoing the
    change that names it) has run."""
    frame, truth = make_scene("features", "normal", scene_seed(seed, scene))
    for named in (*also, card):
        _named_at_its_place(frame, truth, deck, named)
    take_back()
    without = identify_frame(frame, deck, codes=None)
    assert card not in {r.card for r in without.cards}


def _without_places(monkeypatch: pytest.MonkeyPatch) -> None:
    """The keypoint pass names no card by its place: what the later steps find alone (a card
    the pass names first never reaches them)."""
    monkeypatch.setattr(identify, "_by_places", lambda *args: [])


def _named_by_a_later_step(
    deck: ReferenceDeck,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
    scene: int,
    card: str,
    take_back: Callable[[], object],
) -> None:
    """``card`` of the benchmark's ``scene`` of ``seed`` named at its place; with the keypoint
    pass naming nothing (it names the card first now) still named, by the later step that
    ``take_back`` undoes, and no longer once it has run."""
    frame, truth = make_scene("features", "normal", scene_seed(seed, scene))
    _named_at_its_place(frame, truth, deck, card)
    _without_places(monkeypatch)
    _named_only_with_the_change(deck, scene, card, take_back, seed=seed)


def _median_areas(sizes: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The named cards' median area at every point: how outlines were sized before the plane
    through their sizes (``verification._card_areas_at``)."""
    return np.full(len(points), float(np.median(sizes[:, 2] ** 2)))


def _short_side_first(q: np.ndarray) -> np.ndarray:
    q = np.asarray(q, np.float32)
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):
        q = np.roll(q, -1, axis=0)
    return q


def test_nearest_finds_an_indexed_descriptor_itself() -> None:
    rng = np.random.default_rng(4)
    cards = [
        local.Keypoints(
            rng.uniform(0, 100, (40, 2)).astype(np.float32),
            rng.integers(0, 256, (40, 32), dtype=np.uint8),
        )
        for _ in range(3)
    ]
    index = local.KeypointIndex(cards)
    query = local.Keypoints(np.zeros((5, 2), np.float32), cards[1].desc[[3, 7, 11, 20, 39]])
    q, e = index.nearest(query)
    np.testing.assert_array_equal(q, np.arange(5))
    np.testing.assert_array_equal(e, 40 + np.array([3, 7, 11, 20, 39]))
    assert index.retrieve(query) == [1]


def test_smaller_face_keypoints_are_in_the_card_size_pixels(pickpic: ReferenceDeck) -> None:
    w, h = local.VERIFY_CARD_WH
    for i in (0, 57):
        full = pickpic.table_keypoints(i)
        both = pickpic.search_keypoints(i)
        assert len(both) > len(full) and both.size is not None and both.angle is not None
        np.testing.assert_array_equal(both.xy[: len(full)], full.xy)
        assert (both.xy >= -0.5).all() and (both.xy[:, 0] <= w).all() and (both.xy[:, 1] <= h).all()
        # Sizes in card-size pixels: the smaller face's patches count as larger there.
        small = both.size[len(full) :]
        assert small.min() >= 21 / min(local.FRAME_SEARCH_SCALES) - 1e-3


def test_place_cards_places_each_face_up_card_and_a_card_seen_twice(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    grey = _grey(frame)
    ids = pickpic.ids
    placed = local.place_cards(pickpic.frame_index, local.frame_table_keypoints(grey))
    placed = [p for p in placed if p.card < len(ids)]  # not the back (index len(ids))
    for card in FACE_UP:
        t = truth.card(card)
        assert t is not None
        assert any(ids[p.card] == card and _near(p.corners, t.corners_px) for p in placed), card
    # The same frame twice side by side: every card is at two places, placed twice.
    twice = np.ascontiguousarray(np.hstack([grey, grey]))
    placed = local.place_cards(pickpic.frame_index, local.frame_table_keypoints(twice))
    placed = [p for p in placed if p.card < len(ids)]
    shift = np.array([grey.shape[1], 0.0])
    t = truth.card("pickpic-007")
    assert t is not None
    here = [p for p in placed if ids[p.card] == "pickpic-007"]
    assert any(_near(p.corners, t.corners_px) for p in here)
    assert any(_near(p.corners, t.corners_px + shift) for p in here)
    # Excluded cards are not placed.
    placed = local.place_cards(
        pickpic.frame_index, local.frame_table_keypoints(grey), {ids.index("pickpic-007")}
    )
    assert all(p.card >= len(ids) or ids[p.card] != "pickpic-007" for p in placed)


def test_frame_search_names_cards_at_their_places_and_no_foreign_card(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    found = _searched(frame, pickpic, [])
    named = {c.card: c for c in found}
    assert set(FACE_UP) <= set(named)
    for c in found:
        t = truth.card(c.card)
        assert t is not None and t.face == "front" and _near(c.corners, t.corners_px), c.card
        assert c.evidence == ("keypoints",)
    frame, truth, _ = mixed_scene()
    found = _searched(frame, pickpic, [])
    assert found and all(c.card.startswith("pickpic") for c in found)
    for c in found:
        t = truth.card(c.card)
        assert t is not None and _near(c.corners, t.corners_px)


def test_frame_search_runs_when_no_outline_is_left(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every outline taken by the codes (here: none found at all) leaves the cards that have
    # no outline of their own to the keypoint pass (its places named by their pictures) and
    # the search over the whole frame (the places left, each verified in its window).
    monkeypatch.setattr(quads, "find_outlines", lambda *a, **k: [])
    frame, truth, _ = table_scene()
    for places in (True, False):
        if not places:
            _without_places(monkeypatch)
        result = identify_frame(frame, pickpic, codes=None)
        named = {c.card: c for c in result.cards}
        assert set(FACE_UP) <= set(named)
        for card in FACE_UP:
            assert named[card].evidence == (("picture",) if places else ()) + ("keypoints",)
            assert _near(named[card].corners_px, truth.card(card).corners_px)


def test_frame_search_skips_cards_already_named(pickpic: ReferenceDeck) -> None:
    frame, _, _ = table_scene()
    first = _searched(frame, pickpic, [])
    again = _searched(frame, pickpic, first)
    assert first and not {c.card for c in again} & {c.card for c in first}


def test_same_place() -> None:
    q = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64)
    assert _same_place(q, q + 1.0)
    assert not _same_place(q, q + 20.0)
    assert not _same_place(q, q * 1.3)


def test_builtin_deck_knows_its_backs_and_a_registered_one_does_not(
    pickpic: ReferenceDeck,
) -> None:
    assert len(pickpic.back_descriptors) > 0
    frame, truth, _ = table_scene()
    outlines = [
        Outline(_short_side_first(t.corners_px), np.ones(4, np.float32), "silhouette")
        for t in truth.cards
        if t.card_id in FACE_UP + FACE_DOWN
    ]
    faces = [t.face for t in truth.cards if t.card_id in FACE_UP + FACE_DOWN]
    matches = match_outlines(frame, outlines, pickpic)
    for face, o in zip(faces, range(len(outlines)), strict=True):
        back = max(m.back for m in matches if m.outline == o)
        assert (back >= BACK_MIN_COSINE) == (face == "back"), (face, back)
    faces_only = {cid: pickpic.image(i) for i, cid in enumerate(pickpic.ids[:10])}
    registered = build_deck("mine", {k: v for k, v in faces_only.items() if v is not None})
    assert registered.back_descriptors.shape == (0, pickpic.back_descriptors.shape[1])


def test_builtin_deck_places_its_back_and_a_registered_one_has_none(
    pickpic: ReferenceDeck,
) -> None:
    back = pickpic.back_keypoints
    assert back is not None and len(back) > 100
    assert pickpic.frame_index.n_cards == len(pickpic) + 1  # the back after the cards
    faces_only = {cid: pickpic.image(i) for i, cid in enumerate(pickpic.ids[:10])}
    registered = build_deck("mine", {k: v for k, v in faces_only.items() if v is not None})
    assert registered.back_keypoints is None
    assert registered.frame_index.n_cards == len(registered)


def test_frame_search_places_cards_face_down_and_no_face_up_one(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth, _ = table_scene()
    frame_pass = _frame_pass(_grey(frame), pickpic)
    backs = _backs_placed(frame, pickpic, frame_pass, [])
    found = _by_frame_search(frame, _grey(frame), pickpic, frame_pass, [])
    assert set(FACE_UP) <= {c.card for c in found}  # the cards as before
    assert backs
    for place in backs:
        t = min(truth.cards, key=lambda t: np.linalg.norm(t.corners_px.mean(0) - place.mean(0)))
        assert t.card_id in FACE_DOWN and _near(place, t.corners_px), t.card_id


def test_outlines_on_a_card_face_down_are_not_checked_by_keypoints(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth, _ = table_scene()
    down = _short_side_first(truth.card("pickpic-052").corners_px).astype(np.float64)
    # An outline shifted off the card (so its picture is not the back's any more).
    shifted = down + np.array([12.0, 9.0])
    outline = Outline(shifted.astype(np.float32), np.ones(4, np.float32), "lines")
    matches = [m for m in match_outlines(frame, [outline], pickpic) if m.quad is not None]
    checked: list[int] = []
    real = verification.verify_outline

    def counting(*args: object, **kwargs: object) -> object:
        checked.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verification, "verify_outline", counting)
    grey = _grey(frame)
    verification._by_verification(frame, grey, matches, pickpic, [], set(), None, [down])
    assert not checked
    verification._by_verification(frame, grey, matches, pickpic, [], set(), None, [])
    assert checked


def test_a_weak_fit_names_its_card_only_with_its_picture(pickpic: ReferenceDeck) -> None:
    # A small card has few keypoints: 10-14 inliers name it when its picture agrees where the
    # fit puts it; not another card's id there, and not under 10 inliers.
    frame, truth, _ = table_scene()
    card = "pickpic-066"
    corners = truth.card(card).corners_px.astype(np.float64)
    right = pickpic.ids.index(card)
    other = pickpic.ids.index("pickpic-088")

    def fit(index: int, inliers: int) -> verification.VerifiedOutline:
        return verification.VerifiedOutline(index, corners, inliers, 0, 0.3)

    def named(found: verification.VerifiedOutline) -> bool:
        return verification._named_by_fit(frame, found, pickpic, [], None, False)

    assert verification.VERIFY_MIN_INLIERS > 12 >= verification.WEAK_FIT_MIN_INLIERS
    assert named(fit(right, 12))
    assert not named(fit(other, 12))  # its picture is not there
    assert named(fit(other, verification.VERIFY_MIN_INLIERS))  # a full fit: keypoints alone
    assert not named(fit(right, verification.WEAK_FIT_MIN_INLIERS - 1))
    reading = verification._verified_candidate(fit(right, 12), pickpic.ids)
    assert reading.evidence == ("keypoints", "picture")
    assert reading.confidence < verification.verified_confidence(verification.VERIFY_MIN_INLIERS, 0)


def test_a_fit_not_card_shaped_names_its_card_only_with_its_picture(
    pickpic: ReferenceDeck,
) -> None:
    # A far card of a tilted view can look square where the table's perspective is not known
    # well: a full fit names it when its picture agrees where the fit puts it; not another
    # card's id there, and not a weak fit that is not card-shaped either.
    from vision.kit import render_face

    face = render_face("pickpic-063", "front", 2.0)
    h, w = face.shape[:2]
    frame = np.full((300, 400, 3), (40, 30, 120), np.uint8)
    square = np.array([[170, 100], [232, 100], [232, 168], [170, 168]], np.float64)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(src, square.astype(np.float32))
    cv2.warpPerspective(face, m, (400, 300), frame, borderMode=cv2.BORDER_TRANSPARENT)
    right = pickpic.ids.index("pickpic-063")
    other = pickpic.ids.index("pickpic-088")
    aspect = min(pickpic.cards[right].size_wh) / max(pickpic.cards[right].size_wh)
    assert local.plausible_quad(square) and not local.card_shaped(square, aspect)

    def named(index: int, inliers: int) -> bool:
        found = verification.VerifiedOutline(index, square, inliers, 0, 0.3)
        return verification._named_by_fit(frame, found, pickpic, [], None, False)

    assert named(right, verification.VERIFY_MIN_INLIERS)
    assert not named(other, verification.VERIFY_MIN_INLIERS + 10)  # its picture is not there
    assert not named(right, verification.VERIFY_MIN_INLIERS - 1)  # weak and not card-shaped


def test_a_far_card_that_looks_square_is_named(pickpic: ReferenceDeck) -> None:
    # A rendered table of the benchmark (seed 1, scene 174): a card at the far right of a
    # tilted view, its sides 51 and 54 px; its keypoints fit it with 22 inliers.
    frame, truth = make_scene("features", "normal", scene_seed(1, 174))
    card = truth.card("pickpic-063")
    assert card is not None and card.visible_fraction > 0.95
    _named_at_its_place(frame, truth, pickpic, "pickpic-063")


def test_a_fit_that_rho_folds_is_fitted_again(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # RHO can settle on a degenerate homography that folds the card's outline (seen on a
    # rendered table: 25 inliers, where the card's own fit has about 30); with that many
    # inliers the matches are fitted again by RANSAC. Here RHO is made to fold every fit.
    frame, truth, _ = table_scene()
    card = "pickpic-066"
    corners = truth.card(card).corners_px.astype(np.float64)
    window, back = local.window_keypoints(_grey(frame), corners)
    reference = pickpic.table_keypoints(pickpic.ids.index(card))
    ri, fi = local.ratio_matches(reference, window)
    find = cv2.findHomography
    folded = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.01, 0.0, 1.0]])

    def rho_folds(src, dst, method, *args, **kwargs):  # type: ignore[no-untyped-def]
        h, mask = find(src, dst, method, *args, **kwargs)
        if method == cv2.RHO:
            mask = np.zeros_like(mask)
            mask[: local.REFIT_MIN_INLIERS] = 1
            return folded, mask
        return h, mask

    assert not local._card_in_window(folded, np.ones((20, 1), np.uint8))
    monkeypatch.setattr(local.cv2, "findHomography", rho_folds)
    fit = local.fit_matches(reference, window, back, ri, fi, verification.VERIFY_MIN_INLIERS)
    assert fit.homography is not None and fit.inliers >= verification.VERIFY_MIN_INLIERS
    w, h = local.VERIFY_CARD_WH
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2) - 0.5
    fitted = cv2.perspectiveTransform(outline, fit.homography).reshape(4, 2)
    assert _near(fitted, corners)
    # With fewer RHO inliers than a fit needs to name a card, no second fit.
    few = local.REFIT_MIN_INLIERS - 1

    def rho_folds_few(src, dst, method, *args, **kwargs):  # type: ignore[no-untyped-def]
        h, mask = rho_folds(src, dst, method, *args, **kwargs)
        if method == cv2.RHO:
            mask[few:] = 0
        return h, mask

    monkeypatch.setattr(local.cv2, "findHomography", rho_folds_few)
    assert local.fit_matches(reference, window, back, ri, fi).homography is None


def test_a_card_whose_rho_fit_folds_is_named(pickpic: ReferenceDeck) -> None:
    # A rendered table of the benchmark (seed 1, scene 219): the card's place, found by the
    # frame's keypoints, gives 61 matches in its window, and RHO folded their fit.
    frame, truth = make_scene("features", "normal", scene_seed(1, 219))
    _named_at_its_place(frame, truth, pickpic, "pickpic-051")


def test_a_card_fitted_on_other_keypoints_of_the_window_is_no_rival() -> None:
    # The lead of a full fit is counted over the candidates fitted on the same keypoints of
    # the window; a card fitted on others is there too, beside or over this one.
    def fit(inliers: int, keypoints: range) -> local.CardFit:
        return local.CardFit(inliers, inliers, np.eye(3), keypoints=np.array(keypoints))

    best = fit(21, range(21))
    assert verification._rival(fit(20, range(5, 25)), best)
    assert not verification._rival(fit(20, range(40, 60)), best)
    assert not verification._rival(fit(20, range(15, 35)), best)  # 6 of 20 shared
    assert not verification._rival(local.CardFit(0, 12, None), best)


def test_a_card_with_another_lying_on_it_is_named(pickpic: ReferenceDeck) -> None:
    # A rendered table of the benchmark (seed 1, scene 67): pickpic-006 (62% visible) has
    # pickpic-049 lying on its top, itself under an arm; 049's visible corner fits 20 inliers
    # in 006's window, on keypoints other than 006's 21.
    frame, truth = make_scene("features", "normal", scene_seed(1, 67))
    _named_at_its_place(frame, truth, pickpic, "pickpic-006")


def test_a_weak_fit_counts_every_rival(pickpic: ReferenceDeck) -> None:
    # A rendered table of the hard tier (seed 1, scene 22): pickpic-041 fully visible; a card
    # of a like picture (pickpic-040) fits 11 inliers in its window, 041 itself 7, on other
    # keypoints. A weak fit needs its lead over every candidate: no card is named wrongly.
    frame, truth = make_scene("features", "hard", scene_seed(1, 22))
    found = identify_frame(frame, pickpic, codes=None)
    assert "pickpic-040" not in {r.card for r in found.cards}
    assert {r.card for r in found.cards} <= {c.card_id for c in truth.cards}


def test_a_leftover_window_is_a_card_sized_portrait_centred_on_it() -> None:
    # A part of a silhouette 40 x 20 mask px (half size), its long side turned 30 degrees.
    rect = ((100.0, 50.0), (40.0, 20.0), 30.0)
    window = leftovers._card_window(rect, 2.0, 88.0, 0.7)
    sides = np.linalg.norm(np.roll(window, -1, axis=0) - window, axis=1)
    assert np.allclose(sides, [61.6, 88.0, 61.6, 88.0], atol=0.01)  # short side first
    assert np.allclose(window.mean(axis=0), [200.5, 100.5])  # mask -> frame pixels
    long_side = window[2] - window[1]
    angle = np.degrees(np.arctan2(long_side[1], long_side[0])) % 180
    assert abs(angle - 30.0) < 0.01


def test_leftover_windows_lie_on_what_the_named_cards_leave() -> None:
    # Silhouettes (half size) of two cards side by side; the first is named. The window lies
    # on the second, in frame pixels; with both named, nothing is left (and no window).
    mask = np.zeros((200, 300), np.uint8)
    mask[40:110, 50:100] = 255
    mask[40:110, 180:230] = 255
    first = np.array([[99, 79], [199, 79], [199, 219], [99, 219]], np.float64)
    second = first + np.array([260.0, 0.0])
    squares = np.zeros((0, 4, 2))
    (windows,) = leftovers._leftover_windows((mask, 2.0), [first], [], squares, 100 / 140)
    assert np.allclose(np.mean(windows[0], axis=0), second.mean(axis=0), atol=2)
    assert leftovers._leftover_windows((mask, 2.0), [first, second], [], squares, 0.7) == []


def test_a_card_under_a_hand_is_found_in_what_the_named_cards_leave(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark (seed 1, scene 249): pickpic-006 (79% visible) in a
    # hand's shadow, with no place from the frame's keypoints and no outline of a card's size
    # against the named cards' median; the part of the silhouettes the named cards leave holds
    # it. (Against a card's size where it lies, its outline is verified and names it too: that
    # is taken back here with the leftovers.)
    def take_back() -> None:
        monkeypatch.setattr(leftovers, "LEFTOVER_WINDOWS", 0)
        monkeypatch.setattr(verification, "_card_areas_at", _median_areas)

    _named_only_with_the_change(pickpic, 249, "pickpic-006", take_back)


def test_a_leftover_needs_a_full_fit(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A leftover is often bare table: on a rendered wooden table (seed 0, scene 127) a card
    # of a wood-like picture fitted 12 inliers on a plank, its picture agreeing there. A weak
    # fit in a leftover's window names nothing; a full one names its card.
    frame, truth, _ = table_scene()
    grey = _grey(frame)
    card = "pickpic-066"
    corners = truth.card(card).corners_px.astype(np.float64)
    others = [
        c.corners_px.astype(np.float64)
        for c in truth.cards
        if c.card_id != card and c.visible_fraction > 0.6
    ]
    index = pickpic.ids.index(card)

    def fitting(inliers: int) -> list[str]:
        def verify(*args: object, **kwargs: object) -> verification.VerifiedOutline:
            return verification.VerifiedOutline(index, corners, inliers, 0, 0.3)

        monkeypatch.setattr(leftovers, "verify_outline", verify)
        found = leftovers._by_leftovers(
            frame, grey, pickpic, [], others, quads.silhouettes(grey), np.zeros((0, 4, 2)), []
        )
        return [c.card for c in found]

    assert fitting(verification.VERIFY_MIN_INLIERS) == [card]
    assert fitting(verification.VERIFY_MIN_INLIERS - 3) == []


def test_a_leftovers_weak_fit_is_fitted_again_round_the_card_it_puts(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark's (seed 2, scene 180): pickpic-116, fully visible
    # and 54 px wide, its light lower half merged with the table; the leftover's window is
    # centred on its upper half and fits it by 14 inliers, a window round where that fit puts
    # the card by 21.
    _named_by_a_later_step(
        pickpic, monkeypatch, 2, 180, "pickpic-116",
        lambda: monkeypatch.setattr(leftovers, "LEFTOVER_REFIT_MIN_INLIERS", 10**6),
    )  # fmt: skip


def test_a_leftovers_fit_again_needs_a_strong_fit(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark's Pic Flip scenes (seed 1, scene 13): pickpic-017, of
    # a wood-like picture, fitted 11 inliers on the table's planks beside a Pic Flip card, 15
    # once re-centred, its picture agreeing there. No Pick Pic card lies there.
    frame, truth = make_scene("unknown", "normal", scene_seed(1, 13))
    found = identify_frame(frame, pickpic, codes=None)
    assert {r.card for r in found.cards} <= {c.card_id for c in truth.cards}
    _without_places(monkeypatch)  # (the leftovers the keypoint pass leaves are other ones)
    found = identify_frame(frame, pickpic, codes=None)
    assert {r.card for r in found.cards} <= {c.card_id for c in truth.cards}
    monkeypatch.setattr(leftovers, "LEFTOVER_REFIT_MIN_INLIERS", verification.VERIFY_MIN_INLIERS)
    weaker = identify_frame(frame, pickpic, codes=None)
    assert "pickpic-017" in {r.card for r in weaker.cards}


def test_an_outline_is_sized_against_the_cards_named_where_it_lies(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark's (seed 2, scene 190), a tilted camera: pickpic-047,
    # fully visible at the far side, 0.5 of the median named card's area. Against that median
    # its outline was too small to verify; against the plane through the named cards' sizes
    # it is a card there.
    _named_by_a_later_step(
        pickpic, monkeypatch, 2, 190, "pickpic-047",
        lambda: monkeypatch.setattr(verification, "_card_areas_at", _median_areas),
    )  # fmt: skip


def test_a_cards_area_where_it_lies_follows_the_plane_of_the_named_cards() -> None:
    # Cards 60 px (area 3600) at the top of the frame, 100 px (10000) at the bottom.
    sizes = np.array([[100.0, 100.0, 60.0], [900.0, 100.0, 60.0], [500.0, 600.0, 100.0]])
    points = np.array([[500.0, 100.0], [500.0, 350.0], [500.0, -500.0]])
    assert verification._card_areas_at(sizes, points) == pytest.approx([3600.0, 6400.0, 3600.0])
    # Two cards tell no plane: their median area.
    assert verification._card_areas_at(sizes[:2], points[:1]) == pytest.approx([3600.0])


def test_a_leftover_is_tried_at_a_cards_height_where_it_lies(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark's (seed 0, scene 265), a tilted camera: pickpic-102
    # (75% visible) at the far side, its long side 74 px where the named cards' median is 89.
    # The leftover's window of the median height fits nothing; one of the height the named
    # cards give there fits it by 21 inliers.
    _named_by_a_later_step(
        pickpic, monkeypatch, 0, 265, "pickpic-102",
        lambda: monkeypatch.setattr(leftovers, "LEFTOVER_OTHER_HEIGHT", float("inf")),
    )  # fmt: skip


def test_what_is_left_is_looked_at_again_after_a_card_is_named_there(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark (seed 1, scene 108): two small cards side by side
    # (51-54 px), one leftover; its window names one, the second look the other.
    _named_only_with_the_change(
        pickpic, 108, "pickpic-062",
        lambda: monkeypatch.setattr(leftovers, "LEFTOVER_ROUNDS", 1), also=("pickpic-065",),
    )  # fmt: skip


def test_a_small_card_is_retrieved_by_the_windows_own_index(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark (seed 1, scene 287): pickpic-094 (62% visible, 64 px
    # wide) beside an arm; appearance does not shortlist it in the window round its outline
    # and, keyed as the frame search's index is (4 tables of 20 bits), its keypoints gave it 4
    # votes, 7 cards ahead.
    cards = [pickpic.table_keypoints(i) for i in range(len(pickpic))]
    keyed_as_the_frame_search = local.KeypointIndex(cards)
    _named_only_with_the_change(
        pickpic, 287, "pickpic-094",
        lambda: monkeypatch.setitem(pickpic.__dict__, "table_index", keyed_as_the_frame_search),
    )  # fmt: skip


def test_a_card_retrieved_second_is_fitted(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark (seed 1, scene 149): pickpic-032 (80% visible, 62 px
    # wide) under a sleeve; its window's keypoints give it the second most votes of the deck.
    # (A tile of the sleeve now outlines the card too: without tiles, the second card
    # retrieved is what names it.)
    monkeypatch.setattr(quads, "_TILED_FROM", float("inf"))
    _without_places(monkeypatch)  # (the keypoint pass names it by its place now)
    _named_only_with_the_change(
        pickpic, 149, "pickpic-032", lambda: monkeypatch.setattr(local, "RETRIEVE_CARDS", 1)
    )


def test_outlines_on_an_outline_that_looks_face_down_are_not_verified(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The benchmark's seventh speed frame (seed 7, 12 cards, 3 face down on a wooden table):
    # the backs' own outlines look face down, and rectangles of their pattern are outlines
    # too; the frame search places none of these backs. Verified before the outlines that look
    # face down were known as backs, 6 of the frame's 9 verification windows lay on them
    # (none named a card); now 3 windows, none on a back.
    rng = np.random.default_rng(7 * 1000 + 7)
    frame, truth = render_scene(random_cards_scene(rng, "normal", 12, "pickpic"), seed=7007)
    seen: list[outlines.PictureMatch] = []
    verified: list[np.ndarray] = []
    real_match, real_verify, real_verification = (
        outlines.match_outlines, verification.verify_outline, verification._by_verification,
    )  # fmt: skip
    verifying = [False]

    def matching(*args: object, **kwargs: object) -> list[outlines.PictureMatch]:
        seen.extend(real_match(*args, **kwargs))  # type: ignore[arg-type]
        return seen

    def verify(grey: np.ndarray, quad: np.ndarray, *args: object, **kwargs: object) -> object:
        if verifying[0]:
            verified.append(np.asarray(quad))
        return real_verify(grey, quad, *args, **kwargs)  # type: ignore[arg-type]

    def by_verification(*args: object, **kwargs: object) -> object:
        verifying[0] = True
        try:
            return real_verification(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            verifying[0] = False

    monkeypatch.setattr(identify, "match_outlines", matching)
    monkeypatch.setattr(keypoint_pass, "match_outlines", matching)
    monkeypatch.setattr(verification, "verify_outline", verify)
    monkeypatch.setattr(identify, "_by_verification", by_verification)
    found = identify_frame(frame, pickpic, codes=None)
    down = [c for c in truth.cards if c.face != "front"]
    looks_down = [m.quad for m in seen if m.quad is not None and verification._looks_face_down(m)]
    assert len(down) == 3 and looks_down
    assert all(any(_near(q, c.corners_px, 0.15) for c in down) for q in looks_down)
    on_back = verification.ON_BACK
    on_backs = [q for q in verified if candidates._overlaps_any(q, looks_down, on_back)]
    assert not on_backs
    assert {r.card for r in found.cards} <= {c.card_id for c in truth.cards if c.face == "front"}


def test_a_card_an_arm_touches_is_outlined_in_a_tile_of_the_arm(
    pickpic: ReferenceDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered table of the benchmark (seed 1, scene 146): pickpic-020 (64% visible) under
    # a hand; the arm and the card are one silhouette, and the arm's long edges took every
    # line of it. A tile of the arm gives the card's outline.
    _named_only_with_the_change(
        pickpic, 146, "pickpic-020",
        lambda: monkeypatch.setattr(quads, "_TILED_FROM", float("inf")),
    )  # fmt: skip


def test_a_tiles_outline_is_not_named_by_a_weak_fit(pickpic: ReferenceDeck) -> None:
    # A rendered table of the benchmark (seed 1, scene 192): a grey woven sleeve cut by the
    # frame's edge gives tiles' outlines; one fitted pickpic-107 by 10 inliers, its picture
    # agreeing enough for a weak fit. Two cards lie on the table.
    frame, truth = make_scene("features", "normal", scene_seed(1, 192))
    outlines = card_outlines(_grey(frame), pickpic)
    assert any(o.source == "tiles" for o in outlines)
    found = identify_frame(frame, pickpic, codes=None)
    assert {r.card for r in found.cards} == {c.card_id for c in truth.cards}


def test_tiles_cover_a_long_cluster_and_a_short_one_has_none() -> None:
    assert quads._tiles((0, 0, 200, 150), 80.0) == []  # under 3 card heights long
    assert quads._tiles((0, 0, 1280, 720), 2.0) == []  # no card is 2 px high
    box = (10, 20, 500, 230)
    tiles = quads._tiles(box, 80.0)
    assert tiles and all(t[2] - t[0] <= 160 and t[3] - t[1] <= 160 for t in tiles)
    covered = np.zeros((250, 520), bool)
    for x0, y0, x1, y1 in tiles:
        assert box[0] <= x0 < x1 <= box[2] and box[1] <= y0 < y1 <= box[3]
        covered[y0:y1, x0:x1] = True
    assert covered[box[1] : box[3], box[0] : box[2]].all()
