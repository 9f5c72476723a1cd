"""Local features (ORB keypoints and binary descriptors) and their geometric verification.

Local features name a card when it is large in the frame (held up, photographed close, or a
deck of big objects such as ``box.png``); at table distance (a card 70-100 px wide) they are
too few to be matched to a whole deck one by one, and are used to confirm a card round
an outline and, looked up in the deck's hashed index (:class:`KeypointIndex`), to place
cards that have no outline of their own (:func:`place_cards`; see
:mod:`vision.identify.identify`). A match is
*verified* by a homography fitted with RANSAC: it needs :data:`MIN_INLIERS` inliers, and the
reference's outline mapped into the frame must be a convex, non-degenerate quadrilateral.

Conventions: grey images (H, W) uint8; keypoint positions (n, 2) float32 pixels (OpenCV's
convention, pixel centres at integers); descriptors (n, 32) uint8 (ORB's 256 bits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import kernels

#: Keypoints kept per reference image, and per frame in a whole-frame search.
REFERENCE_FEATURES = 1000
FRAME_FEATURES = 2000
#: Lowe's ratio test, RANSAC reprojection threshold (px) and the inliers a match needs.
RATIO = 0.8
RANSAC_PX = 5.0
MIN_INLIERS = 12
#: Share of the ratio-test matches that must be RANSAC inliers.
MIN_INLIER_SHARE = 0.3
#: Guided matching after the first fit: search radius (px), largest descriptor distance
#: (bits of 256) and the refit's RANSAC threshold (px).
GUIDE_PX = 8.0
GUIDE_HAMMING = 64
GUIDE_RANSAC_PX = 3.0


@dataclass(frozen=True, eq=False)
class Keypoints:
    """Keypoints of one image: ``xy`` (n, 2) float32 pixels, ``desc`` (n, 32) uint8;
    ``angle`` (n,) float32 degrees (ORB's orientation) and ``size`` (n,) float32 pixels (its
    patch's diameter at its pyramid level) when known."""

    xy: NDArray[np.float32]
    desc: NDArray[np.uint8]
    angle: NDArray[np.float32] | None = None
    size: NDArray[np.float32] | None = None

    def __len__(self) -> int:
        return int(self.xy.shape[0])


@dataclass(frozen=True, eq=False)
class Verified:
    """A reference found in a frame: ``homography`` (3, 3) float64 maps reference pixels to
    frame pixels; ``inliers`` and ``matches`` (those that passed the ratio test) counted."""

    homography: NDArray[np.float64]
    inliers: int
    matches: int


def _orb(n: int) -> cv2.ORB:
    return cv2.ORB_create(nfeatures=n, scaleFactor=1.2, nlevels=8, edgeThreshold=15, patchSize=31)


def detect(
    grey: NDArray[np.uint8], n: int = REFERENCE_FEATURES, mask: NDArray[np.uint8] | None = None
) -> Keypoints:
    """ORB keypoints of a (H, W) uint8 image (at most ``n``; ``mask`` limits where)."""
    kps, desc = _orb(n).detectAndCompute(grey, mask)
    if desc is None or not kps:
        return Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    xy = np.array([k.pt for k in kps], np.float32).reshape(-1, 2)
    return Keypoints(xy, np.asarray(desc, np.uint8))


def verify(
    reference: Keypoints,
    frame: Keypoints,
    outline: NDArray[np.floating],
    *,
    min_inliers: int = MIN_INLIERS,
) -> Verified | None:
    """Match ``reference`` keypoints to ``frame`` keypoints (ratio test) and fit a homography
    (RANSAC); ``outline`` (4, 2) is the reference's outline in its own pixels, which must map
    to a plausible quadrilateral. Returns None when the reference is not found."""
    if len(reference) < 4 or len(frame) < 4:
        return None
    # Each reference keypoint's two nearest frame descriptors (compiled: a fifteenth of
    # OpenCV's brute-force knnMatch), Lowe's ratio test on them.
    first, second, nearest = kernels.two_nearest(reference.desc, frame.desc)
    good = np.flatnonzero(first < RATIO * second)
    if len(good) < min_inliers:
        return None
    src = reference.xy[good].reshape(-1, 1, 2)
    dst = frame.xy[nearest[good]].reshape(-1, 1, 2)
    # OpenCV's USAC (RANSAC with early rejection of bad models): as many inliers as plain
    # RANSAC, and a frame's chance matches to a card not in it are given up on at once
    # (0.2-0.5 ms against 13-36 ms for 2000 iterations of RANSAC).
    h, mask = cv2.findHomography(
        src, dst, cv2.USAC_DEFAULT, RANSAC_PX, maxIters=1000, confidence=0.995
    )
    if h is None or mask is None:
        return None
    inliers = int(mask.sum())
    if inliers < min_inliers or inliers < MIN_INLIER_SHARE * len(good):
        return None
    corners = np.asarray(outline, np.float64).reshape(-1, 1, 2)
    # A fit on chance matches mostly puts the outline nowhere a card could be: dropped
    # before the guided refit, which costs more than the rest.
    if not plausible_quad(cv2.perspectiveTransform(corners, h).reshape(4, 2)):
        return None
    h, inliers = _guided(reference, frame, np.asarray(h, np.float64), inliers)
    if not plausible_quad(cv2.perspectiveTransform(corners, h).reshape(4, 2)):
        return None
    return Verified(np.asarray(h, np.float64), inliers, len(good))


def _guided(
    reference: Keypoints, frame: Keypoints, h: NDArray[np.float64], inliers: int
) -> tuple[NDArray[np.float64], int]:
    """The homography refitted on guided matches: each reference keypoint paired with the
    frame keypoint of nearest descriptor among those within :data:`GUIDE_PX` of where ``h``
    puts it (far more pairs than the ratio test lets through, so a finer fit). Returns the
    refitted homography and its inliers, or ``h`` as it was when that fails."""
    projected = cv2.perspectiveTransform(reference.xy.reshape(-1, 1, 2).astype(np.float64), h)
    projected = projected.reshape(-1, 2)
    # Every (reference, frame) pair within GUIDE_PX at once (a k-d tree: the whole
    # n_ref x n_frame distance matrix costs tens of ms for a photo's keypoints).
    from scipy.spatial import cKDTree  # here: scipy's import is a fifth of a second

    near = cKDTree(projected).sparse_distance_matrix(
        cKDTree(frame.xy.astype(np.float64)), GUIDE_PX, output_type="ndarray"
    )
    ri, fi = near["i"].astype(np.intp), near["j"].astype(np.intp)
    words = _words(reference.desc)[ri] ^ _words(frame.desc)[fi]
    dist = np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    # Each reference keypoint's nearest descriptor (then the lowest frame keypoint): the
    # least (distance, frame keypoint) of its pairs, in one pass.
    best = np.full(len(reference), np.iinfo(np.int64).max, np.int64)
    np.minimum.at(best, ri, dist << 32 | fi)
    paired = np.flatnonzero(best != np.iinfo(np.int64).max)  # reference keypoints, in order
    if len(paired) < 8:
        return h, inliers
    best = best[paired]
    close = (best >> 32) <= GUIDE_HAMMING
    src, dst = paired[close], (best[close] & 0xFFFFFFFF).astype(np.intp)
    if len(src) < max(8, inliers):
        return h, inliers
    refit, mask = cv2.findHomography(reference.xy[src], frame.xy[dst], cv2.RANSAC, GUIDE_RANSAC_PX)
    if refit is None or mask is None or int(mask.sum()) < inliers:
        return h, inliers
    return np.asarray(refit, np.float64), int(mask.sum())


def plausible_quad(quad: NDArray[np.floating], min_side_px: float = 8.0) -> bool:
    """Whether a (4, 2) quad could be a flat card seen by a camera: finite, convex, every
    side at least ``min_side_px``, every angle between 20 and 160 degrees."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    if not np.isfinite(q).all():
        return False
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)):
        return False
    # All four corners at once (a loop over them cost more than the rest of the check).
    ahead = q[[1, 2, 3, 0]] - q  # side k: corner k -> k + 1
    back = q[[3, 0, 1, 2]] - q  # corner k -> k - 1
    side = np.sqrt(ahead[:, 0] * ahead[:, 0] + ahead[:, 1] * ahead[:, 1])
    if side.min() < min_side_px:
        return False
    dot = back[:, 0] * ahead[:, 0] + back[:, 1] * ahead[:, 1]
    angle = np.degrees(np.arccos(np.clip(dot / (side[[3, 0, 1, 2]] * side), -1.0, 1.0)))
    return bool(((angle >= 20.0) & (angle <= 160.0)).all())


#: ECC refinement: the long side (px) of the picture and of the frame under it when they are
#: correlated, and the iterations there, coarse to fine; the least correlation it must reach
#: to be kept. graf1 in graf3 (``../shared/data/opencv-features``, the true homography known):
#: mean corner error 3.18 px at ((160, 10), (256, 2)) in 6.4 ms, 2.90 px at ((160, 10), (320,
#: 3)) in 8.0 ms, 2.82 px at ((160, 10), (480, 2)) in 15 ms; plain ORB's fit 3.11 px. On the
#: rough photos of flat pictures (``pictable.bench.readers.flat_pictures``, seeds 0 and 1) the
#: median corner error went 0.33 -> 0.25% and 0.27 -> 0.24% of the picture's height.
ECC_LEVELS = ((160, 10), (320, 3))
ECC_MIN_CORRELATION = 0.5


# ---- verification at table distance -------------------------------------------------------
#
# A card 70-100 px wide gives too few keypoints to be found among a whole frame's, but enough
# to tell a handful of candidates apart once its outline is known roughly: the outline (grown
# by VERIFY_GROW on every side, so a card whose outline was found too small, or shifted, is
# still all there) is rectified to a card VERIFY_CARD_WH pixels big, and its keypoints are
# matched to each candidate's, found on the candidate's face at that same size. A RANSAC
# homography counts the inliers; ORB is rotation invariant, so a card upside down or an
# outline a quarter off still fits.

#: Size (px) of the rectified card, and the share of its width / height added on each side.
VERIFY_CARD_WH = (100, 140)
VERIFY_GROW = 0.15
#: Keypoints kept on a reference face and on the rectified outline.
VERIFY_REFERENCE_FEATURES = 150
VERIFY_FRAME_FEATURES = 250
#: Ratio test, largest descriptor distance (bits of 256) and RANSAC threshold (px of the
#: rectified card) of the verification.
VERIFY_RATIO = 0.85
VERIFY_HAMMING = 80
VERIFY_RANSAC_PX = 4.0
VERIFY_RANSAC_ITERATIONS = 300


#: Names the table detector's settings (``_table_orb``): decks store table keypoints with it
#: (``vision.identify.deck.table_recipe``); change it when they change.
TABLE_DETECTOR = "orb-1.2x4-e11-p21-f8"


def _table_orb(n: int) -> cv2.ORB:
    # Small patches: the card is only VERIFY_CARD_WH big.
    return cv2.ORB_create(
        nfeatures=n, scaleFactor=1.2, nlevels=4, edgeThreshold=11, patchSize=21, fastThreshold=8
    )


def table_keypoints(face: NDArray[np.uint8], scale: float = 1.0) -> Keypoints:
    """Keypoints of a portrait face ((h, w, 3) uint8 BGR or (h, w) grey) resized to
    :data:`VERIFY_CARD_WH` (times ``scale``), in the pixels of :data:`VERIFY_CARD_WH` (their
    positions and sizes divided by ``scale``)."""
    grey = face if face.ndim == 2 else cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    size = (round(VERIFY_CARD_WH[0] * scale), round(VERIFY_CARD_WH[1] * scale))
    small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    kps, desc = _table_orb(VERIFY_REFERENCE_FEATURES).detectAndCompute(small, None)
    return _oriented(kps, desc, scale)


def _oriented(
    kps: tuple[cv2.KeyPoint, ...], desc: NDArray[np.uint8] | None, scale: float = 1.0
) -> Keypoints:
    """:class:`Keypoints` (with angle and size) of OpenCV's keypoints and descriptors, found on
    an image ``scale`` times the size of the one whose pixels they are given in."""
    if desc is None or not kps:
        empty = np.zeros(0, np.float32)
        return Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8), empty, empty)
    xy = np.asarray(cv2.KeyPoint.convert(kps), np.float32).reshape(-1, 2)
    turn_size = np.array([(k.angle, k.size) for k in kps], np.float64).reshape(-1, 2)
    if scale != 1.0:
        xy = ((xy + 0.5) / scale - 0.5).astype(np.float32)
    return Keypoints(
        xy,
        np.asarray(desc, np.uint8),
        turn_size[:, 0].astype(np.float32),
        (turn_size[:, 1] / scale).astype(np.float32),
    )


def verify_window(quad: NDArray[np.floating]) -> tuple[NDArray[np.float64], tuple[int, int]]:
    """The map (3, 3) of frame pixels to the rectified window round a card outline ((4, 2)
    corners TL, TR, BR, BL of a portrait card) and that window's size (w, h): the outline
    lands on a :data:`VERIFY_CARD_WH` card inset by :data:`VERIFY_GROW` on every side."""
    w, h = VERIFY_CARD_WH
    gx, gy = VERIFY_GROW * w, VERIFY_GROW * h
    dst = np.array([[gx, gy], [gx + w, gy], [gx + w, gy + h], [gx, gy + h]], np.float32) - 0.5
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32).reshape(4, 2), dst)
    return np.asarray(m, np.float64), (round(w + 2 * gx), round(h + 2 * gy))


def window_keypoints(
    grey: NDArray[np.uint8], quad: NDArray[np.floating]
) -> tuple[Keypoints, NDArray[np.float64]]:
    """Keypoints of the rectified window round ``quad`` (see :func:`verify_window`) of a grey
    (H, W) uint8 frame, and the window -> frame map (3, 3)."""
    m, size = verify_window(quad)
    window = cv2.warpPerspective(
        grey, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    kps, desc = _table_orb(VERIFY_FRAME_FEATURES).detectAndCompute(window, None)
    back = np.asarray(np.linalg.inv(m), np.float64)
    if desc is None or not kps:
        return Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)), back
    xy = np.asarray(cv2.KeyPoint.convert(kps), np.float32).reshape(-1, 2)
    return Keypoints(xy, np.asarray(desc, np.uint8)), back


def ratio_matches(
    reference: Keypoints, frame: Keypoints, ratio: float = VERIFY_RATIO
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Indices (reference, frame) of the reference keypoints whose nearest frame descriptor
    passes the ratio test and is within :data:`VERIFY_HAMMING` bits."""
    empty = np.zeros(0, np.intp)
    if len(reference) < 1 or len(frame) < 2:
        return empty, empty
    first, second, nearest = kernels.two_nearest(reference.desc, frame.desc)
    ok = (first < ratio * second.astype(np.float64)) & (first <= VERIFY_HAMMING)
    rows = np.flatnonzero(ok)
    return rows.astype(np.intp), nearest[rows]


@dataclass(frozen=True, eq=False)
class CardFit:
    """A candidate checked against a card window: ``inliers`` of the RANSAC homography
    ``homography`` (3, 3), reference (:data:`VERIFY_CARD_WH` face) pixels -> frame pixels,
    and ``matches`` that passed the ratio test. ``homography`` is None when no fit was
    made. ``similarity`` (3, 3): the same map restricted to a turn, a scale and a shift,
    fitted on the homography's inliers (a card's shape whatever the fit; for cards half
    hidden, where the homography's hidden corners can go astray). ``spread``: the share of
    the card's face that the inliers span (their convex hull's area over the face's).
    ``keypoints``: (inliers,) the indices of the window's keypoints that are inliers.
    ``on_codes``: how many of the inliers are reference keypoints on each of the card's
    printed codes: its two markers and its QR code
    (:meth:`vision.identify.deck.ReferenceDeck.code_keypoints`; () when not told)."""

    inliers: int
    matches: int
    homography: NDArray[np.float64] | None
    similarity: NDArray[np.float64] | None = None
    spread: float = 0.0
    keypoints: NDArray[np.intp] | None = None
    on_codes: tuple[int, ...] = ()


#: A homography RHO fitted on this many inliers or more but that is no card is fitted again
#: by RANSAC (:func:`fit_matches`): the fewest inliers that name a card
#: (``identify.WEAK_FIT_MIN_INLIERS``). On 30 frames of 12 cards, 14 of the 274 failed fits
#: had as many, and 3 of them (19, 13 and 12 RHO inliers) fitted the card by RANSAC (28, 22 and
#: 10 inliers); of the 260 others, RANSAC fitted 4, with at most 7 inliers (too few to name).
REFIT_MIN_INLIERS = 10


def fit_matches(
    reference: Keypoints,
    window: Keypoints,
    back: NDArray[np.float64],
    ri: NDArray[np.intp],
    fi: NDArray[np.intp],
    min_inliers: int = 6,
    on_codes: NDArray[np.int8] | None = None,
) -> CardFit:
    """Fit a homography to a candidate's matches (:func:`ratio_matches` of its table
    keypoints ``reference`` to a window's; ``back`` maps window pixels to frame pixels). No
    fit is tried with fewer matches than ``min_inliers`` (it could not reach them), and the
    fit counts only when the reference's outline lands on a plausible quadrilateral of a
    card's size in the window. The homography is fitted by RHO; when that lands the card's
    outline on no plausible card with at least :data:`REFIT_MIN_INLIERS` inliers (RHO can
    settle on a degenerate model: on a rendered table, a folded quad of 25 inliers where the
    card's own fit had 31), it is fitted again by RANSAC. ``on_codes``: (k,) the printed code
    each reference keypoint lies on (1, 2 the markers, 3 the QR code; 0 none), counted in the
    fit's ``on_codes``."""
    if len(ri) < max(6, min_inliers):
        return CardFit(0, len(ri), None)
    src, dst = reference.xy[ri], window.xy[fi]
    h, mask = _homography(src, dst, cv2.RHO)
    if not _card_in_window(h, mask):
        if mask is None or int(mask.sum()) < REFIT_MIN_INLIERS:
            return CardFit(0, len(ri), None)
        h, mask = _homography(src, dst, cv2.RANSAC)
        if not _card_in_window(h, mask):
            return CardFit(0, len(ri), None)
    assert h is not None and mask is not None  # (told by _card_in_window)
    keep = mask.ravel().astype(bool)
    similarity = None
    a, _ = cv2.estimateAffinePartial2D(src[keep], dst[keep], method=cv2.LMEDS)
    if a is not None:
        similarity = back @ np.vstack([np.asarray(a, np.float64), [0.0, 0.0, 1.0]])
    coded: tuple[int, ...] = ()
    if on_codes is not None:
        coded = tuple(int(n) for n in np.bincount(on_codes[ri[keep]], minlength=4)[1:4])
    return CardFit(
        int(keep.sum()), len(ri), back @ h, similarity,
        _spread(src[keep]), fi[keep], coded,
    )  # fmt: skip


def _homography(
    src: NDArray[np.float32], dst: NDArray[np.float32], method: int
) -> tuple[NDArray[np.float64] | None, NDArray[np.uint8] | None]:
    """The (3, 3) homography taking (n, 2) points ``src`` to ``dst`` by OpenCV's robust
    ``method`` (:data:`VERIFY_RANSAC_PX`, :data:`VERIFY_RANSAC_ITERATIONS`) and its (n, 1)
    inlier mask; (None, None) when none was fitted."""
    h, mask = cv2.findHomography(
        src, dst, method, VERIFY_RANSAC_PX, maxIters=VERIFY_RANSAC_ITERATIONS, confidence=0.99
    )
    if h is None or mask is None:
        return None, None
    return np.asarray(h, np.float64), np.asarray(mask, np.uint8)


def face_corners(h: NDArray[Any]) -> NDArray[np.float64]:
    """(4, 2) the :data:`VERIFY_CARD_WH` face's corners (TL, TR, BR, BL, pixel centres at
    integers) under a face -> frame homography ``h`` (3, 3)."""
    w, hh = VERIFY_CARD_WH
    outline = np.array([[0, 0], [w, 0], [w, hh], [0, hh]], np.float64).reshape(-1, 1, 2) - 0.5
    mapped = cv2.perspectiveTransform(outline, np.asarray(h, np.float64))
    return np.asarray(mapped, np.float64).reshape(4, 2)


def _card_in_window(h: NDArray[np.float64] | None, mask: NDArray[np.uint8] | None) -> bool:
    """Whether a reference -> window homography ``h`` (3, 3; None: no fit, as its inlier
    ``mask``) lands the :data:`VERIFY_CARD_WH` face on a plausible quadrilateral of a card's
    size in the window (0.4-2.5 times its area)."""
    if h is None or mask is None:
        return False
    w, hh = VERIFY_CARD_WH
    quad = face_corners(h)
    area = abs(cv2.contourArea(quad.astype(np.float32))) / (w * hh)
    return plausible_quad(quad) and 0.4 <= area <= 2.5


def _spread(points: NDArray[np.float32]) -> float:
    """Area of the convex hull of (n, 2) reference pixels over the reference face's area."""
    if len(points) < 3:
        return 0.0
    hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 1, 2))
    w, h = VERIFY_CARD_WH
    return float(abs(cv2.contourArea(hull)) / (w * h))


#: A fitted card seen from the table camera: opposite sides at least this much of each other,
#: and its short / long side within this share of the reference's.
CARD_SIDE_RATIO = 0.75
CARD_ASPECT_TOLERANCE = 0.2


def card_shaped(
    corners: NDArray[np.floating], aspect: float, table: TablePerspective | None = None
) -> bool:
    """Whether (4, 2) corners could be a flat card of ``aspect`` (short / long side) seen by
    a camera at table distance: a plausible quadrilateral (:func:`plausible_quad`) whose
    opposite sides are nearly as long as each other (:data:`CARD_SIDE_RATIO`) and whose
    aspect is the card's (:data:`CARD_ASPECT_TOLERANCE`), as seen or, given the ``table``'s
    perspective round the cards already named, once that foreshortening is taken away (a
    far card seen obliquely looks squarer than the card). A homography fitted on keypoints
    of a half-hidden card can put the hidden corners far off; such a fit is refused."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    if not plausible_quad(q):
        return False
    edges = np.roll(q, -1, axis=0) - q
    if _sides_card_shaped(np.linalg.norm(edges, axis=1), aspect):
        return True
    if table is None or not len(table):
        return False
    inverse = np.linalg.inv(table.metric(q.mean(axis=0)))
    on_table = np.sqrt(np.einsum("ki,ij,kj->k", edges, inverse, edges))
    return _sides_card_shaped(on_table, aspect)


def _sides_card_shaped(sides: NDArray[np.float64], aspect: float) -> bool:
    """:func:`card_shaped`'s test on the (4,) lengths of a quad's sides, in order."""
    pairs = ((sides[0], sides[2]), (sides[1], sides[3]))
    if any(min(a, b) < CARD_SIDE_RATIO * max(a, b) for a, b in pairs):
        return False
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return bool(abs(min(a, b) / max(a, b) - aspect) <= CARD_ASPECT_TOLERANCE * aspect)


class TablePerspective:
    """How the table is foreshortened in a frame, from cards already named on it (one plane:
    every card is the same rectangle there). Each card of (n, 4, 2) ``corners`` (in order
    round the card, its short side first or second) gives the table's local metric at its
    centre: the (2, 2) matrix ``M`` (determinant 1) such that a short vector ``d`` of the
    frame is ``sqrt(d @ inv(M) @ d)`` long on the table, up to scale (the image of a circle
    on the table is the ellipse of ``M``). :meth:`metric` blends them at any place, nearer
    cards counting more. ``aspect``: the cards' short / long side. ``squares``: (k, 4, 2)
    corners of squares lying on the table (its markers), which give its metric too."""

    def __init__(
        self,
        corners: NDArray[np.floating],
        aspect: float,
        squares: NDArray[np.floating] | None = None,
    ) -> None:
        q = np.asarray(corners, np.float64).reshape(-1, 4, 2)
        k = 0 if squares is None else len(squares)
        if k:
            q = np.concatenate([q, np.asarray(squares, np.float64).reshape(-1, 4, 2)])
        # Each card as a parallelogram: its mean side vectors, the short one first.
        u = (q[:, 1] - q[:, 0] + q[:, 2] - q[:, 3]) / 2
        v = (q[:, 3] - q[:, 0] + q[:, 2] - q[:, 1]) / 2
        swap = np.linalg.norm(u, axis=1) > np.linalg.norm(v, axis=1)
        u[swap], v[swap] = v[swap].copy(), u[swap].copy()
        # The table -> frame map J of a card (table units: the long side 1) takes its short
        # side aspect x e1 to u and its long side e2 to v, so J J^T = u u^T / aspect^2 + v v^T
        # (a square's aspect is 1).
        ratio = np.full(len(q), float(aspect))
        ratio[len(q) - k :] = 1.0
        m = np.einsum("ni,nj->nij", u, u) / ratio[:, None, None] ** 2 + np.einsum(
            "ni,nj->nij", v, v
        )
        det = np.linalg.det(m) if len(m) else np.zeros(0)
        ok = det > 1e-9
        self.centres = q[ok].mean(axis=1)
        self.metrics = m[ok] / np.sqrt(det[ok])[:, None, None]
        self.sizes = np.linalg.norm(v[ok], axis=1)

    def __len__(self) -> int:
        return len(self.centres)

    def metric(self, at: NDArray[np.floating]) -> NDArray[np.float64]:
        """The table's (2, 2) local metric (determinant 1) at frame point ``at`` (2,): the
        named cards' metrics weighted by 1 / (distance^2 + their size^2)."""
        d2 = ((self.centres - np.asarray(at, np.float64)) ** 2).sum(axis=1)
        w = 1.0 / (d2 + self.sizes**2)
        m = np.einsum("n,nij->ij", w, self.metrics) / w.sum()
        return np.asarray(m / np.sqrt(np.linalg.det(m)), np.float64)


# ---- retrieval: which cards a window's keypoints come from --------------------------------
#
# A card whose outline merged with a neighbour's, or was found too rough for appearance to
# shortlist it, still shows its keypoints in the window round that outline. The table
# keypoints of every card of a deck are put in one index (locality-sensitive hashing of the
# binary descriptors: a number of tables, each keyed by some of the 256 bits, chosen once by
# a fixed seed, so the index and its answers are the same every run), and each window
# keypoint votes for the card of its nearest deck keypoint among those sharing one of its
# keys. A query costs about the same whatever the deck's size. The cards with most votes are
# fitted beside the appearance shortlist (:func:`vision.identify.verification.verify_outline`
# decides on the fits exactly as for the shortlist).

#: LSH: hash tables and bits per key of the index the whole frame's keypoints are looked up
#: in (the frame search: ``ReferenceDeck.frame_index``), the seed that picks the bits, the
#: most entries a key may have to be kept; the cards retrieved, and the votes a card needs.
INDEX_TABLES = 4
INDEX_KEY_BITS = 20
INDEX_SEED = 5
INDEX_MAX_BUCKET = 16
RETRIEVE_CARDS = 2
RETRIEVE_MIN_VOTES = 2
#: Tables and bits per key of the index a window's keypoints are looked up in
#: (``ReferenceDeck.table_index``). A small or partly covered card's window is enlarged from
#: 50-70 px, and its keypoints lie 40-60 bits from their card's: one 40 bits away shares a key
#: of 20 bits with its match in one of 4 tables 13% of the time (1 - (1 - (216/256)^20)^4), of
#: 16 bits in one of 8 tables 42%. With 4 x 20, seed 1's windows where the missed card fitted
#: 15-27 inliers gave it 1-4 votes (rank 5-53 of the deck). With 8 x 16 (and 2 cards
#: retrieved) seed 1 named 3 more cards (300 tables), seed 0 3 more, 0 wrong; the frame
#: search kept its 4 x 20: 8 x 16 there placed more cards at the wrong place (seed 0: 2 wrong).
WINDOW_INDEX_TABLES = 8
WINDOW_INDEX_KEY_BITS = 16


def _or_nan(values: NDArray[np.float32] | None, n: int) -> NDArray[np.float32]:
    return np.full(n, np.nan, np.float32) if values is None else values


class KeypointIndex:
    """Every card's table keypoints (:func:`table_keypoints`) in one hashed index (see
    above) of ``tables`` hash tables keyed by ``key_bits`` bits each: ``owner`` (K,) int32
    the card (deck index) of each indexed keypoint. Built once per deck. More tables of
    shorter keys find matches further away (more of a small card's keypoints), and cost more
    a query."""

    def __init__(
        self, cards: list[Keypoints], tables: int = INDEX_TABLES, key_bits: int = INDEX_KEY_BITS
    ) -> None:
        self.n_cards = len(cards)
        self.owner = np.concatenate(
            [np.full(len(k), i, np.int32) for i, k in enumerate(cards)] or [np.zeros(0, np.int32)]
        )
        self.xy = np.concatenate([k.xy for k in cards] or [np.zeros((0, 2), np.float32)]).reshape(
            -1, 2
        )
        # Orientation and size (NaN where a card's keypoints came without them).
        self.angle = np.concatenate(
            [_or_nan(k.angle, len(k)) for k in cards] or [np.zeros(0, np.float32)]
        )
        self.size = np.concatenate(
            [_or_nan(k.size, len(k)) for k in cards] or [np.zeros(0, np.float32)]
        )
        self.desc = np.concatenate(
            [k.desc for k in cards] or [np.zeros((0, 32), np.uint8)]
        ).reshape(-1, 32)
        rng = np.random.default_rng(INDEX_SEED)
        self._bits = np.stack([rng.choice(256, key_bits, replace=False) for _ in range(tables)])
        # Every table's entries sorted by key, table after table, without those of keys
        # shared by more than INDEX_MAX_BUCKET entries (flat or common patches: they tell no
        # card from another, and would make a query's cost grow with the deck); and where
        # each key's entries start among them: table t's key k's entries are
        # _order[_start[t * (2**key_bits + 1) + k] : _start[t * (2**key_bits + 1) + k + 1]]
        # (a lookup, not a binary search per query: the searches were most of a frame's
        # lookup; all tables at once, not a pass per table).
        orders: list[NDArray[np.intp]] = []
        starts: list[NDArray[np.int64]] = []
        every_key = np.arange((1 << key_bits) + 1, dtype=np.int64)
        done = 0
        for keys in self._keys(self.desc):
            order = np.argsort(keys, kind="stable")
            ordered = keys[order]
            _, count = np.unique(ordered, return_counts=True)
            keep = np.repeat(count <= INDEX_MAX_BUCKET, count)
            orders.append(order[keep])
            starts.append(done + np.searchsorted(ordered[keep], every_key))
            done += int(keep.sum())
        self._order = np.concatenate(orders or [np.zeros(0, np.intp)]).astype(np.int32)
        self._start = np.concatenate(starts or [np.zeros(0, np.int64)]).astype(np.int32)
        self._stride = len(every_key)
        # The entries' descriptors as four 64-bit words, in the order above (each key's
        # entries side by side), for the distances of a query.
        self._words = np.ascontiguousarray(self.desc).view(np.uint64)[self._order]

    def _keys(self, desc: NDArray[np.uint8]) -> NDArray[np.int64]:
        """(tables, n) hash keys of (n, 32) descriptors."""
        return kernels.lsh_keys(np.ascontiguousarray(desc, np.uint8), self._bits)

    def nearest(self, query: Keypoints) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Indices (query keypoint, indexed keypoint) of each query keypoint's nearest indexed
        keypoint among those sharing one of its keys, when that is within
        :data:`VERIFY_HAMMING` bits (query keypoints with none are left out)."""
        empty = np.zeros(0, np.intp)
        if len(self.owner) == 0 or len(query) == 0:
            return empty, empty
        # Each query's nearest entry among those sharing one of its keys (lowest distance,
        # then lowest entry), within VERIFY_HAMMING: one compiled pass over the buckets.
        words = np.ascontiguousarray(query.desc, np.uint8).view(np.uint64)
        return kernels.index_nearest(
            self._keys(query.desc), self._start, self._stride, self._order, words,
            self._words, VERIFY_HAMMING,
        )  # fmt: skip

    def retrieve(self, window: Keypoints, n: int = RETRIEVE_CARDS) -> list[int]:
        """The (at most ``n``) cards that most of ``window``'s keypoints come from: each
        keypoint votes for the card of its :meth:`nearest` indexed keypoint; cards with fewer
        than :data:`RETRIEVE_MIN_VOTES` votes are left out. Most votes first (ties: lower
        index)."""
        _, e = self.nearest(window)
        if len(e) == 0:
            return []
        votes = np.bincount(self.owner[e], minlength=self.n_cards)
        top = np.argsort(-votes, kind="stable")[:n]
        return [int(c) for c in top if votes[c] >= RETRIEVE_MIN_VOTES]


# ---- search over the whole frame ----------------------------------------------------------
#
# Cards are placed by their keypoints alone, whatever their outline (touching cards merged
# into one region, a card on a table of its own colour): ORB keypoints of the whole frame
# (found once, nothing masked), each looked up in the deck's KeypointIndex, vote
# for a card and, by the two keypoints' orientations and sizes, for where its centre is; the
# votes that gather round one centre are fitted by a RANSAC similarity (reference face ->
# frame), and the next gathering of the same card's votes is tried while enough remain (a
# card seen twice is two places). A fit only *places* a card roughly: the caller then
# verifies it in the window round that place as an outline (``vision.identify.identify``).

#: Keypoints found over the frame; votes a place needs to be fitted; RANSAC threshold (frame
#: px), iterations, and the inliers a placement needs; places tried per card. 4,500 over the
#: whole frame, nothing masked, found once for the keypoint pass and the search after the
#: outlines: about the density 3,000 had over what the named cards left when each search
#: found its own (with 3,000 for both, seed 1 lost 7 cards, most of them under 60 px wide).
FRAME_SEARCH_FEATURES = 4500
FRAME_SEARCH_MIN_VOTES = 6
FRAME_SEARCH_RANSAC_PX = 3.0
FRAME_SEARCH_MIN_INLIERS = 5
FRAME_SEARCH_FITS = 2
FRAME_SEARCH_MANY_FITS = 12
FRAME_SEARCH_ITERATIONS = 500
#: Votes whose predicted card centres are within this share of the card's height of each
#: other gather into one place.
FRAME_SEARCH_CENTRE = 0.25
#: Sizes of the face (shares of VERIFY_CARD_WH) whose keypoints are indexed for the search
#: (:meth:`vision.identify.deck.ReferenceDeck.frame_index`): a card 50-70 px wide in the
#: frame shares few keypoints with its face at 100 px.
FRAME_SEARCH_SCALES = (1.0, 0.65)
#: The shortest side (px) a placed card may have.
FRAME_SEARCH_MIN_SIDE_PX = 20.0


@dataclass(frozen=True, eq=False)
class Placement:
    """A card placed by the frame's keypoints (:func:`place_cards`): ``card`` its index in
    the deck, ``corners`` (4, 2) its portrait face's corners TL, TR, BR, BL in frame pixels,
    ``inliers`` of the fit; ``reference`` and ``points`` (inliers, 2) float32: the inliers'
    positions on the :data:`VERIFY_CARD_WH` face and in the frame."""

    card: int
    corners: NDArray[np.float64]
    inliers: int
    reference: NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    points: NDArray[np.float32] = field(default_factory=lambda: np.zeros((0, 2), np.float32))


def frame_table_keypoints(
    grey: NDArray[np.uint8], mask: NDArray[np.uint8] | None = None
) -> Keypoints:
    """Keypoints of a whole grey (H, W) uint8 frame found as on a card at table distance
    (:func:`table_keypoints`'s detector; at most :data:`FRAME_SEARCH_FEATURES`; ``mask``
    (H, W) uint8, non-zero where to look)."""
    kps, desc = _table_orb(FRAME_SEARCH_FEATURES).detectAndCompute(grey, mask)
    return _oriented(kps, desc)


def gathers(
    centre: NDArray[np.float32],
    reach: NDArray[np.float32],
    by_card: NDArray[np.intp],
    bounds: NDArray[np.intp],
    cards: NDArray[np.intp],
) -> NDArray[np.bool_]:
    """Whether the votes of each of ``cards`` could make a place in :func:`place_cards`: some
    vote has at least :data:`FRAME_SEARCH_MIN_VOTES` of its card's votes (itself included)
    within reach (vote j is near vote i when their predicted centres ``centre`` (V, 2) are
    within ``reach`` (V,) [j]; card c's votes are ``by_card[bounds[c] : bounds[c + 1]]``).
    The same test, on the same float32 values, as the first one the loop there makes, for
    all cards at once (:func:`vision.identify.kernels.most_near`)."""
    most = kernels.most_near(
        centre, reach, by_card.astype(np.intp), bounds.astype(np.intp), cards.astype(np.intp)
    )
    return np.asarray(most >= FRAME_SEARCH_MIN_VOTES)


def place_cards(
    index: KeypointIndex,
    frame: Keypoints,
    exclude: set[int] | frozenset[int] = frozenset(),
    many: int | None = None,
) -> list[Placement]:
    """Cards (not in ``exclude``) placed by ``frame``'s keypoints (see above), most inliers
    first: each at :data:`FRAME_SEARCH_FITS` places at most, card ``many`` (a design many
    cards share: their back) at :data:`FRAME_SEARCH_MANY_FITS`. Each vote (a frame keypoint
    and its nearest indexed keypoint) predicts where its card's centre is, from the two
    keypoints' orientations and sizes; only votes whose predictions gather (within
    :data:`FRAME_SEARCH_CENTRE` of the card's height) are fitted (a similarity), and only fits
    whose outline is a plausible quadrilateral are kept."""
    if frame.angle is None or frame.size is None:
        raise ValueError("frame keypoints need their angle and size (frame_table_keypoints)")
    q, e = index.nearest(frame)
    ok = np.isfinite(index.angle[e])
    q, e = q[ok], e[ok]
    if len(e) == 0:
        return []
    owner = index.owner[e]
    votes = np.bincount(owner, minlength=index.n_cards)
    w, h = VERIFY_CARD_WH
    # Each vote's prediction of its card's centre: the reference keypoint's offset from the
    # face's centre, turned and scaled as the frame keypoint is from the reference one.
    turn = np.radians(frame.angle[q] - index.angle[e])
    scale = frame.size[q] / index.size[e]
    offset = (np.array([w, h], np.float32) / 2 - 0.5) - index.xy[e]
    cos, sin = np.cos(turn), np.sin(turn)
    centre = frame.xy[q] + scale[:, None] * np.stack(
        [cos * offset[:, 0] - sin * offset[:, 1], sin * offset[:, 0] + cos * offset[:, 1]], axis=1
    )
    reach = FRAME_SEARCH_CENTRE * h * scale
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2) - 0.5
    out: list[Placement] = []
    # Each card's votes, in the order found: one stable sort, not a pass over every vote per
    # card.
    by_card = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[by_card], np.arange(index.n_cards + 1))
    cards = np.flatnonzero(votes >= FRAME_SEARCH_MIN_VOTES)
    cards = cards[~np.isin(cards, list(exclude))]
    # Most cards with enough votes have no place where enough of them gather: told apart
    # all together first (the loop below finds the same and breaks at once).
    cards = cards[gathers(centre, reach, by_card, bounds, cards)]
    for card in cards:
        mine = by_card[bounds[card] : bounds[card + 1]]
        for _ in range(FRAME_SEARCH_MANY_FITS if card == many else FRAME_SEARCH_FITS):
            if len(mine) < FRAME_SEARCH_MIN_VOTES:
                break
            _, near = kernels.densest(centre, reach, mine)
            group = mine[near]
            if len(group) < FRAME_SEARCH_MIN_VOTES:
                break
            mine = mine[~near]
            # A similarity (turn, scale, shift), not a homography: the votes of a place often
            # cover a part of the card only, and a homography fitted there puts the far
            # corners astray; the window's verification then fits the homography.
            fit, mask = cv2.estimateAffinePartial2D(
                index.xy[e[group]], frame.xy[q[group]], method=cv2.RANSAC,
                ransacReprojThreshold=FRAME_SEARCH_RANSAC_PX, maxIters=FRAME_SEARCH_ITERATIONS,
            )  # fmt: skip
            if fit is None or mask is None or int(mask.sum()) < FRAME_SEARCH_MIN_INLIERS:
                continue
            corners = cv2.transform(outline, np.asarray(fit, np.float64))
            corners = np.asarray(corners, np.float64).reshape(4, 2)
            if plausible_quad(corners, FRAME_SEARCH_MIN_SIDE_PX):
                kept = group[mask.ravel() > 0]
                found = (index.xy[e[kept]], frame.xy[q[kept]])
                out.append(Placement(int(card), corners, len(kept), *found))
    return sorted(out, key=lambda p: -p.inliers)


def refine_ecc(
    reference: NDArray[np.uint8],
    frame: NDArray[np.uint8],
    homography: NDArray[np.float64],
    max_move: float = 0.05,
    levels: tuple[tuple[int, int], ...] = ECC_LEVELS,
) -> NDArray[np.float64]:
    """A reference -> frame homography (3, 3) refined by maximising the correlation of the
    reference (grey (h, w) uint8) with the frame (grey (H, W) uint8) under it (OpenCV's ECC):
    keypoints place a picture to a few pixels, its whole texture to about a pixel. The
    correlation is worked out on the part of the frame under the picture, both shrunk, coarse
    to fine (:data:`ECC_LEVELS`): on graf1 in graf3 the worst corner lies 3.8 px from the
    true homography's in about 8 ms, against 13.2 px for the keypoints' fit. Returns the
    refined homography, or the one given when ECC fails, correlates under
    :data:`ECC_MIN_CORRELATION`, or moves a corner by more than ``max_move`` of the picture's
    size (it wandered off). ``levels``: (long side px, iterations) of each level, coarse to
    fine (:data:`ECC_LEVELS`)."""
    h, w = reference.shape[:2]
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2) - 0.5
    before = cv2.perspectiveTransform(outline, np.asarray(homography, np.float64)).reshape(4, 2)
    if not np.isfinite(before).all():
        return homography
    size = float(np.sqrt(abs(cv2.contourArea(before.astype(np.float32)))))
    fh, fw = frame.shape[:2]
    pad = 0.06 * size + 4
    x0 = int(max(0, np.floor(before[:, 0].min() - pad)))
    y0 = int(max(0, np.floor(before[:, 1].min() - pad)))
    x1 = int(min(fw, np.ceil(before[:, 0].max() + pad)))
    y1 = int(min(fh, np.ceil(before[:, 1].max() + pad)))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return homography
    crop = frame[y0:y1, x0:x1]
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    warp = shift @ np.asarray(homography, np.float64)  # reference -> crop
    cc = 0.0
    # Both shrunk once for the finest level, the coarser levels shrunk from those.
    fine_crop, fine_to_crop = _shrunk(crop, levels[-1][0])
    shrunk = _reference_levels(reference, levels)
    for (long_side, iterations), (small_ref, to_ref) in zip(levels, shrunk, strict=True):
        small_crop, to_crop = _shrunk(fine_crop, long_side)
        to_crop = to_crop @ fine_to_crop
        start = to_crop @ warp @ np.linalg.inv(to_ref)
        try:
            cc, found = cv2.findTransformECC(
                small_ref,
                small_crop.astype(np.float32),
                (start / start[2, 2]).astype(np.float32),
                cv2.MOTION_HOMOGRAPHY,
                (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations, 1e-4),
                None,
                5,
            )
        except cv2.error:
            return homography
        warp = np.linalg.inv(to_crop) @ np.asarray(found, np.float64) @ to_ref
    refined = np.linalg.inv(shift) @ warp
    refined /= refined[2, 2]
    after = cv2.perspectiveTransform(outline, refined).reshape(4, 2)
    if cc < ECC_MIN_CORRELATION or np.abs(after - before).max() > max_move * size:
        return homography
    return refined


#: The references last shrunk for ECC (by ``id``, each with its array, which keeps the id
#: from being reused): a deck's picture is shrunk once, not on every photo.
_LEVELS: dict[
    tuple[int, tuple[tuple[int, int], ...]],
    tuple[NDArray[np.uint8], list[tuple[NDArray[np.float32], NDArray[np.float64]]]],
]
_LEVELS = {}
_LEVELS_KEPT = 32


def _reference_levels(
    reference: NDArray[np.uint8], sizes: tuple[tuple[int, int], ...] = ECC_LEVELS
) -> list[tuple[NDArray[np.float32], NDArray[np.float64]]]:
    """``reference`` shrunk for each level of ``sizes`` (:data:`ECC_LEVELS`; the finest from
    it, the coarser from the finest), as float32, with the map of its pixel coordinates into
    each."""
    kept = _LEVELS.get((id(reference), sizes))
    if kept is not None and kept[0] is reference:
        return kept[1]
    fine, fine_to = _shrunk(reference, sizes[-1][0])
    levels = []
    for long_side, _ in sizes:
        small, to = _shrunk(fine, long_side)
        levels.append((small.astype(np.float32), to @ fine_to))
    if len(_LEVELS) >= _LEVELS_KEPT:
        _LEVELS.pop(next(iter(_LEVELS)))
    _LEVELS[(id(reference), sizes)] = (reference, levels)
    return levels


def _shrunk(
    image: NDArray[np.uint8], long_side: int
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """``image`` shrunk to at most ``long_side`` px on its long side, and the (3, 3) map of
    its pixel coordinates into the shrunk one's (pixel centres kept)."""
    h, w = image.shape[:2]
    s = min(1.0, long_side / max(h, w))
    if s == 1.0:
        return image, np.eye(3)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    sx, sy = size[0] / w, size[1] / h
    small = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
    return small, np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1]])


def _words(desc: NDArray[np.uint8]) -> NDArray[np.uint64]:
    """(n, 32) uint8 descriptors as (n, 4) uint64 words (their bits unchanged)."""
    return np.ascontiguousarray(desc, np.uint8).view(np.uint64)
