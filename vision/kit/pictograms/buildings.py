"""Pictograms of buildings and furniture.

Each draws into a ``Pen``'s square box in unit coordinates (``vision.kit.pictograms``).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from vision.kit.pictograms.pen import Glyph, Pen, ellipse_pts, glyph

GLYPHS: dict[str, Glyph] = {}
"""These pictograms by name, in the order they were first drawn."""
_glyph = partial(glyph, GLYPHS)


@_glyph("house", "red")
def _house(p: Pen) -> None:
    p.rect(0.2, 0.45, 0.8, 0.9)
    p.shape(np.array([[0.1, 0.48], [0.5, 0.12], [0.9, 0.48]]), "brown")
    p.rect(0.43, 0.62, 0.57, 0.9, "paper")
    p.rect(0.26, 0.54, 0.38, 0.66, "sky")


@_glyph("ladder", "brown")
def _ladder(p: Pen) -> None:
    for y in np.linspace(0.18, 0.86, 5):
        p.thick([[0.3, y], [0.7, y]], 0.05)
    p.thick([[0.28, 0.04], [0.28, 0.96]], 0.07)
    p.thick([[0.72, 0.04], [0.72, 0.96]], 0.07)


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
