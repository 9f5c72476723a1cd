"""Seats and their zones on the table, in table millimetres.

The table frame: origin at the play area's top-left corner (the centre of marker 0, as seen
from the first seat), x towards marker 1 (right), y towards marker 3 (down, towards the first
seat). The first seat sits at the middle of the bottom edge; the others follow clockwise as
seen from above (docs/formats.md 1: players are listed in seating order, clockwise).

A seat's zone is the sector of the table, seen from the play area's centre, that lies closer
in angle to that seat than to any other, out to ``margin_mm`` beyond the play area's edge, so
that a card laid in front of a player belongs to that player's zone.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from calibration.result import CalibrationError

if TYPE_CHECKING:
    from calibration.planes import PlaneFit

SeatOf = Callable[[tuple[float, float]], str | None]
"""A point of the image (x, y) px -> the player whose seat zone holds it, or None."""


@dataclass(frozen=True)
class Seat:
    """One seat: its index in seating order, a name, where it faces the play area, and its
    zone, a polygon (N, 2) float64 in table mm."""

    index: int
    name: str
    anchor_mm: tuple[float, float]
    zone_mm: NDArray[np.float64]

    def contains(self, point_mm: tuple[float, float]) -> bool:
        return _inside(self.zone_mm, point_mm)


def _perimeter_point(w: float, h: float, s: float) -> tuple[float, float]:
    """The point at fraction ``s`` (0..1) of the perimeter, starting at the bottom middle and
    going clockwise on screen (bottom edge leftwards, left edge upwards, ...)."""
    per = 2 * (w + h)
    d = (s % 1.0) * per
    legs = [
        (w / 2, (w / 2, h), (-1.0, 0.0)),
        (h, (0.0, h), (0.0, -1.0)),
        (w, (0.0, 0.0), (1.0, 0.0)),
        (h, (w, 0.0), (0.0, 1.0)),
        (w / 2, (w, h), (-1.0, 0.0)),
    ]
    for length, (x0, y0), (dx, dy) in legs:
        if d <= length:
            return (x0 + dx * d, y0 + dy * d)
        d -= length
    return (w / 2, h)


def layout_seats(
    names: list[str], play_area_mm: tuple[float, float], margin_mm: float = 250.0
) -> tuple[Seat, ...]:
    """Seats for ``names`` (seating order) spaced evenly round a play area of (width, height)
    mm, the first at the middle of the bottom edge."""
    if not names:
        raise CalibrationError("seats: at least one player is needed")
    w, h = play_area_mm
    if w <= 0 or h <= 0:
        raise CalibrationError("seats: the play area must have a positive size")
    n = len(names)
    cx, cy = w / 2, h / 2
    anchors = [_perimeter_point(w, h, i / n) for i in range(n)]
    # Angles measured in a frame scaled to a square, so that a long table splits fairly.
    angles = [math.atan2((y - cy) / h, (x - cx) / w) for x, y in anchors]
    # Out to the corners of the play area, and ``margin_mm`` beyond its edges.
    reach = math.sqrt(0.5) + margin_mm / min(w, h)
    seats = []
    two_pi = 2 * math.pi
    for i in range(n):
        a = angles[i]
        if n == 1:
            lo, hi = a - math.pi, a + math.pi
        else:
            # Seats go clockwise on screen, which is increasing angle with y down.
            lo = a - ((a - angles[i - 1]) % two_pi) / 2
            hi = a + ((angles[(i + 1) % n] - a) % two_pi) / 2
        steps = max(4, int((hi - lo) / (math.pi / 36)))
        pts = [(cx, cy)]
        for k in range(steps + 1):
            t = lo + (hi - lo) * k / steps
            pts.append((cx + math.cos(t) * reach * w, cy + math.sin(t) * reach * h))
        seats.append(Seat(i, names[i], anchors[i], np.asarray(pts, np.float64)))
    return tuple(seats)


def zone_of(seats: tuple[Seat, ...], point_mm: tuple[float, float]) -> Seat | None:
    """The seat whose zone holds the point, or None (off the table's seated area)."""
    for seat in seats:
        if seat.contains(point_mm):
            return seat
    return None


def _inside(poly: NDArray[np.float64], point: tuple[float, float]) -> bool:
    x, y = point
    inside = False
    n = len(poly)
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if xc > x:
                inside = not inside
    return inside


def seats_to_json(seats: tuple[Seat, ...]) -> list[dict[str, Any]]:
    return [
        {
            "name": s.name,
            "anchor_mm": list(s.anchor_mm),
            "zone_mm": [[round(float(x), 2), round(float(y), 2)] for x, y in s.zone_mm],
        }
        for s in seats
    ]


def seats_from_json(value: Any) -> tuple[Seat, ...]:
    if not isinstance(value, list):
        raise CalibrationError('"seats" must be a list')
    seats = []
    for i, item in enumerate(value):
        try:
            name = str(item["name"])
            anchor = np.asarray(item["anchor_mm"], np.float64)
            zone = np.asarray(item["zone_mm"], np.float64)
        except (TypeError, KeyError, ValueError):
            raise CalibrationError(f"seat {i + 1}: needs name, anchor_mm and zone_mm") from None
        if anchor.shape != (2,) or zone.ndim != 2 or zone.shape[1] != 2 or len(zone) < 3:
            raise CalibrationError(f"seat {i + 1}: anchor_mm is [x, y], zone_mm a polygon")
        if not (np.all(np.isfinite(anchor)) and np.all(np.isfinite(zone))):
            raise CalibrationError(f"seat {i + 1}: coordinates must be finite numbers")
        seats.append(Seat(i, name, (float(anchor[0]), float(anchor[1])), zone))
    return tuple(seats)


def seat_mapper(
    calibration: str | None, players: list[str]
) -> Callable[[NDArray[np.uint8]], SeatOf | None] | None:
    """``(frame -> SeatOf)`` from a calibration file with seats (or a play area to lay them
    out round), or None without a file.

    Each frame's play-area markers 0-3 give the table plane (refitted when they are seen,
    the last fit kept while they are not); a point's table position picks the seat zone;
    seats are named by ``players`` in order. A frame before any fit gives None. Raises
    ``ValueError`` when the file has neither seats nor a play area."""
    if calibration is None:
        return None
    from calibration.files import load  # the calibration file holds seats: loaded here
    from calibration.markers import detect_fiducials
    from calibration.planes import fit_table

    cal = load(calibration)
    seats = cal.seats
    if not seats and cal.play_area_mm is not None:
        seats = layout_seats(players, cal.play_area_mm)
    if not seats:
        raise ValueError(f"{calibration}: no seats and no play area to lay them out")
    names = {seat.index: players[seat.index] for seat in seats if seat.index < len(players)}
    state: dict[str, PlaneFit | None] = {"plane": None}

    def for_frame(frame: NDArray[np.uint8]) -> SeatOf | None:
        fit = fit_table(detect_fiducials(frame, (0, 1, 2, 3)), cal.intrinsics, cal.play_area_mm)
        if fit:
            state["plane"] = fit
        plane = state["plane"]
        if plane is None:
            return None

        def seat_of(pt: tuple[float, float]) -> str | None:
            mm = plane.to_mm(np.asarray([pt], np.float32))[0]
            seat = zone_of(seats, (float(mm[0]), float(mm[1])))
            return None if seat is None else names.get(seat.index)

        return seat_of

    return for_frame
