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

from vision.identify import appearance, local, quads
from vision.identify.candidates import _Candidate, _long_side
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
    pictured = _by_pictures(readings, bgr, deck)
    if pictured is None:
        return readings
    mine, cards, placed, agree = pictured
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
            if iou(c, q) >= SAME_PLACE and np.abs(c - q).max() > MOVE_MIN * heights[j]
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


#: :func:`correlated`: a round of the correlation may move a corner by up to SETTLE_MOVE of
#: the card's size.
SETTLE_MOVE = 0.3
#: Rounds of the correlation, each from where the last one left off while the last moved a
#: corner SETTLE_AGAIN of the card's size or more (its few iterations a level stop short of a
#: far side 11% off: on a rendered card, one round left it 7% off, two 0.6%).
SETTLE_ROUNDS = 2
SETTLE_AGAIN = 0.02
#: The correlation's finer level draws the reference SETTLE_FINE times the card's length in
#: the frame (at most 256 px, in steps of SETTLE_LEVEL_STEP px), the coarser half that: drawn
#: at 256 px (``local.ECC_LEVELS``, made for photos), a round cost 3.5 ms against 1.9 ms, for
#: 9 against 8 misplaced (hard) at 0.8.
SETTLE_LEVEL_STEP = 16
SETTLE_FINE = 1.5


def correlated(
    grey: NDArray[np.uint8],
    deck: ReferenceDeck,
    card: int,
    corners: NDArray[np.floating],
) -> NDArray[np.float64] | None:
    """The (4, 2) corners (as printed) of deck card ``card`` placed by the correlation of its
    reference picture with the grey frame (:func:`vision.identify.local.refine_ecc`), from
    ``corners`` (4, 2): :data:`SETTLE_ROUNDS` rounds, each from where the last left off while
    it moves a corner :data:`SETTLE_AGAIN` of the card's size or more. None when the deck
    keeps no grey reference of the card or the correlation does not move it (it failed, or
    would have moved a corner more than :data:`SETTLE_MOVE` of the card's size)."""
    ref = deck.reference_grey(card)
    if ref is None:
        return None
    q = np.asarray(corners, np.float64).reshape(4, 2)
    outline = deck.outline(card).astype(np.float32)
    start = cv2.getPerspectiveTransform(outline, q.astype(np.float32))
    refined, moved = start, q
    size = _long_side(q)
    levels = settle_levels(size)
    for _ in range(SETTLE_ROUNDS):  # from where the last round left off, while it moves
        again = local.refine_ecc(ref, grey, refined, SETTLE_MOVE, levels)
        if again is refined:
            break
        step = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), again).reshape(4, 2)
        refined, far = again, float(np.abs(step - moved).max()) / size
        moved = step
        if far < SETTLE_AGAIN:
            break
    return None if refined is start else np.asarray(moved, np.float64)


def settle_levels(long_side: float) -> tuple[tuple[int, int], ...]:
    """The correlation's levels for a card ``long_side`` px long in the frame: half its size
    (10 iterations), then its size (3), in steps of :data:`SETTLE_LEVEL_STEP` px (the reference
    drawn finer than the frame shows the card only costs time)."""
    step = SETTLE_LEVEL_STEP
    fine = int(min(256, max(2 * step, step * round(SETTLE_FINE * long_side / step))))
    return ((max(step, fine // 2), 10), (fine, 3))


#: :func:`placed_by_correlation`: a card named by its picture that agrees less than this with
#: its reference where it is placed (the share of cells, :func:`agreements`) is placed again
#: by its picture's correlation (:func:`correlated`), and the new place kept where the picture
#: agrees at least AGREE_GAIN more there. Chosen on 8 development sets (pictures alone on
#: both tiers, both drawers, kit and development looks; half the cards not in the deck; codes
#: and pictures on the hard tier): cards named right but placed more than 10% of their height
#: off 57 -> 37 of 3,560 at 0.8 and 0.85 alike, the names unchanged; in a study of the
#: readings placed off, a gain of 0.03 fixed 18 and placed 2 off that were not, none 8 and 8,
#: 0.06 17 and 2, 0.10 13 and 1. At 0.8 the correlation runs on about a third of the
#: readings, two cards a frame on the normal tier (about 5 ms each): on the 12-card speed
#: frames reading by pictures took 67 -> 79 ms (median, interleaved runs); at 0.7 it cost
#: nothing there, and 42 were placed off.
AGREE_CHECK_BELOW = 0.8
AGREE_GAIN = 0.03


def placed_by_correlation(
    readings: list[_Candidate],
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    deck: ReferenceDeck,
) -> list[_Candidate]:
    """``readings`` with each card named by its picture (method features, a card of ``deck``)
    whose picture agrees less than :data:`AGREE_CHECK_BELOW` with its reference where it is
    placed (:func:`agreements`) placed again by its picture's correlation
    (:func:`correlated`), where the picture agrees at least :data:`AGREE_GAIN` more."""
    pictured = _by_pictures(readings, bgr, deck)
    if pictured is None:
        return readings
    mine, cards, placed, agree = pictured
    out = list(readings)
    for j in np.flatnonzero(agree < AGREE_CHECK_BELOW):
        moved = correlated(grey, deck, int(cards[j]), placed[j])
        if moved is None:
            continue
        there = agreements(bgr, deck, cards[j : j + 1], moved[None])[0]
        if there >= agree[j] + AGREE_GAIN:
            out[mine[j]] = replace(readings[mine[j]], corners=moved)
    return out


def _by_pictures(
    readings: list[_Candidate], bgr: NDArray[np.uint8], deck: ReferenceDeck
) -> tuple[list[int], NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]] | None:
    """The readings named by their pictures (method features, a card of ``deck``): their
    indices in ``readings``, deck indices, (k, 4, 2) corners and pictures' agreement with
    their references where they are placed (:func:`agreements`); None when there are none."""
    index = {card: i for i, card in enumerate(deck.ids)}
    mine = [k for k, r in enumerate(readings) if r.method == "features" and r.card in index]
    if not mine:
        return None
    cards = np.array([index[readings[k].card] for k in mine])
    placed = np.stack([np.asarray(readings[k].corners, np.float64) for k in mine])
    return mine, cards, placed, agreements(bgr, deck, cards, placed)


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


def iou(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
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
    "iou",
    "placed_by_outlines",
    "small_as_parallelograms",
]
