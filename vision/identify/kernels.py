"""Compiled loops over ORB descriptors (numba): the Hamming distances the keypoint steps
spend most of their arithmetic on.

Each descriptor is 256 bits, read as four 64-bit words; a distance is the popcount of the
words' exclusive or. In numpy that takes a pass per word over an (n, m) array of
temporaries, and the nearest two are then looked for in another; here each query's
distances are summed in one pass (which the compiler vectorises) and the nearest two kept
as they are read. Same integers, same ties, as the numpy code they replace (tested against
it in ``tests/identify/test_kernels.py``); compiled on first use and cached beside this
module.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

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
    equals)."""
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
    ``order[start[t * stride + k] : start[t * stride + k + 1]]``; ``query`` (n, 4) and
    ``entries`` (K, 4) the descriptors' 64-bit words."""
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
                    _popcount(a0 ^ entries[e, 0])
                    + _popcount(a1 ^ entries[e, 1])
                    + _popcount(a2 ^ entries[e, 2])
                    + _popcount(a3 ^ entries[e, 3])
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
