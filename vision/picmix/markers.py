"""Card markers read from the ink blobs the verifier already has, instead of a whole-frame
ArUco search (about 100 ms at 1280x720 on one thread, against well under 1 ms here).

A marker of the printable kit (``DICT_4X4_1000``, ``vision.kit.codes``) is one dark blob: its
black border with the black cells joined to it. Its outer contour simplifies to a
quadrilateral; the grey image inside it, warped square, is read as 6 x 6 cells (the border
must read black), and the inner 4 x 4 bits must equal, in one of four turns, a marker that is
printed on a kit card. Only exact matches count: the kit's card markers differ from each other
by at least 2 bits (3 for Picmix's), so one wrong cell cannot name another card.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.picmix.ink import Blob, InkMap

CELL_PX = 8
MIN_SIDE_PX = 12
"""Smaller blobs are not read: 2 px per cell is below what the cells survive."""


@dataclass(frozen=True, eq=False)
class MarkerRead:
    """A kit marker: ``marker_id`` (``DICT_4X4_1000``), ``card`` and ``face`` it is printed
    on, ``corners_px`` (4, 2) float32 in ArUco order (the upright marker's TL, TR, BR, BL)."""

    marker_id: int
    card: str
    face: str
    corners_px: np.ndarray


@functools.lru_cache(maxsize=1)
def _codes() -> dict[int, tuple[int, int]]:
    """16-bit pattern of the inner 4 x 4 cells (1 = black, row-major) -> (marker id, turns):
    the pattern is the upright marker turned ``turns`` times counter-clockwise (np.rot90)."""
    from vision.kit.codes import marker_bits, marker_table

    weights = 1 << np.arange(16)
    out: dict[int, tuple[int, int]] = {}
    for mid in marker_table():
        inner = marker_bits(mid)[1:5, 1:5]
        for turns in range(4):
            code = int((np.rot90(inner, turns).reshape(-1) * weights).sum())
            out.setdefault(code, (mid, turns))
    return out


def _quad(mask: np.ndarray) -> np.ndarray | None:
    """(4, 2) float32 corners of the outer contour of ``mask`` if it is a convex
    quadrilateral, ordered clockwise on screen from the one nearest the top-left; else None."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    c = max(contours, key=cv2.contourArea)
    peri = cv2.arcLength(c, True)
    approx = cv2.approxPolyDP(c, 0.06 * peri, True)
    if len(approx) != 4 or not cv2.isContourConvex(approx):
        return None
    q = approx.reshape(4, 2).astype(np.float32)
    area = cv2.contourArea(q)
    if area < 0.8 * cv2.contourArea(c):
        return None
    return _ordered(q)


def _ordered(q: np.ndarray) -> np.ndarray:
    """(4, 2) float32 corners ``q`` clockwise on screen from the one nearest the top-left."""
    # clockwise on screen (y down): positive shoelace area
    a, b = q[1] - q[0], q[2] - q[1]
    if float(a[0] * b[1] - a[1] * b[0]) < 0:
        q = q[::-1].copy()
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)


def _quad_from_sides(mask: np.ndarray) -> np.ndarray | None:
    """The quadrilateral of a marker with a corner cut off (a fingertip over it): the outline's
    convex hull simplified, its four longest sides extended to meet. None unless the hull has
    5 or 6 sides and the quadrilateral is convex and not much larger than the hull."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    poly = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    m = len(poly)
    if not 5 <= m <= 6:
        return None
    pts = poly.astype(np.float64)
    side = [pts[(j + 1) % m] - pts[j] for j in range(m)]
    four = sorted(sorted(range(m), key=lambda j: -float(np.hypot(*side[j])))[:4])
    corners = []
    for j, k in zip(four, four[1:] + four[:1], strict=True):
        a = np.array([side[j], -side[k]]).T
        if abs(float(np.linalg.det(a))) < 1e-6:
            return None
        t = np.linalg.solve(a, pts[k] - pts[j])
        corners.append(pts[j] + t[0] * side[j])
    q = np.float32(corners)
    area = cv2.contourArea(q)
    if not cv2.isContourConvex(q.reshape(-1, 1, 2)) or area > 1.3 * cv2.contourArea(hull):
        return None
    return _ordered(q)


def _quad_apart(mask: np.ndarray) -> np.ndarray | None:
    """The quadrilateral of a marker stuck to a neighbour by a thin bridge (an objective's
    items lie close to its markers): the mask opened to cut the bridge, its largest part
    grown back and tried as a quadrilateral."""
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab, st, _ = cv2.connectedComponentsWithStats(opened, connectivity=4)
    if n <= 2:
        return None
    k = 1 + int(np.argmax(st[1:, 4]))
    part = cv2.dilate((lab == k).astype(np.uint8), np.ones((3, 3), np.uint8)) & mask
    return _quad(part)


def read_marker(grey: np.ndarray, im: InkMap, blob: Blob) -> MarkerRead | None:
    """The kit marker that ``blob`` is, read from ``grey`` ((H, W) uint8), or None."""
    x, y, w, h = blob.box_xywh
    own = (im.labels[y : y + h, x : x + w] == blob.label).astype(np.uint8)
    return _read_mask(grey, own, (x, y), 0.5)


def _read_mask(
    grey: np.ndarray, own: np.ndarray, xy: tuple[int, int], push_px: float
) -> MarkerRead | None:
    """The kit marker whose dark pixels are ``own`` ((h, w) uint8 0/1, top-left corner at
    ``xy`` in ``grey``), or None. ``push_px``: how far the mask's outline lies inside the
    marker's outer edge (px). The outline's quadrilateral is read first; failing that, the
    one of its four longest sides (a corner cut off by a fingertip, or otherwise lost; about
    2 ms a frame over all the blobs)."""
    h, w = own.shape
    if max(w, h) < MIN_SIDE_PX or max(w, h) > 2.2 * min(w, h):
        return None
    pad = cv2.copyMakeBorder(own, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    q = _quad(pad)
    if q is None:
        q = _quad_apart(pad)
    got = None if q is None else _read_quad(grey, q, xy, push_px)
    if got is None:
        q = _quad_from_sides(pad)
        got = None if q is None else _read_quad(grey, q, xy, push_px)
    return got


def _read_quad(
    grey: np.ndarray, q: np.ndarray, xy: tuple[int, int], push_px: float
) -> MarkerRead | None:
    """The kit marker in quadrilateral ``q`` ((4, 2) float32 in a mask padded by one pixel
    whose top-left corner is ``xy`` in ``grey``, pushed out by ``push_px``), or None: its
    6 x 6 cells, the border black and the inner 4 x 4 exactly a kit marker's."""
    from vision.kit.codes import card_for_marker

    x, y = xy
    # the mask's outline runs through the border's outer pixels: push it out to the edge
    centre = q.mean(axis=0)
    q = q + (q - centre) * (push_px / max(1.0, float(np.linalg.norm(q - centre, axis=1).mean())))
    q = q + np.float32([x - 1, y - 1])
    side = 6 * CELL_PX
    dst = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    warp = cv2.warpPerspective(
        grey, cv2.getPerspectiveTransform(q, dst), (side, side), flags=cv2.INTER_LINEAR
    )
    c0, c1 = CELL_PX // 4, CELL_PX - CELL_PX // 4
    cells = warp.reshape(6, CELL_PX, 6, CELL_PX)[:, c0:c1, :, c0:c1].mean(axis=(1, 3))
    lo, hi = float(cells.min()), float(cells.max())
    if hi - lo < 30:
        return None
    black = cells < (lo + hi) / 2
    border = np.concatenate([black[0], black[-1], black[1:-1, 0], black[1:-1, -1]])
    if border.sum() < 19:
        return None
    code = int((black[1:5, 1:5].reshape(-1) * (1 << np.arange(16))).sum())
    hit = _codes().get(code)
    if hit is None:
        return None
    mid, turns = hit
    card = card_for_marker(mid)
    if card is None:
        return None
    corners = np.roll(q, turns, axis=0).astype(np.float32)
    return MarkerRead(mid, card[0], card[1], corners)


MARKER_INK = 0.85
"""Ink level (0..1, ``vision.picmix.ink``) that a marker's black reaches and skin, most
sleeves and most tables do not (0.4-0.8): at this level a marker stands apart from a hand
or from the table beyond the card's edge that touches it."""
MAX_MARKER_SIDE_PX = 110
"""Largest marker looked for in a dark core (px): the ink blobs' own size limit."""


def dark_cores(grey: np.ndarray, im: InkMap, labels: list[int]) -> list[MarkerRead]:
    """Kit markers inside the ink components ``labels`` of ``im`` (with the blobs split off
    them, ``InkMap.split_from``), read from their darkest pixels (``MARKER_INK``). A hand, a
    sleeve or the table beyond the card's edge touching a marker makes one component of both,
    which ``read_marker`` cannot read; the marker's black is darker than they are. ``grey``:
    (H, W) uint8. A few ms a frame."""
    if grey.ndim != 2 or grey.dtype != np.uint8:
        raise ValueError(f"grey must be (H, W) uint8, got {grey.shape} {grey.dtype}")
    level = round(MARKER_INK * 255)
    out: list[MarkerRead] = []
    for i in labels:
        x, y, w, h, _ = (int(v) for v in im.stats[i])
        mine = [i, *(j for j, parent in im.split_from.items() if parent == i)]
        own = np.isin(im.labels[y : y + h, x : x + w], mine)
        dark = own & (im.ink[y : y + h, x : x + w] >= level)
        n, lab, st, _ = cv2.connectedComponentsWithStats(dark.astype(np.uint8), connectivity=8)
        for k in range(1, n):
            sx, sy, sw, sh, _ = (int(v) for v in st[k])
            if not MIN_SIDE_PX <= max(sw, sh) <= MAX_MARKER_SIDE_PX:
                continue
            own = (lab[sy : sy + sh, sx : sx + sw] == k).astype(np.uint8)
            # the threshold leaves the border's blurred outer pixel out: push a pixel more
            m = _read_mask(grey, own, (x + sx, y + sy), 1.5)
            if m is not None:
                out.append(m)
    return out


@functools.lru_cache(maxsize=1)
def _detector() -> cv2.aruco.ArucoDetector:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000)
    return cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())


def search_frame(grey: np.ndarray) -> list[MarkerRead]:
    """Every kit card marker in ``grey`` ((H, W) uint8) by OpenCV's whole-frame ArUco search
    (20-100 ms at 1280x720 on one thread). Only a fallback: a marker touched by a hand or an
    arm's shadow is one blob with it, and ``read_marker`` cannot read it."""
    from vision.kit.codes import card_for_marker

    if grey.ndim != 2 or grey.dtype != np.uint8:
        raise ValueError(f"grey must be (H, W) uint8, got {grey.shape} {grey.dtype}")
    corners, ids, _ = _detector().detectMarkers(grey)
    out: list[MarkerRead] = []
    if ids is None:
        return out
    for c, mid in zip(corners, ids.ravel(), strict=True):
        card = card_for_marker(int(mid))
        if card is not None:
            out.append(MarkerRead(int(mid), card[0], card[1], c.reshape(4, 2).astype(np.float32)))
    return out


CARD_READER_MIN = 0.9
"""The card reader's objective fronts taken from this confidence (its soft readings, by the
likeness of small blurred markers, go up to 0.98): what it names is then checked like any code
found by a search, against the items seen inside the card (``objective._agrees``)."""


def card_reader_markers(frame: np.ndarray) -> list[MarkerRead]:
    """The Picmix objective fronts that the card reader names in ``frame`` ((H, W, 3) uint8
    BGR; ``vision.identify.identify_frame`` with the game known: codes only, markers too
    small or blurred for their cells read by their likeness, also where the card's outline
    puts them), as the two markers each puts on its face (``MarkerRead.marker_id`` -1: the
    markers are where the card is, not each read). On rendered hard claims a webcam's
    blurred objective card, 45-65 px wide, is read so where neither its blobs nor OpenCV's
    search read a marker."""
    from vision.identify import identify_frame
    from vision.identify.identify import MIN_FRAME_PX
    from vision.kit.codes import face_codes
    from vision.kit.geometry import face_size_wh_mm

    out: list[MarkerRead] = []
    if min(frame.shape[:2]) < MIN_FRAME_PX:  # no card in it (the card reader refuses it)
        return out
    for r in identify_frame(frame, None, codes="fast", game="picmix").cards:
        if r.side != "front" or r.confidence < CARD_READER_MIN:
            continue
        w, h = face_size_wh_mm(r.card)
        face_to_frame = cv2.getPerspectiveTransform(
            np.float32([[0, 0], [w, 0], [w, h], [0, h]]), np.asarray(r.corners_px, np.float32)
        )
        for rect in face_codes(r.card, "front").marker_rects:
            corners = cv2.perspectiveTransform(rect.corners().reshape(-1, 1, 2), face_to_frame)
            out.append(MarkerRead(-1, r.card, "front", corners.reshape(4, 2).astype(np.float32)))
    return out
