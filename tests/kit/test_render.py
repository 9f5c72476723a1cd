"""Rendering: sizes, determinism, markers, the Picasso board and the chessboard."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.kit import geometry as g
from vision.kit.codes import marker_id
from vision.kit.render import (
    _render_face_cached,
    picmix_item_layout,
    render_board,
    render_chessboard,
    render_face,
    render_marker,
)

ONE_OF_EACH = [
    "pickpic-001",
    "pickpic-120",
    "picflip-001",
    "picflip-cover-3",
    "picasso-030",
    "picmix-obj-07",
    "picmix-purple-2",
]


def _detector(dictionary: int) -> cv2.aruco.ArucoDetector:
    return cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(dictionary), cv2.aruco.DetectorParameters()
    )


@pytest.mark.parametrize("card_id", ONE_OF_EACH)
@pytest.mark.parametrize("px_per_mm", [g.DEFAULT_PX_PER_MM, 3.0])
def test_face_size_and_type(card_id: str, px_per_mm: float) -> None:
    for face in g.FACES:
        img = render_face(card_id, face, px_per_mm)
        w, h = g.px_size(g.face_size_wh_mm(card_id), px_per_mm)
        assert img.shape == (h, w, 3) and img.dtype == np.uint8
        assert img.flags.writeable  # a copy: callers may draw on it


def test_default_resolution_is_300_dpi() -> None:
    assert render_face("picasso-001", "front").shape == (1039, 744, 3)
    assert render_face("picmix-red-1", "front").shape == (744, 1039, 3)  # landscape


def test_fixed_render_is_bit_identical_across_calls() -> None:
    a = render_face("picflip-017", "front", 6.0)
    _render_face_cached.cache_clear()
    b = render_face("picflip-017", "front", 6.0)
    assert a is not b and np.array_equal(a, b)
    c = render_face("pickpic-077", "back", 5.0)
    _render_face_cached.cache_clear()
    assert np.array_equal(c, render_face("pickpic-077", "back", 5.0))
    a[:] = 0  # modifying a result leaves the cache alone
    assert np.array_equal(b, render_face("picflip-017", "front", 6.0))


def test_markers_sit_where_geometry_says() -> None:
    ppm = 8.0
    for card_id in ("picasso-005", "picmix-green-3"):
        img = render_face(card_id, "back", ppm)
        corners, ids, _ = _detector(cv2.aruco.DICT_4X4_1000).detectMarkers(img)
        assert ids is not None and sorted(ids.ravel()) == [marker_id(card_id, "back")] * 2
        found = sorted(tuple(np.round(c.reshape(4, 2)[0] / ppm, 1)) for c in corners)
        want = sorted((r.x, r.y) for r in g.face_marker_rects(card_id))
        assert np.allclose(found, want, atol=0.3), (found, want)


@pytest.mark.parametrize("marker", [0, 3, 4, 7, 49])
def test_fiducials_read_with_dict_4x4_50(marker: int) -> None:
    img = render_marker(marker, 40.0, 4.0, border_mm=8.0)
    assert img.shape == (224, 224, 3)
    _, ids, _ = _detector(cv2.aruco.DICT_4X4_50).detectMarkers(img)
    assert ids is not None and ids.ravel().tolist() == [marker]


def test_board_markers_touch_the_canvas_corners() -> None:
    ppm = 3.0
    img = render_board(ppm, margin_mm=10.0)
    assert img.shape[:2] == (round(340 * ppm), round(440 * ppm))
    offset = g.BOARD_MARKER_MM + 10.0
    corners, ids, _ = _detector(cv2.aruco.DICT_4X4_50).detectMarkers(img)
    assert ids is not None and sorted(ids.ravel()) == [4, 5, 6, 7]
    w, h = g.BOARD_CANVAS_WH_MM
    canvas_corner = {4: (0, 0), 5: (w, 0), 6: (w, h), 7: (0, h)}
    centre = np.array([w / 2, h / 2])
    for c, i in zip(corners, ids.ravel(), strict=True):
        pts_mm = c.reshape(4, 2) / ppm - offset  # to canvas mm
        nearest = pts_mm[np.argmin(np.linalg.norm(pts_mm - centre, axis=1))]
        assert np.allclose(nearest, canvas_corner[int(i)], atol=0.5)
        assert np.allclose(pts_mm, g.board_marker_corners_mm()[int(i)], atol=0.5)
    # the canvas is off-white, the markers outside it
    cx, cy = int((offset + w / 2) * ppm), int((offset + h / 2) * ppm)
    assert tuple(img[cy, cx]) == g.BOARD_CANVAS_BGR


def test_chessboard_is_found() -> None:
    img = render_chessboard(2.0)
    img = cv2.copyMakeBorder(img, 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    ok, found = cv2.findChessboardCorners(grey, (9, 6))
    corners = np.asarray(found).reshape(-1, 2)
    assert ok and corners.shape == (54, 2)
    step = np.linalg.norm(corners[1] - corners[0]) / 2.0
    assert abs(step - g.CHESSBOARD_SQUARE_MM) < 0.5


def test_picmix_item_layout() -> None:
    layout = picmix_item_layout("picmix-orange-2")
    assert layout["front"]["left"][0] == "star" and layout["back"]["right"][0] == "bell"
    box = layout["front"]["right"][1]
    assert box.x >= g.PICMIX_HALVES["right"].x and box.x1 <= g.PICMIX_PLAYER_SIZE_WH_MM[0]
    with pytest.raises(ValueError):
        picmix_item_layout("picmix-obj-01")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("pickpic-001", "side", 5.0), ValueError),
        (("pickpic-001", "front", 0.0), ValueError),
        (("pickpic-001", "front", float("nan")), ValueError),
        (("pickpic-000", "front", 5.0), KeyError),
    ],
)
def test_bad_arguments(args: tuple[str, str, float], error: type[Exception]) -> None:
    with pytest.raises(error):
        render_face(*args)  # type: ignore[arg-type]
