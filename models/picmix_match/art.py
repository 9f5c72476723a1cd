"""Random art for the item-matching model: pictures no deck prints, drawn by a few random rules.

``random_art(rng)`` describes one picture (``Art``): random polygons (convex, concave or
star-like), unions of a few primitives (discs, ellipses, boxes, triangles) with cut-outs,
thick polylines and shapes of k-fold symmetry, each in a unit square. ``draw_art`` draws it
filled with one colour and outlined darker, the way printed items look. The matching model
learns to tell any two such pictures apart, so that a deck registered from photos
(``vision.picmix.decks``) is named by comparison with its own items, whatever its art.

Nothing here copies a deck's items: the rules are generic and random; ``vision.picmix.newart``
(the benchmark's unseen deck) is never imported by training.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.kit.raster import draw_silhouette

_Pts = np.ndarray  # (N, 2) float64 in the unit square


@dataclass(frozen=True)
class Art:
    """One random picture: filled polygons, cut-out polygons and thick polylines (points in
    the unit square, polyline widths as a share of the side)."""

    fill: tuple[_Pts, ...]
    holes: tuple[_Pts, ...]
    lines: tuple[tuple[_Pts, float], ...]


def _ellipse(cx: float, cy: float, rx: float, ry: float, rot: float, n: int = 40) -> _Pts:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    x, y = rx * np.cos(t), ry * np.sin(t)
    c, s = math.cos(rot), math.sin(rot)
    return np.stack([cx + c * x - s * y, cy + s * x + c * y], 1)


def _box(cx: float, cy: float, w: float, h: float, rot: float) -> _Pts:
    pts = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    c, s = math.cos(rot), math.sin(rot)
    return pts @ np.array([[c, s], [-s, c]]) + [cx, cy]


def _primitive(rng: np.random.Generator, scale: float) -> _Pts:
    cx, cy = rng.uniform(0.25, 0.75, 2)
    kind = rng.integers(0, 4)
    a, b = rng.uniform(0.12, 0.45, 2) * scale
    rot = rng.uniform(0, math.pi)
    if kind == 0:
        return _ellipse(cx, cy, a, a, 0.0)
    if kind == 1:
        return _ellipse(cx, cy, a, b, rot)
    if kind == 2:
        return _box(cx, cy, 2 * a, 2 * b, rot)
    pts = _ellipse(cx, cy, a, a, rot, 3)
    return pts


def _radial(rng: np.random.Generator) -> _Pts:
    """A polygon round the centre: ``n`` vertices at random radii (star-like or lumpy)."""
    n = int(rng.integers(3, 13))
    ang = np.sort(rng.uniform(0, 2 * math.pi, n)) if rng.random() < 0.5 else (
        np.arange(n) * 2 * math.pi / n + rng.uniform(0, math.pi)
    )  # fmt: skip
    r = rng.uniform(0.15, 0.48, n)
    if rng.random() < 0.3:  # star: alternate radii
        r[::2] = rng.uniform(0.35, 0.48)
        r[1::2] = rng.uniform(0.12, 0.3)
    return np.stack([0.5 + r * np.cos(ang), 0.5 + r * np.sin(ang)], 1)


def _symmetric(rng: np.random.Generator) -> _Pts:
    """A shape of k-fold symmetry: one random radial profile repeated ``k`` times."""
    k = int(rng.integers(2, 9))
    m = int(rng.integers(2, 6))
    prof = rng.uniform(0.12, 0.48, m)
    ang = np.linspace(0, 2 * math.pi, k * m, endpoint=False) + rng.uniform(0, math.pi)
    r = np.tile(prof, k)
    return np.stack([0.5 + r * np.cos(ang), 0.5 + r * np.sin(ang)], 1)


def _polyline(rng: np.random.Generator) -> tuple[_Pts, float]:
    n = int(rng.integers(2, 6))
    pts = rng.uniform(0.1, 0.9, (n, 2))
    return pts, float(rng.uniform(0.07, 0.2))


def random_art(rng: np.random.Generator) -> Art:
    """One random picture (module docstring)."""
    kind = rng.choice(4, p=[0.3, 0.35, 0.15, 0.2])
    fill: list[_Pts] = []
    holes: list[_Pts] = []
    lines: list[tuple[_Pts, float]] = []
    if kind == 0:
        fill.append(_radial(rng))
    elif kind == 1:
        for _ in range(int(rng.integers(1, 4))):
            fill.append(_primitive(rng, 1.0))
    elif kind == 2:
        for _ in range(int(rng.integers(1, 3))):
            lines.append(_polyline(rng))
    else:
        fill.append(_symmetric(rng))
    if rng.random() < 0.35:
        for _ in range(int(rng.integers(1, 3))):
            holes.append(_primitive(rng, 0.45))
    if rng.random() < 0.2:
        lines.append(_polyline(rng))
    return Art(tuple(fill), tuple(holes), tuple(lines))


def art_mask(art: Art, side: int) -> np.ndarray:
    """(side, side) uint8 0/255 mask of ``art``, scaled to fill the square (its bounding box
    fitted in the middle 92%)."""
    pts = [p for p in art.fill] + [p for p, _ in art.lines]
    allp = np.concatenate(pts) if pts else np.zeros((1, 2))
    lo, hi = allp.min(0), allp.max(0)
    span = float(max(hi - lo)) or 1.0
    pad = max((w for _, w in art.lines), default=0.0)
    k = 0.92 / (span + pad)

    def px(p: _Pts) -> np.ndarray:
        q = (p - (lo + hi) / 2) * k + 0.5
        return np.int32(np.round(q * (side - 1)))

    mask = np.zeros((side, side), np.uint8)
    for p in art.fill:
        cv2.fillPoly(mask, [px(p)], 255)
    for p, w in art.lines:
        cv2.polylines(mask, [px(p)], False, 255, max(1, round(w * k * side)), cv2.LINE_8)
    for p in art.holes:
        cv2.fillPoly(mask, [px(p)], 0)
    return mask


draw_mask = draw_silhouette  # drawn as the kit draws its silhouettes
