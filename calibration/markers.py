"""Detecting the kit's fiducials (ArUco DICT_4X4_50) in a frame, with sub-pixel corners."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.layout import ARUCO_DICTIONARY
from calibration.result import check_image, to_gray

Markers = dict[int, NDArray[np.float32]]  # marker id -> (4, 2) corners px, ArUco order


@lru_cache(maxsize=4)
def _detector(dictionary: str) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMinAccuracy = 0.01
    params.cornerRefinementMaxIterations = 50
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.ArucoDetector(d, params)


def detect_fiducials(frame: NDArray[np.uint8], wanted: tuple[int, ...] | None = None) -> Markers:
    """The fiducials in view: id -> (4, 2) float32 corners in pixels, in the marker's own
    order (top-left, top-right, bottom-right, bottom-left as printed). When an id is seen more
    than once, the largest is kept. ``frame``: (H, W, 3) BGR or (H, W) uint8."""
    gray = to_gray(check_image(frame, "frame"))
    corners, ids, _ = _detector(ARUCO_DICTIONARY).detectMarkers(gray)
    found: Markers = {}
    if ids is None:
        return found
    for c, i in zip(corners, np.asarray(ids).reshape(-1), strict=True):
        marker_id = int(i)
        if wanted is not None and marker_id not in wanted:
            continue
        pts = np.asarray(c, np.float32).reshape(4, 2)
        if marker_id in found and _area(found[marker_id]) >= _area(pts):
            continue
        found[marker_id] = pts
    return found


def _area(pts: NDArray[np.float32]) -> float:
    return float(abs(cv2.contourArea(pts.reshape(-1, 1, 2))))
