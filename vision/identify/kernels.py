"""The loops of reading pictures that numpy spreads over many small calls or large
temporaries, in two forms with the same arguments and results:

- compiled (:mod:`vision.identify.kernels_compiled`, numba): the fastest per frame, but
  importing numba and loading the compiled code costs a process about 0.4 s, once;
- plain (:mod:`vision.identify.kernels_plain`, numpy): nothing to load, a few milliseconds
  more a photo.

The compiled forms are the default. A command that reads one or a few photos and exits
(``pictable identify``, ``decode``, ``analyze``) calls :func:`use_plain` first: it answers
about 0.4 s sooner, and the readings are the same (the integers, ties and the outlines'
float arithmetic exactly; the appearance sums within float rounding: tested in
``tests/identify/test_kernels_forms.py``).

The loops: :func:`two_nearest` (the ratio test's two nearest ORB descriptors),
:func:`lsh_keys` and :func:`index_nearest` (the keypoint index), :func:`most_near` and
:func:`densest` (the frame search's votes), :func:`side_lines` (each side's edge points and
robust line in the refinement of outlines), :func:`line_rectangles` (the card quads of a
region's lines), :func:`describe_cells` and :func:`cell_agreement` (appearance).
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.identify import kernels_plain

_lock = threading.Lock()
_plain = False
_compiled: ModuleType | None = None


def use_plain(plain: bool = True) -> None:
    """Use the numpy forms (``True``) or the compiled ones (``False``, the default) from now
    on, in this process."""
    global _plain
    _plain = plain


def uses_plain() -> bool:
    """Whether the numpy forms are in use (see :func:`use_plain`)."""
    return _plain


def _forms() -> Any:
    global _compiled
    if _plain:
        return kernels_plain
    if _compiled is None:
        with _lock:
            if _compiled is None:
                from vision.identify import kernels_compiled

                _compiled = kernels_compiled
    return _compiled


def two_nearest(
    a: NDArray[np.uint8], b: NDArray[np.uint8]
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.intp]]:
    """For each of (n, 32) descriptors ``a``: the Hamming distances to its nearest and second
    nearest of (m, 32) descriptors ``b`` (m >= 2), and the nearest's index (the lowest among
    equals): what ``cv2.batchDistance(a, b, K=2, normType=NORM_HAMMING)`` gives, in about a
    fifth of the time numpy's popcounts take (compiled) and less again of OpenCV's (it calls
    a function per pair)."""
    return _forms().two_nearest(a, b)  # type: ignore[no-any-return]


def lsh_keys(desc: NDArray[np.uint8], bits: NDArray[np.int64]) -> NDArray[np.int64]:
    """(tables, n) hash keys of (n, 32) descriptors: table t's key has bit j set when bit
    ``bits[t, j]`` of the descriptor is (bits numbered as ``np.unpackbits`` gives them: the
    first byte's most significant bit is bit 0)."""
    return _forms().lsh_keys(desc, bits)  # type: ignore[no-any-return]


def index_nearest(
    keys: NDArray[np.int64],
    start: NDArray[np.int32],
    stride: int,
    order: NDArray[np.int32],
    query: NDArray[np.uint64],
    entries: NDArray[np.uint64],
    max_distance: int,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Each query's nearest entry among those sharing one of its keys (lowest distance, then
    lowest entry), when within ``max_distance`` bits: (query indices, entry indices). See
    :func:`vision.identify.kernels_compiled.index_nearest` for the arrays."""
    return _forms().index_nearest(  # type: ignore[no-any-return]
        keys, start, stride, order, query, entries, max_distance
    )


def densest(
    centre: NDArray[np.float32], reach: NDArray[np.float32], members: NDArray[np.intp]
) -> tuple[int, NDArray[np.bool_]]:
    """The vote among ``members`` that most of them are near, as its position in
    ``members``, and whether each member is near it (see
    :func:`vision.identify.kernels_compiled.densest`)."""
    return _forms().densest(centre, reach, members)  # type: ignore[no-any-return]


def most_near(
    centre: NDArray[np.float32],
    reach: NDArray[np.float32],
    by_card: NDArray[np.intp],
    bounds: NDArray[np.intp],
    cards: NDArray[np.intp],
) -> NDArray[np.int64]:
    """For each of ``cards``: the most of its votes any one of them is near (see
    :func:`vision.identify.kernels_compiled.most_near`)."""
    return _forms().most_near(centre, reach, by_card, bounds, cards)  # type: ignore[no-any-return]


def side_lines(
    v: NDArray[np.float32],
    offsets: NDArray[np.float64],
    along: NDArray[np.float64],
    floor: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """The edge line along each side of quads from its profiles (see
    :func:`vision.identify.kernels_compiled.side_lines`)."""
    return _forms().side_lines(v, offsets, along, floor)  # type: ignore[no-any-return]


def line_rectangles(
    rho: NDArray[np.float64],
    normal: NDArray[np.float64],
    lo_h: float,
    hi_h: float,
    aspect: float,
    parallel_cos: float,
    right_sin: float,
    short_lo: float,
    short_hi: float,
) -> NDArray[np.float64]:
    """The corners (k, 4, 2) of the card quads that lines make (see
    :func:`vision.identify.kernels_compiled.line_rectangles`)."""
    return _forms().line_rectangles(  # type: ignore[no-any-return]
        rho, normal, lo_h, hi_h, aspect, parallel_cos, right_sin, short_lo, short_hi
    )


def describe_cells(
    cells: NDArray[np.float32], min_spread: float, colour_weight: float
) -> NDArray[np.float32]:
    """(m, n, 3) Lab cells -> (m, 3 n) float32 unit descriptors (see
    :func:`vision.identify.kernels_compiled.describe_cells`)."""
    return _forms().describe_cells(cells, min_spread, colour_weight)  # type: ignore[no-any-return]


def cell_agreement(
    observed: NDArray[np.float32],
    reference: NDArray[np.float32],
    inside: NDArray[np.bool_],
    agree_lab: float,
    chroma: tuple[float, float] = (1.0, 1.0),
) -> NDArray[np.float64]:
    """The share of cells within ``agree_lab`` of the reference once the light is fitted,
    and the colours' saturation within ``chroma`` (lo, hi; (1, 1): not fitted; see
    :func:`vision.identify.kernels_compiled.cell_agreement`)."""
    return _forms().cell_agreement(  # type: ignore[no-any-return]
        observed, reference, inside, agree_lab, chroma[0], chroma[1]
    )
