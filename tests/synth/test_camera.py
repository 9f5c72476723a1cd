"""The camera model: OpenCV conventions, pose, and the per-pixel inverse used to render."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth import Camera
from vision.synth.camera import SS


def test_straight_down_camera_sees_the_table_as_the_first_seat_does() -> None:
    cam = Camera.from_pose(height_mm=700, target_mm=(10.0, -20.0))
    c = cam.project(np.array([[10.0, -20.0], [110.0, -20.0], [10.0, 80.0]]))
    w, h = cam.size_wh
    assert np.allclose(c[0], [(w - 1) / 2, (h - 1) / 2], atol=1e-3)
    assert c[1, 0] > c[0, 0] and abs(c[1, 1] - c[0, 1]) < 1e-3  # x right
    assert c[2, 1] > c[0, 1] and abs(c[2, 0] - c[0, 0]) < 1e-3  # y towards the first seat
    assert np.allclose(cam.centre_mm, [10.0, -20.0, -700.0])


def test_projection_is_the_pinhole_formula() -> None:
    cam = Camera.from_pose(height_mm=800, tilt_deg=25, yaw_deg=30, roll_deg=2)
    pts = np.array([[0.0, 0.0, 0.0], [120.0, -40.0, 0.0], [-200.0, 90.0, -150.0]])
    xc = pts @ cam.R.T + cam.tvec
    manual = (xc[:, :2] / xc[:, 2:]) * cam.K[0, 0] + cam.K[:2, 2]
    assert np.allclose(cam.project(pts), manual, atol=1e-3)


def test_tilt_leans_the_camera_towards_the_first_seat() -> None:
    cam = Camera.from_pose(height_mm=600, tilt_deg=30, target_mm=(0.0, 0.0))
    c = cam.centre_mm
    assert c[1] > 0 and c[2] == pytest.approx(-600.0)
    assert c[1] == pytest.approx(600 * np.tan(np.radians(30)))


def test_to_table_inverts_project_with_distortion() -> None:
    cam = Camera.from_pose(
        height_mm=750, tilt_deg=20, yaw_deg=-15, dist=(-0.2, 0.05, 0.001, -0.001, 0)
    )
    rng = np.random.default_rng(0)
    pts = rng.uniform([-300, -200], [300, 200], (50, 2))
    back = cam.to_table(cam.project_f64(pts))
    assert np.abs(back - pts).max() < 1e-3


@pytest.mark.parametrize(("k1", "k2"), [(-0.3, 0.1), (-0.1, 0.02), (0.08, -0.02)])
def test_render_grid_is_exact_to_a_hundredth_of_a_pixel(k1: float, k2: float) -> None:
    cam = Camera.from_pose(height_mm=700, tilt_deg=10, dist=(k1, k2, 0.002, -0.001, 0.0))
    grid = cam.normalized_grid()
    h2, w2 = grid.shape[:2]
    assert (w2, h2) == (cam.size_wh[0] * SS, cam.size_wh[1] * SS)
    ys, xs = np.mgrid[0:h2:7, 0:w2:11]
    n = grid[ys, xs].reshape(-1, 2).astype(np.float64)
    px, _ = cv2.projectPoints(np.c_[n, np.ones(len(n))], np.zeros(3), np.zeros(3), cam.K, cam.dist)
    want = np.stack([(xs + 0.5) / SS - 0.5, (ys + 0.5) / SS - 0.5], -1).reshape(-1, 2)
    assert np.abs(px.reshape(-1, 2) - want).max() < 0.02


@pytest.mark.parametrize(
    ("points", "message"),
    [
        (np.zeros(3), "points_mm must be (N, 2) or (N, 3) float, got (3,) float64"),
        (np.zeros((2, 4)), "points_mm must be (N, 2) or (N, 3) float, got (2, 4) float64"),
        ("a", "points_mm must be (N, 2) or (N, 3) float, got str"),
    ],
)
def test_bad_points_are_refused(points: object, message: str) -> None:
    cam = Camera.from_pose(height_mm=700)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        cam.project(points)  # type: ignore[arg-type]


def test_bad_pose_is_refused() -> None:
    with pytest.raises(ValueError, match="tilt_deg must be in"):
        Camera.from_pose(height_mm=700, tilt_deg=85)
    with pytest.raises(ValueError, match="height_mm must be > 0"):
        Camera.from_pose(height_mm=0)
    with pytest.raises(ValueError, match="folds back"):
        Camera.from_pose(height_mm=700, dist=(-0.3, 0.04, 0.0, 0.0, 0.0))
