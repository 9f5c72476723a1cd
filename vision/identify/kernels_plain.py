"""The numpy forms of :mod:`vision.identify.kernels_compiled`'s loops: the same arguments and
results, with nothing to import or load beyond numpy.

A command that reads one photo spends about 0.4 s importing numba and loading the compiled
code, against a few milliseconds that these forms take over the compiled ones on a photo:
:mod:`vision.identify.kernels` uses them until a caller that reads many frames asks for the
compiled ones. They are the computations the compiled loops replaced (the same integers and
ties; the outlines' float32 and float64 arithmetic, numpy's pairwise sums included; the
appearance sums in float64, pairwise where the loops sum in order: within float rounding).
Tested against each other in ``tests/identify/test_kernels_forms.py``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

#: Rows of descriptors compared at once in :func:`two_nearest` (bounds its temporaries:
#: rows x columns 64-bit words).
_ROWS = 256


def _distances(wa: NDArray[np.uint64], wb: NDArray[np.uint64]) -> NDArray[np.uint16]:
    """(n, m) Hamming distances of descriptors as 64-bit words, ``wa`` (n, 4) and ``wb``
    (4, m) (each word of every column contiguous)."""
    dist = np.bitwise_count(wa[:, 0, None] ^ wb[0][None, :]).astype(np.uint16)  # <= 256
    for k in range(1, wa.shape[1]):
        dist += np.bitwise_count(wa[:, k, None] ^ wb[k][None, :])
    return dist


def two_nearest(
    a: NDArray[np.uint8], b: NDArray[np.uint8]
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.intp]]:
    """See :func:`vision.identify.kernels.two_nearest`."""
    wa = np.ascontiguousarray(a, np.uint8).view(np.uint64)
    wb = np.ascontiguousarray(np.ascontiguousarray(b, np.uint8).view(np.uint64).T)
    n = len(wa)
    first = np.empty(n, np.int32)
    second = np.empty(n, np.int32)
    nearest = np.empty(n, np.intp)
    for lo in range(0, n, _ROWS):
        dist = _distances(wa[lo : lo + _ROWS], wb)
        rows = np.arange(len(dist))
        near = np.argmin(dist, axis=1)  # the lowest index among equals
        first[lo : lo + _ROWS] = dist[rows, near]
        dist[rows, near] = np.iinfo(np.uint16).max
        # (with one column there is no second: 2**30, as the compiled loop leaves it)
        second[lo : lo + _ROWS] = dist.min(axis=1) if dist.shape[1] > 1 else 1 << 30
        nearest[lo : lo + _ROWS] = near
    return first, second, nearest


def lsh_keys(desc: NDArray[np.uint8], bits: NDArray[np.int64]) -> NDArray[np.int64]:
    """See :func:`vision.identify.kernels_compiled.lsh_keys`."""
    unpacked = np.unpackbits(np.asarray(desc, np.uint8), axis=1)  # bit 0: byte 0's highest
    weights = np.int64(1) << np.arange(bits.shape[1], dtype=np.int64)
    if len(unpacked) == 0:
        return np.zeros((len(bits), 0), np.int64)
    return np.stack([unpacked[:, b].astype(np.int64) @ weights for b in bits])


def index_nearest(
    keys: NDArray[np.int64],
    start: NDArray[np.int32],
    stride: int,
    order: NDArray[np.int32],
    query: NDArray[np.uint64],
    entries: NDArray[np.uint64],
    max_distance: int,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """See :func:`vision.identify.kernels_compiled.index_nearest`."""
    tables, n = keys.shape
    empty = np.zeros(0, np.intp)
    if n == 0:
        return empty, empty
    at = (keys + np.arange(tables, dtype=np.int64)[:, None] * stride).ravel()  # (tables * n,)
    lo = start[at].astype(np.int64)
    count = start[at + 1].astype(np.int64) - lo
    total = int(count.sum())
    if total == 0:
        return empty, empty
    # Every (query, bucket position) pair sharing a key.
    q = np.repeat(np.tile(np.arange(n), tables), count)
    p = np.repeat(lo - (np.cumsum(count) - count), count) + np.arange(total)
    e = order[p].astype(np.int64)
    dist = np.bitwise_count(query[q, 0] ^ entries[p, 0]).astype(np.int64)
    for k in range(1, query.shape[1]):
        dist += np.bitwise_count(query[q, k] ^ entries[p, k])
    # Each query's nearest entry (lowest distance, then lowest entry): the least of
    # (distance, entry) among its pairs.
    best = np.full(n, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(best, q, dist << 32 | e)
    near = (best >> 32) <= max_distance
    return np.flatnonzero(near).astype(np.intp), (best[near] & 0xFFFFFFFF).astype(np.intp)


def _near(
    centre: NDArray[np.float32], reach: NDArray[np.float32], members: NDArray[np.intp]
) -> NDArray[np.bool_]:
    """(n, n): vote members[a] is near vote members[b] (float32, as the compiled loop)."""
    c = centre[members]
    dx = c[:, 0, None] - c[None, :, 0]
    dy = c[:, 1, None] - c[None, :, 1]
    return np.asarray(np.sqrt(dx * dx + dy * dy) <= reach[members][None])


def densest(
    centre: NDArray[np.float32], reach: NDArray[np.float32], members: NDArray[np.intp]
) -> tuple[int, NDArray[np.bool_]]:
    """See :func:`vision.identify.kernels_compiled.densest`."""
    near = _near(centre, reach, members)
    best = int(np.argmax(near.sum(axis=1)))  # the first among equals
    return best, near[best].copy()


def most_near(
    centre: NDArray[np.float32],
    reach: NDArray[np.float32],
    by_card: NDArray[np.intp],
    bounds: NDArray[np.intp],
    cards: NDArray[np.intp],
) -> NDArray[np.int64]:
    """See :func:`vision.identify.kernels_compiled.most_near`."""
    out = np.zeros(len(cards), np.int64)
    for k, c in enumerate(cards):
        members = by_card[bounds[c] : bounds[c + 1]]
        if len(members):
            out[k] = int(_near(centre, reach, members).sum(axis=1).max())
    return out


def side_lines(
    v: NDArray[np.float32],
    offsets: NDArray[np.float64],
    along: NDArray[np.float64],
    floor: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """See :func:`vision.identify.kernels_compiled.side_lines`."""
    sides, _, k = v.shape
    low = np.float32(floor)
    # Each profile's outermost local maximum at least ``floor`` and 40% of its peak (values
    # are >= 0; beyond the ends counts as lower), else its strongest point.
    peak = v.max(axis=-1, keepdims=True)
    strong = v >= np.maximum(low, np.float32(0.4) * peak)
    strong[..., 1:] &= v[..., 1:] >= v[..., :-1]
    strong[..., :-1] &= v[..., :-1] >= v[..., 1:]
    idx = np.where(
        strong.any(axis=-1), k - 1 - strong[..., ::-1].argmax(axis=-1), v.argmax(axis=-1)
    )
    j = np.clip(idx, 1, k - 2)
    flat = v.reshape(-1, k)
    row = np.arange(len(flat)).reshape(idx.shape)
    y0, y1, y2 = flat[row, j - 1], flat[row, j], flat[row, j + 1]
    den = y0 - np.float32(2.0) * y1 + y2
    with np.errstate(divide="ignore", invalid="ignore"):
        sub = np.where(np.abs(den) > np.float32(1e-6), np.float32(0.5) * (y0 - y2) / den, 0)
    step = np.float32(offsets[1] - offsets[0]) if k > 1 else np.float32(1.0)
    sub = np.clip(sub.astype(np.float32), np.float32(-0.5), np.float32(0.5))
    off = offsets[j] + (sub * step).astype(np.float64)
    ok = flat[row, idx] >= low
    # The robust line through the edge points: offset = a * along + b, reweighted twice.
    w = ok.astype(np.float64)
    a = np.zeros(sides)
    b = np.zeros(sides)
    for _ in range(3):
        sw = w.sum(-1) + 1e-9
        mt = (w * along).sum(-1) / sw
        mo = (w * off).sum(-1) / sw
        var = (w * (along - mt[:, None]) ** 2).sum(-1)
        cov = (w * (along - mt[:, None]) * (off - mo[:, None])).sum(-1)
        a = np.where(var > 1e-9, cov / np.maximum(var, 1e-9), 0.0)
        b = mo - a * mt
        res = np.abs(a[:, None] * along + b[:, None] - off)
        w = (ok & (res < 1.0)).astype(np.float64)
    kept = (w > 0).sum(-1).astype(np.int64)
    found = ok.sum(-1).astype(np.int64)
    return a, b, kept, found


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
    """See :func:`vision.identify.kernels_compiled.line_rectangles`."""
    n = len(rho)
    none = np.zeros((0, 4, 2))
    # Parallel pairs (i < j, row by row), line j's normal turned to agree with line i's.
    i_idx, j_idx = np.triu_indices(n, 1)
    cosang = normal[i_idx, 0] * normal[j_idx, 0] + normal[i_idx, 1] * normal[j_idx, 1]
    par = np.abs(cosang) >= parallel_cos
    i_idx, j_idx, sgn = i_idx[par], j_idx[par], np.sign(cosang[par])
    if len(i_idx) == 0:
        return none
    dist = np.abs(rho[i_idx] - sgn * rho[j_idx])
    pa_r, pa_n = rho[i_idx], normal[i_idx]
    pb_r, pb_n = sgn * rho[j_idx], sgn[:, None] * normal[j_idx]
    side_rho: list[NDArray[np.float64]] = []
    side_normal: list[NDArray[np.float64]] = []
    # Two pairs at right angles.
    p, q = np.triu_indices(len(i_idx), 1)
    cross = np.abs(pa_n[p, 0] * pa_n[q, 1] - pa_n[p, 1] * pa_n[q, 0])
    short = np.minimum(dist[p], dist[q])
    long_ = np.maximum(dist[p], dist[q])
    ok = (cross >= right_sin) & (long_ >= lo_h) & (long_ <= hi_h)
    ok &= (short >= short_lo * long_) & (short <= short_hi * long_)
    p, q = p[ok], q[ok]
    side_rho.append(np.stack([pa_r[p], pa_r[q], pb_r[p], pb_r[q]], axis=1))
    side_normal.append(np.stack([pa_n[p], pa_n[q], pb_n[p], pb_n[q]], axis=1))
    # One pair and a single line across it; the fourth side a card's other side away.
    p, k = np.meshgrid(np.arange(len(i_idx)), np.arange(n), indexing="ij")
    p, k = p.ravel(), k.ravel()
    cross = np.abs(pa_n[p, 0] * normal[k, 1] - pa_n[p, 1] * normal[k, 0])
    ok = (cross >= right_sin) & (k != i_idx[p]) & (k != j_idx[p])
    p, k = p[ok], k[ok]
    for factor in (1.0 / aspect, aspect):
        other = dist[p] * factor
        size = np.maximum(other, dist[p])
        fits = (size >= lo_h) & (size <= hi_h)
        pp, kk, oo = p[fits], k[fits], other[fits]
        for sign in (1.0, -1.0):
            side_rho.append(np.stack([pa_r[pp], rho[kk], pb_r[pp], rho[kk] + sign * oo], axis=1))
            side_normal.append(np.stack([pa_n[pp], normal[kk], pb_n[pp], normal[kk]], axis=1))
    r1, n1 = np.concatenate(side_rho), np.concatenate(side_normal)
    if len(r1) == 0:
        return none
    # Corner c where side c meets side c + 1 (non-finite where they are parallel).
    nxt = [1, 2, 3, 0]
    r2, n2 = r1[:, nxt], n1[:, nxt]
    det = n1[..., 0] * n2[..., 1] - n1[..., 1] * n2[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (r1 * n2[..., 1] - r2 * n1[..., 1]) / det
        y = (n1[..., 0] * r2 - n2[..., 0] * r1) / det
    return np.stack([x, y], axis=2)


def describe_cells(
    cells: NDArray[np.float32], min_spread: float, colour_weight: float
) -> NDArray[np.float32]:
    """See :func:`vision.identify.kernels_compiled.describe_cells`."""
    x = np.asarray(cells, np.float64)
    mean = x.mean(axis=1, keepdims=True)
    d = x - mean
    spread = np.maximum(np.sqrt((d[..., 0] ** 2).mean(axis=1, keepdims=True)), min_spread)
    d[..., 0] /= spread
    d[..., 1:] *= colour_weight
    v = d.reshape(len(x), -1)
    scale = 1.0 / np.maximum(np.sqrt((v * v).sum(axis=1, keepdims=True)), 1e-6)
    return (v.astype(np.float32).astype(np.float64) * scale).astype(np.float32)


def cell_agreement(
    observed: NDArray[np.float32],
    reference: NDArray[np.float32],
    inside: NDArray[np.bool_],
    agree_lab: float,
    chroma_lo: float = 1.0,
    chroma_hi: float = 1.0,
) -> NDArray[np.float64]:
    """See :func:`vision.identify.kernels_compiled.cell_agreement`."""
    o = np.asarray(observed, np.float64)
    r = np.asarray(reference, np.float64)
    w = inside.astype(np.float64)
    far2 = (agree_lab * 1.5) ** 2
    res2 = np.zeros(inside.shape)
    da, db = o[..., 1] - r[..., 1], o[..., 2] - r[..., 2]
    for _ in range(4):
        sw = w.sum(axis=1) + 1e-9
        mr, mo = (w * r[..., 0]).sum(1) / sw, (w * o[..., 0]).sum(1) / sw
        oa, ob = (w * da).sum(1) / sw, (w * db).sum(1) / sw
        rc = r[..., 0] - mr[:, None]
        var, cov = (w * rc * rc).sum(1), (w * rc * (o[..., 0] - mo[:, None])).sum(1)
        gain = np.clip(np.where(var > 1e-6, cov / np.maximum(var, 1e-6), 1.0), 0.4, 2.5)
        off = mo - gain * mr
        res2 = (o[..., 0] - gain[:, None] * r[..., 0] - off[:, None]) ** 2
        if chroma_hi > chroma_lo:
            ra, rb = (w * r[..., 1]).sum(1) / sw, (w * r[..., 2]).sum(1) / sw
            ca, cb = r[..., 1] - ra[:, None], r[..., 2] - rb[:, None]
            ea, eb = o[..., 1] - (oa + ra)[:, None], o[..., 2] - (ob + rb)[:, None]
            cvar = (w * (ca * ca + cb * cb)).sum(1)
            ccov = (w * (ca * ea + cb * eb)).sum(1)
            chroma = np.where(cvar > 1e-6, ccov / np.maximum(cvar, 1e-6), 1.0)
            chroma = np.where((chroma >= chroma_lo) & (chroma <= chroma_hi), chroma, 1.0)
            res2 += (ea - chroma[:, None] * ca) ** 2 + (eb - chroma[:, None] * cb) ** 2
        else:  # the offsets alone, summed as they always were
            res2 += (da - oa[:, None]) ** 2 + (db - ob[:, None]) ** 2
        w = np.where(inside, (res2 < far2) + 1e-3, 0.0)
    agree = (res2 < agree_lab * agree_lab) & inside
    return agree.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
