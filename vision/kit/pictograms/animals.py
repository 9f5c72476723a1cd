"""Animal pictograms.

Each draws into a ``Pen``'s square box in unit coordinates (``vision.kit.pictograms``).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from vision.kit.pictograms.pen import Glyph, Pen, circle_pts, ellipse_pts, glyph, star_pts

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


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


@_glyph("turtle", "green")
def _turtle(p: Pen) -> None:
    for x in (0.28, 0.66):
        p.ellipse(x, 0.72, 0.07, 0.1, "leaf")
    p.circle(0.86, 0.56, 0.1, "leaf")
    p.dot(0.89, 0.53, 0.02)
    p.shape(ellipse_pts(0.48, 0.62, 0.34, 0.3, 180, 360, n=40))
    p.line([[0.14, 0.62], [0.82, 0.62]], 0.03, "ink")
    p.shape(star_pts(0.48, 0.48, 0.1, k=6, inner=0.85, rot=0), "leaf")


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
