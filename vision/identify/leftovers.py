"""What the named cards leave (step 2 of :func:`vision.identify.identify_frame`, last).

The parts of the frame's silhouettes left once the cards named, the cards face down and the
table's markers are taken out, each verified in a card-sized window (``_by_leftovers``): a
part of a card under a hand, a small card, a card whose outline merged with its
neighbours'."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import local, quads
from vision.identify.candidates import _area, _Candidate, _long_side, _overlaps_any
from vision.identify.deck import ReferenceDeck
from vision.identify.outlines import _silhouettes_less
from vision.identify.verification import (
    BACK_MIN_COSINE,
    VERIFY_LEAD,
    VERIFY_MIN_COSINE,
    VERIFY_MIN_INLIERS,
    WEAK_FIT_MIN_INLIERS,
    VerifiedOutline,
    _card_cosines,
    _described,
    _likest,
    _named_by_fit,
    _table_perspective,
    _verified_candidate,
    verify_outline,
)

#: What is left of the frame's silhouettes once the cards named, the cards face down and the
#: table's markers (grown by _MARKER_BORDER round their centre: their white border) are taken
#: out (:func:`_by_leftovers`): parts between LEFTOVER_AREA times a card's area are tried,
#: the LEFTOVER_WINDOWS largest, each in a card-sized window, unless it lies on a card named
#: by LEFTOVER_ON_NAMED of the smaller, looks like no card (VERIFY_MIN_COSINE) or like the
#: deck's back. 300 tables of seed 1: 1957 -> 1963 cards named; seed 0 1939 -> 1950; hard
#: tier 488 -> 493 of 633; parts from 0.08 or 0.15 of a card's area named the same cards, 4
#: windows a frame the same, 1 window one card fewer. On the speed frames (12 cards), under
#: one window a frame, about 1.05 x the time.
LEFTOVER_AREA = (0.3, 3.0)
LEFTOVER_WINDOWS = 2
#: Looks at what is left while the last one named a card (seed 1 scene 108: two small cards
#: side by side, one leftover; the window named one, the second look the other. 300 tables of
#: seed 1: 1963 -> 1964; hard 493 -> 494; seed 0 unchanged; leftover windows on the speed
#: frames 0.83 -> 0.93 a frame).
LEFTOVER_ROUNDS = 2
LEFTOVER_ON_NAMED = 0.6
#: A leftover is also tried in a window of a card's height where it lies (the plane through
#: the named cards' heights) when that is more than this share away from their median height
#: and the first window named nothing (a tilted camera's far side). Against trying the median
#: only: seed 0 +4, seed 1 +1, hard tier +3, nothing lost, 0 wrong (15%: seed 0 +2, seed 1
#: +1; 0%: as 5%; the plane's height alone, instead of the median's: +8 and -7).
LEFTOVER_OTHER_HEIGHT = 0.05
#: A leftover's weak fit (10-14 inliers) is verified again in the window round the card where
#: it puts it (the leftover's window is centred on what shows of the card, and takes in only
#: part of it), and names the card by a fit of at least this many inliers there: on seeds 0
#: and 2 fully visible cards of 43-54 px fitted 14 in the leftover's window, 21-35 in their
#: own; a wood-like picture that fitted 11 on a table's planks fitted 15 once re-centred
#: (seed 1, a Pic Flip scene). On seed 0's undecided outlines, where the thresholds were set,
#: fits of 20 inliers or more leading by 6 were 355 right and none wrong.
LEFTOVER_REFIT_MIN_INLIERS = 20
_MARKER_BORDER = 1.6


def _by_leftovers(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    deck: ReferenceDeck,
    chosen: list[_Candidate],
    taken: Sequence[NDArray[np.float64]],
    regions: tuple[NDArray[np.uint8], float],
    squares: NDArray[np.float64],
    backs: Sequence[NDArray[np.float64]],
) -> list[_Candidate]:
    """Cards found in what is left of the frame's silhouettes (``regions``:
    :func:`~vision.identify.quads.silhouettes`) once the cards named are taken out (``chosen``,
    and the (4, 2) outlines ``taken`` of cards named by their codes), with the table's
    markers (``squares``, (k, 4, 2), and their white border) and the cards lying face down
    (``backs``): a part of a card under a hand, a small card, a card whose outline merged
    with its neighbours' and that no keypoints placed. The :data:`LEFTOVER_WINDOWS` largest
    leftovers of :data:`LEFTOVER_AREA` of a card's area are each verified in the window of a
    card's size centred on them, along their long axis, as an undecided outline is (its
    appearance shortlist and the card its keypoints retrieve), and named by a full fit
    (:func:`_named_by_fit`, as retrieved: the picture must agree where the fit puts it).
    When a look names a card, what is left is looked at again (:data:`LEFTOVER_ROUNDS` looks
    at most): a card beside it was part of the same leftover."""
    ids = deck.ids
    names = {c.card for c in chosen}
    used = {i for i, c in enumerate(ids) if c in names}
    out: list[_Candidate] = []
    for _ in range(LEFTOVER_ROUNDS):
        named = [*(c.corners for c in chosen), *(c.corners for c in out), *taken]
        if not named:
            break  # (no card's size to look for)
        before = len(out)
        for variants in _leftover_windows(regions, named, backs, squares, deck.aspect):
            around = [*named, *(c.corners for c in out[before:])]
            for window in variants:
                found = _leftover_fit(bgr, grey, window, deck, used, around, squares)
                if found is not None:
                    used.add(found.card)
                    out.append(_verified_candidate(found, ids))
                    break
        if len(out) == before:
            break
    return out


def _fitted_again(
    grey: NDArray[np.uint8],
    found: VerifiedOutline,
    shortlist: list[int],
    deck: ReferenceDeck,
    used: Collection[int],
    table: local.TablePerspective | None,
) -> VerifiedOutline | None:
    """A leftover's weak fit (:data:`WEAK_FIT_MIN_INLIERS` inliers or more, under
    :data:`VERIFY_MIN_INLIERS`, leading by :data:`VERIFY_LEAD`, a plausible quadrilateral)
    verified again in the window round the card where the fit puts it, against that card and
    the leftover's shortlist: the leftover's window is centred on what is left of the card
    (the rest merged with the table or a neighbour), and takes in only part of it. The new
    fit counts only with :data:`LEFTOVER_REFIT_MIN_INLIERS` inliers (None otherwise)."""
    if not local.plausible_quad(found.corners) or found.inliers - found.second < VERIFY_LEAD:
        return None
    corners = np.roll(found.corners, 1, axis=0) if deck.cards[found.card].turned else found.corners
    candidates = [found.card, *(c for c in shortlist if c != found.card)]
    again = verify_outline(grey, corners, candidates, deck, VERIFY_MIN_INLIERS, used, table)
    if again is None or again.inliers < LEFTOVER_REFIT_MIN_INLIERS:
        return None
    return again


def _leftover_fit(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    window: NDArray[np.float64],
    deck: ReferenceDeck,
    used: Collection[int],
    around: list[NDArray[np.float64]],
    squares: NDArray[np.float64],
) -> VerifiedOutline | None:
    """The fit that names a card in a leftover's ``window`` (see :func:`_by_leftovers`;
    ``used`` the cards named, ``around`` their (4, 2) places), or None."""
    if _overlaps_any(window, around, LEFTOVER_ON_NAMED):
        return None
    best, back, likest = _looks_like(bgr, window, deck)
    if best < VERIFY_MIN_COSINE or (back >= BACK_MIN_COSINE and back > best):
        return None  # like no card, or like the deck's back (a card face down)
    shortlist = [c for c in likest if c not in used]
    table = _table_perspective(around, deck, squares)
    found = verify_outline(grey, window, shortlist, deck, VERIFY_MIN_INLIERS, used, table)
    if found is not None and found.inliers >= WEAK_FIT_MIN_INLIERS and not found.full:
        found = _fitted_again(grey, found, shortlist, deck, used, table)
    # No weak fit: a leftover is often bare table, and a card of a wood-like picture fitted 12
    # inliers on a plank (seed 0), its picture agreeing there.
    if found is None or not found.full:
        return None
    return found if _named_by_fit(bgr, found, deck, around, table, True) else None


def _leftover_windows(
    regions: tuple[NDArray[np.uint8], float],
    named: Sequence[NDArray[np.float64]],
    backs: Sequence[NDArray[np.float64]],
    squares: NDArray[np.float64],
    aspect: float,
) -> list[list[NDArray[np.float64]]]:
    """The card-sized (4, 2) windows of :func:`_by_leftovers`: the silhouettes ``regions``
    less the (4, 2) places ``named`` and ``backs`` and the markers ``squares`` with their
    border; for each of the :data:`LEFTOVER_WINDOWS` largest parts left of
    :data:`LEFTOVER_AREA` of the named cards' median area (largest first), a window of their
    median height and the cards' ``aspect``, then, when a card's height where the part lies
    (:func:`quads.height_at`: the plane through the named cards' heights) is more than
    :data:`LEFTOVER_OTHER_HEIGHT` away from it, a window of that height."""
    factor = regions[1]
    bordered = [q.mean(axis=0) + _MARKER_BORDER * (q - q.mean(axis=0)) for q in squares]
    left = _silhouettes_less(regions, [*named, *backs, *bordered], 5)
    card_area = float(np.median([_area(q) for q in named]))
    heights = np.array([[*q.mean(axis=0), _long_side(q)] for q in named])
    median = float(np.median(heights[:, 2]))
    # The parts left, labelled within the box that holds them all (the same labels, in the
    # same order, as over the whole mask: most of it is empty).
    x0, y0, bw, bh = cv2.boundingRect(left)
    if bw == 0 or bh == 0:
        return []  # (nothing left; OpenCV's labelling of an empty image crashes)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(
        left[y0 : y0 + bh, x0 : x0 + bw], connectivity=8
    )
    area = stats[1:, cv2.CC_STAT_AREA] * factor**2
    sized = (area >= LEFTOVER_AREA[0] * card_area) & (area <= LEFTOVER_AREA[1] * card_area)
    largest = 1 + np.flatnonzero(sized)[np.argsort(-area[sized], kind="stable")]
    windows = []
    for label in largest[:LEFTOVER_WINDOWS]:
        points = (np.argwhere(labels == label)[:, ::-1] + (x0, y0)).astype(np.float32)
        rect = cv2.minAreaRect(points)
        here = quads.height_at(heights, (np.asarray(rect[0], np.float64) + 0.5) * factor - 0.5)
        sizes = [median] if abs(here / median - 1) <= LEFTOVER_OTHER_HEIGHT else [median, here]
        windows.append([_card_window(rect, factor, h, aspect) for h in sizes])
    return windows


def _looks_like(
    bgr: NDArray[np.uint8], quad: NDArray[np.float64], deck: ReferenceDeck
) -> tuple[float, float, list[int]]:
    """How the portrait outline ``quad`` (4, 2) of a frame looks by appearance: the cosine of
    its likest card (either way up), of the deck's back (-1 when the back is not known), and
    the :data:`VERIFY_SHORTLIST` likest cards (deck indices), likest first."""
    desc = _described(bgr, quad[None], deck)
    per_card = _card_cosines(desc, deck)
    likest = [int(c) for c in _likest(per_card)[0]]
    backs = deck.back_descriptors
    back = float((desc @ backs.T).max()) if len(backs) else -1.0
    return float(per_card[0, likest[0]]), back, likest


def _card_window(
    rect: tuple[Sequence[float], Sequence[float], float],
    factor: float,
    height: float,
    aspect: float,
) -> NDArray[np.float64]:
    """The (4, 2) portrait outline (frame pixels) of a card ``height`` px tall and ``aspect``
    wide, centred on a :func:`cv2.minAreaRect` of mask pixels (``factor`` mask -> frame
    pixels), its long side along the rectangle's."""
    (cx, cy), (w, h), angle = rect
    turn = np.radians(angle + (0.0 if w >= h else 90.0))  # (the side of w lies along angle)
    along = np.array([np.cos(turn), np.sin(turn)]) * height / 2
    across = np.array([-along[1], along[0]]) * aspect
    centre = (np.array([cx, cy]) + 0.5) * factor - 0.5
    q = np.array(
        [centre - across - along, centre + across - along, centre + across + along,
         centre - across + along]
    )  # fmt: skip
    return np.asarray(quads.order_quads(q[None])[0], np.float64)
