"""The table and Picasso board planes: pixels <-> millimetres, and the rectified board.

With intrinsics, points are undistorted first and the plane maps exactly (a homography to
ideal pinhole pixels, then the lens model); without, a plain homography is used and the fit
carries a warning, since lens distortion then bends straight lines by a few millimetres.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import layout
from calibration.intrinsics import Intrinsics
from calibration.markers import Markers
from calibration.result import Failure, check_image

NO_INTRINSICS_WARNING = (
    "no camera calibration: using a plain homography; lens distortion is not corrected "
    "(run `pictable calibrate camera` for millimetre accuracy)"
)
# A fit whose marker corners reproject worse than this is refused (a misread marker).
MAX_FIT_RMS_PX = 3.0


@dataclass(frozen=True)
class PlaneFit:
    """A plane of the table seen by the camera.

    ``homography`` (3, 3) float64 maps plane mm (x, y, 1) to ideal pixels: undistorted
    pixels when ``intrinsics`` is given, raw pixels otherwise. ``rms_px`` is the reprojection
    error of the marker corners used; ``size_mm`` the plane's extent (width, height)."""

    name: str
    homography: NDArray[np.float64]
    intrinsics: Intrinsics | None
    markers: tuple[int, ...]
    rms_px: float
    size_mm: tuple[float, float]
    warning: str | None = None
    marker_corners_px: dict[int, NDArray[np.float32]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @cached_property
    def _inverse(self) -> NDArray[np.float64]:
        return np.asarray(np.linalg.inv(self.homography), np.float64)

    def to_px(self, points_mm: NDArray[np.floating]) -> NDArray[np.float32]:
        """(N, 2) plane mm -> (N, 2) float32 image pixels (distorted, as the camera sees)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        ideal = np.asarray(cv2.perspectiveTransform(pts, self.homography), np.float64).reshape(
            -1, 2
        )
        if self.intrinsics is None:
            return ideal.astype(np.float32)
        return distort(ideal, self.intrinsics)

    def to_mm(self, points_px: NDArray[np.floating]) -> NDArray[np.float32]:
        """(N, 2) image pixels -> (N, 2) float32 plane mm."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 2)
        if self.intrinsics is not None:
            pts = undistort(pts, self.intrinsics)
        out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self._inverse)
        return np.asarray(out, np.float32).reshape(-1, 2)

    def rectify_maps(
        self, px_per_mm: float, origin_mm: tuple[float, float], size_mm: tuple[float, float]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """``cv2.remap`` maps for a top-down view of the plane: output pixel (u, v) shows plane
        point origin + ((u + 0.5) / px_per_mm, (v + 0.5) / px_per_mm)."""
        key = (px_per_mm, origin_mm, size_mm)
        cache = self._map_cache
        if key not in cache:
            w = round(size_mm[0] * px_per_mm)
            h = round(size_mm[1] * px_per_mm)
            us, vs = np.meshgrid(np.arange(w), np.arange(h))
            mm = np.stack(
                [
                    origin_mm[0] + (us.ravel() + 0.5) / px_per_mm,
                    origin_mm[1] + (vs.ravel() + 0.5) / px_per_mm,
                ],
                axis=1,
            )
            px = self.to_px(mm) - 0.5  # OpenCV pixel centres are at integers
            cache.clear()
            cache[key] = (
                np.ascontiguousarray(px[:, 0].reshape(h, w)),
                np.ascontiguousarray(px[:, 1].reshape(h, w)),
            )
        return cache[key]

    @cached_property
    def _map_cache(
        self,
    ) -> dict[
        tuple[float, tuple[float, float], tuple[float, float]],
        tuple[NDArray[np.float32], NDArray[np.float32]],
    ]:
        return {}


def undistort(points_px: NDArray[np.float64], intr: Intrinsics) -> NDArray[np.float64]:
    """(N, 2) raw pixels -> (N, 2) ideal pinhole pixels (same camera matrix)."""
    pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
    out = cv2.undistortPoints(
        pts,
        intr.camera_matrix,
        intr.dist_coeffs,
        R=None,
        P=intr.camera_matrix,
        criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9),
    )
    return np.asarray(out, np.float64).reshape(-1, 2)


def distort(points_ideal: NDArray[np.float64], intr: Intrinsics) -> NDArray[np.float32]:
    """(N, 2) ideal pinhole pixels -> (N, 2) raw pixels, through the lens model."""
    k = intr.camera_matrix
    pts = np.asarray(points_ideal, np.float64).reshape(-1, 2)
    norm = np.empty((len(pts), 3), np.float64)
    norm[:, 0] = (pts[:, 0] - k[0, 2]) / k[0, 0]
    norm[:, 1] = (pts[:, 1] - k[1, 2]) / k[1, 1]
    norm[:, 2] = 1.0
    zero = np.zeros(3)
    out, _ = cv2.projectPoints(norm, zero, zero, k, intr.dist_coeffs)
    return np.asarray(out, np.float32).reshape(-1, 2)


def _fit_homography(
    plane_mm: NDArray[np.float64], image_px: NDArray[np.float64]
) -> tuple[NDArray[np.float64], float] | Failure:
    h, _ = cv2.findHomography(plane_mm, image_px, 0)
    if h is None or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
        return Failure("the markers are in a degenerate position (no homography)")
    proj = cv2.perspectiveTransform(plane_mm.reshape(-1, 1, 2), h).reshape(-1, 2)
    rms = float(np.sqrt(np.mean(np.sum((proj - image_px) ** 2, axis=1))))
    return np.asarray(h, np.float64), rms


def _ideal(points_px: NDArray[np.float64], intr: Intrinsics | None) -> NDArray[np.float64]:
    return points_px if intr is None else undistort(points_px, intr)


def _inner_first(corners: NDArray[np.float32], centre: NDArray[np.float64]) -> NDArray[np.float64]:
    """A marker's corners rotated to start at the one nearest ``centre`` (keeping the
    clockwise order), so that the marker's printed rotation does not matter."""
    pts = np.asarray(corners, np.float64).reshape(4, 2)
    start = int(np.argmin(np.linalg.norm(pts - centre, axis=1)))
    return np.roll(pts, -start, axis=0)


def fit_board(markers: Markers, intrinsics: Intrinsics | None = None) -> PlaneFit | Failure:
    """The Picasso board plane from markers 4 to 7 (at least 2 of them; 3 or 4 for accuracy):
    board mm (origin at the canvas top-left, x right, y down) <-> pixels."""
    seen = [m for m in layout.BOARD_MARKERS if m in markers]
    if len(seen) < 2:
        missing = [m for m in layout.BOARD_MARKERS if m not in markers]
        return Failure(
            f"Picasso board not found: markers {missing} not in view (at least 2 of 4-7 needed)"
        )
    if intrinsics is not None:
        ideal_corners = {
            m: undistort(markers[m].astype(np.float64), intrinsics).astype(np.float32) for m in seen
        }
    else:
        ideal_corners = {m: markers[m] for m in seen}
    # Where the canvas centre is in the image, roughly: the mean of the markers' centres is
    # good enough to tell each marker's inner corner when 3 or 4 are seen; with 2, use the
    # marker corners' own geometry (the inner corner is nearest the other marker).
    centres = np.asarray([ideal_corners[m].mean(axis=0) for m in seen], np.float64)
    plane: list[tuple[float, float]] = []
    image: list[NDArray[np.float64]] = []
    for m in seen:
        if len(seen) >= 3:
            centre = centres.mean(axis=0)
        else:
            centre = next(c for mm, c in zip(seen, centres, strict=True) if mm != m)
        plane.extend(layout.board_marker_square(m))
        image.append(_inner_first(ideal_corners[m], centre))
    plane_mm = np.asarray(plane, np.float64)
    image_px = np.concatenate(image).astype(np.float64)
    fit = _fit_homography(plane_mm, image_px)
    if isinstance(fit, Failure):
        return fit
    h, rms = fit
    if rms > MAX_FIT_RMS_PX:
        return Failure(
            f"the board markers do not fit a flat board (error {rms:.1f} px): "
            "is a marker misplaced or misread?"
        )
    return PlaneFit(
        "board",
        h,
        intrinsics,
        tuple(seen),
        rms,
        (layout.CANVAS_W_MM, layout.CANVAS_H_MM),
        None if intrinsics is not None else NO_INTRINSICS_WARNING,
        {m: markers[m] for m in seen},
    )


def rectify_board(
    frame: NDArray[np.uint8],
    fit: PlaneFit,
    px_per_mm: float = layout.BOARD_PX_PER_MM,
    margin_mm: float = 0.0,
) -> NDArray[np.uint8]:
    """The canvas seen from straight above: (round((260 + 2m) * s), round((360 + 2m) * s), 3)
    uint8 at ``s = px_per_mm`` (default 2 px/mm: 520 x 720), with ``m = margin_mm`` of the
    table around the canvas. Pixel (u, v) shows board point
    ((u + 0.5) / s - m, (v + 0.5) / s - m)."""
    check_image(frame, "frame")
    origin = (-margin_mm, -margin_mm)
    size = (layout.CANVAS_W_MM + 2 * margin_mm, layout.CANVAS_H_MM + 2 * margin_mm)
    map_x, map_y = fit.rectify_maps(px_per_mm, origin, size)
    out = cv2.remap(frame, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.uint8)


def fit_table(
    markers: Markers,
    intrinsics: Intrinsics | None = None,
    play_area_mm: tuple[float, float] | None = None,
) -> PlaneFit | Failure:
    """The table plane from play-area markers 0 to 3 (all four needed): table mm (origin at
    marker 0's centre, x towards marker 1, y towards marker 3) <-> pixels.

    The distances between the markers are measured through the camera when ``intrinsics``
    is given (the markers' own 40 mm size gives the scale); otherwise ``play_area_mm``
    (width, height between marker centres) must be given."""
    missing = [m for m in layout.PLAY_AREA_MARKERS if m not in markers]
    if missing:
        return Failure(f"play area not found: markers {missing} not in view (0-3 needed)")
    if intrinsics is None:
        if play_area_mm is None:
            return Failure(
                "without a camera calibration the play area's size is needed "
                "(play_area_mm in the calibration file)"
            )
        size = play_area_mm
    else:
        measured = _measure_play_area(markers, intrinsics)
        if isinstance(measured, Failure):
            return measured
        size = play_area_mm or measured
    w, h = size
    half = layout.PLAY_AREA_MARKER_MM / 2
    plane: list[tuple[float, float]] = []
    image: list[NDArray[np.float64]] = []
    for m, (cx, cy) in zip(layout.PLAY_AREA_MARKERS, [(0, 0), (w, 0), (w, h), (0, h)], strict=True):
        # The marker's corners, in its printed order, assuming it lies square to the play
        # area; its printed rotation is taken from the image by matching the corner nearest
        # the play area's centre.
        corners_mm = [
            (cx - half, cy - half),
            (cx + half, cy - half),
            (cx + half, cy + half),
            (cx - half, cy + half),
        ]
        inner = int(np.argmin([np.hypot(x - w / 2, y - h / 2) for x, y in corners_mm]))
        corners_mm = corners_mm[inner:] + corners_mm[:inner]
        plane.extend(corners_mm)
        ideal = _ideal(markers[m].astype(np.float64), intrinsics)
        centre_px = np.mean(
            [
                _ideal(markers[k].astype(np.float64), intrinsics).mean(axis=0)
                for k in layout.PLAY_AREA_MARKERS
            ],
            axis=0,
        )
        image.append(_inner_first(ideal.astype(np.float32), centre_px))
    fit = _fit_homography(np.asarray(plane, np.float64), np.concatenate(image))
    if isinstance(fit, Failure):
        return fit
    hmat, rms = fit
    if rms > MAX_FIT_RMS_PX * 2:
        return Failure(
            f"the play-area markers do not fit a flat rectangle (error {rms:.1f} px): "
            "lay them square to the play area"
        )
    return PlaneFit(
        "table",
        hmat,
        intrinsics,
        layout.PLAY_AREA_MARKERS,
        rms,
        (float(w), float(h)),
        None if intrinsics is not None else NO_INTRINSICS_WARNING,
        {m: markers[m] for m in layout.PLAY_AREA_MARKERS},
    )


def _measure_play_area(markers: Markers, intr: Intrinsics) -> tuple[float, float] | Failure:
    """Distances between the marker centres, measured with each marker's pose (its 40 mm
    size gives the scale) and the table plane fitted through all of them."""
    half = layout.PLAY_AREA_MARKER_MM / 2
    obj = np.asarray(
        [[-half, half, 0], [half, half, 0], [half, -half, 0], [-half, -half, 0]], np.float64
    )
    centres = []
    points = []
    for m in layout.PLAY_AREA_MARKERS:
        ok, rvec, tvec = cv2.solvePnP(
            obj,
            markers[m].astype(np.float64),
            intr.camera_matrix,
            intr.dist_coeffs,
            flags=cv2.SOLVEPNP_IPPE_SQUARE,
        )
        if not ok:
            return Failure(f"marker {m}: its pose cannot be solved")
        rot, _ = cv2.Rodrigues(rvec)
        corners = (rot @ obj.T).T + tvec.reshape(1, 3)
        points.append(corners)
        centres.append(tvec.reshape(3))
    pts = np.concatenate(points)
    mean = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - mean)
    normal = vt[2]
    # Re-place each centre on the common plane along its viewing ray (more exact than the
    # single marker's depth).
    on_plane = []
    for c in centres:
        ray = c / np.linalg.norm(c)
        s = float(np.dot(mean, normal) / np.dot(ray, normal))
        on_plane.append(ray * s)
    c0, c1, c2, c3 = on_plane
    w = (np.linalg.norm(c1 - c0) + np.linalg.norm(c2 - c3)) / 2
    h = (np.linalg.norm(c3 - c0) + np.linalg.norm(c2 - c1)) / 2
    if not (np.isfinite(w) and np.isfinite(h)) or w < 50 or h < 50:
        return Failure("the play-area markers are too close together to span a play area")
    return float(w), float(h)
