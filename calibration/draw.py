"""Drawing the planes and seats over a frame, for a person to check the calibration."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import layout
from calibration.planes import PlaneFit
from calibration.result import Failure
from calibration.seats import Seat

SEAT_COLOURS = [
    (66, 135, 245),
    (80, 200, 120),
    (245, 166, 35),
    (200, 80, 200),
    (60, 60, 230),
    (40, 200, 220),
]


def draw_planes(
    frame: NDArray[np.uint8],
    table: PlaneFit | Failure,
    board: PlaneFit | Failure,
    seats: tuple[Seat, ...] = (),
) -> NDArray[np.uint8]:
    """A copy of ``frame`` (H, W, 3) with the seat zones, the play area, the canvas and a
    10 cm grid on it."""
    out = frame.copy()
    if isinstance(table, PlaneFit):
        overlay = out.copy()
        for seat in seats:
            colour = SEAT_COLOURS[seat.index % len(SEAT_COLOURS)]
            poly = table.to_px(seat.zone_mm).astype(np.int32)
            cv2.fillPoly(overlay, [poly], colour)
        out = np.asarray(cv2.addWeighted(overlay, 0.25, out, 0.75, 0), np.uint8)
        w, h = table.size_mm
        _polyline(out, table, [(0, 0), (w, 0), (w, h), (0, h)], (255, 255, 255), closed=True)
        for seat in seats:
            x, y = table.to_px(np.asarray([seat.anchor_mm]))[0]
            cv2.putText(
                out,
                seat.name,
                (int(x) - 20, int(y)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.7,
                (255, 255, 255),
                2,
            )
    if isinstance(board, PlaneFit):
        w, h = layout.CANVAS_W_MM, layout.CANVAS_H_MM
        for x in range(0, int(w) + 1, 100):
            _polyline(out, board, [(x, 0), (x, h)], (0, 200, 255))
        for y in range(0, int(h) + 1, 100):
            _polyline(out, board, [(0, y), (w, y)], (0, 200, 255))
        _polyline(out, board, [(0, 0), (w, 0), (w, h), (0, h)], (0, 140, 255), closed=True)
    return out


def _polyline(
    img: NDArray[np.uint8],
    fit: PlaneFit,
    pts_mm: list[tuple[float, float]],
    colour: tuple[int, int, int],
    closed: bool = False,
) -> None:
    """Draws a straight line in the plane as the camera sees it (curved by the lens)."""
    dense = []
    ring = [*pts_mm, pts_mm[0]] if closed else pts_mm
    for (x0, y0), (x1, y1) in itertools.pairwise(ring):
        for s in np.linspace(0, 1, 20, endpoint=False):
            dense.append((x0 + (x1 - x0) * s, y0 + (y1 - y0) * s))
    dense.append(ring[-1])
    px = fit.to_px(np.asarray(dense)).astype(np.int32)
    cv2.polylines(img, [px], False, colour, 2, cv2.LINE_AA)
