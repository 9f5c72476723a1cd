"""The keypoint pass (step 2 of :func:`vision.identify.identify_frame`, first).

ORB keypoints of the whole frame, found once (``_frame_pass``), place cards by where their
votes gather (:func:`vision.identify.local.place_cards`); a place whose picture names the
card placed is named there, its corners fitted on the card's keypoints round it
(``_by_places``). The places of the deck's back are cards face down (``_backs_placed``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import local, quads
from vision.identify.candidates import Thresholds, _area, _Candidate, _overlaps_any
from vision.identify.deck import ReferenceDeck
from vision.identify.outlines import match_outlines
from vision.identify.verification import _backs_seen

#: The keypoint pass (:func:`_by_places`). A place's corners by a homography through its
#: inliers (at least PLACE_HOMOGRAPHY_MIN_POINTS, RANSAC threshold PLACE_HOMOGRAPHY_PX frame
#: px) when it is within PLACE_HOMOGRAPHY_MOVE of the card's side of the similarity's corners
#: (:func:`_place_corners`).
PLACE_HOMOGRAPHY_MIN_POINTS = 8
PLACE_HOMOGRAPHY_PX = 3.0
PLACE_HOMOGRAPHY_MOVE = 0.2
#: Each place snapped to the card's edges within PLACE_SNAP_PX (PLACE_SNAP_ITERATIONS
#: rounds: :func:`vision.identify.quads.refine_quads`) before its picture is matched; within
#: 10 px, the corners were better but seeds 0 and the hard tier lost 2 cards each.
PLACE_SNAP_PX = 4.0
PLACE_SNAP_ITERATIONS = 2
#: A place named: its corners fitted again on the frame's keypoints round it matched to the
#: card's (:func:`_place_fit`: at least PLACE_FIT_MIN_INLIERS inliers, RHO threshold
#: PLACE_FIT_PX, no corner moved more than PLACE_FIT_MOVE of the card's side), then snapped.
#: Seed 1, 100 tables, cards named by places: 23 of 523 off by more than 5% of the card's
#: height without that fit 45; the keypoints of the place alone (no ratio test) 37.
PLACE_FIT_MIN_INLIERS = 10
PLACE_FIT_PX = 3.0
PLACE_FIT_MOVE = 0.15


@dataclass(frozen=True, eq=False)
class FramePass:
    """The keypoint pass over a whole frame (:func:`_frame_pass`): its ORB ``keypoints``
    (:func:`vision.identify.local.frame_table_keypoints`, nothing masked) and the cards they
    place (:func:`vision.identify.local.place_cards`, most inliers first)."""

    keypoints: local.Keypoints
    places: list[local.Placement]


def _frame_pass(grey: NDArray[np.uint8], deck: ReferenceDeck) -> FramePass:
    """The keypoints of the whole grey frame and the cards of ``deck`` (its back included,
    when known) they place."""
    keypoints = local.frame_table_keypoints(grey)
    places = local.place_cards(deck.frame_index, keypoints, many=deck.frame_back)
    return FramePass(keypoints, places)


def _place_corners(p: local.Placement) -> NDArray[np.float64]:
    """(4, 2) the portrait face's corners of a place: by a homography through its inliers
    (RANSAC, :data:`PLACE_HOMOGRAPHY_PX`) when that is a plausible quadrilateral within
    :data:`PLACE_HOMOGRAPHY_MOVE` of the card's side of the place's similarity, else the
    similarity's (a place's votes often cover part of the card only)."""
    if len(p.points) < PLACE_HOMOGRAPHY_MIN_POINTS:
        return p.corners
    h, _ = cv2.findHomography(p.reference, p.points, cv2.RANSAC, PLACE_HOMOGRAPHY_PX)
    if h is None:
        return p.corners
    return _fitted_or(local.face_corners(h), p.corners, PLACE_HOMOGRAPHY_MOVE)


def _fitted_or(
    fitted: NDArray[np.float64], corners: NDArray[np.float64], move: float
) -> NDArray[np.float64]:
    """``fitted`` (4, 2) when it is a plausible quadrilateral whose corners are each within
    ``move`` of the card's side (the square root of its area) of ``corners`` (4, 2), else
    ``corners``."""
    side = np.sqrt(_area(corners))
    if local.plausible_quad(fitted) and np.abs(fitted - corners).max() < move * side:
        return fitted
    return corners


def _by_places(
    bgr: NDArray[np.uint8],
    grads: quads.Gradients,
    deck: ReferenceDeck,
    frame_pass: FramePass,
    taken: Sequence[NDArray[np.float64]],
    t: Thresholds,
) -> list[_Candidate]:
    """The cards the keypoint pass names before any outline is looked for. Each place
    (most inliers first; none on a card named by its codes, ``taken``) is snapped to the
    card's edges and matched by appearance as an outline is: named when its likest card, at
    probability ``t.accept``, is the card placed (another card, or an unsure match: left to
    the outlines and the search after them). Each card id and place once."""
    ids = deck.ids
    back = deck.frame_back
    places = [
        p for p in frame_pass.places if p.card != back and not _overlaps_any(p.corners, taken, 0.4)
    ]
    if not places:
        return []
    corners = [_place_corners(p) for p in places]
    outlines = _snapped_outlines(grads, corners, PLACE_SNAP_PX, PLACE_SNAP_ITERATIONS)
    # Not grown by the card's frame: a place lies on the card's outer edges (its keypoints
    # span the picture, and the snap looks outwards first). On the 8 validation sets the
    # same cards, one more on the hard tier, at 0.98 x the time.
    likest = {m.outline: m for m in match_outlines(bgr, outlines, deck, grown=False)}
    chosen: list[_Candidate] = []
    for i, p in enumerate(places):
        m = likest.get(i)
        if m is None or m.probability < t.accept or m.card != ids[p.card]:
            continue
        if any(c.card == m.card for c in chosen):
            continue
        if _overlaps_any(m.corners, [*taken, *(c.corners for c in chosen)], 0.4):
            continue
        evidence = ("picture", "keypoints")
        found = _place_fit(frame_pass.keypoints, deck, p.card, m.corners)
        chosen.append(_Candidate(m.card, found, m.probability, "features", "front", evidence))
    if chosen:
        # The fit's corners snapped to the card's edges (keypoints lie a pixel or two off).
        gx, gy = grads
        edges, _ = quads.refine_quads(gx, gy, np.stack([c.corners for c in chosen]), PLACE_SNAP_PX)
        chosen = [replace(c, corners=q) for c, q in zip(chosen, edges, strict=True)]
    return chosen


def _snapped_outlines(
    grads: quads.Gradients,
    places: Sequence[NDArray[np.float64]],
    radius: float = 4.0,
    iterations: int = 2,
) -> list[quads.Outline]:
    """(4, 2) ``places`` snapped to the card's edges within ``radius`` px
    (:func:`vision.identify.quads.refine_quads`, ``iterations`` rounds), as outlines (with
    their sides' support)."""
    if not places:
        return []
    gx, gy = grads
    snapped, support = quads.refine_quads(gx, gy, np.stack(places), radius, 16, iterations)
    return [
        quads.Outline(q.astype(np.float32), s.astype(np.float32), "place")
        for q, s in zip(snapped, support, strict=True)
    ]


def _backs_placed(
    bgr: NDArray[np.uint8],
    deck: ReferenceDeck,
    frame_pass: FramePass,
    named: Sequence[NDArray[np.float64]],
) -> list[NDArray[np.float64]]:
    """The (4, 2) places of cards face down: where the keypoint pass places the deck's back
    (when it is known), away from the cards ``named``, and it looks like the back there."""
    face_down = [
        p.corners
        for p in frame_pass.places
        if p.card == deck.frame_back and not _overlaps_any(p.corners, named, 0.4)
    ]
    return _backs_seen(bgr, face_down, deck) if face_down else []


def _in_quad(points: NDArray[np.floating], quad: NDArray[np.floating]) -> NDArray[np.bool_]:
    """(n,) whether each of (n, 2) ``points`` lies in the convex (4, 2) ``quad`` (either
    winding; on a side counts as in)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    side = q[[1, 2, 3, 0]] - q  # (4, 2)
    rel = pts[:, None, :] - q[None]  # (n, 4, 2)
    cross = side[None, :, 0] * rel[..., 1] - side[None, :, 1] * rel[..., 0]
    return np.asarray((cross >= 0).all(axis=1) | (cross <= 0).all(axis=1))


def keypoints_round(keypoints: local.Keypoints, corners: NDArray[np.float64]) -> local.Keypoints:
    """The frame's ``keypoints`` within a card's (4, 2) ``corners`` grown by
    :data:`vision.identify.local.VERIFY_GROW` of its size on every side."""
    centre = corners.mean(axis=0)
    grown = centre + (1 + 2 * local.VERIFY_GROW) * (corners - centre)
    lo, hi = grown.min(axis=0), grown.max(axis=0)
    near = np.flatnonzero(((keypoints.xy >= lo) & (keypoints.xy <= hi)).all(axis=1))
    inside = near[_in_quad(keypoints.xy[near], grown)]
    return local.Keypoints(keypoints.xy[inside], keypoints.desc[inside])


def _place_fit(
    keypoints: local.Keypoints, deck: ReferenceDeck, card: int, corners: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The corners (4, 2, as printed) of card ``card`` named at a place with ``corners`` (as
    printed), from a homography (RHO, :data:`PLACE_FIT_PX`) through the frame's
    ``keypoints`` round those corners matched to the card's
    (:meth:`ReferenceDeck.search_keypoints`, ratio test): the keypoints of the whole card,
    not only those the place gathered; ``corners`` when the fit has under
    :data:`PLACE_FIT_MIN_INLIERS` inliers or moves a corner more than
    :data:`PLACE_FIT_MOVE` of the card's side."""
    window = keypoints_round(keypoints, corners)
    if len(window) < PLACE_FIT_MIN_INLIERS:
        return corners
    reference = deck.search_keypoints(card)
    ri, fi = local.ratio_matches(reference, window)
    if len(ri) < PLACE_FIT_MIN_INLIERS:
        return corners
    h, mask = cv2.findHomography(reference.xy[ri], window.xy[fi], cv2.RHO, PLACE_FIT_PX)
    if h is None or mask is None or int(mask.sum()) < PLACE_FIT_MIN_INLIERS:
        return corners
    fitted = local.face_corners(h)
    if deck.cards[card].turned:
        fitted = np.roll(fitted, -1, axis=0)  # portrait order -> the landscape face's
    return _fitted_or(fitted, corners, PLACE_FIT_MOVE)
