"""Square fiducials (ArUco and AprilTag dictionaries), many dictionaries in one pass.

OpenCV finds the candidate squares; the identification is done here. OpenCV 5.0's
``ArucoDetector`` compares each candidate with the codes of the dictionary one by one, 4 to
7 microseconds per code, so a 1000-code dictionary costs about 6 ms per candidate square: a
chessboard photo (40 squares) takes a quarter of a second, per dictionary. Here all the codes
of all the requested dictionaries, in their four rotations, are packed into 64-bit integers
and compared with all the candidates at once, and the candidates are found once for all
dictionaries: five 1000-code dictionaries cost less than OpenCV's one.

The steps and thresholds are OpenCV's default detector parameters, so the ids and corners
are OpenCV's: adaptive thresholds at windows 3, 13 and 23 px, square convex contours, each
candidate unwarped at 4 px per cell, Otsu, cells read inside a 13% margin, at most 35% of
the border cells wrong, up to 60% of the dictionary's correctable bits corrected; corners
are the contour's corners, unrefined (OpenCV's default). Checked: the same ids and corners
as ``ArucoDetector`` on every shared photo, and the same ids on generated scenes
(tests/codes/test_markers.py). Differences: every square is tried, nested ones included
(OpenCV tries a group of close squares until one matches), detections of one marker are
merged (fewest corrected cells, then the dictionary asked first, then the largest outline),
the closest code is taken rather than the first within tolerance, and a marker must span at
least :data:`MIN_CELL_PX` pixels per cell (a 10-pixel speck in a chessboard photo read as a
5x5 marker otherwise).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.codes.reading import Code, same_place

#: Every predefined dictionary, by its canonical name (AprilTag names as OpenCV writes them).
PREDEFINED: tuple[str, ...] = (
    "DICT_4X4_50", "DICT_4X4_100", "DICT_4X4_250", "DICT_4X4_1000",
    "DICT_5X5_50", "DICT_5X5_100", "DICT_5X5_250", "DICT_5X5_1000",
    "DICT_6X6_50", "DICT_6X6_100", "DICT_6X6_250", "DICT_6X6_1000",
    "DICT_7X7_50", "DICT_7X7_100", "DICT_7X7_250", "DICT_7X7_1000",
    "DICT_ARUCO_ORIGINAL", "DICT_ARUCO_MIP_36h12",
    "DICT_APRILTAG_16h5", "DICT_APRILTAG_25h9", "DICT_APRILTAG_36h10", "DICT_APRILTAG_36h11",
)  # fmt: skip

#: What ``decode`` looks for unless told otherwise. Measured (``python -m
#: tests.codes.aruco_fp``): no dictionary, alone, finds a false marker in the 121 ZXing QR
#: photos or the 13 photos without markers, so the choice rests on the false-match rate per
#: square candidate that passes the border test, codes x 4 rotations x correctable
#: patterns / 2^cells: DICT_4X4_50 (the kit's) 0.3%, but DICT_4X4_1000 6% (16 cells, none
#: corrected: a packaging icon in OpenCV's marker photo reads as DICT_4X4 id 17 in every
#: 4x4 dictionary), DICT_5X5_250 0.08%, DICT_6X6_250 0.01%, DICT_7X7_250 4e-7,
#: DICT_APRILTAG_36h11 0.03% (DICT_APRILTAG_16h5: 3%). The _250 sizes are the usual choice
#: (OpenCV's tutorials print DICT_6X6_250); larger dictionaries, AprilTag 16h5/25h9/36h10 and
#: ArUco original are available by name.
DEFAULT_DICTIONARIES: tuple[str, ...] = (
    "DICT_4X4_50",
    "DICT_5X5_250",
    "DICT_6X6_250",
    "DICT_7X7_250",
    "DICT_APRILTAG_36h11",
)

#: Smallest accepted marker: pixels per cell (cells counted with the black border).
MIN_CELL_PX = 2.0

# OpenCV's default DetectorParameters (the candidate search's are OpenCV's own, in
# :func:`candidates`).
_CELL_PX = 4
_CELL_MARGIN_RATE = 0.13
_MIN_OTSU_STDDEV = 5.0
_MAX_BORDER_ERROR_RATE = 0.35
_ERROR_CORRECTION_RATE = 0.6
_VALID_BIT_THRESHOLD = 0.49

_NEXT = np.array([1, 2, 3, 0])  # the next corner of a quad


@dataclass(frozen=True, eq=False)
class MarkerDictionary:
    """A dictionary of square markers, ready for matching.

    ``name``: how it is reported (``"DICT_6X6_250"``, or a custom file's name).
    ``bits``: the marker side in cells, without the border. ``codes``: (n, 4) uint64, each
    marker's cells (row-major, 1 = white) in its four rotations (0, 90, 180, 270 degrees
    counter-clockwise, as ``np.rot90``). ``max_errors``: cells that may be wrong.
    """

    name: str
    bits: int
    codes: NDArray[np.uint64]
    max_errors: int

    @classmethod
    def from_opencv(cls, name: str, d: cv2.aruco.Dictionary) -> MarkerDictionary:
        s = int(d.markerSize)
        if not 2 <= s <= 8:
            raise ValueError(f"marker dictionary {name!r}: {s}x{s} cells not supported (2 to 8)")
        n = int(d.bytesList.shape[0])
        if n == 0:
            raise ValueError(f"marker dictionary {name!r} has no markers")
        bits = np.stack([np.asarray(d.getMarkerBits(i), bool) for i in range(n)])
        rots = np.stack([np.rot90(bits, k, axes=(1, 2)) for k in range(4)], axis=1)
        codes = _pack(rots.reshape(n, 4, s * s))
        max_errors = int(int(d.maxCorrectionBits) * _ERROR_CORRECTION_RATE)
        return cls(name, s, codes, max_errors)

    def __len__(self) -> int:
        return int(self.codes.shape[0])


def _pack(bits: NDArray[np.bool_]) -> NDArray[np.uint64]:
    """(..., k) bool with k <= 64 -> (...) uint64, bit i = cell i."""
    weights = np.left_shift(np.uint64(1), np.arange(bits.shape[-1], dtype=np.uint64))
    packed = np.bitwise_or.reduce(np.where(bits, weights, np.uint64(0)), axis=-1)
    return np.asarray(packed, dtype=np.uint64)


def canonical_name(name: str) -> str | None:
    """The predefined dictionary ``name`` stands for (case-insensitive, ``DICT_`` optional,
    ``APRILTAG_36H11`` = ``DICT_APRILTAG_36h11``), or None."""
    key = name.strip().upper()
    if not key.startswith("DICT_"):
        key = "DICT_" + key
    for p in PREDEFINED:
        if p.upper() == key:
            return p
    return None


@functools.lru_cache(maxsize=64)
def _predefined(name: str) -> MarkerDictionary:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
    return MarkerDictionary.from_opencv(name, d)


@functools.lru_cache(maxsize=16)
def _from_file(path: str, mtime_ns: int) -> MarkerDictionary:
    storage = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    try:
        if not storage.isOpened():
            raise ValueError(f"cannot read marker dictionary file {path}")
        d = cv2.aruco.Dictionary()
        if not d.readDictionary(storage.root()):
            raise ValueError(
                f"{path} is not an OpenCV marker dictionary (nmarkers, markersize, marker_N)"
            )
    except cv2.error as exc:
        raise ValueError(f"cannot read marker dictionary file {path}: {exc.err}") from None
    finally:
        storage.release()
    return MarkerDictionary.from_opencv(Path(path).name, d)


def load_dictionary(spec: str | os.PathLike[str]) -> MarkerDictionary:
    """A dictionary by name (``"DICT_4X4_50"``, ``"apriltag_36h11"``) or by the path of an
    OpenCV dictionary file (YAML/JSON/XML written by ``Dictionary.writeDictionary``, such as
    OpenCV's ``tutorial_dict.yml``). Raises ``ValueError`` naming the known dictionaries."""
    text = os.fspath(spec)
    name = canonical_name(text)
    if name is not None:
        return _predefined(name)
    path = Path(text)
    if path.suffix.lower() in (".yml", ".yaml", ".json", ".xml") or path.exists():
        try:
            mtime = path.stat().st_mtime_ns
        except OSError as exc:
            raise ValueError(f"cannot read marker dictionary file {text}: {exc.strerror}") from None
        return _from_file(str(path), mtime)
    raise ValueError(
        f"unknown marker dictionary {text!r}; known: {', '.join(PREDEFINED)}, "
        "or the path of an OpenCV dictionary file (.yml)"
    )


def resolve_dictionaries(
    specs: Sequence[str | os.PathLike[str] | MarkerDictionary] | None,
) -> tuple[MarkerDictionary, ...]:
    """:func:`load_dictionary` for each spec (None: :data:`DEFAULT_DICTIONARIES`)."""
    if specs is None:
        specs = DEFAULT_DICTIONARIES
    if isinstance(specs, str | os.PathLike):
        raise ValueError("dictionaries must be a sequence of names, got a single string")
    return tuple(s if isinstance(s, MarkerDictionary) else load_dictionary(s) for s in specs)


# ---- detection -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hit:
    dictionary: MarkerDictionary
    order: int  # the dictionary's position in the request (earlier wins ties)
    id: int
    corners: NDArray[np.float32]  # (4, 2), marker order
    errors: int
    perimeter: float


def candidates(grey: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Square candidates in a (h, w) uint8 image: (n, 4, 2) float32 corners in pixels,
    clockwise on screen (OpenCV's candidate search with its default parameters, every
    square kept).

    OpenCV's detector, given a one-marker dictionary, finds the squares and returns them as
    rejected; with its default parameters it returns only one of squares that lie close
    together (a marker inside its white margin inside a dark card: only the outermost), so
    its ``minMarkerDistanceRate`` is set to 0 here: it then returns every square its
    thresholds show. (Before, the close squares were searched again from Python around each
    square returned, at twice the cost; that search found no square OpenCV now returns, and
    missed 10 it returns, on 20 rendered tables and the shared photos, where every marker
    read stayed the same. ``python -m pictable.bench.readers.decode`` times the reader
    against OpenCV's detector.)
    """
    found, _, rejected = _square_finder().detectMarkers(grey)  # ids: none match
    quads = [np.asarray(q, np.float32).reshape(4, 2) for q in (*found, *rejected)]
    if not quads:
        return np.zeros((0, 4, 2), np.float32)
    q = np.stack(quads)
    v1, v2 = q[:, 1] - q[:, 0], q[:, 2] - q[:, 0]
    flip = v1[:, 0] * v2[:, 1] - v1[:, 1] * v2[:, 0] < 0
    q[flip] = q[flip][:, [0, 3, 2, 1]]
    _, first = np.unique(q.reshape(len(q), -1), axis=0, return_index=True)
    return q[np.sort(first)]


def _square_finder() -> cv2.aruco.ArucoDetector:
    """OpenCV's detector with its default parameters, every square kept, and a one-marker
    dictionary: its rejected candidates are the squares. Built per call (0.01 ms): a shared
    detector would be used by several threads at once."""
    seed = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    one = cv2.aruco.Dictionary(seed.bytesList[49:50].copy(), 4, 0)
    params = cv2.aruco.DetectorParameters()
    params.minMarkerDistanceRate = 0.0
    return cv2.aruco.ArucoDetector(one, params)


def _homographies(quads: NDArray[np.float32], size: int) -> NDArray[np.float64]:
    """(n, 3, 3): for each quad, the map from the unwarped (size x size) patch's pixel
    (u, v) to the image (the inverse of ``getPerspectiveTransform(quad, patch corners)``)."""
    n = len(quads)
    s = float(size - 1)
    src = np.array([[0, 0], [s, 0], [s, s], [0, s]])
    a = np.zeros((n, 8, 8))
    b = quads.reshape(n, 8).astype(np.float64)
    for i, (u, v) in enumerate(src):
        x, y = b[:, 2 * i], b[:, 2 * i + 1]
        a[:, 2 * i, 0:3] = (u, v, 1)
        a[:, 2 * i, 6], a[:, 2 * i, 7] = -u * x, -v * x
        a[:, 2 * i + 1, 3:6] = (u, v, 1)
        a[:, 2 * i + 1, 6], a[:, 2 * i + 1, 7] = -u * y, -v * y
    ok = np.abs(np.linalg.det(a)) > 1e-9
    h = np.zeros((n, 9))
    h[ok, :8] = np.linalg.solve(a[ok], b[ok][:, :, None])[:, :, 0]
    h[:, 8] = 1.0
    return h.reshape(n, 3, 3)


def _otsu(patches: NDArray[np.uint8]) -> NDArray[np.int64]:
    """(n,) Otsu threshold of each (k,) uint8 row, as ``cv2.threshold`` picks it (the first
    level with the largest between-class variance)."""
    n, k = patches.shape
    idx = (np.arange(n)[:, None] * 256 + patches).ravel()
    hist = np.bincount(idx, minlength=n * 256).reshape(n, 256).astype(np.float64) / k
    levels = np.arange(256, dtype=np.float64)
    w0 = np.cumsum(hist, axis=1)
    m0 = np.cumsum(hist * levels, axis=1)
    mu = m0[:, -1:]
    w1 = 1.0 - w0
    with np.errstate(divide="ignore", invalid="ignore"):
        between = w0 * w1 * (m0 / w0 - (mu - m0) / w1) ** 2
    between = np.where((w0 > 1e-12) & (w1 > 1e-12), between, -1.0)
    return np.asarray(np.argmax(between, axis=1), dtype=np.int64)


def cell_ratios(
    grey: NDArray[np.uint8], quads: NDArray[np.float32], cells: int
) -> NDArray[np.float64]:
    """(n, cells, cells): each candidate's share of white pixels per cell (border included),
    read as OpenCV reads it: the candidate unwarped at 4 px per cell (nearest pixel), Otsu's
    threshold (or all black/white when the inside is flat), cells read inside a margin."""
    n = len(quads)
    size = cells * _CELL_PX
    h, w = grey.shape
    uv = np.stack(np.meshgrid(np.arange(size), np.arange(size)), axis=-1).reshape(-1, 2)
    uv1 = np.concatenate([uv, np.ones((len(uv), 1))], axis=1).astype(np.float64)
    xyz = np.matmul(uv1[None], _homographies(quads, size).transpose(0, 2, 1))  # (n, k, 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.rint(xyz[:, :, 0] / xyz[:, :, 2])
        y = np.rint(xyz[:, :, 1] / xyz[:, :, 2])
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    xi = np.where(inside, x, 0).astype(np.intp)
    yi = np.where(inside, y, 0).astype(np.intp)
    patch = np.where(inside, grey[yi, xi], 0).astype(np.uint8)  # (n, size*size)
    half = _CELL_PX // 2
    square = patch.reshape(n, size, size)
    inner = square[:, half : size - half, half : size - half].reshape(n, -1).astype(np.float64)
    flat = inner.std(axis=1) < _MIN_OTSU_STDDEV
    white = (patch > _otsu(patch)[:, None]).reshape(n, cells, _CELL_PX, cells, _CELL_PX)
    m = int(_CELL_MARGIN_RATE * _CELL_PX)
    ratios = white[:, :, m : _CELL_PX - m, :, m : _CELL_PX - m].mean(axis=(2, 4))
    flat_value = (inner.mean(axis=1) > 127).astype(np.float64)
    return np.asarray(np.where(flat[:, None, None], flat_value[:, None, None], ratios), np.float64)


def detect_markers(
    grey: NDArray[np.uint8],
    dictionaries: Sequence[MarkerDictionary],
    *,
    quads: NDArray[np.float32] | None = None,
) -> list[Code]:
    """Markers of ``dictionaries`` in a (h, w) uint8 grey image, each once.

    Corners are (4, 2) float32 pixels in ArUco order (the marker's own top-left, top-right,
    bottom-right, bottom-left). A marker that matches several dictionaries at the same place
    is reported in the one with the fewest corrected cells (then the earlier requested).
    ``quads``: the image's :func:`candidates`, when the caller already has them.
    """
    if not dictionaries:
        return []
    if quads is None:
        quads = candidates(grey)
    if len(quads) == 0:
        return []
    perimeters = np.sqrt(((quads - quads[:, _NEXT]) ** 2).sum(axis=2)).sum(axis=1)
    hits: list[_Hit] = []
    by_bits: dict[int, list[tuple[int, MarkerDictionary]]] = {}
    for order, d in enumerate(dictionaries):
        by_bits.setdefault(d.bits, []).append((order, d))
    for bits, group in by_bits.items():
        cells = bits + 2
        big = np.flatnonzero(perimeters / 4 >= MIN_CELL_PX * cells)
        if len(big) == 0:
            continue
        ratios = cell_ratios(grey, quads[big], cells)
        ring = np.ones((cells, cells), bool)
        ring[1:-1, 1:-1] = False
        border_ok = (ratios[:, ring] > _VALID_BIT_THRESHOLD).sum(axis=1) <= int(
            bits * bits * _MAX_BORDER_ERROR_RATE
        )
        big, ratios = big[border_ok], ratios[border_ok]
        if len(big) == 0:
            continue
        inner = ratios[:, 1:-1, 1:-1].reshape(len(big), -1)
        weights = np.left_shift(np.uint64(1), np.arange(bits * bits, dtype=np.uint64))
        # A cell is "not black" above the threshold and "not white" below 1 - threshold; a
        # code's cell is wrong when it is black but the cell is not black, or white and the
        # cell is not white (OpenCV's rule: a grey cell is wrong either way).
        zero = np.uint64(0)
        not_black = np.bitwise_or.reduce(
            np.where(inner > _VALID_BIT_THRESHOLD, weights, zero), axis=1
        )
        not_white = np.bitwise_or.reduce(
            np.where(inner < 1 - _VALID_BIT_THRESHOLD, weights, zero), axis=1
        )
        for order, d in group:
            codes = d.codes[None]  # (1, n_codes, 4)
            wrong = np.bitwise_count(
                (~codes & not_black[:, None, None]) | (codes & not_white[:, None, None])
            )  # (candidates, n_codes, 4)
            per_code = wrong.min(axis=2)
            # The closest code (OpenCV takes the first within tolerance; with several within
            # it, the closest is the better answer).
            best = np.argmin(per_code, axis=1)
            for k in np.flatnonzero(per_code[np.arange(len(big)), best] <= d.max_errors):
                code_id = int(best[k])
                rotation = int(np.argmin(wrong[k, code_id]))
                q = quads[big[k]]
                corners = np.roll(q, rotation, axis=0)
                errors = int(wrong[k, code_id, rotation])
                hits.append(_Hit(d, order, code_id, corners, errors, float(perimeters[big[k]])))
    return [_code(h) for h in _merge(hits)]


def _merge(hits: list[_Hit]) -> list[_Hit]:
    """One hit per place: fewest errors, then requested first, then the largest outline.

    Two hits are one marker when their centres are closer than a quarter of the smaller
    side (outlines from different threshold windows), or when one outline lies on the other
    (inner and outer contour of one marker)."""
    hits = sorted(hits, key=lambda h: (h.errors, h.order, -h.perimeter))
    kept: list[_Hit] = []
    centres = np.zeros((len(hits), 2))
    sides = np.zeros(len(hits))
    for h in hits:
        c = h.corners.mean(axis=0)
        side = h.perimeter / 4
        if kept:
            n = len(kept)
            dist = np.sqrt(((centres[:n] - c) ** 2).sum(axis=1))
            if (dist < 0.25 * np.minimum(sides[:n], side)).any():
                continue
            near = np.flatnonzero(dist < sides[:n] + side)
            if any(same_place(h.corners, kept[i].corners) for i in near):
                continue
        centres[len(kept)] = c
        sides[len(kept)] = side
        kept.append(h)
    kept.sort(key=lambda h: (h.order, h.id, float(h.corners[:, 1].mean())))
    return kept


def _code(h: _Hit) -> Code:
    return Code(
        kind="aruco",
        corners_px=h.corners,
        id=h.id,
        dictionary=h.dictionary.name,
        decoders=("pictable-aruco",),
    )
