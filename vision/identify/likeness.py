"""Card markers named by their likeness to the markers that can be on the table.

The fast reader (:mod:`vision.identify.codes`) names a dark square only when its 16 inner
cells match a kit marker bit for bit. A small, blurred marker (cells of two or three
pixels) often has a cell half-way between black and white, read on the wrong side. When the
game played is known, only its cards' markers can name a card, and they are far apart
(Pick Pic's and Picmix's differ from each other and from the fiducials by 3 cells or
more): such a square is named by the game's marker it is most like, when that one leads
every other marker of the kit by more than one cell's worth of likeness."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from vision.codes.aruco import load_dictionary
from vision.identify.codes import _ROTATED, MAX_CELL_SPREAD, _cell_read
from vision.identify.dark_squares import _CELLS
from vision.kit.codes import marker_table

#: Soft reading (:func:`soft_markers`): a dark square that no marker matches bit for bit is
#: named by the marker it is most like, among those of the game played, when its likeness
#: (the mean over its 36 cells of +1 where cell and marker agree, -1 where they differ, each
#: cell's whiteness weighing its vote) is at least SOFT_MIN_SCORE and leads every other
#: marker's of the kit (other games' cards and the fiducials included: they may lie on the
#: table too) by SOFT_MIN_MARGIN. One cell of 36 is 0.056 of likeness. On rendered tables
#: (codes and features scenes, normal and hard, seed 0: 1254 squares unread), no square
#: that was not a marker of the game led by more than 0.056 (one cell); at a lead of 0.07,
#: 21 of the game's markers were named, all right, and on the held-out seed's hard codes
#: scenes 8 of 382 unread squares, all right.
SOFT_MIN_SCORE = 0.45
SOFT_MIN_MARGIN = 0.07


@functools.cache
def game_marker_ids(game: str) -> frozenset[int]:
    """The marker ids printed on the cards of ``game`` (both faces)."""
    prefix = f"{game}-"
    return frozenset(m for m, (card, _) in marker_table().items() if card.startswith(prefix))


@functools.cache
def _soft_templates() -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """(k * 4, 36) cells of every marker of the kit (the cards' and the fiducials, ids
    0-49), +1 white, -1 black, border included, in each of the four rotations as
    :func:`_read_quads` reads a candidate turned by it (rows id-major), and their (k * 4,)
    ids."""
    ids = np.array(sorted(set(marker_table()) | set(range(50))), np.int64)
    codes = np.asarray(load_dictionary("DICT_4X4_1000").codes[ids], np.uint64)  # (k, 4)
    inner = (codes[..., None] >> np.arange(16, dtype=np.uint64)) & np.uint64(1)  # (k, 4, 16)
    cells = -np.ones((len(ids), 4, _CELLS, _CELLS))
    cells[:, :, 1:-1, 1:-1] = 2.0 * inner.reshape(len(ids), 4, 4, 4) - 1.0
    return cells.reshape(len(ids) * 4, _CELLS * _CELLS), np.repeat(ids, 4)


def soft_markers(
    grey: NDArray[np.uint8], quads: NDArray[np.float32], marker_ids: frozenset[int]
) -> list[tuple[int, NDArray[np.float32]]]:
    """Dark squares ``quads`` (n, 4, 2) that no marker matched bit for bit, named by their
    likeness to the markers of ``marker_ids`` (see :data:`SOFT_MIN_SCORE`): (marker id,
    (4, 2) float32 corners in ArUco order). Small and blurred markers, whose cells are two or
    three pixels, often read one cell wrong; among the few dozen markers of one game, the
    nearest is still far ahead."""
    if not len(quads) or not marker_ids:
        return []
    found, spread = _cell_read(grey, quads)
    ratios = found.reshape(len(quads), -1)  # 0 black .. 1 white
    # All 0: one level, no cells to read; spread: not 4 x 4 cells of one level each.
    seen = (ratios.max(axis=1) > 0) & (spread <= MAX_CELL_SPREAD)
    if not seen.any():
        return []
    templates, ids = _soft_templates()
    score = (2.0 * ratios[seen] - 1.0) @ templates.T / templates.shape[1]  # (m, k * 4)
    best = np.argmax(score, axis=1)
    rows = np.arange(len(best))
    rival = np.where(ids[None] == ids[best][:, None], -np.inf, score).max(axis=1)
    lead = score[rows, best] - rival
    ok = (score[rows, best] >= SOFT_MIN_SCORE) & (lead >= SOFT_MIN_MARGIN)
    ok &= np.isin(ids[best], np.fromiter(marker_ids, np.int64))
    out = []
    for k in np.flatnonzero(ok):
        rotation = int(best[k] % 4)
        out.append((int(ids[best[k]]), quads[np.flatnonzero(seen)[k]][_ROTATED[rotation]]))
    return out
