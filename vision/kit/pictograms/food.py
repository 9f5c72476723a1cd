"""Pictograms of fruit, vegetables and sweets.

Each draws into a ``Pen``'s square box in unit coordinates (``vision.kit.pictograms``).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from vision.kit.pictograms.pen import (
    Glyph,
    Pen,
    circle_pts,
    crescent_pts,
    drop_pts,
    ellipse_pts,
    glyph,
    rrect_pts,
)

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


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


@_glyph("egg", "cream")
def _egg(p: Pen) -> None:
    t = np.linspace(0, 2 * np.pi, 80)
    r = 0.3 * (1 + 0.14 * np.sin(t))
    p.shape(np.stack([0.5 + 0.8 * r * np.cos(t), 0.54 - 1.1 * r * np.sin(t)], 1))
    p.ellipse(0.42, 0.4, 0.04, 0.08, "paper", angle=20, outline=False)


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
