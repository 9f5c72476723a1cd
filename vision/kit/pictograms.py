"""Pictograms drawn by code: the pictures of Picasso word cards, Pic Flip cards and Picmix items.

Each pictogram is a function drawing into a square box with a ``Pen`` in *unit coordinates*:
(0, 0) is the box's top-left corner and (1, 1) its bottom-right, x right, y down. Shapes get
a dark outline drawn outside them, so touching shapes read as one silhouette.

Two styles: ``"colour"`` (natural colours; the pictogram's ``main`` colour can be changed, as
Pic Flip does) and ``"mono"`` (everything in one colour with white details: Picmix items, which
must stay recognisable at 15 mm and differ between player sets only in colour).
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
# The pictograms
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Glyph:
    """A pictogram: its name, its natural main colour, and its drawing function."""

    name: str
    main: str
    draw: Callable[[Pen], None]
    recolour: bool = True  # False when the main colour is part of what it is (rainbow)


GLYPHS: dict[str, Glyph] = {}


def _glyph(
    name: str, main: str, recolour: bool = True
) -> Callable[[Callable[[Pen], None]], Callable[[Pen], None]]:
    def deco(fn: Callable[[Pen], None]) -> Callable[[Pen], None]:
        GLYPHS[name] = Glyph(name, main, fn, recolour)
        return fn

    return deco


@_glyph("cat", "orange")
def _cat(p: Pen) -> None:
    p.thick(ellipse_pts(0.52, 0.62, 0.36, 0.3, -40, 40, n=20), 0.07)
    p.ellipse(0.5, 0.72, 0.26, 0.2)
    p.shapes(
        [
            np.array([[0.28, 0.32], [0.3, 0.08], [0.45, 0.24]]),
            np.array([[0.72, 0.32], [0.7, 0.08], [0.55, 0.24]]),
            circle_pts(0.5, 0.38, 0.22),
        ]
    )
    p.dot(0.42, 0.36, 0.03)
    p.dot(0.58, 0.36, 0.03)
    p.shape(np.array([[0.47, 0.44], [0.53, 0.44], [0.5, 0.48]]), "detail", outline=False)
    p.line([[0.2, 0.42], [0.38, 0.45]], 0.012)
    p.line([[0.8, 0.42], [0.62, 0.45]], 0.012)


@_glyph("dog", "brown")
def _dog(p: Pen) -> None:
    p.ellipse(0.5, 0.5, 0.27, 0.3)
    p.ellipse(0.24, 0.48, 0.09, 0.22, "detail", angle=15)
    p.ellipse(0.76, 0.48, 0.09, 0.22, "detail", angle=-15)
    p.ellipse(0.5, 0.66, 0.15, 0.12, "cream")
    p.ellipse(0.5, 0.6, 0.06, 0.04, "detail", outline=False)
    p.dot(0.41, 0.44, 0.035)
    p.dot(0.59, 0.44, 0.035)
    p.line([[0.5, 0.64], [0.5, 0.7], [0.44, 0.73]], 0.015)
    p.line([[0.5, 0.7], [0.56, 0.73]], 0.015)


@_glyph("fish", "orange")
def _fish(p: Pen) -> None:
    p.shapes([ellipse_pts(0.44, 0.5, 0.32, 0.2), np.array([[0.68, 0.5], [0.94, 0.3], [0.94, 0.7]])])
    p.dot(0.26, 0.46, 0.04)
    p.line(ellipse_pts(0.5, 0.5, 0.12, 0.14, -60, 60, n=12), 0.02)


@_glyph("bird", "blue")
def _bird(p: Pen) -> None:
    p.line([[0.42, 0.78], [0.4, 0.92]], 0.025, "orange")
    p.line([[0.54, 0.78], [0.56, 0.92]], 0.025, "orange")
    p.shapes(
        [
            ellipse_pts(0.48, 0.58, 0.3, 0.22),
            np.array([[0.72, 0.5], [0.95, 0.38], [0.9, 0.6], [0.74, 0.66]]),
            circle_pts(0.3, 0.34, 0.15),
        ]
    )
    p.shape(np.array([[0.16, 0.32], [0.03, 0.37], [0.16, 0.42]]), "orange")
    p.dot(0.27, 0.31, 0.03)
    p.line(ellipse_pts(0.52, 0.52, 0.16, 0.1, 10, 170, n=16), 0.025)


@_glyph("house", "red")
def _house(p: Pen) -> None:
    p.rect(0.2, 0.45, 0.8, 0.9)
    p.shape(np.array([[0.1, 0.48], [0.5, 0.12], [0.9, 0.48]]), "brown")
    p.rect(0.43, 0.62, 0.57, 0.9, "paper")
    p.rect(0.26, 0.54, 0.38, 0.66, "sky")


@_glyph("tree", "green")
def _tree(p: Pen) -> None:
    p.rect(0.44, 0.55, 0.56, 0.92, "brown")
    p.shapes(
        [
            circle_pts(0.5, 0.3, 0.2),
            circle_pts(0.32, 0.48, 0.18),
            circle_pts(0.68, 0.48, 0.18),
            circle_pts(0.5, 0.55, 0.16),
        ]
    )


@_glyph("pine", "green")
def _pine(p: Pen) -> None:
    p.rect(0.44, 0.74, 0.56, 0.94, "brown")
    p.shapes(
        [
            np.array([[0.5, 0.05], [0.7, 0.35], [0.3, 0.35]]),
            np.array([[0.5, 0.2], [0.78, 0.56], [0.22, 0.56]]),
            np.array([[0.5, 0.38], [0.86, 0.78], [0.14, 0.78]]),
        ]
    )


@_glyph("sun", "yellow")
def _sun(p: Pen) -> None:
    rays = []
    for k in range(8):
        a = math.radians(k * 45)
        c, s = math.cos(a), math.sin(a)
        rays.append(
            np.array(
                [
                    [0.5 + 0.46 * c, 0.5 + 0.46 * s],
                    [0.5 + 0.3 * c - 0.09 * s, 0.5 + 0.3 * s + 0.09 * c],
                    [0.5 + 0.3 * c + 0.09 * s, 0.5 + 0.3 * s - 0.09 * c],
                ]
            )
        )
    p.shapes([*rays, circle_pts(0.5, 0.5, 0.26)])


@_glyph("moon", "yellow")
def _moon(p: Pen) -> None:
    p.shape(crescent_pts(0.5, 0.5, 0.4, 0.22, 0.34, rot=-20))


@_glyph("star", "yellow")
def _star(p: Pen) -> None:
    p.shape(star_pts(0.5, 0.54, 0.45, inner=0.45))


@_glyph("heart", "red")
def _heart(p: Pen) -> None:
    p.shape(heart_pts(0.5, 0.5, 0.82))


@_glyph("car", "red")
def _car(p: Pen) -> None:
    body = np.array(
        [
            [0.05, 0.68],
            [0.05, 0.52],
            [0.2, 0.48],
            [0.3, 0.3],
            [0.68, 0.3],
            [0.8, 0.47],
            [0.95, 0.52],
            [0.95, 0.68],
        ]
    )
    p.shape(body)
    p.shape(np.array([[0.33, 0.35], [0.48, 0.35], [0.48, 0.47], [0.26, 0.47]]), "sky")
    p.shape(np.array([[0.53, 0.35], [0.66, 0.35], [0.74, 0.47], [0.53, 0.47]]), "sky")
    for x in (0.27, 0.73):
        p.circle(x, 0.7, 0.11, "black")
        p.circle(x, 0.7, 0.045, "grey", outline=False)


@_glyph("boat", "blue")
def _boat(p: Pen) -> None:
    p.line([[0.5, 0.08], [0.5, 0.7]], 0.03, "brown")
    p.shape(np.array([[0.53, 0.12], [0.53, 0.62], [0.85, 0.62]]), "white")
    p.shape(np.array([[0.47, 0.2], [0.47, 0.62], [0.2, 0.62]]), "white")
    p.shape(np.array([[0.06, 0.68], [0.94, 0.68], [0.78, 0.86], [0.2, 0.86]]))


@_glyph("bicycle", "red")
def _bicycle(p: Pen) -> None:
    for x in (0.24, 0.76):
        p.line(circle_pts(x, 0.64, 0.19), 0.045, "black", closed=True)
    frame = [[0.24, 0.64], [0.42, 0.38], [0.68, 0.38], [0.76, 0.64]]
    p.thick(frame, 0.05)
    p.thick([[0.24, 0.64], [0.5, 0.64], [0.68, 0.38]], 0.05)
    p.thick([[0.42, 0.38], [0.5, 0.64]], 0.05)
    p.line([[0.38, 0.3], [0.5, 0.3]], 0.05, "black")
    p.line([[0.68, 0.38], [0.64, 0.26], [0.72, 0.24]], 0.04, "black")


@_glyph("train", "green")
def _train(p: Pen) -> None:
    p.rect(0.12, 0.4, 0.62, 0.76)
    p.rect(0.55, 0.22, 0.9, 0.76, r=0.03)
    p.rect(0.62, 0.3, 0.83, 0.46, "sky")
    p.rect(0.2, 0.22, 0.3, 0.4, "black")
    p.shape(np.array([[0.17, 0.14], [0.33, 0.14], [0.3, 0.22], [0.2, 0.22]]), "black")
    for x in (0.25, 0.47, 0.75):
        p.circle(x, 0.78, 0.1, "black")
    p.line([[0.02, 0.9], [0.98, 0.9]], 0.03, "black")


@_glyph("plane", "grey")
def _plane(p: Pen) -> None:
    p.shapes(
        [
            np.array([[0.42, 0.45], [0.1, 0.7], [0.16, 0.74], [0.55, 0.55]]),
            np.array([[0.42, 0.5], [0.18, 0.2], [0.25, 0.18], [0.58, 0.46]]),
            np.array([[0.82, 0.4], [0.88, 0.18], [0.95, 0.2], [0.94, 0.45]]),
            ellipse_pts(0.52, 0.46, 0.44, 0.08, angle=-8),
        ]
    )
    p.dot(0.17, 0.5, 0.02, "sky")
    for x in (0.3, 0.4, 0.5, 0.6):
        p.dot(x, 0.465 - (x - 0.52) * 0.14, 0.018, "sky")


@_glyph("rocket", "red")
def _rocket(p: Pen) -> None:
    p.shape(np.array([[0.4, 0.78], [0.5, 0.97], [0.6, 0.78]]), "orange")
    p.shapes(
        [
            np.array([[0.36, 0.58], [0.2, 0.8], [0.38, 0.76]]),
            np.array([[0.64, 0.58], [0.8, 0.8], [0.62, 0.76]]),
        ]
    )
    body = np.vstack(
        [
            ellipse_pts(0.5, 0.4, 0.15, 0.36, 180, 360, n=40),
            [[0.65, 0.4], [0.63, 0.8], [0.37, 0.8], [0.35, 0.4]],
        ]
    )
    p.shape(body, "white")
    p.shape(np.vstack([ellipse_pts(0.5, 0.3, 0.118, 0.26, 200, 340, n=20)]), "main")
    p.circle(0.5, 0.45, 0.07, "sky")


@_glyph("flower", "pink")
def _flower(p: Pen) -> None:
    p.line([[0.5, 0.55], [0.5, 0.95]], 0.045, "green")
    p.ellipse(0.62, 0.8, 0.1, 0.05, "leaf", angle=-30)
    petals = [
        circle_pts(0.5 + 0.17 * math.cos(a), 0.38 + 0.17 * math.sin(a), 0.13)
        for a in np.radians(np.arange(0, 360, 60))
    ]
    p.shapes(petals)
    p.circle(0.5, 0.38, 0.1, "paper" if p.pal.mono else "yellow")


@_glyph("apple", "red")
def _apple(p: Pen) -> None:
    p.line([[0.5, 0.3], [0.53, 0.12]], 0.04, "brown")
    p.ellipse(0.64, 0.16, 0.1, 0.05, "leaf", angle=-25)
    p.shapes(
        [
            circle_pts(0.37, 0.56, 0.27),
            circle_pts(0.63, 0.56, 0.27),
            ellipse_pts(0.5, 0.72, 0.22, 0.2),
        ]
    )
    p.ellipse(0.34, 0.48, 0.05, 0.09, "paper", angle=20, outline=False)


@_glyph("pear", "green")
def _pear(p: Pen) -> None:
    p.line([[0.5, 0.22], [0.52, 0.08]], 0.035, "brown")
    p.shapes(
        [
            circle_pts(0.5, 0.66, 0.26),
            circle_pts(0.5, 0.36, 0.14),
            np.array([[0.36, 0.38], [0.64, 0.38], [0.74, 0.6], [0.26, 0.6]]),
        ]
    )


@_glyph("banana", "yellow")
def _banana(p: Pen) -> None:
    pts = crescent_pts(0.5, 0.24, 0.46, -0.16, 0.46, rot=-100)
    p.shape(pts)
    tip = pts[int(np.argmax(pts[:, 0]))]
    p.line([tip, tip + np.array([0.03, -0.06])], 0.05, "brown")
    end = pts[int(np.argmin(pts[:, 0]))]
    p.dot(float(end[0]), float(end[1]), 0.02, "brown")


@_glyph("cherry", "red")
def _cherry(p: Pen) -> None:
    p.line([[0.3, 0.64], [0.52, 0.14], [0.72, 0.6]], 0.03, "green")
    p.ellipse(0.6, 0.14, 0.1, 0.05, "leaf", angle=20)
    p.circle(0.3, 0.7, 0.18)
    p.circle(0.72, 0.68, 0.18)
    p.dot(0.25, 0.65, 0.04, "paper")
    p.dot(0.67, 0.63, 0.04, "paper")


@_glyph("carrot", "orange")
def _carrot(p: Pen) -> None:
    for dx, a in ((-0.08, -25), (0.0, 0), (0.08, 25)):
        p.ellipse(0.5 + dx + 0.1 * math.sin(math.radians(a)), 0.16, 0.05, 0.13, "leaf", angle=a)
    p.shape(np.array([[0.32, 0.28], [0.68, 0.28], [0.52, 0.95], [0.48, 0.95]]))
    for y in (0.42, 0.56, 0.7):
        p.line([[0.44, y], [0.52, y + 0.02]], 0.02)


@_glyph("mushroom", "red")
def _mushroom(p: Pen) -> None:
    p.rect(0.38, 0.5, 0.62, 0.9, "cream", r=0.06)
    p.shape(np.vstack([ellipse_pts(0.5, 0.55, 0.42, 0.42, 180, 360, n=48)]))
    for x, y, r in ((0.32, 0.38, 0.06), (0.52, 0.26, 0.07), (0.7, 0.42, 0.05)):
        p.dot(x, y, r, "paper")


@_glyph("cup", "blue")
def _cup(p: Pen) -> None:
    p.line(ellipse_pts(0.74, 0.56, 0.12, 0.13, -90, 90, n=20), 0.05, "ink")
    p.rect(0.2, 0.36, 0.74, 0.86, r=0.05)
    for x in (0.36, 0.5, 0.64):
        p.line([[x, 0.28], [x - 0.03, 0.2], [x + 0.02, 0.12], [x - 0.01, 0.06]], 0.025, "grey")


@_glyph("key", "gold")
def _key(p: Pen) -> None:
    p.shapes(
        [
            circle_pts(0.28, 0.38, 0.2),
            rrect_pts(0.4, 0.33, 0.92, 0.44),
            rrect_pts(0.72, 0.42, 0.8, 0.6),
            rrect_pts(0.84, 0.42, 0.92, 0.56),
        ]
    )
    p.circle(0.25, 0.38, 0.08, "paper")


@_glyph("umbrella", "purple")
def _umbrella(p: Pen) -> None:
    p.line([[0.5, 0.45], [0.5, 0.82]], 0.045, "ink")
    p.line(ellipse_pts(0.42, 0.82, 0.08, 0.08, 0, 180, n=16), 0.045, "ink")
    top = ellipse_pts(0.5, 0.5, 0.44, 0.38, 180, 360, n=48)
    scallops = [
        ellipse_pts(x, 0.5, 0.11, 0.06, 0, 180, n=12)[::-1] for x in (0.83, 0.61, 0.39, 0.17)
    ]
    p.shape(np.vstack([top, *scallops]))
    p.line([[0.5, 0.12], [0.5, 0.05]], 0.04, "ink")


@_glyph("bell", "gold")
def _bell(p: Pen) -> None:
    p.circle(0.5, 0.84, 0.08)
    body = np.vstack(
        [
            ellipse_pts(0.5, 0.34, 0.22, 0.22, 180, 360, n=30),
            [[0.72, 0.34], [0.78, 0.66], [0.9, 0.78], [0.1, 0.78], [0.22, 0.66], [0.28, 0.34]],
        ]
    )
    p.shape(body)
    p.circle(0.5, 0.1, 0.05)


@_glyph("cloud", "sky")
def _cloud(p: Pen) -> None:
    p.shapes(
        [
            circle_pts(0.3, 0.58, 0.17),
            circle_pts(0.48, 0.44, 0.22),
            circle_pts(0.68, 0.52, 0.18),
            rrect_pts(0.18, 0.55, 0.82, 0.75, 0.1),
        ]
    )


@_glyph("lightning", "yellow")
def _lightning(p: Pen) -> None:
    p.shape(
        np.array(
            [
                [0.58, 0.03],
                [0.2, 0.56],
                [0.46, 0.56],
                [0.36, 0.97],
                [0.8, 0.4],
                [0.54, 0.4],
                [0.7, 0.03],
            ]
        )
    )


@_glyph("drop", "blue")
def _drop(p: Pen) -> None:
    p.shape(drop_pts(0.5, 0.62, 0.3))
    p.ellipse(0.4, 0.64, 0.05, 0.1, "paper", angle=15, outline=False)


@_glyph("snowman", "white")
def _snowman(p: Pen) -> None:
    p.circle(0.5, 0.72, 0.23)
    p.circle(0.5, 0.38, 0.16)
    p.rect(0.36, 0.06, 0.64, 0.24, "black")
    p.rect(0.3, 0.22, 0.7, 0.26, "black")
    p.dot(0.45, 0.36, 0.022)
    p.dot(0.55, 0.36, 0.022)
    p.shape(np.array([[0.5, 0.4], [0.64, 0.43], [0.5, 0.45]]), "orange", outline=False)
    for y in (0.62, 0.72, 0.82):
        p.dot(0.5, y, 0.025)


@_glyph("mountain", "grey")
def _mountain(p: Pen) -> None:
    p.shape(np.array([[0.02, 0.86], [0.3, 0.4], [0.5, 0.62], [0.66, 0.14], [0.98, 0.86]]))
    p.shape(
        np.array([[0.57, 0.3], [0.66, 0.14], [0.75, 0.3], [0.7, 0.34], [0.66, 0.3], [0.61, 0.34]]),
        "white",
        outline=False,
    )


@_glyph("clock", "red")
def _clock(p: Pen) -> None:
    p.circle(0.5, 0.5, 0.42)
    p.circle(0.5, 0.5, 0.33, "paper")
    for k in range(12):
        a = math.radians(k * 30)
        p.line(
            [
                [0.5 + 0.27 * math.cos(a), 0.5 + 0.27 * math.sin(a)],
                [0.5 + 0.31 * math.cos(a), 0.5 + 0.31 * math.sin(a)],
            ],
            0.02,
        )
    p.line([[0.5, 0.5], [0.5, 0.26]], 0.035)
    p.line([[0.5, 0.5], [0.66, 0.58]], 0.035)


@_glyph("glasses", "black")
def _glasses(p: Pen) -> None:
    for x in (0.28, 0.72):
        p.circle(x, 0.55, 0.17)
        p.circle(x, 0.55, 0.12, "sky", outline=False)
    p.line(ellipse_pts(0.5, 0.56, 0.1, 0.06, 200, 340, n=12), 0.04, "main")
    p.line([[0.11, 0.52], [0.03, 0.42]], 0.04, "main")
    p.line([[0.89, 0.52], [0.97, 0.42]], 0.04, "main")


@_glyph("hat", "black")
def _hat(p: Pen) -> None:
    p.ellipse(0.5, 0.78, 0.44, 0.1)
    p.rect(0.26, 0.2, 0.74, 0.78, r=0.02)
    p.rect(0.26, 0.6, 0.74, 0.7, "red")


@_glyph("crown", "gold")
def _crown(p: Pen) -> None:
    p.shape(
        np.array(
            [[0.1, 0.78], [0.1, 0.3], [0.3, 0.52], [0.5, 0.2], [0.7, 0.52], [0.9, 0.3], [0.9, 0.78]]
        )
    )
    for x in (0.1, 0.5, 0.9):
        p.circle(x, 0.25 if x != 0.5 else 0.15, 0.06)
    p.dot(0.3, 0.68, 0.05, "red")
    p.dot(0.5, 0.68, 0.05, "blue")
    p.dot(0.7, 0.68, 0.05, "red")


@_glyph("ladder", "brown")
def _ladder(p: Pen) -> None:
    for y in np.linspace(0.18, 0.86, 5):
        p.thick([[0.3, y], [0.7, y]], 0.05)
    p.thick([[0.28, 0.04], [0.28, 0.96]], 0.07)
    p.thick([[0.72, 0.04], [0.72, 0.96]], 0.07)


@_glyph("kite", "red")
def _kite(p: Pen) -> None:
    p.line([[0.5, 0.72], [0.42, 0.82], [0.52, 0.9], [0.44, 0.98]], 0.02)
    for x, y in ((0.43, 0.81), (0.5, 0.9)):
        p.shape(
            np.array(
                [
                    [x - 0.05, y - 0.03],
                    [x + 0.05, y + 0.03],
                    [x + 0.05, y - 0.03],
                    [x - 0.05, y + 0.03],
                ]
            ),
            "yellow",
            outline=False,
        )
    p.shape(np.array([[0.5, 0.04], [0.8, 0.34], [0.5, 0.72], [0.2, 0.34]]))
    p.line([[0.5, 0.04], [0.5, 0.72]], 0.02)
    p.line([[0.2, 0.34], [0.8, 0.34]], 0.02)


@_glyph("balloon", "red")
def _balloon(p: Pen) -> None:
    p.line([[0.5, 0.72], [0.46, 0.82], [0.54, 0.9], [0.5, 0.98]], 0.02)
    p.shape(np.array([[0.5, 0.66], [0.56, 0.76], [0.44, 0.76]]))
    p.ellipse(0.5, 0.38, 0.27, 0.32)
    p.ellipse(0.4, 0.28, 0.05, 0.09, "paper", angle=25, outline=False)


@_glyph("candle", "blue")
def _candle(p: Pen) -> None:
    p.shape(drop_pts(0.5, 0.24, 0.07), "orange")
    p.shape(drop_pts(0.5, 0.26, 0.035), "yellow", outline=False)
    p.line([[0.5, 0.3], [0.5, 0.36]], 0.02)
    p.rect(0.38, 0.36, 0.62, 0.86)
    p.ellipse(0.5, 0.88, 0.3, 0.06, "grey")


@_glyph("book", "green")
def _book(p: Pen) -> None:
    p.rect(0.2, 0.12, 0.8, 0.88, "cream", r=0.02)
    p.rect(0.16, 0.1, 0.74, 0.84, r=0.03)
    p.line([[0.24, 0.12], [0.24, 0.82]], 0.025, "ink")
    p.rect(0.34, 0.26, 0.64, 0.38, "paper")


@_glyph("pencil", "yellow")
def _pencil(p: Pen) -> None:
    p.shape(np.array([[0.2, 0.8], [0.08, 0.92], [0.28, 0.88]]), "wood")
    p.shape(np.array([[0.2, 0.8], [0.72, 0.28], [0.8, 0.36], [0.28, 0.88]]))
    p.shape(np.array([[0.72, 0.28], [0.82, 0.18], [0.9, 0.26], [0.8, 0.36]]), "pink")
    p.line([[0.24, 0.84], [0.76, 0.32]], 0.015)


@_glyph("bottle", "green")
def _bottle(p: Pen) -> None:
    p.shapes(
        [
            rrect_pts(0.3, 0.36, 0.7, 0.92, 0.08),
            rrect_pts(0.42, 0.1, 0.58, 0.4),
            ellipse_pts(0.5, 0.38, 0.2, 0.1),
        ]
    )
    p.rect(0.4, 0.04, 0.6, 0.12, "brown")
    p.rect(0.3, 0.55, 0.7, 0.75, "cream", outline=False)


@_glyph("lamp", "orange")
def _lamp(p: Pen) -> None:
    p.ellipse(0.5, 0.88, 0.24, 0.06, "grey")
    p.line([[0.5, 0.48], [0.5, 0.86]], 0.05, "grey")
    p.shape(np.array([[0.32, 0.1], [0.68, 0.1], [0.82, 0.5], [0.18, 0.5]]))


@_glyph("chair", "brown")
def _chair(p: Pen) -> None:
    p.rect(0.28, 0.52, 0.34, 0.94)
    p.rect(0.66, 0.52, 0.72, 0.94)
    p.rect(0.28, 0.06, 0.36, 0.56)
    p.rect(0.28, 0.06, 0.72, 0.14)
    p.rect(0.22, 0.5, 0.78, 0.58)


@_glyph("table", "brown")
def _table(p: Pen) -> None:
    for x in (0.14, 0.8):
        p.rect(x, 0.42, x + 0.06, 0.9)
    p.rect(0.06, 0.34, 0.94, 0.44)
    p.shape(np.array([[0.52, 0.34], [0.48, 0.18], [0.62, 0.18], [0.58, 0.34]]), "blue")


@_glyph("door", "brown")
def _door(p: Pen) -> None:
    p.rect(0.24, 0.06, 0.76, 0.94, r=0.02)
    p.rect(0.32, 0.14, 0.68, 0.44, "wood")
    p.rect(0.32, 0.52, 0.68, 0.86, "wood")
    p.circle(0.63, 0.5, 0.04, "gold")


@_glyph("bridge", "grey")
def _bridge(p: Pen) -> None:
    p.shape(np.array([[0.0, 0.82], [0.0, 0.9], [1.0, 0.9], [1.0, 0.82]]), "blue", outline=False)
    arch = ellipse_pts(0.5, 0.88, 0.3, 0.36, 360, 180, n=40)
    p.shape(np.vstack([[[0.02, 0.88], [0.02, 0.4], [0.98, 0.4], [0.98, 0.88]], arch[::-1]]))


@_glyph("castle", "grey")
def _castle(p: Pen) -> None:
    def tower(x0: float, x1: float, top: float) -> np.ndarray:
        w = (x1 - x0) / 5
        pts = [[x0, 0.94], [x0, top]]
        for k in range(5):
            y = top if k % 2 == 0 else top + 0.06
            pts += [[x0 + k * w, y], [x0 + (k + 1) * w, y]]
        pts += [[x1, top], [x1, 0.94]]
        return np.array(pts)

    p.shapes([tower(0.06, 0.32, 0.14), tower(0.68, 0.94, 0.14), tower(0.26, 0.74, 0.38)])
    p.shape(
        np.vstack([ellipse_pts(0.5, 0.72, 0.1, 0.1, 180, 360, n=16), [[0.6, 0.94], [0.4, 0.94]]]),
        "brown",
    )
    p.rect(0.16, 0.28, 0.22, 0.4, "black", outline=False)
    p.rect(0.78, 0.28, 0.84, 0.4, "black", outline=False)


@_glyph("tent", "orange")
def _tent(p: Pen) -> None:
    p.shape(np.array([[0.5, 0.1], [0.94, 0.86], [0.06, 0.86]]))
    p.shape(np.array([[0.5, 0.4], [0.66, 0.86], [0.34, 0.86]]), "black", outline=False)
    p.line([[0.5, 0.1], [0.5, 0.03]], 0.03)


@_glyph("flag", "red")
def _flag(p: Pen) -> None:
    p.line([[0.22, 0.06], [0.22, 0.96]], 0.045, "brown")
    t = np.linspace(0, 1, 20)
    top = np.stack([0.24 + 0.62 * t, 0.1 + 0.05 * np.sin(t * 2 * np.pi)], 1)
    bottom = np.stack([0.24 + 0.62 * t, 0.5 + 0.05 * np.sin(t * 2 * np.pi)], 1)[::-1]
    p.shape(np.vstack([top, bottom]))


@_glyph("snake", "green")
def _snake(p: Pen) -> None:
    t = np.linspace(0, 1, 60)
    pts = np.stack([0.1 + 0.72 * t, 0.62 + 0.16 * np.sin(t * 3 * np.pi)], 1)
    p.thick(pts, 0.11)
    p.ellipse(0.84, 0.6, 0.1, 0.08)
    p.dot(0.86, 0.56, 0.02)
    p.line([[0.94, 0.62], [0.99, 0.6], [0.99, 0.64]], 0.012, "red")


@_glyph("spider", "black")
def _spider(p: Pen) -> None:
    for side in (-1, 1):
        for k, ang in enumerate((-40, -10, 20, 50)):
            a = math.radians(ang)
            knee = (0.5 + side * 0.26 * math.cos(a), 0.55 + 0.26 * math.sin(a) - 0.14)
            foot = (0.5 + side * 0.42 * math.cos(a), 0.55 + 0.42 * math.sin(a) + 0.06 * k / 3)
            p.line([[0.5, 0.55], knee, foot], 0.035, "main")
    p.line([[0.5, 0.02], [0.5, 0.36]], 0.012, "grey")
    p.circle(0.5, 0.58, 0.17)
    p.circle(0.5, 0.38, 0.1)
    p.dot(0.46, 0.37, 0.025, "paper")
    p.dot(0.54, 0.37, 0.025, "paper")


@_glyph("butterfly", "purple")
def _butterfly(p: Pen) -> None:
    p.shapes(
        [
            ellipse_pts(0.3, 0.34, 0.22, 0.17, angle=-30),
            ellipse_pts(0.7, 0.34, 0.22, 0.17, angle=30),
            ellipse_pts(0.34, 0.66, 0.15, 0.13, angle=30),
            ellipse_pts(0.66, 0.66, 0.15, 0.13, angle=-30),
        ]
    )
    for x, y in ((0.27, 0.32), (0.73, 0.32)):
        p.dot(x, y, 0.06, "yellow")
    p.ellipse(0.5, 0.52, 0.04, 0.26, "black")
    p.line([[0.49, 0.28], [0.4, 0.12]], 0.015)
    p.line([[0.51, 0.28], [0.6, 0.12]], 0.015)


@_glyph("snail", "orange")
def _snail(p: Pen) -> None:
    p.shape(np.array([[0.06, 0.84], [0.1, 0.7], [0.2, 0.66], [0.86, 0.7], [0.9, 0.84]]), "skin")
    p.line([[0.14, 0.7], [0.08, 0.52]], 0.02)
    p.line([[0.2, 0.68], [0.2, 0.5]], 0.02)
    p.circle(0.56, 0.48, 0.28)
    t = np.linspace(0, 4 * np.pi, 80)
    r = 0.24 * (1 - t / (4.5 * np.pi))
    p.line(np.stack([0.56 + r * np.cos(t), 0.48 + r * np.sin(t)], 1), 0.025)


@_glyph("egg", "cream")
def _egg(p: Pen) -> None:
    t = np.linspace(0, 2 * np.pi, 80)
    r = 0.3 * (1 + 0.14 * np.sin(t))
    p.shape(np.stack([0.5 + 0.8 * r * np.cos(t), 0.54 - 1.1 * r * np.sin(t)], 1))
    p.ellipse(0.42, 0.4, 0.04, 0.08, "paper", angle=20, outline=False)


@_glyph("envelope", "white")
def _envelope(p: Pen) -> None:
    p.rect(0.08, 0.24, 0.92, 0.78)
    p.line([[0.08, 0.24], [0.5, 0.56], [0.92, 0.24]], 0.03, "ink")
    p.shape(star_pts(0.5, 0.56, 0.07, k=5), "red", outline=False)


@_glyph("ghost", "white")
def _ghost(p: Pen) -> None:
    top = ellipse_pts(0.5, 0.42, 0.3, 0.32, 180, 360, n=40)
    t = np.linspace(1, 0, 40)
    wave = np.stack([0.2 + 0.6 * t, 0.86 + 0.05 * np.sin(t * 6 * np.pi)], 1)
    p.shape(np.vstack([top, [[0.8, 0.86]], wave, [[0.2, 0.42]]]))
    p.ellipse(0.41, 0.42, 0.05, 0.08, "detail", outline=False)
    p.ellipse(0.59, 0.42, 0.05, 0.08, "detail", outline=False)
    p.ellipse(0.5, 0.6, 0.05, 0.06, "detail", outline=False)


@_glyph("hammer", "grey")
def _hammer(p: Pen) -> None:
    p.shape(np.array([[0.45, 0.3], [0.55, 0.3], [0.57, 0.95], [0.43, 0.95]]), "wood")
    p.rect(0.18, 0.1, 0.82, 0.32, r=0.03)


@_glyph("icecream", "pink")
def _icecream(p: Pen) -> None:
    p.shape(np.array([[0.3, 0.5], [0.7, 0.5], [0.5, 0.96]]), "wood")
    p.line([[0.36, 0.6], [0.58, 0.8]], 0.015)
    p.line([[0.64, 0.6], [0.42, 0.8]], 0.015)
    p.shapes([circle_pts(0.5, 0.34, 0.22), ellipse_pts(0.5, 0.5, 0.26, 0.07)])
    p.circle(0.56, 0.12, 0.06, "red")


@_glyph("lollipop", "pink")
def _lollipop(p: Pen) -> None:
    p.line([[0.5, 0.6], [0.5, 0.97]], 0.045, "paper")
    p.line([[0.5, 0.6], [0.5, 0.97]], 0.02, "grey")
    p.circle(0.5, 0.36, 0.3)
    t = np.linspace(0, 5 * np.pi, 100)
    r = 0.26 * t / (5 * np.pi)
    p.line(np.stack([0.5 + r * np.cos(t), 0.36 + r * np.sin(t)], 1), 0.035, "paper")


@_glyph("robot", "grey")
def _robot(p: Pen) -> None:
    p.line([[0.5, 0.14], [0.5, 0.04]], 0.03)
    p.circle(0.5, 0.04, 0.035, "red")
    p.rect(0.14, 0.54, 0.86, 0.62, r=0.03)
    p.rect(0.3, 0.48, 0.7, 0.94, r=0.04)
    p.rect(0.28, 0.14, 0.72, 0.46, r=0.05)
    p.circle(0.4, 0.28, 0.06, "yellow")
    p.circle(0.6, 0.28, 0.06, "yellow")
    p.rect(0.38, 0.37, 0.62, 0.41, "detail", outline=False)


@_glyph("tv", "blue")
def _tv(p: Pen) -> None:
    p.line([[0.5, 0.28], [0.32, 0.06]], 0.025)
    p.line([[0.5, 0.28], [0.7, 0.08]], 0.025)
    p.rect(0.08, 0.26, 0.92, 0.82, r=0.05)
    p.rect(0.16, 0.34, 0.7, 0.74, "sky", r=0.03)
    p.dot(0.81, 0.42, 0.035)
    p.dot(0.81, 0.54, 0.035)
    p.rect(0.2, 0.82, 0.3, 0.9, "black")
    p.rect(0.7, 0.82, 0.8, 0.9, "black")


@_glyph("rainbow", "red", recolour=False)
def _rainbow(p: Pen) -> None:
    for k, c in enumerate(("red", "orange", "yellow", "green", "blue", "purple")):
        r = 0.44 - k * 0.05
        p.shape(
            np.vstack(
                [
                    ellipse_pts(0.5, 0.76, r, r, 180, 360, n=48),
                    ellipse_pts(0.5, 0.76, r - 0.05, r - 0.05, 360, 180, n=48),
                ]
            ),
            c if p.pal.mono is False else "main",
            outline=k == 0,
        )


@_glyph("eye", "blue")
def _eye(p: Pen) -> None:
    lid = np.vstack(
        [
            ellipse_pts(0.5, 0.78, 0.5, 0.44, 220, 320, n=30),
            ellipse_pts(0.5, 0.22, 0.5, 0.44, 40, 140, n=30),
        ]
    )
    p.shape(lid, "paper")
    p.circle(0.5, 0.5, 0.17)
    p.dot(0.5, 0.5, 0.08)
    p.dot(0.46, 0.45, 0.035, "paper")


@_glyph("face", "yellow")
def _face(p: Pen) -> None:
    p.circle(0.5, 0.5, 0.42)
    p.ellipse(0.36, 0.4, 0.045, 0.07, "detail", outline=False)
    p.ellipse(0.64, 0.4, 0.045, 0.07, "detail", outline=False)
    p.line(ellipse_pts(0.5, 0.52, 0.24, 0.2, 20, 160, n=24), 0.04)


@_glyph("anchor", "navy")
def _anchor(p: Pen) -> None:
    p.line(circle_pts(0.5, 0.14, 0.07), 0.045, "main", closed=True)
    p.thick([[0.5, 0.22], [0.5, 0.88]], 0.07)
    p.thick([[0.3, 0.32], [0.7, 0.32]], 0.07)
    p.thick(ellipse_pts(0.5, 0.52, 0.36, 0.36, 10, 170, n=30), 0.07)
    p.shape(np.array([[0.8, 0.5], [0.92, 0.66], [0.74, 0.66]]))
    p.shape(np.array([[0.2, 0.5], [0.08, 0.66], [0.26, 0.66]]))


@_glyph("guitar", "orange")
def _guitar(p: Pen) -> None:
    p.thick([[0.5, 0.5], [0.5, 0.1]], 0.08, "brown")
    p.rect(0.44, 0.02, 0.56, 0.12, "brown")
    p.shapes([circle_pts(0.5, 0.76, 0.2), circle_pts(0.5, 0.5, 0.15)])
    p.circle(0.5, 0.62, 0.06, "black")
    p.rect(0.42, 0.8, 0.58, 0.84, "black")


@_glyph("leaf", "green")
def _leaf(p: Pen) -> None:
    p.line([[0.3, 0.72], [0.14, 0.92]], 0.035, "brown")
    pts = np.vstack(
        [
            ellipse_pts(0.86, 0.62, 0.62, 0.62, 180, 270, n=30),
            ellipse_pts(0.14, 0.14, 0.62, 0.62, 0, 90, n=30),
        ]
    )
    p.shape(0.12 + 0.76 * pts)
    p.line([[0.25, 0.75], [0.72, 0.27]], 0.02)


@_glyph("turtle", "green")
def _turtle(p: Pen) -> None:
    for x in (0.28, 0.66):
        p.ellipse(x, 0.72, 0.07, 0.1, "leaf")
    p.circle(0.86, 0.56, 0.1, "leaf")
    p.dot(0.89, 0.53, 0.02)
    p.shape(ellipse_pts(0.48, 0.62, 0.34, 0.3, 180, 360, n=40))
    p.line([[0.14, 0.62], [0.82, 0.62]], 0.03, "ink")
    p.shape(star_pts(0.48, 0.48, 0.1, k=6, inner=0.85, rot=0), "leaf")


@_glyph("gift", "red")
def _gift(p: Pen) -> None:
    p.rect(0.14, 0.4, 0.86, 0.9)
    p.rect(0.1, 0.3, 0.9, 0.42)
    p.rect(0.45, 0.3, 0.55, 0.9, "yellow")
    p.ellipse(0.37, 0.22, 0.12, 0.07, "yellow", angle=20)
    p.ellipse(0.63, 0.22, 0.12, 0.07, "yellow", angle=-20)


@_glyph("cake", "pink")
def _cake(p: Pen) -> None:
    p.rect(0.46, 0.14, 0.54, 0.36, "sky")
    p.shape(drop_pts(0.5, 0.1, 0.035), "orange", outline=False)
    p.rect(0.14, 0.36, 0.86, 0.6, "cream")
    p.rect(0.1, 0.6, 0.9, 0.88)
    p.line(
        np.stack(
            [np.linspace(0.14, 0.86, 20), 0.48 + 0.03 * np.sin(np.linspace(0, 6 * np.pi, 20))], 1
        ),
        0.04,
        "main",
    )


@_glyph("duck", "yellow")
def _duck(p: Pen) -> None:
    p.shapes(
        [
            ellipse_pts(0.52, 0.66, 0.36, 0.2),
            np.array([[0.84, 0.6], [0.96, 0.44], [0.86, 0.7]]),
            circle_pts(0.32, 0.36, 0.16),
        ]
    )
    p.shape(np.array([[0.18, 0.36], [0.03, 0.42], [0.18, 0.46]]), "orange")
    p.dot(0.3, 0.32, 0.03)
    p.line(ellipse_pts(0.58, 0.62, 0.14, 0.08, 20, 160, n=12), 0.025)


@_glyph("whale", "blue")
def _whale(p: Pen) -> None:
    p.line([[0.3, 0.3], [0.3, 0.12], [0.22, 0.06]], 0.025, "sky")
    p.line([[0.3, 0.12], [0.38, 0.06]], 0.025, "sky")
    body = np.vstack(
        [
            ellipse_pts(0.42, 0.58, 0.36, 0.26, 180, 360, n=30),
            [[0.78, 0.58], [0.92, 0.36], [0.96, 0.46], [0.84, 0.66]],
            ellipse_pts(0.42, 0.58, 0.36, 0.22, 10, 180, n=30),
        ]
    )
    p.shape(body)
    p.dot(0.24, 0.56, 0.03)


@_glyph("scissors", "red")
def _scissors(p: Pen) -> None:
    p.shape(np.array([[0.44, 0.56], [0.86, 0.06], [0.9, 0.1], [0.56, 0.6]]), "grey")
    p.shape(np.array([[0.56, 0.56], [0.14, 0.06], [0.1, 0.1], [0.44, 0.6]]), "grey")
    for x in (0.3, 0.7):
        p.line(circle_pts(x, 0.78, 0.13), 0.06, "main", closed=True)


@_glyph("bus", "yellow")
def _bus(p: Pen) -> None:
    p.rect(0.04, 0.2, 0.96, 0.76, r=0.05)
    for x in (0.1, 0.3, 0.5, 0.7):
        p.rect(x, 0.28, x + 0.14, 0.46, "sky")
    p.rect(0.86, 0.28, 0.93, 0.62, "sky")
    p.line([[0.04, 0.58], [0.96, 0.58]], 0.03, "ink")
    for x in (0.24, 0.74):
        p.circle(x, 0.78, 0.09, "black")


@_glyph("shirt", "teal")
def _shirt(p: Pen) -> None:
    p.shape(
        np.array(
            [
                [0.36, 0.1],
                [0.64, 0.1],
                [0.94, 0.28],
                [0.84, 0.46],
                [0.74, 0.4],
                [0.74, 0.92],
                [0.26, 0.92],
                [0.26, 0.4],
                [0.16, 0.46],
                [0.06, 0.28],
            ]
        )
    )
    p.line(ellipse_pts(0.5, 0.1, 0.12, 0.09, 0, 180, n=12), 0.025)


@_glyph("ball", "red")
def _ball(p: Pen) -> None:
    p.circle(0.5, 0.5, 0.4)
    lens = np.vstack(
        [
            ellipse_pts(0.5, 0.5, 0.17, 0.4, -90, 90, n=24),
            ellipse_pts(0.5, 0.5, 0.17, 0.4, 90, 270, n=24),
        ]
    )
    p.shape(lens, "paper" if p.pal.mono else "white", outline=False)
    p.line(ellipse_pts(0.5, 0.5, 0.17, 0.4, -90, 90, n=24), 0.025, "ink")
    p.line(ellipse_pts(0.5, 0.5, 0.17, 0.4, 90, 270, n=24), 0.025, "ink")
    p.circle(0.5, 0.1, 0.05, "ink", outline=False)


@_glyph("sock", "purple")
def _sock(p: Pen) -> None:
    p.shape(
        np.array(
            [
                [0.34, 0.06],
                [0.66, 0.06],
                [0.66, 0.58],
                [0.9, 0.72],
                [0.86, 0.92],
                [0.5, 0.9],
                [0.34, 0.74],
            ]
        )
    )
    p.rect(0.34, 0.06, 0.66, 0.18, "white")
    p.line([[0.34, 0.36], [0.66, 0.36]], 0.04, "white")


@_glyph("bread", "wood")
def _bread(p: Pen) -> None:
    p.shapes([ellipse_pts(0.5, 0.56, 0.42, 0.24), rrect_pts(0.08, 0.56, 0.92, 0.8, 0.08)])
    for x in (0.3, 0.5, 0.7):
        p.line([[x - 0.05, 0.46], [x + 0.05, 0.36]], 0.03, "brown")


@_glyph("watermelon", "green")
def _watermelon(p: Pen) -> None:
    p.shape(ellipse_pts(0.5, 0.3, 0.46, 0.5, 20, 160, n=40))
    p.shape(ellipse_pts(0.5, 0.3, 0.4, 0.44, 20, 160, n=40), "red", outline=False)
    for x, y in ((0.38, 0.5), (0.5, 0.58), (0.62, 0.5), (0.44, 0.42), (0.56, 0.42)):
        p.ellipse(x, y, 0.015, 0.03, "detail", outline=False)


@_glyph("palm", "green")
def _palm(p: Pen) -> None:
    p.thick([[0.5, 0.94], [0.46, 0.6], [0.5, 0.3]], 0.07, "wood")
    for a in (-160, -120, -60, -20):
        r = math.radians(a)
        p.ellipse(
            0.5 + 0.2 * math.cos(r),
            0.3 + 0.2 * math.sin(r) + 0.05,
            0.22,
            0.07,
            angle=a + (20 if a > -90 else -20),
        )
    p.circle(0.46, 0.36, 0.05, "brown")
    p.circle(0.54, 0.36, 0.05, "brown")


GLYPH_NAMES: tuple[str, ...] = tuple(GLYPHS)


def draw_pictogram(
    img: np.ndarray,
    name: str,
    box_px: tuple[float, float, float],
    colour: str | Colour | None = None,
    mono: bool = False,
) -> None:
    """Draw pictogram ``name`` into ``img`` ((H, W, 3) uint8 BGR, in place).

    ``box_px`` is (x0, y0, size): the square box in pixels. ``colour`` replaces the main
    colour (a name from ``COLOURS`` or a BGR tuple); ``mono`` draws a one-colour silhouette
    with white details.
    """
    if name not in GLYPHS:
        raise ValueError(f"unknown pictogram {name!r}")
    g = GLYPHS[name]
    if colour is None:
        colour = g.main
    main = COLOURS[colour] if isinstance(colour, str) else colour
    g.draw(Pen(img, box_px[0], box_px[1], box_px[2], Palette(main, mono)))
