"""Pictograms of faces and figures, and of what people wear.

Each draws into a ``Pen``'s square box in unit coordinates (``vision.kit.pictograms``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from vision.kit.pictograms.pen import Glyph, Pen, ellipse_pts, glyph, heart_pts

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


@_glyph("heart", "red")
def _heart(p: Pen) -> None:
    p.shape(heart_pts(0.5, 0.5, 0.82))


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


@_glyph("ghost", "white")
def _ghost(p: Pen) -> None:
    top = ellipse_pts(0.5, 0.42, 0.3, 0.32, 180, 360, n=40)
    t = np.linspace(1, 0, 40)
    wave = np.stack([0.2 + 0.6 * t, 0.86 + 0.05 * np.sin(t * 6 * np.pi)], 1)
    p.shape(np.vstack([top, [[0.8, 0.86]], wave, [[0.2, 0.42]]]))
    p.ellipse(0.41, 0.42, 0.05, 0.08, "detail", outline=False)
    p.ellipse(0.59, 0.42, 0.05, 0.08, "detail", outline=False)
    p.ellipse(0.5, 0.6, 0.05, 0.06, "detail", outline=False)


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
