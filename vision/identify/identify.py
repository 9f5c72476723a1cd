"""``identify_frame``: every card in one frame, by its printed codes and by its picture.

Stateless: a frame in, a :class:`~vision.identify.reading.FrameCards` out. The steps:

1. **Codes** (:mod:`vision.identify.codes`, :mod:`vision.identify.code_cards`): kit cards by
   their markers and QR codes, the codes of one card voting for its id, face and pose. Each
   card's outline is snapped to its edges and checked against the kit's picture of that face
   (the share of the card that looks like it, :func:`vision.identify.appearance.agreement`):
   a lone marker, which could be either of its face's two, takes the pose the picture agrees
   with, and is dropped when the picture agrees with neither (a marker-like pattern in some
   photo is not a card), or when it lies inside a card that several codes name and is much
   smaller than that card's own markers (a dark square of its picture). A card named by its
   QR code alone is a card only when its outline is seen round the code, where the code's
   place on the face puts it; else it is reported at a confidence no tracker follows (a QR
   code printed alone).
2. **Pictures**, against a deck (:mod:`vision.identify.deck`). **The keypoint pass** first
   (:mod:`vision.identify.keypoint_pass`): ORB keypoints of the whole frame, found once,
   looked up in the deck's index, place cards by where their votes gather
   (:func:`vision.identify.local.place_cards`); a place whose picture (its corners snapped
   to the card's edges, matched as it lies) names the card placed is named there, its
   corners fitted on the card's keypoints round it. Then card outlines from edges, in what
   those cards and the cards face down the pass placed leave (:mod:`vision.identify.quads`;
   the card size from the codes or the table plane when known;
   :mod:`vision.identify.outlines`), each rectified and described by its whole appearance,
   matched to every reference (both ways up) at once, and accepted only when the best match
   is close enough, clearly ahead of the next card, and agrees cell by cell over enough of
   the card (so a card half covered is still named, and a card that is not in the deck is
   not). An outline where a code already named a card is not matched again. **Keypoint
   verification** (:mod:`vision.identify.verification`): a match that appearance is not near
   certain of is named only when the keypoints of its card (at table size) fit the card
   there by a RANSAC homography with enough inliers, better than the next cards most like
   it; an outline appearance left undecided is named by the best fit among its shortlist
   (the cards most like it) and the card its keypoints retrieve from the whole deck
   (:class:`vision.identify.local.KeypointIndex`) when that fit is strong, clearly ahead and
   spread over the card (and, for a retrieved card, its picture agrees there), with the
   corners from the fit; outlines that look like the deck's card back are not checked.
   **Search over the whole frame** (:mod:`vision.identify.frame_search`), before the
   undecided outlines: each place of the keypoint pass away from the cards already named is
   checked as an undecided outline is (its picture must agree there too): this finds cards
   with no outline of their own (touching cards merged into one region). **What the named
   cards leave** (:mod:`vision.identify.leftovers`), last: the parts of the silhouettes
   left, each verified in a card-sized window.
3. **Local features** (:mod:`vision.identify.local`), for decks of a few cards (photos of
   objects, cards held close): ORB keypoints of the whole frame matched to each reference
   and verified by a RANSAC homography; this finds a card whatever its outline. Where it
   finds some on a frame that shows no table (no card read by its codes, none of the play
   area's or the board's markers, no calibration), step 2 is left out: its outlines are for
   cards lying on a table, and on a photo with a texture of many lines (graffiti) they cost
   a second where this costs about as much as ORB and RANSAC alone.
4. **Zones**: with a calibration, the table plane from the play-area markers gives each
   card's seat zone (:mod:`vision.identify.zones`).

Outlines that look like a card (all four sides seen) but match nothing are reported as
``unknown`` with their corners: a card not in the deck, or too covered to tell, is never
given a guessed id.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.files import CalibrationFile
from vision.identify import local, placing, quads, table_plane
from vision.identify.candidates import (
    DEFAULT_THRESHOLDS,
    Thresholds,
    _Candidate,
    _card_height,
    _card_sized,
    _long_side,
    _merge,
    _overlaps_any,
    _short_side,
)
from vision.identify.code_cards import QR_UNFRAMED_CONFIDENCE, _by_codes, kit_face_cells
from vision.identify.codes import CodeReader
from vision.identify.deck import ReferenceDeck, build_deck
from vision.identify.frame_search import _by_frame_search
from vision.identify.keypoint_pass import (
    FramePass,
    _backs_placed,
    _by_places,
    _frame_pass,
    _snapped_outlines,
)
from vision.identify.leftovers import _by_leftovers
from vision.identify.outlines import card_outlines, grow_quads, match_outlines, table_markers
from vision.identify.reading import FACE_OF_SIDE, CardReading, FrameCards, UnknownCard
from vision.identify.verification import (
    VERIFY_LEAD,
    VERIFY_MIN_INLIERS,
    WEAK_FIT_MIN_INLIERS,
    _by_verification,
    _has_keypoints,
    _looks_face_down,
    verify_outline,
)
from vision.identify.zones import TableZones, table_zones

#: Decks up to this many cards are also searched by local features over the whole frame.
GLOBAL_SEARCH_MAX_CARDS = 16

#: Picture matches less probable than this (by appearance) are named only when their
#: keypoints confirm them (on the tables the decision was fitted on, every right match under
#: it had at least VERIFY_MIN_INLIERS inliers, more than any other card of its shortlist;
#: the wrong ones had none).
CONFIRM_BELOW = 0.999
#: A picture match of an outline from the line search (``quads.rectangles_from_lines``) less
#: probable than this is checked by its keypoints too, and not named when they fit another
#: card of its shortlist (a full fit, leading by VERIFY_LEAD): a straight line inside a
#: picture (a sea's horizon) makes a card-shaped rectangle of part of a card, whose picture
#: can look like another card's whole (seed 2, scene 229: pickpic-120's sea and beach named
#: pickpic-072 at 0.9996; its keypoints fit pickpic-120 with 57 inliers). Checking every
#: line outline's match above CONFIRM_BELOW cost 1.04 x the time and named the same cards.
LINES_CHECK_BELOW = 0.9999
#: A match to confirm is fitted against this many of the cards most like it (itself first).
CONFIRM_SHORTLIST = 3
#: Outlines whose shorter side is under this (px) are named by their picture only when their
#: keypoints confirm it, however sure the appearance is. A small patch of a real photo (a
#: window pane, a few squares of a chessboard, a JPEG-flattened blob) can look like a card's
#: whole picture at the appearance's coarse cells: on real photographs, regions 29 to 81 px
#: across were named by appearance alone at 0.999 to 1.0, all wrong (none of the pictures
#: seen at 100 px and more). On rendered tables (``pictable.bench.readers.identify``
#: features, seed 0) the keypoints confirm nearly every small card: 0 of 694 normal-tier
#: cards lost, 6 of 386 hard-tier cards with full fits only.
APPEARANCE_ALONE_MIN_PX = 100.0
#: ... and for those small outlines appearance is sure of (``CONFIRM_BELOW`` and up), a fit of
#: ``WEAK_FIT_MIN_INLIERS`` inliers leading the next card of the shortlist by this many is
#: confirmation enough: 2 of those 6 hard-tier cards back (leads of 1 and 3 alike), no
#: wrong id on the real photos.
SMALL_FIT_LEAD = 3

#: Frames narrower or lower than this (px) are refused: no card fits in them.
MIN_FRAME_PX = 16


def check_frame(frame: object) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """(BGR (H, W, 3), grey (H, W)) uint8 views of a frame; grey and BGRA frames are converted.
    Raises ``ValueError`` naming the shape and dtype of anything else."""
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"frame must be an (H, W, 3) uint8 array, got {type(frame).__name__}")
    ok = (
        frame.dtype == np.uint8
        and frame.size > 0
        and (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] in (1, 3, 4)))
    )
    if not ok:
        raise ValueError(f"frame must be (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
    if min(frame.shape[:2]) < MIN_FRAME_PX:
        raise ValueError(
            f"frame too small: {frame.shape[1]} x {frame.shape[0]} px, at least "
            f"{MIN_FRAME_PX} px each way"
        )
    if frame.ndim == 2 or frame.shape[2] == 1:
        grey = np.ascontiguousarray(frame.reshape(frame.shape[:2]))
        return np.asarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), np.uint8), grey
    bgr = (
        frame
        if frame.shape[2] == 3
        else np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR), np.uint8)
    )
    bgr = np.ascontiguousarray(bgr)
    return bgr, np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), np.uint8)


def identify_frame(
    frame: NDArray[np.uint8],
    deck: ReferenceDeck | Mapping[str, NDArray[np.uint8]] | None = None,
    *,
    codes: CodeReader | None = "fast",
    features: bool = True,
    calibration: CalibrationFile | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    precise: bool = False,
    game: str | None = None,
) -> FrameCards:
    """Every card in ``frame`` ((H, W, 3) uint8 BGR; grey and BGRA are converted).

    ``deck``: the references for identification by picture (a :class:`ReferenceDeck`, or a
    mapping card id -> face image, (H, W, 3) uint8 BGR, built into a deck here); None: codes
    only. ``codes``: ``"fast"``, ``"full"`` (see :mod:`vision.identify.codes`) or None (no
    codes: pictures alone). ``features``: match pictures (when a deck is given).
    ``calibration``: gives seat zones (and the card size) when the play-area markers are in
    view. ``precise``: refine the outline of cards found by keypoints by correlation (a
    fraction of a pixel instead of a few; some tenths of a second per card), and place cards
    named by their pictures again on outlines of their own where their pictures agree better
    there (:mod:`vision.identify.placing`; 4-6 ms a frame): for photos, not live video.
    ``game``: the game whose cards are on the table (``"pickpic"``, ...): markers of other
    games' cards are ignored, and those of its cards that are not read bit for bit are also
    named by their likeness to them (:func:`vision.identify.codes.soft_markers`) where the
    card's picture agrees. See the module docstring for the steps. Raises ``ValueError`` for
    a frame that is not an image.
    """
    bgr, grey = check_frame(frame)
    if deck is not None and not isinstance(deck, ReferenceDeck):
        deck = _deck_of_images(deck)
    warnings: list[str] = []
    zones: TableZones | None = None
    if calibration is not None:
        found = table_zones(bgr, calibration)
        if isinstance(found, TableZones):
            zones = found
        else:
            warnings.append(f"no seat zones: {found}")
    # The edge gradients, worked out only when needed (codes that fitted their cards'
    # outlines by themselves do not need them): round the few cards the codes snap, or the
    # whole frame at once when pictures are read (outlines are refined all over it: crops
    # of it cost more than the whole).
    pictures = deck is not None and features and len(deck) > 0
    grads = functools.cache(lambda: quads.Gradients(grey, whole=pictures))
    # The silhouettes, made once for the codes' outlines and the pictures'.
    regions = functools.cache(lambda: quads.silhouettes(grey))
    readings: list[_Candidate] = []
    if codes is not None:
        readings.extend(_by_codes(bgr, grey, grads, codes, thresholds, game, regions))
    unknown: list[UnknownCard] = []
    if deck is not None and features and len(deck):
        # A QR code read where no card's outline is (QR_UNFRAMED_CONFIDENCE) says nothing of
        # a card's place or size there: its pictures may still name the card.
        placed = [r for r in readings if r.confidence > QR_UNFRAMED_CONFIDENCE]
        taken = [r.corners for r in placed]
        height = _height_hint(placed, zones, grey.shape)
        small_deck = len(deck) <= GLOBAL_SEARCH_MAX_CARDS
        by_keypoints = _by_keypoints(grey, deck, precise) if small_deck else []
        unknown_quads: list[quads.Outline] = []
        # A small deck's pictures found on a photo that shows no table need no outlines;
        # none found, the outlines may still find cards too small or plain for keypoints.
        found_markers = functools.cache(lambda: table_markers(grey))  # at most once
        frame_pass = functools.cache(lambda: _frame_pass(grey, deck))  # the same
        table = not by_keypoints or _shows_a_table(placed, zones, found_markers)
        if table:
            found_cards, unknown_quads = _by_pictures(
                bgr, grey, grads(), deck, taken, height, thresholds, found_markers(), regions(),
                frame_pass(),
            )  # fmt: skip
            # A card retrieved by its keypoints can land on a card its codes already named:
            # one reading per card and per place.
            readings = _merge(readings, found_cards)
        readings = _merge(readings, by_keypoints)
        if table:  # a picture on no table has no card edges to snap to
            readings, supports = _snap_fits(readings, grads())
            readings = _settled_by_picture(readings, grey, deck, grads(), supports)
            readings = placing.placed_by_correlation(readings, bgr, grey, deck)
            if precise:  # its outline search costs 4-6 ms a frame: for photos, not video
                readings = placing.placed_by_outlines(readings, bgr, grey, grads(), regions(), deck)
            else:  # a small card's perspective is slight: its outline's is the fits' noise
                readings = placing.small_as_parallelograms(readings, grey.shape)
            readings = table_plane.placed_on_plane(readings, bgr, deck, frame_pass().keypoints)
        card_height = _card_height(readings)  # once, not per unknown outline
        unknown = [
            UnknownCard(q.corners_px, q.outline, None)
            for q in unknown_quads
            if not _overlaps_any(q.corners_px, [r.corners for r in readings], 0.3)
            and _card_sized(q.corners_px, card_height)
        ]
    cards = [
        CardReading(
            card=r.card,
            corners_px=r.corners.astype(np.float32),
            face=FACE_OF_SIDE[r.side],
            side=r.side,
            method="code" if r.method == "code" else "features",
            confidence=float(np.clip(r.confidence, 0.0, 1.0)),
            zone=None if zones is None else zones.zone(r.corners.mean(axis=0)),
            evidence=r.evidence,
        )
        for r in sorted(readings, key=lambda r: -r.confidence)
    ]
    if zones is not None:
        unknown = [UnknownCard(u.corners_px, u.outline, zones.zone(u.center_px)) for u in unknown]
    return FrameCards(tuple(cards), tuple(unknown), (bgr.shape[1], bgr.shape[0]), tuple(warnings))


# ---- pictures ------------------------------------------------------------------------------


def _shows_a_table(
    placed: list[_Candidate],
    zones: TableZones | None,
    found_markers: Callable[[], tuple[NDArray[np.float64], NDArray[np.intp]]],
) -> bool:
    """Whether the frame shows a table cards lie on: a card read by its codes, seat zones
    from a calibration, or the play area's or the board's markers in view
    (``found_markers()``: :func:`vision.identify.outlines.table_markers` of the frame, read
    only when the rest says nothing)."""
    return bool(placed) or zones is not None or len(found_markers()[0]) > 0


def _height_hint(
    readings: list[_Candidate], zones: TableZones | None, shape: tuple[int, ...]
) -> float | None:
    """The card height (px) expected in this frame: from cards named by codes, else from the
    table plane at the frame's centre, else None."""
    if readings:
        h = [
            (
                np.linalg.norm(r.corners[1] - r.corners[2])
                + np.linalg.norm(r.corners[0] - r.corners[3])
            )
            / 2
            for r in readings
        ]
        return float(np.median(h))
    if zones is not None:
        return zones.card_height_px(np.array([shape[1] / 2, shape[0] / 2]))
    return None


def _by_pictures(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    grads: quads.Gradients,
    deck: ReferenceDeck,
    taken: list[NDArray[np.float64]],
    height: float | None,
    t: Thresholds,
    found_markers: tuple[NDArray[np.float64], NDArray[np.intp]],
    regions: tuple[NDArray[np.uint8], float],
    frame_pass: FramePass,
) -> tuple[list[_Candidate], list[quads.Outline]]:
    markers = found_markers[0]
    # The keypoint pass first: the cards its places name need no outline of their own (a
    # small deck's cards are each searched over the whole frame later, for precise corners).
    backs = _backs_placed(bgr, deck, frame_pass, taken)
    chosen = []
    if len(deck) > GLOBAL_SEARCH_MAX_CARDS:
        chosen = _by_places(bgr, grads, deck, frame_pass, taken, t)
    named = [*taken, *(c.corners for c in chosen)]
    # Nor do the cards face down the pass placed: their outlines (snapped to their edges) are
    # reported unknown as the outlines that look like the back are.
    face_down = _snapped_outlines(grads, backs)
    outlines = card_outlines(
        grey, deck, grads, height, regions, found_markers, [*(c.corners for c in chosen), *backs]
    )
    outlines = [o for o in outlines if not _overlaps_any(o.corners_px, named, 0.4)]
    # No outline left is no reason to stop: the search over the whole frame finds cards that
    # have none of their own.
    matches = match_outlines(bgr, outlines, deck) if outlines else []
    used: set[int] = set()
    for m in sorted(matches, key=lambda m: -m.probability):
        if m.probability < t.accept:
            break
        if any(c.card == m.card for c in chosen):
            continue
        if _overlaps_any(m.corners, [c.corners for c in chosen], 0.4):
            continue
        evidence: tuple[str, ...] = ("picture",)
        lines = outlines[m.outline].source in ("lines", "tiles")
        checked_below = LINES_CHECK_BELOW if lines else CONFIRM_BELOW
        # Too small for its appearance alone: its keypoints must confirm it (none: no name).
        small = _short_side(m.corners) < APPEARANCE_ALONE_MIN_PX
        checkable = m.quad is not None and _has_keypoints(deck, m)
        if small and not checkable:
            continue
        if (m.probability < checked_below or small) and checkable:
            assert m.quad is not None
            shortlist = list(m.shortlist[:CONFIRM_SHORTLIST])
            sure = m.probability >= CONFIRM_BELOW
            need = WEAK_FIT_MIN_INLIERS if sure else VERIFY_MIN_INLIERS
            found = verify_outline(grey, m.quad, shortlist, deck, need)
            # The card a full fit names (None: no full fit), and by how much it leads.
            fit = None
            lead = found.inliers - found.second if found is not None else 0
            if found is not None and found.inliers >= VERIFY_MIN_INLIERS:
                fit = deck.ids[found.card]
            elif small and sure and found is not None and lead >= SMALL_FIT_LEAD:
                # A small card its appearance is sure of: a weak fit that leads will do (a
                # small card has few keypoints).
                fit = deck.ids[found.card]
            if m.probability < CONFIRM_BELOW or small:
                # Not sure enough by appearance alone (or too small for it): its keypoints
                # must fit it, better than the other cards most like it (else the outline
                # goes to verification below).
                if fit != m.card:
                    continue
                evidence += ("keypoints",)
            elif fit is not None and fit != m.card and lead >= VERIFY_LEAD:
                # A line outline's match, checked (LINES_CHECK_BELOW): its keypoints fit
                # another card; the outline is part of that card.
                continue  # part of another card (the outline goes to verification below)
        chosen.append(
            _Candidate(
                m.card, m.corners, m.probability, "features", "front", evidence,
                outlines[m.outline].outline,
            )
        )  # fmt: skip
        used.add(m.outline)
    chosen.extend(_by_frame_search(bgr, grey, deck, frame_pass, chosen, taken, markers))
    # Outlines that look like the deck's back are cards face down too (the outlines found on
    # their pattern are not cards to verify).
    backs += [m.quad for m in matches if m.quad is not None and _looks_face_down(m)]
    # Outlines of a long cluster's tiles need a full fit (an arm's sleeve gives rectangles).
    tiled = {i for i, o in enumerate(outlines) if o.source == "tiles"}
    chosen.extend(_by_verification(bgr, grey, matches, deck, chosen, used, markers, backs, tiled))
    chosen.extend(_by_leftovers(bgr, grey, deck, chosen, taken, regions, markers, backs))
    unmatched = [o for i, o in enumerate(outlines) if i not in used]
    unknown = [
        o
        for o in [*unmatched, *face_down]
        if o.outline >= t.unknown_outline
        and float(o.support.min()) >= 0.7
        and not _overlaps_any(o.corners_px, [c.corners for c in chosen], 0.3)
    ]
    kept: list[quads.Outline] = []  # one unknown per place
    for o in sorted(unknown, key=lambda o: -o.outline):
        if not _overlaps_any(o.corners_px, [k.corners_px for k in kept], 0.3):
            kept.append(o)
    return chosen, kept


#: Cards placed by a keypoint fit have their sides snapped to the card's edges within this
#: share of the card's height (at least 4 px). A fit on a small or blurred card, its
#: keypoints on one part of it, can put the far corners well off the card: on the hard tier
#: of seed 0 (features, 60 scenes), 44 of 299 cards named right had a corner more than 10%
#: of the card's height off; snapped within 4 px 35, 6% 29, 8% 18, 10% 19, 12% 23, 20% 22
#: (normal tier: 21 -> 11 of 412 at 8%).
SNAP_SHARE = 0.08


def _snap_fits(
    readings: list[_Candidate], grads: quads.Gradients
) -> tuple[list[_Candidate], list[NDArray[np.float64] | None]]:
    """``readings`` with the outline of each card a keypoint fit placed (method features,
    keypoints among its evidence) snapped to the card's edges (``SNAP_SHARE``), when the
    snapped sides lie on stronger edges than the fit's, the weakest and on average; and for
    each reading, the (4,) support of its outline's sides when measured here (None when not:
    the outline was not a fit's, or was snapped)."""
    gx, gy = grads
    out: list[_Candidate] = []
    supports: list[NDArray[np.float64] | None] = []
    for r in readings:
        if r.method != "features" or "keypoints" not in r.evidence:
            out.append(r)
            supports.append(None)
            continue
        q = np.asarray(r.corners, np.float64).reshape(1, 4, 2)
        height = max(_long_side(q[0]), 1.0)
        _, before = quads.refine_quads(gx, gy, q, 0.0, 16, 1)
        snapped, after = quads.refine_quads(gx, gy, q, max(4.0, SNAP_SHARE * height), 16, 2)
        if _on_stronger_edges(after, before):
            r = _Candidate(
                r.card, snapped[0], r.confidence, r.method, r.side, r.evidence, r.support
            )
            supports.append(None)
        else:
            supports.append(before[0])
        out.append(r)
    return out, supports


def _on_stronger_edges(after: NDArray[np.float64], before: NDArray[np.float64]) -> bool:
    """Whether an outline's sides, of support ``after`` (:func:`quads.refine_quads`' measure),
    lie on stronger edges than those of support ``before``: the weakest and on average."""
    return float(after.min()) > float(before.min()) and float(after.mean()) > float(before.mean())


# ---- keypoints -----------------------------------------------------------------------------


#: A card found by keypoints over the whole frame must lie at least this share inside it. A
#: fit on a few shared details (a QR code's three finder patterns, alike in every QR code)
#: can put a card several times the frame's size round them: on ZXing's QR photos, QR-page
#: photos registered as cards were found so in frames of other codes, 16-32% of them
#: inside the frame; every right fit on those photos was 88% inside or more.
MIN_SHARE_IN_FRAME = 0.5


def _share_in_frame(corners: NDArray[np.floating], shape: tuple[int, ...]) -> float:
    """The share of the area of a (4, 2) quad that lies inside a frame of ``shape``."""
    q = np.asarray(corners, np.float32).reshape(4, 2)
    area = abs(cv2.contourArea(q))
    if area < 1 or not cv2.isContourConvex(q.reshape(-1, 1, 2)):
        return 0.0
    h, w = shape[:2]
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inter, _ = cv2.intersectConvexConvex(q, frame)
    return float(inter / area)


#: A card named by its picture whose outline's weakest side lies on an edge of less than this
#: support (:func:`vision.identify.quads.refine_quads`' measure, 0-1) is placed again by its
#: picture's correlation with the frame (:func:`_settled_by_picture`,
#: :func:`vision.identify.placing.correlated`); the new place is kept only where its sides
#: lie on stronger edges, the weakest and on average. Features scenes of seed 0 (60 normal,
#: 60 hard; development): readings more than 10% of the card's height off went hard 17 -> 10
#: and normal 10 -> 9 at 0.6, 8 and 8 at 0.7, 8 and 7 at 0.8; on the 12-card speed frames
#: the step then costs about 1.6, 7.5 and 10 ms a frame (median): 0.6 keeps reading by
#: pictures within its 60 ms.
SETTLE_SUPPORT = 0.6


def _settled_by_picture(
    readings: list[_Candidate], grey: NDArray[np.uint8], deck: ReferenceDeck,
    grads: quads.Gradients, supports: Sequence[NDArray[np.float64] | None] = (),
) -> list[_Candidate]:  # fmt: skip
    """``readings`` with the outline of each card named by its picture (method features) whose
    weakest side is not on an edge (:data:`SETTLE_SUPPORT`) placed again by the correlation
    of its reference picture with the frame (:func:`vision.identify.placing.correlated`, from
    the outline), when that puts its sides on stronger edges. A keypoint fit on a few
    keypoints of a card, a fully visible, sharp card among them, can put its far side a
    quarter of its height off, beyond the reach of snapping to its edges. ``supports``: the
    (4,) support of each reading's sides where already measured (:func:`_snap_fits`)."""
    gx, gy = grads
    out = []
    for k, r in enumerate(readings):
        if r.method != "features":
            out.append(r)
            continue
        q = np.asarray(r.corners, np.float64).reshape(1, 4, 2)
        measured = supports[k] if k < len(supports) else None
        if measured is None:
            _, before = quads.refine_quads(gx, gy, q, 0.0, 16, 1)
        else:
            before = np.asarray(measured, np.float64).reshape(1, 4)
        # (A card or two a frame get past this: the deck's ids are looked up only for them.)
        if float(before.min()) >= SETTLE_SUPPORT or r.card not in deck.ids:
            out.append(r)
            continue
        moved = placing.correlated(grey, deck, deck.ids.index(r.card), q[0])
        if moved is None:
            out.append(r)
            continue
        _, after = quads.refine_quads(gx, gy, moved.reshape(1, 4, 2), 0.0, 16, 1)
        if _on_stronger_edges(after, before):
            r = replace(r, corners=moved)
        out.append(r)
    return out


def _by_keypoints(grey: NDArray[np.uint8], deck: ReferenceDeck, precise: bool) -> list[_Candidate]:
    """Cards of a small deck found by local features over the whole frame."""
    frame_kp = local.detect(grey, local.FRAME_FEATURES)
    out = []
    for i, card in enumerate(deck.cards):
        found = local.verify(deck.keypoints(i), frame_kp, deck.outline(i))
        if found is None:
            continue
        homography = found.homography
        if precise:
            ref = deck.reference_grey(i)
            if ref is not None:
                homography = local.refine_ecc(ref, grey, homography)
        corners = cv2.perspectiveTransform(deck.outline(i).reshape(-1, 1, 2), homography)
        if _share_in_frame(corners.reshape(4, 2), grey.shape) < MIN_SHARE_IN_FRAME:
            continue
        conf = min(0.99, 0.6 + 0.01 * found.inliers)
        out.append(
            _Candidate(
                card.id,
                np.asarray(corners, np.float64).reshape(4, 2),
                conf,
                "features",
                "front",
                ("keypoints",),
            )
        )
    return out


# ---- decks from images (the benchmark's one-card decks) -----------------------------------


_DECK_CACHE: dict[tuple[object, ...], ReferenceDeck] = {}


def _deck_of_images(images: Mapping[str, NDArray[np.uint8]]) -> ReferenceDeck:
    """A deck built from card id -> image, cached by the images' content (a mapping passed
    again costs nothing)."""
    key = tuple(
        (
            str(k),
            v.shape,
            hash(v[:: max(1, v.shape[0] // 16), :: max(1, v.shape[1] // 16)].tobytes()),
        )
        for k, v in images.items()
    )
    deck = _DECK_CACHE.get(key)
    if deck is None:
        deck = build_deck("images", dict(images))
        if len(_DECK_CACHE) > 8:
            _DECK_CACHE.clear()
        _DECK_CACHE[key] = deck
    return deck


__all__ = [
    "DEFAULT_THRESHOLDS",
    "GLOBAL_SEARCH_MAX_CARDS",
    "Thresholds",
    "check_frame",
    "grow_quads",
    "identify_frame",
    "kit_face_cells",
]
