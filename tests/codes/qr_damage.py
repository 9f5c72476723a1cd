"""Damaging a photographed version-1 QR code so that a Reed-Solomon decoder *mis-corrects* it:
the symbol's codewords are moved, module by module in the photo, toward another valid
codeword, past the error-correction capacity, so that the decoder lands on that other
codeword and reads its text with all its correction used.

This is how a decoder that checks the error correction can still return a wrong text, and why
``vision.codes.qr`` calls a text verified only when the decoder had correction to spare.

Only what the tests need: version 1 (21 x 21 modules, one block), any error-correction level
and mask, the symbol's corners given as zxing-cpp reports them (the outer corners, in the
code's own order).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

SIZE = 21  # modules of a version-1 symbol
#: Error-correction codewords of a version-1 symbol, by level (one block of 26 codewords).
EC_CODEWORDS = {"L": 7, "M": 10, "Q": 13, "H": 17}

# GF(256) with the QR code's polynomial x^8 + x^4 + x^3 + x^2 + 1.
_EXP = np.zeros(512, np.int64)
_LOG = np.zeros(256, np.int64)
_x = 1
for _i in range(255):
    _EXP[_i] = _x
    _LOG[_x] = _i
    _x <<= 1
    if _x & 0x100:
        _x ^= 0x11D
_EXP[255:510] = _EXP[:255]


def gf_mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else int(_EXP[_LOG[a] + _LOG[b]])


def generator(n_ec: int) -> list[int]:
    """The Reed-Solomon generator of ``n_ec`` check codewords, highest degree first."""
    g = [1]
    for i in range(n_ec):
        # g(x) * (x + alpha^i)
        nxt = [0] * (len(g) + 1)
        for k, c in enumerate(g):
            nxt[k] ^= c
            nxt[k + 1] ^= gf_mul(c, int(_EXP[i]))
        g = nxt
    return g


def syndromes(codewords: list[int], n_ec: int) -> list[int]:
    """The codeword polynomial (first codeword = highest degree) at alpha^0 .. alpha^(n_ec-1);
    all zero for a valid codeword."""
    out = []
    for i in range(n_ec):
        s = 0
        for c in codewords:
            s = gf_mul(s, int(_EXP[i])) ^ c
        out.append(s)
    return out


def _function_modules() -> NDArray[np.bool_]:
    f = np.zeros((SIZE, SIZE), bool)
    f[:9, :9] = f[:9, -8:] = f[-8:, :9] = True  # finders, separators, format information
    f[6, :] = f[:, 6] = True  # timing patterns
    return f


def data_positions() -> list[tuple[int, int]]:
    """(row, column) of each data bit, in placement order (two-column zigzag from the
    bottom right, skipping the vertical timing pattern)."""
    func = _function_modules()
    pos: list[tuple[int, int]] = []
    col, upward = SIZE - 1, True
    while col > 0:
        if col == 6:
            col -= 1
        rows = range(SIZE - 1, -1, -1) if upward else range(SIZE)
        for r in rows:
            for c in (col, col - 1):
                if not func[r, c]:
                    pos.append((r, c))
        upward = not upward
        col -= 2
    return pos


def mask(pattern: int) -> NDArray[np.bool_]:
    """The data mask ``pattern`` (0-7) over the symbol: True where bits are flipped."""
    i, j = np.mgrid[:SIZE, :SIZE]
    rule = {
        0: (i + j) % 2 == 0,
        1: i % 2 == 0,
        2: j % 3 == 0,
        3: (i + j) % 3 == 0,
        4: (i // 2 + j // 3) % 2 == 0,
        5: (i * j) % 2 + (i * j) % 3 == 0,
        6: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
        7: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
    }
    return np.asarray(rule[pattern], bool)


def module_homography(corners_px: NDArray[np.floating]) -> NDArray[np.float64]:
    """Symbol coordinates (modules, (0, 0) the outer top-left corner) -> image pixels."""
    square = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float32)
    return np.asarray(
        cv2.getPerspectiveTransform(square, np.asarray(corners_px, np.float32)), np.float64
    )


def sample_modules(grey: NDArray[np.uint8], hom: NDArray[np.float64]) -> NDArray[np.bool_]:
    """(21, 21) True where the module is dark: the pixel at each module's centre, against
    the middle of the darkest and lightest centres."""
    r, c = np.mgrid[:SIZE, :SIZE]
    centres = np.stack([c + 0.5, r + 0.5], axis=-1).reshape(1, -1, 2).astype(np.float32)
    pts = cv2.perspectiveTransform(centres, hom)[0]
    xs = np.clip(np.rint(pts[:, 0]).astype(int), 0, grey.shape[1] - 1)
    ys = np.clip(np.rint(pts[:, 1]).astype(int), 0, grey.shape[0] - 1)
    values = grey[ys, xs].astype(float)
    return np.asarray(values < (values.min() + values.max()) / 2, bool).reshape(SIZE, SIZE)


def codewords(dark: NDArray[np.bool_], pattern: int) -> list[int]:
    """The 26 codewords of a version-1 symbol from its modules (``dark``) and data mask."""
    bits = dark ^ mask(pattern)
    stream = [int(bits[r, c]) for r, c in data_positions()]
    return [int("".join(map(str, stream[k : k + 8])), 2) for k in range(0, 208, 8)]


def generator_multiple(n_ec: int, terms: list[tuple[int, int]]) -> list[int]:
    """A nonzero codeword of the Reed-Solomon code: the sum of ``beta * g(x)`` shifted so that
    its first coefficient is codeword ``shift``, over the (shift, beta) ``terms`` (26
    codewords, first = highest degree). Added to a valid codeword it gives another one."""
    g = generator(n_ec)
    out = [0] * 26
    for shift, beta in terms:
        for k, c in enumerate(g):
            out[shift + k] ^= gf_mul(c, beta)
    return out


def paint_codewords(
    grey: NDArray[np.uint8],
    hom: NDArray[np.float64],
    pattern: int,
    old: list[int],
    new: list[int],
    which: list[int],
) -> NDArray[np.uint8]:
    """A copy of ``grey`` with the modules of codewords ``which`` repainted from ``old`` to
    ``new`` (a module flips with its data bit: the mask is the same)."""
    out = grey.copy()
    dark_value, light_value = int(grey.min()), int(grey.max())
    cur = old[:]
    for k in which:
        cur[k] = new[k]
    positions = data_positions()
    m = mask(pattern)
    for k in which:
        for b in range(8):
            bit_old = (old[k] >> (7 - b)) & 1
            bit_new = (cur[k] >> (7 - b)) & 1
            if bit_old == bit_new:
                continue
            r, c = positions[8 * k + b]
            dark = bool(bit_new) ^ bool(m[r, c])
            quad = np.array([[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]], np.float32)
            poly = cv2.perspectiveTransform(quad[None], hom)[0]
            cv2.fillConvexPoly(
                out, np.rint(poly).astype(np.int32), dark_value if dark else light_value
            )
    return out
