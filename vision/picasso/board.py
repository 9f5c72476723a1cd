"""Finding the Picasso board in a frame and looking at its canvas from straight above.

The board is found by its fiducials, markers 4-7 of ``DICT_4X4_50`` (KIT.md), and fitted by
``calibration.planes.fit_board`` (a plain homography with its warning, or the exact plane
through the lens model when intrinsics are given).

Marker detection here is a faster variant of ``calibration.markers.detect_fiducials`` made
for the per-frame budget (30 ms per 1280x720 frame in all): OpenCV's detector runs on the
frame shrunk to about 720 px on its long side (the board's 30 mm markers stay 18 px or more
at table distance), the corners are refined with
``cornerSubPix`` on the full frame, and the full frame is searched only when fewer than
three board markers were found. Measured on rendered normal-tier boards: about 6 ms instead
of 17-30 ms, canvas corners within 0.9 mm (0.5 mm p95). The shrunk frame is first looked
at only in the box of its strong contrasts (``_first_look_in_box``: half the pixels on
average, the same markers when all four are there), and the canvas is warped in four
channels (``warp_bgr``: OpenCV's three-channel bilinear warp has no vector path).

Where fewer than four markers are found (a hand over one; on a steeply tilted, blurred
board the far markers are 12-20 px and OpenCV reads them no more; a marker touching the
frame's edge is never reported), the others are looked for where the markers found place
them (``_look_closer``): the board plane round each predicted place rectified, its outlines
read cell by cell against the expected id, a marker kept only where it fits the others'
plane. On the hard tier of the project's renderer (run seeds 0 and 1) this took the boards
not found from 23 of 115 without a hand to none, with no canvas corner further off than
before.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import cv2
import numpy as np
from cv2.typing import MatLike
from numpy.typing import NDArray

from calibration import layout
from calibration.intrinsics import Intrinsics
from calibration.markers import Markers
from calibration.planes import PlaneFit, fit_board
from calibration.result import Failure

#: Scale of the rectified canvas the reader works on, pixels per millimetre. The 1280x720
#: webcam sees the board at about 1.3 px/mm (KIT.md), so more is interpolation. Measured on
#: the 302 hand-free boards of 400 rendered normal-tier ones (run seeds 0 and 1): 291 exact at
#: 1.5 px/mm against 292 at 2 px/mm, for a fifth to a third less CPU time; 1 px/mm lost more
#: boards (and was no faster: the stick search works harder on coarse wood).
PX_PER_MM = 1.5
#: The long side of the image the marker detector first looks at, pixels.
DETECT_LONG_SIDE_PX = 720
#: Marker outlines the first look (on the shrunk frame) considers: perimeters between these
#: shares of the image's long side (OpenCV's defaults: 0.03 and 4). A board marker there is
#: 10-25 px a side on the normal tier (perimeter 0.06-0.14); a whole board's marker cannot
#: be an eighth of the frame wide. Fewer candidate outlines to decode: the detector 0.88 of
#: its time, and the same markers and corners on the 620 normal (run seeds 0-2), 100 hard
#: and 50 easy rendered boards measured. The full-frame retry (small markers) keeps
#: OpenCV's defaults.
FIRST_PERIMETER_RATES = (0.04, 0.5)
#: A board marker's cell (6 x 6 cells with its black border), mm.
BOARD_CELL_MM = layout.BOARD_MARKER_MM / 6


@lru_cache(maxsize=2)
def _detector(first_look: bool = False) -> cv2.aruco.ArucoDetector:
    """OpenCV's marker detector for ``DICT_4X4_50``; ``first_look``: the one for the shrunk
    frame (``FIRST_PERIMETER_RATES``)."""
    # OpenCV's defaults (three adaptive-threshold windows): one window is twice as fast but
    # its corners, measured, cost 1.5 points of exact counts on rendered normal boards.
    params = cv2.aruco.DetectorParameters()
    if first_look:
        params.minMarkerPerimeterRate, params.maxMarkerPerimeterRate = FIRST_PERIMETER_RATES
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    return cv2.aruco.ArucoDetector(d, params)


def _detect(gray: NDArray[np.uint8], scale: float, first_look: bool = False) -> Markers:
    """Board markers found in ``gray`` shrunk by ``scale`` (>= 1), corners in full pixels;
    ``first_look``: with the first look's detector (``FIRST_PERIMETER_RATES``)."""
    if scale > 1.0:
        h, w = gray.shape
        small = shrink_area(gray, (round(w / scale), round(h / scale)))
        sx, sy = w / small.shape[1], h / small.shape[0]
    else:
        small, sx, sy = gray, 1.0, 1.0
    corners, ids, _ = _detector(first_look).detectMarkers(small)
    return _board_markers(corners, ids, (sx, sy))


def _board_markers(
    corners: Sequence[MatLike],
    ids: MatLike | None,
    scale_xy: tuple[float, float],
    offset: tuple[int, int] = (0, 0),
) -> Markers:
    """OpenCV's detections (``corners``, ``ids``) on an image shrunk by ``scale_xy`` (whose
    pixel ``offset`` is the shrunk frame's pixel (0, 0)) as board markers: id -> (4, 2)
    float32 corners in full pixels, the larger where an id is seen twice."""
    found: Markers = {}
    if ids is None:
        return found
    for c, i in zip(corners, np.asarray(ids).reshape(-1), strict=True):
        mid = int(i)
        if mid not in layout.BOARD_MARKERS:
            continue
        # whole pixels of the box's corner: adding them moves no fraction
        pts = np.asarray(c, np.float32).reshape(4, 2) + np.array(offset, np.float32)
        # OpenCV pixel centres sit at integers: scale about the pixel edges.
        pts = (pts + 0.5) * np.array(scale_xy, np.float32) - 0.5
        if mid in found and _area(found[mid]) >= _area(pts):
            continue
        found[mid] = pts
    return found


#: The first look tries the box of the frame's strongest contrasts first (``_contrast_box``:
#: the markers' black and white are among them; a plain table is not), this many frame
#: pixels round them: more than half the largest threshold window (23 px on the shrunk
#: frame) beyond a marker's edge, so that the detector sees the same pixels round each marker.
BOX_PAD_PX = 48


def _contrast_box(gray: NDArray[np.uint8], block: int) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1): the box of the strong contrasts of a (H, W) grey frame (on a copy
    keeping every 8th pixel, those whose 3 x 3 range of grey is at least half the largest),
    ``BOX_PAD_PX`` wider each way, out to whole ``block`` pixels and clipped to the frame;
    None when that is the whole frame (or it has no contrast)."""
    tiny = np.ascontiguousarray(gray[::8, ::8])
    spread = cv2.morphologyEx(tiny, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8))
    top = int(spread.max())
    if top == 0:
        return None
    x, y, bw, bh = cv2.boundingRect((spread >= (top + 1) // 2).astype(np.uint8))
    h, w = gray.shape
    x0 = max(0, (8 * x - BOX_PAD_PX) // block * block)
    y0 = max(0, (8 * y - BOX_PAD_PX) // block * block)
    x1 = min(w, -(-(8 * (x + bw) + BOX_PAD_PX) // block) * block)
    y1 = min(h, -(-(8 * (y + bh) + BOX_PAD_PX) // block) * block)
    if (x0, y0, x1, y1) == (0, 0, w, h):
        return None
    return x0, y0, x1, y1


@lru_cache(maxsize=64)
def _box_detector(long_side: int, frame_long_side: int) -> cv2.aruco.ArucoDetector:
    """The first look's detector for a box of the shrunk frame whose long side is
    ``long_side`` pixels: OpenCV takes the perimeter limits as shares of the image's long
    side, truncated to whole pixels; these are the whole shrunk frame's
    (``frame_long_side``) pixels."""
    lo, hi = (int(rate * frame_long_side) for rate in FIRST_PERIMETER_RATES)
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = (lo + 0.5) / long_side
    params.maxMarkerPerimeterRate = (hi + 0.5) / long_side
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    return cv2.aruco.ArucoDetector(d, params)


def _first_look_in_box(gray: NDArray[np.uint8], scale: float) -> Markers | None:
    """The first look (``_detect(gray, scale, first_look=True)``) on the box of the frame's
    strong contrasts only: the four board markers when it finds them all there, else None
    (the whole frame is looked at then). The box holds whole blocks of the shrink's pattern
    (16 frame pixels to 9 for 1280 x 720), so its shrunk picture is the shrunk frame's
    pixel for pixel; the detector's thresholds are local (windows of at most 23 pixels,
    inside the margin), so it finds the same markers with the same corners there as on the
    whole frame: measured, on the 620 normal (run seeds 0-2) and 100 hard rendered boards
    (half the frame's pixels on average, 0.6 of the time)."""
    h, w = gray.shape
    size = (round(w / scale), round(h / scale))
    ratio = Fraction(w, size[0])
    p, q = ratio.numerator, ratio.denominator
    if Fraction(h, size[1]) != ratio or w % p or h % p:
        return None
    box = _contrast_box(gray, p)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    sub = shrink_area(gray[y0:y1, x0:x1], ((x1 - x0) * q // p, (y1 - y0) * q // p))
    detector = _box_detector(max(sub.shape), max(size))
    corners, ids, _ = detector.detectMarkers(sub)
    found = _board_markers(corners, ids, (w / size[0], h / size[1]), (x0 * q // p, y0 * q // p))
    return found if len(found) == len(layout.BOARD_MARKERS) else None


def shrink_area(gray: NDArray[np.uint8], size_wh: tuple[int, int]) -> NDArray[np.uint8]:
    """``cv2.resize(gray, size_wh, interpolation=cv2.INTER_AREA)``, computed as two small
    matrix products when both sides shrink by one whole pattern of ``p`` pixels to ``q``
    (1280x720 to 720x405 is 16 to 9): half the time of OpenCV's general area path, which
    was half the marker stage's. Other sizes go to OpenCV (whole ratios have a fast path
    there, which rounds halves up)."""
    h, w = gray.shape
    ratio = Fraction(w, size_wh[0])
    p, q = ratio.numerator, ratio.denominator
    if Fraction(h, size_wh[1]) != ratio or p > 32 or p <= q or q == 1 or h % p:
        return np.asarray(cv2.resize(gray, size_wh, interpolation=cv2.INTER_AREA), np.uint8)
    wt = _area_weights(p, q)
    rows = gray.reshape(h, w // p, p).astype(np.float32) @ wt  # (h, w / p, q)
    cols = wt.T @ rows.reshape(h // p, p, size_wh[0])  # (h / p, q, new w)
    # OpenCV's saturating conversion rounds half to even, as np.rint: a quarter of the time
    # of rint, clip and astype (the sums are never negative, so the absolute value is moot)
    return np.asarray(cv2.convertScaleAbs(cols.reshape(size_wh[1], size_wh[0])), np.uint8)


@lru_cache(maxsize=4)
def _area_weights(p: int, q: int) -> NDArray[np.float32]:
    """(p, q) float32: the share of output pixel j (of q) that input pixel i (of p) covers,
    each output pixel covering p / q input pixels."""
    r = p / q
    wt = np.zeros((p, q), np.float32)
    for j in range(q):
        a, b = j * r, (j + 1) * r
        for i in range(math.floor(a), min(p, math.ceil(b))):
            wt[i, j] = (min(b, i + 1) - max(a, i)) / r
    return wt


def _area(pts: NDArray[np.float32]) -> float:
    return float(abs(cv2.contourArea(pts.reshape(-1, 1, 2))))


def _refine(gray: NDArray[np.uint8], markers: Markers) -> Markers:
    """Each marker's corners moved to sub-pixel (``cornerSubPix``, a window of a sixteenth
    of the marker's side); a corner outside the frame (a marker found by
    ``_look_closer`` past the frame's edge) stays where it is."""
    out: Markers = {}
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01)
    h, w = gray.shape
    for mid, pts in markers.items():
        side = float(np.sqrt(max(_area(pts), 1.0)))
        win = int(np.clip(round(side / 16), 2, 8))
        inside = (pts[:, 0] >= 0) & (pts[:, 0] <= w - 1) & (pts[:, 1] >= 0) & (pts[:, 1] <= h - 1)
        if inside.all():
            refined = cv2.cornerSubPix(
                gray, pts.reshape(-1, 1, 2).copy(), (win, win), (-1, -1), crit
            )
            out[mid] = np.asarray(refined, np.float32).reshape(4, 2)
            continue
        moved = np.array(pts, np.float32)
        if inside.any():
            part = cv2.cornerSubPix(
                gray, moved[inside].reshape(-1, 1, 2).copy(), (win, win), (-1, -1), crit
            )
            moved[inside] = np.asarray(part, np.float32).reshape(-1, 2)
        out[mid] = moved
    return out


def find_board_markers(gray: NDArray[np.uint8]) -> Markers:
    """The board markers 4-7 in a (H, W) uint8 grey frame: id -> (4, 2) float32 corners in
    pixels (ArUco order), refined to sub-pixel. Where fewer than four are found, the others
    are looked for where the board's layout puts them, and markers that do not fit the
    others are dropped (``_look_closer``). Four found at once are returned as they are (a
    check would cost every frame a fit): ``find_board`` looks closer when they do not fit
    one plane."""
    h, w = gray.shape
    scale = max(1.0, max(h, w) / DETECT_LONG_SIDE_PX)
    boxed = _first_look_in_box(gray, scale) if scale > 1.0 else None
    if boxed is not None:
        return _refine(gray, boxed)
    # the first look keeps OpenCV's defaults when there is no retry on more pixels
    found = _detect(gray, scale, first_look=scale > 1.0)
    if len(found) < 3 and scale > 1.0:
        # Small or blurred markers: look at more pixels (at most 2.5x the first try's, so
        # that a 12-megapixel photo stays affordable). Three markers fit the board well; a
        # fourth is usually missing under a hand, which more pixels do not help.
        full = _detect(gray, max(1.0, scale / 2.5))
        for mid, pts in full.items():
            found.setdefault(mid, pts)
    found = _refine(gray, found)
    if len(found) == len(layout.BOARD_MARKERS):
        return found
    return _look_closer(gray, found)


# Looking closer: where the first look finds fewer than four board markers (a hand over one,
# or small, blurred, tilted markers at the far side of a steeply seen board, or a marker at
# the frame's edge, which OpenCV's detector never reports), the markers found predict where
# the others lie (the board's layout, ``calibration.layout``), and each missing one is looked
# for in a small window round that place, the board plane there rectified (perspective
# removed, upsampled): OpenCV's outlines in the window and the best place of a template of the
# marker's dark square in its light margin are read cell by cell (``_read_cells``) and the
# expected id alone is accepted, when the board's markers still fit one plane with it. With
# fewer than two markers the frame is first looked at again, sharpened, with finer cells; and
# where that finds no board, the outlines OpenCV found but could not read are read against
# the board's ids (``_read_rejected``).

#: The rectified window's scale, pixels per board mm: a 30 mm marker 48 px wide (the hard
#: tier's markers are 12-20 px in the frame; OpenCV's outline finder and the cell reading
#: need more room).
WINDOW_PX_PER_MM = 1.6
#: The window's margin round the predicted marker square, mm, by the number of markers the
#: prediction stands on. Measured on the hard tier (all pairs and triples of the markers of
#: boards where all four are found): three markers place the fourth within about 20 mm. Two
#: hold the perspective across the board only weakly (their own 30 mm squares give it): a
#: pair on one side of the board places the other two within 50 mm across and, along the
#: way from the pair, from 30 mm too far to 90 mm (two boards: 180 mm) too near, so that
#: window reaches ``WINDOW_FAR_MM`` further on the far side. One marker's square, taken as an
#: affine map, places its neighbours within about a third of the board.
WINDOW_MARGIN_MM = {1: 130.0, 2: 60.0, 3: 35.0}
WINDOW_FAR_MM = 150.0
#: The template's sizes, as shares of the predicted marker size, by the number of markers
#: the prediction stands on.
TEMPLATE_SCALES = {
    1: (0.7, 0.8, 0.9, 1.0, 1.12, 1.25, 1.4),
    2: (0.7, 0.8, 0.9, 1.0, 1.12, 1.25, 1.4),
    3: (0.8, 0.9, 1.0, 1.12, 1.25),
}
#: The template's best place is taken as an outline to read when it correlates at least
#: this much (less is no dark square in a light margin at all; the reading decides).
TEMPLATE_MIN_CORRELATION = 0.3
#: A window's outline is read as the expected marker when its 16 inner cells correlate with
#: that id's bits (in one of four turns) at least this much, and this much more than with
#: any other id of the dictionary: (correlation, margin), by the number of markers that
#: place the window. Measured on the hard tier's windows: the markers read 0.7-1.0 (margin
#: 0.12-0.52), every outline elsewhere that read as the window's id at most 0.69 (margin
#: 0.07). From two markers on, the marker found makes three or four that must fit one plane
#: (``fit_board``'s limit), which checks its place; from one, only a pair's fit does.
READ_MIN = {1: (0.8, 0.2), 2: (0.7, 0.12), 3: (0.7, 0.12)}
#: The outline's light ring must lie at least this many grey levels above its dark border
#: (the hard tier's markers: 62 and more) ...
READ_MIN_CONTRAST = 30.0
#: ... and its side, in the predicted board plane, between these (mm; 30 printed).
READ_SIDE_MM = (20.0, 42.0)
#: A marker found in a window must fit the plane of the others: a pair's fit (the only
#: check with two markers) at most this share of the markers' mean side in rms.
PAIR_MAX_RMS_SIDE = 0.12


@lru_cache(maxsize=1)
def _dictionary_bits() -> NDArray[np.float32]:
    """(ids, 4 turns, 16): the inner 4 x 4 bits of each ``DICT_4X4_50`` marker in each of
    its four turns (``np.rot90`` k times: the marker as ``_read_cells`` samples an outline
    whose corners rolled by k are in ArUco order), centred and scaled to unit length (for
    correlations)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    n = int(d.bytesList.shape[0])
    bits = np.empty((n, 4, 16), np.float32)
    for mid in range(n):
        img = cv2.aruco.generateImageMarker(d, mid, 6)[1:5, 1:5] > 127
        for k in range(4):
            bits[mid, k] = np.rot90(img, k).ravel()
    bits -= bits.mean(axis=2, keepdims=True)
    bits /= np.linalg.norm(bits, axis=2, keepdims=True)
    return bits


@lru_cache(maxsize=1)
def _cell_samples() -> NDArray[np.float32]:
    """(8 * 3 * 8 * 3, 2): where ``_read_cells`` samples an outline, in cells of the marker
    (its 6 x 6 cells at 0-6 and a ring of one cell round them), three by three points in
    the middle half of each cell so that blur from the neighbours weighs little."""
    off = np.array([0.25, 0.5, 0.75], np.float32)
    cells = np.arange(-1, 7, dtype=np.float32)
    g = (cells[:, None] + off[None, :]).ravel()
    xs, ys = np.meshgrid(g, g)
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def _read_cells(
    img: NDArray[np.uint8], quad: NDArray[np.float64]
) -> tuple[int, int, float, float, float] | None:
    """The marker an outline ``quad`` ((4, 2) pixels of ``img``, clockwise) reads as, by
    correlation rather than by thresholding each cell (blurred cells sit between black and
    white): (id, turn, correlation, margin over the best other id, contrast of its light
    ring over its dark border), or None for an outline with no contrast. ``turn``: the
    outline's corners rolled by it (``np.roll(quad, turn, axis=0)``) are in ArUco order,
    the marker's first corner first."""
    unit = np.array([[0, 0], [6, 0], [6, 6], [0, 6]], np.float32)
    hm = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32))
    pts = cv2.perspectiveTransform(_cell_samples().reshape(-1, 1, 2), hm).reshape(1, -1, 2)
    vals = cv2.remap(
        img,
        pts[..., 0].copy(),
        pts[..., 1].copy(),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    g = np.asarray(vals, np.float32).reshape(8, 3, 8, 3).mean(axis=(1, 3))
    ring = np.concatenate([g[0], g[-1], g[1:-1, 0], g[1:-1, -1]])
    border = np.concatenate([g[1, 1:-1], g[-2, 1:-1], g[2:-2, 1], g[2:-2, -2]])
    inner = g[2:-2, 2:-2].ravel()
    contrast = float(np.median(ring) - np.median(border))
    v = inner - inner.mean()
    norm = float(np.linalg.norm(v))
    if contrast <= 0 or norm < 1e-6:
        return None
    corr = _dictionary_bits() @ (v / norm)  # (ids, 4)
    best = np.unravel_index(int(np.argmax(corr)), corr.shape)
    mid, turn = int(best[0]), int(best[1])
    other = float(np.delete(corr, mid, axis=0).max())
    return mid, turn, float(corr[mid, turn]), float(corr[mid, turn]) - other, contrast


@lru_cache(maxsize=32)
def _border_template(cell_px: float) -> NDArray[np.float32]:
    """The template of a marker ``cell_px`` pixels per cell in its light margin: the 6 x 6
    cells dark (0) in a ring of one cell light (1), the inner 4 x 4 cells (whose bits depend
    on the id and the turn) at the mean of the rest, so that they weigh nothing in the
    normalised correlation's numerator (a mask would, but OpenCV's masked correlation is
    ten times slower than its unmasked one)."""
    size = round(8 * cell_px)
    t = np.ones((size, size), np.float32)
    a, b = round(cell_px), round(7 * cell_px)
    t[a:b, a:b] = 0.0
    c, d = round(2 * cell_px), round(6 * cell_px)
    rest = np.ones((size, size), bool)
    rest[c:d, c:d] = False
    t[c:d, c:d] = float(t[rest].mean())
    return t


def _template_outline(
    img: NDArray[np.uint8], cell_px: float, scales: Sequence[float]
) -> NDArray[np.float64] | None:
    """The outline ((4, 2) pixels, clockwise) of the best place and size of a marker's dark
    square in its light margin in ``img`` (``_border_template`` at ``cell_px`` times each of
    ``scales``, normalised correlation), or None when it does not fit there at all."""
    best: tuple[float, float, float, float] | None = None
    work = img.astype(np.float32)
    for k in scales:
        t = _border_template(round(cell_px * k * 4) / 4)
        if t.shape[0] >= min(img.shape):
            continue
        r = cv2.matchTemplate(work, t, cv2.TM_CCOEFF_NORMED)
        _, top, _, (x, y) = cv2.minMaxLoc(r)
        if best is None or top > best[0]:
            c = t.shape[0] / 8
            best = (top, x + c, y + c, 6 * c)
    if best is None or best[0] < TEMPLATE_MIN_CORRELATION:
        return None
    _, x0, y0, side = best
    return np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]]) - 0.5


@lru_cache(maxsize=1)
def _window_detector() -> cv2.aruco.ArucoDetector:
    """OpenCV's detector for a rectified window (``_look_in_window``): its outlines are what
    is wanted (the cells are read by ``_read_cells``); thresholds for a 48 px marker."""
    params = cv2.aruco.DetectorParameters()
    params.adaptiveThreshConstant = 3.0
    params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax = 9, 49
    params.adaptiveThreshWinSizeStep = 20
    params.minMarkerPerimeterRate, params.maxMarkerPerimeterRate = 0.1, 1.5
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    return cv2.aruco.ArucoDetector(d, params)


def _sharpen(gray: NDArray[np.uint8], sigma: float) -> NDArray[np.uint8]:
    """An unsharp mask: twice the picture less its blur at ``sigma`` pixels."""
    blur = cv2.GaussianBlur(gray, (0, 0), sigma)
    return np.asarray(cv2.addWeighted(gray, 2.0, blur, -1.0, 0), np.uint8)


def _window_box(mid: int, found: Markers) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) board mm: where ``_look_in_window`` looks for marker ``mid`` given the
    markers ``found`` (``WINDOW_MARGIN_MM`` round its square; for two on one side of the
    board, ``WINDOW_FAR_MM`` more on the side away from them)."""
    square = np.asarray(layout.board_marker_square(mid), np.float64)
    margin = WINDOW_MARGIN_MM[min(len(found), 3)]
    x0, y0 = square.min(axis=0) - margin
    x1, y1 = square.max(axis=0) + margin
    if len(found) == 2:
        a, b = (np.mean(layout.board_marker_square(m), axis=0) for m in found)
        away = square.mean(axis=0) - (a + b) / 2
        if abs(a[0] - b[0]) < 1.0:  # a pair on a short side: the others lie along x
            x0, x1 = (x0 - WINDOW_FAR_MM, x1) if away[0] < 0 else (x0, x1 + WINDOW_FAR_MM)
        elif abs(a[1] - b[1]) < 1.0:  # on a long side: along y
            y0, y1 = (y0 - WINDOW_FAR_MM, y1) if away[1] < 0 else (y0, y1 + WINDOW_FAR_MM)
    return float(x0), float(y0), float(x1), float(y1)


def _look_in_window(
    gray: NDArray[np.uint8], hmat: NDArray[np.float64], mid: int, found: Markers
) -> NDArray[np.float32] | None:
    """Marker ``mid`` looked for round the place ``hmat`` (board mm -> frame pixels, from the
    markers ``found``) puts it: the board plane there (``_window_box``) rectified at
    ``WINDOW_PX_PER_MM``, the frame's edge repeated beyond it; its candidate outlines
    (OpenCV's, on the window sharpened, and the template's) read by ``_read_cells``; the
    best reading of ``mid`` that passes the ``READ_*`` limits, as (4, 2) float32 frame
    pixels in ArUco order, or None (also when the window lies wholly outside the frame)."""
    s = WINDOW_PX_PER_MM
    n_known = min(len(found), 3)
    x0, y0, x1, y1 = _window_box(mid, found)
    size = (round((x1 - x0) * s), round((y1 - y0) * s))
    to_mm = np.array([[1 / s, 0, x0 + 0.5 / s], [0, 1 / s, y0 + 0.5 / s], [0, 0, 1]])
    m = hmat @ to_mm  # window pixel -> frame pixel
    if not np.all(np.isfinite(m)) or abs(np.linalg.det(m)) < 1e-12:
        return None
    box = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float64)
    if not np.all(box @ m[2, :2] + m[2, 2] > 0):  # part of the window lies behind the camera
        return None
    corners = cv2.perspectiveTransform(box.reshape(-1, 1, 2), m).reshape(-1, 2)
    h, w = gray.shape
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    if hi[0] < 0 or hi[1] < 0 or lo[0] > w - 1 or lo[1] > h - 1:
        return None
    window = np.asarray(
        cv2.warpPerspective(
            gray,
            m,
            size,
            flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        ),
        np.uint8,
    )
    sharp = _sharpen(window, 2.0)
    detected, _, rejected = _window_detector().detectMarkers(sharp)
    outlines = [np.asarray(c, np.float64).reshape(4, 2) for c in (*detected, *rejected)]
    best = _best_reading(window, outlines, mid, n_known)
    if best is None:
        # OpenCV finds no outline round a marker blurred into its surroundings: the place
        # and size where the template of its dark square in its light margin fits best
        cell = BOARD_CELL_MM * s
        templ = _template_outline(window, cell, TEMPLATE_SCALES[n_known])
        if templ is None:
            return None
        # the template is square to the window; the marker, seen through a prediction, is
        # turned and sheared a little: its corners moved onto the window's corners too
        win = max(2, round(cell * 0.6))
        crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01)
        moved = cv2.cornerSubPix(
            window, templ.astype(np.float32).reshape(-1, 1, 2), (win, win), (-1, -1), crit
        )
        best = _best_reading(
            window, [templ, np.asarray(moved, np.float64).reshape(4, 2)], mid, n_known
        )
        if best is None:
            return None
    px = cv2.perspectiveTransform(best.reshape(-1, 1, 2), m)
    return np.asarray(px, np.float32).reshape(4, 2)


def _best_reading(
    window: NDArray[np.uint8], outlines: Sequence[NDArray[np.float64]], mid: int, n_known: int
) -> NDArray[np.float64] | None:
    """Of ``outlines`` ((4, 2) window pixels, clockwise), the one that reads best as marker
    ``mid`` within the ``READ_*`` limits (for a window placed by ``n_known`` markers), its
    corners in ArUco order; None when none does."""
    best: tuple[float, NDArray[np.float64]] | None = None
    side_lo, side_hi = READ_SIDE_MM
    min_corr, min_margin = READ_MIN[n_known]
    for quad in outlines:
        side_mm = math.sqrt(abs(cv2.contourArea(quad.astype(np.float32)))) / WINDOW_PX_PER_MM
        if not side_lo <= side_mm <= side_hi:
            continue
        read = _read_cells(window, quad)
        if read is None:
            continue
        rid, turn, corr, margin_over, contrast = read
        if rid != mid or corr < min_corr or margin_over < min_margin:
            continue
        if contrast < READ_MIN_CONTRAST:
            continue
        if best is None or corr > best[0]:
            best = (corr, np.roll(quad, turn, axis=0))
    return None if best is None else best[1]


def _pair_homography(markers: Markers) -> tuple[NDArray[np.float64], float] | None:
    """(board mm -> pixels, rms px) through the corners of two (or more) markers, each
    marker's corners taken in the turn that fits best. ``fit_board`` takes a marker's
    inner corner as the one nearest the other marker, which for two markers on the same
    side of the board is a tie (its inner corner and the one beside it lie as near), and
    the wrong one bends the plane."""
    ids = sorted(markers)
    plane = np.concatenate([np.asarray(layout.board_marker_square(m), np.float64) for m in ids])
    best: tuple[NDArray[np.float64], float] | None = None
    for turns in itertools.product(range(4), repeat=len(ids)):
        image = np.concatenate(
            [
                np.roll(markers[m].astype(np.float64), -t, axis=0)
                for m, t in zip(ids, turns, strict=True)
            ]
        )
        hmat, _ = cv2.findHomography(plane, image, 0)
        if hmat is None or not np.all(np.isfinite(hmat)):
            continue
        proj = cv2.perspectiveTransform(plane.reshape(-1, 1, 2), hmat).reshape(-1, 2)
        rms = float(np.sqrt(np.mean(np.sum((proj - image) ** 2, axis=1))))
        if best is None or rms < best[1]:
            best = (np.asarray(hmat, np.float64), rms)
    return best


def _predictions(markers: Markers) -> list[NDArray[np.float64]]:
    """Board mm -> frame pixel maps that place the missing markers, most likely first: the
    fit of three markers; the best-turned pair (``_pair_homography``), when it holds; from
    one marker, its square as an affine map in each of its four turns (which corner is the
    inner one cannot be told from one square; first the turn of a marker printed upright
    on the board, as the kit's are)."""
    if len(markers) >= 3:
        fit = fit_board(markers)
        return [] if isinstance(fit, Failure) else [fit.homography]
    if len(markers) == 2:
        pair = _pair_homography(markers)
        if pair is None or pair[1] > PAIR_MAX_RMS_SIDE * _mean_side(markers):
            return []
        return [pair[0]]
    ((mid, pts),) = markers.items()
    square = np.asarray(layout.board_marker_square(mid), np.float64)
    plane = np.hstack([square, np.ones((4, 1))])
    # ArUco's corners of a marker printed upright: top-left, top-right, bottom-right,
    # bottom-left on the board; the inner corner (the square's first) is one of them
    (x0, y0), (x1, y1) = square.min(axis=0), square.max(axis=0)
    printed = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    upright = int(np.argmin(np.linalg.norm(printed - square[0], axis=1)))
    maps = []
    for turn in (upright, *(t for t in range(4) if t != upright)):
        image = np.roll(pts.astype(np.float64), -turn, axis=0)
        affine = np.linalg.lstsq(plane, image, rcond=None)[0].T
        maps.append(np.vstack([affine, [0.0, 0.0, 1.0]]))
    return maps


def _mean_side(markers: Markers) -> float:
    return float(np.mean([math.sqrt(max(_area(p), 1.0)) for p in markers.values()]))


def _fits(markers: Markers) -> bool:
    """Whether the markers fit one board plane: ``fit_board`` holds for three or four; two
    hold when their best-turned pair fits (``PAIR_MAX_RMS_SIDE``); one always."""
    if len(markers) >= 3:
        return not isinstance(fit_board(markers), Failure)
    if len(markers) == 2:
        pair = _pair_homography(markers)
        return pair is not None and pair[1] <= PAIR_MAX_RMS_SIDE * _mean_side(markers)
    return True


def _consistent_starts(markers: Markers) -> list[Markers]:
    """The sets of ``markers`` to start the window search from: all of them when they fit
    one plane (``_fits``); else, while three or more do not, the one whose dropping leaves
    the best fit goes (a stray marker of the same id elsewhere, or a misread one; the search
    then looks for it where the others put it); two that do not fit each other start
    alone, each in turn (which one is astray cannot be told)."""
    found = dict(markers)
    while len(found) >= 3 and not _fits(found):
        best: tuple[float, int] | None = None
        for mid in found:
            rest = {k: v for k, v in found.items() if k != mid}
            if len(rest) >= 3:
                fit = fit_board(rest)
                rms = math.inf if isinstance(fit, Failure) else fit.rms_px
            else:
                pair = _pair_homography(rest)
                rms = math.inf if pair is None else pair[1] / _mean_side(rest)
            if best is None or rms < best[0]:
                best = (rms, mid)
        assert best is not None
        del found[best[1]]
    if len(found) == 2 and not _fits(found):
        return [{mid: pts} for mid, pts in found.items()]
    return [found]


def _second_look(gray: NDArray[np.uint8]) -> tuple[Markers, list[NDArray[np.float32]]]:
    """The board markers OpenCV finds in the whole frame sharpened, with its edge repeated
    (a marker touching the frame's edge is never reported otherwise) and eight pixels per
    cell read (blurred cells read better with more samples): for frames where the first
    look found fewer than two. Also the outlines it rejected, in frame pixels."""
    corners, ids, rejected = _padded_detect(_sharpen(gray, 2.0))
    return _board_markers(corners, ids, (1.0, 1.0), (-_EDGE_PAD, -_EDGE_PAD)), rejected


#: Pixels of edge repeated round a frame before the whole-frame looks (``_padded_detect``).
_EDGE_PAD = 8


def _padded_detect(
    img: NDArray[np.uint8],
) -> tuple[Sequence[MatLike], MatLike | None, list[NDArray[np.float32]]]:
    """``_second_detector`` on ``img`` with ``_EDGE_PAD`` pixels of its edge repeated round
    it: OpenCV's corners and ids (in the padded image's pixels) and its rejected outlines,
    (4, 2) in ``img``'s pixels."""
    p = _EDGE_PAD
    padded = cv2.copyMakeBorder(img, p, p, p, p, cv2.BORDER_REPLICATE)
    corners, ids, rejected = _second_detector().detectMarkers(padded)
    shift = np.array([-p, -p], np.float32)
    return corners, ids, [np.asarray(r, np.float32).reshape(4, 2) + shift for r in rejected]


def _rejected_look(
    gray: NDArray[np.uint8], sharpened: Sequence[NDArray[np.float32]], found: Markers
) -> Markers:
    """The board markers read in the outlines OpenCV rejects (``_read_rejected``), in the
    frame sharpened (``sharpened``, from ``_second_look``) and as it is (sharpening moves a
    blurred outline's corners), those of ``found`` aside: for frames where no look found
    two markers that place the others."""
    return _read_rejected(gray, [*sharpened, *_padded_detect(gray)[2]], found)


#: Outlines OpenCV's detector could not read (its rejected candidates) are read cell by
#: cell (``_read_cells``) against the board's ids where no board is found otherwise:
#: a marker blurred past OpenCV's thresholding still has its outline found. Each reading
#: must reach ``READ_MIN[2]`` and ``READ_MIN_CONTRAST``, and be at least ``REJECTED_MIN_PX``
#: a side; two or more are kept only when they fit one board plane (``_fits``), one alone
#: only at ``READ_MIN[1]``, the limits of a window placed by one marker.
REJECTED_MIN_PX = 12.0


def _read_rejected(
    gray: NDArray[np.uint8], rejected: Sequence[NDArray[np.floating]], found: Markers
) -> Markers:
    """Board markers read in OpenCV's rejected outlines (``REJECTED_MIN_PX``), those of
    ``found`` (already read) aside: id -> (4, 2) float32 corners in ArUco order."""
    min_corr, min_margin = READ_MIN[2]
    best: dict[int, tuple[float, float, NDArray[np.float32]]] = {}
    for r in rejected:
        quad = np.asarray(r, np.float64).reshape(4, 2)
        if math.sqrt(abs(cv2.contourArea(quad.astype(np.float32)))) < REJECTED_MIN_PX:
            continue
        read = _read_cells(gray, quad)
        if read is None:
            continue
        mid, turn, corr, margin_over, contrast = read
        if mid not in layout.BOARD_MARKERS or mid in found:
            continue
        if corr < min_corr or margin_over < min_margin or contrast < READ_MIN_CONTRAST:
            continue
        if mid not in best or corr > best[mid][0]:
            best[mid] = (corr, margin_over, np.roll(quad, turn, axis=0).astype(np.float32))
    got: Markers = {mid: pts for mid, (_, _, pts) in best.items()}
    if len(got) + len(found) >= 2 and _fits({**found, **got}):
        return got
    # else the best one alone, at the limits of a window placed by one marker
    one_corr, one_margin = READ_MIN[1]
    strong = [
        (corr, mid)
        for mid, (corr, margin, _) in best.items()
        if corr >= one_corr and margin >= one_margin
    ]
    if not strong:
        return {}
    mid = max(strong)[1]
    return {mid: best[mid][2]}


@lru_cache(maxsize=1)
def _second_detector() -> cv2.aruco.ArucoDetector:
    """OpenCV's detector for ``_second_look``: eight pixels per cell, a quarter of each cell
    left out at its edges (where blur mixes the neighbours)."""
    params = cv2.aruco.DetectorParameters()
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.25
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    return cv2.aruco.ArucoDetector(d, params)


def _look_closer(gray: NDArray[np.uint8], markers: Markers) -> Markers:
    """The board markers of ``markers`` that fit the layout (``_consistent_starts``) and
    the missing ones found where those predict them (``_search_windows``). Fewer than two
    markers: the frame is looked at again first (``_second_look``); and when that gives no
    board, the outlines OpenCV rejected are read too (``_rejected_look``)."""
    found = dict(markers)
    rejected: list[NDArray[np.float32]] | None = None
    if len(found) < 2:
        second, rejected = _second_look(gray)
        for mid, pts in _refine(gray, second).items():
            found.setdefault(mid, pts)
    best = _search_from(gray, found)
    if len(best) < 2 and rejected is not None:
        # Still no board: markers blurred past OpenCV's reading, read in their outlines.
        more = _rejected_look(gray, rejected, found)
        if more:
            best = _search_from(gray, {**found, **more})
    return best


def _search_from(gray: NDArray[np.uint8], found: Markers) -> Markers:
    """The most markers ``_search_windows`` finds from the sets of ``found`` that fit the
    layout (``_consistent_starts``)."""
    best: Markers = {}
    for start in _consistent_starts(found):
        got = _search_windows(gray, start)
        if len(got) > len(best):
            best = got
    return best


def _search_windows(gray: NDArray[np.uint8], markers: Markers) -> Markers:
    """``markers`` (which fit one plane) and the missing board markers found where they
    predict them (``_predictions``, ``_look_in_window``), nearest first, the prediction
    made again after each one found; a marker found is kept only when all then fit one
    plane (``_fits``)."""
    found = dict(markers)
    while 0 < len(found) < len(layout.BOARD_MARKERS):
        maps = _predictions(found)
        added = False
        for mid in _nearest_missing(found):
            for hmat in maps:
                pts = _look_in_window(gray, hmat, mid, found)
                if pts is None:
                    continue
                more = {**found, **_refine(gray, {mid: pts})}
                if _fits(more):
                    found, added = more, True
                    break
            if added:
                break
        if not added:
            break
    return found


def _nearest_missing(found: Markers) -> list[int]:
    """The board markers not in ``found``, nearest (on the board) to one found first: their
    places are predicted best. From one marker, only its two neighbours (one square places
    the marker across the board too loosely to look for it)."""
    centres = {m: np.mean(layout.board_marker_square(m), axis=0) for m in layout.BOARD_MARKERS}
    missing = [m for m in layout.BOARD_MARKERS if m not in found]
    missing.sort(key=lambda m: min(float(np.linalg.norm(centres[m] - centres[k])) for k in found))
    return missing[:2] if len(found) == 1 else missing


@dataclass(frozen=True, eq=False)
class BoardView:
    """The board found in a frame and its canvas seen from straight above.

    - ``fit``: the board plane (board mm <-> frame pixels).
    - ``canvas``: (H, W, 3) uint8 BGR, ``H = round(canvas_h_mm * px_per_mm)``: pixel (u, v)
      shows board point ((u + 0.5) / px_per_mm, (v + 0.5) / px_per_mm) mm.
    - ``px_per_mm``: the canvas image's scale.
    - ``frame``: the camera frame it was found in (what lies beyond the canvas edges:
      ``occlusion.strip_beyond``), or None.
    """

    fit: PlaneFit
    canvas: NDArray[np.uint8]
    px_per_mm: float
    frame: NDArray[np.uint8] | None = None

    def mm_to_canvas_px(self, pts_mm: NDArray[np.floating]) -> NDArray[np.float32]:
        """(N, 2) board mm -> (N, 2) float32 canvas-image pixels (OpenCV convention)."""
        return (np.asarray(pts_mm, np.float32).reshape(-1, 2) * self.px_per_mm - 0.5).astype(
            np.float32
        )

    def canvas_px_to_mm(self, pts_px: NDArray[np.floating]) -> NDArray[np.float32]:
        """(N, 2) canvas-image pixels -> (N, 2) float32 board mm."""
        return ((np.asarray(pts_px, np.float32).reshape(-1, 2) + 0.5) / self.px_per_mm).astype(
            np.float32
        )

    @property
    def frame_px_per_mm(self) -> float:
        """How finely the camera saw the canvas (``frame_scale``)."""
        return frame_scale(self.fit)


def frame_scale(fit: PlaneFit) -> float:
    """How finely the camera saw the canvas of ``fit``: frame pixels per board millimetre,
    the square root of the canvas's area in the frame over its area in mm (its mean over
    the canvas; a tilted camera sees the far side coarser)."""
    w, h = fit.size_mm
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    px = np.asarray(fit.to_px(corners), np.float32)
    return math.sqrt(abs(float(cv2.contourArea(px))) / max(w * h, 1e-9))


_MAPS: OrderedDict[bytes, tuple[NDArray[np.float32], NDArray[np.float32]]] = OrderedDict()
_MAPS_KEEP = 4


def _maps(
    fit: PlaneFit, px_per_mm: float, size_wh: tuple[int, int]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``cv2.remap`` maps through the lens model, computed on a grid every 8 output pixels
    and interpolated (the lens model is smooth: under 0.01 px of difference), cached per fit."""
    intr = fit.intrinsics
    assert intr is not None
    key = (
        fit.homography.tobytes()
        + intr.camera_matrix.tobytes()
        + intr.dist_coeffs.tobytes()
        + np.asarray([px_per_mm, *size_wh], np.float64).tobytes()
    )
    hit = _MAPS.get(key)
    if hit is not None:
        _MAPS.move_to_end(key)
        return hit
    w, h = size_wh
    step = 8
    gw, gh = w // step + 2, h // step + 2
    us, vs = np.meshgrid(np.arange(gw) * step, np.arange(gh) * step)
    mm = np.stack([(us.ravel() + 0.5) / px_per_mm, (vs.ravel() + 0.5) / px_per_mm], axis=1)
    px = fit.to_px(mm).reshape(gh, gw, 2)
    # Upsample: output pixel (u, v) takes grid point (u / step, v / step), bilinearly.
    big = cv2.warpAffine(
        px,
        np.float32([[step, 0, 0], [0, step, 0]]),
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    map_x = np.ascontiguousarray(big[:, :, 0])
    map_y = np.ascontiguousarray(big[:, :, 1])
    _MAPS[key] = (map_x, map_y)
    while len(_MAPS) > _MAPS_KEEP:
        _MAPS.popitem(last=False)
    return map_x, map_y


def rectify_canvas(
    frame: NDArray[np.uint8], fit: PlaneFit, px_per_mm: float = PX_PER_MM
) -> NDArray[np.uint8]:
    """The canvas from straight above: (round(h_mm * s), round(w_mm * s), 3) uint8 with
    ``s = px_per_mm``; pixel (u, v) shows board point ((u + 0.5) / s, (v + 0.5) / s) mm.

    Without intrinsics this is one ``warpPerspective`` through the fit's homography; with
    them, a ``remap`` through the lens model whose maps are cached per fit."""
    w_mm, h_mm = fit.size_mm
    size = (round(w_mm * px_per_mm), round(h_mm * px_per_mm))
    if fit.intrinsics is None:
        # output (u, v) -> board mm -> frame pixels
        t = np.array(
            [[1 / px_per_mm, 0, 0.5 / px_per_mm], [0, 1 / px_per_mm, 0.5 / px_per_mm], [0, 0, 1]]
        )
        return warp_bgr(frame, fit.homography @ t, size)
    map_x, map_y = _maps(fit, px_per_mm, size)
    out = cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.uint8)


def warp_bgr(
    frame: NDArray[np.uint8], m: NDArray[np.float64], size_wh: tuple[int, int]
) -> NDArray[np.uint8]:
    """``cv2.warpPerspective(frame, m, size_wh, INTER_LINEAR | WARP_INVERSE_MAP,
    BORDER_REPLICATE)`` of a BGR frame, pixel for pixel, in about half its time: OpenCV
    interpolates four channels with vector instructions and three without, so the part of
    the frame the canvas comes from (its corners' box, 2 pixels wider) goes to BGRA, is
    warped, and the result back to BGR. The rest of the four-channel frame stays zero and
    is never read (every output pixel samples inside the box)."""
    h, w = frame.shape[:2]
    box = _source_box(m, size_wh, (w, h))
    if box is None:  # the canvas's corners do not all lie in front of the camera
        src = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    else:
        x0, y0, x1, y1 = box
        src = np.zeros((h, w, 4), np.uint8)
        src[y0:y1, x0:x1] = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2BGRA)
    out = cv2.warpPerspective(
        src,
        m,
        size_wh,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(cv2.cvtColor(out, cv2.COLOR_BGRA2BGR), np.uint8)


def _source_box(
    m: NDArray[np.float64], size_wh: tuple[int, int], frame_wh: tuple[int, int]
) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1), the box of frame pixels that the output rectangle's pixels (output
    pixel -> frame pixel through ``m``) sample bilinearly, with 2 pixels to spare, clipped to
    the frame (keeping at least the edge row or column that samples beyond it repeat); None
    when a corner maps behind the camera. A homography maps the rectangle to a
    quadrilateral: its corners bound it."""
    w, h = size_wh
    corners = np.array([[0, 0, 1], [w - 1, 0, 1], [0, h - 1, 1], [w - 1, h - 1, 1]], np.float64)
    p = corners @ m.T
    if not (p[:, 2] > 1e-9).all():
        return None
    xy = p[:, :2] / p[:, 2:]
    if not np.isfinite(xy).all():
        return None
    fw, fh = frame_wh
    lo = np.floor(xy.min(0)).astype(np.int64) - 2
    hi = np.ceil(xy.max(0)).astype(np.int64) + 3
    x0, x1 = int(np.clip(lo[0], 0, fw - 1)), int(np.clip(hi[0], 1, fw))
    y0, y1 = int(np.clip(lo[1], 0, fh - 1)), int(np.clip(hi[1], 1, fh))
    return x0, y0, x1, y1


def find_board(
    frame: NDArray[np.uint8],
    gray: NDArray[np.uint8],
    intrinsics: Intrinsics | None = None,
    px_per_mm: float = PX_PER_MM,
) -> BoardView | Failure:
    """The board in ``frame`` ((H, W, 3) uint8 BGR, ``gray`` its (H, W) grey), rectified,
    or a ``Failure`` saying why not (markers missing, a fit that does not hold)."""
    markers = find_board_markers(gray)
    fit = fit_board(markers, intrinsics)
    if isinstance(fit, Failure) and len(markers) == len(layout.BOARD_MARKERS):
        # four markers that do not fit one plane: one is astray (a marker of the same id
        # elsewhere, or a misread one); drop it and look for the board's own
        markers = _look_closer(gray, markers)
        fit = fit_board(markers, intrinsics)
    if isinstance(fit, Failure):
        return fit
    return BoardView(fit, rectify_canvas(frame, fit, px_per_mm), px_per_mm, frame)
