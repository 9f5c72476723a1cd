"""``identify_frame``: every card in one frame, by its printed codes and by its picture.

Stateless: a frame in, a :class:`~vision.identify.reading.FrameCards` out. The steps:

1. **Codes** (:mod:`vision.identify.codes`): kit cards by their markers and QR codes, the
   codes of one card voting for its id, face and pose. Each card's outline is snapped to its
   edges and checked against the kit's picture of that face (the share of the card that
   looks like it, :func:`vision.identify.appearance.agreement`): a lone marker, which could
   be either of its face's two, takes the pose the picture agrees with, and is dropped when
   the picture agrees with neither (a marker-like pattern in some photo is not a card), or
   when it lies inside a card that several codes name and is much smaller than that card's
   own markers (a dark square of its picture). A card named by its QR code alone is a card
   only when its outline is seen round the code, where the code's place on the face puts
   it; else it is reported at a confidence no tracker follows (a QR code printed alone).
2. **Pictures**, against a deck (:mod:`vision.identify.deck`). **The keypoint pass** first
   (:func:`_frame_pass`, :func:`_by_places`): ORB keypoints of the whole frame, found once,
   looked up in the deck's index, place cards by where their votes gather
   (:func:`vision.identify.local.place_cards`); a place whose picture (its corners snapped
   to the card's edges, matched as it lies) names the card placed is named there, its
   corners fitted on the card's keypoints round it. Then card outlines from edges, in what
   those cards and the cards face down the pass placed leave
   (:mod:`vision.identify.quads`; the card size from the codes or the table plane when
   known), each rectified and described by its whole appearance, matched to every
   reference (both ways up) at once, and accepted only when the best match is close enough,
   clearly ahead of the next card, and agrees cell by cell over enough of the card (so a
   card half covered is still named, and a card that is not in the deck is not). An
   outline where a code already named a card is not matched again.
   **Keypoint verification** (:func:`verify_outline`): a match that appearance is not near
   certain of is named only when the keypoints of its card (at table size) fit the card
   there by a RANSAC homography with enough inliers, better than the next cards most like
   it; an outline appearance left undecided is named by the best fit among its shortlist
   (the cards most like it) and the card its keypoints retrieve from the whole deck
   (:class:`vision.identify.local.KeypointIndex`) when that fit is strong, clearly ahead
   and spread over the card (and, for a retrieved card, its picture agrees there), with
   the corners from the fit; outlines that look like the deck's card back are not checked.
   **Search over the whole frame** (:func:`_by_frame_search`), before the undecided
   outlines: each place of the keypoint pass away from the cards already named is checked
   as an undecided outline is (its picture must agree there too): this finds cards with no
   outline of their own (touching cards merged into one region).
3. **Local features** (:mod:`vision.identify.local`), for decks of a few cards (photos of
   objects, cards held close): ORB keypoints of the whole frame matched to each reference
   and verified by a RANSAC homography; this finds a card whatever its outline.
4. **Zones**: with a calibration, the table plane from the play-area markers gives each
   card's seat zone (:mod:`vision.identify.zones`).

Outlines that look like a card (all four sides seen) but match nothing are reported as
``unknown`` with their corners: a card not in the deck, or too covered to tell, is never
given a guessed id.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.files import CalibrationFile
from vision.identify import appearance, local, quads
from vision.identify.codes import (
    CodeCard,
    CodeReader,
    face_geometry,
    read_fiducials,
    read_sightings,
    vote,
)
from vision.identify.deck import ReferenceDeck, build_deck
from vision.identify.reading import FACE_OF_SIDE, CardReading, FrameCards, Side, UnknownCard
from vision.identify.zones import TableZones, table_zones
from vision.kit import geometry


@dataclass(frozen=True)
class Thresholds:
    """Decision thresholds (measured on rendered tables, see ``vision/identify/README.md``):
    ``accept`` the least probability (:func:`picture_probability`) a picture match needs;
    ``agree`` the share of cells (:func:`~vision.identify.appearance.agreement`) above which
    a card named by its codes counts its picture as evidence; ``code_agree`` the share a lone
    marker's card needs; ``unknown_outline`` the outline support an unmatched outline needs
    to be reported as an unknown card."""

    accept: float = 0.97
    agree: float = 0.35
    code_agree: float = 0.3
    unknown_outline: float = 0.8


DEFAULT_THRESHOLDS = Thresholds()
#: Decks up to this many cards are also searched by local features over the whole frame.
GLOBAL_SEARCH_MAX_CARDS = 16
#: Decks of fewer cards than this have no mean taken away (``ReferenceDeck.mean_descriptor``)
#: and their best match must lead a stand-in rival cosine instead of the next card's.
SMALL_DECK = 8
SMALL_DECK_RIVAL = 0.6
#: Picture matches under this cosine are not compared cell by cell (none reached the
#: decision's threshold on the rendered tables it was fitted on).
_CHECK_COSINE = 0.3
#: Keypoint verification (:func:`verify_outline`): the cards of an outline's shortlist (by
#: appearance) whose keypoints are fitted; the least cosine an outline's best match needs to
#: be checked; the inliers the best fit needs, and its lead over the next candidate's.
VERIFY_SHORTLIST = 5
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
#: this share of the deck's distinct cells (``Thresholds.agree``'s value: on seed 0 the one
#: card not in the deck so named agreed 0.18, the right ones 0.63 and more).
RETRIEVED_MIN_AGREE = 0.35
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
#: How much better (the share of its outline seen as edges + half the picture's agreement)
#: one pose of a lone marker must be than the other (on rendered tables, seeds 0 and 1, the
#: true pose led by at least this in all of 297 lone markers, a wrong one never did).
_POSE_MARGIN = 0.15
#: A lone marker inside a card that several codes name, and narrower than this share of that
#: card's own markers there, is a dark square of its picture (a letter of a card's word or
#: title read at 150 dpi, 0.23-0.27 of the markers: pictures of picmix-red-4 and picflip-042
#: named on printed pages of other games) and is dropped.
LONE_SPECK_SIZE = 0.5
#: A card named by its QR code alone (no marker of it read) is a card only when the card's
#: outline, where the code's place on the face puts it, is seen as edges (support of at least
#: QR_ALONE_SIDE_SUPPORT, :func:`vision.identify.quads.refine_quads`) on QR_ALONE_MIN_SIDES of
#: its four sides (one may lie under a hand, or be the faint grey edge of an uncut printed
#: page: the bottom row of a page read at 100 dpi); else it is reported at
#: QR_UNFRAMED_CONFIDENCE. A QR code printed alone, on a sticker or a phone's screen carries
#: the same payload as the card's, and named any card at 0.97. 0.2 is half the least
#: confidence a tracked card is kept by (``vision.tracker.CardTracker.keep_conf`` 0.4; a
#: track starts at 0.6, the Pick Pic and Pic Flip followers read cards from 0.5, Picmix
#: names them from 0.9): such a reading is shown, under the threshold of every tracker.
QR_ALONE_MIN_SIDES = 3
QR_ALONE_SIDE_SUPPORT = 0.5
QR_UNFRAMED_CONFIDENCE = 0.2
#: The edges of a card named by a QR code alone are looked for within this share of the
#: card's short side of where the code puts them (at least 5 px, as every code's outline):
#: the code's corners, mapped out to the card's by an affine fit, miss them by a few per cent
#: where the card is large or seen in perspective. Kit faces with their markers painted out,
#: 2.5-10 px/mm, turned, 0-10% keystone, on four table colours (225 of them): their outline
#: seen on 3 sides or more within 5 px 119 times, within 3% 193, within 4% 223, within 5%
#: 214; the same codes alone (sticker-like quiet zones, phones) 2, 2, 4 and 5 times of 223,
#: every time on a phone whose screen was cut to the card's size round the code.
QR_ALONE_REACH = 0.04


@dataclass(frozen=True)
class _Candidate:
    card: str
    corners: NDArray[np.float64]
    confidence: float
    method: str
    side: Side
    evidence: tuple[str, ...]
    support: float = 1.0


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
) -> FrameCards:
    """Every card in ``frame`` ((H, W, 3) uint8 BGR; grey and BGRA are converted).

    ``deck``: the references for identification by picture (a :class:`ReferenceDeck`, or a
    mapping card id -> face image, (H, W, 3) uint8 BGR, built into a deck here); None: codes
    only. ``codes``: ``"fast"``, ``"full"`` (see :mod:`vision.identify.codes`) or None (no
    codes: pictures alone). ``features``: match pictures (when a deck is given).
    ``calibration``: gives seat zones (and the card size) when the play-area markers are in
    view. ``precise``: refine the outline of cards found by keypoints by correlation (a
    fraction of a pixel instead of a few; some tenths of a second per card: for photos, not
    live video). See the module docstring for the steps. Raises ``ValueError`` for a frame
    that is not an image.
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
    readings: list[_Candidate] = []
    if codes is not None:
        readings.extend(_by_codes(bgr, grey, grads, codes, thresholds))
    unknown: list[UnknownCard] = []
    if deck is not None and features and len(deck):
        # A QR code read where no card's outline is (QR_UNFRAMED_CONFIDENCE) says nothing of
        # a card's place or size there: its pictures may still name the card.
        placed = [r for r in readings if r.confidence > QR_UNFRAMED_CONFIDENCE]
        taken = [r.corners for r in placed]
        height = _height_hint(placed, zones, grey.shape)
        found_cards, unknown_quads = _by_pictures(
            bgr, grey, grads(), deck, taken, height, thresholds
        )
        # A card retrieved by its keypoints can land on a card its codes already named: one
        # reading per card and per place.
        readings = _merge(readings, found_cards)
        if len(deck) <= GLOBAL_SEARCH_MAX_CARDS:
            readings = _merge(readings, _by_keypoints(grey, deck, precise))
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


# ---- codes ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def kit_face_cells(card: str, side: str) -> NDArray[np.float32]:
    """(gh, gw, 3) Lab cells of a kit card's face, oriented as the face (portrait 25 x 18,
    landscape 18 x 25)."""
    from vision.kit import render_face

    face = render_face(card, side, 4.0)  # type: ignore[arg-type]
    gw, gh = appearance.GRID_WH
    grid = (gw, gh) if face.shape[0] >= face.shape[1] else (gh, gw)
    return appearance.lab_cells(face[None], grid)[0]


def _face_agreement(
    bgr: NDArray[np.uint8], poses: NDArray[np.float64], faces: list[tuple[str, str]]
) -> NDArray[np.float64]:
    """(k,) agreement of each pose (k, 4, 2) with the picture of the kit face (card, side)
    given for it; all rectified in one pass."""
    refs = [kit_face_cells(card, side) for card, side in faces]
    out = np.zeros(len(poses))
    for shape in {r.shape for r in refs}:  # portrait faces, then landscape ones
        idx = [k for k, r in enumerate(refs) if r.shape == shape]
        gh, gw = shape[:2]
        rect = appearance.rectify(bgr, poses[idx], (gw * 3, gh * 3))
        cells = appearance.lab_cells(rect, (gw, gh))
        out[idx] = appearance.agreement(cells, np.stack([refs[k] for k in idx]))
    return out


def _by_codes(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    grads: Callable[[], quads.Gradients],
    reader: CodeReader,
    t: Thresholds,
) -> list[_Candidate]:
    cards = vote(read_sightings(bgr, grey, reader))
    if not cards:
        return []
    # Every pose of every card at once: snapped to the edges, checked against its picture.
    owner = np.concatenate([[k] * (1 + len(c.alternatives)) for k, c in enumerate(cards)])
    poses = np.concatenate([np.concatenate([c.corners_px[None], c.alternatives]) for c in cards])
    # Snapped to the card's edges only where the edges were found all round, and not when
    # codes at opposite corners already fitted the outline (``CodeCard.spanned``).
    # A QR code alone is snapped (and its outline looked for) within a reach of its card's
    # size: its outline, an affine map of the code's corners out to the card's, is some
    # pixels off where the card is large or seen in perspective (QR_ALONE_REACH).
    qr_alone = np.array([cards[k].kinds == ("qr",) for k in owner])
    spanned = np.array([cards[k].spanned for k in owner])
    snap = np.flatnonzero(~spanned & ~qr_alone)
    support = np.ones((len(poses), 4))
    groups = [(snap, 5.0)] + [
        (np.array([i]), _qr_alone_reach(poses[i])) for i in np.flatnonzero(qr_alone)
    ]
    for index, radius in groups:
        if not len(index):
            continue
        gx, gy = grads()
        refined, support[index] = quads.refine_quads(gx, gy, poses[index], radius=radius)
        good = support[index].min(axis=1) >= 0.5
        poses[index] = np.where(good[:, None, None], refined, poses[index])
    agree = _face_agreement(bgr, poses, [(cards[k].card, cards[k].side) for k in owner])
    lone = np.array(
        [len(cards[k].codes) == 1 and cards[k].codes[0].kind == "marker" for k in owner]
    )
    seen = np.zeros(len(poses))
    if lone.any():
        corner = np.concatenate(
            [
                _marker_corners(c, poses[owner == k])
                for k, c in enumerate(cards)
                if lone[owner == k][0]
            ]
        )
        gx, gy = grads()
        seen[lone] = quads.corner_support(gx, gy, poses[lone], corner)
    outline = support.mean(axis=1)
    chosen: list[int | None] = []
    for k in range(len(cards)):
        idx = np.flatnonzero(owner == k)
        a, sn = agree[idx], seen[idx]
        if lone[idx[0]]:
            # A lone marker: which of its face's two is it? The true pose's outline lies on
            # the card's edges (seen wherever the card is not covered), the other's mostly
            # on the table; its picture agrees too.
            score = outline[idx] + 0.5 * a
            best = int(np.argmax(score))
            if len(score) > 1 and score[best] - np.partition(score, -2)[-2] < _POSE_MARGIN:
                chosen.append(None)  # either of the face's two markers: place not known
                continue
            if not (a[best] >= t.code_agree or (sn[best] >= 0.6 and a[best] >= 0.15)):
                chosen.append(None)  # neither the card's picture nor its edges back it
                continue
        else:
            best = int(np.argmax(a))
        chosen.append(int(idx[best]))
    unframed = [
        p is not None and c.kinds == ("qr",) and not _framed(support[p])
        for c, p in zip(cards, chosen, strict=True)
    ]
    # Cards whose place several codes (or a QR code on its card's outline) agree on.
    sure = [
        (poses[p], face_geometry(c.card, c.side)[0])
        for c, p, u in zip(cards, chosen, unframed, strict=True)
        if p is not None and not lone[p] and not u
    ]
    out = []
    for k, card in enumerate(cards):
        pick = chosen[k]
        if pick is None:
            continue
        others = [poses[p] for p in chosen if p is not None and p != pick]
        if lone[pick] and (
            _named_nearby(poses[pick], others) or _speck_on_card(card.codes[0].corners_px, sure)
        ):
            continue  # where codes name another card: a marker-like speck on that card
        confidence = _code_confidence(card, float(agree[pick]))
        if unframed[k]:
            confidence = QR_UNFRAMED_CONFIDENCE
        evidence = tuple("marker" if c.kind == "marker" else "qr" for c in card.codes)
        if agree[pick] >= t.agree:
            evidence += ("picture",)
        out.append(_Candidate(card.card, poses[pick], confidence, "code", card.side, evidence))
    return out


def _speck_on_card(
    marker_px: NDArray[np.floating],
    cards: list[tuple[NDArray[np.float64], tuple[float, float]]],
) -> bool:
    """Whether a lone marker, (4, 2) px, lies inside one of ``cards`` (each its (4, 2)
    outline px and its face's (w, h) mm) and is smaller than :data:`LONE_SPECK_SIZE` of the
    card markers printed there (every card marker is ``CARD_MARKER_MM`` wide; a card lying on
    another is as far from the camera, its markers the same size)."""
    corners = np.asarray(marker_px, np.float32).reshape(4, 2)
    centre = tuple(float(v) for v in corners.mean(axis=0))
    side = float(np.sqrt(_area(corners)))
    for outline, (w_mm, h_mm) in cards:
        if cv2.pointPolygonTest(np.asarray(outline, np.float32), centre, False) < 0:
            continue
        px_per_mm = float(np.sqrt(_area(outline) / (w_mm * h_mm)))
        if side < LONE_SPECK_SIZE * geometry.CARD_MARKER_MM * px_per_mm:
            return True
    return False


def _qr_alone_reach(pose: NDArray[np.float64]) -> float:
    """How far (px) from a card's outline ``pose`` (4, 2), as its QR code alone gives it,
    its edges are looked for: :data:`QR_ALONE_REACH` of its shorter side, at least 5 px (as
    any code's outline is snapped)."""
    sides = np.linalg.norm(pose - np.roll(pose, -1, axis=0), axis=1)
    return max(5.0, QR_ALONE_REACH * float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2))


def _framed(support: NDArray[np.float64]) -> bool:
    """Whether a card's outline is seen as edges round it: ``support`` (4,) of its sides
    (:func:`vision.identify.quads.refine_quads`), at least :data:`QR_ALONE_SIDE_SUPPORT` on
    :data:`QR_ALONE_MIN_SIDES` of them."""
    return int((support >= QR_ALONE_SIDE_SUPPORT).sum()) >= QR_ALONE_MIN_SIDES


def _named_nearby(pose: NDArray[np.float64], others: list[NDArray[np.float64]]) -> bool:
    """Whether another card placed by its codes (``others``: (4, 2) outlines) has its centre
    within a fifth of ``pose``'s diagonal of ``pose``'s centre."""
    diag = float(np.linalg.norm(pose[2] - pose[0]))
    centre = pose.mean(axis=0)
    return any(float(np.linalg.norm(o.mean(axis=0) - centre)) < 0.2 * diag for o in others)


def _marker_corners(card: CodeCard, poses: NDArray[np.float64]) -> NDArray[np.intp]:
    """For each pose of a lone-marker card, the index of the card corner nearest the marker."""
    centre = card.codes[0].corners_px.mean(axis=0)
    return np.asarray(np.argmin(np.linalg.norm(poses - centre, axis=2), axis=1), np.intp)


def _code_confidence(card: CodeCard, agree: float) -> float:
    """Two or more codes that agree: near certain; a QR code (checksummed): high; a lone
    marker: by how much of its picture agrees. Codes of another card at the same place
    lower it."""
    n = len(card.codes)
    if n >= 2:
        base = 0.99
    elif "qr" in card.kinds:
        base = 0.97
    else:
        base = 0.6 + 0.38 * min(1.0, agree / 0.7)
    return base * (0.7 if card.disagree else 1.0)


# ---- pictures ------------------------------------------------------------------------------


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


def _by_pictures(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    grads: quads.Gradients,
    deck: ReferenceDeck,
    taken: list[NDArray[np.float64]],
    height: float | None,
    t: Thresholds,
) -> tuple[list[_Candidate], list[quads.Outline]]:
    regions = quads.silhouettes(grey)
    found_markers = table_markers(grey)
    markers = found_markers[0]
    # The keypoint pass first: the cards its places name need no outline of their own (a
    # small deck's cards are each searched over the whole frame later, for precise corners).
    frame_pass = _frame_pass(grey, deck)
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
        if m.probability < checked_below and m.quad is not None and _has_keypoints(deck, m):
            shortlist = list(m.shortlist[:CONFIRM_SHORTLIST])
            found = verify_outline(grey, m.quad, shortlist, deck, VERIFY_MIN_INLIERS)
            # The card a full fit names (None: no full fit), and by how much it leads.
            fit = None
            if found is not None and found.inliers >= VERIFY_MIN_INLIERS:
                fit = deck.ids[found.card]
            lead = found.inliers - found.second if found is not None else 0
            if m.probability < CONFIRM_BELOW:
                # Not sure enough by appearance alone: its keypoints must fit it, better than
                # the other cards most like it (else the outline goes to verification below).
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


def _card_heights_at(
    markers: NDArray[np.float64], ids: NDArray[np.intp], deck: ReferenceDeck
) -> NDArray[np.float64] | None:
    """(k, 3) the height (px) a card of ``deck`` has at each of the table's ``markers``
    ((k, 4, 2) frame pixels, ``ids`` (k,)) whose size is known (x, y, height: the marker's
    mean side times the card's height over the marker's, both in mm); None when the deck's
    cards are not the kit's (their size in mm is not known)."""
    if not deck.builtin or not len(deck) or not len(markers):
        return None
    card_mm = max(geometry.face_size_wh_mm(deck.cards[0].id))
    mm = {m: geometry.PLAY_AREA_MARKER_MM for m in geometry.PLAY_AREA_MARKER_IDS}
    mm.update({m: geometry.BOARD_MARKER_MM for m in geometry.BOARD_MARKER_IDS})
    rows = []
    for corners, marker in zip(markers, ids.tolist(), strict=True):
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


# ---- keypoint verification -----------------------------------------------------------------


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
        fits[i] = local.fit_matches(refs[i], window, back, *pairs[i], min_inliers)
        top = max(top, fits[i].inliers)
    order = sorted(fits, key=lambda i: -fits[i].inliers)
    if not order:
        return None
    best = fits[order[0]]
    if best.homography is None:
        return None
    w, h = local.VERIFY_CARD_WH
    corners = local.face_corners(best.homography)
    # The rival of a full fit is the next candidate fitted on the same keypoints of the
    # window: one fitted on others is another card the window takes in (both are there), not
    # another reading of this card's picture. A weak fit's rival is the next candidate.
    full = best.inliers >= VERIFY_MIN_INLIERS
    second = next((fits[i].inliers for i in order[1:] if not full or _rival(fits[i], best)), 0)
    card = candidates[order[0]]
    if not local.card_shaped(corners, w / h, table) and best.similarity is not None:
        similar = local.face_corners(best.similarity)
        # As the homography's, the similarity's card must be of the window's card's size (a
        # few inliers close together can shrink it to a speck).
        if SIMILAR_SIZE[0] <= _area(similar) / max(_area(quad), 1.0) <= SIMILAR_SIZE[1]:
            corners = similar
    if deck.cards[card].turned:
        corners = np.roll(corners, -1, axis=0)  # portrait order -> the landscape face's
    return VerifiedOutline(card, corners, best.inliers, second, best.spread)


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
        if found is None or (m.outline in full_fit and found.inliers < VERIFY_MIN_INLIERS):
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
    if found.inliers < VERIFY_MIN_INLIERS:
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
    weak = found.inliers < VERIFY_MIN_INLIERS
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
    centre = corners.mean(axis=0)
    grown = centre + (1 + 2 * local.VERIFY_GROW) * (corners - centre)
    lo, hi = grown.min(axis=0), grown.max(axis=0)
    near = np.flatnonzero(((keypoints.xy >= lo) & (keypoints.xy <= hi)).all(axis=1))
    inside = near[_in_quad(keypoints.xy[near], grown)]
    if len(inside) < PLACE_FIT_MIN_INLIERS:
        return corners
    window = local.Keypoints(keypoints.xy[inside], keypoints.desc[inside])
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
    if found is not None and WEAK_FIT_MIN_INLIERS <= found.inliers < VERIFY_MIN_INLIERS:
        found = _fitted_again(grey, found, shortlist, deck, used, table)
    # No weak fit: a leftover is often bare table, and a card of a wood-like picture fitted 12
    # inliers on a plank (seed 0), its picture agreeing there.
    if found is None or found.inliers < VERIFY_MIN_INLIERS:
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


def _long_side(q: NDArray[np.floating]) -> float:
    """Mean length (px) of the longer pair of opposite sides of a (4, 2) quad."""
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)


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
    where the card of a fit looks like its reference, rectified from the fit's corners."""
    corners = found.corners
    if deck.cards[found.card].turned:
        corners = np.roll(corners, 1, axis=0)  # the landscape face's order -> portrait
    cells = appearance.lab_cells(appearance.rectify(bgr, corners[None]))
    ref = deck.cells[found.card][None]
    return float(appearance.agreement(cells, ref, deck.distinct_cells[None])[0])


# ---- keypoints -----------------------------------------------------------------------------


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


def _merge(a: list[_Candidate], b: list[_Candidate]) -> list[_Candidate]:
    """Readings of two methods: one per card id and one per place, the more confident kept
    (readings of the same card at the same place pool their evidence)."""
    out = list(a)
    for cand in b:
        same = [i for i, r in enumerate(out) if r.card == cand.card]
        place = [i for i, r in enumerate(out) if _overlap(r.corners, cand.corners) > 0.4]
        if same and same[0] in place:
            r = out[same[0]]
            best = r if r.confidence >= cand.confidence else cand
            out[same[0]] = _Candidate(
                best.card, best.corners, max(r.confidence, cand.confidence), r.method,
                r.side, tuple(dict.fromkeys(r.evidence + cand.evidence)), best.support,
            )  # fmt: skip
            continue
        clash = same + place
        if any(out[i].confidence >= cand.confidence for i in clash):
            continue
        out = [r for i, r in enumerate(out) if i not in clash] + [cand]
    return out


def _area(q: NDArray[np.floating]) -> float:
    """Area (px^2) of a (4, 2) quad."""
    return float(abs(cv2.contourArea(np.asarray(q, np.float32).reshape(4, 2))))


def _height(q: NDArray[np.floating]) -> float:
    """Mean length (px) of the long sides of an ordered (4, 2) quad."""
    q = np.asarray(q, np.float64)
    return float((np.linalg.norm(q[1] - q[2]) + np.linalg.norm(q[3] - q[0])) / 2)


def _card_height(readings: list[_Candidate]) -> float | None:
    """The median height (px, the longer of a card's two side pairs) of the cards identified
    in the frame (None when none was)."""
    if not readings:
        return None
    return float(
        np.median(
            [max(_height(r.corners), _height(np.roll(r.corners, 1, axis=0))) for r in readings]
        )
    )


def _card_sized(q: NDArray[np.floating], card_height: float | None) -> bool:
    """Whether an outline is the size of the cards identified in the frame, whose height
    (:func:`_card_height`) is ``card_height`` (any size when None)."""
    if card_height is None:
        return True
    h = max(_height(q), _height(np.roll(np.asarray(q), 1, axis=0)))
    return 0.7 * card_height <= h <= 1.4 * card_height


#: From this many quads on, :func:`_overlaps_any` sets the quads apart from ``q`` all together
#: first (fewer cost less one by one).
_OVERLAP_BATCH = 4


def _overlaps_any(
    q: NDArray[np.floating], others: Sequence[NDArray[np.floating]], share: float
) -> bool:
    """Whether (4, 2) quad ``q`` overlaps any of the (4, 2) quads ``others`` by more than
    ``share`` (:func:`_overlap`; ``share`` >= 0). Quads whose bounding boxes are apart (most
    of a frame's) are told apart at once, all together."""
    if len(others) < _OVERLAP_BATCH:
        return any(_overlap(q, o) > share for o in others)
    quads_px = np.asarray(others, np.float32).reshape(-1, 4, 2)
    pa = np.asarray(q, np.float32).reshape(4, 2)
    below, above = quads_px.max(axis=1) < pa.min(axis=0), quads_px.min(axis=1) > pa.max(axis=0)
    apart = (below | above).any(axis=1)
    return any(_overlap(pa, o) > share for o in quads_px[~apart])


def _overlap(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """Intersection over the smaller area of two (4, 2) quads (0 when either is degenerate)."""
    pa = np.asarray(a, np.float32).reshape(4, 2)
    pb = np.asarray(b, np.float32).reshape(4, 2)
    area_a = abs(cv2.contourArea(pa))
    area_b = abs(cv2.contourArea(pb))
    if area_a < 1 or area_b < 1:
        return 0.0
    if not (
        cv2.isContourConvex(pa.reshape(-1, 1, 2)) and cv2.isContourConvex(pb.reshape(-1, 1, 2))
    ):
        pa = cv2.convexHull(pa).reshape(-1, 2)
        pb = cv2.convexHull(pb).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return float(inter / min(area_a, area_b))


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
