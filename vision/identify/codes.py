"""The printable edition's cards by their printed codes, with the card's pose.

Every face of a kit card carries two ArUco markers of ``DICT_4X4_1000`` (the same id on both,
a different id per face: ``vision.kit.marker_id``) in opposite corners, and most carry a QR
code ``PT1:<CARD-ID>:<F|B>`` (``vision.kit.parse_payload``). A code names the card and which
face shows; its corners, with where it is printed on the face (``vision.kit.geometry``), give
the card's outline through a homography (face millimetres -> frame pixels).

Reading is done by :mod:`vision.codes` (its decoders and marker matching), in one of two
ways:

- ``"fast"`` (the live default): square candidates from one adaptive threshold and their
  connected components (the card markers are 15-40 px at table distance; larger ones, whose
  cells are wider than the threshold's window, in copies of the frame shrunk 4 times and
  more: :func:`large_marker_quads`), their corners
  moved onto the square's edge (:func:`refine_marker_corners`), their cells read by their
  own levels (:func:`_cell_ratios`) and matched, with no error allowed, against the
  markers of the kit's cards only; QR codes by zxing-cpp
  (:func:`vision.codes.qr.zxing_read`) in the windows of their finder patterns
  (:func:`qr_windows`). A 1280 x 720 frame takes a few milliseconds.
- ``"full"``: the fast reader, then :func:`vision.codes.decode_frame` (every decoder and
  preprocessing fallback) for what it adds: every code the fast reader reads and more, for
  still photos where time does not matter.

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
from vision.identify.dark_squares import (
    _CELLS,
    MIN_MARKER_PX,
    _sample_xy,
    large_marker_quads,
    marker_quads,
    refine_marker_corners,
)
from vision.identify.reading import Side
from vision.kit import geometry as g
from vision.kit.codes import card_for_marker, face_codes, marker_table, parse_payload

CodeReader = Literal["fast", "full"]
CODE_READERS: tuple[str, ...] = ("fast", "full")

#: How wrong a card marker's border may read (cells).
_MAX_BORDER_WRONG = 2
_BIT_THRESHOLD = 0.5
#: Each cell's level is sampled at these offsets from its centre (cells), and a candidate
#: whose dark and light cells differ by less than this (grey levels) is all one colour.
_CELL_SAMPLES = np.stack(np.meshgrid([-0.25, 0.0, 0.25], [-0.25, 0.0, 0.25]), -1).reshape(-1, 2)
_MIN_CONTRAST = 20.0
#: A card marker's cells are each of one level: a candidate whose cells spread more than this
#: (:func:`_cell_read`) is another pattern (6 x 6 markers of OpenCV's own test photos named
#: kit cards, their 8 cells read as 6: spread 0.40-0.65; card markers on rendered tables, 725
#: read of 60 scenes, normal and hard: 0.23 at most).
MAX_CELL_SPREAD = 0.3


@dataclass(frozen=True, eq=False)
class CodeSighting:
    """One printed code of a kit card seen in a frame.

    ``kind``: ``"marker"`` or ``"qr"``; ``card`` and ``side`` (``"front"``/``"back"``) what it
    names; ``corners_px`` (4, 2) float32, the code's corners in its own order (TL, TR, BR, BL
    as printed); ``poses``: (k, 4, 2) float64 outlines of the card face (TL, TR, BR, BL, as
    printed) that the code allows: one for a QR code, two for a marker (it may be either of
    the face's two markers); ``places_mm``: for each pose, the code's square on the face
    (4, 2) mm, in the code's corner order; ``soft``: a marker named by its likeness to the
    markers that can be on the table (:func:`vision.identify.likeness.soft_markers`), not
    read bit for bit.
    """

    kind: Literal["marker", "qr"]
    card: str
    side: Side
    corners_px: NDArray[np.float32]
    poses: NDArray[np.float64]
    places_mm: NDArray[np.float64]
    soft: bool = False


@functools.cache
def _kit_marker_lookup() -> dict[int, tuple[int, int]]:
    """Packed 16-bit code (the dictionary's, as :func:`_read_quads` packs the inner cells) ->
    (marker id, rotation) of every marker printed on a kit card, in each of its four
    rotations; a code that two markers or two rotations share is left out (it names no one
    marker and pose)."""
    return _lookup(tuple(sorted(marker_table())))


@functools.cache
def _fiducial_lookup() -> dict[int, tuple[int, int]]:
    """:func:`_kit_marker_lookup` for the kit's markers that are on no card: every marker of
    ``DICT_4X4_50`` (the first 50 of ``DICT_4X4_1000``; play area 0-3, Picasso board 4-7)."""
    return _lookup(tuple(range(50)))


def _lookup(marker_ids: tuple[int, ...]) -> dict[int, tuple[int, int]]:
    ids = np.array(marker_ids, np.int64)
    codes = np.asarray(load_dictionary("DICT_4X4_1000").codes[ids], np.uint64)
    hits: dict[int, list[tuple[int, int]]] = {}
    for (k, rotation), code in np.ndenumerate(codes):
        hits.setdefault(int(code), []).append((int(ids[k]), rotation))
    return {code: found[0] for code, found in hits.items() if len(found) == 1}


#: Corner order of a candidate read in each rotation (``np.roll`` by the rotation).
_ROTATED = np.array([np.roll(np.arange(4), r) for r in range(4)])


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
    kind: Literal["marker", "qr"],
    card: str,
    side: Side,
    corners_px: NDArray[np.floating],
    soft: bool = False,
) -> CodeSighting | None:
    """A :class:`CodeSighting` with the poses its code allows (None when the face carries no
    such code, e.g. a QR code on a Pic Flip front)."""
    found = _code_places(card, side, kind)
    if found is None:
        return None
    places, maps = found
    corners = np.asarray(corners_px, np.float32).reshape(4, 2)
    return CodeSighting(kind, card, side, corners, maps @ corners.astype(np.float64), places, soft)


@functools.cache
def _code_places(
    card: str, side: str, kind: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """(places (k, 4, 2) mm, maps (k, 4, 4)) of a face's codes of ``kind``: each code's
    square on the face, and the linear map from that code's four corners in the frame (px,
    the code's order) to the face's outline (TL, TR, BR, BL px); None when the face has no
    such code. Read-only arrays, the same for every sighting of that code.

    The map is an affine fit (least squares over the four corners, folded with the face's
    corners into one matrix), not a homography: a code is a fifth of the card or less, and
    a homography's perspective terms fitted to its corners (each good to a pixel) swing the
    far corners of the card by tens of pixels; over one card the camera's perspective is
    small (the outline is then snapped to the card's edges,
    :func:`vision.identify.quads.refine_quads`)."""
    size, markers, qr = face_geometry(card, side)
    rects = markers if kind == "marker" else (() if qr is None else (qr,))
    if not rects:
        return None
    places = np.stack([r.corners().astype(np.float64) for r in rects])
    outline = np.hstack([_face_corners_mm(size), np.ones((4, 1))])
    maps = np.stack([outline @ _pinv(p.tobytes()) for p in places])
    places.flags.writeable = False
    maps.flags.writeable = False
    return places, maps


# ---- the fast reader -----------------------------------------------------------------------


def _cell_ratios(grey: NDArray[np.uint8], quads: NDArray[np.float32]) -> NDArray[np.float64]:
    return _cell_read(grey, quads)[0]


def _cell_read(
    grey: NDArray[np.uint8], quads: NDArray[np.float32]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """:func:`_cell_ratios` (n, 6, 6), and each candidate's *spread* (n,): the median over
    its cells of the standard deviation of the cell's samples, as a share of the gap between
    its dark and light levels (1 when that gap is under :data:`_MIN_CONTRAST`). A 4 x 4
    marker's cells are each one level (on rendered tables, up to 0.14 at table distance,
    0.23 blurred); a square whose pattern has other cells (a 6 x 6 marker's 8) is read
    across their edges (0.4-0.65: :data:`MAX_CELL_SPREAD`)."""
    """(n, 6, 6) whiteness of each cell of each candidate (n, 4, 2): 0 at the mean grey
    level of the candidate's dark cells, 1 at that of its light cells (all 0 when its cells
    are all one level, within :data:`_MIN_CONTRAST`).

    Each cell's level is the mean of :data:`_CELL_SAMPLES` bilinear samples around its
    centre, half a cell across, mapped through the candidate's homography; the cells are
    split into dark and light by Otsu's method over the 36 cell levels (not over the
    pixels: blur puts many pixels between the two levels, and a sheen over a marker's
    middle lifts its dark cells, which pulled a per-pixel threshold into the dark cells)."""
    n = len(quads)
    if n == 0:
        return np.zeros((0, _CELLS, _CELLS)), np.zeros(0)
    unit = np.array([[0, 0], [_CELLS, 0], [_CELLS, _CELLS], [0, _CELLS]], np.float32)
    homs = np.stack([cv2.getPerspectiveTransform(unit, q.astype(np.float32)) for q in quads])
    centres = (np.stack(np.meshgrid(np.arange(_CELLS), np.arange(_CELLS)), -1) + 0.5).reshape(
        -1, 1, 2
    )
    pts = (centres + _CELL_SAMPLES).reshape(-1, 2)  # (36 * k, 2) in cells, row-major
    cx, cy = pts[:, 0], pts[:, 1]
    h = homs[:, :, :, None]  # (n, 3, 3, 1): each entry against every point
    w = h[:, 2, 0] * cx + h[:, 2, 1] * cy + h[:, 2, 2]
    samples = _sample_xy(  # (n, 36 * k)
        grey,
        (h[:, 0, 0] * cx + h[:, 0, 1] * cy + h[:, 0, 2]) / w,
        (h[:, 1, 0] * cx + h[:, 1, 1] * cy + h[:, 1, 2]) / w,
    )
    ratios, spread = cell_levels(samples.reshape(n, _CELLS * _CELLS, -1))
    return ratios.reshape(n, _CELLS, _CELLS), spread


def cell_levels(
    cells: NDArray[np.floating],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The whiteness (n, 36) and spread (n,) of :func:`_cell_read` from each cell's grey
    samples ``cells`` (n, 36, k): the cells split into dark and light by Otsu's method over
    their mean levels; all 0 (spread 1) where the two differ by less than
    :data:`_MIN_CONTRAST`."""
    levels = cells.mean(axis=2)
    dark, light = _otsu_classes(levels)
    span = light - dark
    contrast = span >= _MIN_CONTRAST
    ratios = np.where(
        contrast[:, None],
        np.clip((levels - dark[:, None]) / np.maximum(span, 1e-9)[:, None], 0.0, 1.0),
        0.0,
    )
    spread = np.where(contrast, np.median(cells.std(axis=2), axis=1) / np.maximum(span, 1e-9), 1.0)
    return ratios, spread


def _otsu_classes(
    levels: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Otsu's split of each row of ``levels`` (n, k): the mean of the dark class and of the
    light class, each (n,)."""
    v = np.sort(levels, axis=1)
    k = v.shape[1]
    count = np.arange(1, k)  # size of the dark class for each split
    low = np.cumsum(v, axis=1)[:, :-1]
    total = v.sum(axis=1, keepdims=True)
    mean_low = low / count
    mean_high = (total - low) / (k - count)
    between = count * (k - count) * (mean_high - mean_low) ** 2
    best = np.argmax(between, axis=1)
    rows = np.arange(len(v))
    return mean_low[rows, best], mean_high[rows, best]


def read_markers(grey: NDArray[np.uint8]) -> list[tuple[int, NDArray[np.float32]]]:
    """Kit card markers: (marker id, (4, 2) float32 corners in ArUco order)."""
    quads = np.concatenate([marker_quads(grey), large_marker_quads(grey)])
    return _read_quads(grey, quads)[0]


def read_fiducials(
    grey: NDArray[np.uint8], min_px: int = MIN_MARKER_PX
) -> list[tuple[int, NDArray[np.float32]]]:
    """The kit's markers that are on no card (``DICT_4X4_50``: the play area's, the Picasso
    board's) in a grey frame, at least ``min_px`` wide: (marker id, (4, 2) float32 corners in
    ArUco order, the contour's, to about a pixel). The search of :func:`read_markers`
    without its corner refinement (these markers are larger than a card's: 6 cells of 3 px
    and more read from the contour's corners)."""
    return _read_quads(grey, marker_quads(grey, min_px, refine=False), _fiducial_lookup())[0]


def _read_quads(
    grey: NDArray[np.uint8],
    quads: NDArray[np.float32],
    lookup: dict[int, tuple[int, int]] | None = None,
) -> tuple[list[tuple[int, NDArray[np.float32]]], NDArray[np.bool_]]:
    """The kit card markers (or those of ``lookup``, :func:`_kit_marker_lookup`'s shape)
    among dark square candidates ``quads`` (n, 4, 2): (marker id, (4, 2) float32 corners in
    ArUco order), and which candidates were read (n,) bool."""
    read = np.zeros(len(quads), bool)
    if len(quads) == 0:
        return [], read
    ratios, spread = _cell_read(grey, quads)  # (n, 6, 6) share of white per cell
    ring = np.ones((_CELLS, _CELLS), bool)
    ring[1:-1, 1:-1] = False
    border_wrong = (ratios[:, ring] > _BIT_THRESHOLD).sum(axis=1)
    inner = ratios[:, 1:-1, 1:-1].reshape(len(quads), -1)
    bits = inner > _BIT_THRESHOLD
    weights = np.left_shift(np.uint64(1), np.arange(16, dtype=np.uint64))
    packed = np.bitwise_or.reduce(np.where(bits, weights, np.uint64(0)), axis=1)
    framed = border_wrong <= _MAX_BORDER_WRONG
    if lookup is None:
        framed &= spread <= MAX_CELL_SPREAD  # a card's marker: 4 x 4 cells, each one level
    lookup = _kit_marker_lookup() if lookup is None else lookup
    named = [
        (k, *lookup[code])
        for k, code in zip(np.flatnonzero(framed).tolist(), packed[framed].tolist(), strict=True)
        if code in lookup
    ]
    if not named:
        return [], read
    index = np.array([k for k, _, _ in named])
    read[index] = True
    corners = quads[index[:, None], _ROTATED[[r for _, _, r in named]]]  # (m, 4, 2)
    centres = corners.mean(axis=1)
    # The same marker from an inner contour: a centre near one read before.
    side = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1).astype(np.float64)
    reach = (0.3 * side).astype(np.float32)  # compared in float32, as the distances are
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < reach[:, None]
    out: list[tuple[int, NDArray[np.float32]]] = []
    kept: list[int] = []
    for j, (_, marker, _) in enumerate(named):
        if not near[j, kept].any():
            kept.append(j)
            out.append((marker, corners[j]))
    return out, read


#: QR windows: finder patterns are dark squares of one size, their centres 2 to 4 of their
#: sides apart (versions 1 to 4), three to a code; a window reaches this many sides beyond
#: them, and is read at this scale.
_FINDER_SIZE_RATIO = 1.5
_FINDER_REACH = 4.5
_QR_MARGIN = 2.5
_FINDER_MIN_NEIGHBOURS = 2
_QR_UPSCALE = 2


def qr_windows(
    quads: NDArray[np.float32], shape: tuple[int, ...]
) -> list[tuple[int, int, int, int]]:
    """Where QR codes may be: (x0, y0, x1, y1) windows round every cluster of at least three
    dark squares of one size (within :data:`_FINDER_SIZE_RATIO`) whose centres lie within
    :data:`_FINDER_REACH` sides of one another (a QR code's three finder patterns), grown
    by :data:`_QR_MARGIN` sides; overlapping windows merged. ``quads`` (n, 4, 2) the
    candidates no marker was read from; ``shape`` the frame's (H, W).

    Why: zxing-cpp over a whole 1280 x 720 frame costs more than finding and reading its
    markers, while a kit QR code is readable only on a card close to the camera, where its
    finder patterns are among the dark squares already found."""
    if len(quads) < 3:
        return []
    centre = quads.mean(axis=1)
    side = np.linalg.norm(quads - np.roll(quads, -1, axis=1), axis=2).mean(axis=1)
    dist = np.linalg.norm(centre[:, None] - centre[None], axis=2)
    ratio = np.maximum(side[:, None], side[None]) / np.maximum(
        np.minimum(side[:, None], side[None]), 1e-9
    )
    near = (ratio <= _FINDER_SIZE_RATIO) & (dist <= _FINDER_REACH * side[:, None]) & (dist > 0)
    h, w = shape[:2]
    boxes: list[list[int]] = []
    for k in np.flatnonzero(near.sum(axis=1) >= _FINDER_MIN_NEIGHBOURS):
        group = [*np.flatnonzero(near[k]).tolist(), int(k)]
        pts = quads[group].reshape(-1, 2)
        pad = _QR_MARGIN * float(side[k])
        box = [
            max(0, int(pts[:, 0].min() - pad)),
            max(0, int(pts[:, 1].min() - pad)),
            min(w, int(np.ceil(pts[:, 0].max() + pad))),
            min(h, int(np.ceil(pts[:, 1].max() + pad))),
        ]
        for b in boxes:
            if box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]:
                b[:] = [min(b[0], box[0]), min(b[1], box[1]), max(b[2], box[2]), max(b[3], box[3])]
                break
        else:
            boxes.append(box)
    return [(b[0], b[1], b[2], b[3]) for b in boxes]


def read_qr_fast(
    grey: NDArray[np.uint8], windows: list[tuple[int, int, int, int]] | None = None
) -> list[tuple[str, NDArray[np.float32]]]:
    """QR codes read by zxing-cpp, without its inverted, rotated and downscaled passes (kit
    codes are printed dark on light): (text, (4, 2) float32 corners, the code's order).
    ``windows``: (x0, y0, x1, y1) regions to read (:func:`qr_windows`); None: the whole
    frame."""
    from vision.codes.qr import zxing_read

    if windows is None:
        return [(r.text, np.asarray(r.quad, np.float32)) for r in zxing_read(grey, quick=True)[0]]
    out: list[tuple[str, NDArray[np.float32]]] = []
    for x0, y0, x1, y1 in windows:
        # Twice the size (cubic): zxing-cpp reads codes of 2 px a module there that it misses
        # at their own size (on rendered tables, more codes than over the whole frame).
        crop = cv2.resize(
            grey[y0:y1, x0:x1], None, fx=_QR_UPSCALE, fy=_QR_UPSCALE, interpolation=cv2.INTER_CUBIC
        )
        offset = np.array([x0, y0], np.float32)
        out.extend(
            (r.text, (np.asarray(r.quad, np.float32) + 0.5) / _QR_UPSCALE - 0.5 + offset)
            for r in zxing_read(crop, quick=True)[0]
        )
    return out


def read_sightings(
    frame: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    reader: CodeReader = "fast",
    *,
    qr: bool = True,
    game: str | None = None,
    unread: list[NDArray[np.float32]] | None = None,
    rough: list[NDArray[np.float32]] | None = None,
) -> list[CodeSighting]:
    """Every kit-card code in a frame, as :class:`CodeSighting`; codes of no card ignored.

    ``frame`` (H, W, 3) uint8 BGR and its ``grey`` (H, W) uint8; ``reader``: ``"fast"`` or
    ``"full"`` (see the module docstring); ``qr``: read QR codes too; ``game``: the game
    whose cards are on the table: markers of other games' cards are ignored, and its own
    that are not read bit for bit are also named by their likeness
    (:func:`vision.identify.likeness.soft_markers`), and those left off the cards placed
    by their correlation with the markers as blur shows them or with their partner
    (:func:`vision.identify.marker_pairs.unread_sightings`): sightings marked ``soft``.
    ``unread``: when given a list, the dark squares left unread (n, 4, 2) are put in it and
    not read further here: the caller reads them once it has voted the cards. ``rough``:
    with a ``game``, when given a list, the dark blobs traced to no quadrilateral that fit a
    square (:func:`marker_quads`), off the squares read and unread, (k, 4, 2) are put in it,
    their corners unrefined: less sure, they name no card alone here."""
    markers: list[tuple[int, NDArray[np.float32]]] = []
    texts: list[tuple[str, NDArray[np.float32]]] = []
    soft: list[tuple[int, NDArray[np.float32]]] = []
    if reader == "full":
        # Every decoder and fallback, and the fast reader too: what the fast reader reads,
        # the full one reads as well (a code both read is kept once, the fast reading's
        # corners first).
        markers, texts, soft, left, fitted = _fast_codes(grey, qr, game)
        from vision.codes import decode_frame

        more: list[tuple[int, NDArray[np.float32]]] = []
        for code in decode_frame(frame, ["DICT_4X4_1000"], qr=qr):
            if code.kind == "aruco" and code.id is not None:
                more.append((int(code.id), np.asarray(code.corners_px, np.float32)))
            elif code.kind == "qr" and code.text is not None:
                corners = np.asarray(code.corners_px, np.float32)
                if not _seen(code.text, corners, texts):
                    texts.append((code.text, corners))
        if more:
            # decode_frame's marker corners are the contour's (OpenCV's default): to the
            # edge, as the fast reader's, so that two markers fit the card within a pixel.
            edges = refine_marker_corners(grey, np.stack([c for _, c in more]))
            for k, (m, _) in enumerate(more):
                if not _seen(m, edges[k], markers):
                    markers.append((m, edges[k]))
    elif reader == "fast":
        markers, texts, soft, left, fitted = _fast_codes(grey, qr, game)
    else:
        raise ValueError(f"unknown code reader {reader!r}; expected one of {list(CODE_READERS)}")
    out: list[CodeSighting] = []
    for marker, corners in markers:
        named = card_for_marker(marker)
        if named is None or (game is not None and not named[0].startswith(f"{game}-")):
            # Only the game's cards are on the table: another marker is a pattern that
            # happens to match one (a QR code, checksummed, still names its card).
            continue
        s = sighting("marker", named[0], named[1], corners)
        if s is not None:
            out.append(s)
    for marker, corners in soft:
        named = card_for_marker(marker)
        if named is None or _seen(marker, corners, markers):
            continue
        s = sighting("marker", named[0], named[1], corners, soft=True)
        if s is not None:
            out.append(s)
    for text, corners in texts:
        named = parse_payload(text)
        if named is None:
            continue
        s = sighting("qr", named[0], named[1], corners)
        if s is not None:
            out.append(s)
    if rough is not None:
        rough.append(fitted)
    if unread is not None:
        unread.append(left)
    elif game is not None and len(left):
        from vision.identify.marker_pairs import unread_sightings

        out += unread_sightings(grey, vote(out), left, game)
    return out


def _fast_codes(
    grey: NDArray[np.uint8], qr: bool, game: str | None = None
) -> tuple[
    list[tuple[int, NDArray[np.float32]]],
    list[tuple[str, NDArray[np.float32]]],
    list[tuple[int, NDArray[np.float32]]],
    NDArray[np.float32],
    NDArray[np.float32],
]:
    """The fast reader's markers (id, corners), QR texts (text, corners) and, with a
    ``game``, the markers of its cards read by likeness
    (:func:`vision.identify.likeness.soft_markers`) of a frame, the dark squares left
    unread (n, 4, 2) and the rough squares off them all (k, 4, 2: :func:`marker_quads`'
    ``rough``, not read) (none without a ``game``)."""
    rough: list[NDArray[np.float32]] = []
    quads = marker_quads(grey, rough=rough if game is not None else None)
    # Large markers after the others (the same marker read twice keeps its first reading);
    # QR codes' finder patterns looked for among the others only, as they were: shrunk 4
    # times, whole cards and their backs' patterns are dark squares too.
    markers, read = _read_quads(grey, np.concatenate([quads, large_marker_quads(grey)]))
    texts: list[tuple[str, NDArray[np.float32]]] = []
    if qr:
        texts = read_qr_fast(grey, qr_windows(quads[~read[: len(quads)]], grey.shape))
    soft = []
    left = more = np.zeros((0, 4, 2), np.float32)
    if game is not None:
        from vision.identify.likeness import game_marker_ids, soft_markers

        # Not a square inside (or round) a marker read bit for bit: its inner or outer
        # contour, or a speck of it.
        unread = quads[~read[: len(quads)]]
        soft = [
            (m, c)
            for m, c in soft_markers(grey, unread, game_marker_ids(game))
            if not any(_inside(c, q) for _, q in markers)
        ]
        named = [c for _, c in [*markers, *soft]]
        left = unread[~_inside_any(unread, np.array(named, np.float32).reshape(-1, 4, 2))]
        # Blobs traced to no quadrilateral: not read here (their corners are less sure), but
        # left for the steps that read a card's two squares together.
        seen = np.concatenate([left, np.array(named, np.float32).reshape(-1, 4, 2)])
        more = rough[0][~_inside_any(rough[0], seen)]
    return markers, texts, soft, left, more


def _inside_any(a: NDArray[np.float32], b: NDArray[np.float32]) -> NDArray[np.bool_]:
    """:func:`_inside` of each of squares ``a`` (n, 4, 2) and any of ``b`` (m, 4, 2): (n,)."""
    if not len(a) or not len(b):
        return np.zeros(len(a), bool)
    d = np.linalg.norm(a.mean(axis=1)[:, None] - b.mean(axis=1)[None], axis=2)
    sa = np.linalg.norm(a[:, 0] - a[:, 1], axis=1)
    sb = np.linalg.norm(b[:, 0] - b[:, 1], axis=1)
    return np.asarray((d < 0.5 * np.maximum(sa[:, None], sb[None])).any(axis=1))


def _inside(a: NDArray[np.float32], b: NDArray[np.float32]) -> bool:
    """Whether the centre of quad ``a`` lies within half ``b``'s side of ``b``'s centre, or
    ``b``'s within half ``a``'s of ``a``'s."""
    d = float(np.linalg.norm(a.mean(axis=0) - b.mean(axis=0)))
    return d < 0.5 * max(float(np.linalg.norm(a[0] - a[1])), float(np.linalg.norm(b[0] - b[1])))


def _seen(
    code: object, corners: NDArray[np.float32], found: list[tuple[object, NDArray[np.float32]]]
) -> bool:
    """Whether ``code`` was already read at about the place of ``corners`` (its centre within
    half the code's size of the other reading's)."""
    centre = corners.reshape(-1, 2).mean(axis=0)
    size = float(np.linalg.norm(corners.reshape(-1, 2)[0] - corners.reshape(-1, 2)[2]))
    for other, c in found:
        if other == code and np.linalg.norm(c.reshape(-1, 2).mean(axis=0) - centre) < 0.5 * size:
            return True
    return False


# ---- votes: one card from its codes ----------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CodeCard:
    """A kit card named by its codes: ``card``, ``side``, ``corners_px`` (4, 2) float64 (the
    best pose), ``alternatives`` (k, 4, 2) other poses still possible (a lone marker: the
    other corner), ``codes``: the sightings that agree, ``disagree``: sightings of the same
    place naming another card or side (outvoted), ``spanned``: the outline was fitted by a
    homography to codes at opposite corners of the face (within a pixel on rendered tables:
    snapping it to the card's edges only makes it worse where a shadow or another card
    runs beside them)."""

    card: str
    side: Side
    corners_px: NDArray[np.float64]
    alternatives: NDArray[np.float64]
    codes: tuple[CodeSighting, ...]
    disagree: int = 0
    spanned: bool = False

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(c.kind for c in self.codes)


def vote(sightings: list[CodeSighting]) -> list[CodeCard]:
    """Group sightings into cards: codes whose poses agree (corners within a fifth of the
    card's size) are one card; per card id, the place with the most codes wins (a QR code
    counts two: it carries a checksum), and a place whose codes name different sides goes to
    the majority. ``disagree`` counts the other cards named at a card's place."""
    if not sightings:
        return []
    places = _best_places(sightings)
    fitted = _fit_outlines([(face_geometry(card, side)[0], agree) for card, side, agree in places])
    corners = np.stack([c for c, _ in fitted])  # (k, 4, 2)
    centres = corners.mean(axis=1)
    sizes = np.linalg.norm(corners[:, 2] - corners[:, 0], axis=1)
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) < 0.2 * sizes[:, None]
    np.fill_diagonal(near, False)
    disagree = near.sum(axis=1).tolist()
    return [
        CodeCard(card, side, c, _alternatives(agree), tuple(t for t, _ in agree), n, spanned)
        for (card, side, agree), (c, spanned), n in zip(places, fitted, disagree, strict=True)
    ]


def _fit_outlines(
    places: list[tuple[tuple[float, float], list[tuple[CodeSighting, int]]]],
) -> list[tuple[NDArray[np.float64], bool]]:
    """Each card's outline (4, 2) px, and whether it was fitted by a homography, from its
    ``places`` entry: the face's size (w, h) mm and the codes that agree on its place (each
    with the index of its pose there). One code: its pose. Codes far apart on the face (two
    corners): a homography, which is well conditioned there; otherwise (or when it is
    degenerate) an affine map fitted to all their corners (face mm -> px). The homographies
    of a frame are solved together (:func:`_lstsq_homographies`)."""
    out: list[tuple[NDArray[np.float64], bool] | None] = []
    spans: dict[int, list[int]] = {}  # number of code corners -> cards to fit by homography
    fits: dict[int, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
    for k, (size, agree) in enumerate(places):
        if len(agree) == 1:
            t, j = agree[0]
            out.append((t.poses[j], False))
            continue
        src = np.concatenate([t.places_mm[j] for t, j in agree])
        fits[k] = src, np.concatenate([t.corners_px for t, _ in agree]).astype(np.float64)
        out.append(None)
        if np.ptp(src, axis=0).min() > 0.5 * min(size):
            spans.setdefault(len(src), []).append(k)
    for index in spans.values():
        homs, ok = _lstsq_homographies(
            np.stack([fits[k][0] for k in index]), np.stack([fits[k][1] for k in index])
        )
        faces = np.stack([_face_corners_mm(places[k][0]) for k in index])
        pts = np.concatenate([faces, np.ones((len(index), 4, 1))], axis=2) @ homs.transpose(0, 2, 1)
        ok &= (pts[..., 2] > 1e-9).all(axis=1)
        for k, p, good in zip(index, pts, ok.tolist(), strict=True):
            if good:
                out[k] = (p[:, :2] / p[:, 2:], True)
    return [
        found
        if found is not None
        else (_affine_apply(_affine(*fits[k]), _face_corners_mm(places[k][0])), False)
        for k, found in enumerate(out)
    ]


def _lstsq_homographies(
    src: NDArray[np.float64], dst: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """(k, 3, 3) least-squares homographies of (k, n, 2) points ``src`` onto ``dst`` (n >=
    4; the last entry fixed to 1), and which are well defined (k,) bool (rank 8: not
    degenerate). Solved directly, all at once by one batched SVD (as ``np.linalg.lstsq``:
    singular values below ``eps * 2n`` of the largest count as zero): OpenCV's
    ``findHomography`` costs ten times more for the eight corners of two codes."""
    k, n = src.shape[:2]
    x, y = src[..., 0], src[..., 1]
    u, v = dst[..., 0], dst[..., 1]
    a = np.zeros((k, 2 * n, 8))
    a[:, :n, 0], a[:, :n, 1], a[:, :n, 2] = x, y, 1.0
    a[:, n:, 3], a[:, n:, 4], a[:, n:, 5] = x, y, 1.0
    a[:, :n, 6], a[:, :n, 7] = -u * x, -u * y
    a[:, n:, 6], a[:, n:, 7] = -v * x, -v * y
    left, sv, right = np.linalg.svd(a, full_matrices=False)
    rank = (sv > np.finfo(np.float64).eps * 2 * n * sv[:, :1]).sum(axis=1)
    inverse = np.where(rank[:, None] == 8, 1.0 / np.maximum(sv, 1e-300), 0.0)
    coef = np.einsum("kmi,km->ki", left, np.concatenate([u, v], axis=1)) * inverse
    sol = np.einsum("kij,ki->kj", right, coef)
    homs = np.concatenate([sol, np.ones((k, 1))], axis=1).reshape(k, 3, 3)
    return homs, rank == 8


def _weight(s: CodeSighting) -> int:
    return 2 if s.kind == "qr" else 1


def _best_places(
    sightings: list[CodeSighting],
) -> list[tuple[str, Side, list[tuple[CodeSighting, int]]]]:
    """Each card's place backed by the most of its codes: (card, the side the majority of
    those codes name, those codes each with the index of its pose there), cards in the order
    of their first code.

    Each pose of each code is a candidate place of its card; a code of the same card backs
    it when one of its poses lies within a fifth of the candidate's diagonal (its first such
    pose is the one used). The most weight wins (:func:`_weight`), then the candidate of the
    code with fewer poses, then the earlier candidate. All codes of a frame are compared in
    one pass."""
    names = list(dict.fromkeys(s.card for s in sightings))
    number = {card: k for k, card in enumerate(names)}
    counts = [len(s.poses) for s in sightings]
    starts = np.cumsum([0, *counts[:-1]])
    poses = np.concatenate([s.poses for s in sightings])  # (m, 4, 2)
    card_of = np.repeat([number[s.card] for s in sightings], counts)
    tol = 0.2 * np.linalg.norm(poses[:, 2] - poses[:, 0], axis=1)
    flat = poses.reshape(len(poses), -1)
    # close[a, b]: pose b, of the same card, lies within candidate a's tolerance.
    close = (np.abs(flat[None] - flat[:, None]).max(axis=2) < tol[:, None]) & (
        card_of[:, None] == card_of[None]
    )
    backs = np.logical_or.reduceat(close, starts, axis=1)  # (m, codes)
    weight = backs @ np.array([_weight(s) for s in sightings])
    owner_poses = np.repeat(counts, counts)
    key = weight * (owner_poses.max() + 1) - owner_poses
    out: list[tuple[str, Side, list[tuple[CodeSighting, int]]]] = []
    for k, card in enumerate(names):
        candidates = np.flatnonzero(card_of == k)
        best = int(candidates[np.argmax(key[candidates])])
        members = [
            (sightings[i], int(np.argmax(close[best, starts[i] : starts[i] + counts[i]])))
            for i in np.flatnonzero(backs[best]).tolist()
        ]
        votes = {"front": 0, "back": 0}
        for t, _ in members:
            votes[t.side] += _weight(t)
        side: Side = "front" if votes["front"] >= votes["back"] else "back"
        out.append((card, side, [(t, j) for t, j in members if t.side == side]))
    return out


def _alternatives(agree: list[tuple[CodeSighting, int]]) -> NDArray[np.float64]:
    """(k, 4, 2) the other poses of a card named by one marker alone (it may be either of its
    face's two); none otherwise."""
    if len(agree) == 1 and agree[0][0].kind == "marker":
        t, j = agree[0]
        return np.delete(t.poses, j, axis=0)
    return np.zeros((0, 4, 2))
