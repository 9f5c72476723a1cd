"""Pictograms of toys and party things.

Each draws into a ``Pen``'s square box in unit coordinates (``vision.kit.pictograms``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from vision.kit.pictograms.pen import Glyph, Pen, circle_pts, ellipse_pts, glyph

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


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


@_glyph("flag", "red")
def _flag(p: Pen) -> None:
    p.line([[0.22, 0.06], [0.22, 0.96]], 0.045, "brown")
    t = np.linspace(0, 1, 20)
    top = np.stack([0.24 + 0.62 * t, 0.1 + 0.05 * np.sin(t * 2 * np.pi)], 1)
    bottom = np.stack([0.24 + 0.62 * t, 0.5 + 0.05 * np.sin(t * 2 * np.pi)], 1)[::-1]
    p.shape(np.vstack([top, bottom]))


@_glyph("guitar", "orange")
def _guitar(p: Pen) -> None:
    p.thick([[0.5, 0.5], [0.5, 0.1]], 0.08, "brown")
    p.rect(0.44, 0.02, 0.56, 0.12, "brown")
    p.shapes([circle_pts(0.5, 0.76, 0.2), circle_pts(0.5, 0.5, 0.15)])
    p.circle(0.5, 0.62, 0.06, "black")
    p.rect(0.42, 0.8, 0.58, 0.84, "black")


@_glyph("gift", "red")
def _gift(p: Pen) -> None:
    p.rect(0.14, 0.4, 0.86, 0.9)
    p.rect(0.1, 0.3, 0.9, 0.42)
    p.rect(0.45, 0.3, 0.55, 0.9, "yellow")
    p.ellipse(0.37, 0.22, 0.12, 0.07, "yellow", angle=20)
    p.ellipse(0.63, 0.22, 0.12, 0.07, "yellow", angle=-20)


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
