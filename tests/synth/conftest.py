"""Shared helpers of the synth tests: a clean camera and an ArUco detector."""

from __future__ import annotations

import cv2
import pytest

from vision.synth import StandInTextures


@pytest.fixture(scope="session")
def standin() -> StandInTextures:
    """Stand-in card art: the tests do not depend on the kit's look."""
    return StandInTextures()


def aruco_detector() -> cv2.aruco.ArucoDetector:
    """OpenCV's detector for DICT_4X4_50 with sub-pixel corner refinement."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
