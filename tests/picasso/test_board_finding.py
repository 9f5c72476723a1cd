"""Finding the board when the first look misses markers (issue 25): a missing marker is looked
for where the markers found place it (``vision.picasso.board._look_closer``), a marker of the
board's ids where the layout cannot put it is not fitted, and the second drawer's hard tier
(``pictable.bench.drawers.picasso_board``, ``tier="hard"``) is drawn and found.

The frames are the second drawer's (plain OpenCV, about half a second a board), changed here
the way a hard frame is hard: one marker or two blurred past OpenCV's reading, a marker
touching the frame's edge, a marker of the same id lying on the table."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

import vision.picasso.board as board
from calibration import layout
from calibration.markers import Markers
from pictable.bench.drawers.picasso_board import (
    CANVAS_H_MM,
    CANVAS_W_MM,
    DRAW_PX_PER_MM,
    TABLE_MM,
    Board,
    _Canvas,
    _hand,
    draw_board,
)
from vision.picasso.board import BoardView, find_board, find_board_markers

CANVAS_MM = np.array([[0, 0], [360, 0], [360, 260], [0, 260]], np.float64)


@pytest.fixture(scope="module")
def plain() -> Board:
    """A board of the drawer's normal tier, no hand, no string: all four markers in view."""
    return draw_board(102, hand=False, string=False)


@pytest.fixture(scope="module")
def clean(plain: Board) -> tuple[Markers, NDArray[np.float32]]:
    """The plain board's markers and canvas corners (pixels), as the first look finds them."""
    gray = _gray(plain.frame)
    markers = find_board_markers(gray)
    assert sorted(markers) == [4, 5, 6, 7]
    view = find_board(plain.frame, gray)
    assert isinstance(view, BoardView), view
    return markers, view.fit.to_px(CANVAS_MM)


def _gray(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)


def _blurred(
    frame: NDArray[np.uint8], markers: Markers, ids: tuple[int, ...], sigma: float = 3.5
) -> NDArray[np.uint8]:
    """``frame`` with the 80 px round each of markers ``ids`` blurred (Gaussian ``sigma``)."""
    out = frame.copy()
    for mid in ids:
        x, y = markers[mid].mean(axis=0).astype(int)
        patch = out[y - 40 : y + 40, x - 40 : x + 40]
        out[y - 40 : y + 40, x - 40 : x + 40] = cv2.GaussianBlur(patch, (0, 0), sigma)
    return out


def _opencv_alone(gray: NDArray[np.uint8]) -> set[int]:
    """The board markers OpenCV's detector reads in the whole frame at full resolution (more
    than the first look sees)."""
    return set(board._detect(gray, 1.0))


def _stray(frame: NDArray[np.uint8], mid: int, x: int, y: int, side: int = 56) -> NDArray[np.uint8]:
    """``frame`` with a printed marker ``mid`` (``side`` px, a white margin of a cell) laid
    with its margin's corner at pixel (x, y)."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    cell = side // 6
    img = cv2.copyMakeBorder(
        cv2.aruco.generateImageMarker(d, mid, side),
        cell,
        cell,
        cell,
        cell,
        cv2.BORDER_CONSTANT,
        value=255,
    )
    out = frame.copy()
    h, w = img.shape
    out[y : y + h, x : x + w] = img[:, :, None]
    return out


def test_a_blurred_marker_is_found_where_the_other_three_place_it(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]]
) -> None:
    markers, _ = clean
    gray = _gray(_blurred(plain.frame, markers, (5,)))
    assert 5 not in _opencv_alone(gray)
    found = find_board_markers(gray)
    assert sorted(found) == [4, 5, 6, 7]
    # the blur (4 px) spreads the marker's dark square: its corners move a little
    assert np.abs(found[5] - markers[5]).max() < 3.5


@pytest.mark.parametrize("hidden", [(6, 7), (5, 6), (4, 6), (4, 5, 7)])
def test_the_markers_found_place_the_others(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]], hidden: tuple[int, ...]
) -> None:
    """Two markers on one side of the board (4 and 5, 4 and 7) or across it (5 and 7): the
    pair's plane is fitted in the turn of each marker's corners that holds (which of a
    marker's corners is its inner one cannot be told from the other marker alone when both
    lie on one side), and the other two are found where it places them. One marker (6):
    its neighbours are looked for in each of its four turns."""
    markers, corners = clean
    frame = _blurred(plain.frame, markers, hidden)
    gray = _gray(frame)
    assert _opencv_alone(gray) == {4, 5, 6, 7} - set(hidden)
    found = find_board_markers(gray)
    assert sorted(found) == [4, 5, 6, 7]
    for mid in hidden:
        assert np.abs(found[mid] - markers[mid]).max() < 3.5
    view = find_board(frame, gray)
    assert isinstance(view, BoardView), view
    assert np.abs(view.fit.to_px(CANVAS_MM) - corners).max() < 2.0


def test_a_marker_touching_the_frame_edge_is_found(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]]
) -> None:
    """OpenCV's detector never reports a marker within 3 px of the frame's edge; the window
    round its predicted place repeats the frame's edge beyond it."""
    markers, _ = clean
    dx = int(markers[4][:, 0].min()) - 2  # marker 4's left edge 2 px from the frame's
    shift = np.array([[1, 0, -dx], [0, 1, 0]], np.float32)
    frame = cv2.warpAffine(plain.frame, shift, (1280, 720), borderMode=cv2.BORDER_REPLICATE)
    gray = _gray(np.asarray(frame, np.uint8))
    assert 4 not in _opencv_alone(gray)
    found = find_board_markers(gray)
    assert sorted(found) == [4, 5, 6, 7]
    assert np.abs(found[4] - (markers[4] - [dx, 0])).max() < 1.5


def test_a_stray_marker_of_the_same_id_is_not_fitted(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]]
) -> None:
    """A marker 5 larger than the board's lies on the table: the first look keeps the
    larger of the two, whose place fits no board with the other three. It is dropped and
    the board's own marker 5 found where the other three place it."""
    _, corners = clean
    frame = _stray(plain.frame, 5, 1120, 560)
    gray = _gray(frame)
    first = find_board_markers(gray)
    assert np.linalg.norm(first[5].mean(axis=0) - [1156, 596]) < 5  # the stray
    view = find_board(frame, gray)
    assert isinstance(view, BoardView), view
    assert view.fit.markers == (4, 5, 6, 7)
    assert np.abs(view.fit.to_px(CANVAS_MM) - corners).max() < 0.5


def test_a_stray_marker_stands_in_for_no_hidden_one(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]]
) -> None:
    """The board's marker 5 covered, a marker 5 on the table: the board is fitted on the
    other three; the stray is not taken for the covered one."""
    markers, corners = clean
    frame = _stray(plain.frame, 5, 1120, 560)
    x, y = markers[5].mean(axis=0).astype(int)
    frame[y - 30 : y + 30, x - 30 : x + 30] = np.median(
        plain.frame[y - 60 : y - 40, x - 30 : x + 30].reshape(-1, 3), axis=0
    )
    gray = _gray(frame)
    view = find_board(frame, gray)
    assert isinstance(view, BoardView), view
    assert view.fit.markers == (4, 6, 7)
    assert np.abs(view.fit.to_px(CANVAS_MM) - corners).max() < 3.0


def test_stray_markers_gain_no_others(plain: Board) -> None:
    """Two markers of the board's ids on a table with no board: nothing where they would
    place the board's other two reads as those, so no more markers are made up."""
    table = np.full_like(plain.frame, 90)
    frame = _stray(_stray(table, 4, 300, 200, side=42), 6, 800, 450, side=42)
    assert sorted(find_board_markers(_gray(frame))) == [4, 6]


def test_a_reading_gives_the_id_and_the_first_corner() -> None:
    """``_read_cells`` names a marker from its cells whatever corner its outline starts at,
    and the turn it gives rolls the outline into ArUco order."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, layout.ARUCO_DICTIONARY))
    printed = cv2.copyMakeBorder(
        cv2.aruco.generateImageMarker(d, 6, 60), 30, 30, 30, 30, cv2.BORDER_CONSTANT, value=255
    )
    img = np.asarray(cv2.GaussianBlur(printed, (0, 0), 3.0), np.uint8)  # 10 px cells, blurred
    aruco = np.array([[30, 30], [90, 30], [90, 90], [30, 90]], np.float64) - 0.5
    for start in range(4):
        read = board._read_cells(img, np.roll(aruco, start, axis=0))
        assert read is not None
        mid, turn, corr, margin, contrast = read
        assert mid == 6
        assert corr > 0.9 and margin > 0.3 and contrast > 100
        assert np.array_equal(np.roll(np.roll(aruco, start, axis=0), turn, axis=0), aruco)


@pytest.mark.parametrize("seed", [7, 27])
def test_hard_tier_drawn_boards_are_found(seed: int) -> None:
    """Two boards of the drawer's hard tier where OpenCV reads one or none of the markers
    (tilted, blurred, JPEG 40-80): all four are found and fit one plane."""
    b = draw_board(seed, tier="hard")
    gray = _gray(b.frame)
    assert len(_opencv_alone(gray)) <= 2
    view = find_board(b.frame, gray)
    assert isinstance(view, BoardView), view
    assert view.fit.markers == (4, 5, 6, 7)


def test_the_hard_tier_draws_the_same_pieces() -> None:
    normal, hard = draw_board(11), draw_board(11, tier="hard")
    assert hard.counts == normal.counts
    assert hard.pieces == normal.pieces
    assert not np.array_equal(hard.frame, normal.frame)
    with pytest.raises(ValueError, match="tier"):
        draw_board(11, tier="extreme")


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_the_hand_flag_says_whether_a_hand_covers_the_canvas(seed: int) -> None:
    """A hand near the board (``near``) or over it: the flag ``_hand`` gives is whether its
    pixels reach into the canvas (measured here on a black drawing, where only the hand
    shows: its shadow darkens nothing)."""
    rng = np.random.default_rng(seed)
    cv = _Canvas(rng)
    cv.img[:] = 0.0
    near = seed % 3 != 0
    covers = _hand(cv, rng, near=near)
    x0, y0 = round(-TABLE_MM[0] * DRAW_PX_PER_MM), round(-TABLE_MM[1] * DRAW_PX_PER_MM)
    w, h = round(CANVAS_W_MM * DRAW_PX_PER_MM), round(CANVAS_H_MM * DRAW_PX_PER_MM)
    assert covers == bool((cv.img[y0 : y0 + h, x0 : x0 + w] > 0).any())
    assert (cv.img > 0).any()  # a hand is drawn, over the canvas or not
    if not near:
        assert covers


def test_markers_blurred_past_opencvs_reading_are_read_in_its_rejected_outlines(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """All four markers blurred (4 px): OpenCV reads none, even sharpened, but still finds
    their outlines; read cell by cell against the board's ids (``board._read_rejected``),
    they fit one plane, and the board is found where it is."""
    markers, _ = clean
    gray = _gray(_blurred(plain.frame, markers, (4, 5, 6, 7), sigma=4.0))
    assert not _opencv_alone(gray)
    found = find_board_markers(gray)
    assert len(found) >= 3
    assert max(float(np.abs(found[m] - markers[m]).max()) for m in found) < 3.0
    monkeypatch.setattr(board, "_read_rejected", lambda *_: {})
    assert find_board_markers(gray) == {}


def test_no_board_marker_is_read_in_the_real_photos(shared_data) -> None:
    """The real photos of ../shared/data (QR codes, chessboards, ArUco markers of other
    dictionaries, feature-matching scenes) hold no Picasso board: none of its markers is
    read, by OpenCV or in its rejected outlines."""
    photos = [
        p
        for p in sorted(shared_data.rglob("*"))
        if p.suffix.lower() in {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".gif"}
    ]
    assert len(photos) > 100
    for p in photos:
        gray = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if gray is None:
            continue
        assert find_board_markers(gray) == {}, p.name


def test_a_rejected_outline_alone_is_read_only_at_the_strictest_limits(
    plain: Board, clean: tuple[Markers, NDArray[np.float32]]
) -> None:
    """``board._read_rejected`` on given outlines: two that fit the board are both kept;
    one alone is kept only at ``READ_MIN[1]``; an outline of no board marker gives none."""
    markers, _ = clean
    gray = _gray(plain.frame)
    quads = [markers[4].astype(np.float64), markers[6].astype(np.float64)]
    both = board._read_rejected(gray, quads, {})
    assert sorted(both) == [4, 6]
    one = board._read_rejected(gray, quads[:1], {})
    assert sorted(one) == [4]
    assert np.abs(one[4] - markers[4]).max() < 1e-3
    # a marker already found is not read again; the other, beside it, must fit with it
    assert sorted(board._read_rejected(gray, quads, {4: markers[4]})) == [6]
    # a square of plain canvas reads as no marker
    x, y = markers[4].mean(axis=0) + np.array([120.0, 80.0])
    blank = np.array([[x, y], [x + 30, y], [x + 30, y + 30], [x, y + 30]])
    assert board._read_rejected(gray, [blank], {}) == {}
