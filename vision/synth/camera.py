"""The synthetic table camera: a pinhole with OpenCV lens distortion, posed over the table.

Table frame (millimetres), right-handed as OpenCV needs it:

- x to the right and y towards the first seat, as the first seat sees the table (y is
  "down", like image rows and like the board frame), origin where the scene puts it
  (the generators use the table centre);
- z points *into* the table, so the table top is z = 0 and a point ``h`` mm above the
  table has z = -h. APIs that take a height say so (``height_mm``, positive up).

Projection is exactly ``cv2.projectPoints(points, rvec, tvec, K, dist)``; pixel centres
are at integer coordinates (OpenCV's convention), so readers built on OpenCV and the
synthetic truth agree to the bit.

Rendering goes the other way, per output pixel: pixel -> undistorted normalised
coordinates (``normalized_grid``) -> ray -> plane point -> texture coordinate. The
undistortion is computed exactly (``cv2.undistortPoints`` iterated to 1e-15) on a grid
every 8 supersampled pixels and interpolated bilinearly in between, which keeps the
rendered geometry within 0.01 px of ``projectPoints`` even at k1 = -0.3.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth._checks import as_points

#: Supersampling factor of the renderer (output pixels are the mean of SS x SS samples).
SS = 2
#: Spacing, in supersampled pixels, of the exactly undistorted grid.
_GRID_STEP = 8
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 60, 1e-15)


def distortion_reach(dist: np.ndarray) -> float:
    """Largest distorted normalised radius the radial model reaches before it folds back
    (where r * (1 + k1 r^2 + k2 r^4 + k3 r^6) stops growing); inf if it never folds."""
    k1, k2, k3 = float(dist[0]), float(dist[1]), float(dist[4]) if len(dist) > 4 else 0.0
    r = np.linspace(0.0, 4.0, 4001)
    rd = r * (1 + k1 * r**2 + k2 * r**4 + k3 * r**6)
    falling = np.flatnonzero(np.diff(rd) <= 0)
    return float(rd[: falling[0] + 1].max()) if len(falling) else float("inf")


def check_distortion(K: np.ndarray, dist: np.ndarray, size_wh: tuple[int, int]) -> None:
    """Refuse a lens model that folds back inside the image (no ray maps to the corners:
    such a model cannot be inverted, and no real lens has it)."""
    w, h = size_wh
    corners = np.array([[0, 0], [w - 1, 0], [0, h - 1], [w - 1, h - 1]], np.float64)
    n = (corners - K[:2, 2]) / np.diag(K)[:2]
    need = float(np.linalg.norm(n, axis=1).max()) * 1.03
    reach = distortion_reach(dist)
    if reach < need:
        raise ValueError(
            f"distortion {tuple(round(float(d), 4) for d in dist)} folds back at normalised "
            f"radius {reach:.3f}, inside the image (corners at {need / 1.03:.3f})"
        )


def rot_x(deg: float) -> np.ndarray:
    """3x3 rotation about x by ``deg`` degrees."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_z(deg: float) -> np.ndarray:
    """3x3 rotation about z by ``deg`` degrees."""
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


@dataclass(frozen=True, eq=False)
class Camera:
    """A posed pinhole camera with OpenCV distortion.

    Attributes:
        K: (3, 3) float64 intrinsics, pixels.
        dist: (5,) float64 distortion (k1, k2, p1, p2, k3).
        rvec: (3,) float64 Rodrigues rotation, table frame -> camera frame.
        tvec: (3,) float64 translation, mm (camera frame).
        size_wh: image size (width, height) in pixels.
        height_mm: height of the optical centre above the table, mm.
        tilt_deg: angle between the optical axis and the vertical, degrees.
        yaw_deg: rotation of the camera about the vertical through the target, degrees
            (0: the camera stands on the first seat's side and looks away from it).
        roll_deg: rotation about the optical axis, degrees.
        hfov_deg: horizontal field of view, degrees.
        target_mm: table point (x, y) the optical axis goes through, mm.
    """

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size_wh: tuple[int, int]
    height_mm: float
    tilt_deg: float
    yaw_deg: float
    roll_deg: float
    hfov_deg: float
    target_mm: tuple[float, float]

    @classmethod
    def from_pose(
        cls,
        *,
        height_mm: float,
        tilt_deg: float = 0.0,
        yaw_deg: float = 0.0,
        roll_deg: float = 0.0,
        target_mm: tuple[float, float] = (0.0, 0.0),
        hfov_deg: float = 70.0,
        size_wh: tuple[int, int] = (1280, 720),
        dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0),
        principal_offset_px: tuple[float, float] = (0.0, 0.0),
    ) -> Camera:
        """A camera ``height_mm`` above the table, tilted ``tilt_deg`` from looking straight
        down, aimed at ``target_mm``; square pixels, focal length from ``hfov_deg``."""
        if not 0.0 <= tilt_deg < 80.0:
            raise ValueError(f"tilt_deg must be in [0, 80), got {tilt_deg}")
        if height_mm <= 0:
            raise ValueError(f"height_mm must be > 0, got {height_mm}")
        w, h = size_wh
        f = (w / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        K = np.array(
            [
                [f, 0.0, (w - 1) / 2.0 + principal_offset_px[0]],
                [0.0, f, (h - 1) / 2.0 + principal_offset_px[1]],
                [0.0, 0.0, 1.0],
            ]
        )
        # Camera-to-table rotation: straight down is the identity (x right, y towards the
        # first seat, z into the table); tilt leans the optical axis away from the seat.
        check_distortion(K, np.asarray(dist, np.float64), (w, h))
        r_cw = rot_z(yaw_deg) @ rot_x(tilt_deg) @ rot_z(roll_deg)
        distance = height_mm / math.cos(math.radians(tilt_deg))
        target = np.array([target_mm[0], target_mm[1], 0.0])
        centre = target - distance * r_cw[:, 2]
        r = r_cw.T
        t = -r @ centre
        rvec, _ = cv2.Rodrigues(r)
        return cls(
            K=K,
            dist=np.asarray(dist, dtype=np.float64).reshape(5),
            rvec=rvec.reshape(3),
            tvec=t.reshape(3),
            size_wh=(int(w), int(h)),
            height_mm=float(height_mm),
            tilt_deg=float(tilt_deg),
            yaw_deg=float(yaw_deg),
            roll_deg=float(roll_deg),
            hfov_deg=float(hfov_deg),
            target_mm=(float(target_mm[0]), float(target_mm[1])),
        )

    @property
    def R(self) -> np.ndarray:
        """(3, 3) rotation table -> camera."""
        r, _ = cv2.Rodrigues(self.rvec)
        return r

    @property
    def centre_mm(self) -> np.ndarray:
        """(3,) optical centre in the table frame, mm (z < 0: above the table)."""
        return -self.R.T @ self.tvec

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Project table points to pixels with ``cv2.projectPoints``.

        Args:
            points_mm: (N, 2) table points on the table (z = 0) or (N, 3) with z (mm,
                negative above the table).

        Returns:
            (N, 2) float32 pixel coordinates (x, y).
        """
        pts = as_points(points_mm, "points_mm", dims=(2, 3))
        if pts.shape[1] == 2:
            pts = np.concatenate([pts, np.zeros((len(pts), 1))], axis=1)
        if len(pts) == 0:
            return np.zeros((0, 2), np.float32)
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return px.reshape(-1, 2).astype(np.float32)

    def project_f64(self, points_mm: np.ndarray) -> np.ndarray:
        """As ``project`` but (N, 2) float64, for truth kept at full precision."""
        pts = as_points(points_mm, "points_mm", dims=(2, 3))
        if pts.shape[1] == 2:
            pts = np.concatenate([pts, np.zeros((len(pts), 1))], axis=1)
        if len(pts) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return px.reshape(-1, 2)

    def undistort_normalized(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) pixels -> (N, 2) float64 undistorted normalised coordinates."""
        pts = as_points(points_px, "points_px")
        if len(pts) == 0:
            return np.zeros((0, 2))
        out = cv2.undistortPoints(
            pts.reshape(-1, 1, 2), self.K, self.dist, None, None, None, _UNDISTORT_CRITERIA
        )
        return out.reshape(-1, 2)

    def to_table(self, points_px: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Back-project pixels onto the plane ``height_mm`` above the table.

        Args:
            points_px: (N, 2) pixel coordinates.
            height_mm: height of the plane above the table, mm.

        Returns:
            (N, 2) float64 table (x, y) in mm; NaN where the ray misses the plane.
        """
        n = self.undistort_normalized(points_px)
        rays = np.concatenate([n, np.ones((len(n), 1))], axis=1) @ self.R  # R^T d, row-wise
        c = self.centre_mm
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (-height_mm - c[2]) / rays[:, 2]
        s = np.where(s > 0, s, np.nan)
        return c[None, :2] + s[:, None] * rays[:, :2]

    def footprint_mm(self, inset_px: float = 0.0, n_per_side: int = 16) -> np.ndarray:
        """(M, 2) float64 polygon of the table area seen in the frame, mm.

        ``inset_px`` shrinks the image border first (keep objects away from the edges).
        """
        w, h = self.size_wh
        a = np.linspace(0.0, 1.0, n_per_side, endpoint=False)
        x0, y0, x1, y1 = inset_px, inset_px, w - 1 - inset_px, h - 1 - inset_px
        border = np.concatenate(
            [
                np.stack([x0 + a * (x1 - x0), np.full_like(a, y0)], 1),
                np.stack([np.full_like(a, x1), y0 + a * (y1 - y0)], 1),
                np.stack([x1 - a * (x1 - x0), np.full_like(a, y1)], 1),
                np.stack([np.full_like(a, x0), y1 - a * (y1 - y0)], 1),
            ]
        )
        return self.to_table(border)

    def mm_per_px(self, point_mm: tuple[float, float]) -> float:
        """Approximate table millimetres per pixel at a table point (ignoring distortion)."""
        c = self.centre_mm
        p = np.array([point_mm[0], point_mm[1], 0.0])
        depth = float((self.R @ (p - c))[2])
        return depth / float(self.K[0, 0])

    def normalized_grid(self) -> np.ndarray:
        """Undistorted normalised coordinates of every supersampled pixel.

        Returns:
            (H * SS, W * SS, 2) float32; sample (i, j) sits at output pixel coordinate
            ((j + 0.5) / SS - 0.5, (i + 0.5) / SS - 0.5). Cached per camera intrinsics.
        """
        key = (self.K.tobytes(), self.dist.tobytes(), self.size_wh)
        grid = _GRID_CACHE.get(key)
        if grid is None:
            grid = _compute_grid(self.K, self.dist, self.size_wh)
            _GRID_CACHE[key] = grid
            while len(_GRID_CACHE) > 3:
                _GRID_CACHE.popitem(last=False)
        else:
            _GRID_CACHE.move_to_end(key)
        return grid

    def coarse_grid(self) -> tuple[np.ndarray, int]:
        """The exactly undistorted coarse grid behind ``normalized_grid``.

        Returns:
            ((Hc, Wc, 2) float32 normalised coordinates, step in supersampled pixels);
            coarse sample (k, l) is at supersampled pixel ((l - 1 + 0.5) * step - 0.5,
            (k - 1 + 0.5) * step - 0.5) (one sample of padding all round).
        """
        key = (self.K.tobytes(), self.dist.tobytes(), self.size_wh)
        coarse = _COARSE_CACHE.get(key)
        if coarse is None:
            coarse = _compute_coarse(self.K, self.dist, self.size_wh)
            _COARSE_CACHE[key] = coarse
            while len(_COARSE_CACHE) > 8:
                _COARSE_CACHE.popitem(last=False)
        return coarse, _GRID_STEP


_GRID_CACHE: OrderedDict[tuple[bytes, bytes, tuple[int, int]], np.ndarray] = OrderedDict()
_COARSE_CACHE: OrderedDict[tuple[bytes, bytes, tuple[int, int]], np.ndarray] = OrderedDict()


def _compute_coarse(K: np.ndarray, dist: np.ndarray, size_wh: tuple[int, int]) -> np.ndarray:
    w2, h2 = size_wh[0] * SS, size_wh[1] * SS
    s = _GRID_STEP
    wc, hc = -(-w2 // s), -(-h2 // s)
    kx = (np.arange(-1, wc + 1) + 0.5) * s - 0.5
    ky = (np.arange(-1, hc + 1) + 0.5) * s - 0.5
    gx, gy = np.meshgrid(kx, ky)
    pts = np.stack([(gx + 0.5) / SS - 0.5, (gy + 0.5) / SS - 0.5], -1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, K, dist, None, None, None, _UNDISTORT_CRITERIA)
    return und.reshape(len(ky), len(kx), 2).astype(np.float32)


def _compute_grid(K: np.ndarray, dist: np.ndarray, size_wh: tuple[int, int]) -> np.ndarray:
    coarse = _compute_coarse(K, dist, size_wh)
    s = _GRID_STEP
    w2, h2 = size_wh[0] * SS, size_wh[1] * SS
    hc, wc = coarse.shape[:2]
    # cv2.resize maps output x to input (x + 0.5) / s - 0.5, which is exactly where the
    # coarse samples were placed: an exact bilinear interpolation of the coarse grid.
    fine = cv2.resize(coarse, (wc * s, hc * s), interpolation=cv2.INTER_LINEAR)
    return np.ascontiguousarray(fine[s : s + h2, s : s + w2])
