"""Dark square candidates of a frame: where the card markers may be (the codes' reader,
:mod:`vision.identify.codes`, reads them).

One adaptive threshold (:data:`_THRESH_WINDOW`, :data:`_THRESH_C`) and its connected
components of a marker's size, each traced in its own small window (:func:`marker_quads`);
markers whose cells are wider than the threshold's window in copies of the frame shrunk 4
times and more (:func:`large_marker_quads`); a blob traced to no quadrilateral that is a
square all the same, a small marker blurred to rounded corners (:func:`_rounded_square`),
given apart as less sure; and the corners moved onto the square's edge
(:func:`refine_marker_corners`)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify.quads import _intersect, _outward_normals
from vision.identify.threshold import dark_against_mean

#: Adaptive threshold window (px, odd) and offset of the fast marker search (10 rather than
#: 7: on rendered tables as many cards named, with a third fewer specks of table texture to
#: label; at 13 dim markers of the hard tier were lost, and with them a card's second
#: marker: its lone one was once put where no card is).
_THRESH_WINDOW = 15
_THRESH_C = 10
#: Smallest marker side searched, px (4x4 markers: 6 cells with the border, 1.7 px a cell:
#: read bit for bit only when sharp; blurred, by correlation, :mod:`vision.identify.blur_read`.
#: On the hard codes scenes of seeds 0 and 3, 12 px -> 10 px named 498 -> 507 and 422 -> 435
#: cards, none wrong; 9 px one more).
MIN_MARKER_PX = 10
#: Cells of a card marker, border included.
_CELLS = 6

#: Coarser levels of the marker search: ``grey`` shrunk :data:`_COARSE_FIRST` times, then
#: halved again (:func:`large_marker_quads`; one level for a 1280 x 720 frame). The adaptive
#: threshold marks a pixel dark against the mean of a :data:`_THRESH_WINDOW` window, so a
#: dark area wider than that window is marked only along its edges: a marker whose cells are
#: wider (markers of about 90 px and more: a card close to the camera, a printed page read at
#: 150 dpi) left only a hollow outline, never taken for a square. At a coarser level only
#: dark squares at least :data:`_COARSE_MIN_PX` wide there are kept (64 px and more at the
#: first: the smaller ones are found in ``grey``). Shrunk 4 times rather than 2: the markers
#: the halved frame would add (cells of 15-30 px) are found at a quarter too, for half the
#: time (a 1280 x 720 frame: about 0.9 ms; the halved frame, then the quarter: 1.8 ms).
_COARSE_FIRST = 4
_COARSE_MIN_PX = 16
_COARSE_MIN_SIDE = 2 * _COARSE_MIN_PX


def marker_quads(
    grey: NDArray[np.uint8],
    min_px: int = MIN_MARKER_PX,
    refine: bool = True,
    rough: list[NDArray[np.float32]] | None = None,
) -> NDArray[np.float32]:
    """Dark square candidates: (n, 4, 2) float32 corners, clockwise on screen, sub-pixel:
    the dark blobs of one adaptive threshold (:data:`_THRESH_WINDOW`) of a marker's size (at
    least ``min_px`` wide and high), traced in their own small windows; ``refine``: corners
    moved onto the square's edge (:func:`refine_marker_corners`), else half a pixel out
    from the contour's. Squares whose cells are wider than the threshold's window are left
    hollow: :func:`large_marker_quads` finds those. ``rough``: when a list, the blobs traced
    to no quadrilateral that are squares all the same (:func:`_rounded_square`) are put in
    it, (k, 4, 2) the same way, their corners unrefined."""
    h, w = grey.shape
    fitted: list[NDArray[np.float32]] = []
    out = _dark_squares(grey, min_px, fitted if rough is not None else None)
    if rough is not None:
        rough.append(_clipped(fitted[0], w, h))
    if not len(out):
        return out
    out = _clipped(out, w, h)
    return refine_marker_corners(grey, out) if refine else out


def _clipped(quads: NDArray[np.float32], w: int, h: int) -> NDArray[np.float32]:
    """``quads`` (n, 4, 2) with their corners clipped to a (``h``, ``w``) image."""
    quads[..., 0] = np.clip(quads[..., 0], 0, w - 1)
    quads[..., 1] = np.clip(quads[..., 1], 0, h - 1)
    return quads


def large_marker_quads(grey: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The dark square candidates :func:`marker_quads` leaves hollow (cells wider than the
    threshold's window), as it gives them ((n, 4, 2) float32, ``grey``'s pixels, corners
    refined on ``grey``): at least :data:`_COARSE_MIN_PX` wide in a copy of ``grey`` shrunk
    :data:`_COARSE_FIRST` times, then in copies halved again while their short side is at
    least :data:`_COARSE_MIN_SIDE` px and the last could not find markers of half
    ``grey``'s short side (cells up to the threshold's window there). Some are also found by
    :func:`marker_quads` (the same marker read twice is one: :func:`_read_quads`)."""
    h, w = grey.shape
    found: list[NDArray[np.float32]] = []
    level, factor = grey, _COARSE_FIRST
    while min(h, w) // factor >= _COARSE_MIN_SIDE:
        while level.shape[0] > h // factor:
            # Halved at a time: OpenCV's area resampling by 2 is several times faster than
            # by 4 in one step.
            size = (level.shape[1] // 2, level.shape[0] // 2)
            level = np.asarray(cv2.resize(level, size, interpolation=cv2.INTER_AREA), np.uint8)
        scale = np.array([w / level.shape[1], h / level.shape[0]], np.float32)
        squares = _dark_squares(level, _COARSE_MIN_PX)
        found.append((squares + 0.5) * scale - 0.5)  # pixel centres: level -> grey
        if _CELLS * _THRESH_WINDOW * factor >= min(h, w) / 2:
            break  # this level finds markers up to half the frame: a card's are smaller
        factor *= 2
    out = np.concatenate(found) if found else np.zeros((0, 4, 2), np.float32)
    if not len(out):
        return out
    return refine_marker_corners(grey, _clipped(out, w, h))


def _dark_squares(
    grey: NDArray[np.uint8], min_px: int, rough: list[NDArray[np.float32]] | None = None
) -> NDArray[np.float32]:
    """:func:`marker_quads` at one level: (n, 4, 2) float32 corners, clockwise on screen,
    half a pixel out from the contour's, not clipped to the image. ``rough``: when a list,
    the blobs traced to no quadrilateral that are squares all the same
    (:func:`_rounded_square`) are put in it, as the same kind of array."""
    binary = dark_against_mean(grey, _THRESH_WINDOW, _THRESH_C)
    # BBDT: on these thresholded frames (thousands of specks of texture) a third faster than
    # the default (Spaghetti) on one thread.
    _, found_labels, found_stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        binary, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    labels, stats = np.asarray(found_labels, np.int32), np.asarray(found_stats, np.int32)
    bw, bh, area = stats[:, 2], stats[:, 3], stats[:, 4]
    max_side = max(grey.shape) // 2
    ok = (bw >= min_px) & (bh >= min_px) & (bw <= max_side) & (bh <= max_side)
    # A marker's dark cells (its border ring and about half its inner cells) cover most of
    # it, and a square turned any way fills at least half its bounding box.
    ok &= (area >= 0.25 * bw * bh) & (np.maximum(bw, bh) <= 2 * np.minimum(bw, bh))
    ok[0] = False
    found = [_component_polygon(labels, i, box, rough is not None) for i, box in _boxes(stats, ok)]
    if rough is not None:
        rough.append(_squares([q for q, fitted in found if q is not None and fitted], min_px))
    return _squares([q for q, fitted in found if q is not None and not fitted], min_px)


def _squares(found: list[NDArray[np.float32]], min_px: int) -> NDArray[np.float32]:
    """The traced quadrilaterals ``found`` ((4, 2) each) that may be markers, as (n, 4, 2)
    float32 corners clockwise on screen, half a pixel out from the contour's."""
    out = np.array(found, np.float32).reshape(-1, 4, 2)
    # Sides of a marker's size and not too unequal; turned clockwise on screen.
    sides = np.linalg.norm(out - np.roll(out, -1, axis=1), axis=2)
    shortest = sides.min(axis=1, initial=np.inf)
    out = out[(shortest >= 0.5 * min_px) & (sides.max(axis=1, initial=0) <= 2.5 * shortest)]
    if not len(out):
        return np.zeros((0, 4, 2), np.float32)
    v1, v2 = out[:, 1] - out[:, 0], out[:, 2] - out[:, 0]
    turned = v1[:, 0] * v2[:, 1] - v1[:, 1] * v2[:, 0] < 0
    out[turned] = out[turned][:, [0, 3, 2, 1]]
    # The contour runs through the centres of the outermost dark pixels: the marker's edge
    # lies half a pixel further out. Sub-pixel corners from the grey image.
    centre = out.mean(axis=1, keepdims=True)
    return np.asarray(
        centre
        + (out - centre)
        * (1 + 0.5 / np.maximum(np.linalg.norm(out - centre, axis=2, keepdims=True), 1)),
        np.float32,
    )


def _boxes(
    stats: NDArray[np.int32], ok: NDArray[np.bool_]
) -> list[tuple[int, tuple[int, int, int, int]]]:
    """(label, (x, y, w, h)) of the components marked ``ok`` in a
    ``connectedComponentsWithStats`` table (as Python ints: one conversion, not four per
    component)."""
    index = np.flatnonzero(ok)
    return list(zip(index.tolist(), map(tuple, stats[index, :4].tolist()), strict=True))


def _component_polygon(
    labels: NDArray[np.int32], label: int, box: tuple[int, int, int, int], fit: bool = False
) -> tuple[NDArray[np.float32] | None, bool]:
    """(4, 2) float32 frame corners of component ``label`` of ``labels`` (its bounding box
    ``box`` (x, y, w, h)): its outer contour, traced in its own window, simplified to a
    polygon; None unless that is a convex quadrilateral. ``fit``: else its least rectangle,
    where that fits it (:func:`_rounded_square`). With whether the corners are that
    rectangle's."""
    x, y, cw, ch = box
    x0, y0 = max(0, x - 1), max(0, y - 1)
    roi = (labels[y0 : y + ch + 1, x0 : x + cw + 1] == label).view(np.uint8)
    contours, _ = cv2.findContours(roi, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c = max(contours, key=len)
    approx = cv2.approxPolyDP(c, 0.04 * len(c), True)
    if len(approx) == 4 and cv2.isContourConvex(approx):
        return np.asarray(approx.reshape(4, 2) + np.array([x0, y0]), np.float32), False
    rect = (
        _rounded_square(c)
        if fit and _ROUNDED_PX[0] <= min(cw, ch) <= max(cw, ch) <= _ROUNDED_PX[1]
        else None
    )
    return (None if rect is None else rect + np.array([x0, y0], np.float32)), True


#: :func:`_rounded_square`: the least and most width and height (px) of a blob it is tried
#: on (a marker of 10 to about 25 px: larger ones are traced as they are), and the least
#: share of the rectangle fitted that the blob's convex hull must cover.
_ROUNDED_PX = (10, 32)
_ROUNDED_FILL = 0.8


def _rounded_square(contour: NDArray[np.int32]) -> NDArray[np.float32] | None:
    """The corners (4, 2) of a blob whose traced polygon is no quadrilateral but which is a
    square all the same: a small marker blurred to rounded corners, or a corner joined to a
    speck (on the wide looks' hard development set, 34 of the 64 markers of the cards
    35-55 px wide it missed were traced to 5-10 corners). The least rectangle round its
    ``contour``, when the contour's
    convex hull covers at least :data:`_ROUNDED_FILL` of it; else None."""
    hull = cv2.convexHull(contour)
    rect = cv2.minAreaRect(hull)  # the contour's own (it is its hull's), on fewer points
    area = rect[1][0] * rect[1][1]
    if area <= 0 or cv2.contourArea(hull) < _ROUNDED_FILL * area:
        return None
    return np.asarray(cv2.boxPoints(rect), np.float32)


#: Edge refinement of a candidate's corners: points along each side (share of the side, away
#: from the corners), the search across the side (px, a share of the side within bounds), and
#: the residual (px) beyond which an edge point is dropped from the line fit.
_EDGE_ALONG = np.linspace(0.12, 0.88, 9)
_EDGE_REACH = (1.5, 4.0, 0.15)
_EDGE_STEP = 0.25
_EDGE_RESIDUAL = 0.5
_EDGE_MIN_RISE = 8.0


def refine_marker_corners(
    grey: NDArray[np.uint8], quads: NDArray[np.float32]
) -> NDArray[np.float32]:
    """(n, 4, 2) float32 corners of dark square candidates ``quads`` (n, 4, 2), clockwise on
    screen, moved onto the square's outer edge: each side is sampled across at points along
    it, the dark-to-light step found to a fraction of a pixel (the strongest rise of the grey
    level going outwards; the inner edge of the border ring falls the other way), a line
    fitted through those points (twice: points off the first line by more than
    :data:`_EDGE_RESIDUAL` dropped), and the corners are the lines' intersections.

    Why: a marker of 15 px has cells of 2.5 px, and the contour of a thresholded blob puts
    its corners a pixel or two off (blur, the threshold's bias, a rounded corner), enough to
    read a row of cells from its neighbour. A corner that would move further than the search
    reach (a side not found) keeps its first place."""
    if len(quads) == 0:
        return quads
    q = quads.astype(np.float64)
    d, nrm = _outward_normals(q)
    length = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)  # (n, 4)
    lo, hi, share = _EDGE_REACH
    reach = np.clip(share * length.mean(axis=1), lo, hi)  # (n,)
    offsets = np.arange(-hi - 0.5, hi + 0.5 + 1e-9, _EDGE_STEP)  # (k,)
    along = (np.roll(q, -1, axis=1) - q)[:, :, None, :] * _EDGE_ALONG[:, None]
    base = q[:, :, None, :] + along  # (n, 4, m, 2)
    # x and y apart: numpy is slow over a last axis of two.
    profile = _sample_xy(  # (n, 4, m, k)
        grey,
        base[..., 0, None] + offsets * nrm[:, :, None, None, 0],
        base[..., 1, None] + offsets * nrm[:, :, None, None, 1],
    )
    # Rise over one pixel, centred between samples two steps apart on each side.
    half = round(0.5 / _EDGE_STEP)
    rise = profile[..., 2 * half :] - profile[..., : -2 * half]
    centre = offsets[half:-half]
    inside = np.abs(centre) <= reach[:, None, None, None]
    rise = np.where(inside, rise, -np.inf)
    j = np.clip(rise.argmax(axis=-1), 1, rise.shape[-1] - 2)
    y0 = np.take_along_axis(rise, (j - 1)[..., None], -1)[..., 0]
    y1 = np.take_along_axis(rise, j[..., None], -1)[..., 0]
    y2 = np.take_along_axis(rise, (j + 1)[..., None], -1)[..., 0]
    den = y0 - 2 * y1 + y2
    ok = np.isfinite(den) & (den < -1e-6)
    with np.errstate(divide="ignore", invalid="ignore"):
        sub = np.where(ok, 0.5 * (y0 - y2) / den, 0.0)
    s = centre[j] + np.clip(sub, -0.5, 0.5) * _EDGE_STEP  # (n, 4, m) offset of the edge
    # A real step: at least a quarter of the strongest step along this side.
    strong = np.isfinite(y1) & (
        y1 >= np.maximum(_EDGE_MIN_RISE, 0.25 * y1.max(axis=-1, keepdims=True))
    )
    t = _EDGE_ALONG * length[..., None]  # (n, 4, m) position along the side, px
    w = strong.astype(np.float64)
    for _ in range(2):
        a, b = _line_fit(t, s, w)
        resid = np.abs(s - (a[..., None] + b[..., None] * t))
        w = (strong & (resid <= _EDGE_RESIDUAL)).astype(np.float64)
    good = w.sum(axis=-1) >= 3  # (n, 4)
    a, b = _line_fit(t, s, w)
    # The side's line: through q_k + a * n, direction d + b * n (slope in px per px).
    p = q + a[..., None] * nrm
    direction = d + b[..., None] * nrm
    direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
    out = _intersect(p, direction, q)
    moved = np.linalg.norm(out - q, axis=2) <= reach[:, None] + 0.5
    keep = good.all(axis=1) & moved.all(axis=1)
    return np.asarray(np.where(keep[:, None, None], out, q), np.float32)


def _sample_xy(
    img: NDArray[np.uint8], x: NDArray[np.float64], y: NDArray[np.float64], chunk: int = 1 << 24
) -> NDArray[np.float32]:
    """Bilinear samples of ``img`` at points given by their ``x`` and ``y`` (pixels, arrays
    of one shape); 0 outside. As :func:`vision.identify.quads._sample`, which takes (..., 2)
    points: laid out the same way for ``cv2.remap`` (rows of 1,024 points), so the same
    samples."""
    shape = x.shape
    n = x.size
    if n == 0:
        return np.zeros(shape, np.float32)
    if n > chunk:  # in pieces: cv2.remap takes maps of fewer than 32,767 rows
        x, y = x.reshape(-1), y.reshape(-1)
        parts = [_sample_xy(img, x[k : k + chunk], y[k : k + chunk]) for k in range(0, n, chunk)]
        return np.concatenate(parts).reshape(shape)
    cols = min(n, 1024)
    rows = -(-n // cols)
    flat = np.full((2, rows * cols), -10.0, np.float32)
    flat[0, :n] = x.reshape(-1)
    flat[1, :n] = y.reshape(-1)
    maps = flat.reshape(2, rows, cols)
    out = cv2.remap(
        img, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    return np.asarray(out, np.float32).reshape(-1)[:n].reshape(shape)


def _line_fit(
    t: NDArray[np.float64], s: NDArray[np.float64], w: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Weighted least squares ``s = a + b t`` along the last axis; (a, b) of the other axes
    (a = mean of s, b = 0 where fewer than two points weigh)."""
    sw = np.maximum(w.sum(axis=-1), 1e-9)
    tm = (w * t).sum(axis=-1) / sw
    sm = (w * s).sum(axis=-1) / sw
    var = (w * (t - tm[..., None]) ** 2).sum(axis=-1)
    cov = (w * (t - tm[..., None]) * (s - sm[..., None])).sum(axis=-1)
    b = np.where(var > 1e-9, cov / np.maximum(var, 1e-9), 0.0)
    return sm - b * tm, b
