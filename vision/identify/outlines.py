"""Card outlines and their pictures (step 2 of :func:`vision.identify.identify_frame`).

Outlines from edges (:func:`card_outlines`, with the table's markers told apart:
:func:`table_markers`), each matched by its whole appearance against every reference of
the deck (:func:`match_outlines`), and the picture decision: the probability that an
outline's likest card is the card there (:func:`picture_probability`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, quads
from vision.identify.candidates import _long_side
from vision.identify.codes import _fiducial_lookup, _read_quads, read_fiducials
from vision.identify.deck import ReferenceDeck
from vision.kit import geometry

#: Decks of fewer cards than this have no mean taken away (``ReferenceDeck.mean_descriptor``)
#: and their best match must lead a stand-in rival cosine instead of the next card's.
SMALL_DECK = 8
SMALL_DECK_RIVAL = 0.6
#: Picture matches under this cosine are not compared cell by cell (none reached the
#: decision's threshold on the rendered tables it was fitted on).
_CHECK_COSINE = 0.3
#: Keypoint verification (:func:`vision.identify.verification.verify_outline`): the cards
#: of an outline's shortlist (by appearance) whose keypoints are fitted.
VERIFY_SHORTLIST = 5


def grow_quads(q: NDArray[np.float64], border: tuple[float, float]) -> NDArray[np.float64]:
    """(m, 4, 2) outlines of cards whose picture area (inside a plain frame of ``border`` =
    (x, y) shares of the card's width and height) is the given (m, 4, 2) outline."""
    bx, by = border
    gx, gy = bx / (1 - 2 * bx), by / (1 - 2 * by)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    grown = np.array([[-gx, -gy], [1 + gx, -gy], [1 + gx, 1 + gy], [-gx, 1 + gy]], np.float32)
    out = np.zeros_like(q)
    for i, quad in enumerate(q):
        h = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
        out[i] = cv2.perspectiveTransform(grown.reshape(-1, 1, 2), h).reshape(4, 2)
    return out


def card_outlines(
    grey: NDArray[np.uint8],
    deck: ReferenceDeck,
    grads: quads.Gradients | None = None,
    height: float | None = None,
    regions: tuple[NDArray[np.uint8], float] | None = None,
    markers: tuple[NDArray[np.float64], NDArray[np.intp]] | None = None,
    cards: Sequence[NDArray[np.float64]] = (),
) -> list[quads.Outline]:
    """The card outlines of a grey frame for ``deck``'s pictures
    (:func:`vision.identify.quads.find_outlines`, told where the table's markers are
    (:func:`table_markers`) and the card's size there). ``grads``: the
    frame's :class:`~vision.identify.quads.Gradients` when already made; ``height``: the
    card's height (px) when known; ``regions``: the frame's
    :func:`~vision.identify.quads.silhouettes` when already made; ``markers``: what
    :func:`table_markers` gave, when already read; ``cards``: (4, 2) corners of cards already
    named, taken out of the silhouettes (their outlines are not looked for again) and
    telling the card's size where they lie."""
    found, ids = markers if markers is not None else table_markers(grey)
    heights_at = _card_heights_at(found, ids, deck)
    if len(cards):
        # What a cluster leaves once its cards named are taken out (grown by a mask pixel).
        whole = regions if regions is not None else quads.silhouettes(grey)
        regions = (_silhouettes_less(whole, cards, 3), whole[1])
        rows = np.array([[*q.mean(axis=0), _long_side(q)] for q in cards], np.float64)
        heights_at = rows if heights_at is None else np.concatenate([heights_at, rows])
    return quads.find_outlines(
        grey, aspect=deck.aspect, grads=grads, height_px=height, not_cards=found,
        heights_at=heights_at, regions=regions,
    )  # fmt: skip


def _silhouettes_less(
    regions: tuple[NDArray[np.uint8], float], places: Sequence[NDArray[np.float64]], grow: int
) -> NDArray[np.uint8]:
    """The mask of the silhouettes ``regions`` less the (4, 2) frame ``places``, each grown by
    a ``grow`` x ``grow`` square of the mask's pixels, opened by a 5 x 5 square (specks and
    slivers along the places' sides go)."""
    mask, factor = regions
    cover = np.zeros_like(mask)
    for q in places:
        cv2.fillConvexPoly(cover, np.round((q + 0.5) / factor - 0.5).astype(np.int32), 255)
    grown = cv2.dilate(cover, np.ones((grow, grow), np.uint8))
    left = cv2.bitwise_and(mask, cv2.bitwise_not(grown))
    return np.asarray(cv2.morphologyEx(left, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8)), np.uint8)


def table_markers(grey: NDArray[np.uint8]) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """The kit's markers that are no card (the play area's, the Picasso board's:
    :func:`vision.identify.codes.read_fiducials`) in a grey (H, W) uint8 frame, read at half
    size (they are 30-40 mm, twice a card's): (k, 4, 2) frame pixels and (k,) their ids.
    Their white squares are card-sized silhouettes: without them, some 2 outlines a frame
    were fitted round the play area's markers (on rendered tables, 232 of 263 keypoint
    windows that named nothing)."""
    h, w = grey.shape
    factor = 2 if min(h, w) >= 240 else 1
    small = grey
    if factor != 1:
        size = (round(w / factor), round(h / factor))
        small = np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.uint8)
    found = read_fiducials(small)
    if not found:
        return np.zeros((0, 4, 2), np.float64), np.zeros(0, np.intp)
    corners = np.stack([c for _, c in found]).astype(np.float64)
    ids = np.array([m for m, _ in found], np.intp)
    return (corners + 0.5) * factor - 0.5, ids


def fiducials_among(
    grey: NDArray[np.uint8], quads: NDArray[np.float32]
) -> tuple[list[tuple[int, NDArray[np.float32]]], NDArray[np.bool_]]:
    """The kit's markers that are on no card (as :func:`table_markers` reads them) among dark
    square candidates ``quads`` (n, 4, 2), read bit for bit: (marker id, (4, 2) float32
    corners in ArUco order), and which candidates they are (n,) bool."""
    return _read_quads(grey, quads, _fiducial_lookup())


def _card_heights_at(
    markers: NDArray[np.float64], ids: NDArray[np.intp], deck: ReferenceDeck
) -> NDArray[np.float64] | None:
    """(k, 3) the height (px) a card of ``deck`` has at each of the table's ``markers``
    ((k, 4, 2) frame pixels, ``ids`` (k,)) whose size is known (x, y, height: the marker's
    mean side times the card's height over the marker's, both in mm); None when the deck's
    cards are not the kit's (their size in mm is not known)."""
    if not deck.builtin or not len(deck) or not len(markers):
        return None
    return heights_by_markers(markers, ids, max(geometry.face_size_wh_mm(deck.cards[0].id)))


def heights_by_markers(
    markers: NDArray[np.floating], ids: NDArray[np.integer], card_mm: float
) -> NDArray[np.float64]:
    """(k, 3) the height (px) of a card ``card_mm`` high at each of the table's ``markers``
    ((k, 4, 2) frame pixels, ``ids`` (k,)) whose size is known (x, y, height: the marker's
    mean side times the card's height over the marker's, both in mm)."""
    mm = {m: geometry.PLAY_AREA_MARKER_MM for m in geometry.PLAY_AREA_MARKER_IDS}
    mm.update({m: geometry.BOARD_MARKER_MM for m in geometry.BOARD_MARKER_IDS})
    rows = []
    for corners, marker in zip(np.asarray(markers, np.float64), ids.tolist(), strict=True):
        if marker in mm:
            side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean())
            rows.append([*corners.mean(axis=0), side * card_mm / mm[marker]])
    return np.array(rows, np.float64).reshape(-1, 3)


@dataclass(frozen=True, eq=False)
class PictureMatch:
    """The best reference for one outline (or its grown variant): ``outline`` (its index),
    ``card`` the id, ``corners`` (4, 2) the card's face corners as printed, the match's
    ``cosine``, its ``margin`` over the next card, the ``agree`` share of cells (and
    ``agree_next``, the next card's) and the decision's ``probability`` that the id is
    right (:func:`picture_probability`); ``quad`` (4, 2) the outline (or grown outline) as
    matched, portrait corners; ``shortlist`` the indices of the :data:`VERIFY_SHORTLIST`
    cards most like it, best first; ``back`` its cosine with the deck's card back
    (``ReferenceDeck.back_descriptors``; 0 when the back is not known)."""

    outline: int
    card: str
    corners: NDArray[np.float64]
    cosine: float
    margin: float
    agree: float
    agree_next: float
    probability: float
    quad: NDArray[np.float64] | None = None
    shortlist: tuple[int, ...] = ()
    back: float = 0.0


def match_outlines(
    bgr: NDArray[np.uint8], outlines: list[quads.Outline], deck: ReferenceDeck, grown: bool = True
) -> list[PictureMatch]:
    """Every outline's best reference, for the outline as found and (for decks of cards with a
    plain frame, unless not ``grown``) grown by that frame: an outline found on the inner
    edge of the frame (a white card on a white table) is then still the whole card."""
    q = np.stack([o.corners_px for o in outlines]).astype(np.float64)
    m = len(outlines)
    variants = [q]
    if grown and deck.border[0] > 0.01 and deck.border[1] > 0.01:
        variants.append(grow_quads(q, deck.border))
    allq = np.concatenate(variants)
    cells = appearance.lab_cells(appearance.rectify(bgr, allq))
    described = deck.centred(appearance.describe(cells))
    sims = described @ deck.descriptors.T  # (rows, 2N)
    backs = deck.back_descriptors
    back = (described @ backs.T).max(axis=1) if len(backs) else np.zeros(len(allq))
    n = len(deck)
    per_card = np.maximum(sims[:, :n], sims[:, n:])
    rows = np.arange(len(allq))
    if n > 1:
        top2 = np.argpartition(-per_card, 1, axis=1)[:, :2]
        swap = per_card[rows, top2[:, 0]] < per_card[rows, top2[:, 1]]
        top2[swap] = top2[swap][:, ::-1]
        first, second = top2[:, 0], top2[:, 1]
        cos2 = per_card[rows, second]
    else:
        first = np.zeros(len(allq), np.intp)
        second = first
        cos2 = np.zeros(len(allq))
    cos1 = per_card[rows, first]
    k = min(VERIFY_SHORTLIST, n)
    shortlist = np.zeros((len(allq), 0), np.intp)
    if n:
        part = np.asarray(np.argpartition(-per_card, k - 1, axis=1)[:, :k], np.intp)
        order = np.argsort(-np.take_along_axis(per_card, part, axis=1), axis=1)
        shortlist = np.take_along_axis(part, order, axis=1)
    if n < SMALL_DECK:
        # Too few cards for the lead over the next one to mean anything: the best must lead a
        # stand-in rival (what an unrelated picture scores) instead.
        cos2 = np.maximum(cos2, SMALL_DECK_RIVAL)
    turned1 = sims[rows, n + first] > sims[rows, first]
    turned2 = sims[rows, n + second] > sims[rows, second]

    def refs(idx: NDArray[np.intp], turned: NDArray[np.bool_]) -> NDArray[np.float32]:
        r = deck.cells[idx].copy()
        r[turned] = appearance.turned(r[turned])
        return r

    # Cells are compared only where the match could pass: each outline's better variant,
    # with a cosine a right card reaches (the rest keep no agreement: probability ~0).
    best_variant = cos1.reshape(len(variants), m).argmax(axis=0) * m + np.arange(m)
    check = np.zeros(len(allq), bool)
    check[best_variant] = True
    check &= cos1 >= _CHECK_COSINE
    agree1 = np.zeros(len(allq))
    agree2 = np.zeros(len(allq))
    if check.any():
        idx = np.flatnonzero(check)
        distinct = np.broadcast_to(deck.distinct_cells, (len(idx), *deck.distinct_cells.shape))
        agree1[idx] = appearance.agreement(cells[idx], refs(first[idx], turned1[idx]), distinct)
        if n > 1:
            agree2[idx] = appearance.agreement(
                cells[idx], refs(second[idx], turned2[idx]), distinct
            )
    support = np.tile([o.outline for o in outlines], len(variants))
    low = np.tile([float(o.support.min()) for o in outlines], len(variants))
    prob = picture_probability(cos1, cos1 - cos2, agree1, agree1 - agree2, support, low)
    prob[~check] = 0.0
    # The corners as printed: turned half round where the reference matched so, then a
    # quarter for landscape cards (portrait order -> the landscape face's).
    cards = [deck.cards[c] for c in first.tolist()]
    shift = 2 * turned1 - np.array([c.turned for c in cards], np.intp)
    printed = allq[rows[:, None], (np.arange(4)[None] - shift[:, None]) % 4]
    columns = zip(
        cards, printed, allq, cos1.tolist(), cos2.tolist(), agree1.tolist(), agree2.tolist(),
        prob.tolist(), shortlist.tolist(), back.tolist(), strict=True,
    )  # fmt: skip
    return [
        PictureMatch(r % m, card.id, corners, c1, c1 - c2, a1, a2, p, quad, tuple(short), b)
        for r, (card, corners, quad, c1, c2, a1, a2, p, short, b) in enumerate(columns)
    ]


#: The picture decision: a logistic model of the probability that an outline's best
#: reference is the card there, over standardised features (cosine, margin, agreement,
#: agreement lead, outline support, weakest side's support, and three products), fitted by
#: ``python -m vision.identify.fit_decision`` on rendered normal-tier tables (seed 0:
#: 100 scenes of Pick Pic cards, 100 with Pic Flip cards mixed in), against every outline of
#: those frames (wrong cards, foreign cards and outlines on no card as negatives). Fitted
#: on the outlines found before the table's markers were told apart and nearly square
#: outlines kept; on the outlines found now, these constants name 896 cards right at 0.97
#: with 3 outlines wrong (all of them refused further on: the benchmark's tables have no
#: wrong id), a fit on them 890 with 1: not taken.
DECISION_WEIGHTS = np.array(
    [-0.1434, 1.9326, 2.7495, 0.2423, 0.3720, 0.2209, 0.1525, 2.8313, -1.7046, -0.5796]
)
DECISION_MEAN = np.array(
    [0.43912, 0.07774, 0.20323, 0.06218, 0.80140, 0.56125, 0.54384, 0.41091, 0.22806]
)
DECISION_SCALE = np.array(
    [0.21210, 0.11746, 0.32570, 0.15853, 0.22497, 0.37901, 1.08559, 1.09253, 0.22088]
)


def _decision_features(
    cos: NDArray[np.float64],
    margin: NDArray[np.float64],
    agree: NDArray[np.float64],
    lead: NDArray[np.float64],
    support: NDArray[np.float64],
    low: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(k, 9) raw decision features (see :data:`DECISION_WEIGHTS`)."""
    return np.stack(
        [
            cos, margin, agree, lead, support, low,
            cos * margin * 10, margin * agree * 10, np.minimum(cos, 0.9) ** 2,
        ],
        axis=1,
    )  # fmt: skip


def picture_probability(
    cos: NDArray[np.float64],
    margin: NDArray[np.float64],
    agree: NDArray[np.float64],
    lead: NDArray[np.float64],
    support: NDArray[np.float64],
    low: NDArray[np.float64],
) -> NDArray[np.float64]:
    """(k,) probability in [0, 1] that a picture match names the right card (the logistic
    decision model; each argument (k,))."""
    x = (
        _decision_features(cos, margin, agree, lead, support, low) - DECISION_MEAN
    ) / DECISION_SCALE
    z = DECISION_WEIGHTS[0] + x @ DECISION_WEIGHTS[1:]
    return np.asarray(1.0 / (1.0 + np.exp(-z)), np.float64)
