"""Step 2 of the stick search (``vision.picasso.sticks``): the candidate sticks along each
proposed line.

Each proposed line is measured along a band a little wider than a stick: the stretches
where the band is wood from side to side (string and shadow pixels count neither for nor
against) are candidate sticks. Each stretch is re-aimed on its own wood
(a robust straight-line fit of the wood's centre in each clean cross-section). A stretch
longer than a kit stick (a shallow end-to-end joint lets the band run on into the next
stick, or two sticks lie end to end in line) also proposes a kit-length piece at either
end. A stretch whose flanks are both wood is part of something wider (a hand, a heap).
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.masks import runs
from vision.picasso.profile import KitProfile
from vision.picasso.stick_lines import _Band, _Candidate, _Line

#: Band sampling step along and across a line, mm.
STEP_MM = 0.5
#: A cross-section counts as stick when this share of its known pixels is wood.
COVER_MIN = 0.7
#: Gaps in a stretch shorter than this are bridged, mm.
GAP_MM = 2.5
#: ``_scan`` turns a line up to this many degrees each way. The proposals it mends are aimed
#: within a few degrees (Hough in 2-degree steps, leftover patches in 4-degree steps); wider
#: turns in a heap run along the neighbouring sticks instead. Measured on the 302 hand-free
#: development boards (run seeds 0 and 1): 6 degrees found one short stick in a heap that 9
#: missed (board 38 of run seed 1), changed no other count, and is 2/7 less work.
SCAN_MAX_DEG = 6


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
    gap_mm: float = GAP_MM,
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
    for r0, r1 in runs(ok_or_unknown, round(gap_mm / step)):
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
    gap_mm: float = GAP_MM,
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
        for r0, r1 in _stretch_ranges(b, width_mm, min_len_mm, both_max, gap_mm=gap_mm)
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
    gap_mm: float = GAP_MM,
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
        for r0, r1 in _stretch_ranges(b, width_mm, 0.0, both_max, through_mm=0.0, gap_mm=gap_mm):
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
    gap_mm: float = GAP_MM,
) -> list[_Candidate]:
    """Candidate sticks along a proposed line (module docstring, step 2); ``band``: the
    line's ``_first_bands`` band if sampled already; ``gap_mm``: gaps bridged in a
    stretch."""
    width = profile.stick_width_mm
    lengths = [k.length_mm for k in profile.sorted_sticks]
    min_len = 0.6 * lengths[0]
    reach = 0.6 * lengths[-1]
    half = 0.5 * width + 3.0
    if band is None:
        band = _first_bands(wood_mp, [(line, *t_range)], s, profile)[0]
    out: list[_Candidate] = []
    for t0, t1 in _stretch_ranges(band, width, min_len, gap_mm=gap_mm):
        measured = _measure(wood_mp, line, t0, t1, width, s, min_len, band, gap_mm=gap_mm)
        if not any(min(abs(c.length - k) for k in lengths) <= 6.0 for c in measured):
            # No kit length: maybe aimed off by a few degrees. Look around.
            for c in _scan(wood_mp, line, t0, t1, width, s, reach, gap_mm=gap_mm):
                measured.extend(
                    _measure(wood_mp, c.line, c.t0, c.t1, width, s, min_len, gap_mm=gap_mm)
                )
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
