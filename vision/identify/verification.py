"""Keypoint verification (step 2 of :func:`vision.identify.identify_frame`).

A card's keypoints fitted in the window round an outline (:func:`verify_outline`), whether
a fit names its card (``_named_by_fit``), the outlines appearance left undecided named by
their fits (``_by_verification``), and what a window looks like by appearance (its
shortlist of cards, its likeness to the deck's back, its picture's agreement with a fit's
card)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, blur_read, local, placing, quads
from vision.identify.candidates import _area, _Candidate, _overlap, _overlaps_any
from vision.identify.deck import ReferenceDeck
from vision.identify.outlines import VERIFY_SHORTLIST, PictureMatch
from vision.identify.printed_codes import printed_code_boxes
from vision.kit.codes import marker_id

#: Keypoint verification (:func:`verify_outline`): the least cosine an outline's best match
#: needs to be checked; the inliers the best fit needs, and its lead over the next
#: candidate's (the shortlist's size: :data:`vision.identify.outlines.VERIFY_SHORTLIST`).
VERIFY_MIN_COSINE = 0.2
VERIFY_MIN_INLIERS = 15
VERIFY_LEAD = 6
#: A candidate's fit is the rival of a best fit of VERIFY_MIN_INLIERS or more (the lead is
#: counted over it) when this share of its inliers or more are the best fit's inliers too. A
#: weak fit's rival is the next fit whatever its keypoints: on the hard tier, a card's own
#: fit of 7 inliers shared 2 keypoints with the 11 of a card of a like picture.
RIVAL_SHARED = 0.5
#: The area of a fit's similarity (used for its corners when the homography's are not
#: card-shaped) over the verified outline's: the homography's bounds
#: (``local._card_in_window``). A weak fit's similarity on a wooden table's grain, where no
#: card lay, put a card 20 x 14 px in a window for one 57 x 80.
SIMILAR_SIZE = (0.4, 2.5)
#: A card named by verification needs inliers spanning this share of its face (a fit on one
#: small patch, such as a corner's printed code, places the card's far corners by
#: extrapolation: on the tables the thresholds were set on (seed 0), the one misplaced card
#: spanned 1.5%, the right ones 3.5% and more).
VERIFY_MIN_SPREAD = 0.025
#: A card named by verification that its outline's appearance did not shortlist (retrieved by
#: its keypoints from the whole deck) must also agree by picture, where the fit puts it, over
#: this share of the deck's distinct cells (``Thresholds.agree``'s value when both fitted the
#: colours by an offset alone: on seed 0 the one card not in the deck so named agreed 0.18,
#: the right ones 0.63 and more).
RETRIEVED_MIN_AGREE = 0.35

#: A fit with fewer than VERIFY_MIN_INLIERS inliers but at least this many (a small card has
#: few keypoints) names its card when its picture agrees too, where the fit puts it, over
#: this share of the distinct cells (everything else as for a fit: lead, spread, shape). On
#: seed 0's tables the right such fits agreed 0.59-0.75 (one 0.30), the wrong ones with the
#: lead at most 0.29; on seed 1 (not used to set it) right 0.51-0.90, wrong at most 0.24.
WEAK_FIT_MIN_INLIERS = 10
WEAK_FIT_MIN_AGREE = 0.5
WEAK_FIT_CONFIDENCE = 0.85
#: A fit with VERIFY_MIN_INLIERS inliers or more whose corners are not card-shaped (a small
#: card far off in a tilted view, where the table's perspective round the cards named is not
#: known well enough) names its card when its picture agrees where the fit puts it over this
#: share of the distinct cells: that the picture is there says the place is right (a weak fit
#: that is not card-shaped names nothing). On seeds 0 and 1 and the hard tier every such fit
#: (12, 15-30 inliers) lay on its card, those named agreeing 0.51-0.92; wrong fits of 15
#: inliers or more, on those tables and on cards not in the deck, agreed at most 0.20.
UNSHAPED_FIT_MIN_AGREE = 0.5

#: A fit with this share of its inliers or more on a built-in card's printed codes rests on
#: them (``VerifiedOutline.on_qr``, ``local.CardFit.on_codes``): every card has the same codes
#: in the same places, and once blurred they look alike. Resting on its QR code, a fit is not
#: full (:attr:`VerifiedOutline.full`: its picture must agree, as a weak fit's); resting on
#: its markers, it names its card only when a marker square that holds inliers, read where
#: the fit puts it, looks more like that card's marker than like the window's other
#: candidates', or looks like none of theirs clearly (at :data:`RIVAL_MARKER_MIN` or more)
#: (:func:`_markers_against`). Two wrong ids of the development looks (issue 26; hard tier,
#: the project's camera seed 10 scene 22, the second drawer's seed 9 scene 51): a card named
#: by 14 inliers all on the markers, whose squares correlated 0.83 with the card's marker and
#: 0.87 and 0.90 with the true card's; a card named by 15 inliers, 12 on the QR code. On 18
#: development sets (6,996 cards right) both went, one right card with them (a fit of 15
#: inliers, 9 on the QR code, whose picture agreed 0.34) and one found. On 8 of those sets,
#: QR keypoints left out of the fits lost about 45 right cards, fits judged only by their
#: inliers off the QR code 6, and refusing on the markers' correlation at any level 6 (right
#: fits' squares that read poorly, 0.2-0.5).
CODE_CARRIED = 0.5
RIVAL_MARKER_MIN = 0.7

#: An undecided outline whose appearance is this close (cosine) to the deck's card back, and
#: closer than to any card, is a card face down: not verified (on seed 0, no face-up outline
#: verified reached 0.28; 83 of 162 face-down ones reached 0.4).
BACK_MIN_COSINE = 0.4
#: An outline over a card placed face down, or over an outline that looks like the back, by
#: more than this share (of the smaller) is not checked by keypoints (a card lying over a
#: back may hide up to 40% of it).
ON_BACK = 0.5
#: Outlines whose areas and overlap are within this share of each other are one window (one
#: that named nothing is not verified again).
SAME_PLACE = 0.9
#: Outlines are verified only when their area is within this range of a card's area where
#: they lie, from the cards already named by appearance (when there are at least
#: VERIFY_SIZE_MIN_CARDS of them; :func:`_card_areas_at`: the plane through their sizes from 3,
#: else their median area). Against the median, a far card of a tilted camera (half the near
#: cards' area) was not verified: seed 2 +1 card, the Pic Flip scenes +1, 0 wrong.
VERIFY_SIZE_RANGE = (0.55, 1.9)
VERIFY_SIZE_MIN_CARDS = 2


@dataclass(frozen=True, eq=False)
class VerifiedOutline:
    """The result of :func:`verify_outline`: ``card`` (index in the deck) whose keypoints fit
    best, ``corners`` (4, 2) its face's corners as printed in frame pixels (from the fit, not
    the outline), ``inliers`` of that fit and ``second`` of the next candidate's; ``spread``
    the share of the card's face its inliers span (:class:`vision.identify.local.CardFit`)."""

    card: int
    corners: NDArray[np.float64]
    inliers: int
    second: int
    spread: float = 1.0
    #: How many of the inliers lie on the card's printed QR code.
    on_qr: int = 0

    @property
    def full(self) -> bool:
        """Whether the fit names its card by its keypoints alone: it has
        :data:`VERIFY_MIN_INLIERS` inliers, and does not rest on the card's QR code (fewer
        than :data:`CODE_CARRIED` of them on it). The QR code's keypoints, the same finder
        patterns on every card, place a card but do not say which it is: a fit resting on
        them is named as a weak fit is, where the card's picture agrees."""
        return self.inliers >= VERIFY_MIN_INLIERS and self.on_qr < CODE_CARRIED * self.inliers


def verify_outline(
    grey: NDArray[np.uint8],
    quad: NDArray[np.floating],
    candidates: list[int],
    deck: ReferenceDeck,
    min_inliers: int = 6,
    retrieve: Collection[int] | None = None,
    table: local.TablePerspective | None = None,
) -> VerifiedOutline | None:
    """Check ``candidates`` (deck indices) against the card round a portrait outline
    ``quad`` (4, 2) of a grey (H, W) uint8 frame by their keypoints at table distance
    (:func:`vision.identify.local.fit_matches`; candidates with fewer ratio-test matches
    than ``min_inliers`` are not fitted). Returns the best fit (None when no candidate fits
    at all); the caller decides on its inliers and lead. ``retrieve``: also fit the cards
    the window's keypoints point to (:meth:`vision.identify.local.KeypointIndex.retrieve`),
    except those given (cards already named), after ``candidates``. ``table``: the table's
    perspective round the cards already named, by which the fit's corners are judged
    card-shaped (:func:`vision.identify.local.card_shaped`) before its similarity is used."""
    window, back = local.window_keypoints(grey, quad)
    if len(window) < 6:
        return None
    if retrieve is not None:
        extra = deck.table_index.retrieve(window, local.RETRIEVE_CARDS)
        candidates = [*candidates, *(c for c in extra if c not in candidates and c not in retrieve)]
    refs = [deck.table_keypoints(c) for c in candidates]
    # One pass over every candidate's keypoints (each row's ratio test is its own), then
    # the matches split by candidate.
    sizes = np.array([len(r) for r in refs])
    start = np.concatenate([[0], np.cumsum(sizes)])
    every = local.Keypoints(
        np.concatenate([r.xy for r in refs]) if refs else np.zeros((0, 2), np.float32),
        np.concatenate([r.desc for r in refs]) if refs else np.zeros((0, 32), np.uint8),
    )
    ri, fi = local.ratio_matches(every, window)
    owner = np.searchsorted(start, ri, side="right") - 1
    pairs = [(ri[owner == i] - start[i], fi[owner == i]) for i in range(len(refs))]
    # A fit has at most as many inliers as matches: candidates are fitted by their matches,
    # most first, and only while one could still change the decision (beat the best fit, or
    # come within VERIFY_LEAD of it).
    fits: dict[int, local.CardFit] = {}
    top = 0
    for i in sorted(range(len(candidates)), key=lambda i: -len(pairs[i][0])):
        n_matches = len(pairs[i][0])
        if n_matches < max(6, min_inliers) or n_matches <= top - VERIFY_LEAD:
            break
        coded = deck.code_keypoints(candidates[i])
        fits[i] = local.fit_matches(refs[i], window, back, *pairs[i], min_inliers, coded)
        top = max(top, fits[i].inliers)
    order = sorted(fits, key=lambda i: -fits[i].inliers)
    if not order:
        return None
    best = fits[order[0]]
    if best.homography is None:
        return None
    card = candidates[order[0]]
    if _markers_against(grey, best, card, [c for c in candidates if c != card], deck):
        return None
    w, h = local.VERIFY_CARD_WH
    corners = local.face_corners(best.homography)
    # The rival of a full fit is the next candidate fitted on the same keypoints of the
    # window: one fitted on others is another card the window takes in (both are there), not
    # another reading of this card's picture. A weak fit's rival is the next candidate.
    full = best.inliers >= VERIFY_MIN_INLIERS
    second = next((fits[i].inliers for i in order[1:] if not full or _rival(fits[i], best)), 0)
    if not local.card_shaped(corners, w / h, table) and best.similarity is not None:
        similar = local.face_corners(best.similarity)
        # As the homography's, the similarity's card must be of the window's card's size (a
        # few inliers close together can shrink it to a speck).
        if SIMILAR_SIZE[0] <= _area(similar) / max(_area(quad), 1.0) <= SIMILAR_SIZE[1]:
            corners = similar
    if deck.cards[card].turned:
        corners = np.roll(corners, -1, axis=0)  # portrait order -> the landscape face's
    on_qr = best.on_codes[2] if len(best.on_codes) > 2 else 0
    return VerifiedOutline(card, corners, best.inliers, second, best.spread, on_qr)


def _markers_against(
    grey: NDArray[np.uint8],
    fit: local.CardFit,
    card: int,
    others: Sequence[int],
    deck: ReferenceDeck,
) -> bool:
    """Whether a built-in card's ``fit`` (:class:`local.CardFit`, its homography from the
    :data:`local.VERIFY_CARD_WH` face to the frame) rests on its markers
    (:data:`CODE_CARRIED` of its inliers or more), none of its marker squares that hold
    inliers, read where the fit puts them, looks more like the card's marker than like one of
    the ``others`` (the window's other candidates, deck indices), and one of them looks like
    one of theirs clearly (:data:`RIVAL_MARKER_MIN`): by their correlation with each marker
    as blur shows it (:func:`vision.identify.blur_read.correlations`, best of the four
    turns). A blurred marker's corners and blobs are keypoints that fit any marker of a like
    shape."""
    if not deck.builtin or not others or fit.homography is None:
        return False
    on_markers = fit.on_codes[:2]
    if sum(on_markers) < CODE_CARRIED * fit.inliers:
        return False
    ids = deck.ids
    try:
        own = marker_id(ids[card], "front")
        rivals = {marker_id(ids[c], "front") for c in others} - {own}
    except KeyError:
        return False  # (not a kit card)
    if not rivals:
        return False
    c = deck.cards[card]
    boxes, _ = printed_code_boxes(c.id, c.turned)
    squares = np.array(
        [[[x0, y0], [x1, y0], [x1, y1], [x0, y1]] for x0, y0, x1, y1 in boxes], np.float64
    )
    in_frame = cv2.perspectiveTransform(squares.reshape(-1, 1, 2), fit.homography)
    score = blur_read.correlations(
        grey, in_frame.reshape(-1, 4, 2).astype(np.float32), frozenset({own, *rivals})
    )
    column_ids = blur_read.marker_columns()
    mine = score[:, column_ids == own].max(axis=1)
    best_rival = score[:, np.isin(column_ids, list(rivals))].max(axis=1)
    # Only the squares the fit's inliers lie on: a fit on one marker's keypoints places the
    # other square by extrapolation, where its reading is noise.
    held = np.array(on_markers) > 0
    if (mine >= best_rival)[held].any():
        return False
    # Against the card: a square holding inliers reads clearly as another candidate's marker.
    return bool(best_rival[held].max() >= RIVAL_MARKER_MIN)


def _rival(fit: local.CardFit, best: local.CardFit) -> bool:
    """Whether a candidate's ``fit`` rivals the ``best`` fit of a window: at least
    :data:`RIVAL_SHARED` of its inliers are the best fit's inliers too (the same keypoints of
    the window)."""
    if fit.keypoints is None or best.keypoints is None or not len(fit.keypoints):
        return False
    shared = np.isin(fit.keypoints, best.keypoints).sum()
    return bool(shared >= RIVAL_SHARED * len(fit.keypoints))


def _looks_face_down(m: PictureMatch) -> bool:
    """Whether the outline of picture match ``m`` looks like the deck's back (by
    :data:`BACK_MIN_COSINE`, and more than like any card): a card face down."""
    return m.back >= BACK_MIN_COSINE and m.back > m.cosine


def _has_keypoints(deck: ReferenceDeck, m: PictureMatch) -> bool:
    """Whether the card of match ``m`` has keypoints to verify it with (a deck without its
    images, or a plain face, has none: appearance alone decides then)."""
    return bool(m.shortlist) and len(deck.table_keypoints(m.shortlist[0])) >= VERIFY_MIN_INLIERS


def verified_confidence(inliers: int, second: int) -> float:
    """Confidence of a card named by keypoint verification: from 0.9 at the least accepted
    fit towards 0.99 as its lead over the next candidate grows."""
    lead = max(0, inliers - second - VERIFY_LEAD)
    return float(min(0.99, 0.9 + 0.005 * lead))


def _by_verification(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    matches: list[PictureMatch],
    deck: ReferenceDeck,
    chosen: list[_Candidate],
    used: set[int],
    squares: NDArray[np.float64] | None = None,
    backs: Sequence[NDArray[np.float64]] = (),
    full_fit: Collection[int] = (),
) -> list[_Candidate]:
    """Cards named by keypoint verification among the outlines appearance left undecided,
    best appearance first; each card id and place once. Each outline's window is fitted
    against its shortlist and the card its keypoints retrieve from the whole deck (so a card
    whose outline appearance could not place, as touching cards merged, is still found; its
    picture must then agree where the fit puts it: :data:`RETRIEVED_MIN_AGREE`).
    ``squares``: (k, 4, 2) the table's markers (its perspective, with the cards named);
    ``backs``: (4, 2) places of cards face down, placed by the frame search or outlines that
    look like the back (the outlines on them are not checked); ``full_fit``: the outlines
    (indices) that a weak fit does not name (:data:`WEAK_FIT_MIN_INLIERS`)."""
    best: dict[int, PictureMatch] = {}
    for m in matches:
        if m.outline not in used and (m.outline not in best or m.cosine > best[m.outline].cosine):
            best[m.outline] = m
    out: list[_Candidate] = []
    taken = {c.card for c in chosen}
    ids = deck.ids
    taken_index = {i for i, c in enumerate(ids) if c in taken}  # not retrieved again
    # Outlines far from the size of the cards already named are not cards (merged regions,
    # specks): not worth a window (on the tables the thresholds were set on, every outline
    # verification named was within 0.65-1.7 of that size). The size where the outline lies:
    # a far card of a tilted camera is half the area of the near ones.
    areas: dict[int, float] = {}
    if len(chosen) >= VERIFY_SIZE_MIN_CARDS:
        quads_of = {m.outline: m.quad for m in best.values() if m.quad is not None}
        at = np.array([q.mean(axis=0) for q in quads_of.values()]).reshape(-1, 2)
        expected = _card_areas_at(_card_sizes(chosen), at).tolist()
        areas = dict(zip(quads_of, expected, strict=True))
    tried: list[NDArray[np.float64]] = []
    for m in sorted(best.values(), key=lambda m: -m.cosine):
        if m.cosine < VERIFY_MIN_COSINE or m.quad is None:
            continue
        if m.outline in areas:
            ratio = _area(m.quad) / max(areas[m.outline], 1.0)
            if not VERIFY_SIZE_RANGE[0] <= ratio <= VERIFY_SIZE_RANGE[1]:
                continue
        if _overlaps_any(m.quad, [c.corners for c in (*chosen, *out)], 0.4):
            continue
        if _looks_face_down(m):
            continue  # a card face down
        if _overlaps_any(m.quad, backs, ON_BACK):
            continue  # on a card face down (placed by its keypoints, or an outline like the back)
        if any(_same_place(m.quad, q) for q in tried):
            continue  # a window all but the same as one that named nothing
        tried.append(m.quad)
        candidates = [c for c in m.shortlist if ids[c] not in taken]
        named = [c.corners for c in (*chosen, *out)]
        table = _table_perspective(named, deck, squares)
        found = verify_outline(
            grey, m.quad, candidates, deck, VERIFY_MIN_INLIERS, taken_index, table
        )
        if found is None or (m.outline in full_fit and not found.full):
            continue
        if not _named_by_fit(bgr, found, deck, named, table, found.card not in candidates):
            continue  # (retrieved by keypoints, or a weak fit, but its picture is not there)
        taken.add(ids[found.card])
        taken_index.add(found.card)
        out.append(_verified_candidate(found, ids))
    return out


def _card_sizes(chosen: Sequence[_Candidate]) -> NDArray[np.float64]:
    """(k, 3) the cards named: the centre (x, y) of each and the square root of its area."""
    return np.array([[*c.corners.mean(axis=0), np.sqrt(_area(c.corners))] for c in chosen])


def _card_areas_at(sizes: NDArray[np.float64], points: NDArray[np.float64]) -> NDArray[np.float64]:
    """A card's area (px) at each of (n, 2) frame ``points``, from the cards named (``sizes``:
    :func:`_card_sizes`): with :data:`quads.PLANE_SAMPLES` of them or more, the plane
    through their sizes, fitted once (:func:`quads.heights_at`: the size falls off across a
    tilted table, kept within the sizes seen), else their median area (the median of the
    areas, as verification sized outlines before the plane: not the square of the median
    size that :func:`quads.heights_at` would give two cards)."""
    if len(sizes) >= quads.PLANE_SAMPLES:
        return quads.heights_at(sizes, points) ** 2
    return np.full(len(points), float(np.median(sizes[:, 2] ** 2)))


def _verified_candidate(found: VerifiedOutline, ids: Sequence[str]) -> _Candidate:
    """The reading of a card named by its keypoints' fit: corners from the fit, confidence
    from its inliers and lead (``ids``: the deck's card ids); a weak fit
    (:data:`WEAK_FIT_MIN_INLIERS`) was named with its picture, and is less sure."""
    if not found.full:
        return _Candidate(
            ids[found.card], found.corners, WEAK_FIT_CONFIDENCE, "features", "front",
            ("keypoints", "picture"),
        )  # fmt: skip
    return _Candidate(
        ids[found.card], found.corners, verified_confidence(found.inliers, found.second),
        "features", "front", ("keypoints",),
    )  # fmt: skip


def _named_by_fit(
    bgr: NDArray[np.uint8],
    found: VerifiedOutline,
    deck: ReferenceDeck,
    named: Sequence[NDArray[np.float64]],
    table: local.TablePerspective | None,
    retrieved: bool,
) -> bool:
    """Whether a keypoint fit names its card (:func:`_fit_accepted`, with at least
    :data:`WEAK_FIT_MIN_INLIERS` inliers): its picture must agree where the fit puts it, by
    :data:`RETRIEVED_MIN_AGREE` when the card was ``retrieved`` (not shortlisted by the
    outline's appearance), by :data:`WEAK_FIT_MIN_AGREE` when the fit has fewer than
    :data:`VERIFY_MIN_INLIERS` inliers, by :data:`UNSHAPED_FIT_MIN_AGREE` when its corners
    are not card-shaped (seen through the ``table``'s perspective when given; then it needs
    those inliers); the most of those that apply."""
    if not _fit_accepted(found, deck, named, WEAK_FIT_MIN_INLIERS):
        return False
    weak = not found.full
    size_wh = deck.cards[found.card].size_wh
    shaped = local.card_shaped(found.corners, min(size_wh) / max(size_wh), table)
    if weak and not shaped:
        return False
    need = [
        least
        for least, applies in (
            (RETRIEVED_MIN_AGREE, retrieved),
            (WEAK_FIT_MIN_AGREE, weak),
            (UNSHAPED_FIT_MIN_AGREE, not shaped),
        )
        if applies
    ]
    return not need or _fit_agreement(bgr, found, deck) >= max(need)


def _table_perspective(
    named: Sequence[NDArray[np.float64]],
    deck: ReferenceDeck,
    squares: NDArray[np.float64] | None = None,
) -> local.TablePerspective | None:
    """The table's perspective (:class:`vision.identify.local.TablePerspective`) from the
    (4, 2) corners of the cards already named in the frame and the (k, 4, 2) ``squares``
    lying on it (its markers; None when there is neither)."""
    if not named and (squares is None or not len(squares)):
        return None
    cards = np.stack(named) if named else np.zeros((0, 4, 2))
    return local.TablePerspective(cards, deck.aspect, squares)


def _same_place(a: NDArray[np.floating], b: NDArray[np.floating]) -> bool:
    """Whether two (4, 2) outlines cover all but the same place (each the other's area
    within :data:`SAME_PLACE`, overlapping by that share of the smaller)."""
    ratio = _area(a) / max(_area(b), 1.0)
    return SAME_PLACE <= ratio <= 1 / SAME_PLACE and _overlap(a, b) >= SAME_PLACE


def _fit_accepted(
    found: VerifiedOutline,
    deck: ReferenceDeck,
    named: Sequence[NDArray[np.float64]],
    min_inliers: int = VERIFY_MIN_INLIERS,
) -> bool:
    """Whether a verified fit could name its card: at least ``min_inliers`` inliers,
    :data:`VERIFY_LEAD` ahead of the next candidate, spread over :data:`VERIFY_MIN_SPREAD` of
    the face (else the card's place is not known), a plausible quadrilateral
    (:func:`vision.identify.local.plausible_quad`), not on a card already named (``named``:
    their (4, 2) corners). Whether it is card-shaped is :func:`_named_by_fit`'s question."""
    if found.inliers < min_inliers or found.inliers - found.second < VERIFY_LEAD:
        return False
    if found.spread < VERIFY_MIN_SPREAD:
        return False
    if not local.plausible_quad(found.corners):
        return False
    return not _overlaps_any(found.corners, named, 0.4)


def _backs_seen(
    bgr: NDArray[np.uint8], places: list[NDArray[np.float64]], deck: ReferenceDeck
) -> list[NDArray[np.float64]]:
    """Of the (4, 2) places where the frame's keypoints put the deck's back, those that look
    like it there (cosine with :attr:`ReferenceDeck.back_descriptors` at least
    :data:`BACK_MIN_COSINE`)."""
    cos = (_described(bgr, np.stack(places), deck) @ deck.back_descriptors.T).max(axis=1)
    return [q for q, c in zip(places, cos, strict=True) if c >= BACK_MIN_COSINE]


def _shortlists(
    bgr: NDArray[np.uint8], quads_px: NDArray[np.float64], deck: ReferenceDeck
) -> NDArray[np.intp]:
    """(m, k) the :data:`VERIFY_SHORTLIST` cards (deck indices) most like each of (m, 4, 2)
    portrait outlines by appearance (either way up), most alike first."""
    return _likest(_card_cosines(_described(bgr, quads_px, deck), deck))


def _described(
    bgr: NDArray[np.uint8], quads_px: NDArray[np.float64], deck: ReferenceDeck
) -> NDArray[np.float32]:
    """(m, D) centred unit appearance descriptors (:meth:`ReferenceDeck.centred`) of (m, 4, 2)
    portrait outlines of a frame."""
    cells = appearance.lab_cells(appearance.rectify(bgr, quads_px))
    return deck.centred(appearance.describe(cells))


def _card_cosines(desc: NDArray[np.float32], deck: ReferenceDeck) -> NDArray[np.float32]:
    """(m, n) cosines of (m, D) descriptors (:func:`_described`) with each of the deck's n
    cards, the better of its two ways up."""
    sims = desc @ deck.descriptors.T
    n = len(deck)
    return np.asarray(np.maximum(sims[:, :n], sims[:, n:]), np.float32)


def _likest(per_card: NDArray[np.float32]) -> NDArray[np.intp]:
    """(m, k) the :data:`VERIFY_SHORTLIST` cards with the highest of (m, n) cosines, highest
    first."""
    k = min(VERIFY_SHORTLIST, per_card.shape[1])
    return np.asarray(np.argsort(-per_card, axis=1)[:, :k], np.intp)


def _fit_agreement(bgr: NDArray[np.uint8], found: VerifiedOutline, deck: ReferenceDeck) -> float:
    """Share of the deck's distinct cells (:func:`~vision.identify.appearance.agreement`)
    where the card of a fit looks like its reference, rectified from the fit's corners
    (:func:`vision.identify.placing.agreements`)."""
    corners = np.asarray(found.corners, np.float64)[None]
    return float(placing.agreements(bgr, deck, np.array([found.card]), corners)[0])
