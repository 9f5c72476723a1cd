"""Compiled loops (numba) for the steps of reading pictures whose arithmetic numpy spread
over many small calls or large temporaries: the fast forms of :mod:`vision.identify.kernels`
(which chooses between these and the numpy forms of :mod:`vision.identify.kernels_plain`).

- ORB descriptors: :func:`two_nearest` (the ratio test's two nearest descriptors),
  :func:`lsh_keys` and :func:`index_nearest` (the keypoint index). A descriptor is 256
  bits, read as four 64-bit words; a distance is the popcount of the words' exclusive or.
  In numpy that took a pass per word over an (n, m) array of temporaries, and another for
  the nearest two; here each query's distances are summed in one pass (which the compiler
  vectorises) and the nearest two kept as they are read.
- The frame search's votes: :func:`most_near`, :func:`densest`.
- Outlines: :func:`side_lines` (each side's edge points and robust line in the refinement),
  :func:`line_rectangles` (the card quads of a region's lines).
- Appearance: :func:`describe_cells`, :func:`cell_agreement`.

Each gives what its numpy form gives: the same integers and ties, and for the outlines the
same float32 and float64 arithmetic to the last bit (numpy's pairwise sums included); the
appearance loops sum in float64 in order, the numpy forms pairwise (within float rounding).
Tested against the numpy forms (``tests/identify/test_kernels_forms.py``,
``tests/identify/test_quads_speed.py``). Compiled on first use (about 5 s, once) and cached
beside this module; importing numba and loading the cached code costs a command about 0.4 s.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit
from numpy.typing import NDArray


def _numba_without_blas() -> None:
    """When it first loads a compiled function, numba checks that a BLAS is there for
    ``np.dot`` and ``np.linalg`` in compiled code, by importing ``scipy.linalg`` (a third to
    half a second, and numpy's f2py with it). The kernels here use neither, so the check is
    made with ``scipy.linalg`` out of reach: numba notes that it has no BLAS, and
    ``scipy.linalg`` is imported only where something else needs it (start-up of
    ``pictable identify``)."""
    if "scipy.linalg" in sys.modules or "numba.np.arraymath" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]
    try:
        import numba.np.arraymath  # noqa: F401  (where the check is made, once)
    except Exception:  # another numba that fails here makes its own check later
        sys.modules.pop("numba.np.arraymath", None)
    finally:
        if "scipy.linalg" in sys.modules and sys.modules["scipy.linalg"] is None:
            del sys.modules["scipy.linalg"]


_numba_without_blas()

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)


@njit(inline="always")
def _popcount(x: np.uint64) -> np.uint64:
    # The compiler turns this into the processor's popcount instruction where it has one.
    x = x - ((x >> np.uint64(1)) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return (x * _H01) >> np.uint64(56)


@njit(cache=True, nogil=True)
def _two_nearest(
    wa: NDArray[np.uint64], wb: NDArray[np.uint64]
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.intp]]:
    n = wa.shape[0]
    m = wb.shape[1]
    first = np.empty(n, np.int32)
    second = np.empty(n, np.int32)
    nearest = np.empty(n, np.intp)
    dist = np.empty(m, np.int64)
    b0, b1, b2, b3 = wb[0], wb[1], wb[2], wb[3]
    for i in range(n):
        a0, a1, a2, a3 = wa[i, 0], wa[i, 1], wa[i, 2], wa[i, 3]
        for j in range(m):
            dist[j] = (
                _popcount(a0 ^ b0[j])
                + _popcount(a1 ^ b1[j])
                + _popcount(a2 ^ b2[j])
                + _popcount(a3 ^ b3[j])
            )
        d1 = 1 << 30
        d2 = 1 << 30
        k = 0
        for j in range(m):
            d = dist[j]
            if d < d2:
                if d < d1:  # (strictly: the lowest index among equals stays the nearest)
                    d2 = d1
                    d1 = d
                    k = j
                else:
                    d2 = d
        first[i] = d1
        second[i] = d2
        nearest[i] = k
    return first, second, nearest


def two_nearest(
    a: NDArray[np.uint8], b: NDArray[np.uint8]
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.intp]]:
    """For each of (n, 32) descriptors ``a``: the Hamming distances to its nearest and second
    nearest of (m, 32) descriptors ``b`` (m >= 2), and the nearest's index (the lowest among
    equals): what ``cv2.batchDistance(a, b, K=2, normType=NORM_HAMMING)`` gives, in about a
    fifth of the time numpy's popcounts took and less again of OpenCV's (it calls a function
    per pair)."""
    wa = np.ascontiguousarray(a, np.uint8).view(np.uint64)
    wb = np.ascontiguousarray(np.ascontiguousarray(b, np.uint8).view(np.uint64).T)
    return _two_nearest(wa, wb)


@njit(cache=True, nogil=True)
def lsh_keys(desc: NDArray[np.uint8], bits: NDArray[np.int64]) -> NDArray[np.int64]:
    """(tables, n) hash keys of (n, 32) descriptors: table t's key has bit j set when bit
    ``bits[t, j]`` of the descriptor is (bits numbered as ``np.unpackbits`` gives them: the
    first byte's most significant bit is bit 0)."""
    tables, key_bits = bits.shape
    n = desc.shape[0]
    keys = np.zeros((tables, n), np.int64)
    for t in range(tables):
        for j in range(key_bits):
            b = bits[t, j]
            byte = b >> 3
            shift = 7 - (b & 7)
            for i in range(n):
                keys[t, i] |= np.int64((desc[i, byte] >> shift) & 1) << j
    return keys


@njit(cache=True, nogil=True)
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
    lowest entry), when within ``max_distance`` bits: (query indices, entry indices).
    ``keys`` (tables, n) the queries' keys; table t's key k's entries are
    ``order[start[t * stride + k] : start[t * stride + k + 1]]``; ``query`` (n, 4) the
    queries' descriptors as 64-bit words, ``entries`` (len(order), 4) those of the entries
    in the order of ``order`` (each key's together: a bucket is read from one place)."""
    tables, n = keys.shape
    found_q = np.empty(n, np.intp)
    found_e = np.empty(n, np.intp)
    count = 0
    for i in range(n):
        a0, a1, a2, a3 = query[i, 0], query[i, 1], query[i, 2], query[i, 3]
        best_d = np.int64(max_distance + 1)
        best_e = -1
        for t in range(tables):
            k = t * stride + keys[t, i]
            for p in range(start[k], start[k + 1]):
                e = order[p]
                d = np.int64(
                    _popcount(a0 ^ entries[p, 0])
                    + _popcount(a1 ^ entries[p, 1])
                    + _popcount(a2 ^ entries[p, 2])
                    + _popcount(a3 ^ entries[p, 3])
                )
                if d < best_d or (d == best_d and e < best_e):
                    best_d = d
                    best_e = e
        if best_e >= 0:
            found_q[count] = i
            found_e[count] = best_e
            count += 1
    return found_q[:count], found_e[:count]


@njit(cache=True, nogil=True)
def _near_count(
    centre: NDArray[np.float32], reach: NDArray[np.float32], members: NDArray[np.intp], a: int
) -> int:
    # How many of ``members`` vote i = members[a] is near: within reach[j] of vote j.
    i = members[a]
    count = 0
    for b in range(len(members)):
        j = members[b]
        dx = centre[i, 0] - centre[j, 0]
        dy = centre[i, 1] - centre[j, 1]
        if np.sqrt(dx * dx + dy * dy) <= reach[j]:
            count += 1
    return count


@njit(cache=True, nogil=True)
def densest(
    centre: NDArray[np.float32], reach: NDArray[np.float32], members: NDArray[np.intp]
) -> tuple[int, NDArray[np.bool_]]:
    """The vote among ``members`` (indices of (V, 2) float32 predicted centres ``centre``)
    that most of them are near (vote i is near vote j when their centres are within
    ``reach`` (V,) [j]; the first such vote among equals), as its position in ``members``,
    and whether each member is near it. float32 arithmetic, as numpy's on those arrays."""
    n = len(members)
    best = 0
    most = -1
    for a in range(n):
        count = _near_count(centre, reach, members, a)
        if count > most:
            most = count
            best = a
    near = np.zeros(n, np.bool_)
    i = members[best]
    for b in range(n):
        j = members[b]
        dx = centre[i, 0] - centre[j, 0]
        dy = centre[i, 1] - centre[j, 1]
        near[b] = np.sqrt(dx * dx + dy * dy) <= reach[j]
    return best, near


@njit(cache=True, nogil=True)
def most_near(
    centre: NDArray[np.float32],
    reach: NDArray[np.float32],
    by_card: NDArray[np.intp],
    bounds: NDArray[np.intp],
    cards: NDArray[np.intp],
) -> NDArray[np.int64]:
    """For each of ``cards``: the most of its votes (``by_card[bounds[c] : bounds[c + 1]]``)
    any one of them is near (itself included; see :func:`densest`)."""
    out = np.zeros(len(cards), np.int64)
    for k in range(len(cards)):
        c = cards[k]
        members = by_card[bounds[c] : bounds[c + 1]]
        for a in range(len(members)):
            out[k] = max(out[k], _near_count(centre, reach, members, a))
    return out


@njit(inline="always")
def _sum(x: NDArray[np.float64]) -> float:
    # numpy's sum of a short contiguous run (pairwise: eight partial sums from 8 values on,
    # up to 128), so that the results are numpy's to the last bit.
    n = len(x)
    if n < 8:
        s = 0.0
        for i in range(n):
            s += x[i]
        return s
    r0, r1, r2, r3 = x[0], x[1], x[2], x[3]
    r4, r5, r6, r7 = x[4], x[5], x[6], x[7]
    whole = n - n % 8
    for i in range(8, whole, 8):
        r0 += x[i]
        r1 += x[i + 1]
        r2 += x[i + 2]
        r3 += x[i + 3]
        r4 += x[i + 4]
        r5 += x[i + 5]
        r6 += x[i + 6]
        r7 += x[i + 7]
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(whole, n):
        s += x[i]
    return float(s)


@njit(cache=True, nogil=True)
def side_lines(
    v: NDArray[np.float32],
    offsets: NDArray[np.float64],
    along: NDArray[np.float64],
    floor: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.int64], NDArray[np.int64]]:
    """The edge line along each side of quads, from its profiles ``v`` (s, n, k) float32
    (|gradient . normal| at ``offsets`` (k,) px, increasing outwards, at n points ``along``
    (s, n) px of each of s sides): at each point the outermost local maximum at least
    ``floor`` and 40% of the profile's peak (the strongest when none is), to a sub-pixel
    offset; then offset = a * along + b fitted through the points whose maximum reaches
    ``floor``, twice refitted on those within 1 px of the line. Returns (a, b, the points
    on the last line, the points whose maximum reaches ``floor``), each (s,). The same
    float32 and float64 arithmetic as ``vision.identify.quads``'s numpy code it replaces."""
    sides, n, k = v.shape
    low = np.float32(floor)
    step = np.float32(offsets[1] - offsets[0]) if k > 1 else np.float32(1.0)
    a_out = np.zeros(sides)
    b_out = np.zeros(sides)
    kept = np.zeros(sides, np.int64)
    found = np.zeros(sides, np.int64)
    off = np.empty(n)
    ok = np.empty(n, np.bool_)
    w = np.empty(n)
    tmp = np.empty(n)
    for s in range(sides):
        for p in range(n):
            prof = v[s, p]
            peak = prof[0]
            top = 0
            for j in range(1, k):
                if prof[j] > peak:
                    peak = prof[j]
                    top = j
            least = max(low, np.float32(0.4) * peak)
            idx = -1
            for j in range(k - 1, -1, -1):
                if (
                    prof[j] >= least
                    and (j == 0 or prof[j] >= prof[j - 1])
                    and (j == k - 1 or prof[j] >= prof[j + 1])
                ):
                    idx = j
                    break
            if idx < 0:
                idx = top
            j = min(max(idx, 1), k - 2)
            y0, y1, y2 = prof[j - 1], prof[j], prof[j + 1]
            den = y0 - np.float32(2.0) * y1 + y2
            sub = np.float32(0.0)
            if abs(den) > np.float32(1e-6):
                sub = np.float32(0.5) * (y0 - y2) / den
            sub = min(max(sub, np.float32(-0.5)), np.float32(0.5))
            off[p] = offsets[j] + np.float64(sub * step)
            ok[p] = prof[idx] >= low
        for p in range(n):
            w[p] = 1.0 if ok[p] else 0.0
        a = 0.0
        b = 0.0
        x = along[s]
        for _ in range(3):
            sw = _sum(w) + 1e-9
            for p in range(n):
                tmp[p] = w[p] * x[p]
            mt = _sum(tmp) / sw
            for p in range(n):
                tmp[p] = w[p] * off[p]
            mo = _sum(tmp) / sw
            for p in range(n):
                tmp[p] = w[p] * (x[p] - mt) ** 2
            var = _sum(tmp)
            for p in range(n):
                tmp[p] = w[p] * (x[p] - mt) * (off[p] - mo)
            cov = _sum(tmp)
            a = cov / max(var, 1e-9) if var > 1e-9 else 0.0
            b = mo - a * mt
            for p in range(n):
                w[p] = 1.0 if ok[p] and abs(a * x[p] + b - off[p]) < 1.0 else 0.0
        a_out[s] = a
        b_out[s] = b
        for p in range(n):
            kept[s] += 1 if w[p] > 0 else 0
            found[s] += 1 if ok[p] else 0
    return a_out, b_out, kept, found


@njit(inline="always")
def _four(out: NDArray[np.float64], a: float, b: float, c: float, d: float) -> None:
    out[0], out[1], out[2], out[3] = a, b, c, d


@njit(inline="always", error_model="numpy")
def _corners_of_sides(
    out: NDArray[np.float64], row: int, r: NDArray[np.float64], nx: NDArray[np.float64],
    ny: NDArray[np.float64],
) -> None:  # fmt: skip
    # Corner c of the quad whose side c is the line p . (nx, ny) = r: where sides c and c + 1
    # meet (non-finite when they are parallel).
    for c in range(4):
        d = (c + 1) % 4
        det = nx[c] * ny[d] - ny[c] * nx[d]
        out[row, c, 0] = (r[c] * ny[d] - r[d] * ny[c]) / det
        out[row, c, 1] = (nx[c] * r[d] - nx[d] * r[c]) / det


@njit(cache=True, nogil=True, error_model="numpy")
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
    """The corners (k, 4, 2) of the card quads that lines (rho, unit ``normal``: p . normal =
    rho; n >= 2) make (see ``quads.rectangles_from_lines``): pairs of near-parallel lines
    (``|cos| >= parallel_cos``, the second's normal turned to agree) whose distances apart
    are a card's sides, two such pairs at right angles (``|sin| >= right_sin``, the longer
    distance within [``lo_h``, ``hi_h``], the shorter within [``short_lo``, ``short_hi``]
    of it), then one pair with a single line across it, the fourth side placed by
    ``aspect`` (either way round) on either side. In the order, and with the float64
    arithmetic, of the numpy code it replaces: both pairs (i < j, row by row), then per
    factor 1 / aspect and aspect, per sign +1 and -1, each pair (in order) with each line
    across it (in order)."""
    n = len(rho)
    # Parallel pairs.
    pi = np.empty(n * (n - 1) // 2, np.intp)
    pj = np.empty(n * (n - 1) // 2, np.intp)
    sg = np.empty(n * (n - 1) // 2)
    m = 0
    for i in range(n):
        for j in range(i + 1, n):
            c = normal[i, 0] * normal[j, 0] + normal[i, 1] * normal[j, 1]
            if abs(c) >= parallel_cos:
                pi[m] = i
                pj[m] = j
                sg[m] = 1.0 if c > 0 else (-1.0 if c < 0 else 0.0)
                m += 1
    dist = np.empty(m)
    pa_r = np.empty(m)
    pb_r = np.empty(m)
    pa_n = np.empty((m, 2))
    pb_n = np.empty((m, 2))
    for p in range(m):
        i, j, s = pi[p], pj[p], sg[p]
        dist[p] = abs(rho[i] - s * rho[j])
        pa_r[p] = rho[i]
        pb_r[p] = s * rho[j]
        pa_n[p, 0], pa_n[p, 1] = normal[i, 0], normal[i, 1]
        pb_n[p, 0], pb_n[p, 1] = s * normal[j, 0], s * normal[j, 1]
    # At most every two pairs, and every pair with every line four ways (filled in order,
    # the rest cut off).
    out = np.empty((m * (m - 1) // 2 + 4 * m * n, 4, 2))
    r = np.empty(4)
    nx = np.empty(4)
    ny = np.empty(4)
    row = 0
    # Two pairs at right angles.
    for p in range(m):
        for q in range(p + 1, m):
            cross = abs(pa_n[p, 0] * pa_n[q, 1] - pa_n[p, 1] * pa_n[q, 0])
            short = min(dist[p], dist[q])
            long_ = max(dist[p], dist[q])
            if (
                cross >= right_sin and lo_h <= long_ <= hi_h
                and short_lo * long_ <= short <= short_hi * long_
            ):  # fmt: skip
                _four(r, pa_r[p], pa_r[q], pb_r[p], pb_r[q])
                _four(nx, pa_n[p, 0], pa_n[q, 0], pb_n[p, 0], pb_n[q, 0])
                _four(ny, pa_n[p, 1], pa_n[q, 1], pb_n[p, 1], pb_n[q, 1])
                _corners_of_sides(out, row, r, nx, ny)
                row += 1
    # A pair and a line across it, the fourth side a card's other side away.
    for factor in (1.0 / aspect, aspect):
        for sign in (1.0, -1.0):
            for p in range(m):
                other = dist[p] * factor
                if not lo_h <= max(other, dist[p]) <= hi_h:
                    continue
                for k in range(n):
                    cross = abs(pa_n[p, 0] * normal[k, 1] - pa_n[p, 1] * normal[k, 0])
                    if cross >= right_sin and k != pi[p] and k != pj[p]:
                        _four(r, pa_r[p], rho[k], pb_r[p], rho[k] + sign * other)
                        _four(nx, pa_n[p, 0], normal[k, 0], pb_n[p, 0], normal[k, 0])
                        _four(ny, pa_n[p, 1], normal[k, 1], pb_n[p, 1], normal[k, 1])
                        _corners_of_sides(out, row, r, nx, ny)
                        row += 1
    return out[:row]


@njit(cache=True, nogil=True)
def describe_cells(
    cells: NDArray[np.float32], min_spread: float, colour_weight: float
) -> NDArray[np.float32]:
    """(m, n, 3) Lab cells -> (m, 3 n) float32 unit descriptors: lightness to zero mean and
    unit spread (at least ``min_spread``), each colour axis to zero mean and weighted by
    ``colour_weight`` (``vision.identify.appearance.describe``; sums in float64)."""
    m, n, _ = cells.shape
    out = np.empty((m, 3 * n), np.float32)
    for i in range(m):
        mean = np.zeros(3)
        for j in range(n):
            for c in range(3):
                mean[c] += cells[i, j, c]
        for c in range(3):
            mean[c] /= n
        spread = 0.0
        for j in range(n):
            d = np.float64(cells[i, j, 0]) - mean[0]
            spread += d * d
        spread = max(np.sqrt(spread / n), min_spread)
        norm = 0.0
        for j in range(n):
            v0 = (np.float64(cells[i, j, 0]) - mean[0]) / spread
            v1 = (np.float64(cells[i, j, 1]) - mean[1]) * colour_weight
            v2 = (np.float64(cells[i, j, 2]) - mean[2]) * colour_weight
            out[i, 3 * j] = v0
            out[i, 3 * j + 1] = v1
            out[i, 3 * j + 2] = v2
            norm += v0 * v0 + v1 * v1 + v2 * v2
        scale = 1.0 / max(np.sqrt(norm), 1e-6)
        for j in range(3 * n):
            out[i, j] = np.float32(out[i, j] * scale)
    return out


@njit(cache=True, nogil=True)
def cell_agreement(
    observed: NDArray[np.float32],
    reference: NDArray[np.float32],
    inside: NDArray[np.bool_],
    agree_lab: float,
    chroma_lo: float = 1.0,
    chroma_hi: float = 1.0,
) -> NDArray[np.float64]:
    """``vision.identify.appearance.agreement`` on (k, n, 3) Lab cells, pairwise, and (k, n)
    cells to count: the share of cells within ``agree_lab`` of the reference once lightness
    is fitted as gain * L_ref + offset (gain within 0.4-2.5) and each colour axis by an
    offset, by least squares reweighted three times to the cells within 1.5 ``agree_lab``
    (weight 1e-3 beyond). With ``chroma_lo`` < ``chroma_hi``, the colour axes about their
    means are also scaled by one gain, the least-squares one where it lies within
    [``chroma_lo``, ``chroma_hi``], else 1 (without a range, the sums are those of before the fit
    existed, in their order). Sums in float64."""
    fit = chroma_hi > chroma_lo
    k, n, _ = observed.shape
    out = np.zeros(k)
    w = np.empty(n)
    res2 = np.empty(n)
    far2 = (agree_lab * 1.5) ** 2
    for i in range(k):
        for j in range(n):
            w[j] = 1.0 if inside[i, j] else 0.0
        for _ in range(4):
            sw = 1e-9
            sr = 0.0
            so = 0.0
            sa = 0.0
            sb = 0.0
            ra = 0.0
            rb = 0.0
            for j in range(n):
                sw += w[j]
                sr += w[j] * reference[i, j, 0]
                so += w[j] * observed[i, j, 0]
                sa += w[j] * (np.float64(observed[i, j, 1]) - reference[i, j, 1])
                sb += w[j] * (np.float64(observed[i, j, 2]) - reference[i, j, 2])
                if fit:
                    ra += w[j] * reference[i, j, 1]
                    rb += w[j] * reference[i, j, 2]
            mr = sr / sw
            mo = so / sw
            oa = sa / sw
            ob = sb / sw
            ra /= sw
            rb /= sw
            var = 0.0
            cov = 0.0
            cvar = 0.0
            ccov = 0.0
            for j in range(n):
                rc = reference[i, j, 0] - mr
                var += w[j] * rc * rc
                cov += w[j] * rc * (observed[i, j, 0] - mo)
                if fit:
                    ca = reference[i, j, 1] - ra
                    cb = reference[i, j, 2] - rb
                    cvar += w[j] * (ca * ca + cb * cb)
                    ccov += w[j] * (
                        ca * (observed[i, j, 1] - oa - ra) + cb * (observed[i, j, 2] - ob - rb)
                    )
            gain = cov / max(var, 1e-6) if var > 1e-6 else 1.0
            gain = min(max(gain, 0.4), 2.5)
            off = mo - gain * mr
            chroma = ccov / cvar if cvar > 1e-6 else 1.0
            if chroma < chroma_lo or chroma > chroma_hi:
                chroma = 1.0
            for j in range(n):
                dl = observed[i, j, 0] - gain * reference[i, j, 0] - off
                if fit:
                    da = (
                        np.float64(observed[i, j, 1]) - oa - ra - chroma * (reference[i, j, 1] - ra)
                    )
                    db = (
                        np.float64(observed[i, j, 2]) - ob - rb - chroma * (reference[i, j, 2] - rb)
                    )
                else:  # the offsets alone, summed as they always were
                    da = np.float64(observed[i, j, 1]) - reference[i, j, 1] - oa
                    db = np.float64(observed[i, j, 2]) - reference[i, j, 2] - ob
                res2[j] = dl * dl + da * da + db * db
                w[j] = ((1.0 if res2[j] < far2 else 0.0) + 1e-3) if inside[i, j] else 0.0
        agree = 0
        count = 0
        for j in range(n):
            if inside[i, j]:
                count += 1
                if res2[j] < agree_lab * agree_lab:
                    agree += 1
        out[i] = agree / max(count, 1)
    return out
