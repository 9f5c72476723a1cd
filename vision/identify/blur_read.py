"""Small, blurred markers read by correlation with each marker as blur would show it.

A marker 13-18 px wide has cells of two to three pixels; the camera's blur spreads each
cell over its neighbours, so a light cell among dark ones reads grey, and a reading of each
cell's mean level (:mod:`vision.identify.likeness`) is often two or three cells from the
truth, within reach of several other markers. What blur does to a marker is known, though:
each marker of the kit, drawn on its white pad and blurred, is what such a square should
look like. A dark square is sampled on a fine grid (:data:`GRID` points a side) and
correlated (zero mean, unit norm) with every marker of the kit in each of its four turns,
each blurred by each of :data:`BLUR_CELLS`; a marker's correlation is its best over the
blurs. The square is named by the game's marker it correlates with best when that leads
every other marker of the kit by :data:`MIN_LEAD` and correlates at least :data:`MIN_SCORE`.
As every reading by likeness, what it names counts only where the card's picture agrees
(:func:`vision.identify.code_cards._by_codes`).

Measured on rendered tables (codes scenes of seed 0, 150 normal and 100 hard, 100 hard of
seed 3, features scenes of seed 0, 100 hard; dark squares left unread by the other readers):
at a marker of a card, the right marker led every other by a median of 0.08-0.09 (the cell
means: 0.05), and led at all on 93% of them (the cell means: 75%); where no marker is, the
game's best marker led the others by 0.064 at most."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from vision.identify.codes import _ROTATED, MAX_CELL_SPREAD, _cell_read
from vision.identify.dark_squares import _sample_xy
from vision.identify.likeness import _soft_templates

#: Sample points a side over a square (two a cell).
GRID = 12
#: The blurs each marker is drawn with: the Gaussian's sigma, in cells.
BLUR_CELLS = (0.0, 0.3, 0.5, 0.7)
MIN_LEAD = 0.08
MIN_SCORE = 0.5


def gaussian_rows(
    out: NDArray[np.float64], at: NDArray[np.float64], sigma: float
) -> NDArray[np.float64]:
    """(len(out), len(at)) weights of a Gaussian blur of ``sigma`` as a matrix: row i takes
    the samples at positions ``at`` to position ``out[i]``, each row summing to 1 (beyond
    the samples, nothing: the kernel is cut there and the rest weighed up)."""
    m = np.exp(-0.5 * ((out[:, None] - at[None]) / sigma) ** 2)
    m /= m.sum(axis=1, keepdims=True)
    return m


@functools.cache
def _blurred() -> tuple[NDArray[np.float32], NDArray[np.int64]]:
    """(b * k * 4, GRID * GRID) float32: every marker of the kit in each turn
    (:func:`vision.identify.likeness._soft_templates`' rows), drawn white on a white pad,
    blurred by each of :data:`BLUR_CELLS` (blur-major), zero mean and unit norm; and their
    (k * 4,) ids."""
    templates, ids = _soft_templates()
    k = len(templates)
    per = GRID // 6
    cells = templates.reshape(k, 6, 6)
    up = np.repeat(np.repeat(cells, per, axis=1), per, axis=2)
    pad = 2 * GRID // 3
    big = np.ones((k, GRID + 2 * pad, GRID + 2 * pad))
    big[:, pad:-pad, pad:-pad] = up
    out = []
    x = np.arange(GRID + 2 * pad, dtype=np.float64)
    for sigma in BLUR_CELLS:
        s = sigma * per
        if s > 0:
            # Separable Gaussian as a matrix (rows of the padded square -> the inner grid).
            m = gaussian_rows(x[pad : pad + GRID], x, s)
        else:
            m = np.eye(GRID + 2 * pad)[pad : pad + GRID]
        t = np.einsum("ij,kjl,ml->kim", m, big, m).reshape(k, -1)
        t -= t.mean(axis=1, keepdims=True)
        t /= np.linalg.norm(t, axis=1, keepdims=True) + 1e-9
        out.append(t)
    return np.concatenate(out).astype(np.float32), ids


def marker_columns() -> NDArray[np.int64]:
    """(k * 4,) the marker id of each column of :func:`correlations` (each marker in its
    four turns)."""
    return _blurred()[1]


def bilinear_points(
    quads: NDArray[np.floating], u: NDArray[np.float64], v: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The image points (x, y), each (n, p), of the square coordinates ``u``, ``v`` (p,) in
    [0, 1] (0 at the first corner, u along the first side) within each of ``quads`` (n, 4,
    2), mapped bilinearly from the corners (no homography per square: thousands are sampled
    at once; a marker's perspective is negligible at the few pixels of a cell)."""
    q = np.asarray(quads, np.float64)
    w = np.stack([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v])  # (4, p)
    return q[:, :, 0] @ w, q[:, :, 1] @ w


def _samples(grey: NDArray[np.uint8], quads: NDArray[np.float32]) -> NDArray[np.float32]:
    """(n, GRID * GRID) grey levels of squares (n, 4, 2) on the sample grid (mapped
    bilinearly from the corners), zero mean and unit norm."""
    g = (np.arange(GRID) + 0.5) / GRID
    u, v = (a.ravel() for a in np.meshgrid(g, g))
    s = _sample_xy(grey, *bilinear_points(quads, u, v)).reshape(len(quads), -1)
    s = s.astype(np.float32)
    s -= s.mean(axis=1, keepdims=True)
    s /= np.linalg.norm(s, axis=1, keepdims=True) + 1e-9
    return s


def correlations(
    grey: NDArray[np.uint8], quads: NDArray[np.float32], marker_ids: frozenset[int] | None = None
) -> NDArray[np.float32]:
    """(n, k * 4) correlation of each square (n, 4, 2) (corners clockwise on screen) with each
    marker of the kit in each turn, the best over the blurs (rows as
    :func:`vision.identify.likeness._soft_templates`); with ``marker_ids``, only those
    markers' (the others' -1)."""
    templates, columns = _templates_of(marker_ids)
    n = len(quads)
    ids = _blurred()[1]
    if n == 0:
        return np.zeros((0, len(ids)), np.float32)
    every = (_samples(grey, quads) @ templates.T).reshape(n, len(BLUR_CELLS), -1).max(axis=1)
    if columns is None:
        return every
    out = np.full((n, len(ids)), -1.0, np.float32)
    out[:, columns] = every
    return out


@functools.lru_cache(maxsize=8)
def _templates_of(
    marker_ids: frozenset[int] | None,
) -> tuple[NDArray[np.float32], NDArray[np.intp] | None]:
    """:func:`_blurred`'s rows of ``marker_ids`` only (all: None), contiguous, and their
    columns among all the markers' (None: all)."""
    templates, ids = _blurred()
    if marker_ids is None:
        return templates, None
    columns = np.flatnonzero(np.isin(ids, np.fromiter(marker_ids, np.int64)))
    t = templates.reshape(len(BLUR_CELLS), len(ids), -1)[:, columns]
    return np.ascontiguousarray(t.reshape(-1, t.shape[-1])), columns


def blurred_markers(
    grey: NDArray[np.uint8], quads: NDArray[np.float32], marker_ids: frozenset[int]
) -> list[tuple[int, NDArray[np.float32]]]:
    """Dark squares ``quads`` (n, 4, 2) named by their correlation with the markers as blur
    shows them (see the module docstring): (marker id, (4, 2) float32 corners in ArUco
    order)."""
    if not len(quads) or not marker_ids:
        return []
    # A card marker's cells are each one level (as every reading of a card's marker).
    _, spread = _cell_read(grey, quads)
    quads = quads[spread <= MAX_CELL_SPREAD]
    if not len(quads):
        return []
    _, ids = _blurred()
    # The game's markers first: a square that does not lead the game's other markers by
    # MIN_LEAD cannot lead every marker of the kit by it.
    score = correlations(grey, quads, marker_ids)
    best = np.argmax(score, axis=1)
    rows = np.arange(len(quads))
    top = score[rows, best]
    second = np.where(ids[None] == ids[best][:, None], -np.inf, score).max(axis=1)
    ok = (top >= MIN_SCORE) & (top - second >= MIN_LEAD)
    if not ok.any():
        return []
    quads, best, top = quads[ok], best[ok], top[ok]
    score = correlations(grey, quads)
    rival = np.where(ids[None] == ids[best][:, None], -np.inf, score).max(axis=1)
    ok = top - rival >= MIN_LEAD
    return [
        (int(ids[best[k]]), quads[k][_ROTATED[int(best[k] % 4)]].astype(np.float32))
        for k in np.flatnonzero(ok)
    ]
