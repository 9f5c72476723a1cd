"""Vehicle pictograms.

Each draws into a ``Pen``'s square box in unit coordinates (``vision.kit.pictograms``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from vision.kit.pictograms.pen import Glyph, Pen, circle_pts, ellipse_pts, glyph

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


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


@_glyph("bus", "yellow")
def _bus(p: Pen) -> None:
    p.rect(0.04, 0.2, 0.96, 0.76, r=0.05)
    for x in (0.1, 0.3, 0.5, 0.7):
        p.rect(x, 0.28, x + 0.14, 0.46, "sky")
    p.rect(0.86, 0.28, 0.93, 0.62, "sky")
    p.line([[0.04, 0.58], [0.96, 0.58]], 0.03, "ink")
    for x in (0.24, 0.74):
        p.circle(x, 0.78, 0.09, "black")
