"""Step 3 of the stick search (``vision.picasso.sticks``): the candidates that explain the
wood.

The chosen set minimises
``unexplained wood + 3 x covered canvas + 7 mm per stick + 0.3 x length misfit``
(all in millimetres of stick; on a grid of about 1 px/mm), by greedy additions, then removals
and swaps until nothing improves (``_select``); a stick is added only if at least 4 mm of its
middle band is wood no other stick explains (slivers along sticks already taken do not count).
Crossing sticks each keep the wood only they explain; a line aimed between two sticks
covers canvas and loses to the two true ones. Two lines fanned a few degrees apart from one
end, one lying on the other along most of its length, are never both taken (``STACKED_*``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.profile import KitProfile
from vision.picasso.stick_lines import NOT_WOOD, _Candidate, turn_between

#: Selection weights (module docstring), in mm of stick.
NONWOOD_WEIGHT = 3.0
#: A stick is taken only if at least ``CORE_MIN_MM`` of its middle band ``CORE_MM`` wide is
#: wood that no stick taken already explains. 5 -> 4 mm: in a heap of nine sticks (development
#: looks run seed 3, board 82) two short sticks crossing the others showed 4-5 mm of their
#: own each, and one 63 mm stretch over both was taken for a long stick. On the 18
#: development sets that board alone changed (3.5 and 2.5 mm: the same board).
CORE_MM = 4.0
CORE_MIN_MM = 4.0
STICK_COST_MM = 7.0
MISFIT_WEIGHT = 0.3
#: Two sticks turned ``STACKED_DEG`` apart from a shared end (within ``STACKED_END_MM``)
#: whose footprints share ``STACKED_SHARE`` of the smaller are never both taken: a narrow
#: fan of two lines from one end, one lying on the other along most of its length. Once
#: more lines are proposed in heaps (``stick_proposals.SEED_TIED_LINES``), two lines fanned
#: out from one end of a stick, each explaining a sliver of the wood beside it, made a
#: short stick too many (a development look's board, ``tests/picasso/test_learn_shadow.py``).
#: A stick lying across another at a small angle, its ends clear of the other's, is left to
#: the cover (hard run seed 0, board 0 has one). Since the picture's edges propose lines in
#: heaps too (``stick_proposals._picture_lines``), one long stick of a blurred heap was
#: found twice and both were taken: 5 degrees apart with ends 4.5 mm apart (hard run seed 0,
#: board 26), and 1 degree apart with ends 2 and 5.4 mm apart (board 70). The rule now holds
#: from 0 degrees (4 before, leaving pieces of one line to ``reader.join_overlapping``; two
#: such pieces sharing an end are one stick for the cover too) and for ends within 5 mm (3
#: before). On the 18 development sets, with the picture's lines: at 4 degrees and 5 mm, 6
#: boards better and 2 worse, among them board 70; at 0 degrees, 5 better and 1 worse
#: (both 127 -> 123). Without the picture's lines, 5 mm alone read every board as 3 mm did,
#: and 0 degrees broke board 70.
STACKED_DEG = (0.0, 12.0)
STACKED_SHARE = 0.5
STACKED_END_MM = 5.0


def _rectangle(cand: _Candidate, width_mm: float, s: float, k: int = 1) -> NDArray[np.float64]:
    """The candidate's rectangle ``width_mm`` wide: (4, 2) corners on the canvas grid
    subsampled by ``k``."""
    e = cand.ends_px(s) / k
    n = cand.line.n * 0.5 * width_mm * s / k
    return np.array([e[0] + n, e[1] + n, e[1] - n, e[0] - n])


@lru_cache(maxsize=4)
def _flat_index(shape: tuple[int, int]) -> NDArray[np.intp]:
    """(H, W) read-only: each pixel's flat index (a box of it, masked, lists a region's
    pixels in one step)."""
    idx = np.arange(shape[0] * shape[1], dtype=np.intp).reshape(shape)
    idx.setflags(write=False)
    return idx


def _footprints(
    cand: _Candidate, shape: tuple[int, int], widths_mm: tuple[float, ...], s: float, k: int = 1
) -> list[NDArray[np.intp]]:
    """Flat indices of the pixels inside the candidate's rectangles ``widths_mm`` wide (of
    its full length), on the canvas grid subsampled by ``k`` (``shape`` is that grid's):
    each pixel of the widest rectangle's box is placed along and across the centre line
    once, then kept per width. Pixel centres at integer coordinates, as ``cv2`` draws them."""
    # The ends and the corners in plain floats (the same operations as ``ends_px`` and
    # numpy's element by element ones, so the same numbers): a dozen small numpy calls less.
    ln = cand.line
    e0x, e0y = (ln.cx + ln.cos * cand.t0 * s) / k, (ln.cy + ln.sin * cand.t0 * s) / k
    e1x, e1y = (ln.cx + ln.cos * cand.t1 * s) / k, (ln.cy + ln.sin * cand.t1 * s) / k
    d = ln.d
    n = ln.n
    half = 0.5 * max(widths_mm) * s / k
    nx, ny = -ln.sin * half, ln.cos * half  # n * half
    cxs = (e0x + nx, e1x + nx, e1x - nx, e0x - nx)
    cys = (e0y + ny, e1y + ny, e1y - ny, e0y - ny)
    x0 = max(0, math.floor(min(cxs)))
    y0 = max(0, math.floor(min(cys)))
    x1 = min(shape[1], math.ceil(max(cxs)) + 1)
    y1 = min(shape[0], math.ceil(max(cys)) + 1)
    if x1 <= x0 or y1 <= y0:
        return [np.zeros(0, np.intp) for _ in widths_mm]
    xs = np.arange(x0, x1, dtype=np.float64) - e0x
    ys = np.arange(y0, y1, dtype=np.float64) - e0y
    along = ys[:, None] * d[1] + xs[None, :] * d[0]
    across = np.abs(ys[:, None] * n[1] + xs[None, :] * n[0])
    length = float(np.hypot(e1x - e0x, e1y - e0y))
    # the widest rectangle's pixels first, the narrower ones among them (in the same order)
    limits = [0.5 * w * s / k for w in widths_mm]
    widest = (along >= 0) & (along <= length) & (across <= max(limits))
    pixels = _flat_index(shape)[y0:y1, x0:x1][widest]
    offsets = across[widest]
    return [pixels[offsets <= lim] for lim in limits]


class _Cover:
    """The selection objective (module docstring) over flat pixel indices, with each
    candidate's overlapping candidates known, so that a change re-scores only those."""

    def __init__(
        self,
        wood: NDArray[np.bool_],
        penalty: NDArray[np.float32],
        feet: list[NDArray[np.intp]],
        pen_feet: list[NDArray[np.intp]],
        fixed_cost: list[float],
        px_per_mm_of_stick: float,
        core_feet: list[NDArray[np.intp]] | None = None,
        core_min_px: float = 0.0,
        angles: list[float] | None = None,
        ends_mm: list[NDArray[np.float64]] | None = None,
    ) -> None:
        flat_wood = wood.ravel()
        flat_pen = penalty.ravel()
        self.feet = feet
        self.pen_feet = pen_feet
        self.fixed = fixed_cost
        self.unit = px_per_mm_of_stick
        self.count = np.zeros(flat_wood.size, np.int16)
        # Only the pixels that can count: the wood in each footprint (and in its middle
        # band), the charged pixels under it with their charge.
        self.wood_feet = [f[flat_wood[f]] for f in feet]
        charges = [flat_pen[f] for f in pen_feet]
        self.pen_feet = [f[c > 0] for f, c in zip(pen_feet, charges, strict=True)]
        self.pen_in = [c[c > 0] for c in charges]
        self.core_feet = [f[flat_wood[f]] for f in core_feet] if core_feet is not None else None
        self.core_min_px = core_min_px
        # Who overlaps whom, roughly (8 px cells): a candidate's score changes only when a
        # neighbour is added or removed. Over-inclusive is harmless.
        # (A float matrix product of the cells taken was the obvious way; OpenBLAS runs one
        # that size on several threads, and, on a busy machine, its calling thread spent up
        # to several milliseconds waiting. Bit sets of cells, ANDed pair by pair, stay on
        # one thread and give the same pairs.)
        n = len(feet)
        height, width = wood.shape
        cells_x = (width + 7) >> 3
        occupied = np.zeros((n, ((height + 7) >> 3) * cells_x), bool)
        if n:
            ys, xs = np.divmod(np.concatenate(feet), width)
            owner = np.repeat(np.arange(n), [f.size for f in feet])
            occupied[owner, (ys >> 3) * cells_x + (xs >> 3)] = True
        bits = np.packbits(occupied, axis=1)
        shared = np.asarray((bits[:, None, :] & bits[None, :, :]).any(axis=2), bool)
        np.fill_diagonal(shared, False)
        self.neighbours: list[set[int]] = [set(np.flatnonzero(row).tolist()) for row in shared]
        # Pairs that cannot both lie flat (``STACKED_*``), among the neighbours.
        self.members: set[int] = set()
        self.stacked: list[set[int]] = [set() for _ in range(n)]
        if angles is not None and ends_mm is not None:
            least, limit = math.radians(STACKED_DEG[0]), math.radians(STACKED_DEG[1])
            for i in range(n):
                for j in self.neighbours[i]:
                    if j <= i:
                        continue
                    turn = turn_between(angles[i], angles[j])
                    if not least <= turn < limit:
                        continue
                    gap = np.linalg.norm(ends_mm[i][:, None, :] - ends_mm[j][None, :, :], axis=2)
                    if gap.min() > STACKED_END_MM:
                        continue
                    small = min(feet[i].size, feet[j].size)
                    if small and np.intersect1d(feet[i], feet[j], assume_unique=True).size >= (
                        STACKED_SHARE * small
                    ):
                        self.stacked[i].add(j)
                        self.stacked[j].add(i)

    def delta_add(self, i: int) -> float:
        if self.stacked[i] & self.members:
            return math.inf
        if self.core_feet is not None:
            # The wood only this candidate would explain must include a stretch of its
            # middle, not just slivers along the sides of sticks already taken.
            own = int(np.count_nonzero(self.count[self.core_feet[i]] == 0))
            if own < self.core_min_px:
                return math.inf
        gained = int(np.count_nonzero(self.count[self.wood_feet[i]] == 0))
        wasted = float(self.pen_in[i][self.count[self.pen_feet[i]] == 0].sum())
        return (-gained + wasted) / self.unit + self.fixed[i]

    def delta_remove(self, i: int) -> float:
        lost = int(np.count_nonzero(self.count[self.wood_feet[i]] == 1))
        freed = float(self.pen_in[i][self.count[self.pen_feet[i]] == 1].sum())
        return (lost - freed) / self.unit - self.fixed[i]

    def add(self, i: int) -> None:
        f = self.feet[i]  # footprint indices are unique: fancy assignment is exact
        self.count[f] = self.count[f] + 1
        self.members.add(i)

    def remove(self, i: int) -> None:
        f = self.feet[i]
        self.count[f] = self.count[f] - 1
        self.members.discard(i)


def _select(cover: _Cover, n: int) -> list[int]:
    """Greedy additions (re-scoring only the neighbours of what was added), then the best
    single removal, swap (between overlapping candidates) or addition until none improves."""
    chosen: list[int] = []
    gain = {i: cover.delta_add(i) for i in range(n)}
    while gain:
        best = min(gain, key=gain.__getitem__)
        if gain[best] >= -1e-9:
            break
        cover.add(best)
        chosen.append(best)
        del gain[best]
        for j in cover.neighbours[best]:
            if j in gain:
                gain[j] = cover.delta_add(j)
    rest = set(range(n)) - set(chosen)
    for _ in range(20):
        move: tuple[int, int] | None = None  # (remove, add), -1 for none
        best_d = -1e-6
        for r in chosen:
            d_rm = cover.delta_remove(r)
            if d_rm < best_d:
                move, best_d = (r, -1), d_rm
            swaps = [c for c in cover.neighbours[r] if c in rest]
            if not swaps:
                continue
            cover.remove(r)
            for c in swaps:
                d = d_rm + cover.delta_add(c)
                if d < best_d:
                    move, best_d = (r, c), d
            cover.add(r)
        if move is None:
            break
        r, c = move
        if r >= 0:
            cover.remove(r)
            chosen.remove(r)
            rest.add(r)
        if c >= 0:
            cover.add(c)
            chosen.append(c)
            rest.discard(c)
        # an addition may pay now that something moved
        for c2 in sorted(rest):
            if any(k in cover.neighbours[c2] for k in (r, c)) and cover.delta_add(c2) < -1e-6:
                cover.add(c2)
                chosen.append(c2)
                rest.discard(c2)
    return chosen


def _ends_within(
    a: list[_Candidate], b: list[_Candidate], s: float, mm: float
) -> NDArray[np.bool_]:
    """(len(a), len(b)) bool: whether both ends of b's candidate lie within ``mm`` (along
    each axis) of a's candidate's ends, either way round."""
    ea = np.stack([c.ends_px(s).ravel() / s for c in a])  # (n, 4)
    eb = np.stack([c.ends_px(s).ravel() / s for c in b])
    swapped = ea[:, [2, 3, 0, 1]]
    d1 = np.abs(eb[None, :, :] - ea[:, None, :]).max(2)
    d2 = np.abs(eb[None, :, :] - swapped[:, None, :]).max(2)
    return np.minimum(d1, d2) < mm


def _dedupe(cands: list[_Candidate], s: float) -> list[_Candidate]:
    """Drop candidates whose ends both lie within 1.5 mm of an earlier one's."""
    if not cands:
        return cands
    close = _ends_within(cands, cands, s, 1.5).tolist()
    keep: list[int] = []
    for i in range(len(cands)):
        row = close[i]
        if not any(row[k] for k in keep):
            keep.append(i)
    return [cands[i] for i in keep]


def _choose(
    cands: list[_Candidate],
    wood: NDArray[np.uint8],
    wood_mp: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
) -> list[int]:
    width = profile.stick_width_mm
    lengths = [k.length_mm for k in profile.sorted_sticks]
    # Wood is explained out to 0.5 mm beyond a stick's sides (blur and shading make the wood
    # a little wider or the stick a little curved: no sliver may be left for a duplicate);
    # canvas is charged only within 1 mm inside them.
    # On a coarser grid (every round(s)-th pixel, about 1 px/mm): the choice needs no finer
    # detail.
    k = max(1, round(s))
    small = (wood[::k, ::k].shape[0], wood[::k, ::k].shape[1])
    three = [_footprints(c, small, (width + 1.0, width - 2.0, CORE_MM), s, k) for c in cands]
    feet = [f[0] for f in three]
    pen_feet = [f[1] for f in three]
    core_feet = [f[2] for f in three]
    fixed = [
        STICK_COST_MM + MISFIT_WEIGHT * min(abs(c.length - length) for length in lengths)
        for c in cands
    ]
    # Canvas under a rectangle costs 3, a shadow 1 (a shadow may fall on a stick, but a line
    # aimed between two close sticks covers the shadow between them), the string nothing;
    # and only beyond 1 mm from any wood, so that a rectangle a fraction of a millimetre
    # off its stick is not charged for the sliver of canvas along one side.
    r = 2 * round(1.0 * s) + 1
    near = cv2.dilate(wood, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))[::k, ::k] > 0
    penalty = np.where(wood_mp[::k, ::k] == NOT_WOOD, np.float32(NONWOOD_WEIGHT), np.float32(0))
    penalty[near] = 0.0
    cover = _Cover(
        wood[::k, ::k] > 0,
        penalty,
        feet,
        pen_feet,
        fixed,
        width * (s / k) ** 2,
        core_feet,
        CORE_MIN_MM * CORE_MM * (s / k) ** 2,
        [c.line.angle for c in cands],
        [c.ends_px(s) / s for c in cands],
    )
    return _select(cover, len(cands))


def _explained(
    cands: list[_Candidate], chosen: list[int], shape: tuple[int, int], width: float, s: float
) -> NDArray[np.bool_]:
    """(H, W) bool: the chosen candidates' rectangles ``width`` wide, drawn by
    ``cv2.fillPoly`` at a quarter of a pixel, on the whole canvas at once."""
    mask = np.zeros(shape, np.uint8)
    for i in chosen:
        poly = np.round(_rectangle(cands[i], width, s) * 4).astype(np.int32)
        cv2.fillPoly(mask, [poly], 1, cv2.LINE_8, 2)
    return mask > 0
