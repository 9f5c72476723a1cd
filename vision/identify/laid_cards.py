"""Cards laid for registering, read one frame at a time: stateless.

What :mod:`vision.identify.capture_many` (the registration session) asks of a frame: the
cards seen whole (:func:`find_cards`: outlines of :func:`vision.identify.quads.find_outlines`,
stricter than the reader's), each card's corners as its face is taken upright
(:func:`upright`), the checks of a face (:func:`check_face`: blurred, glare, too small), and
whether a face is a card seen before (:func:`same_card`: appearance to shortlist, keypoints to
decide). The thresholds are measured by ``python -m pictable.bench.readers.register
thresholds|duplicates|sizes``.

Conventions: frames (H, W, 3) uint8 BGR; corners (4, 2) float pixels (pixel centres at
integers), clockwise; faces (H, W, 3) uint8 BGR; descriptors unit float32 rows of
:data:`vision.identify.appearance.DESCRIPTOR_DIM`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, local, quads

#: How faces are rectified: ``portrait`` (63 x 88, the default: a portrait deck's cards are
#: never turned landscape), ``landscape`` (88 x 63: Picmix player cards), ``auto`` (each card
#: as it lies in the frame: its long side nearer the frame's rows, landscape).
Orientation = Literal["portrait", "landscape", "auto"]
ORIENTATIONS: tuple[str, ...] = ("portrait", "landscape", "auto")
WarningKind = Literal["blurred", "glare", "small", "duplicate"]

#: A card is *blurred* when the variance of the Laplacian of its face, rectified at the
#: card's own size in the frame (its short side in px across; grey levels), over the variance
#: of the face's grey levels is under this. Dividing by the face's own contrast keeps a dim or
#: flat picture from reading as blurred. Measured on 12 rendered layouts of 10 Pick Pic
#: cards at the normal tier (``python -m pictable.bench.readers.register thresholds``):
#: faces as rendered 0.18 and more (108 faces), defocused by 1.5 px 0.03-0.23 (95th
#: percentile 0.16), by 2.5 px 0.02-0.03 (most of those cards are not outlined at all). Art
#: that is soft itself (a picture enlarged) also reads as blurred.
BLUR_MIN = 0.15
#: A pixel is saturated when all three channels are at least this (a glare spot is white).
SATURATED = 250
#: A card shows *glare* when more than this share of its face (its inner 92%: the card's edge
#: left out) lies in saturated spots at least :data:`GLARE_SPOT` of its short side across (a
#: white frame that saturates, a thin ring, is no spot) that fade into bright surroundings
#: (:data:`GLARE_HALO`: a printed code's white cells, or white in the picture, end at an
#: edge). Measured as for :data:`BLUR_MIN`, on a dark cloth: no glare, 0 of 114 faces over
#: 0.01 at the tier's light, 1 at its brightest exposure (x 1.15; 99th percentile 0.009);
#: a spot of strength 1.0, 14-20 mm, on every card at that exposure: median 0.013, 95th
#: percentile 0.06 (the renderer's glare often saturates nothing: then nothing is lost).
GLARE_MAX = 0.01
GLARE_SPOT = 0.08
#: The least mean grey of the ring round a saturated spot for it to be glare (:func:`_glare`).
GLARE_HALO = 200.0
#: A card is *too small* when its short side is under this many pixels in the frame. The
#: 120 Pick Pic cards registered with the camera at one height, identified on the 40
#: ``features`` scenes of seed 1 (``python -m pictable.bench.readers.register sizes``; the
#: clean art: 287 of 287): cards 90 px across 287 right, 61 px 284, 46 px 285 (1 wrong), 41 px
#: 282, 37 px 277 (1 wrong): under about 45 px the deck loses more than a point.
SMALL_PX = 45.0
#: Two faces are the same card when, among the :data:`SHORTLIST` cards likest by appearance
#: (the cosine of their descriptors, face or inside, either way up: :func:`looks_likeness`),
#: one's keypoints (:func:`face_keypoints`) fit the face's by a homography with at least
#: :data:`SAME_INLIERS` inliers (:func:`fit_inliers`), or the likest has a cosine of
#: :data:`SAME_COS` or more and a fit of :data:`SAME_COS_INLIERS`. Measured (``python -m
#: pictable.bench.readers.register duplicates``: 120 Pick Pic cards laid twice in rendered
#: layouts, another camera, table and light): the same card was found 109 times in 113 and
#: no other card of the 1279 shortlisted (the others' fits: at most 22 inliers; the same
#: card's: median 67, 5th percentile 26); on the clean faces of the 1,000-card deck of
#: ``pictable.bench.readers.register`` no two cards fit by more than 20. The cosine alone
#: does not tell: the same card's falls to 0.71 (one outline the card's, the other its
#: picture's), and mirrored pictures reach 0.99. Weak on soft art with few corners: of the
#: made-up cards of the 1,000-card deck (quarters of photographs enlarged, no codes) laid
#: twice, 30 of 100 were skipped and 62 taken twice (their faces had a median of 32
#: keypoints, a quarter of them 3 or fewer).
SAME_COS = 0.96
SAME_COS_INLIERS = 16
SAME_INLIERS = 28
SHORTLIST = 12
#: A keypoint fit counts only when its inliers cover at least this share of the face (the
#: convex hull's area).
FIT_SPREAD_MIN = 0.2

#: Outlines kept as cards: their mean side support and least side support (all four sides
#: seen), and how far their aspect (short / long side in the frame) may be from the cards'.
OUTLINE_MIN = 0.9
SIDE_MIN = 0.9
ASPECT_TOLERANCE = 0.15
#: ... and each of its corners seen: the share of the first :data:`CORNER_REACH` of the two
#: sides from it where an edge runs along them (the support above is sampled from 12% to 88%
#: of each side, so an outline running a tenth past the card, onto the table or into the gap
#: before the next card, kept it). On 25 rendered layouts of the normal tier: every outline
#: within 4% of its card's area had all four corners at 1.0 but one (0.8 and more), every
#: outline 6% larger or more had one at 0.75 or less.
CORNER_MIN = 0.8
CORNER_REACH = 0.15
#: An outline more than this many times the median area of a layout's cards is two cards
#: touching (ask for gaps), not one.
AREA_SPREAD_MAX = 1.7
#: ... and one less than the median over this is a piece of a card (its picture, a part of
#: a picture on a light table), when a layout has 3 cards or more.
AREA_SPREAD_MIN = 1.45
#: Frames of a stream are searched for outlines at this long side (a webcam's 1280 x 720
#: enlarged, phone photos shrunk), and still photos at :data:`PHOTO_LONG_PX`: on 30 rendered
#: layouts of the normal tier (276 cards, 1280 x 720), outlines within 5% of their card's
#: area: 218 searched at 1280, 236 at 1600, 250 at 1920, 258 at 2560 (3.4 times the time
#: of 1600: 0.4 s a frame, too slow for a camera, not for photos).
DETECT_LONG_PX = 1600
PHOTO_LONG_PX = 2560
#: ... enlarged at most this many times: enlarging spreads an edge over more pixels, and the
#: outlines' sides are snapped to edges of a least strength per pixel (``quads.EDGE_MIN``; a
#: 640 x 360 frame enlarged 4 times gave no outline).
MAX_ENLARGE = 2.0
#: Inner share of a face its checks look at (the card's edge, where the table shows through
#: a corner a pixel off, left out).
INNER = 0.92
#: The share of a face's short side cut off all round for its inside (:func:`face_looks`):
#: a white frame is 3-5 mm of 63.
INSIDE = 0.06
#: ... and for its keypoints (:func:`face_keypoints`): past a frame, whichever edge was found.
KEYPOINTS_INSIDE = 0.1
#: Portrait face size of the faces taken (px): 5 px/mm of a 63 x 88 mm card.
FACE_WH = (315, 440)


@dataclass(frozen=True, eq=False)
class FaceCheck:
    """The checks of one face: its short side in the frame (px), ``sharpness`` (the
    Laplacian's variance over the grey levels' at the card's own size), ``glare`` (share of
    saturated pixels), and the ``warnings`` they give (``blurred``, ``glare``, ``small``)."""

    short_px: float
    sharpness: float
    glare: float
    warnings: tuple[WarningKind, ...]

    def describe(self) -> list[str]:
        """One line per warning, with its figure and the threshold."""
        out = []
        for w in self.warnings:
            if w == "blurred":
                out.append(f"blurred (sharpness {self.sharpness:.3f}, under {BLUR_MIN})")
            elif w == "glare":
                out.append(f"glare ({self.glare:.1%} of the face saturated, over {GLARE_MAX:.0%})")
            elif w == "small":
                out.append(
                    f"too small ({self.short_px:.0f} px across, under {SMALL_PX:.0f}: bring the "
                    "camera closer or lay fewer cards)"
                )
        return out


# ---- stateless: one frame ------------------------------------------------------------------


def _check_frame(frame: object) -> NDArray[np.uint8]:
    if (
        not isinstance(frame, np.ndarray)
        or frame.dtype != np.uint8
        or frame.ndim != 3
        or frame.shape[2] != 3
    ):
        got = (
            f"{frame.shape} {frame.dtype}"
            if isinstance(frame, np.ndarray)
            else type(frame).__name__
        )
        raise ValueError(f"frame must be (H, W, 3) uint8 BGR, got {got}")
    return frame


def _side_lengths(q: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1), np.float64)


def _shared_side(a: NDArray[np.float64], b: NDArray[np.float64]) -> tuple[int, int] | None:
    """(k, l) when side k of quad ``a`` and side l of quad ``b`` (each (4, 2)) are one line
    segment (both ends within a tenth of the smaller short side), else None."""
    tol = 0.1 * min(short_side_px(a), short_side_px(b))
    for k in range(4):
        a0, a1 = a[k], a[(k + 1) % 4]
        for m in range(4):
            b0, b1 = b[m], b[(m + 1) % 4]
            if (np.linalg.norm(a0 - b1) < tol and np.linalg.norm(a1 - b0) < tol) or (
                np.linalg.norm(a0 - b0) < tol and np.linalg.norm(a1 - b1) < tol
            ):
                return k, m
    return None


def _merge_pieces(
    kept: list[tuple[float, NDArray[np.float64]]],
    grads: tuple[NDArray[np.float32], NDArray[np.float32]],
    scale_xy: NDArray[np.float64],
    aspect: float,
) -> list[tuple[float, NDArray[np.float64]]]:
    """Outlines (area, (4, 2) frame px) with every two that share a side (a card split by a
    straight edge across its picture, a horizon, into two card-shaped pieces) made one, when
    the two together are a card seen on all four sides, and both dropped otherwise (two
    cards touching: ask for gaps)."""
    out = list(kept)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                shared = _shared_side(out[i][1], out[j][1])
                if shared is None:
                    continue
                k, m = shared
                a, b = out[i][1], out[j][1]
                rest = [a[(k + 2) % 4], a[(k + 3) % 4], b[(m + 2) % 4], b[(m + 3) % 4]]
                whole = quads.order_quads(np.asarray(rest, np.float64)[None])
                det = (whole + 0.5) / scale_xy - 0.5
                fitted, support = quads.refine_quads(*grads, det, radius=2.0)
                q = fitted[0]
                sides = _side_lengths(q)
                short, long = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
                ok = (
                    support[0].min() >= SIDE_MIN
                    and long > 0
                    and abs(short / long - aspect) <= ASPECT_TOLERANCE
                    and _corners_seen_quads(grads, q[None])[0] >= CORNER_MIN
                )
                rest_of = [out[x] for x in range(len(out)) if x not in (i, j)]
                if ok:
                    frame_q = (q + 0.5) * scale_xy - 0.5
                    area = abs(float(cv2.contourArea(frame_q.astype(np.float32).reshape(-1, 1, 2))))
                    rest_of.append((area, frame_q))
                out = rest_of
                merged = True
                break
            if merged:
                break
    return out


def _corners_seen(
    grads: tuple[NDArray[np.float32], NDArray[np.float32]], outlines: list[quads.Outline]
) -> NDArray[np.float64]:
    """(n,) the least :func:`vision.identify.quads.corner_support` of each outline's four
    corners (:data:`CORNER_REACH`)."""
    if not outlines:
        return np.zeros(0)
    return _corners_seen_quads(grads, np.stack([o.corners_px.astype(np.float64) for o in outlines]))


def _corners_seen_quads(
    grads: tuple[NDArray[np.float32], NDArray[np.float32]], q: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(m,) the least corner support of each of (m, 4, 2) quads (:func:`_corners_seen`)."""
    seen = [
        quads.corner_support(*grads, q, np.full(len(q), c, np.intp), reach=CORNER_REACH, samples=8)
        for c in range(4)
    ]
    return np.asarray(np.min(np.stack(seen), axis=0), np.float64)


def _inside(point: NDArray[np.float64], quad: NDArray[np.float64]) -> bool:
    return (
        cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), point.tolist(), False) >= 0
    )


def find_cards(
    frame: NDArray[np.uint8],
    *,
    aspect: float = quads.CARD_ASPECT,
    detect_long_px: int = DETECT_LONG_PX,
) -> list[NDArray[np.float64]]:
    """The cards seen whole in a frame ((H, W, 3) uint8 BGR): (4, 2) float64 px corners each,
    clockwise, the first side a short one; outlines seen on all four sides
    (:data:`OUTLINE_MIN`, :data:`SIDE_MIN`) of the cards' ``aspect`` (short / long,
    :data:`ASPECT_TOLERANCE`), none inside another, none much larger than the others
    (:data:`AREA_SPREAD_MAX`: two cards touching) or smaller (:data:`AREA_SPREAD_MIN`: a
    piece of one) than the others, when there are 3 or more. The frame is searched shrunk to
    ``detect_long_px`` (shrunk, or enlarged up to :data:`MAX_ENLARGE` times; corners given in
    the frame's own pixels)."""
    frame = _check_frame(frame)
    grey: NDArray[np.uint8] = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    h, w = grey.shape
    scale = min(detect_long_px / max(h, w), MAX_ENLARGE)
    if abs(scale - 1.0) > 0.01:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
        grey = np.asarray(cv2.resize(grey, size, interpolation=interp), np.uint8)
        scale_xy = np.array([w / size[0], h / size[1]])
    else:
        scale_xy = np.ones(2)
    # The reader's outlines (silhouettes at half size), and those of silhouettes at the
    # frame's own resolution: cards laid a few pixels apart stay apart there.
    up = np.asarray(
        cv2.resize(grey, (grey.shape[1] * 2, grey.shape[0] * 2), interpolation=cv2.INTER_LINEAR),
        np.uint8,
    )
    grads = quads.gradients(grey)
    outlines = quads.find_outlines(grey, aspect=aspect, grads=grads)
    outlines += quads.find_outlines(
        grey, aspect=aspect, grads=grads, regions=(quads.silhouettes(up)[0], 1.0)
    )
    found = []
    candidates = [o for o in outlines if o.outline >= OUTLINE_MIN and o.support.min() >= SIDE_MIN]
    corners_seen = _corners_seen(grads, candidates)
    for o, corner in zip(candidates, corners_seen, strict=True):
        if corner < CORNER_MIN:
            continue
        q = o.corners_px.astype(np.float64)
        sides = _side_lengths(q)
        short, long = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        if long <= 0 or abs(short / long - aspect) > ASPECT_TOLERANCE:
            continue
        area = abs(float(cv2.contourArea(q.astype(np.float32).reshape(-1, 1, 2))))
        found.append((o.outline, area, o.source, (q + 0.5) * scale_xy - 0.5))
    if not found:
        return []
    # The cards' size: the median of the single cards seen whole (silhouettes), else of every
    # outline. Among outlines of one card, the one nearest that size is kept first: where
    # cards lie close their silhouettes merge, and the line search also fits rectangles that
    # run across the gap into the next card (1.1-1.3 times the card).
    single = [a for o, a, src, _ in found if src == "silhouette" and o >= 0.95]
    ref = float(np.median(single if single else [f[1] for f in found]))
    found.sort(key=lambda f: (round(abs(np.log(f[1] / ref)) / 0.02), -round(f[0], 2), -f[1]))
    kept: list[tuple[float, NDArray[np.float64]]] = []
    for _, area, _, q in found:
        centre = q.mean(axis=0)
        if any(_inside(centre, k) or _inside(k.mean(axis=0), q) for _, k in kept):
            continue
        kept.append((area, q))
    kept = _merge_pieces(kept, grads, scale_xy, aspect)
    if len(kept) >= 3:
        median = float(np.median([a for a, _ in kept]))
        kept = [
            (a, q) for a, q in kept if median / AREA_SPREAD_MIN <= a <= AREA_SPREAD_MAX * median
        ]
    return [q for _, q in kept]


def upright(
    corners: NDArray[np.floating], orientation: Orientation = "portrait"
) -> tuple[NDArray[np.float64], bool]:
    """A card's corners (4, 2) px, clockwise, the first side a short one, as TL, TR, BR, BL
    of its face taken upright as the camera sees it (the top side the one running most
    left to right in the frame) -> (corners, landscape). ``portrait`` keeps a short side on
    top, ``landscape`` a long one, ``auto`` the side nearest the frame's rows."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    if orientation not in ORIENTATIONS:
        raise ValueError(f"orientation must be one of {list(ORIENTATIONS)}, got {orientation!r}")
    rolls = {"portrait": (0, 2), "landscape": (1, 3), "auto": (0, 1, 2, 3)}[orientation]
    best, best_dx = 0, -np.inf
    for r in rolls:
        p = np.roll(q, -r, axis=0)
        d = p[1] - p[0]
        dx = float(d[0] / max(np.linalg.norm(d), 1e-9))
        if dx > best_dx:
            best, best_dx = r, dx
    return np.roll(q, -best, axis=0), best % 2 == 1


def short_side_px(corners: NDArray[np.floating]) -> float:
    """A card's short side in the frame (px): the mean of its two shorter opposite sides."""
    s = _side_lengths(np.asarray(corners, np.float64).reshape(4, 2))
    return float(min((s[0] + s[2]) / 2, (s[1] + s[3]) / 2))


def check_face(
    frame: NDArray[np.uint8], corners: NDArray[np.floating], landscape: bool = False
) -> FaceCheck:
    """The checks of the card at ``corners`` (upright, :func:`upright`) in ``frame``: the
    face rectified at the card's own size (its short side in px across), its sharpness
    (the variance of the Laplacian over the variance of the grey levels, in the inner
    :data:`INNER` of the face), its share of saturated pixels, and the warnings they give
    (:data:`BLUR_MIN`, :data:`GLARE_MAX`, :data:`SMALL_PX`)."""
    short = short_side_px(corners)
    a, b = max(8, round(short)), max(8, round(short / quads.CARD_ASPECT))
    native = appearance.rectify(frame, np.asarray(corners)[None], (b, a) if landscape else (a, b))[
        0
    ]
    h, w = native.shape[:2]
    my, mx = round(h * (1 - INNER) / 2), round(w * (1 - INNER) / 2)
    inner = native[my : h - my, mx : w - mx]
    grey = cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY).astype(np.float64)
    lap = cv2.Laplacian(grey, cv2.CV_64F, ksize=1)[1:-1, 1:-1]
    sharpness = float(lap.var() / max(grey.var(), 1.0))
    saturated = (inner.min(axis=2) >= SATURATED).astype(np.uint8)
    k = max(3, round(GLARE_SPOT * short) | 1)
    spots = np.asarray(
        cv2.morphologyEx(
            saturated, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        ),
        np.uint8,
    )
    glare = _glare(spots, grey, k)
    warnings: list[WarningKind] = []
    if sharpness < BLUR_MIN:
        warnings.append("blurred")
    if glare > GLARE_MAX:
        warnings.append("glare")
    if short < SMALL_PX:
        warnings.append("small")
    return FaceCheck(short, sharpness, glare, tuple(warnings))


def _glare(spots: NDArray[np.uint8], grey: NDArray[np.float64], k: int) -> float:
    """The share of a face in glare: its saturated spots (``spots`` (h, w) 0/1) that fade
    out into bright surroundings (the ring ``k`` // 2 px wide round each is on average at
    least :data:`GLARE_HALO` grey), as a highlight does; a white area of the picture, or a
    printed code's white cells, ends at its edge."""
    n, labels = cv2.connectedComponents(spots, connectivity=8)
    if n <= 1:
        return 0.0
    r = max(2, k // 2)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    total = 0
    for i in range(1, n):
        blob = (labels == i).astype(np.uint8)
        ring = cv2.dilate(blob, kernel).astype(bool) & ~blob.astype(bool)
        if not ring.any():
            continue
        values = grey[ring]
        if values.mean() >= GLARE_HALO:
            total += int(blob.sum())
    return total / spots.size


def face_descriptors(faces: Sequence[NDArray[np.uint8]]) -> NDArray[np.float32]:
    """(n, D) float32 unit appearance descriptors of faces (each (H, W, 3) uint8 BGR; a
    landscape face turned a quarter first, as a deck does)."""
    if not faces:
        return np.zeros((0, appearance.DESCRIPTOR_DIM), np.float32)
    cells = np.stack([appearance.face_cells(f) for f in faces])
    return np.asarray(appearance.describe(cells), np.float32)


def likeness(
    descriptor: NDArray[np.float32], others: NDArray[np.float32], others_turned: NDArray[np.float32]
) -> NDArray[np.float64]:
    """(m,) cosine of a (D,) descriptor with each of m cards, the better of either way up
    (``others`` (m, D) and the same cards turned half round ``others_turned`` (m, D))."""
    if not len(others):
        return np.zeros(0, np.float64)
    d = np.asarray(descriptor, np.float32)
    return np.asarray(np.maximum(others @ d, others_turned @ d), np.float64)


def face_looks(face: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(4, D) float32 what a face is compared by: the appearance descriptors of the face and
    of its inside (:data:`INSIDE` of its short side cut off all round), each upright and
    turned half round. The same card seen once by its outer edge and once by its picture's
    (a white frame on a light table) is alike face to inside."""
    f = appearance.portrait(face)
    h, w = f.shape[:2]
    m = max(1, round(INSIDE * w))
    cells = np.stack([appearance.face_cells(f), appearance.face_cells(f[m : h - m, m : w - m])])
    both = np.concatenate([cells, appearance.turned(cells)])
    return np.asarray(appearance.describe(both), np.float32)


def looks_likeness(looks: NDArray[np.float32], others: NDArray[np.float32]) -> NDArray[np.float64]:
    """(m,) how alike a face's :func:`face_looks` (4, D) is to each of m cards' (m, 4, D):
    the best cosine of face to face, face to inside and inside to face, either way up."""
    if not len(others):
        return np.zeros(0, np.float64)
    o = np.asarray(others, np.float32)
    face, inside = looks[0], looks[1]
    sims = [o[:, k] @ face for k in range(4)] + [o[:, 0] @ inside, o[:, 2] @ inside]
    return np.asarray(np.max(np.stack(sims), axis=0), np.float64)


def cells_looks(cells: NDArray[np.float32]) -> NDArray[np.float32]:
    """(n, 4, D) :func:`face_looks` of cards known only by their (n, 25, 18, 3) Lab cells (a
    deck's): the face stands for its inside."""
    c = np.asarray(cells, np.float32)
    up = appearance.describe(c)
    down = appearance.describe(appearance.turned(c))
    return np.asarray(np.stack([up, up, down, down], axis=1), np.float32)


def face_keypoints(face: NDArray[np.uint8]) -> local.Keypoints:
    """The keypoints a face is compared by: :func:`vision.identify.local.table_keypoints` of
    its inside (the face brought portrait, :data:`KEYPOINTS_INSIDE` of its short side cut off
    all round). A deck's cards share their frame: two different pictures in the same white
    frame fitted by 56 inliers, the frame's corners and edges."""
    f = appearance.portrait(face)
    h, w = f.shape[:2]
    m = max(1, round(KEYPOINTS_INSIDE * w))
    return local.table_keypoints(np.ascontiguousarray(f[m : h - m, m : w - m]))


def fit_inliers(a: local.Keypoints, b: local.Keypoints) -> int:
    """Inliers of a homography (RANSAC, :data:`vision.identify.local.VERIFY_RANSAC_PX`)
    fitted on the ratio-test matches (:data:`vision.identify.local.VERIFY_RATIO`) of two
    faces' keypoints; 0 when too few match."""
    if len(a) < 4 or len(b) < 4:
        return 0
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(a.desc, b.desc, k=2)
    good = [
        p[0] for p in pairs if len(p) == 2 and p[0].distance < local.VERIFY_RATIO * p[1].distance
    ]
    if len(good) < 4:
        return 0
    src = a.xy[[m.queryIdx for m in good]].reshape(-1, 1, 2)
    dst = b.xy[[m.trainIdx for m in good]].reshape(-1, 1, 2)
    h, mask = cv2.findHomography(src, dst, cv2.RANSAC, local.VERIFY_RANSAC_PX, maxIters=500)
    if h is None or mask is None:
        return 0
    # A fit of the same card maps the face onto a face (a quarter to four times its area),
    # from inliers spread over it: chance matches in a dark corner fit a folded homography.
    w, hh = local.VERIFY_CARD_WH
    rect = np.array([[0, 0], [w, 0], [w, hh], [0, hh]], np.float64).reshape(-1, 1, 2)
    quad = np.asarray(cv2.perspectiveTransform(rect, np.asarray(h, np.float64)), np.float64)
    quad = quad.reshape(4, 2)
    area = abs(float(cv2.contourArea(quad.astype(np.float32))))
    inliers = src.reshape(-1, 2)[mask.ravel().astype(bool)]
    if (
        not local.plausible_quad(quad)
        or not 0.25 * w * hh <= area <= 4.0 * w * hh
        or _spread(inliers) < FIT_SPREAD_MIN
    ):
        return 0
    return int(mask.sum())


def _spread(points: NDArray[np.float32]) -> float:
    """Area of the convex hull of (n, 2) face pixels over the face's
    (:data:`vision.identify.local.VERIFY_CARD_WH`)."""
    if len(points) < 3:
        return 0.0
    hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 1, 2))
    w, h = local.VERIFY_CARD_WH
    return float(abs(cv2.contourArea(hull)) / (w * h))


def same_card(
    looks: NDArray[np.float32],
    keypoints: local.Keypoints,
    others: NDArray[np.float32],
    others_keypoints: Callable[[int], local.Keypoints],
) -> tuple[int, float, int]:
    """Which of m cards a face is (see :data:`SAME_INLIERS`): (its index, or -1 for none;
    the cosine with it, or with the likest card when none; the inliers of its keypoints'
    fit, or of the best fit when none). ``looks`` (4, D) and ``keypoints`` the face's
    (:func:`face_looks`, :func:`face_keypoints`); ``others`` (m, 4, D) the cards' looks;
    ``others_keypoints(i)`` card i's keypoints (asked only for the shortlist)."""
    sims = looks_likeness(looks, others)
    if not len(sims):
        return -1, 0.0, 0
    order = [int(i) for i in np.argsort(-sims, kind="stable")[:SHORTLIST]]
    fits = {i: fit_inliers(keypoints, others_keypoints(i)) for i in order}
    best = max(order, key=lambda i: (fits[i], sims[i]))
    if fits[best] >= SAME_INLIERS:
        return best, float(sims[best]), fits[best]
    top = order[0]
    if sims[top] >= SAME_COS and fits[top] >= SAME_COS_INLIERS:
        return top, float(sims[top]), fits[top]
    return -1, float(sims[top]), fits[best]
