"""What the Picasso board reader reports: frozen dataclasses, in board millimetres.

Board frame: origin at the canvas's top-left corner, x to the right, y down (KIT.md, and
``calibration.layout``). Serialisation to the docs/formats.md JSON lives in one place,
``vision.picasso.sink``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.planes import PlaneFit

#: Picasso cost of each count key (docs/formats.md: a + b + 2c + 3d).
COST = {"long_stick": 1, "short_stick": 1, "shape": 2, "string": 3}
COUNT_KEYS = ("long_stick", "short_stick", "shape", "string")


@dataclass(frozen=True)
class Stick:
    """A stick: ``kind`` (``long_stick``/``short_stick``), centre-line ends ``p0_mm`` and
    ``p1_mm`` (x, y), the measured ``length_mm``, and ``seam``: for a stretch as long as two
    sticks end to end, whether the seam test split it (None when not asked)."""

    kind: str
    p0_mm: tuple[float, float]
    p1_mm: tuple[float, float]
    length_mm: float
    seam: bool | None = None


@dataclass(frozen=True, eq=False)
class Shape:
    """A shape: its ``shape`` kind (circle, square, triangle, half_circle), ``colour``,
    ``centre_mm``, ``outline_mm`` (N, 2) float32 polygon, ``area_mm2``, and how the kind was
    named: ``method`` ``geometry`` or ``model``, with the model's ``confidence`` (or the
    geometric match's, 1 for a perfect outline)."""

    shape: str
    colour: str
    centre_mm: tuple[float, float]
    outline_mm: NDArray[np.float32]
    area_mm2: float
    method: str = "geometry"
    confidence: float = 1.0


@dataclass(frozen=True, eq=False)
class Cord:
    """The string: visible ``length_mm`` and a coarse ``points_mm`` (N, 2) float32 polyline."""

    length_mm: float
    points_mm: NDArray[np.float32]


@dataclass(frozen=True, eq=False)
class Occlusion:
    """Something foreign over the canvas: ``covered_fraction`` of the canvas area, and
    ``outlines_mm``, its patches' outlines ((N, 2) float32 each)."""

    covered_fraction: float
    outlines_mm: tuple[NDArray[np.float32], ...] = ()


@dataclass(frozen=True, eq=False)
class BoardReading:
    """One frame's reading of the board.

    ``sticks``, ``shapes`` and ``string`` are what lies on the canvas (pieces outside the
    canvas, the supply, are never looked at). When ``occlusion`` is set, a hand or another
    foreign object covers part of the canvas: the pieces seen are still listed, but
    ``counts`` and ``cost`` are None (not counted). ``warning`` is set when the board was
    rectified without a camera calibration; ``doubt`` when the counts may well be wrong
    (the players should check them). ``canvas``: the rectified canvas image
    ((H, W, 3) uint8 BGR at ``px_per_mm``), kept for the annotation; ``fit``: the board
    plane (board mm <-> frame pixels).
    """

    sticks: tuple[Stick, ...]
    shapes: tuple[Shape, ...]
    string: Cord | None
    occlusion: Occlusion | None
    markers: tuple[int, ...]
    fit_rms_px: float
    warning: str | None
    canvas: NDArray[np.uint8] = field(repr=False)
    px_per_mm: float = 2.0
    fit: PlaneFit | None = field(default=None, repr=False)
    #: why the counts may be wrong, for the players to check them (``reader.COARSE_PX_PER_MM``:
    #: the camera saw the board too coarsely), or None
    doubt: str | None = None

    @property
    def occluded(self) -> bool:
        return self.occlusion is not None

    @property
    def seen_counts(self) -> dict[str, int]:
        """Pieces seen by kind, occluded or not."""
        out = dict.fromkeys(COUNT_KEYS, 0)
        for s in self.sticks:
            out[s.kind] = out.get(s.kind, 0) + 1
        out["shape"] = len(self.shapes)
        out["string"] = 1 if self.string is not None else 0
        return out

    @property
    def counts(self) -> dict[str, int] | None:
        """Pieces on the canvas by kind (docs/formats.md ``build`` keys), None when occluded."""
        return None if self.occluded else self.seen_counts

    @property
    def cost(self) -> int | None:
        """Picasso cost (stick 1, shape 2, string 3), None when occluded."""
        c = self.counts
        return None if c is None else sum(COST[k] * n for k, n in c.items())
