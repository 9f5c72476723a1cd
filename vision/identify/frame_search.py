"""The search over the whole frame (step 2 of :func:`vision.identify.identify_frame`).

Each place of the keypoint pass away from the cards already named is verified as an
undecided outline is (``_by_frame_search``): this finds cards with no outline of their own
(touching cards merged into one region)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import local
from vision.identify.candidates import _Candidate, _overlaps_any
from vision.identify.deck import ReferenceDeck
from vision.identify.keypoint_pass import FramePass
from vision.identify.verification import (
    VERIFY_MIN_INLIERS,
    _named_by_fit,
    _shortlists,
    _table_perspective,
    _verified_candidate,
    verify_outline,
)


def _by_frame_search(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    deck: ReferenceDeck,
    frame_pass: FramePass,
    chosen: list[_Candidate],
    taken: Sequence[NDArray[np.float64]] = (),
    squares: NDArray[np.float64] | None = None,
) -> list[_Candidate]:
    """Cards found by the keypoints of the whole frame outside the cards already named
    (``chosen``, and the (4, 2) outlines ``taken`` of cards named by their codes; ``squares``
    (k, 4, 2) the table's markers, for its perspective): each card the keypoint pass
    (``frame_pass``) places away from them, by at least
    :data:`local.FRAME_SEARCH_MIN_INLIERS` inliers outside them (the deck's back aside), is
    verified in the window round that place as an undecided outline is (against the cards
    its appearance there shortlists too), and its picture must agree where the fit puts it
    (:data:`RETRIEVED_MIN_AGREE`). Finds cards that have no outline of their own."""
    ids = deck.ids
    names = {r.card for r in chosen}
    used = {i for i, c in enumerate(ids) if c in names}
    named = [c.corners for c in chosen] + list(taken)
    back = deck.frame_back
    mask = np.zeros(grey.shape, np.uint8)
    for corners in named:
        cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 255)
    placed = [
        p
        for p in frame_pass.places
        if p.card not in used
        and p.card != back
        and not _overlaps_any(p.corners, named, 0.4)
        and _outside(p.points, mask) >= local.FRAME_SEARCH_MIN_INLIERS
    ]
    if not placed:
        return []
    shortlists = _shortlists(bgr, np.stack([p.corners for p in placed]), deck)
    out: list[_Candidate] = []
    for p, shortlist in zip(placed, shortlists, strict=True):
        if p.card in used or _overlaps_any(p.corners, [c.corners for c in out], 0.4):
            continue
        candidates = [p.card, *(c for c in shortlist if c not in used and c != p.card)]
        around = [*named, *(c.corners for c in out)]
        table = _table_perspective(around, deck, squares)
        found = verify_outline(grey, p.corners, candidates, deck, VERIFY_MIN_INLIERS, used, table)
        if found is None or not _named_by_fit(bgr, found, deck, around, table, True):
            continue
        used.add(found.card)
        out.append(_verified_candidate(found, ids))
    return out


def _outside(points: NDArray[np.float32], mask: NDArray[np.uint8]) -> int:
    """How many of (n, 2) frame ``points`` lie where (H, W) uint8 ``mask`` is 0 (points off
    the frame count as outside)."""
    h, w = mask.shape
    xy = np.round(points).astype(np.intp).reshape(-1, 2)
    inside = (xy[:, 0] >= 0) & (xy[:, 0] < w) & (xy[:, 1] >= 0) & (xy[:, 1] < h)
    hit = np.zeros(len(xy), bool)
    hit[inside] = mask[xy[inside, 1], xy[inside, 0]] > 0
    return int((~hit).sum())
