"""Seat zones of cards: the table plane from the play-area markers, then the seat zone (from a
calibration file's seats) of each card's centre.

The plane is fitted per frame (the reader is stateless): ``calibration.markers.
detect_fiducials`` finds markers 0-3 and ``calibration.planes.fit_table`` maps pixels to table
millimetres, with the calibration's intrinsics (or its ``play_area_mm`` without them). When
that fails (markers out of view, no intrinsics and no play-area size), zones are None and a
warning says why.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from calibration.files import CalibrationFile
from calibration.markers import detect_fiducials
from calibration.planes import PlaneFit, fit_table
from calibration.result import Failure
from calibration.seats import zone_of


@dataclass(frozen=True)
class TableZones:
    """The table plane of one frame and the calibration's seats: :meth:`zone` names the seat
    zone of a pixel point, :meth:`card_height_px` predicts a card's size there."""

    plane: PlaneFit
    calibration: CalibrationFile

    def zone(self, point_px: NDArray[np.floating]) -> str | None:
        """The seat zone holding pixel point (2,) (None off every zone, or without seats)."""
        if not self.calibration.seats:
            return None
        mm = self.plane.to_mm(np.asarray(point_px, np.float64).reshape(1, 2))[0]
        seat = zone_of(self.calibration.seats, (float(mm[0]), float(mm[1])))
        return None if seat is None else seat.name

    def card_height_px(self, point_px: NDArray[np.floating], height_mm: float = 88.0) -> float:
        """The image length (px) of a ``height_mm`` segment lying on the table at pixel point
        (2,), averaged over two directions (a card's long side there, whatever its turn)."""
        mm = self.plane.to_mm(np.asarray(point_px, np.float64).reshape(1, 2))[0]
        half = height_mm / 2
        pts = np.array(
            [
                [mm[0] - half, mm[1]],
                [mm[0] + half, mm[1]],
                [mm[0], mm[1] - half],
                [mm[0], mm[1] + half],
            ]
        )
        px = self.plane.to_px(pts)
        return float((np.linalg.norm(px[1] - px[0]) + np.linalg.norm(px[3] - px[2])) / 2)


def table_zones(frame: NDArray[np.uint8], calibration: CalibrationFile) -> TableZones | Failure:
    """The frame's table plane with the calibration's seats, or a falsy ``Failure`` saying why
    there is none."""
    markers = detect_fiducials(frame, (0, 1, 2, 3))
    fit = fit_table(markers, calibration.intrinsics, calibration.play_area_mm)
    if isinstance(fit, Failure):
        return fit
    return TableZones(fit, calibration)
