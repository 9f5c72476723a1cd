"""Chessboard camera calibration on OpenCV's ``left*.jpg`` (``opencv-calib-left``, 9x6 inner
corners): detection rate, then the calibration's RMS and intrinsics against
``left_intrinsics.yml``.

The reference intrinsics are OpenCV's published calibration of all 13 photos; the dev folder
holds 9 of them, so a perfect calibrator does not reproduce them exactly. The per-frame step
(finding the board) is timed per frame; the calibration itself is the set step, timed once.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from pictable.bench.adapters import calibration_adapter
from pictable.bench.core import (
    CallFailed,
    DataMissing,
    DataSource,
    Metric,
    RunnerSpec,
    Sample,
    Score,
    Settings,
    Task,
)
from pictable.bench.data import natural_key, require_dir, spread
from pictable.bench.tasks.common import opencv_version

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def read_intrinsics(path: str) -> dict[str, Any]:
    """``left_intrinsics.yml`` (OpenCV FileStorage) as plain numbers: fx, fy, cx, cy, rms,
    image size and flags."""
    import cv2

    storage = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    if not storage.isOpened():
        raise DataMissing(f"cannot open {path}")
    matrix = storage.getNode("camera_matrix").mat()
    if matrix is None or matrix.shape != (3, 3):
        raise ValueError(f"{path} has no 3x3 camera_matrix")
    out = {
        "fx": float(matrix[0, 0]),
        "fy": float(matrix[1, 1]),
        "cx": float(matrix[0, 2]),
        "cy": float(matrix[1, 2]),
        "rms_px": storage.getNode("avg_reprojection_error").real(),
        "nframes": int(storage.getNode("nframes").real()),
        "image_size": [
            int(storage.getNode("image_width").real()),
            int(storage.getNode("image_height").real()),
        ],
        "flags": int(storage.getNode("flags").real()),
    }
    storage.release()
    return out


def load_samples(settings: Settings) -> list[Sample]:
    """The chessboard photos, each carrying the board (from ``pattern.json``) and the published
    intrinsics in ``extra``."""
    root = require_dir(settings.data_dir, "opencv-calib-left")
    pattern = json.loads((root / "pattern.json").read_text(encoding="utf-8"))
    cols, rows = (int(v) for v in pattern["inner_corners"])
    extra = {
        "pattern_size": [cols, rows],
        "square_size": float(pattern["square_size"]),
        "published": read_intrinsics(str(root / "left_intrinsics.yml")),
    }
    images = [
        p
        for p in root.iterdir()
        if p.suffix.lower() in IMAGE_SUFFIXES and p.stem.startswith("left")
    ]
    images.sort(key=lambda p: natural_key(p.name))
    return spread([Sample(id=p.stem, path=p, extra=extra) for p in images], settings.limit)


class OpenCVCalibration:
    """OpenCV alone, as in its ``calibration.py`` sample: ``findChessboardCorners`` (default
    flags) then ``cornerSubPix`` on each frame, or ``findChessboardCornersSB``; then
    ``calibrateCamera`` with ``CALIB_FIX_ASPECT_RATIO`` (the published file's flags)."""

    def __init__(self, samples: Sequence[Sample], sector_based: bool = False) -> None:
        import cv2

        self._cv2 = cv2
        self._sb = sector_based
        self._criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.001)

    def __call__(self, frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        cv2 = self._cv2
        size = tuple(sample.extra["pattern_size"])
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if self._sb:
            found, corners = cv2.findChessboardCornersSB(grey, size)
        else:
            found, corners = cv2.findChessboardCorners(grey, size)
            if found:
                corners = cv2.cornerSubPix(grey, corners, (11, 11), (-1, -1), self._criteria)
        return {
            "found": bool(found),
            "corners": corners.reshape(-1, 2).tolist() if found else None,
            "image_size": [int(frame.shape[1]), int(frame.shape[0])],
        }

    def finish(self, outputs: Sequence[Any], samples: Sequence[Sample]) -> dict[str, Any]:
        """``calibrateCamera`` over the frames where the board was found (the calibration JSON
        of docs/formats.md: rms_px, camera_matrix, dist_coeffs, image_size)."""
        cv2 = self._cv2
        views = [o for o in outputs if isinstance(o, dict) and o["found"]]
        if len(views) < 3:
            return {"failure": f"board found in {len(views)} frames, calibration needs 3"}
        cols, rows = samples[0].extra["pattern_size"]
        square = samples[0].extra["square_size"]
        grid = np.zeros((cols * rows, 3), np.float32)
        grid[:, :2] = np.mgrid[0:cols, 0:rows].T.reshape(-1, 2) * square
        object_points = [grid] * len(views)
        image_points = [np.asarray(v["corners"], np.float32).reshape(-1, 1, 2) for v in views]
        image_size = tuple(views[0]["image_size"])
        rms, matrix, dist, _, _ = cv2.calibrateCamera(
            object_points,
            image_points,
            image_size,
            np.eye(3),
            None,
            flags=cv2.CALIB_FIX_ASPECT_RATIO,
        )
        return {
            "rms_px": float(rms),
            "camera_matrix": matrix.tolist(),
            "dist_coeffs": dist.ravel().tolist(),
            "image_size": list(image_size),
            "views_used": len(views),
        }


def score(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Frames with the board found; the calibration's RMS (px) and intrinsics, and their
    distance to the published calibration: focal length error in percent, principal point
    error in pixels."""
    detected = sum(isinstance(o, dict) and bool(o.get("found")) for o in outputs)
    published = samples[0].extra["published"]
    metrics: dict[str, float | int | None] = dict.fromkeys(
        ("detected", "rms_px", "fx", "fy", "cx", "cy", "focal_err_pct", "principal_err_px")
    )
    notes = [
        f"published ({published['nframes']} photos): fx={published['fx']:.1f} "
        f"fy={published['fy']:.1f} cx={published['cx']:.1f} cy={published['cy']:.1f} "
        f"rms {published['rms_px']:.3f} px"
    ]
    metrics["detected"] = detected
    calib = finished if isinstance(finished, dict) else {}
    if isinstance(finished, CallFailed):
        notes.append(f"calibration failed: {finished.error}")
    elif "failure" in calib:
        notes.append(f"calibration failed: {calib['failure']}")
    elif "camera_matrix" in calib:
        matrix = np.asarray(calib["camera_matrix"], dtype=np.float64)
        fx, fy, cx, cy = matrix[0, 0], matrix[1, 1], matrix[0, 2], matrix[1, 2]
        focal_err = max(
            abs(fx - published["fx"]) / published["fx"], abs(fy - published["fy"]) / published["fy"]
        )
        metrics.update(
            rms_px=float(calib["rms_px"]),
            fx=float(fx),
            fy=float(fy),
            cx=float(cx),
            cy=float(cy),
            focal_err_pct=float(100 * focal_err),
            principal_err_px=float(np.hypot(cx - published["cx"], cy - published["cy"])),
        )
        if "views_used" in calib:
            notes.append(f"views used by the calibration: {calib['views_used']}")
    return Score(metrics=metrics, notes=notes, details={"calibration": calib})


METRICS = (
    Metric("detected", "board found", "count", "higher", of="samples"),
    Metric("rms_px", "RMS", "px", "lower"),
    Metric("fx", "fx", "float", None),
    Metric("fy", "fy", "float", None),
    Metric("cx", "cx", "float", None),
    Metric("cy", "cy", "float", None),
    Metric("focal_err_pct", "focal error vs published", "pct", "lower"),
    Metric("principal_err_px", "principal point error vs published", "px", "lower"),
)

TASK = Task(
    name="chessboard-real",
    title="Chessboard calibration on OpenCV's left*.jpg",
    source=DataSource("real", "opencv-calib-left (9x6 chessboard photos)", load_samples),
    score=score,
    metrics=METRICS,
    runners=(
        RunnerSpec.planned(
            "calibration.intrinsics:find_board",
            "pictable calibrate camera",
            functools.partial(calibration_adapter, board="chessboard:9x6:25"),
        ),
        RunnerSpec.library(
            "opencv",
            "OpenCV findChessboardCorners + cornerSubPix, calibrateCamera",
            OpenCVCalibration,
            version=opencv_version,
        ),
        RunnerSpec.library(
            "opencv-sb",
            "OpenCV findChessboardCornersSB, calibrateCamera",
            functools.partial(OpenCVCalibration, sector_based=True),
            version=opencv_version,
        ),
    ),
    description=(
        "*board found*: frames where the 9x6 board is detected; *RMS*: reprojection error of "
        "`calibrateCamera` (`CALIB_FIX_ASPECT_RATIO`, like the published file); *focal error*: "
        "the larger of |fx - fx0|/fx0 and |fy - fy0|/fy0 against OpenCV's published calibration "
        "(13 photos; 9 are here); *principal point error*: distance of (cx, cy) to the "
        "published one. The set step (calibration) is timed separately."
    ),
)
