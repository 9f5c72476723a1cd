"""Card outlines in a frame: quadrilaterals of a card's aspect, found from edges alone.

No card art is assumed (a registered deck may be any cards), only that a card is a flat
rectangle whose edge contrasts with what lies around it. The steps:

1. **Silhouettes.** Edges (Canny, on the frame at half size, where wood grain and sensor
   noise fade but card edges stay) are thickened by a pixel, and every region they enclose
   that does not reach the frame's border is filled: a card's outline is a closed curve, a
   table's plank gaps and texture are not (or enclose only small specks, removed by an
   opening). Overlapping cards and the fingers over them give one silhouette.
2. **Hypotheses.** A silhouette whose outline is a convex quadrilateral of card aspect is one
   card. Every other silhouette contributes its corners: each convex vertex of its outline
   polygon with an angle of 55-125 degrees is a card corner, its two arms run along two card
   sides, and the other two sides are searched for as edges parallel to the arms (the
   outermost strong edge at a card's width or length, see :func:`grow_from_corners`).
3. **Refinement.** Each side is moved to the outermost strong edge within a few pixels
   (the outermost, because many cards have a light frame round their picture: the inner
   edge of that frame is often the stronger one) and fitted as a line through the edge
   points found along it; corners are the intersections of neighbouring sides
   (:func:`refine_quads`). Each side's *support* is the share of its length where an edge was
   found on that line.

Conventions: ``grey`` is (H, W) uint8; quads are (m, 4, 2) float64 pixel arrays, corners in
clockwise order on screen (y down) with the first side a short one (for the card aspect
63:88, a portrait card's top or bottom edge; which of the two is decided later, by the
card's picture).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import kernels

#: Width / height of a poker card (63 x 88 mm).
CARD_ASPECT = 63.0 / 88.0

# Edge detection on the half-size frame (Canny hysteresis thresholds, L2 gradient of a
# 3x3 Sobel after a Gaussian of sigma 1 half-size pixel).
_CANNY_HIGH = (50.0, 200.0)
_CANNY_TEXTURE = 2.0
_CANNY_LOW_RATIO = 0.5
# A filled region touching the border is background unless it is smaller than this share of
# the frame (a card cut by the frame's edge).
_BORDER_REGION_MAX = 0.004
# Regions larger than this share of the frame are background even if enclosed.
_REGION_MAX = 0.08
# Smallest silhouette kept, in full-size pixels (a 24 x 34 px card).
_MIN_AREA_PX = 800.0
# A silhouette round a thing known to be no card (a table marker, ``not_cards``) is skipped
# when its area is at most this many times that thing's: a 40 mm play-area marker's white
# square measured 1.2-4.3 times the marker's dark one on rendered tables (60 scenes, 232
# markers), a marker's silhouette merged with a card's 5.8 times or more (a card alone is
# 3.5 times the marker).
_NOT_CARD_AREA = 3.0
# Edge strength (grey levels per pixel after the 3x3 Sobel / 8 on a sigma-1 blur) that counts
# as an edge: a step of about 12 grey levels.
EDGE_MIN = 5.0
# Lines kept per cluster of cards, and the angle tolerances of a card's sides in
# perspective (parallel sides, right angles), degrees.
_MAX_LINES = 24
_PARALLEL_DEG = 10.0
_RIGHT_ANGLE_TOL_DEG = 30.0
# Quadrilateral silhouettes of this short/long side ratio are taken as one card: from a card
# seen end-on to a square (a far card of a tilted camera, its long side pointing away,
# looks 0.94-0.98: it was cut at 0.95, when the table's square markers were told apart by
# their shape alone).
_QUAD_ASPECT = (0.4, 1.0)
# Rectangles from lines (where cards touch) keep to this ratio (squares there are mostly two
# cards' sides).
_LINES_ASPECT = (0.5, 0.95)
# A quad at least this square is given both ways (either pair of sides as the card's short
# one): which is which is not known.
_EITHER_WAY = 0.85
# Corner k + 1 (and k - 1) for corner k of a quad: the next (and previous) corner clockwise
# (an index, where np.roll along the corners cost more than the arithmetic it fed).
_NEXT = [1, 2, 3, 0]
_PREVIOUS = [3, 0, 1, 2]


@dataclass(frozen=True, eq=False)
class Outline:
    """A card-shaped quadrilateral: ``corners_px`` (4, 2) float32 clockwise on screen, the
    first side a short one (a nearly square quad is given twice, either pair first:
    :data:`_EITHER_WAY`); ``support`` (4,) float32, the share of each side (in corner
    order: side k joins corner k and k + 1) seen as an edge; ``source``: ``"silhouette"``
    (a whole silhouette or its enclosing rectangle), ``"split"`` (a piece of a silhouette
    split at its concave corners), ``"lines"`` (from the straight edges of a cluster of
    cards) or ``"tiles"`` (from those of a tile of a long cluster: :data:`_TILED_FROM`)."""

    corners_px: NDArray[np.float32]
    support: NDArray[np.float32]
    source: str

    @functools.cached_property
    def outline(self) -> float:
        """Mean support of the four sides, in [0, 1] (worked out once: it is read some 60
        times a frame)."""
        return float(self.support.mean())


def gradients(grey: NDArray[np.uint8]) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(gx, gy), each (H, W) float32: the grey image's derivative in grey levels per pixel
    (3x3 Sobel / 8 after a Gaussian of sigma 1 px)."""
    g = cv2.GaussianBlur(grey, (0, 0), 1.0)  # uint8: Sobel to float32 directly, same values
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    return gx, gy


# Pixels on each side of a pixel that its gradient depends on: the Gaussian's 7-tap kernel
# (OpenCV's size for sigma 1 on uint8, 2 * round(3 sigma) + 1) and the 3x3 Sobel.
_GRADIENT_REACH = 3 + 1
# Side of the square tiles in which :class:`Gradients` works the gradients out, px.
_GRADIENT_TILE = 16
# Margin added round each card's samples, px: the refinement's later passes (within 2 px of
# lines moved by up to the first radius) then fall in tiles already done.
_GRADIENT_SLACK = 4
# More crops than this in one request cost more than the whole frame (each OpenCV call
# costs about 50 us on a small crop: the Gaussian's bit-exact kernel is set up every call).
_GRADIENT_CROPS_MAX = 8


class Gradients:
    """:func:`gradients` of a (H, W) uint8 grey frame, worked out only where they are sampled
    (a few cards' sides are a small part of the frame): the tiles of ``_GRADIENT_TILE`` px
    round each card's samples are computed on first use, each box of them from its crop of
    the frame grown by ``_GRADIENT_REACH`` px (the values equal the whole frame's; a crop
    cut by the frame's edge gets the whole frame's border handling), and kept. A request
    of more than ``_GRADIENT_CROPS_MAX`` crops works the whole frame out instead, and so
    does ``whole=True`` at once (for callers that sample all over the frame).

    ``gx, gy = grads`` gives the two planes, which :func:`refine_quads`,
    :func:`corner_support` and :func:`find_outlines` take in place of the arrays."""

    def __init__(self, grey: NDArray[np.uint8], whole: bool = False) -> None:
        if grey.ndim != 2 or grey.dtype != np.uint8:
            raise ValueError(f"grey must be (H, W) uint8, got {grey.shape} {grey.dtype}")
        self.grey = grey
        h, w = grey.shape
        t = _GRADIENT_TILE
        self._done = np.zeros((-(-h // t), -(-w // t)), bool)
        self._seen: NDArray[np.float64] | None = None
        if whole:
            self.planes = gradients(grey)
            self._done[:] = True
        else:
            # Left unset (zeroing the two planes cost as much as a third of the whole frame's
            # gradients): a sample reads only pixels of the tiles worked out for it.
            self.planes = (np.empty((h, w), np.float32), np.empty((h, w), np.float32))

    def __iter__(self) -> Iterator[GradientPlane]:
        return iter((GradientPlane(self, 0), GradientPlane(self, 1)))

    def around(self, x: NDArray[np.float64], y: NDArray[np.float64]) -> None:
        """Work out the gradients that bilinear samples at (``x``, ``y``) read: same shapes
        (m, ...), one box per card (the first axis)."""
        if x is self._seen or x.size == 0:
            return  # the other plane, sampled at the same points; or nothing
        self._seen = x
        if self._done.all():
            return
        h, w = self.grey.shape
        xs = x.reshape(len(x), -1)
        ys = y.reshape(len(y), -1)
        lo_x, hi_x = xs.min(axis=1), xs.max(axis=1)
        lo_y, hi_y = ys.min(axis=1), ys.max(axis=1)
        if not np.isfinite(np.concatenate([lo_x, hi_x, lo_y, hi_y])).all():
            self._whole()  # a degenerate quad: no box holds its samples
            return
        # A sample reads pixels floor(x) and floor(x) + 1, where x is first rounded to
        # 1/32 px (cv2.remap): up to floor(x) + 2; a pixel more on each side for safety.
        t, m = _GRADIENT_TILE, _GRADIENT_SLACK
        tx0 = (np.clip(np.floor(lo_x) - 1 - m, 0, w) // t).astype(np.intp)
        tx1 = (-(-np.clip(np.floor(hi_x) + 3 + m, 0, w) // t)).astype(np.intp)
        ty0 = (np.clip(np.floor(lo_y) - 1 - m, 0, h) // t).astype(np.intp)
        ty1 = (-(-np.clip(np.floor(hi_y) + 3 + m, 0, h) // t)).astype(np.intp)
        # Boxes already worked out (a summed-area table of the tiles done) are skipped.
        done = np.zeros((self._done.shape[0] + 1, self._done.shape[1] + 1), np.int32)
        done[1:, 1:] = self._done.cumsum(0).cumsum(1)
        count = done[ty1, tx1] - done[ty0, tx1] - done[ty1, tx0] + done[ty0, tx0]
        todo = np.flatnonzero(count < np.maximum(ty1 - ty0, 0) * np.maximum(tx1 - tx0, 0))
        if len(todo) > _GRADIENT_CROPS_MAX:
            self._whole()
            return
        for i in todo:
            self._compute(int(ty0[i]), int(ty1[i]), int(tx0[i]), int(tx1[i]))

    def _whole(self) -> None:
        """Work out the whole frame at once (the tiles done hold the same values)."""
        self.planes = gradients(self.grey)
        self._done[:] = True

    def _compute(self, ty0: int, ty1: int, tx0: int, tx1: int) -> None:
        """Work out the tiles not yet done in rows ``ty0:ty1``, columns ``tx0:tx1`` (the
        smallest box of tiles holding them, from one crop of the frame)."""
        block = ~self._done[ty0:ty1, tx0:tx1]
        rows = np.flatnonzero(block.any(axis=1))
        if not len(rows):
            return
        cols = np.flatnonzero(block.any(axis=0))
        ty0, ty1, tx0, tx1 = ty0 + rows[0], ty0 + rows[-1] + 1, tx0 + cols[0], tx0 + cols[-1] + 1
        h, w = self.grey.shape
        t, r = _GRADIENT_TILE, _GRADIENT_REACH
        y0, y1, x0, x1 = ty0 * t, min(ty1 * t, h), tx0 * t, min(tx1 * t, w)
        cy0, cy1, cx0, cx1 = max(y0 - r, 0), min(y1 + r, h), max(x0 - r, 0), min(x1 + r, w)
        gx, gy = gradients(self.grey[cy0:cy1, cx0:cx1])
        inner = (slice(y0 - cy0, y1 - cy0), slice(x0 - cx0, x1 - cx0))
        self.planes[0][y0:y1, x0:x1] = gx[inner]
        self.planes[1][y0:y1, x0:x1] = gy[inner]
        self._done[ty0:ty1, tx0:tx1] = True


@dataclass(frozen=True)
class GradientPlane:
    """One of the two planes of a :class:`Gradients` (``axis`` 0: gx, 1: gy)."""

    owner: Gradients
    axis: int


#: A gradient image as the sampling functions take it: an (H, W) float32 array, or a plane of
#: :class:`Gradients` (worked out round the points sampled).
GradientImage = NDArray[np.float32] | GradientPlane


def silhouettes(grey: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    """The filled regions enclosed by edges (step 1 of the module docstring): a (h, w) uint8
    mask (255 inside) of the frame at half size, and the factor from mask to frame pixels."""
    h_full, w_full = grey.shape
    factor = 2.0 if min(h_full, w_full) >= 240 else 1.0
    small = (
        cv2.resize(
            grey, (round(w_full / factor), round(h_full / factor)), interpolation=cv2.INTER_AREA
        )
        if factor != 1.0
        else grey
    )
    h, w = small.shape
    blur = cv2.GaussianBlur(small, (0, 0), 1.0)
    # Thresholds follow the texture: twice the 90th percentile of the gradient magnitude
    # (a card's edge is a small share of the frame), within fixed bounds.
    gxs = cv2.Sobel(blur, cv2.CV_16S, 1, 0)
    gys = cv2.Sobel(blur, cv2.CV_16S, 0, 1)
    mag = cv2.magnitude(gxs[::4, ::4].astype(np.float32), gys[::4, ::4].astype(np.float32))
    high = float(np.clip(_CANNY_TEXTURE * np.percentile(mag, 90), _CANNY_HIGH[0], _CANNY_HIGH[1]))
    edges = cv2.Canny(gxs, gys, high * _CANNY_LOW_RATIO, high, L2gradient=True)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    # Each region's area, and whether it reaches the frame's edge (OpenCV's statistics of
    # the regions cost twice the labelling).
    n, labels = cv2.connectedComponents(cv2.bitwise_not(edges), connectivity=4, ltype=cv2.CV_32S)
    area = np.bincount(labels.reshape(-1), minlength=n)
    touches = np.zeros(n, bool)
    touches[np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])] = True
    background = (touches & (area > _BORDER_REGION_MAX * h * w)) | (area > _REGION_MAX * h * w)
    lut = np.where(background, 0, 255).astype(np.uint8)
    lut[0] = 255  # label 0: the edge pixels themselves
    mask: NDArray[np.uint8] = lut.take(np.asarray(labels))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    return mask, factor


def order_quads(quads: NDArray[np.floating]) -> NDArray[np.float64]:
    """(m, 4, 2) quads reordered clockwise on screen with the first side a short one (the
    shorter pair of opposite sides)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    v1 = q[:, 1] - q[:, 0]
    v2 = q[:, 2] - q[:, 0]
    ccw = v1[:, 0] * v2[:, 1] - v1[:, 1] * v2[:, 0] < 0
    q = np.where(ccw[:, None, None], q[:, [0, 3, 2, 1]], q)
    sides = _side_lengths(q)
    long_first = sides[:, 0] + sides[:, 2] > sides[:, 1] + sides[:, 3]
    return np.where(long_first[:, None, None], q[:, _NEXT], q)


def _side_lengths(q: NDArray[np.float64]) -> NDArray[np.float64]:
    """(m, 4) lengths of the sides of (m, 4, 2) quads (side k from corner k to k + 1)."""
    d = q - q[:, _NEXT]
    return np.asarray(np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1]), np.float64)


def quad_aspect(quads: NDArray[np.floating]) -> NDArray[np.float64]:
    """(m,) short/long side ratio of (m, 4, 2) ordered quads (mean of opposite sides)."""
    sides = _side_lengths(np.asarray(quads, np.float64).reshape(-1, 4, 2))
    return np.asarray((sides[:, 0] + sides[:, 2]) / (sides[:, 1] + sides[:, 3]), np.float64)


def _sample(
    img: NDArray[np.float32] | NDArray[np.uint8], pts: NDArray[np.float64]
) -> NDArray[np.float32]:
    """Bilinear samples of ``img`` (float32, or uint8: samples rounded to grey levels) at
    ``pts`` (..., 2) (x, y) pixels; 0 outside."""
    return _sample_grid(img, _grid(pts[..., 0], pts[..., 1]), pts.shape[:-1])


def _grid(
    x: NDArray[np.float64], y: NDArray[np.float64]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """(map_x, map_y) for ``cv2.remap``, each (rows, cols) float32: the points (``x``,
    ``y``) (same shapes) in order, then points far outside any image. cv2.remap wants maps
    of fewer than 32767 rows and columns: the points are laid on a 1024-wide grid."""
    n = x.size
    cols = max(min(n, 1024), 1)
    rows = -(-n // cols)
    maps = np.full((2, rows * cols), -10.0, np.float32)
    maps[0, :n] = x.reshape(-1)  # float64 to float32 as astype would
    maps[1, :n] = y.reshape(-1)
    return maps[0].reshape(rows, cols), maps[1].reshape(rows, cols)


def _sample_grid(
    img: NDArray[np.float32] | NDArray[np.uint8],
    grid: tuple[NDArray[np.float32], NDArray[np.float32]],
    shape: tuple[int, ...],
) -> NDArray[np.float32]:
    """Bilinear samples of ``img`` at the points of :func:`_grid`, as ``shape``; 0
    outside."""
    n = int(np.prod(shape))
    if n == 0:
        return np.zeros(shape, np.float32)
    out = cv2.remap(
        img, grid[0], grid[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    return np.asarray(out, np.float32).reshape(-1)[:n].reshape(shape)


def _normal_profiles(
    gx: GradientImage,
    gy: GradientImage,
    points: NDArray[np.float64],
    normals: NDArray[np.float64],
    offsets: NDArray[np.float64],
) -> NDArray[np.float32]:
    """|gradient . normal| at ``points + offset * normal``: points (..., n, 2), normals
    (..., 2) unit, offsets (k,) px -> (..., n, k)."""
    # x and y apart (numpy is slow over a last axis of two); laid out once for both images.
    x = points[..., :, None, 0] + offsets * normals[..., None, None, 0]
    y = points[..., :, None, 1] + offsets * normals[..., None, None, 1]
    grid = _grid(x, y)
    vx = _sample_grid(_plane(gx, x, y), grid, x.shape)
    vy = _sample_grid(_plane(gy, x, y), grid, x.shape)
    nx = normals[..., None, None, 0].astype(np.float32)
    ny = normals[..., None, None, 1].astype(np.float32)
    return np.asarray(np.abs(vx * nx + vy * ny), np.float32)


def _plane(
    img: GradientImage, x: NDArray[np.float64], y: NDArray[np.float64]
) -> NDArray[np.float32]:
    """The array of a gradient image, a :class:`GradientPlane` worked out round the points
    (``x``, ``y``) first."""
    if isinstance(img, GradientPlane):
        img.owner.around(x, y)
        return img.owner.planes[img.axis]
    return img


def _outward_normals(q: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Unit directions (m, 4, 2) of the sides of (m, 4, 2) quads and their outward normals."""
    nxt = q[:, _NEXT]
    d = nxt - q
    d /= np.maximum(np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1])[..., None], 1e-9)
    nrm = np.stack([-d[..., 1], d[..., 0]], axis=-1)
    mid = (q + nxt) / 2
    flip = ((mid - q.mean(axis=1, keepdims=True)) * nrm).sum(axis=2) < 0
    nrm[flip] *= -1
    return d, nrm


def _intersect(
    p: NDArray[np.float64], d: NDArray[np.float64], fallback: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Corner k = intersection of side k - 1 and side k; sides as point ``p`` and direction
    ``d`` (m, 4, 2); ``fallback`` (m, 4, 2) where they are parallel."""
    p1, d1 = p[:, _PREVIOUS], d[:, _PREVIOUS]
    den = d1[..., 0] * d[..., 1] - d1[..., 1] * d[..., 0]
    w = p - p1
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (w[..., 0] * d[..., 1] - w[..., 1] * d[..., 0]) / den
    out = p1 + s[..., None] * d1
    bad = (np.abs(den) < 1e-6)[..., None] | ~np.isfinite(out)
    return np.where(bad, fallback, out)


def refine_quads(
    gx: GradientImage,
    gy: GradientImage,
    quads: NDArray[np.floating],
    radius: float = 4.0,
    samples: int = 16,
    iterations: int = 2,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Snap each side of (m, 4, 2) quads to the outermost strong edge within ``radius`` px
    (then within 2 px on later iterations); returns (quads (m, 4, 2), support (m, 4)). A quad
    whose corners would move further than ``2 * radius`` (a side tilted onto another edge)
    is left as it was, with its support measured there."""
    start = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    q, support = _refine(gx, gy, start, radius, samples, iterations)
    moved = np.abs(q - start).max(axis=(1, 2)) > 2 * radius
    if moved.any():
        _, kept_support = _refine(gx, gy, start[moved], 0.0, samples, 1, move=False)
        q[moved] = start[moved]
        support[moved] = kept_support
    return q, support


def _refine(
    gx: GradientImage,
    gy: GradientImage,
    quads: NDArray[np.float64],
    radius: float,
    samples: int,
    iterations: int,
    move: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2).copy()
    m = len(q)
    support = np.zeros((m, 4))
    if m == 0:
        return q, support
    t = np.linspace(0.12, 0.88, samples)
    for it in range(iterations):
        r = max(radius if it == 0 else 2.0, 1.5)
        offsets = np.arange(-r, r + 1e-9, 0.5)
        d, nrm = _outward_normals(q)
        length = _side_lengths(q)  # (m, 4)
        along = t[None, None, :] * length[..., None]  # (m, 4, n)
        pts = q[:, :, None, :] + along[..., None] * d[:, :, None, :]
        v = _normal_profiles(gx, gy, pts, nrm, offsets)
        # Each side's edge points (the outermost strong peak of each profile) and the robust
        # line through them: offset = a * along + b, reweighted twice (compiled: numpy's
        # small arrays cost more in calls than in arithmetic).
        a, b, kept, found = kernels.side_lines(
            v.reshape(m * 4, samples, -1), offsets, along.reshape(m * 4, samples), EDGE_MIN
        )
        a, b = a.reshape(m, 4), b.reshape(m, 4)
        kept, found = kept.reshape(m, 4), found.reshape(m, 4)
        enough = kept >= max(4, samples // 4)
        support = np.where(enough, kept / samples, found / samples * 0.5)
        if not move:
            break
        # New side lines (unchanged where too few edge points were found).
        a = np.where(enough, a, 0.0)
        b = np.where(enough, b, 0.0)
        p0 = q + b[..., None] * nrm
        p1 = q[:, _NEXT] + (a * length + b)[..., None] * nrm
        dirs = p1 - p0
        q = _intersect(p0, dirs, q)
    return q, support


def _lines(edges_roi: NDArray[np.uint8], min_votes: int) -> NDArray[np.float64]:
    """Straight lines of an edge image: (n, 2) (rho px, theta rad in [0, pi)), strongest
    first, near-duplicates (within 3 degrees and 3 px) removed."""
    found = cv2.HoughLines(edges_roi, 1, np.pi / 180, max(8, min_votes))
    if found is None:
        return np.zeros((0, 2))
    lines = np.asarray(found, np.float64).reshape(-1, 2)[: 4 * _MAX_LINES]
    rho, theta = lines[:, 0], lines[:, 1]
    dt = np.abs(theta[:, None] - theta[None, :])
    tol = np.radians(3)
    dup = (dt < tol) & (np.abs(rho[:, None] - rho[None, :]) < 3)
    dup |= (np.pi - dt < tol) & (np.abs(rho[:, None] + rho[None, :]) < 3)
    # Greedy, strongest first: each line kept drops the later ones that duplicate it.
    kept: list[int] = []
    alive = np.arange(len(lines))
    while len(alive) and len(kept) < _MAX_LINES:
        kept.append(int(alive[0]))
        alive = alive[1:][~dup[alive[0], alive[1:]]]
    return lines[kept]


def _side_support(
    edge_mask: NDArray[np.uint8], quads: NDArray[np.float64], samples: int = 20
) -> NDArray[np.float64]:
    """(m, 4) share of points along each side of (m, 4, 2) quads that fall on ``edge_mask``
    (a dilated edge map); points outside the image count as not on an edge."""
    t = np.linspace(0.1, 0.9, samples)
    a = quads
    d = quads[:, [1, 2, 3, 0]] - a
    x = a[..., 0, None] + t * d[..., 0, None]  # (m, 4, samples)
    np.rint(x, out=x)
    y = a[..., 1, None] + t * d[..., 1, None]
    np.rint(y, out=y)
    h, w = edge_mask.shape
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    # One gather from the flat mask (index 0 where outside, masked off after).
    y *= w
    y += x
    y[~inside] = 0
    hit = edge_mask.ravel()[y.astype(np.intp)] > 0
    hit &= inside
    return np.asarray(np.count_nonzero(hit, axis=2) / samples, np.float64)


def rectangles_from_lines(
    edges: NDArray[np.uint8],
    box: tuple[int, int, int, int],
    height_px: float | None,
    aspect: float = CARD_ASPECT,
) -> NDArray[np.float64]:
    """Card quads in a region from its straight edges.

    Lines are found by a Hough transform of the region's edges; two near-parallel lines a
    card's width apart are its long sides, a card's height apart its short sides; a pair of
    long sides and a pair of short sides at right angles (within the tolerance perspective
    needs) make a card, and so does one pair with a single line across it (a card whose
    fourth side is hidden), the missing side placed by the card's aspect on either side.
    ``height_px``: the card's long side in px when known (else any size whose sides are in
    the card's aspect). Returns (k, 4, 2) quads, unchecked (see :func:`_side_support`).
    """
    x0, y0, x1, y1 = box
    roi = edges[y0:y1, x0:x1]
    min_votes = int(0.4 * height_px * aspect) if height_px is not None else 20
    lines = _lines(roi, min_votes)
    n = len(lines)
    if n < 2:
        return np.zeros((0, 4, 2))
    normal = np.stack([np.cos(lines[:, 1]), np.sin(lines[:, 1])], axis=1)  # (n, 2)
    rho = np.ascontiguousarray(lines[:, 0])
    lo_h = 10.0 if height_px is None else 0.75 * height_px
    hi_h = np.inf if height_px is None else 1.3 * height_px
    # Parallel pairs (line j's normal turned to agree with line i's), then two pairs at right
    # angles, or a pair and one line across it (compiled: the pairs of pairs are many).
    out = kernels.line_rectangles(
        rho, normal, lo_h, hi_h, aspect, float(np.cos(np.radians(_PARALLEL_DEG))),
        float(np.sin(np.radians(90 - _RIGHT_ANGLE_TOL_DEG))), *_LINES_ASPECT,
    )  # fmt: skip
    if not len(out):
        return np.zeros((0, 4, 2))
    out = out + np.array([x0, y0], np.float64)
    return out[np.isfinite(out).all(axis=(1, 2))]


def corner_support(
    gx: GradientImage,
    gy: GradientImage,
    quads: NDArray[np.floating],
    corner: NDArray[np.intp],
    reach: float = 0.35,
    samples: int = 10,
) -> NDArray[np.float64]:
    """(m,) share of points on the two sides of each (m, 4, 2) quad that meet at corner
    ``corner`` (m,), over the first ``reach`` of their length from it, where an edge runs
    along the side (from half a pixel inside to 1.5 px outside it): how well a card's corner
    is seen."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    m = len(q)
    if m == 0:
        return np.zeros(0)
    idx = np.arange(m)
    c = q[idx, corner]
    nxt = q[idx, (corner + 1) % 4]
    prv = q[idx, (corner - 1) % 4]
    t = np.linspace(0.05, reach, samples)
    offsets = np.arange(-0.5, 1.51, 0.5)
    centre = q.mean(axis=1)
    hits = []
    for other in (nxt, prv):
        d = other - c
        d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
        nrm = np.stack([-d[:, 1], d[:, 0]], axis=1)
        # Outward: away from the quad's centre.
        flip = ((c - centre) * nrm).sum(axis=1) < 0
        nrm[flip] *= -1
        length = np.linalg.norm(other - c, axis=1)
        pts = c[:, None, :] + (t[None, :, None] * length[:, None, None]) * d[:, None, :]
        v = _normal_profiles(gx, gy, pts, nrm, offsets)  # (m, samples, k)
        hits.append(v.max(axis=2) >= EDGE_MIN)
    return np.asarray(np.concatenate(hits, axis=1).mean(axis=1), np.float64)


def _polygon(contour: NDArray[np.int32], factor: float) -> NDArray[np.float64]:
    """The outline polygon of a silhouette contour, in frame pixels."""
    eps = 0.02 * cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, max(eps, 1.0), True).reshape(-1, 2).astype(np.float64)
    # Mask pixel centres -> frame pixels (a mask pixel covers factor x factor frame pixels).
    return (poly + 0.5) * factor - 0.5


def _dedupe(
    quads: NDArray[np.float64], score: NDArray[np.float64], limit: int | None = None
) -> NDArray[np.intp]:
    """Indices of ordered (m, 4, 2) quads kept, best ``score`` first, dropping any whose
    corners (as they are, or turned half round) all lie within 12% of its size of a kept
    one's; at most ``limit`` of them (the first ones kept) when given.

    Greedy as it reads, but each kept quad drops all the later ones it covers at once (one
    vectorised pass per kept quad, not one per candidate): a quad is dropped only by a kept
    one, so the result is the same."""
    order = np.argsort(-score, kind="stable")
    size = np.sqrt(np.abs(_areas(quads[order]))) * 0.12
    q = quads[order].reshape(-1, 8)
    turned = q[:, [4, 5, 6, 7, 0, 1, 2, 3]]
    kept: list[int] = []
    alive = np.arange(len(q))
    while len(alive) and (limit is None or len(kept) < limit):
        i, rest = alive[0], alive[1:]
        kept.append(int(i))
        err = np.minimum(
            np.abs(q[rest] - q[i]).max(axis=1), np.abs(q[rest] - turned[i]).max(axis=1)
        )
        alive = rest[~(err < size[rest])]
    return np.asarray(order[kept], np.intp)


def _coarse_nms(quads: NDArray[np.float64], score: NDArray[np.float64]) -> NDArray[np.intp]:
    """Indices of the best-scoring quad per cell of (centre in 4 px cells, long-axis angle
    in 6 degree bins, size in 8% steps): a cheap first cut before :func:`_dedupe`."""
    if len(quads) == 0:
        return np.zeros(0, np.intp)
    c = quads.mean(axis=1)
    axis = (quads[:, 2] + quads[:, 3] - quads[:, 0] - quads[:, 1]) / 2
    angle = np.degrees(np.arctan2(axis[:, 1], axis[:, 0])) % 180
    size = np.log(np.maximum(np.linalg.norm(axis, axis=1), 1.0)) / np.log(1.08)
    key = np.stack(
        [np.floor(c[:, 0] / 4), np.floor(c[:, 1] / 4), np.floor(angle / 6), np.floor(size)], 1
    ).astype(np.int64)
    order = np.argsort(-score, kind="stable")
    key = key[order]
    # Rows sorted by key, best score first among equal keys (lexsort is stable): the first
    # row of each run of equal keys is its cell's best.
    by_key = np.lexsort(key.T[::-1])
    run = np.ones(len(key), bool)
    run[1:] = (key[by_key[1:]] != key[by_key[:-1]]).any(axis=1)
    return np.asarray(order[np.sort(by_key[run])], np.intp)


def _areas(q: NDArray[np.float64]) -> NDArray[np.float64]:
    """(m,) signed areas of (m, 4, 2) quads (shoelace), px^2."""
    x, y = q[..., 0], q[..., 1]
    return np.asarray(0.5 * (x * y[:, _NEXT] - x[:, _NEXT] * y).sum(axis=1), np.float64)


def find_outlines(
    grey: NDArray[np.uint8],
    *,
    aspect: float = CARD_ASPECT,
    grads: Gradients | tuple[NDArray[np.float32], NDArray[np.float32]] | None = None,
    height_px: float | None = None,
    not_cards: NDArray[np.floating] | None = None,
    heights_at: NDArray[np.floating] | None = None,
    regions: tuple[NDArray[np.uint8], float] | None = None,
) -> list[Outline]:
    """Card outlines in a (H, W) uint8 grey frame (see the module docstring).

    ``aspect``: the cards' width / height. ``grads``: :func:`gradients` of ``grey`` when
    already computed, or its :class:`Gradients` (only the sides refined are sampled).
    ``height_px``: the expected card height (long side) in pixels, when known (from the
    table plane or the codes); otherwise it is taken from the silhouettes that are single
    cards, or tried at a few sizes. ``not_cards``: (k, 4, 2) frame pixels of things known to
    be no card (the table's markers): a silhouette round one of them and not much larger
    (:data:`_NOT_CARD_AREA`) gives no outline. ``heights_at``: (k, 3) the card's height
    (px) known at points of the frame (x, y, height: from the table's markers), used with
    the single cards found to tell the card's size where cards overlap (perspective makes
    far cards smaller). ``regions``: :func:`silhouettes` of ``grey`` when already made.
    Returns outlines, best supported first.
    """
    gx, gy = grads if grads is not None else gradients(grey)
    mask, factor = regions if regions is not None else silhouettes(grey)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    min_area = _MIN_AREA_PX / factor**2
    marks = None  # the not-cards' centres and areas in the mask's pixels
    if not_cards is not None and len(not_cards):
        q_nc = np.asarray(not_cards, np.float64)
        marks = ((q_nc.mean(axis=1) + 0.5) / factor - 0.5, np.abs(_areas(q_nc)) / factor**2)
    direct: list[NDArray[np.float64]] = []
    boxed: list[tuple[NDArray[np.float64], float, tuple[int, int, int, int]]] = []
    pieces: list[NDArray[np.float64]] = []
    h_img, w_img = grey.shape
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        if marks is not None and _round_not_card(contour, area, *marks):
            continue
        poly = _polygon(contour, factor)
        if len(poly) == 4 and cv2.isContourConvex(poly.astype(np.float32).reshape(-1, 1, 2)):
            q = order_quads(poly[None])
            if _QUAD_ASPECT[0] <= quad_aspect(q)[0] <= _QUAD_ASPECT[1]:
                direct.append(q[0])
            continue  # a convex quadrilateral of another shape (a marker) is no card
        # Anything else: one card with a bump (a plank gap, a glare spot), several cards, a
        # card under a hand. Its smallest enclosing rectangle is tried first.
        rect = cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float64)
        rect = (rect + 0.5) * factor - 0.5
        x, y, bw, bh = cv2.boundingRect(contour)
        pad = 6
        box = (
            max(0, int(x * factor) - pad),
            max(0, int(y * factor) - pad),
            min(w_img, int((x + bw) * factor) + pad),
            min(h_img, int((y + bh) * factor) + pad),
        )
        boxed.append((rect, area * factor**2, box))
        pieces.extend(_split(contour, mask.shape, factor))
    # One refinement for whole silhouettes, enclosing rectangles and split pieces (each quad
    # is refined on its own: one call costs less than three).
    starts = [np.asarray(direct, np.float64).reshape(-1, 4, 2)]
    starts += [order_quads(np.stack(group)) for group in ([b[0] for b in boxed], pieces) if group]
    quads, support = refine_quads(gx, gy, np.concatenate(starts))
    sources = ["silhouette"] * (len(direct) + len(boxed)) + ["split"] * len(pieces)
    clusters: list[tuple[tuple[int, int, int, int], float]] = []
    for k, (_, area, box) in enumerate(boxed, start=len(direct)):
        whole = (
            support[k].min() >= 0.7
            and abs(_areas(quads[k : k + 1])[0]) <= 1.15 * area
            and _QUAD_ASPECT[0] <= quad_aspect(quads[k : k + 1])[0] <= _QUAD_ASPECT[1]
        )
        if not whole:
            clusters.append((box, area))  # several cards, or one partly hidden: lines
    # The card size: the single cards found and the heights given, else the hint, else a few
    # sizes are tried.
    ordered = order_quads(quads)
    asp = quad_aspect(ordered)
    good = (support.min(axis=1) >= 0.6) & (asp >= 0.62) & (asp <= 0.8)
    q = ordered[good]
    heights = (
        np.linalg.norm(q[:, 1] - q[:, 2], axis=1) + np.linalg.norm(q[:, 3] - q[:, 0], axis=1)
    ) / 2
    samples = np.concatenate([q.mean(axis=1), heights[:, None]], axis=1)
    if heights_at is not None and len(heights_at):
        samples = np.concatenate([samples, np.asarray(heights_at, np.float64).reshape(-1, 3)])
    if len(samples):
        sizes = [float(np.median(samples[:, 2]))]
    elif height_px is not None:
        sizes = [float(height_px)]
    else:
        sizes = [f * w_img for f in (0.06, 0.08, 0.105)]
    if clusters:
        edges = _full_edges(grey, [c[0] for c in clusters], mask, factor)
        dilated = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        known = len(samples) > 0 or height_px is not None
        kept = []
        kept_sources: list[str] = []
        for box, area in clusters:
            size = sizes[0]
            if len(samples):
                size = height_at(samples, np.array([box[0] + box[2], box[1] + box[3]]) / 2)
            hint = size if known else None
            card_area = size**2 * aspect
            # The whole cluster's lines, then (a long cluster) its tiles' (_TILED_FROM).
            found = [rectangles_from_lines(edges, box, hint, aspect)]
            found += [rectangles_from_lines(edges, t, hint, aspect) for t in _tiles(box, size)]
            cand = np.concatenate([f.reshape(-1, 4, 2) for f in found])
            tiled = np.repeat(np.arange(len(found)) > 0, [len(f) for f in found])
            if not len(cand):
                continue
            cand = order_quads(cand)
            if len(cand) > _SUPPORT_POOL:
                # So many (edges everywhere: a patterned cloth joined to every card): an even
                # spread of them, the whole cluster's and every tile's alike.
                spread = np.linspace(0, len(cand) - 1, _SUPPORT_POOL).astype(np.intp)
                cand, tiled = cand[spread], tiled[spread]
            sup = _side_support(dilated, cand)
            ok = (sup.mean(axis=1) >= 0.55) & ((sup >= 0.4).sum(axis=1) >= 3)
            cand, sup, tiled = cand[ok], sup[ok], tiled[ok]
            first = _coarse_nms(cand, sup.mean(axis=1))
            cand, sup, tiled = cand[first], sup[first], tiled[first]
            # At most so many outlines per card the cluster could hold, the best seen first,
            # from the best supported candidates only (a bounded pool: see _CLUSTER_CARDS_MAX).
            cards = min(area / card_area, _CLUSTER_CARDS_MAX)
            limit = max(4, int(np.ceil(_OUTLINES_PER_CARD * cards)))
            score = sup.mean(axis=1)
            if len(cand) > _DEDUPE_POOL:
                pool = np.argpartition(-score, _DEDUPE_POOL)[:_DEDUPE_POOL]
                cand, sup, tiled, score = cand[pool], sup[pool], tiled[pool], score[pool]
            best = _dedupe(cand, score, limit)
            kept.append(cand[best])
            kept_sources += ["tiles" if t else "lines" for t in tiled[best]]
        grown = np.concatenate(kept) if kept else np.zeros((0, 4, 2))
        grown, grown_support = refine_quads(gx, gy, grown, radius=3.0)
        quads = np.concatenate([quads, grown])
        support = np.concatenate([support, grown_support])
        sources += kept_sources
    if len(quads) == 0:
        return []
    quads = order_quads(quads)
    asp = quad_aspect(quads)
    plausible = (asp >= _QUAD_ASPECT[0]) & (asp <= _QUAD_ASPECT[1])
    plausible &= np.isfinite(quads).all(axis=(1, 2))
    plausible &= np.abs(_areas(quads)) >= _MIN_AREA_PX
    plausible &= _side_lengths(quads).min(axis=1) >= 0.4 * np.sqrt(_MIN_AREA_PX)
    idx = np.flatnonzero(plausible)
    keep = idx[_dedupe(quads[idx], support[idx].mean(axis=1))]
    out = [
        Outline(quads[i].astype(np.float32), support[i].astype(np.float32), sources[i])
        for i in keep
    ]
    # Nearly square: also with the other pair of sides first (each side's support with it).
    out += [
        Outline(
            np.roll(quads[i], -1, axis=0).astype(np.float32),
            np.roll(support[i], -1).astype(np.float32),
            sources[i],
        )
        for i in keep
        if asp[i] >= _EITHER_WAY
    ]
    return out


#: A cluster this many card heights long or more (an arm or a hand merged with the cards it
#: touches) is also searched for lines in tiles of :data:`_TILE` card heights, half a tile
#: apart: the long straight edges of an arm took every line of the whole cluster
#: (:data:`_MAX_LINES`), the sides of a card it touches none. Seeds 0, 1 and 2 (300 tables
#: each) +3, +2, +2 cards, hard tier +4, 0 wrong; 1.02 x the time. Its outlines' source is
#: ``"tiles"``: verification names no card on them by a weak fit (a sleeve's weave gave a
#: 10-inlier fit, seed 1 scene 192).
_TILED_FROM = 3.0
_TILE = 2.0


def _tiles(box: tuple[int, int, int, int], size: float) -> list[tuple[int, int, int, int]]:
    """Tiles (x0, y0, x1, y1) of a cluster's ``box`` for its lines search, for cards ``size``
    px high: none when the box is less than :data:`_TILED_FROM` card heights long (or the
    size is a speck's, under 10 px: no card's)."""
    x0, y0, x1, y1 = box
    if size < 10 or max(x1 - x0, y1 - y0) < _TILED_FROM * size:
        return []
    side = round(_TILE * size)
    step = max(1, side // 2)
    xs = list(range(x0, max(x0, x1 - side) + 1, step))
    ys = list(range(y0, max(y0, y1 - side) + 1, step))
    if xs[-1] + side < x1:
        xs.append(max(x0, x1 - side))
    if ys[-1] + side < y1:
        ys.append(max(y0, y1 - side))
    return [(x, y, min(x1, x + side), min(y1, y + side)) for y in ys for x in xs]


# Outlines kept from a cluster's lines per card it could hold (by its area), best supported
# first: a card lying on another gives many well-supported rectangles, and with 3 a frame the
# card partly under it could lose them all (seed 1, 300 tables: 4 cards more with 4, 3 with
# 5; hard tier 3 more; about 2% more time).
_OUTLINES_PER_CARD = 4
# A cluster counts as at most this many cards, and at most the _DEDUPE_POOL candidates its
# lines give that its edges support best are deduplicated: a table whose whole top is one
# silhouette (a pale or patterned cloth joined to every card) gave 183,000 rectangles from the
# lines of its tiles, 57,000 after the first cut, and kept 586 outlines, one at a time: 4.4 s
# of a frame's 6 s (43 s on another), where a frame of cards takes tens of milliseconds. A
# cluster of the identify report's second-drawer hard scenes counted as 61 cards and gave
# 12,078 candidates: read as before (24 cards and 4,096 lost one card not in the deck listed
# unknown).
_CLUSTER_CARDS_MAX = 64
_DEDUPE_POOL = 16_384
# A cluster whose lines give more rectangles than this has only an even spread of this many
# looked at: on a patterned cloth joined to every card, the tiles' lines gave 640,000, nearly
# all on edges (the cloth's), and their support took 2.4 s (with the bounds, such a frame
# takes 1.4-1.9 s in the card reader).
_SUPPORT_POOL = 100_000
# Heights of the card at this many points of the frame (or more) are fitted by a plane (the
# height's slope under perspective) to tell a cluster's card size; with fewer, their median.
PLANE_SAMPLES = 3


def height_at(samples: NDArray[np.float64], at: NDArray[np.float64]) -> float:
    """The card's height (px) at point ``at`` (2,) of the frame from (k, 3) samples (x, y,
    height), k >= 1: the least-squares plane through them (a card's size in the image falls
    off about linearly across a tilted table), kept within the samples' range (no
    extrapolation beyond the sizes seen); their median when they tell no plane (fewer than
    :data:`PLANE_SAMPLES`, or on one line)."""
    return float(heights_at(samples, np.asarray(at, np.float64).reshape(1, 2))[0])


def heights_at(samples: NDArray[np.float64], points: NDArray[np.float64]) -> NDArray[np.float64]:
    """:func:`height_at` at each of (n, 2) ``points``, the plane fitted once."""
    a = np.concatenate([samples[:, :2], np.ones((len(samples), 1))], axis=1)
    coef, _, rank, _ = np.linalg.lstsq(a, samples[:, 2], rcond=None)
    if rank < 3:
        return np.full(len(points), float(np.median(samples[:, 2])))
    h = points[:, 0] * coef[0] + points[:, 1] * coef[1] + coef[2]
    return np.asarray(np.clip(h, samples[:, 2].min(), samples[:, 2].max()), np.float64)


def _round_not_card(
    contour: Any, area: float, centres: NDArray[np.float64], areas: NDArray[np.float64]
) -> bool:
    """Whether a silhouette's ``contour`` (its ``area``) lies round one of the things known to
    be no card (their (k, 2) ``centres`` and (k,) ``areas``, in the contour's pixels) with at
    most :data:`_NOT_CARD_AREA` times its area."""
    x, y, bw, bh = cv2.boundingRect(contour)
    inside = (
        (centres[:, 0] >= x) & (centres[:, 0] < x + bw)
        & (centres[:, 1] >= y) & (centres[:, 1] < y + bh)
    )  # fmt: skip
    return any(
        area <= _NOT_CARD_AREA * areas[k]
        and cv2.pointPolygonTest(contour, (float(centres[k, 0]), float(centres[k, 1])), False) >= 0
        for k in np.flatnonzero(inside)
    )


def _full_edges(
    grey: NDArray[np.uint8],
    boxes: list[tuple[int, int, int, int]],
    mask: NDArray[np.uint8],
    factor: float,
) -> NDArray[np.uint8]:
    """Canny edges (full size) inside ``boxes`` and on the silhouettes (``mask`` at 1 /
    ``factor`` size, grown by 2 of its pixels: the cards' outlines lie on its border), zero
    elsewhere: a table's plank gaps and grain beside the cards cast no lines."""
    out = np.zeros_like(grey)
    grown = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    for x0, y0, x1, y1 in boxes:
        roi = cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), 1.0)
        edges = cv2.Canny(roi, 30, 70, L2gradient=True)
        ys = np.minimum(((np.arange(y0, y1) + 0.5) / factor).astype(np.intp), grown.shape[0] - 1)
        xs = np.minimum(((np.arange(x0, x1) + 0.5) / factor).astype(np.intp), grown.shape[1] - 1)
        # Both are 0 or 255: the edges on the grown silhouettes.
        out[y0:y1, x0:x1] |= np.asarray(cv2.bitwise_and(edges, grown[ys][:, xs]), np.uint8)
    return out


def _split(
    contour: NDArray[np.int32], shape: tuple[int, ...], factor: float
) -> list[NDArray[np.float64]]:
    """Rectangles of the pieces a silhouette falls into when eroded (cards that only touch,
    a card and the thin plank gap it lies on), grown back: (4, 2) frame pixels each."""
    x, y, w, h = cv2.boundingRect(contour)
    pad = 4
    local = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    cv2.drawContours(local, [contour - np.array([x - pad, y - pad])], -1, 255, -1)
    out = []
    for k in (5, 9, 13, 17):
        eroded = cv2.erode(local, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        n, labels = cv2.connectedComponents(eroded)
        if n <= 2:
            continue  # still one piece
        for i in range(1, n):
            pts = np.argwhere(labels == i)[:, ::-1].astype(np.float32)
            if len(pts) < 0.1 * cv2.contourArea(contour):
                continue
            (cx, cy), (rw, rh), angle = cv2.minAreaRect(pts)
            rect = cv2.boxPoints(((cx, cy), (rw + k, rh + k), angle)).astype(np.float64)
            rect += np.array([x - pad, y - pad])
            out.append((rect + 0.5) * factor - 0.5)
    return out
