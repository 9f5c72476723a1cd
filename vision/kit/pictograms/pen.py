"""What the pictograms are drawn with: named colours and how a pictogram's colour roles
resolve (``Palette``), shape helpers in unit coordinates, the ``Pen`` that draws them into
a square box of an image, and ``Glyph``, a pictogram and its drawing function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

Colour = tuple[int, int, int]
"""A BGR colour, 0..255 per channel."""

_RGB: dict[str, tuple[int, int, int]] = {
    "red": (218, 41, 43),
    "orange": (245, 135, 28),
    "yellow": (250, 205, 35),
    "green": (55, 160, 65),
    "teal": (18, 145, 150),
    "blue": (38, 98, 210),
    "navy": (30, 45, 115),
    "purple": (135, 65, 170),
    "pink": (240, 115, 170),
    "brown": (128, 78, 38),
    "white": (252, 252, 250),
    "grey": (150, 150, 155),
    "black": (38, 38, 44),
    "skin": (246, 200, 160),
    "sky": (150, 205, 240),
    "leaf": (68, 150, 48),
    "wood": (196, 146, 88),
    "gold": (236, 178, 30),
    "cream": (250, 238, 205),
    "ink": (28, 28, 34),
    "paper": (255, 255, 255),
}
COLOURS: dict[str, Colour] = {k: (b, g, r) for k, (r, g, b) in _RGB.items()}
"""Named colours (BGR) usable as roles in pictograms."""

PALETTE_NAMES = (
    "red",
    "orange",
    "yellow",
    "green",
    "teal",
    "blue",
    "purple",
    "pink",
    "brown",
    "white",
    "grey",
    "black",
)
"""Colours a Pic Flip picture may take as its main colour."""


def darker(c: Colour, k: float = 0.45) -> Colour:
    """``c`` scaled towards black by ``k`` (0 keeps it, 1 is black)."""
    return (int(c[0] * (1 - k)), int(c[1] * (1 - k)), int(c[2] * (1 - k)))


@dataclass(frozen=True)
class Palette:
    """How colour roles resolve. ``main`` is the pictogram's variable colour (BGR)."""

    main: Colour
    mono: bool = False

    def fill(self, role: str | Colour) -> Colour:
        if not isinstance(role, str):
            return role
        if self.mono:
            return COLOURS["paper"] if role in ("paper", "detail") else self.main
        if role == "main":
            return self.main
        if role == "detail":
            return COLOURS["ink"]
        return COLOURS[role]

    @property
    def ink(self) -> Colour:
        return darker(self.main, 0.5) if self.mono else COLOURS["ink"]


# --------------------------------------------------------------------------------------------
# Unit-coordinate shape helpers: each returns an (N, 2) float array of polygon points
# --------------------------------------------------------------------------------------------
def ellipse_pts(
    cx: float,
    cy: float,
    rx: float,
    ry: float,
    a0: float = 0.0,
    a1: float = 360.0,
    angle: float = 0.0,
    n: int = 64,
) -> np.ndarray:
    """Points of an ellipse arc (degrees, clockwise on screen since y points down)."""
    t = np.radians(np.linspace(a0, a1, n))
    x, y = rx * np.cos(t), ry * np.sin(t)
    a = math.radians(angle)
    return np.stack(
        [cx + x * math.cos(a) - y * math.sin(a), cy + x * math.sin(a) + y * math.cos(a)], axis=1
    )


def circle_pts(cx: float, cy: float, r: float, n: int = 64) -> np.ndarray:
    return ellipse_pts(cx, cy, r, r, 0, 360, 0, n)


def star_pts(
    cx: float, cy: float, r: float, k: int = 5, inner: float = 0.45, rot: float = -90.0
) -> np.ndarray:
    a = np.radians(rot + np.arange(2 * k) * 180.0 / k)
    rr = np.where(np.arange(2 * k) % 2 == 0, r, r * inner)
    return np.stack([cx + rr * np.cos(a), cy + rr * np.sin(a)], axis=1)


def heart_pts(cx: float, cy: float, s: float) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, 96)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    return np.stack([cx + x * s / 34, cy + (y + 2) * s / 34], axis=1)


def drop_pts(cx: float, cy: float, r: float) -> np.ndarray:
    """A drop: a circle of radius r centred at (cx, cy) with a point above it at 2.2 r."""
    tip = (cx, cy - 2.2 * r)
    a = math.degrees(math.asin(r / (2.2 * r)))
    arc = ellipse_pts(cx, cy, r, r, -90 + (90 - a), 270 - (90 - a), n=64)
    return np.vstack([[tip], arc])


def crescent_pts(
    cx: float, cy: float, r: float, dx: float, r2: float | None = None, rot: float = 0.0
) -> np.ndarray:
    """Circle (cx, cy, r) minus circle (cx + dx, cy, r2), rotated by ``rot`` degrees."""
    r2 = r if r2 is None else r2
    # intersection of the two circles (centres on the x axis)
    x = (dx * dx + r * r - r2 * r2) / (2 * dx)
    y = math.sqrt(max(r * r - x * x, 1e-9))
    a_out = math.degrees(math.atan2(y, x))
    a_in = math.degrees(math.atan2(y, x - dx))
    outer = ellipse_pts(0, 0, r, r, a_out, 360 - a_out, n=64)
    inner = ellipse_pts(dx, 0, r2, r2, 360 - a_in, a_in, n=64)
    pts = np.vstack([outer, inner])
    a = math.radians(rot)
    c, s = math.cos(a), math.sin(a)
    return np.stack([cx + pts[:, 0] * c - pts[:, 1] * s, cy + pts[:, 0] * s + pts[:, 1] * c], 1)


def rrect_pts(x0: float, y0: float, x1: float, y1: float, r: float = 0.0) -> np.ndarray:
    if r <= 0:
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    parts = [
        ellipse_pts(x1 - r, y0 + r, r, r, -90, 0, n=10),
        ellipse_pts(x1 - r, y1 - r, r, r, 0, 90, n=10),
        ellipse_pts(x0 + r, y1 - r, r, r, 90, 180, n=10),
        ellipse_pts(x0 + r, y0 + r, r, r, 180, 270, n=10),
    ]
    return np.vstack(parts)


# --------------------------------------------------------------------------------------------
# The pen
# --------------------------------------------------------------------------------------------
_SHIFT = 4
_ONE = 1 << _SHIFT


class Pen:
    """Draws into ``img`` ((H, W, 3) uint8 BGR, modified in place) inside the square box with
    top-left (x0, y0) and side ``size``, all in pixels (floats allowed)."""

    def __init__(
        self, img: np.ndarray, x0: float, y0: float, size: float, palette: Palette
    ) -> None:
        self.img = img
        self.x0, self.y0, self.size = x0, y0, size
        self.pal = palette
        self.lw = max(1.0, size * 0.03)  # outline width in pixels

    def _px(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, float)
        xy = np.stack([self.x0 + p[:, 0] * self.size, self.y0 + p[:, 1] * self.size], 1)
        return np.round((xy - 0.5) * _ONE).astype(np.int32)

    def shapes(
        self, polys: Sequence[np.ndarray], fill: str | Colour = "main", outline: bool = True
    ) -> None:
        """Fill the union of ``polys`` with ``fill``; outline the union's border."""
        pxs = [self._px(p) for p in polys]
        if outline:
            t = max(1, round(2 * self.lw))
            cv2.polylines(self.img, pxs, True, self.pal.ink, t, cv2.LINE_AA, _SHIFT)
        col = self.pal.fill(fill)
        for q in pxs:  # one by one: fillPoly would XOR overlapping polygons
            cv2.fillPoly(self.img, [q], col, cv2.LINE_AA, _SHIFT)

    def shape(self, pts: np.ndarray, fill: str | Colour = "main", outline: bool = True) -> None:
        self.shapes([pts], fill, outline)

    def circle(
        self, cx: float, cy: float, r: float, fill: str | Colour = "main", outline: bool = True
    ) -> None:
        self.shape(circle_pts(cx, cy, r), fill, outline)

    def ellipse(
        self,
        cx: float,
        cy: float,
        rx: float,
        ry: float,
        fill: str | Colour = "main",
        angle: float = 0.0,
        outline: bool = True,
    ) -> None:
        self.shape(ellipse_pts(cx, cy, rx, ry, angle=angle), fill, outline)

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        fill: str | Colour = "main",
        outline: bool = True,
        r: float = 0.0,
    ) -> None:
        self.shape(rrect_pts(x0, y0, x1, y1, r), fill, outline)

    def line(
        self,
        pts: Sequence[Sequence[float]] | np.ndarray,
        width: float = 0.03,
        colour: str | Colour = "detail",
        closed: bool = False,
    ) -> None:
        """A stroke ``width`` units wide (no outline)."""
        t = max(1, round(width * self.size))
        col = self.pal.ink if colour == "ink" else self.pal.fill(colour)
        cv2.polylines(
            self.img, [self._px(np.asarray(pts, float))], closed, col, t, cv2.LINE_AA, _SHIFT
        )

    def thick(
        self, pts: Sequence[Sequence[float]] | np.ndarray, width: float, fill: str | Colour = "main"
    ) -> None:
        """An outlined stroke: a ``width``-wide band along ``pts`` (ink border, then fill)."""
        p = np.asarray(pts, float)
        t_out = max(1, round((width * self.size) + 2 * self.lw))
        t_in = max(1, round(width * self.size))
        px = [self._px(p)]
        cv2.polylines(self.img, px, False, self.pal.ink, t_out, cv2.LINE_AA, _SHIFT)
        cv2.polylines(self.img, px, False, self.pal.fill(fill), t_in, cv2.LINE_AA, _SHIFT)

    def dot(self, cx: float, cy: float, r: float, colour: str | Colour = "detail") -> None:
        self.shape(circle_pts(cx, cy, r, n=24), colour, outline=False)


# --------------------------------------------------------------------------------------------
# A pictogram
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Glyph:
    """A pictogram: its name, its natural main colour, and its drawing function."""

    name: str
    main: str
    draw: Callable[[Pen], None]
    recolour: bool = True  # False when the main colour is part of what it is (rainbow)


def glyph(
    group: dict[str, Glyph], name: str, main: str, recolour: bool = True
) -> Callable[[Callable[[Pen], None]], Callable[[Pen], None]]:
    """A decorator: the drawing function it decorates becomes pictogram ``name`` of ``group``,
    with natural main colour ``main`` (a name from ``COLOURS``)."""

    def deco(fn: Callable[[Pen], None]) -> Callable[[Pen], None]:
        group[name] = Glyph(name, main, fn, recolour)
        return fn

    return deco
