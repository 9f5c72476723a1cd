"""Pictograms of plants, the sky and the weather.

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
    star_pts,
)

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


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


@_glyph("mushroom", "red")
def _mushroom(p: Pen) -> None:
    p.rect(0.38, 0.5, 0.62, 0.9, "cream", r=0.06)
    p.shape(np.vstack([ellipse_pts(0.5, 0.55, 0.42, 0.42, 180, 360, n=48)]))
    for x, y, r in ((0.32, 0.38, 0.06), (0.52, 0.26, 0.07), (0.7, 0.42, 0.05)):
        p.dot(x, y, r, "paper")


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
