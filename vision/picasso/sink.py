"""The one place readings become JSON: the ``analyze picasso`` entry of docs/formats.md
section 3, ``{"image", "pieces", "counts", "cost"}``, plus ``occluded``,
``covered_fraction``, ``markers`` and ``warning``."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.result import Failure
from vision.picasso.reading import BoardReading


def _pt(p: tuple[float, float]) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def reading_to_json(reading: BoardReading) -> dict[str, Any]:
    """The JSON object of one reading (without ``image``).

    ``pieces``: sticks ``{"kind": "long_stick"|"short_stick", "ends_mm": [[x, y], [x, y]],
    "length_mm"}``, shapes ``{"kind": "shape", "shape", "colour", "centre_mm", "outline_mm",
    "area_mm2", "method", "confidence"}``, the string ``{"kind": "string", "length_mm",
    "polylines_mm": [[[x, y], ...], ...]}``; board mm (origin at the canvas's top-left
    corner, x right, y down).
    ``counts``/``cost`` are null when ``occluded`` (not counted).
    """
    pieces: list[dict[str, Any]] = []
    for s in reading.sticks:
        pieces.append(
            {
                "kind": s.kind,
                "ends_mm": [_pt(s.p0_mm), _pt(s.p1_mm)],
                "length_mm": round(s.length_mm, 1),
            }
        )
    for sh in reading.shapes:
        pieces.append(
            {
                "kind": "shape",
                "shape": sh.shape,
                "colour": sh.colour,
                "centre_mm": _pt(sh.centre_mm),
                "outline_mm": [_pt((float(x), float(y))) for x, y in sh.outline_mm],
                "area_mm2": round(sh.area_mm2, 1),
                "method": sh.method,
                "confidence": round(sh.confidence, 3),
            }
        )
    if reading.string is not None:
        pieces.append(
            {
                "kind": "string",
                "length_mm": round(reading.string.length_mm, 1),
                "polylines_mm": [
                    [_pt((float(x), float(y))) for x, y in part]
                    for part in split_polyline(reading.string.points_mm)
                ],
            }
        )
    out: dict[str, Any] = {
        "pieces": pieces,
        "counts": reading.counts,
        "cost": reading.cost,
        "occluded": reading.occluded,
    }
    if reading.occlusion is not None:
        out["covered_fraction"] = round(reading.occlusion.covered_fraction, 4)
    out["markers"] = list(reading.markers)
    if reading.warning:
        out["warning"] = reading.warning
    if reading.doubt:
        out["doubt"] = reading.doubt
    return out


def split_polyline(points: NDArray[np.float32]) -> list[NDArray[np.float32]]:
    """(N, 2) points with NaN rows between pieces -> the pieces (each 2 points or more)."""
    bad = np.isnan(points).any(1)
    out: list[NDArray[np.float32]] = []
    start = 0
    for i in [*np.flatnonzero(bad).tolist(), len(points)]:
        if i - start >= 2:
            out.append(points[start:i])
        start = i + 1
    return out


def failure_to_json(failure: Failure) -> dict[str, Any]:
    """The entry of a frame where no board was read: ``{"error": reason}``."""
    return {"error": failure.reason}
