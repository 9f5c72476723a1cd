"""The board reader on rendered boards: what lies on the canvas, counted right."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.result import Failure
from vision.picasso import BoardReading, read_board
from vision.picasso import segment as seg
from vision.picasso.cord import find_cord
from vision.picasso.dataset import render_board, scene_seed
from vision.picasso.occlusion import dark_objects
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.reading import COUNT_KEYS


def _read(board: tuple[np.ndarray, Any]) -> tuple[BoardReading, Any]:
    frame, truth = board
    reading = read_board(frame)
    assert isinstance(reading, BoardReading), reading
    return reading, truth


def _truth_sticks(truth: Any) -> list[tuple[str, np.ndarray]]:
    return [
        (p.kind, np.asarray(p.endpoints_mm))
        for p in truth.board.pieces
        if p.on_canvas and p.kind.endswith("stick")
    ]


def _assert_sticks_match(reading: BoardReading, truth: Any, tol_mm: float = 5.0) -> None:
    """Every true stick is read, of its kind, with both ends within ``tol_mm``."""
    left = list(reading.sticks)

    def err(s: Any, ends: np.ndarray) -> float:
        e = np.array([s.p0_mm, s.p1_mm])
        return float(min(np.abs(e - ends).max(), np.abs(e[::-1] - ends).max()))

    for kind, ends in _truth_sticks(truth):
        best = min(left, key=lambda s, ends=ends: err(s, ends))
        assert err(best, ends) < tol_mm, f"{kind} {ends.round(1).tolist()}: nearest read {best}"
        assert best.kind == kind
        left.remove(best)
    assert not left, f"sticks read that are not there: {left}"


def _along(read: np.ndarray, true: np.ndarray) -> bool:
    """Whether the stick read with ends ``read`` lies along the true one with ends ``true``
    ((2, 2) mm each): its middle within 2.5 mm of the true centre line and between the true
    ends, turned by less than 8 degrees."""
    d = (true[1] - true[0]) / np.linalg.norm(true[1] - true[0])
    r = (read[1] - read[0]) / np.linalg.norm(read[1] - read[0])
    rel = read.mean(0) - true[0]
    across = abs(float(rel[0] * d[1] - rel[1] * d[0]))
    along = float(rel @ d)
    turn = abs(float(d[0] * r[1] - d[1] * r[0]))
    length = float(np.linalg.norm(true[1] - true[0]))
    return across < 2.5 and 0.0 < along < length and turn < np.sin(np.radians(8.0))


def test_crossed_sticks_string_over_a_stick_shapes_touching_and_supply(board_a: Any) -> None:
    reading, truth = _read(board_a)
    assert not reading.occluded
    # the supply lies beside the board: not counted
    assert any(not p.on_canvas for p in truth.board.pieces)
    assert reading.counts == truth.board.counts
    assert reading.cost == truth.board.cost
    _assert_sticks_match(reading, truth)
    want = sorted(
        (p.shape, p.colour) for p in truth.board.pieces if p.on_canvas and p.kind == "shape"
    )
    assert sorted((s.shape, s.colour) for s in reading.shapes) == want
    assert reading.string is not None
    assert reading.warning  # no calibration given: the homography's warning


def test_sticks_touching_end_to_end(board_b: Any) -> None:
    reading, truth = _read(board_b)
    assert (
        reading.counts
        == truth.board.counts
        == {"long_stick": 3, "short_stick": 1, "shape": 1, "string": 0}
    )
    # The V's second stick has both ends on other sticks (wood on wood: the end of one does
    # not show on the other), so where it lies along its axis is only known to within about
    # a stick's width there; the others' ends show against the canvas.
    _assert_sticks_match(reading, truth, tol_mm=8.0)


def test_a_hand_over_the_canvas_is_occluded_not_counted(board_b_hand: Any) -> None:
    reading, truth = _read(board_b_hand)
    assert truth.board.canvas_hand_fraction > 0.05
    assert reading.occluded
    assert reading.counts is None and reading.cost is None
    assert reading.occlusion is not None
    assert reading.occlusion.covered_fraction == pytest.approx(
        truth.board.canvas_hand_fraction, abs=0.08
    )


def test_a_sleeve_beside_the_board_casts_a_shadow_not_an_occlusion(
    board_b_sleeve_shadow: Any,
) -> None:
    reading, truth = _read(board_b_sleeve_shadow)
    assert truth.board.canvas_hand_fraction == 0.0
    # the shadow is deep enough that its darkest part reads as a dark patch too thick for the
    # string (what the occlusion test used to call foreign) ...
    s = reading.px_per_mm
    sg = seg.segment(reading.canvas, s, DEFAULT_PROFILE)
    thick = find_cord(sg.mask(seg.DARK), s, DEFAULT_PROFILE, sg.mask(seg.GREY)).thick
    assert thick.sum() >= 150.0 * s * s
    # ... but it is no darker than the shadow round it: not a dark thing over the canvas
    assert not dark_objects(thick, sg.normalised, s).any()
    assert not reading.occluded
    assert reading.counts == truth.board.counts


def test_a_dark_patch_darker_than_its_surroundings_is_kept() -> None:
    # a canvas half in shadow at the dark threshold (noise speckles it dark and grey), and a
    # dark sleeve-like patch, far darker than the canvas round it
    rng = np.random.default_rng(0)
    s = 1.5
    normalised = np.full((200, 300, 3), seg.WHITE_LEVEL, np.float32)
    normalised[:, :150] *= 0.27  # Y about 0.27: L* at the dark threshold
    normalised[60:140, 200:280] = 0.05 * seg.WHITE_LEVEL
    normalised += rng.normal(0, 3, normalised.shape)
    normalised = np.clip(normalised, 0, 255).astype(np.uint8)
    thick = np.zeros((200, 300), np.uint8)
    thick[40:100, 40:100] = 1  # dark specks dense enough to pass for a patch, in the shadow
    thick[60:140, 200:280] = 1
    kept = dark_objects(thick, normalised, s)
    assert not kept[40:100, 40:100].any()
    assert kept[60:140, 200:280].all()


def test_a_short_stick_half_hidden_in_a_heap_is_found() -> None:
    """A development board (run seed 1, board 38) whose heap hides half of a short stick: a
    second-round proposal through it, turned up to 9 degrees, ran along a neighbour; turned
    at most ``SCAN_MAX_DEG`` (6), it finds the stick."""
    frame, truth = render_board("normal", scene_seed(1, 38))
    assert truth.board.canvas_hand_fraction == 0
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert not reading.occluded
    assert reading.counts == {k: truth.board.counts.get(k, 0) for k in COUNT_KEYS}
    # each short stick read along it (the half hidden one shows only part of its length, so
    # its ends are known less well than a whole stick's)
    shorts = [np.array([s.p0_mm, s.p1_mm]) for s in reading.sticks if s.kind == "short_stick"]
    for kind, ends in _truth_sticks(truth):
        if kind == "short_stick":
            assert any(_along(e, ends) for e in shorts), ends.round(1).tolist()


def test_with_intrinsics_no_warning(board_a: Any) -> None:
    from calibration.intrinsics import Intrinsics

    frame, truth = board_a
    cam = truth.camera
    intr = Intrinsics(cam.K, cam.dist, tuple(cam.image_size_wh))
    reading = read_board(frame, intrinsics=intr)
    assert isinstance(reading, BoardReading)
    assert reading.warning is None
    assert reading.counts == truth.board.counts
    _assert_sticks_match(reading, truth, tol_mm=4.5)


def test_no_board_in_view_is_a_failure_with_a_reason() -> None:
    frame = np.full((720, 1280, 3), 200, np.uint8)
    result = read_board(frame)
    assert isinstance(result, Failure)
    assert not result
    assert "markers" in result.reason


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (
            np.zeros((720, 1280), np.uint8),
            r"frame must be \(H, W, 3\) uint8, got \(720, 1280\) uint8",
        ),
        (np.zeros((720, 1280, 3), np.float32), r"got \(720, 1280, 3\) float32"),
        (np.zeros((720, 1280, 4), np.uint8), r"got \(720, 1280, 4\) uint8"),
        (np.zeros((0, 0, 3), np.uint8), r"got \(0, 0, 3\) uint8"),
        ([[1, 2, 3]], r"frame must be \(H, W, 3\) uint8, got list"),
    ],
)
def test_bad_frames_are_refused(frame: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_board(frame)


def test_default_profile_is_kit_md() -> None:
    p = DEFAULT_PROFILE
    assert {s.kind: (s.length_mm, s.width_mm) for s in p.sticks} == {
        "long_stick": (100.0, 8.0),
        "short_stick": (50.0, 8.0),
    }
    assert {s.kind: s.size_mm for s in p.shapes} == {
        "circle": 40.0,
        "square": 35.0,
        "triangle": 40.0,
        "half_circle": 40.0,
    }
    assert set(p.colours) == {"red", "blue", "yellow", "green"}
