"""Pictograms of everyday objects and tools.

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
    drop_pts,
    ellipse_pts,
    glyph,
    rrect_pts,
    star_pts,
)

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


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


@_glyph("envelope", "white")
def _envelope(p: Pen) -> None:
    p.rect(0.08, 0.24, 0.92, 0.78)
    p.line([[0.08, 0.24], [0.5, 0.56], [0.92, 0.24]], 0.03, "ink")
    p.shape(star_pts(0.5, 0.56, 0.07, k=5), "red", outline=False)


@_glyph("hammer", "grey")
def _hammer(p: Pen) -> None:
    p.shape(np.array([[0.45, 0.3], [0.55, 0.3], [0.57, 0.95], [0.43, 0.95]]), "wood")
    p.rect(0.18, 0.1, 0.82, 0.32, r=0.03)


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


@_glyph("anchor", "navy")
def _anchor(p: Pen) -> None:
    p.line(circle_pts(0.5, 0.14, 0.07), 0.045, "main", closed=True)
    p.thick([[0.5, 0.22], [0.5, 0.88]], 0.07)
    p.thick([[0.3, 0.32], [0.7, 0.32]], 0.07)
    p.thick(ellipse_pts(0.5, 0.52, 0.36, 0.36, 10, 170, n=30), 0.07)
    p.shape(np.array([[0.8, 0.5], [0.92, 0.66], [0.74, 0.66]]))
    p.shape(np.array([[0.2, 0.5], [0.08, 0.66], [0.26, 0.66]]))


@_glyph("scissors", "red")
def _scissors(p: Pen) -> None:
    p.shape(np.array([[0.44, 0.56], [0.86, 0.06], [0.9, 0.1], [0.56, 0.6]]), "grey")
    p.shape(np.array([[0.56, 0.56], [0.14, 0.06], [0.1, 0.1], [0.44, 0.6]]), "grey")
    for x in (0.3, 0.7):
        p.line(circle_pts(x, 0.78, 0.13), 0.06, "main", closed=True)
