"""Low-level drawing in millimetres: exact-area rasterising of cell grids (markers, QR codes,
chessboards, filled rectangles) and text.

Every function draws into an (H, W, 3) uint8 BGR image in place, given positions in mm and
the image's resolution ``px_per_mm``. Grid cells are box-filtered exactly (each pixel gets the
area-weighted mean of what covers it), so codes stay sharp at 300 dpi and realistic when
rendered small.
"""

from __future__ import annotations

import functools
import math
import threading

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.kit.geometry import Rect

Colour = tuple[int, int, int]
BLACK: Colour = (0, 0, 0)
WHITE: Colour = (255, 255, 255)


def _coverage(
    start_px: float, cell_px: float, n: int, size: int
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How ``n`` cells of ``cell_px`` (>= 1) pixels from ``start_px`` cover the pixels, clipped
    to [0, size): (first pixel, k0, w0, k1, w1) where pixel ``first + p`` is covered by
    ``w0[p]`` of cell ``k0[p]`` and ``w1[p]`` of cell ``k1[p]`` (a pixel meets at most two
    cells when cells are at least a pixel wide)."""
    p0 = max(0, int(np.floor(start_px)))
    p1 = min(size, int(np.ceil(start_px + n * cell_px)))
    pix = np.arange(p0, max(p0, p1), dtype=np.float64)
    k0 = np.clip(np.floor((pix - start_px) / cell_px), 0, n - 1).astype(np.intp)
    k1 = np.minimum(k0 + 1, n - 1)
    lo0 = start_px + k0 * cell_px
    w0 = np.clip(np.minimum(pix + 1, lo0 + cell_px) - np.maximum(pix, lo0), 0.0, 1.0)
    w1 = np.where(
        k0 + 1 < n,
        np.clip(np.minimum(pix + 1, lo0 + 2 * cell_px) - np.maximum(pix, lo0 + cell_px), 0.0, 1.0),
        0.0,
    )
    return p0, k0, w0.astype(np.float32), k1, w1.astype(np.float32)


def _coverage_matrix(start_px: float, cell_px: float, n: int, size: int) -> tuple[int, np.ndarray]:
    """(first pixel, C): C[p, k] is how much of pixel ``first + p`` cell ``k`` covers (any
    cell size)."""
    p0 = max(0, int(np.floor(start_px)))
    p1 = min(size, int(np.ceil(start_px + n * cell_px)))
    pix = np.arange(p0, max(p0, p1), dtype=np.float64)[:, None]
    edges = start_px + cell_px * np.arange(n + 1, dtype=np.float64)
    lo = np.maximum(pix, edges[None, :-1])
    hi = np.minimum(pix + 1, edges[None, 1:])
    return p0, np.clip(hi - lo, 0.0, None).astype(np.float32)


def paint_cells(img: np.ndarray, colours: np.ndarray, rect: Rect, px_per_mm: float) -> None:
    """Paint a grid of cells over ``rect`` (mm): ``colours`` is (rows, cols, 3) BGR (any
    numeric dtype), each cell covering an equal share of ``rect``. Each pixel gets the exact
    area-weighted mix of the cells and of what was under the grid."""
    rows, cols = colours.shape[:2]
    h, w = img.shape[:2]
    col = np.asarray(colours, np.float32)
    sy, cy_px = rect.y * px_per_mm, rect.h * px_per_mm / rows
    sx, cx_px = rect.x * px_per_mm, rect.w * px_per_mm / cols
    if cy_px >= 1.0 and cx_px >= 1.0:  # gather: a pixel meets at most 2 x 2 cells
        y0, ky0, wy0, ky1, wy1 = _coverage(sy, cy_px, rows, h)
        x0, kx0, wx0, kx1, wx1 = _coverage(sx, cx_px, cols, w)
        if ky0.size == 0 or kx0.size == 0:
            return
        by_row = wy0[:, None, None] * col[ky0] + wy1[:, None, None] * col[ky1]
        paint = wx0[None, :, None] * by_row[:, kx0] + wx1[None, :, None] * by_row[:, kx1]
        cov = np.outer(wy0 + wy1, wx0 + wx1)[..., None]
        ny, nx = ky0.size, kx0.size
    else:  # cells smaller than a pixel: coverage matrices
        y0, cy = _coverage_matrix(sy, cy_px, rows, h)
        x0, cx = _coverage_matrix(sx, cx_px, cols, w)
        if cy.size == 0 or cx.size == 0:
            return
        paint = np.stack([cy @ col[:, :, z] @ cx.T for z in range(3)], axis=-1)
        cov = np.outer(cy.sum(1), cx.sum(1))[..., None]
        ny, nx = cy.shape[0], cx.shape[0]
    win = img[y0 : y0 + ny, x0 : x0 + nx]
    out = win.astype(np.float32) * (1.0 - cov) + paint
    win[:] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def paint_bits(
    img: np.ndarray,
    bits: np.ndarray,
    rect: Rect,
    px_per_mm: float,
    dark: Colour = BLACK,
    light: Colour = WHITE,
) -> None:
    """Paint a (rows, cols) 0/1 grid over ``rect`` (mm): 1 -> ``dark``, 0 -> ``light``."""
    b = np.asarray(bits, np.float32)
    rows, cols = b.shape
    h, w = img.shape[:2]
    cy_px, cx_px = rect.h * px_per_mm / rows, rect.w * px_per_mm / cols
    if cy_px < 1.0 or cx_px < 1.0:
        colours = np.where(
            b[..., None] > 0.5, np.asarray(dark, np.float32), np.asarray(light, np.float32)
        )
        paint_cells(img, colours, rect, px_per_mm)
        return
    # one channel: how dark each pixel is, then two colours mixed over what was there
    y0, ky0, wy0, ky1, wy1 = _coverage(rect.y * px_per_mm, cy_px, rows, h)
    x0, kx0, wx0, kx1, wx1 = _coverage(rect.x * px_per_mm, cx_px, cols, w)
    if ky0.size == 0 or kx0.size == 0:
        return
    by_row = wy0[:, None] * b[ky0] + wy1[:, None] * b[ky1]
    darkness = wx0[None, :] * by_row[:, kx0] + wx1[None, :] * by_row[:, kx1]
    cy, cx = wy0 + wy1, wx0 + wx1
    win = img[y0 : y0 + ky0.size, x0 : x0 + kx0.size]
    lo, hi = np.asarray(light, np.float32), np.asarray(dark, np.float32)
    full_r = np.flatnonzero(cy >= 1.0 - 1e-6)
    full_c = np.flatnonzero(cx >= 1.0 - 1e-6)
    ra, rb = (int(full_r[0]), int(full_r[-1]) + 1) if full_r.size else (0, 0)
    ca, cb = (int(full_c[0]), int(full_c[-1]) + 1) if full_c.size else (0, 0)
    if rb > ra and cb > ca:  # fully covered pixels: a lookup table from darkness to colour
        d8 = np.clip(darkness[ra:rb, ca:cb] * 255.0 + 0.5, 0, 255).astype(np.uint8)
        k = np.arange(256, dtype=np.float32)[:, None] / 255.0
        lut = np.clip(lo + (hi - lo) * k + 0.5, 0, 255).astype(np.uint8).reshape(256, 1, 3)
        win[ra:rb, ca:cb] = cv2.LUT(cv2.merge([d8, d8, d8]), lut)

    def mix(rs: slice, cs: slice) -> None:
        cov = np.outer(cy[rs], cx[cs])[..., None]
        d = darkness[rs, cs][..., None]
        out = win[rs, cs].astype(np.float32) * (1.0 - cov) + lo * (cov - d) + hi * d
        win[rs, cs] = np.clip(out + 0.5, 0, 255).astype(np.uint8)

    n_r, n_c = cy.size, cx.size
    for rs in (slice(0, ra), slice(rb, n_r)):  # partly covered rows, corners included
        if rs.stop > rs.start:
            mix(rs, slice(0, n_c))
    for cs in (slice(0, ca), slice(cb, n_c)):  # partly covered columns
        if cs.stop > cs.start and rb > ra:
            mix(slice(ra, rb), cs)


def _span(a_px: float, b_px: float, size: int) -> tuple[int, np.ndarray]:
    """(first pixel, coverage) of the interval [a_px, b_px) over pixels, clipped to [0, size)."""
    p0 = max(0, math.floor(a_px))
    p1 = min(size, math.ceil(b_px))
    pix = np.arange(p0, max(p0, p1), dtype=np.float64)
    return p0, np.clip(np.minimum(pix + 1, b_px) - np.maximum(pix, a_px), 0.0, 1.0)


def _blend(view: np.ndarray, alpha: np.ndarray, colour: np.ndarray) -> None:
    a = alpha.astype(np.float32)[..., None]
    view[:] = (view.astype(np.float32) * (1 - a) + colour * a + 0.5).astype(np.uint8)


def fill_rect(img: np.ndarray, rect: Rect, colour: Colour, px_per_mm: float) -> None:
    """Fill ``rect`` (mm) with ``colour``, edges anti-aliased by exact pixel coverage."""
    h, w = img.shape[:2]
    y0, cy = _span(rect.y * px_per_mm, rect.y1 * px_per_mm, h)
    x0, cx = _span(rect.x * px_per_mm, rect.x1 * px_per_mm, w)
    if cy.size == 0 or cx.size == 0:
        return
    win = img[y0 : y0 + cy.size, x0 : x0 + cx.size]
    col = np.asarray(colour, np.float32)
    full_r = np.flatnonzero(cy >= 1.0 - 1e-9)
    full_c = np.flatnonzero(cx >= 1.0 - 1e-9)
    ra, rb = (full_r[0], full_r[-1] + 1) if full_r.size else (0, 0)
    ca, cb = (full_c[0], full_c[-1] + 1) if full_c.size else (0, 0)
    win[ra:rb, ca:cb] = np.asarray(colour, np.uint8)  # whole pixels at once
    for r in [*range(ra), *range(rb, cy.size)]:  # partly covered rows, corners included
        _blend(win[r], cy[r] * cx, col)
    for c in [*range(ca), *range(cb, cx.size)]:  # partly covered columns
        _blend(win[ra:rb, c], cy[ra:rb] * cx[c], col)


_FONT_LOCK = threading.Lock()
"""Pillow's FreeType fonts are not safe to share between threads: text goes one at a time."""


@functools.lru_cache(maxsize=64)
def font(size_px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled default font at ``size_px`` pixels (the same on every machine)."""
    return ImageFont.load_default(size=max(1, size_px))


def text_width_mm(text: str, height_mm: float, px_per_mm: float, bold: float = 0.0) -> float:
    """Width in mm that ``draw_text`` gives ``text`` at cap height ``height_mm``."""
    size = max(1, round(height_mm * px_per_mm / 0.72))
    stroke = round(bold * size)
    with _FONT_LOCK:
        x0, _, x1, _ = font(size).getbbox(text, stroke_width=stroke)
    return (x1 - x0) / px_per_mm


def draw_text(
    img: np.ndarray,
    text: str,
    centre_mm: tuple[float, float],
    height_mm: float,
    colour: Colour,
    px_per_mm: float,
    bold: float = 0.0,
    rotate: int = 0,
) -> None:
    """Draw ``text`` centred on ``centre_mm`` with capitals about ``height_mm`` tall.

    ``bold`` thickens strokes (a fraction of the font size, e.g. 0.04); ``rotate`` turns the
    text by 0, 90, 180 or 270 degrees counter-clockwise. ``colour`` is BGR.
    """
    size = max(1, round(height_mm * px_per_mm / 0.72))
    stroke = round(bold * size)
    with _FONT_LOCK:
        f = font(size)
        x0, y0, x1, y1 = f.getbbox(text, anchor="mm", stroke_width=stroke)
        w, h = x1 - x0 + 2, y1 - y0 + 2
        mask = Image.new("L", (int(w), int(h)), 0)
        ImageDraw.Draw(mask).text(
            (-x0 + 1, -y0 + 1),
            text,
            fill=255,
            font=f,
            anchor="mm",
            stroke_width=stroke,
            stroke_fill=255,
        )
    if rotate:
        mask = mask.rotate(rotate, expand=True)
    m = np.asarray(mask, np.float32) / 255.0
    cx, cy = centre_mm[0] * px_per_mm, centre_mm[1] * px_per_mm
    top, left = round(cy - m.shape[0] / 2), round(cx - m.shape[1] / 2)
    ih, iw = img.shape[:2]
    t0, l0 = max(0, top), max(0, left)
    t1, l1 = min(ih, top + m.shape[0]), min(iw, left + m.shape[1])
    if t1 <= t0 or l1 <= l0:
        return
    a = m[t0 - top : t1 - top, l0 - left : l1 - left, None]
    win = img[t0:t1, l0:l1].astype(np.float32)
    img[t0:t1, l0:l1] = (win * (1 - a) + np.asarray(colour, np.float32) * a + 0.5).astype(np.uint8)


def draw_silhouette(
    img: np.ndarray,
    mask: np.ndarray,
    box_xys_px: tuple[float, float, float],
    fill_bgr: tuple[int, int, int],
    outline_bgr: tuple[int, int, int],
) -> None:
    """Draw ``mask`` (a square 0/255 uint8 silhouette) into ``img`` ((H, W, 3) uint8 BGR, in
    place) in the square ``box_xys_px`` (x, y, side), filled and outlined."""
    side = mask.shape[0]
    edge = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((max(3, side // 25),) * 2, np.uint8))
    art = np.zeros((side, side, 3), np.float32)
    art[:] = fill_bgr
    art[edge > 0] = outline_bgr
    alpha = np.maximum(mask.astype(np.float32) / 255.0, (edge > 0).astype(np.float32))
    x, y, s = box_xys_px
    out = max(1, round(s))
    art = cv2.resize(art, (out, out), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha, (out, out), interpolation=cv2.INTER_AREA)[..., None]
    x0, y0 = round(x), round(y)
    h, w = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + out), min(h, y0 + out)
    if xa >= xb or ya >= yb:
        return
    sub = img[ya:yb, xa:xb].astype(np.float32)
    a = alpha[ya - y0 : yb - y0, xa - x0 : xb - x0]
    ar = art[ya - y0 : yb - y0, xa - x0 : xb - x0]
    img[ya:yb, xa:xb] = np.clip(sub * (1 - a) + ar * a, 0, 255).astype(np.uint8)
