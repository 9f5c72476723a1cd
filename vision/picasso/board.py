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
"""

from __future__ import annotations

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
    out: Markers = {}
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 0.01)
    for mid, pts in markers.items():
        side = float(np.sqrt(max(_area(pts), 1.0)))
        win = int(np.clip(round(side / 16), 2, 8))
        refined = cv2.cornerSubPix(gray, pts.reshape(-1, 1, 2).copy(), (win, win), (-1, -1), crit)
        out[mid] = np.asarray(refined, np.float32).reshape(4, 2)
    return out


def find_board_markers(gray: NDArray[np.uint8]) -> Markers:
    """The board markers 4-7 in a (H, W) uint8 grey frame: id -> (4, 2) float32 corners in
    pixels (ArUco order), refined to sub-pixel."""
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
    return _refine(gray, found)


@dataclass(frozen=True, eq=False)
class BoardView:
    """The board found in a frame and its canvas seen from straight above.

    - ``fit``: the board plane (board mm <-> frame pixels).
    - ``canvas``: (H, W, 3) uint8 BGR, ``H = round(canvas_h_mm * px_per_mm)``: pixel (u, v)
      shows board point ((u + 0.5) / px_per_mm, (v + 0.5) / px_per_mm) mm.
    - ``px_per_mm``: the canvas image's scale.
    """

    fit: PlaneFit
    canvas: NDArray[np.uint8]
    px_per_mm: float

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
    if isinstance(fit, Failure):
        return fit
    return BoardView(fit, rectify_canvas(frame, fit, px_per_mm), px_per_mm)
