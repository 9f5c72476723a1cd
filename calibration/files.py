"""The calibration file: versioned JSON (docs/formats.md section 3: ``rms_px``, ``camera_matrix``,
``dist_coeffs``, ``image_size``), plus what pictable adds: the board, the views used and
rejected, the play area and the seats."""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration.intrinsics import CameraCalibration, Intrinsics
from calibration.result import CalibrationError
from calibration.seats import Seat, seats_from_json, seats_to_json

FORMAT = "pictable-calibration"
VERSION = 1
MAX_FILE_BYTES = 1 << 20  # a calibration file is a few kB; refuse anything huge


@dataclass(frozen=True)
class CalibrationFile:
    """What a calibration file holds. ``intrinsics`` may be absent (a table-only file)."""

    intrinsics: Intrinsics | None = None
    board: str | None = None
    views: tuple[str, ...] = ()
    view_rms_px: tuple[float, ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()
    play_area_mm: tuple[float, float] | None = None
    seats: tuple[Seat, ...] = field(default_factory=tuple)

    @classmethod
    def from_camera(cls, cal: CameraCalibration) -> CalibrationFile:
        return cls(
            intrinsics=cal.intrinsics,
            board=str(cal.board),
            views=cal.views,
            view_rms_px=cal.view_rms_px,
            rejected=tuple((r.name, r.reason) for r in cal.rejected),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION}
        if self.intrinsics is not None:
            intr = self.intrinsics
            out.update(
                {
                    "rms_px": intr.rms_px,
                    "camera_matrix": intr.camera_matrix.tolist(),
                    "dist_coeffs": intr.dist_coeffs.tolist(),
                    "image_size": list(intr.image_size),
                }
            )
        if self.board is not None:
            out["board"] = self.board
        if self.views:
            out["views"] = [
                {"image": name, "rms_px": err}
                for name, err in zip(self.views, self.view_rms_px, strict=True)
            ]
        if self.rejected:
            out["rejected"] = [{"image": name, "reason": why} for name, why in self.rejected]
        if self.play_area_mm is not None:
            out["play_area_mm"] = list(self.play_area_mm)
        if self.seats:
            out["seats"] = seats_to_json(self.seats)
        return out

    def save(self, path: str) -> None:
        """Writes atomically (a temporary file renamed over the target)."""
        text = json.dumps(self.to_json(), indent=2) + "\n"
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".calibration-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def _numbers(
    value: Any, shape: tuple[int, ...], what: str
) -> np.ndarray[Any, np.dtype[np.float64]]:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"{what} must be numbers") from None
    if shape and arr.shape != shape:
        raise CalibrationError(f"{what} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{what} holds a value that is not a finite number")
    return arr


def parse(obj: Any) -> CalibrationFile:
    """A calibration file's JSON object, checked; ``CalibrationError`` says what is wrong."""
    if not isinstance(obj, dict):
        raise CalibrationError("not a calibration file: the JSON is not an object")
    if obj.get("format", FORMAT) != FORMAT:
        raise CalibrationError(f"not a calibration file (format {obj.get('format')!r})")
    version = obj.get("version")
    if version != VERSION:
        raise CalibrationError(
            f"calibration file version {version!r}; this pictable reads version {VERSION}"
            + (
                " (a newer pictable wrote it)"
                if isinstance(version, int) and version > VERSION
                else ""
            )
        )
    intr = None
    if "camera_matrix" in obj:
        k = _numbers(obj.get("camera_matrix"), (3, 3), "camera_matrix")
        dist = _numbers(obj.get("dist_coeffs", []), (), "dist_coeffs").reshape(-1)
        if dist.size not in (0, 4, 5, 8, 12, 14):
            raise CalibrationError(
                f"dist_coeffs must have 4, 5, 8, 12 or 14 values, got {dist.size}"
            )
        if dist.size == 0:
            dist = np.zeros(5)
        size = obj.get("image_size")
        if (
            not isinstance(size, list)
            or len(size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
        ):
            raise CalibrationError("image_size must be [width, height] in whole pixels")
        if k[0, 0] <= 0 or k[1, 1] <= 0 or k[2, 2] != 1 or k[1, 0] != 0 or k[2, 0] != 0:
            raise CalibrationError(
                "camera_matrix is not a camera matrix (fx, fy > 0, last row 0 0 1)"
            )
        rms = obj.get("rms_px")
        if rms is not None and (not isinstance(rms, int | float) or not math.isfinite(rms)):
            raise CalibrationError("rms_px must be a number")
        intr = Intrinsics(
            k, dist, (int(size[0]), int(size[1])), None if rms is None else float(rms)
        )
    play = obj.get("play_area_mm")
    play_area = None
    if play is not None:
        arr = _numbers(play, (2,), "play_area_mm")
        if np.any(arr <= 0):
            raise CalibrationError("play_area_mm must be positive")
        play_area = (float(arr[0]), float(arr[1]))
    views = obj.get("views", [])
    rejected = obj.get("rejected", [])
    try:
        view_names = tuple(str(v["image"]) for v in views)
        view_errs = tuple(float(v["rms_px"]) for v in views)
        rejected_t = tuple((str(r["image"]), str(r["reason"])) for r in rejected)
    except (TypeError, KeyError, ValueError):
        raise CalibrationError('"views" and "rejected" must be lists of objects') from None
    seats = seats_from_json(obj["seats"]) if "seats" in obj else ()
    board = obj.get("board")
    return CalibrationFile(
        intrinsics=intr,
        board=board if isinstance(board, str) else None,
        views=view_names,
        view_rms_px=view_errs,
        rejected=rejected_t,
        play_area_mm=play_area,
        seats=seats,
    )


def load(path: str) -> CalibrationFile:
    """Reads a calibration file; any problem is a ``CalibrationError`` naming the file."""
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise CalibrationError(f"{path}: {size} bytes is too large for a calibration file")
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise CalibrationError(f"{path}: not a calibration file (not JSON: {exc})") from None
    try:
        return parse(obj)
    except CalibrationError as exc:
        raise CalibrationError(f"{path}: {exc}") from None
