"""The printable edition's cards by their printed codes, with the card's pose.

Every face of a kit card carries two ArUco markers of ``DICT_4X4_1000`` (the same id on both,
a different id per face: ``vision.kit.marker_id``) in opposite corners, and most carry a QR
code ``PT1:<CARD-ID>:<F|B>`` (``vision.kit.parse_payload``). A code names the card and which
face shows; its corners, with where it is printed on the face (``vision.kit.geometry``), give
the card's outline through a homography (face millimetres -> frame pixels).

Reading is done by :mod:`vision.codes` (its decoders and marker matching), in one of two
ways:

- ``"fast"`` (the live default): square candidates from one adaptive threshold and their
  connected components (the card markers are 15-40 px at table distance), their cells read
  by :func:`vision.codes.aruco.cell_ratios` and matched, with no error allowed, against the
  markers of the kit's cards only; QR codes by zxing-cpp once
  (:func:`vision.codes.qr.zxing_read`). A 1280 x 720 frame takes a few milliseconds.
- ``"full"``: :func:`vision.codes.decode_frame` (every decoder and preprocessing fallback),
  for still photos where time does not matter.

Payloads outside pictable's scheme and marker ids that are on no card are ignored (never
interpreted further: ``parse_payload`` accepts only short ASCII ``PT1`` payloads of existing
cards). A single marker is ambiguous: it could be either of its face's two; both poses are
returned and the picture decides (:mod:`vision.identify.identify`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.codes.aruco import load_dictionary
from vision.identify.reading import Side
from vision.kit import geometry as g
from vision.kit.codes import card_for_marker, face_codes, marker_table, parse_payload

CodeReader = Literal["fast", "full"]
CODE_READERS: tuple[str, ...] = ("fast", "full")

#: Adaptive threshold window (px, odd) and offset of the fast marker search.
_THRESH_WINDOW = 15
_THRESH_C = 7
#: Smallest marker side searched, px (4x4 markers: 6 cells with the border, 2 px a cell).
MIN_MARKER_PX = 12
#: Cells of a card marker, border included, and how wrong its border may read.
_CELLS = 6
_MAX_BORDER_WRONG = 2
_BIT_THRESHOLD = 0.5
#: A cell whose white share is this close to one half is not read (the marker is dropped).
_UNSURE = 0.0


@dataclass(frozen=True, eq=False)
class CodeSighting:
    """One printed code of a kit card seen in a frame.

    ``kind``: ``"marker"`` or ``"qr"``; ``card`` and ``side`` (``"front"``/``"back"``) what it
    names; ``corners_px`` (4, 2) float32, the code's corners in its own order (TL, TR, BR, BL
    as printed); ``poses``: (k, 4, 2) float64 outlines of the card face (TL, TR, BR, BL, as
    printed) that the code allows: one for a QR code, two for a marker (it may be either of
    the face's two markers); ``places_mm``: for each pose, the code's square on the face
    (4, 2) mm, in the code's corner order.
    """

    kind: Literal["marker", "qr"]
    card: str
    side: Side
    corners_px: NDArray[np.float32]
    poses: NDArray[np.float64]
    places_mm: NDArray[np.float64]


@functools.cache
def _kit_marker_codes() -> tuple[NDArray[np.int64], NDArray[np.uint64]]:
    """(ids, codes (n, 4) uint64 in four rotations) of every marker printed on a kit card."""
    ids = np.array(sorted(marker_table()), np.int64)
    codes = load_dictionary("DICT_4X4_1000").codes[ids]
    return ids, np.asarray(codes, np.uint64)


@functools.cache
def face_geometry(
    card: str, side: str
) -> tuple[tuple[float, float], tuple[g.Rect, ...], g.Rect | None]:
    """(face size (w, h) mm, the face's marker squares, its QR symbol's square or None)."""
    fc = face_codes(card, side)  # type: ignore[arg-type]
    return g.face_size_wh_mm(card), tuple(fc.marker_rects), fc.qr_rect


def _face_corners_mm(size_wh: tuple[float, float]) -> NDArray[np.float64]:
    w, h = size_wh
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


def _pose(
    place_mm: NDArray[np.float64], corners_px: NDArray[np.floating], size_wh: tuple[float, float]
) -> NDArray[np.float64]:
    """The card face's outline in pixels given a code's square on the face (mm) and its
    corners in the frame (pixels), both in the code's order.

    An affine map (least squares over the four corners), not a homography: a code is a
    fifth of the card or less, and a homography's perspective terms fitted to its corners
    (each good to a pixel) swing the far corners of the card by tens of pixels; over one
    card the camera's perspective is small (the outline is then snapped to the card's
    edges, :func:`vision.identify.quads.refine_quads`)."""
    return _affine_apply(
        _affine(place_mm, np.asarray(corners_px, np.float64)), _face_corners_mm(size_wh)
    )


def _affine(src: NDArray[np.float64], dst: NDArray[np.float64]) -> NDArray[np.float64]:
    """(2, 3) least-squares affine map of (n, 2) points ``src`` onto ``dst``."""
    return np.asarray((_pinv(src.reshape(-1, 2).tobytes()) @ dst.reshape(-1, 2)).T, np.float64)


@functools.lru_cache(maxsize=4096)
def _pinv(src: bytes) -> NDArray[np.float64]:
    """The pseudo-inverse of [x y 1] rows of the float64 points in ``src`` (a code's square
    on a face: a few thousand distinct ones, so cached)."""
    pts = np.frombuffer(src, np.float64).reshape(-1, 2)
    return np.asarray(np.linalg.pinv(np.hstack([pts, np.ones((len(pts), 1))])), np.float64)


def _affine_apply(m: NDArray[np.float64], pts: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.asarray(pts @ m[:, :2].T + m[:, 2], np.float64)


def sighting(
    kind: Literal["marker", "qr"], card: str, side: Side, corners_px: NDArray[np.floating]
) -> CodeSighting | None:
    """A :class:`CodeSighting` with the poses its code allows (None when the face carries no
    such code, e.g. a QR code on a Pic Flip front)."""
    size, markers, qr = face_geometry(card, side)
    places = (
        [r.corners().astype(np.float64) for r in markers]
        if kind == "marker"
        else ([qr.corners().astype(np.float64)] if qr is not None else [])
    )
    if not places:
        return None
    corners = np.asarray(corners_px, np.float32).reshape(4, 2)
    poses = np.stack([_pose(p, corners, size) for p in places])
    return CodeSighting(kind, card, side, corners, poses, np.stack(places))


# ---- the fast reader -----------------------------------------------------------------------


def marker_quads(grey: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Dark square candidates: (n, 4, 2) float32 corners, clockwise on screen, sub-pixel:
    the dark blobs of one adaptive threshold (:data:`_THRESH_WINDOW`) of a marker's size,
    traced in their own small windows."""
    h, w = grey.shape
    binary = cv2.adaptiveThreshold(
        grey, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, _THRESH_WINDOW, _THRESH_C
    )
    _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        binary, 8, cv2.CV_32S, cv2.CCL_SPAGHETTI
    )
    bw, bh, area = stats[:, 2], stats[:, 3], stats[:, 4]
    max_side = max(h, w) // 2
    ok = (bw >= MIN_MARKER_PX) & (bh >= MIN_MARKER_PX) & (bw <= max_side) & (bh <= max_side)
    # A marker's dark cells (its border ring and about half its inner cells) cover most of
    # it, and a square turned any way fills at least half its bounding box.
    ok &= (area >= 0.25 * bw * bh) & (np.maximum(bw, bh) <= 2 * np.minimum(bw, bh))
    ok[0] = False
    quads = []
    for i in np.flatnonzero(ok):
        x, y, cw, ch = (int(v) for v in stats[i, :4])
        x0, y0 = max(0, x - 1), max(0, y - 1)
        roi = (labels[y0 : y + ch + 1, x0 : x + cw + 1] == i).astype(np.uint8)
        contours, _ = cv2.findContours(roi, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        c = max(contours, key=len)
        approx = cv2.approxPolyDP(c, 0.04 * len(c), True)
        if len(approx) != 4 or not cv2.isContourConvex(approx):
            continue
        q = approx.reshape(4, 2).astype(np.float32) + np.array([x0, y0], np.float32)
        sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        if sides.min() < 0.5 * MIN_MARKER_PX or sides.max() > 2.5 * sides.min():
            continue
        v1, v2 = q[1] - q[0], q[2] - q[0]
        if v1[0] * v2[1] - v1[1] * v2[0] < 0:
            q = q[[0, 3, 2, 1]]
        quads.append(q)
    if not quads:
        return np.zeros((0, 4, 2), np.float32)
    out = np.stack(quads).astype(np.float32)
    # The contour runs through the centres of the outermost dark pixels: the marker's edge
    # lies half a pixel further out. Sub-pixel corners from the grey image.
    centre = out.mean(axis=1, keepdims=True)
    out = centre + (out - centre) * (
        1 + 0.5 / np.maximum(np.linalg.norm(out - centre, axis=2, keepdims=True), 1)
    )
    out[..., 0] = np.clip(out[..., 0], 0, w - 1)
    out[..., 1] = np.clip(out[..., 1], 0, h - 1)
    pts = out.reshape(-1, 1, 2).copy()
    win = 2
    cv2.cornerSubPix(
        grey,
        pts,
        (win, win),
        (-1, -1),
        (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.01),
    )
    refined = pts.reshape(-1, 4, 2)
    # Keep the sub-pixel corner only where it stayed close (it can slide along a card edge).
    moved = np.linalg.norm(refined - out, axis=2, keepdims=True)
    return np.asarray(np.where(moved < 1.5, refined, out), np.float32)


def _cell_ratios(grey: NDArray[np.uint8], quads: NDArray[np.float32]) -> NDArray[np.float64]:
    """(n, 6, 6) white share of each cell of each candidate: the candidate warped (bilinear)
    to 8 px per cell, thresholded at Otsu's level (all one colour when its inside is flat),
    each cell read inside a margin of a fifth of a cell."""
    px = 8
    size = _CELLS * px
    dst = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32) - 0.5
    out = np.zeros((len(quads), _CELLS, _CELLS))
    m = px // 5
    for i, q in enumerate(quads):
        h = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
        patch = cv2.warpPerspective(
            grey, h, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        inner = patch[px:-px, px:-px]
        if float(inner.std()) < 5.0:
            white = np.full(patch.shape, float(inner.mean()) > 127, bool)
        else:
            level, _ = cv2.threshold(patch, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
            white = patch > level
        cells = white.reshape(_CELLS, px, _CELLS, px)[:, m : px - m, :, m : px - m]
        out[i] = cells.mean(axis=(1, 3))
    return out


def read_markers(grey: NDArray[np.uint8]) -> list[tuple[int, NDArray[np.float32]]]:
    """Kit card markers: (marker id, (4, 2) float32 corners in ArUco order)."""
    quads = marker_quads(grey)
    if len(quads) == 0:
        return []
    ratios = _cell_ratios(grey, quads)  # (n, 6, 6) share of white per cell
    ring = np.ones((_CELLS, _CELLS), bool)
    ring[1:-1, 1:-1] = False
    border_wrong = (ratios[:, ring] > _BIT_THRESHOLD).sum(axis=1)
    inner = ratios[:, 1:-1, 1:-1].reshape(len(quads), -1)
    # A cell too grey to call is wrong for any code.
    unsure = (np.abs(inner - 0.5) < _UNSURE).any(axis=1)
    bits = inner > _BIT_THRESHOLD
    weights = np.left_shift(np.uint64(1), np.arange(16, dtype=np.uint64))
    packed = np.bitwise_or.reduce(np.where(bits, weights, np.uint64(0)), axis=1)
    ids, codes = _kit_marker_codes()
    out: list[tuple[int, NDArray[np.float32]]] = []
    centres: list[NDArray[np.float32]] = []
    for k in np.flatnonzero((border_wrong <= _MAX_BORDER_WRONG) & ~unsure):
        hit = np.argwhere(codes == packed[k])
        if len(hit) != 1:
            continue
        idx, rotation = int(hit[0, 0]), int(hit[0, 1])
        corners = np.roll(quads[k], rotation, axis=0)
        c = corners.mean(axis=0)
        side = float(np.linalg.norm(corners[1] - corners[0]))
        if centres and (np.linalg.norm(np.asarray(centres) - c, axis=1) < 0.3 * side).any():
            continue  # the same marker from an inner contour
        centres.append(c)
        out.append((int(ids[idx]), corners))
    return out


def read_qr_fast(grey: NDArray[np.uint8]) -> list[tuple[str, NDArray[np.float32]]]:
    """QR codes read by zxing-cpp once: (text, (4, 2) float32 corners, the code's order)."""
    from vision.codes.qr import zxing_read

    reads, _ = zxing_read(grey)
    return [(r.text, np.asarray(r.quad, np.float32)) for r in reads]


def read_sightings(
    frame: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    reader: CodeReader = "fast",
    *,
    qr: bool = True,
) -> list[CodeSighting]:
    """Every kit-card code in a frame, as :class:`CodeSighting`; codes of no card ignored.

    ``frame`` (H, W, 3) uint8 BGR and its ``grey`` (H, W) uint8; ``reader``: ``"fast"`` or
    ``"full"`` (see the module docstring); ``qr``: read QR codes too."""
    markers: list[tuple[int, NDArray[np.float32]]] = []
    texts: list[tuple[str, NDArray[np.float32]]] = []
    if reader == "full":
        from vision.codes import decode_frame

        for code in decode_frame(frame, ["DICT_4X4_1000"], qr=qr):
            if code.kind == "aruco" and code.id is not None:
                markers.append((int(code.id), np.asarray(code.corners_px, np.float32)))
            elif code.kind == "qr" and code.text is not None:
                texts.append((code.text, np.asarray(code.corners_px, np.float32)))
    elif reader == "fast":
        markers = read_markers(grey)
        if qr:
            texts = read_qr_fast(grey)
    else:
        raise ValueError(f"unknown code reader {reader!r}; expected one of {list(CODE_READERS)}")
    out: list[CodeSighting] = []
    for marker, corners in markers:
        named = card_for_marker(marker)
        if named is None:
            continue
        s = sighting("marker", named[0], named[1], corners)
        if s is not None:
            out.append(s)
    for text, corners in texts:
        named = parse_payload(text)
        if named is None:
            continue
        s = sighting("qr", named[0], named[1], corners)
        if s is not None:
            out.append(s)
    return out


# ---- votes: one card from its codes ----------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CodeCard:
    """A kit card named by its codes: ``card``, ``side``, ``corners_px`` (4, 2) float64 (the
    best pose), ``alternatives`` (k, 4, 2) other poses still possible (a lone marker: the
    other corner), ``codes``: the sightings that agree, ``disagree``: sightings of the same
    place naming another card or side (outvoted)."""

    card: str
    side: Side
    corners_px: NDArray[np.float64]
    alternatives: NDArray[np.float64]
    codes: tuple[CodeSighting, ...]
    disagree: int = 0

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(c.kind for c in self.codes)


def _close(a: NDArray[np.float64], b: NDArray[np.float64], tol: float) -> bool:
    return bool(np.abs(a - b).max() < tol)


def _fit(
    codes: list[tuple[CodeSighting, int]], size_wh: tuple[float, float]
) -> NDArray[np.float64]:
    """The card's outline from several codes (each with the index of its pose): a homography
    fitted to all their corners (face mm -> px)."""
    src = np.concatenate([c.places_mm[i] for c, i in codes]).astype(np.float64)
    dst = np.concatenate([c.corners_px for c, _ in codes]).astype(np.float64)
    spread = np.ptp(src, axis=0).min()
    if spread > 0.5 * min(size_wh):
        # Codes far apart on the card (two corners): a homography is well conditioned.
        h, _ = cv2.findHomography(src.astype(np.float32), dst.astype(np.float32), 0)
        if h is not None:
            pts = cv2.perspectiveTransform(_face_corners_mm(size_wh).reshape(-1, 1, 2), h)
            return np.asarray(pts, np.float64).reshape(4, 2)
    return _affine_apply(_affine(src, dst), _face_corners_mm(size_wh))


def vote(sightings: list[CodeSighting]) -> list[CodeCard]:
    """Group sightings into cards: codes whose poses agree (corners within a fifth of the
    card's size) are one card; per card id, the place with the most codes wins (a QR code
    counts two: it carries a checksum), and a place whose codes name different sides goes to
    the majority. ``disagree`` counts the other cards named at a card's place."""
    groups: dict[str, list[CodeSighting]] = {}
    for s in sightings:
        groups.setdefault(s.card, []).append(s)
    cards = [_best_place(card, group) for card, group in groups.items()]
    if len(cards) > 1:
        centres = np.array([c.corners_px.mean(axis=0) for c in cards])
        sizes = np.array([np.linalg.norm(c.corners_px[2] - c.corners_px[0]) for c in cards])
        near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < 0.2 * sizes[:, None]
        np.fill_diagonal(near, False)
        cards = [
            CodeCard(c.card, c.side, c.corners_px, c.alternatives, c.codes, int(near[k].sum()))
            for k, c in enumerate(cards)
        ]
    return cards


def _weight(s: CodeSighting) -> int:
    return 2 if s.kind == "qr" else 1


def _best_place(card: str, group: list[CodeSighting]) -> CodeCard:
    """The place of ``card`` backed by the most codes of the group (all naming ``card``)."""
    best: tuple[tuple[int, int], list[tuple[CodeSighting, int]]] | None = None
    for s in group:
        for i in range(len(s.poses)):
            tol = 0.2 * float(np.linalg.norm(s.poses[i][2] - s.poses[i][0]))
            members = []
            for t in group:
                j = next(
                    (j for j in range(len(t.poses)) if _close(t.poses[j], s.poses[i], tol)), None
                )
                if j is not None:
                    members.append((t, j))
            key = (sum(_weight(t) for t, _ in members), -len(s.poses))
            if best is None or key > best[0]:
                best = (key, members)
    assert best is not None
    members = best[1]
    votes = {"front": 0, "back": 0}
    for t, _ in members:
        votes[t.side] += _weight(t)
    side: Side = "front" if votes["front"] >= votes["back"] else "back"
    agree = [(t, j) for t, j in members if t.side == side]
    size = face_geometry(card, side)[0]
    corners = _fit(agree, size) if len(agree) > 1 else agree[0][0].poses[agree[0][1]]
    alternatives = np.zeros((0, 4, 2))
    if len(agree) == 1 and agree[0][0].kind == "marker":
        t, j = agree[0]
        alternatives = np.delete(t.poses, j, axis=0)
    return CodeCard(card, side, corners, alternatives, tuple(t for t, _ in agree))
