"""Sticks on the canvas: straight wood bands of the kit's width, found as the smallest set
of stick rectangles that explains the wood.

1. **Proposals.** The wood mask (with the string's and shadows' pixels that lie between wood
   filled in) is eroded to the sticks' cores and ``HoughLinesP`` proposes straight pieces.
2. **Stretches.** Each proposed line is measured along a band a little wider than a stick:
   the stretches where the band is wood from side to side (string and shadow pixels count
   neither for nor against) are candidate sticks. Each stretch is re-aimed on its own wood
   (a robust straight-line fit of the wood's centre in each clean cross-section). A stretch
   longer than a kit stick (a shallow end-to-end joint lets the band run on into the next
   stick, or two sticks lie end to end in line) also proposes a kit-length piece at either
   end. A stretch whose flanks are both wood is part of something wider (a hand, a heap).
3. **Selection.** The chosen set minimises
   ``unexplained wood + 3 x covered canvas + 7 mm per stick + 0.3 x length misfit``
   (all in millimetres of stick; on a grid of about 1 px/mm), by greedy additions, then removals
   and swaps until nothing improves; a stick is added only if at least 5 mm of its middle
   band is wood no other stick explains (slivers along sticks already taken do not count).
   Crossing sticks each keep the wood only they explain; a line aimed between two sticks
   covers canvas and loses to the two true ones.
4. A chosen stretch is named by its length (the nearest of the profile's lengths, in ratio).
   Two short sticks laid end to end in line make one long stretch: the reader
   (``reader.split_at_seams``, ``reader.join_in_line``) asks ``vision.picasso.seams``
   whether it has a seam.

A second round proposes lines on the wood left unexplained by the first, so that a stick
whose core the first Hough pass missed (under the string, in a heap) is still proposed.
These proposals are rough: one that finds no stick is centred on its wood and measured
again, then turned about its middle (``_scan``) allowing more wood on both flanks (in a heap
a stick's flanks are often other sticks; ``HEAP_BOTH_MAX``). Measured on 400 rendered
normal-tier boards (run seeds 0 and 1), this put right 3 of the 8 boards where a short stick
half hidden in a heap was missed, and made no board wrong.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.profile import KitProfile

#: Band sampling step along and across a line, mm.
STEP_MM = 0.5
#: A cross-section counts as stick when this share of its known pixels is wood.
COVER_MIN = 0.7
#: Gaps in a stretch shorter than this are bridged, mm.
GAP_MM = 2.5
#: Selection weights (module docstring), in mm of stick.
NONWOOD_WEIGHT = 3.0
#: A stick is taken only if at least ``CORE_MIN_MM`` of its middle band ``CORE_MM`` wide is
#: wood that no stick taken already explains.
CORE_MM = 4.0
CORE_MIN_MM = 5.0
STICK_COST_MM = 7.0
#: Second-round proposals turned about their middle (in heaps) may have wood on both flanks
#: along this share of their length (0.45 elsewhere).
HEAP_BOTH_MAX = 0.75
MISFIT_WEIGHT = 0.3
#: ``_scan`` turns a line up to this many degrees each way. The proposals it mends are aimed
#: within a few degrees (Hough in 2-degree steps, leftover patches in 4-degree steps); wider
#: turns in a heap run along the neighbouring sticks instead. Measured on the 302 hand-free
#: development boards (run seeds 0 and 1): 6 degrees found one short stick in a heap that 9
#: missed (board 38 of run seed 1), changed no other count, and is 2/7 less work.
SCAN_MAX_DEG = 6
#: A proposed line piece within this distance of a measured candidate's centre line (along
#: 70% of it, in its direction within 4 degrees) is that candidate's stick (``_covered``):
#: a Hough piece along a stick's edge or a second piece through it would re-measure the
#: stick ``_recentre`` has already aimed; a stick laid beside it is a stick's width away.
#: Measured against 2 mm (both readers on the same boards): the 400 development boards (run
#: seeds 0 and 1), the 120 of run seed 2 and 100 hard ones read exactly as before, in 0.92
#: of the time (0.88 on the hard tier); 3 mm changed 2 hard boards for the worse, 3 mm and
#: 6 degrees a development board.
ALONG_MM = 2.5


@dataclass(frozen=True)
class StickFit:
    """A stick found on the canvas: centre-line ends ``p0``/``p1`` in board mm, its measured
    ``length_mm``, the ``kind`` named from it, and ``seam``: True when cut from a longer
    stretch at a seam."""

    kind: str
    p0: tuple[float, float]
    p1: tuple[float, float]
    length_mm: float
    seam: bool | None = None


@dataclass(frozen=True)
class _Line:
    cx: float  # a point on the line, canvas px
    cy: float
    angle: float  # radians, direction of the line
    # The direction's components as floats: computed once per line (the search asks for
    # them thousands of times per frame).
    cos: float = field(init=False, repr=False, compare=False)
    sin: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cos", math.cos(self.angle))
        object.__setattr__(self, "sin", math.sin(self.angle))

    # Direction ``d`` and normal ``n``, read-only (2,) float64: made when first asked (most
    # lines never are; two small arrays per line were a few percent of the search).
    @cached_property
    def d(self) -> NDArray[np.float64]:
        d = np.array([self.cos, self.sin])
        d.setflags(write=False)
        return d

    @cached_property
    def n(self) -> NDArray[np.float64]:
        n = np.array([-self.sin, self.cos])
        n.setflags(write=False)
        return n

    def at(self, t_mm: float, s: float) -> NDArray[np.float64]:
        return np.array([self.cx + self.cos * t_mm * s, self.cy + self.sin * t_mm * s])

    def t_of(self, p: NDArray[np.float64], s: float) -> float:
        return ((float(p[0]) - self.cx) * self.cos + (float(p[1]) - self.cy) * self.sin) / s


@dataclass(frozen=True)
class _Band:
    """A band sampled along a line: ``wood``/``known`` (nu, nt) bool arrays, the across
    offsets ``u`` (nu,) and along positions ``t`` (nt,), in mm; ``stats``, its
    ``_stretch_stats`` when computed in a batch (None: computed when asked)."""

    line: _Line
    t: NDArray[np.float64]
    u: NDArray[np.float64]
    wood: NDArray[np.bool_]
    known: NDArray[np.bool_]
    # ``_stretch_stats`` of the band when they were computed with others at once
    stats: tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]] | None = None


@dataclass(frozen=True)
class _Candidate:
    line: _Line
    t0: float  # mm along the line from its point
    t1: float

    def ends_px(self, s: float) -> NDArray[np.float64]:
        return np.stack([self.line.at(self.t0, s), self.line.at(self.t1, s)])

    @property
    def length(self) -> float:
        return self.t1 - self.t0


# --------------------------------------------------------------------------- proposals


def _hough_lines(
    core: NDArray[np.uint8], s: float, min_len_mm: float
) -> list[tuple[_Line, float, float]]:
    """Straight pieces of the sticks' cores proposed by ``HoughLinesP`` on a 1 px/mm copy,
    lightly merged: (line in canvas px, t0, t1 mm along it)."""
    k = max(1, round(s))
    small = np.ascontiguousarray(core[::k, ::k]) if k > 1 else core
    segs = cv2.HoughLinesP(
        small,
        rho=1,
        theta=math.pi / 90,
        threshold=max(8, round(0.4 * min_len_mm * s / k)),
        minLineLength=round(0.5 * min_len_mm * s / k),
        maxLineGap=max(2, round(4 * s / k)),
    )
    if segs is None:
        return []
    segs = segs.reshape(-1, 4).astype(np.float64) * k + (k - 1) / 2
    lengths = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    lines: list[list[float]] = []  # cx, cy, angle, t0, t1 (px)
    # each line's centre, direction and normal as arrays, made once (not for every piece
    # compared with it)
    axes: list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = []
    for i in np.argsort(-lengths):
        x0, y0, x1, y1 = segs[i]
        ang = math.atan2(y1 - y0, x1 - x0)
        ends: NDArray[np.float64] | None = None
        for ln, (centre, d, n) in zip(lines, axes, strict=True):
            da = abs((ang - ln[2] + math.pi / 2) % math.pi - math.pi / 2)
            if da > math.radians(3):
                continue
            if ends is None:
                ends = np.array([[x0, y0], [x1, y1]])
            rel = ends - centre
            if np.abs(rel @ n).max() >= 1.5 * s:
                continue
            ts = rel @ d
            if ts.min() > ln[4] + 10 * s or ts.max() < ln[3] - 10 * s:
                continue  # further along the same line: maybe another stick
            ln[3] = min(ln[3], float(ts.min()))
            ln[4] = max(ln[4], float(ts.max()))
            break
        else:
            half = lengths[i] / 2
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            lines.append([cx, cy, ang, -half, half])
            d = np.array([math.cos(ang), math.sin(ang)])
            axes.append((np.array([cx, cy]), d, np.array([-d[1], d[0]])))
    return [(_Line(cx, cy, a), t0 / s, t1 / s) for cx, cy, a, t0, t1 in lines]


def _edge_lines(
    wood_mp: NDArray[np.uint8],
    region: NDArray[np.bool_],
    s: float,
    width_mm: float,
    min_len_mm: float,
) -> list[tuple[_Line, float, float]]:
    """Lines half a stick inside the straight edges where wood (within ``region``) meets
    canvas: a stick half hidden under the string still shows one long edge."""
    wood = wood_mp == WOOD_PX
    non = (wood_mp == NOT_WOOD).astype(np.uint8)
    edge = (wood & region & (cv2.dilate(non, np.ones((3, 3), np.uint8)) > 0)).astype(np.uint8)
    k = max(1, round(s))
    e = _block_max(edge, k) if k > 1 else edge
    segs = cv2.HoughLinesP(
        np.ascontiguousarray(e),
        rho=1,
        theta=math.pi / 90,
        threshold=max(8, round(0.4 * min_len_mm * s / k)),
        minLineLength=round(0.5 * min_len_mm * s / k),
        maxLineGap=max(2, round(3 * s / k)),
    )
    if segs is None:
        return []
    out: list[tuple[_Line, float, float]] = []
    hw, ww = wood_mp.shape
    for x0, y0, x1, y1 in segs.reshape(-1, 4).astype(np.float64) * k + (k - 1) / 2:
        ang = math.atan2(y1 - y0, x1 - x0)
        n = np.array([-math.sin(ang), math.cos(ang)])
        mid = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        side = 0.0
        for sign in (1.0, -1.0):
            q = mid + sign * n * 2.0 * s
            qx, qy = round(q[0]), round(q[1])
            if 0 <= qx < ww and 0 <= qy < hw and wood_mp[qy, qx] == WOOD_PX:
                side += sign
        if side == 0.0:
            continue
        c = mid + side * n * 0.5 * width_mm * s
        half = 0.5 * math.hypot(x1 - x0, y1 - y0) / s
        out.append((_Line(float(c[0]), float(c[1]), ang), -half, half))
    return out


def _block_max(mask: NDArray[np.uint8], k: int) -> NDArray[np.uint8]:
    """The maximum of each whole k x k block of an (H, W) uint8 mask: (H // k, W // k), the
    last H % k rows and W % k columns dropped. Taken over the k * k strided views in turn:
    numpy's reduction over the axes of a reshaped block array was about 3 ms on the canvas
    (a quarter of the stick search on the boards that need a second round)."""
    h, w = mask.shape
    hk, wk = h - h % k, w - w % k
    out = mask[0:hk:k, 0:wk:k].copy()
    for i in range(k):
        for j in range(k):
            if i or j:
                np.maximum(out, mask[i:hk:k, j:wk:k], out=out)
    return out


def _boxed_patches(
    mask: NDArray[np.uint8],
) -> tuple[int, NDArray[np.int32], NDArray[np.int32], tuple[int, int]]:
    """``cv2.connectedComponentsWithStats(mask, 8)`` computed in the box of the mask's
    pixels, its corner moved to even coordinates: the number of labels, the labels of the
    box, the stats in canvas pixels (the patches': the background's row is the box's), and
    the box's corner (x, y). The leftover wood is a few patches on the canvas: the labelling
    of the whole canvas was most of ``_seed_lines``' time. OpenCV's labelling scans in 2 x 2
    blocks, row pair by row pair; from an even corner it meets the pixels in the same order,
    so the patches are numbered alike."""
    x, y, bw, bh = cv2.boundingRect(mask)
    if bw == 0:  # OpenCV's labelling of an empty box crashes
        return 1, np.zeros((0, 0), np.int32), np.zeros((1, 5), np.int32), (0, 0)
    ox, oy = x - x % 2, y - y % 2
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask[oy : y + bh, ox : x + bw], 8)
    stats = np.asarray(stats, np.int32).copy()
    stats[1:, cv2.CC_STAT_LEFT] += ox
    stats[1:, cv2.CC_STAT_TOP] += oy
    return int(n), np.asarray(lab, np.int32), stats, (ox, oy)


def _seed_lines(
    wood_mp: NDArray[np.uint8], rest: NDArray[np.bool_], s: float, width_mm: float
) -> list[tuple[_Line, float, float]]:
    """Lines through the wood left unexplained: in each leftover patch at least a third of a
    stick wide, from its innermost point, the directions along which the wood (the whole
    wood map: the stick may run on under others) reaches furthest, 12 mm each way."""
    n_lab, lab, stats, (ox, oy) = _boxed_patches(rest.astype(np.uint8))
    out: list[tuple[_Line, float, float]] = []
    angles = np.radians(np.arange(0.0, 180.0, 4.0))
    reach = np.arange(-12.0, 12.01, 1.0)
    min_area = 0.25 * width_mm * 12.0 * s * s
    for k in range(1, n_lab):
        if stats[k, cv2.CC_STAT_AREA] < min_area:
            continue
        x0, y0 = stats[k, cv2.CC_STAT_LEFT], stats[k, cv2.CC_STAT_TOP]
        w, h = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
        patch = (lab[y0 - oy : y0 - oy + h, x0 - ox : x0 - ox + w] == k).astype(np.uint8)
        dist = cv2.distanceTransform(np.pad(patch, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
        if dist.max() < 0.25 * width_mm * s:
            continue
        cy, cx = np.unravel_index(int(np.argmax(dist)), dist.shape)
        px, py = float(cx + x0), float(cy + y0)
        xs = (px + np.outer(np.cos(angles), reach * s)).astype(np.float32)
        ys = (py + np.outer(np.sin(angles), reach * s)).astype(np.float32)
        vals = cv2.remap(
            wood_mp, xs, ys, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0
        )
        score = (vals != 0).mean(1) + 0.5 * (vals == 1).mean(1)
        order = np.argsort(-score)
        taken: list[float] = []
        for i in order[:6]:
            if score[i] < 1.2:
                break
            a = float(angles[i])
            if any(
                abs((a - b + math.pi / 2) % math.pi - math.pi / 2) < math.radians(15) for b in taken
            ):
                continue
            taken.append(a)
            out.append((_Line(px, py, a), -6.0, 6.0))
            if len(taken) == 2:
                break
    return out


@lru_cache(maxsize=8)
def _offsets(half_width_mm: float) -> NDArray[np.float64]:
    """The across offsets of a band, mm: (nu,) read-only, every ``STEP_MM``."""
    u = np.arange(-half_width_mm, half_width_mm + 1e-9, STEP_MM)
    u.setflags(write=False)
    return u


def _t_grid(
    shape: tuple[int, int], line: _Line, s: float, t_range_mm: tuple[float, float], step_mm: float
) -> NDArray[np.float64]:
    """Positions along ``line`` every ``step_mm`` within ``t_range_mm`` clipped to the
    canvas's extent along the line (from its corners: four points, plain floats), mm."""
    h, w = shape
    along_x = ((0.0 - line.cx) * line.cos, (w - line.cx) * line.cos)
    along_y = ((0.0 - line.cy) * line.sin, (h - line.cy) * line.sin)
    t_lo = max((min(along_x) + min(along_y)) / s, t_range_mm[0])
    t_hi = min((max(along_x) + max(along_y)) / s, t_range_mm[1])
    return np.arange(t_lo, max(t_lo, t_hi) + 1e-9, step_mm)


def _sample_band(
    wood_mp: NDArray[np.uint8],
    line: _Line,
    half_width_mm: float,
    s: float,
    t_range_mm: tuple[float, float],
    step_mm: float = STEP_MM,
) -> _Band:
    """Sample the wood map (``wood_map``: 0 not wood, 1 wood, 2 and 3 unknown) along ``line`` within
    ``t_range_mm`` (clipped to the canvas), ``half_width_mm`` to each side, every
    ``step_mm`` along and ``STEP_MM`` across."""
    t = _t_grid(wood_mp.shape, line, s, t_range_mm, step_mm)
    u = _offsets(half_width_mm)
    ts = (t * s).astype(np.float32)
    us = (u * s).astype(np.float32)
    mx = np.add.outer(us * np.float32(-line.sin) + np.float32(line.cx), ts * np.float32(line.cos))
    my = np.add.outer(us * np.float32(line.cos) + np.float32(line.cy), ts * np.float32(line.sin))
    vals = cv2.remap(
        wood_mp, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )
    return _Band(line, t, u, vals == 1, vals <= 1)


def _sample_bands(
    wood_mp: NDArray[np.uint8],
    lines: list[_Line],
    half_width_mm: float,
    s: float,
    t_ranges_mm: list[tuple[float, float]],
    step_mm: float,
    width_mm: float,
) -> list[_Band]:
    """``_sample_band`` for several lines (each within its own t range) with one ``remap``
    (the same samples: each band's grid is its own, padded on to the longest), with their
    ``_stretch_stats`` for sticks ``width_mm`` wide, also computed at once (column by
    column: the padding changes none)."""
    if not lines:
        return []
    grids = [
        _t_grid(wood_mp.shape, ln, s, tr, step_mm)
        for ln, tr in zip(lines, t_ranges_mm, strict=True)
    ]
    nt = max(1, max(g.size for g in grids))
    t_all = np.array([g[0] if g.size else 0.0 for g in grids])[:, None] + step_mm * np.arange(nt)
    for k, g in enumerate(grids):
        t_all[k, : g.size] = g  # np.arange's own values, bit for bit
    u = _offsets(half_width_mm)
    ts = (t_all * s).astype(np.float32)  # (L, nt)
    us = (u * s).astype(np.float32)  # (nu,)
    cx = np.array([ln.cx for ln in lines], np.float32)[:, None, None]
    cy = np.array([ln.cy for ln in lines], np.float32)[:, None, None]
    co = np.array([ln.cos for ln in lines], np.float32)[:, None, None]
    si = np.array([ln.sin for ln in lines], np.float32)[:, None, None]
    mx = (us[None, :, None] * -si + cx) + ts[:, None, :] * co
    my = (us[None, :, None] * co + cy) + ts[:, None, :] * si
    nu = u.size
    vals = cv2.remap(
        wood_mp,
        mx.reshape(-1, nt),
        my.reshape(-1, nt),
        cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    ).reshape(len(lines), nu, nt)
    wood = vals == 1
    known = vals <= 1
    ok, ok_or_unknown, both = _stretch_stats(wood, known, u, width_mm)
    return [
        _Band(
            ln,
            g,
            u,
            wood[k, :, : g.size],
            known[k, :, : g.size],
            (ok[k, : g.size], ok_or_unknown[k, : g.size], both[k, : g.size]),
        )
        for k, (ln, g) in enumerate(zip(lines, grids, strict=True))
    ]


def _recentre(band: _Band, t0: float, t1: float, width_mm: float, s: float) -> _Line:
    """The line moved and turned onto the stick between ``t0`` and ``t1`` (mm along the
    band). Each cross-section gives the stick's centre from whichever long edge it shows
    (wood running from the middle out to canvas, the edge half a stick from the centre);
    a straight line is fitted to these, then refitted without those more than 0.75 mm off
    (another stick's edge, a joint). One edge suffices: the string often lies along a stick
    and hides the other."""
    # (the arrays' own methods: numpy's functions add a wrapper call each)
    c0, c1 = band.t.searchsorted([t0 - 1e-9, t1 + 1e-9])
    if c1 - c0 < 6:
        return band.line
    ts_all = band.t[c0:c1]
    wood = band.wood[:, c0:c1]
    non = band.known[:, c0:c1] & ~wood
    half = 0.5 * width_mm
    mid = int(np.abs(band.u).argmin())
    cols = np.arange(c1 - c0)
    ts_parts: list[NDArray[np.float64]] = []
    cs_parts: list[NDArray[np.float64]] = []
    for sign in (1, -1):
        rows = slice(mid, None) if sign > 0 else slice(mid, None, -1)
        us = band.u[rows]
        nn = non[rows]
        first_non = nn.argmax(0)  # 0 where none (and where the middle is canvas)
        ok = first_non > 0
        idx = np.maximum(first_non, 1)
        # wood most of the way from the middle to the edge (unknown pixels allowed; the
        # first canvas pixel is the edge by construction)
        cum = wood[rows].cumsum(0, dtype=np.int16)
        run_ok = ok & (cum[idx - 1, cols] > 0.6 * idx)
        centre = us[idx] - sign * (STEP_MM / 2 + half)  # the edge, less half a stick
        good = run_ok & (np.abs(centre) < 2.5)
        ts_parts.append(ts_all[good])
        cs_parts.append(centre[good])
    ts = np.concatenate(ts_parts)
    cs = np.concatenate(cs_parts)
    if ts.size < 6:
        return band.line
    keep = np.ones(ts.size, bool)
    off = slope = tm = 0.0  # the first fit (all of the 6 or more points) always runs
    for fit in range(3):
        k = int(np.count_nonzero(keep))
        if k < 6:
            break
        tk, ck = ts[keep], cs[keep]
        tm = float(tk.sum()) / k
        dt = tk - tm
        # least squares of c = off + slope * dt, in closed form (dt is centred)
        off = float(ck.sum()) / k
        slope = float((dt * ck).sum() / max(float((dt * dt).sum()), 1e-9))
        if fit == 2:
            break  # the last fit: no points to choose for another
        keep = np.abs(cs - (off + slope * (ts - tm))) < 0.75
    line = band.line
    p = np.array([line.cx, line.cy]) + (line.d * tm + line.n * off) * s
    return _Line(float(p[0]), float(p[1]), line.angle + math.atan(slope))


def _runs(ok: NDArray[np.bool_], gap: int) -> list[tuple[int, int]]:
    """Index ranges [i0, i1] where ``ok`` holds, bridging gaps of up to ``gap`` samples."""
    # (``nonzero`` of 1-D arrays, without ``np.flatnonzero``'s wrappers)
    idx = ok.nonzero()[0]
    if idx.size == 0:
        return []
    # the steps between the indices (np.diff's, without its overhead)
    breaks = ((idx[1:] - idx[:-1]) > gap + 1).nonzero()[0].tolist()
    ids = idx.tolist()
    starts = [ids[0]] + [ids[b + 1] for b in breaks]
    ends = [ids[b] for b in breaks] + [ids[-1]]
    return list(zip(starts, ends, strict=True))


@lru_cache(maxsize=16)
def _band_rows(
    u0: float, nu: int, width_mm: float
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """Row ranges of a band whose offsets are ``u0 + STEP_MM * arange(nu)``: the inner band
    (to 0.75 mm inside the stick's sides) and the two flanks (1.25 to 3 mm outside)."""
    u = u0 + STEP_MM * np.arange(nu)
    half = 0.5 * width_mm
    i0, i1 = np.searchsorted(u, [-(half - 0.75) - 1e-9, half - 0.75 + 1e-9])
    f0, f1 = np.searchsorted(u, [-(half + 3.0) - 1e-9, -(half + 1.25) + 1e-9])
    g0, g1 = np.searchsorted(u, [half + 1.25 - 1e-9, half + 3.0 + 1e-9])
    return (int(i0), int(i1)), (int(f0), int(f1)), (int(g0), int(g1))


def _stretch_stats(
    wood: NDArray[np.bool_], known: NDArray[np.bool_], u: NDArray[np.float64], width_mm: float
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """Per cross-section of bands ((..., nu, nt) ``wood``/``known``, offsets ``u``): whether
    it counts as stick (``ok``), as stick or unknown (the string, a shadow line: too few
    known pixels to say), and whether both flanks are wood; each (..., nt) bool."""
    # u is sorted: the inner band and the flanks are row slices (views, no copies)
    (i0, i1), (f0, f1), (g0, g1) = _band_rows(float(u[0]), u.size, width_mm)
    wood8 = wood.view(np.uint8)
    wood_n = wood8[..., i0:i1, :].sum(-2, dtype=np.int32)
    n_known = known[..., i0:i1, :].view(np.uint8).sum(-2, dtype=np.int32)
    enough = n_known >= 0.35 * (i1 - i0)
    ok = enough & (wood_n >= COVER_MIN * n_known)
    both = (2 * wood8[..., f0:f1, :].sum(-2, dtype=np.int32) > (f1 - f0)) & (
        2 * wood8[..., g0:g1, :].sum(-2, dtype=np.int32) > (g1 - g0)
    )
    return ok, ok | ~enough, both


def _stretch_ranges(
    band: _Band,
    width_mm: float,
    min_len_mm: float,
    both_max: float = 0.45,
    through_mm: float | None = None,
) -> list[tuple[float, float]]:
    """(t0, t1) mm of the stretches of ``band`` that look like a stick (at most
    ``both_max`` of their cross-sections with wood on both flanks); with ``through_mm``,
    only those that may pass within 1 mm of it (the others are not looked at: a stretch
    lies inside its run of stick-or-unknown cross-sections, so a run that does not come
    within 1 mm holds none that does)."""
    if band.t.size == 0:
        return []
    stats = band.stats
    if stats is None:
        stats = _stretch_stats(band.wood, band.known, band.u, width_mm)
    ok, ok_or_unknown, both = stats
    # Unknown cross-sections between stick sections count as stick.
    step = float(band.t[1] - band.t[0]) if band.t.size > 1 else STEP_MM
    out = []
    oki = ok.view(np.int8)
    for r0, r1 in _runs(ok_or_unknown, round(GAP_MM / step)):
        if through_mm is not None and not (band.t[r0] - 1.0 <= through_mm <= band.t[r1] + 1.0):
            continue
        if (r1 - r0) * step < min_len_mm:
            continue  # too short even before its ends are trimmed to stick sections
        seg = oki[r0 : r1 + 1]
        first = r0 + int(seg.argmax())
        if not ok[first]:
            continue
        last = r1 - int(seg[::-1].argmax())
        if (last - first) * step < min_len_mm:
            continue
        if np.count_nonzero(both[first : last + 1]) > both_max * (last - first + 1):
            continue  # wood on both flanks: part of something wider than a stick
        out.append((float(band.t[first]), float(band.t[last])))
    return out


def _measure(
    wood_mp: NDArray[np.uint8],
    line: _Line,
    t0: float,
    t1: float,
    width_mm: float,
    s: float,
    min_len_mm: float,
    band: _Band | None = None,
    both_max: float = 0.45,
) -> list[_Candidate]:
    """Re-aim ``line`` on its stretch [t0, t1] (sampled in ``band``, or afresh) and measure
    the stretch again on the new line; the stretches that overlap the old one."""
    half = 0.5 * width_mm + 3.0
    if band is None:
        band = _sample_band(wood_mp, line, half, s, (t0 - 1.0, t1 + 1.0))
    ln = _recentre(band, t0, t1, width_mm, s)
    lo = ln.t_of(line.at(t0, s), s)
    hi = ln.t_of(line.at(t1, s), s)
    b = _sample_band(wood_mp, ln, half, s, (lo - 12.0, hi + 12.0))
    return [
        _Candidate(ln, r0, r1)
        for r0, r1 in _stretch_ranges(b, width_mm, min_len_mm, both_max)
        if r1 >= lo - 5 and r0 <= hi + 5
    ]


def _scan(
    wood_mp: NDArray[np.uint8],
    line: _Line,
    t0: float,
    t1: float,
    width_mm: float,
    s: float,
    reach_mm: float,
    both_max: float = 0.45,
) -> list[_Candidate]:
    """Turn ``line`` about the middle of its stretch [t0, t1] (up to ``SCAN_MAX_DEG`` each
    way, in 3-degree steps, each re-centred on the wood it crosses) and keep the turn whose
    stretch through the middle is longest: for a stick crossed so often that few of its
    cross-sections are clean, which ``_recentre`` needs. All turns are sampled at once."""
    half = 0.5 * width_mm + 3.0
    tc = 0.5 * (t0 + t1)
    pivot = line.at(tc, s)
    degrees = range(-SCAN_MAX_DEG, SCAN_MAX_DEG + 1, 3)
    span = [(-reach_mm, reach_mm)] * len(degrees)
    turns = [
        _Line(float(pivot[0]), float(pivot[1]), line.angle + math.radians(deg)) for deg in degrees
    ]
    sampled = _sample_bands(wood_mp, turns, half, s, span, 1.0, width_mm)
    bands = [b for b in sampled if b.t.size >= 3]
    # Re-centre each turn on the wood it crosses (the mean offset of the inner band's wood;
    # sums of whole half-millimetres: exact in any order).
    moved: dict[int, _Line] = {}
    for k, b in enumerate(bands):
        inner = np.abs(b.u) <= 0.5 * width_mm + 1.0
        wood = b.wood[inner]
        total = int(np.count_nonzero(wood))
        if total > 0:
            off = float(wood.sum(1, dtype=np.int64) @ b.u[inner]) / total
            if abs(off) > 0.25:
                p = pivot + b.line.n * off * s
                moved[k] = _Line(float(p[0]), float(p[1]), b.line.angle)
    again = _sample_bands(wood_mp, list(moved.values()), half, s, span[: len(moved)], 1.0, width_mm)
    for k, b in zip(moved, again, strict=True):
        bands[k] = b
    best: tuple[float, _Candidate] | None = None
    for b in bands:
        for r0, r1 in _stretch_ranges(b, width_mm, 0.0, both_max, through_mm=0.0):
            if r0 - 1.0 <= 0.0 <= r1 + 1.0:
                score = r1 - r0
                if best is None or score > best[0]:
                    best = (score, _Candidate(b.line, r0, r1))
    return [] if best is None else [best[1]]


def _centred(
    wood_mp: NDArray[np.uint8], line: _Line, t0: float, t1: float, s: float, width_mm: float
) -> _Line:
    """``line`` moved across onto the middle of the wood along its piece [t0, t1] (the
    median, over cross-sections with at least half a stick of wood, of the wood's centre);
    ``line`` itself when it is already within 0.25 mm."""
    b = _sample_band(wood_mp, line, 0.5 * width_mm + 3.0, s, (t0, t1), 1.0)
    if b.t.size < 3:
        return line
    w = b.wood.astype(np.float64)
    cnt = w.sum(0)
    ok = cnt >= 0.5 * width_mm / STEP_MM
    if int(ok.sum()) < 3:
        return line
    off = float(np.median((w[:, ok] * b.u[:, None]).sum(0) / cnt[ok]))
    if abs(off) < 0.25:
        return line
    p = np.array([line.cx, line.cy]) + line.n * off * s
    return _Line(float(p[0]), float(p[1]), line.angle)


def _first_bands(
    wood_mp: NDArray[np.uint8],
    proposals: list[tuple[_Line, float, float]],
    s: float,
    profile: KitProfile,
) -> list[_Band]:
    """The band ``_candidates_on`` first measures along each proposed line piece (a kit
    stick's reach beyond either end, every millimetre), all sampled at once."""
    width = profile.stick_width_mm
    reach = 0.6 * profile.sorted_sticks[-1].length_mm
    return _sample_bands(
        wood_mp,
        [ln for ln, _, _ in proposals],
        0.5 * width + 3.0,
        s,
        [(t0 - reach, t1 + reach) for _, t0, t1 in proposals],
        1.0,
        width,
    )


def _candidates_on(
    wood_mp: NDArray[np.uint8],
    line: _Line,
    t_range: tuple[float, float],
    s: float,
    profile: KitProfile,
    band: _Band | None = None,
) -> list[_Candidate]:
    """Candidate sticks along a proposed line (module docstring, step 2); ``band``: the
    line's ``_first_bands`` band if sampled already."""
    width = profile.stick_width_mm
    lengths = [k.length_mm for k in profile.sorted_sticks]
    min_len = 0.6 * lengths[0]
    reach = 0.6 * lengths[-1]
    half = 0.5 * width + 3.0
    if band is None:
        band = _first_bands(wood_mp, [(line, *t_range)], s, profile)[0]
    out: list[_Candidate] = []
    for t0, t1 in _stretch_ranges(band, width, min_len):
        measured = _measure(wood_mp, line, t0, t1, width, s, min_len, band)
        if not any(min(abs(c.length - k) for k in lengths) <= 6.0 for c in measured):
            # No kit length: maybe aimed off by a few degrees. Look around.
            for c in _scan(wood_mp, line, t0, t1, width, s, reach):
                measured.extend(_measure(wood_mp, c.line, c.t0, c.t1, width, s, min_len))
        for c in measured:
            out.append(c)
            if min(abs(c.length - length) for length in lengths) <= 6.0:
                continue
            # A kit-length piece at either end of each kit length it exceeds, each re-aimed
            # on its own wood (their bands sampled at once).
            pieces = [
                (a, b)
                for length in lengths
                if c.length > length + 6.0
                for a, b in ((c.t0, c.t0 + length), (c.t1 - length, c.t1))
            ]
            bands = _sample_bands(
                wood_mp,
                [c.line] * len(pieces),
                half,
                s,
                [(a - 1.0, b + 1.0) for a, b in pieces],
                STEP_MM,
                width,
            )
            for (a, b), band2 in zip(pieces, bands, strict=True):
                ln = _recentre(band2, a + 3.0, b - 3.0, width, s)
                lo = ln.t_of(c.line.at(a, s), s)
                out.append(_Candidate(ln, lo, lo + (b - a)))
    return out


# --------------------------------------------------------------------------- selection


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

    def delta_add(self, i: int) -> float:
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

    def remove(self, i: int) -> None:
        f = self.feet[i]
        self.count[f] = self.count[f] - 1


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


def _dedupe(cands: list[_Candidate], s: float) -> list[_Candidate]:
    """Drop candidates whose ends both lie within 1.5 mm of an earlier one's."""
    if not cands:
        return cands
    ends = np.stack([c.ends_px(s).ravel() / s for c in cands])  # (n, 4)
    swapped = ends[:, [2, 3, 0, 1]]
    # (n, n): candidate j's ends within 1.5 mm of candidate i's (either way round)
    d1 = np.abs(ends[None, :, :] - ends[:, None, :]).max(2)
    d2 = np.abs(ends[None, :, :] - swapped[:, None, :]).max(2)
    close = (np.minimum(d1, d2) < 1.5).tolist()
    keep: list[int] = []
    for i in range(len(cands)):
        row = close[i]
        if not any(row[k] for k in keep):
            keep.append(i)
    return [cands[i] for i in keep]


_NINE = np.arange(9.0)
_NINE.setflags(write=False)


def _nine_points(t0: float, t1: float) -> NDArray[np.float64]:
    """``np.linspace(t0, t1, 9)``, the same operations in the same order (a step from the
    difference, the positions scaled and shifted, the last one set to ``t1``) without its
    dozen calls of overhead."""
    ts = _NINE * ((t1 - t0) / 8) + t0
    ts[-1] = t1
    return ts


def _covered(line: _Line, t0: float, t1: float, cands: list[_Candidate], s: float) -> bool:
    """Whether a proposed line piece lies along a candidate already measured: same
    direction within 4 degrees, and at least 70% of the piece within ``ALONG_MM`` of the
    candidate's centre line and inside its extent (a Hough piece often runs on through a
    crossing into the next stick). Such a piece is not measured: it would find the same
    stick again.

    A candidate the whole piece passes clear of (both its ends more than a pixel beyond
    the same side of the candidate's band or extent, so every point between them too) is
    passed over without placing the points: the same answer, and most candidates in the
    same direction are other sticks."""
    lim_px = ALONG_MM * s + 1.0
    ax, ay = line.cx + line.cos * t0 * s, line.cy + line.sin * t0 * s
    bx, by = line.cx + line.cos * t1 * s, line.cy + line.sin * t1 * s
    pts: NDArray[np.float64] | None = None
    for c in cands:
        cl = c.line
        da = abs((line.angle - cl.angle + math.pi / 2) % math.pi - math.pi / 2)
        if da > math.radians(4):
            continue
        across_a = (ay - cl.cy) * cl.cos - (ax - cl.cx) * cl.sin
        across_b = (by - cl.cy) * cl.cos - (bx - cl.cx) * cl.sin
        if min(across_a, across_b) > lim_px or max(across_a, across_b) < -lim_px:
            continue
        along_a = ((ax - cl.cx) * cl.cos + (ay - cl.cy) * cl.sin) / s
        along_b = ((bx - cl.cx) * cl.cos + (by - cl.cy) * cl.sin) / s
        if min(along_a, along_b) > c.t1 + 4.0 or max(along_a, along_b) < c.t0 - 4.0:
            continue
        if pts is None:
            pts = np.array([line.cx, line.cy])[None, :] + np.outer(_nine_points(t0, t1) * s, line.d)
        rel = pts - np.array([cl.cx, cl.cy])
        across = np.abs(rel @ cl.n) <= ALONG_MM * s
        along = rel @ cl.d / s
        inside = (along >= c.t0 - 3.0) & (along <= c.t1 + 3.0)
        if np.count_nonzero(across & inside) >= 0.7 * 9:  # a share of the 9 points
            return True
    return False


# --------------------------------------------------------------------------- public


#: Wood map codes.
NOT_WOOD, WOOD_PX, DARK_PX, SHADE_PX = 0, 1, 2, 3


def wood_map(
    wood: NDArray[np.uint8], dark: NDArray[np.uint8], shade: NDArray[np.uint8]
) -> NDArray[np.uint8]:
    """(H, W) uint8 codes: ``WOOD_PX``, ``DARK_PX`` (the string, which lies on top and may
    hide wood), ``SHADE_PX`` (grey: a shadow, which may fall on wood), ``NOT_WOOD``.
    Inputs are (H, W) uint8 0/1 masks. Wood is opened with a 3x3 square first: the one- or
    two-pixel rims that blending gives coloured shapes are not wood."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    w = cv2.morphologyEx(wood, cv2.MORPH_OPEN, k)
    out = w.copy()
    out[(shade > 0) & (w == 0)] = SHADE_PX
    out[(dark > 0) & (w == 0)] = DARK_PX
    return out


def _core(
    wood: NDArray[np.uint8], unknown: NDArray[np.bool_], s: float, width_mm: float
) -> NDArray[np.uint8]:
    """The sticks' cores: wood with the unknown pixels near it filled in, eroded to a
    3 mm wide centre band. Computed in the box of the wood with both kernels' widths round
    it (the same pixels: nothing outside it is near wood, and no window inside it reaches
    past the margin)."""
    r = 2 * round(4.0 * s) + 1
    er = max(1, round((width_mm - 3.0) * s))
    core = np.zeros_like(wood)
    x, y, bw, bh = cv2.boundingRect(wood)
    if bw == 0:
        return core
    pad = r + er
    h, w = wood.shape
    box = np.s_[max(0, y - pad) : min(h, y + bh + pad), max(0, x - pad) : min(w, x + bw + pad)]
    near = cv2.dilate(wood[box], cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
    filled = wood[box] | (unknown[box] & (near > 0)).astype(np.uint8)
    core[box] = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (er, er)))
    return core


def find_sticks(
    wood_mp: NDArray[np.uint8], s: float, profile: KitProfile
) -> tuple[list[StickFit], NDArray[np.bool_]]:
    """The sticks in a wood map (``wood_map``) at ``s`` px/mm, and the (H, W) bool mask of
    their rectangles."""
    width = profile.stick_width_mm
    kinds = profile.sorted_sticks
    min_len = 0.6 * kinds[0].length_mm
    wood = (wood_mp == 1).astype(np.uint8)
    # The string may hide wood: its pixels and the shaded fringe along it fill in. Other
    # shadow lines stay boundaries (between two sticks laid close side by side).
    dark = (wood_mp == DARK_PX).astype(np.uint8)
    fringe = cv2.dilate(dark, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))) > 0
    unknown = (dark > 0) | ((wood_mp == SHADE_PX) & fringe)
    shape = wood.shape
    cands: list[_Candidate] = []
    proposed = _hough_lines(_core(wood, unknown, s, width), s, min_len)
    first = _first_bands(wood_mp, proposed, s, profile)
    for (line, t0, t1), band in zip(proposed, first, strict=True):
        if not _covered(line, t0, t1, cands, s):
            cands.extend(_candidates_on(wood_mp, line, (t0, t1), s, profile, band))
    cands = _dedupe(cands, s)
    chosen = _choose(cands, wood, wood_mp, s, profile)
    # Second round: lines proposed on the wood the first round leaves unexplained.
    explained = _explained(cands, chosen, shape, width, s)
    grow = cv2.dilate(explained.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    rest = (wood > 0) & ~grow
    if int(rest.sum()) > 0.5 * min_len * width * s * s:
        extra: list[_Candidate] = []
        near_rest = cv2.dilate(rest.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        proposals = _seed_lines(wood_mp, rest, s, width)
        proposals += _edge_lines(wood_mp, near_rest, s, width, min_len)
        first = _first_bands(wood_mp, proposals, s, profile)
        for (line, t0, t1), band in zip(proposals, first, strict=True):
            if not _covered(line, t0, t1, cands + extra, s):
                found = _candidates_on(wood_mp, line, (t0, t1), s, profile, band)
                # These proposals are rough (an edge half a stick in, a leftover's longest
                # reach): a line a millimetre or two off a stick crossed by others may find
                # no clean stretch. Centred on its wood, it may.
                centred = _centred(wood_mp, line, t0, t1, s, width) if not found else line
                if not found and centred is not line:
                    found = _candidates_on(wood_mp, centred, (t0, t1), s, profile)
                if not found:
                    # ...or aimed a few degrees off a stick in a heap: turn it about its
                    # middle (``_scan``) and measure the best turn.
                    # In a heap the stick's flanks are often other sticks: allow more of
                    # them (the selection still has to find the stick worth its cost).
                    reach = 0.6 * kinds[-1].length_mm
                    for c in _scan(wood_mp, centred, t0, t1, width, s, reach, HEAP_BOTH_MAX):
                        found.extend(
                            _measure(
                                wood_mp,
                                c.line,
                                c.t0,
                                c.t1,
                                width,
                                s,
                                min_len,
                                both_max=HEAP_BOTH_MAX,
                            )
                        )
                extra.extend(found)
        if extra:
            cands = _dedupe(cands + extra, s)
            chosen = _choose(cands, wood, wood_mp, s, profile)
            explained = _explained(cands, chosen, shape, width, s)
    out: list[StickFit] = []
    for i in chosen:
        c = cands[i]
        e = (c.ends_px(s) + 0.5) / s
        kind = min(kinds, key=lambda k: abs(math.log(max(c.length, 1.0) / k.length_mm))).kind
        out.append(
            StickFit(
                kind,
                (float(e[0, 0]), float(e[0, 1])),
                (float(e[1, 0]), float(e[1, 1])),
                float(c.length),
            )
        )
    return out, explained


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
    )
    return _select(cover, len(cands))
