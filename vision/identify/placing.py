"""A card named by its picture, placed again on an outline of its own where its picture agrees
better there (issue 26: a reported outline lies on its card).

A card the pictures name is placed by a keypoint fit, snapped to edges, or by the outline it
was matched on. Either can lie a tenth of the card off while every side of it lies on an
edge: the edge of a touching card, of the picture's own frame, of a hand. What tells the
right place from such a one is the card's picture: rectified from the right outline it
agrees with the card's reference cell for cell, from an outline a tenth off it agrees less.

So each card named by its picture whose picture agrees less than :data:`CHECK_BELOW` with
its reference where it is placed has its outlines looked for in the silhouettes round it
(:func:`vision.identify.quads.find_outlines`, told the card's size by the cards named);
an outline on the same place (:data:`SAME_PLACE`), seen as an edge on every side
(:data:`SIDE_SUPPORT`), that moves a corner by more than :data:`MOVE_MIN` of the card's
height and where the picture agrees at least :data:`GAIN` more, places the card instead.

Chosen on development sets (pictures alone, normal and hard tiers, both drawers, default
and development looks; codes and pictures on the hard tier), read with ``precise=True``:
cards named right but placed a corner more than 10% of their height off went 68 -> 52 of
2,011, none placed off that was not, the names unchanged; two readings already off moved
further (21 -> 25% and 13 -> 34% of their height). The search costs 4-6 ms a frame on the
12-card speed frames, which would take reading by pictures past its 60 ms: run for photos
(``identify_frame(precise=True)``, ``pictable identify``), not by the live reader.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, quads
from vision.identify.candidates import _Candidate
from vision.identify.deck import ReferenceDeck

#: A card named by its picture whose picture agrees less than this (the share of cells,
#: :func:`vision.identify.appearance.agreement`) where it is placed is checked. In a study
#: of 5 of the development sets (pictures alone, 1,576 readings named right, 61 placed off),
#: 40% of the readings and 58 of the 61 placed off.
CHECK_BELOW = 0.85
#: The silhouettes within this share of the card's height round it are searched.
GROW = 0.25
#: An outline on the same place: intersection over union with the reading's at least this.
SAME_PLACE = 0.6
#: Each of its sides seen as an edge on at least this share of it.
SIDE_SUPPORT = 0.5
#: A corner moved by more than this share of the card's height (else it is the same place).
MOVE_MIN = 0.05
#: Taken where the picture agrees at least this much more than where the card was placed:
#: in that study (the outlines found over the whole frame), 0.06 fixed 13 of the 61 placed
#: off and placed none off that was not; 0.03 fixed 16 and placed one off.
GAIN = 0.06


def placed_by_outlines(
    readings: list[_Candidate],
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    grads: quads.Gradients,
    regions: tuple[NDArray[np.uint8], float],
    deck: ReferenceDeck,
) -> list[_Candidate]:
    """``readings`` with each card named by its picture (method features, a card of
    ``deck``) placed again on an outline of its own where its picture agrees better there
    (see the module docstring). ``regions``: :func:`vision.identify.quads.silhouettes` of
    ``grey``."""
    index = {card: i for i, card in enumerate(deck.ids)}
    mine = [k for k, r in enumerate(readings) if r.method == "features" and r.card in index]
    if not mine:
        return readings
    cards = np.array([index[readings[k].card] for k in mine])
    placed = np.stack([np.asarray(readings[k].corners, np.float64) for k in mine])
    agree = agreements(bgr, deck, cards, placed)
    check = np.flatnonzero(agree < CHECK_BELOW)
    if not len(check):
        return readings
    heights = np.array([_height(q) for q in placed])
    mask, factor = regions
    near = np.zeros_like(mask)
    for j in check:
        x0, y0, x1, y1 = _box(placed[j], GROW * heights[j], factor, mask.shape)
        near[y0:y1, x0:x1] = mask[y0:y1, x0:x1]
    heights_at = np.column_stack([placed.mean(axis=1), heights])
    found = quads.find_outlines(
        grey,
        aspect=deck.aspect,
        grads=grads,
        regions=(near, factor),
        heights_at=heights_at,
    )
    seen = [o.corners_px for o in found if float(o.support.min()) >= SIDE_SUPPORT]
    if not seen:
        return readings
    outlines = np.asarray(seen, np.float64)
    centres = outlines.mean(axis=1)
    out = list(readings)
    for j in check:
        q = placed[j]
        # On the same place, its centre is within a third of the card's height.
        near_q = np.linalg.norm(centres - q.mean(axis=0), axis=1) < heights[j] / 3
        moves = [
            c
            for c in (_ordered_like(o, q) for o in outlines[near_q])
            if _iou(c, q) >= SAME_PLACE and np.abs(c - q).max() > MOVE_MIN * heights[j]
        ]
        if not moves:
            continue
        there = agreements(bgr, deck, np.full(len(moves), cards[j]), np.stack(moves))
        best = int(np.argmax(there))
        if there[best] >= agree[j] + GAIN:
            out[mine[j]] = replace(readings[mine[j]], corners=moves[best])
    return out


#: A card named by its picture whose outline's long side is at most this share of the frame's
#: short side is placed on the parallelogram nearest its outline (:func:`as_parallelogram`).
#: A card that small lies within a few degrees of the camera's axis where it is, so the
#: perspective seen across it is slight: at 0.25 of a 70-degree webcam's short side and the
#: table tilted 30 degrees, its opposite sides differ by about a tenth, and the nearest
#: parallelogram's corners lie some 3% of its height from its own. A homography fitted on
#: keypoints or snapped side by side to edges puts far more perspective than that into a
#: small card: a side on a table's seam, a corner extrapolated past keypoints in one half.
PARALLELOGRAM_MAX_SHARE = 0.25


def as_parallelogram(corners: NDArray[np.floating]) -> NDArray[np.float64]:
    """The parallelogram nearest (4, 2) ``corners`` (least squares, corners in order): the
    affine image of a rectangle fitted to them, which keeps their mean and the mean of each
    pair of opposite sides and takes away the one part of a quadrilateral an affine map
    cannot make, ``(c0 - c1 + c2 - c3) / 4`` with alternating signs."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    d = (q[0] - q[1] + q[2] - q[3]) / 4
    return np.asarray(q - np.array([1.0, -1.0, 1.0, -1.0])[:, None] * d, np.float64)


def small_as_parallelograms(readings: list[_Candidate], shape: tuple[int, ...]) -> list[_Candidate]:
    """``readings`` with each card named by its picture (method features) whose outline's
    long side is at most :data:`PARALLELOGRAM_MAX_SHARE` of the frame's (``shape``) short
    side placed on the parallelogram nearest its outline."""
    limit = PARALLELOGRAM_MAX_SHARE * min(shape[:2])
    out = []
    for r in readings:
        q = np.asarray(r.corners, np.float64)
        if r.method == "features" and _height(q) <= limit:
            r = replace(r, corners=as_parallelogram(q))
        out.append(r)
    return out


def agreements(
    bgr: NDArray[np.uint8],
    deck: ReferenceDeck,
    cards: NDArray[np.intp],
    corners: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(k,) share of the deck's distinct cells where each card ``cards`` (k,) rectified from
    its corners (k, 4, 2, as printed) looks like its reference
    (:func:`vision.identify.appearance.agreement`)."""
    turned = np.array([deck.cards[i].turned for i in cards], bool)
    # A landscape face's order -> portrait.
    q = np.where(turned[:, None, None], np.roll(corners, 1, axis=1), corners)
    cells = appearance.lab_cells(appearance.rectify(bgr, q))
    mask = np.broadcast_to(deck.distinct_cells, (len(q), *deck.distinct_cells.shape))
    return np.asarray(appearance.agreement(cells, deck.cells[cards], mask), np.float64)


def _height(q: NDArray[np.float64]) -> float:
    """The longer of a (4, 2) quad's two first sides (px)."""
    return float(max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[0] - q[1])))


def _box(
    q: NDArray[np.float64], grow: float, factor: float, shape: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """The silhouette mask's box (x0, y0, x1, y1; mask pixels) round a (4, 2) quad in frame
    pixels, grown by ``grow`` frame pixels."""
    lo = (q.min(axis=0) - grow + 0.5) / factor - 0.5
    hi = (q.max(axis=0) + grow + 0.5) / factor - 0.5
    return (
        max(0, int(lo[0])),
        max(0, int(lo[1])),
        min(shape[1], int(hi[0]) + 1),
        min(shape[0], int(hi[1]) + 1),
    )


def _ordered_like(outline: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """``outline`` (4, 2) with its corners in the order (turn and direction) that puts each
    nearest the same corner of ``q``."""
    turns = [np.roll(seq, -k, axis=0) for seq in (outline, outline[::-1]) for k in range(4)]
    return min(turns, key=lambda c: float(np.linalg.norm(c - q, axis=1).max()))


def _iou(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Intersection over union of two convex (4, 2) quads (0 when either is not convex)."""
    pa, pb = (np.asarray(x, np.float32).reshape(-1, 1, 2) for x in (a, b))
    if not (cv2.isContourConvex(pa) and cv2.isContourConvex(pb)):
        return 0.0
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    union = abs(cv2.contourArea(pa)) + abs(cv2.contourArea(pb)) - inter
    return float(inter / union) if union > 0 else 0.0


__all__ = [
    "CHECK_BELOW",
    "PARALLELOGRAM_MAX_SHARE",
    "agreements",
    "as_parallelogram",
    "placed_by_outlines",
    "small_as_parallelograms",
]
