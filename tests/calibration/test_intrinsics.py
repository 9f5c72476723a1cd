"""Camera intrinsics (issue: calibration, items 1, 2 and 6)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.files import CalibrationFile, load
from calibration.intrinsics import (
    BoardSpec,
    Rejected,
    View,
    calibrate,
    calibrate_files,
    find_board,
)
from calibration.result import CalibrationError, Failure


def _published(folder: Path) -> dict[str, float]:
    fs = cv2.FileStorage(str(folder / "left_intrinsics.yml"), cv2.FILE_STORAGE_READ)
    k = fs.getNode("camera_matrix").mat()
    return {"fx": k[0, 0], "fy": k[1, 1], "cx": k[0, 2], "cy": k[1, 2]}


@pytest.fixture(scope="module")
def left_photos(shared_data: Path) -> list[str]:
    photos = sorted(str(p) for p in (shared_data / "opencv-calib-left").glob("left*.jpg"))
    assert len(photos) >= 9
    return photos


def test_real_photos_match_opencv_published_calibration(shared_data: Path, left_photos: list[str]):
    """fx, fy, cx, cy within 1% of OpenCV's published calibration; RMS no worse than 0.46 px."""
    result = calibrate_files(left_photos, BoardSpec.parse("chessboard:9x6:25"))
    assert not isinstance(result, Failure), result
    intr = result.intrinsics
    ref = _published(shared_data / "opencv-calib-left")
    got = {"fx": intr.fx, "fy": intr.fy, "cx": intr.cx, "cy": intr.cy}
    for key, value in ref.items():
        assert abs(got[key] / value - 1) < 0.01, (key, got[key], value)
    assert intr.rms_px is not None and intr.rms_px <= 0.46
    assert len(result.views) == len(left_photos)
    assert intr.image_size == (640, 480)


def test_cli_writes_contract_fields_and_reports_rejections(tmp_path: Path, left_photos: list[str]):
    """CONTRACTS 3: the JSON has rms_px, camera_matrix, dist_coeffs, image_size; rejected
    views are printed with their reason."""
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    out = tmp_path / "cam.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pictable",
            "calibrate",
            "camera",
            *left_photos,
            str(junk),
            str(blank),
            "--board",
            "chessboard:9x6:25",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "RMS reprojection error" in proc.stdout
    assert f"rejected  {junk}: not an image" in proc.stdout
    assert f"rejected  {blank}: no 9x6 chessboard found" in proc.stdout
    data = json.loads(out.read_text())
    for key in ("rms_px", "camera_matrix", "dist_coeffs", "image_size"):
        assert key in data
    assert data["image_size"] == [640, 480]
    assert np.asarray(data["camera_matrix"]).shape == (3, 3)
    again = load(str(out))
    assert again.intrinsics is not None
    assert again.intrinsics.rms_px == pytest.approx(data["rms_px"])


def test_too_few_views_is_a_failure_not_nans(left_photos: list[str]):
    result = calibrate_files(left_photos[:2], BoardSpec.parse("chessboard:9x6:25"))
    assert isinstance(result, Failure)
    assert not result
    assert "at least 3" in result.reason


def test_duplicate_views_are_rejected_with_reason(left_photos: list[str]):
    board = BoardSpec.parse("chessboard:9x6:25")
    image = cv2.imread(left_photos[0])
    view = find_board(image, board, "a")
    assert isinstance(view, View)
    twin = View("b", view.image_px.copy(), view.object_mm, view.image_size)
    result = calibrate([view, twin, twin], board)
    assert isinstance(result, Failure)
    assert "1 usable view" in result.reason


def test_degenerate_view_rejected():
    board = BoardSpec.parse("chessboard:9x6:25")
    line = np.stack([np.linspace(10, 500, 54), np.full(54, 100.0)], axis=1).astype(np.float32)
    result = calibrate([View("flat", line, board.object_points(), (640, 480))] * 3, board)
    assert isinstance(result, Failure)


def test_image_size_mismatch_rejected(left_photos: list[str]):
    board = BoardSpec.parse("chessboard:9x6:25")
    views = [find_board(cv2.imread(p), board, p) for p in left_photos[:4]]
    small = cv2.resize(cv2.imread(left_photos[4]), (320, 240))
    v_small = find_board(small, board, "small")
    assert isinstance(v_small, View)
    result = calibrate([*views, v_small], board)  # type: ignore[list-item]
    assert not isinstance(result, Failure)
    assert Rejected("small", "image size 320x240 differs from 640x480") in result.rejected


@pytest.mark.parametrize(
    "spec",
    [
        "chessboard",
        "chessboard:9",
        "chessboard:axb",
        "chessboard:9x6:-1",
        "chessboard:2x2",
        "charuco:5x7:40",
        "charuco:5x7:20:40",
        "charuco:5x7:40:20:DICT_NOPE",
        "circles:4x11",
    ],
)
def test_bad_board_specs_say_what_is_wrong(spec: str):
    with pytest.raises(CalibrationError, match="board"):
        BoardSpec.parse(spec)


def test_charuco_board_views_are_found():
    board = BoardSpec.parse("charuco:5x7:40:20:DICT_4X4_50")
    img = board.charuco_board().generateImage((500, 700), marginSize=20)
    frame = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    view = find_board(frame, board, "charuco")
    assert isinstance(view, View)
    assert len(view.image_px) == 4 * 6


def test_any_image_shape_or_type_is_refused_clearly():
    board = BoardSpec.parse("chessboard:9x6:25")
    with pytest.raises(ValueError, match=r"must be \(H, W, 3\)"):
        find_board(np.zeros((10, 10), np.float64), board)  # type: ignore[arg-type]
    assert isinstance(find_board(np.zeros((5, 7, 4), np.uint8), board), Failure)
    assert isinstance(find_board(np.zeros((1, 1), np.uint8), board), Failure)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not JSON"),
        ("[]", "not an object"),
        ('{"version": 99}', "version 99"),
        ('{"version": 1, "camera_matrix": [[1, 0], [0, 1]]}', "shape"),
        (
            '{"version": 1, "camera_matrix": [[500,0,320],[0,500,240],[0,0,1]], '
            '"dist_coeffs": [0,0,0,0,0], "image_size": [640]}',
            "image_size",
        ),
        (
            '{"version": 1, "camera_matrix": [[500,0,320],[0,500,240],[0,0,1]], '
            '"dist_coeffs": [0,0,0], "image_size": [640, 480]}',
            "dist_coeffs",
        ),
        (
            '{"version": 1, "camera_matrix": [[-5,0,320],[0,500,240],[0,0,1]], '
            '"dist_coeffs": [0,0,0,0,0], "image_size": [640, 480]}',
            "not a camera matrix",
        ),
        ('{"version": 1, "play_area_mm": [800, -1]}', "positive"),
        ('{"format": "other", "version": 1}', "not a calibration file"),
    ],
)
def test_bad_calibration_files_are_refused_clearly(tmp_path: Path, content: str, message: str):
    path = tmp_path / "cal.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=message):
        load(str(path))


def test_nan_in_calibration_file_refused(tmp_path: Path):
    path = tmp_path / "cal.json"
    path.write_text(
        '{"version": 1, "camera_matrix": [[NaN,0,320],[0,500,240],[0,0,1]], '
        '"dist_coeffs": [0,0,0,0,0], "image_size": [640, 480]}'
    )
    with pytest.raises(CalibrationError, match="finite"):
        load(str(path))


def test_missing_calibration_file(tmp_path: Path):
    with pytest.raises(CalibrationError, match="cannot read"):
        load(str(tmp_path / "nope.json"))


def test_cli_bad_input_exits_2_without_traceback(tmp_path: Path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pictable",
            "calibrate",
            "camera",
            str(tmp_path / "a.jpg"),
            "--board",
            "chessboard:9x6",
            "--out",
            str(tmp_path / "c.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "calibration failed" in proc.stderr
    assert not (tmp_path / "c.json").exists()


def test_round_trip(tmp_path: Path):
    from calibration.intrinsics import Intrinsics

    k = np.array([[900.0, 0, 640], [0, 905.0, 360], [0, 0, 1]])
    intr = Intrinsics(k, np.array([0.1, -0.05, 0.001, 0.0, 0.01]), (1280, 720), 0.3)
    CalibrationFile(intrinsics=intr, play_area_mm=(800.0, 600.0)).save(str(tmp_path / "c.json"))
    back = load(str(tmp_path / "c.json"))
    assert back.intrinsics is not None
    np.testing.assert_allclose(back.intrinsics.camera_matrix, k)
    assert back.play_area_mm == (800.0, 600.0)


@pytest.mark.parametrize(
    ("photo", "at_least"), [("choriginal.jpg", 24), ("chocclusion_original.jpg", 12)]
)
def test_charuco_corners_in_opencv_real_photos(shared_data: Path, photo: str, at_least: int):
    """OpenCV's ChArUco photos (5x7 squares of 40 mm, markers 20 mm, DICT_6X6_250): every
    inner corner of the whole board, fewer where a hand covers it."""
    board = BoardSpec.parse("charuco:5x7:40:20:DICT_6X6_250")
    view = find_board(cv2.imread(str(shared_data / "opencv-aruco" / photo)), board, photo)
    assert isinstance(view, View), view
    assert len(view.image_px) >= at_least
    assert view.object_mm[:, 0].max() <= 4 * 40 + 1e-6
    assert view.object_mm[:, 1].max() <= 6 * 40 + 1e-6
