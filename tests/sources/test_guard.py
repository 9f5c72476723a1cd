"""FrameGuard and the checks: a table of good and bad frames with the outcome expected."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vision.sources import (
    Convert,
    Frame,
    FrameGuard,
    Skip,
    check_frame,
    check_positive,
    normalise_image,
)

H, W = 6, 8


@pytest.mark.parametrize(
    ("image", "outcome"),
    [
        (np.zeros((H, W, 3), np.uint8), None),
        (np.zeros((H, W), np.uint8), Convert.GRAY),
        (np.zeros((H, W, 1), np.uint8), Convert.GRAY),
        (np.zeros((H, W, 4), np.uint8), Convert.BGRA),
        (None, Skip.EMPTY),
        (np.zeros((0, W, 3), np.uint8), Skip.EMPTY),
        (np.zeros((H, 0), np.uint8), Skip.EMPTY),
        (np.zeros((H, W, 3), np.float64), Skip.DTYPE),
        (np.zeros((H, W, 3), np.uint16), Skip.DTYPE),
        (np.zeros((H, W, 3), bool), Skip.DTYPE),
        (np.zeros((H, W), np.int8), Skip.DTYPE),
        (np.zeros((H, W, 2), np.uint8), Skip.SHAPE),
        (np.zeros((H, W, 5), np.uint8), Skip.SHAPE),
        (np.zeros((W,), np.uint8), Skip.SHAPE),
        (np.zeros((2, H, W, 3), np.uint8), Skip.SHAPE),
        ([[0, 0], [0, 0]], Skip.NOT_ARRAY),
        (b"\xff\xd8", Skip.NOT_ARRAY),
    ],
    ids=lambda v: (
        getattr(v, "value", None)
        or (f"{v.shape}-{v.dtype}" if isinstance(v, np.ndarray) else type(v).__name__)
    ),
)
def test_normalise_image(image, outcome):
    out, got = normalise_image(image)
    assert got == outcome
    if isinstance(outcome, Skip):
        assert out is None
    else:
        assert out is not None and out.shape == (H, W, 3) and out.dtype == np.uint8


def test_grey_is_replicated_and_alpha_dropped():
    grey = np.arange(H * W, dtype=np.uint8).reshape(H, W)
    out, _ = normalise_image(grey)
    assert out is not None and all((out[..., c] == grey).all() for c in range(3))
    bgra = np.random.default_rng(0).integers(0, 256, (H, W, 4), dtype=np.uint8)
    out, _ = normalise_image(bgra)
    assert out is not None and (out == bgra[..., :3]).all()


@settings(deadline=None)
@given(
    hnp.arrays(
        dtype=st.sampled_from([np.uint8, np.uint16, np.float32, np.int32, bool]),
        shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5),
    )
)
def test_normalise_never_raises_and_only_returns_bgr(image):
    out, outcome = normalise_image(image)
    if isinstance(outcome, Skip):
        assert out is None
    else:
        assert out is not None and out.ndim == 3 and out.shape[2] == 3
        assert out.dtype == np.uint8 and out.flags.c_contiguous
        assert out.shape[:2] == image.shape[:2]


def test_guard_returns_the_same_frame_when_nothing_changes():
    guard = FrameGuard()
    frame = Frame(np.zeros((H, W, 3), np.uint8), 0.0, 0)
    assert guard.admit(frame) is frame
    assert guard.size_wh == (W, H)


def test_guard_skips_a_size_change_then_adopts_a_lasting_one():
    guard = FrameGuard(adopt_new_size_after_s=1.0)

    def frame(t: float, size_wh: tuple[int, int]) -> Frame:
        return Frame(np.zeros((size_wh[1], size_wh[0], 3), np.uint8), t, int(t * 10))

    assert isinstance(guard.admit(frame(0.0, (8, 6))), Frame)
    assert guard.admit(frame(0.1, (4, 3))) is Skip.SIZE_CHANGED  # one odd frame
    assert isinstance(guard.admit(frame(0.2, (8, 6))), Frame)
    for t in (0.3, 0.8, 1.2):  # the new size starts at 0.3 s and lasts
        assert guard.admit(frame(t, (16, 12))) is Skip.SIZE_CHANGED
    adopted = guard.admit(frame(1.3, (16, 12)))
    assert isinstance(adopted, Frame) and guard.size_wh == (16, 12)
    assert guard.skipped == {"size_changed": 4}
    guard.reset_size()
    assert isinstance(guard.admit(frame(1.4, (2, 2))), Frame)


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (np.zeros((480, 640), np.float64), "frame must be (H, W, 3) uint8, got (480, 640) float64"),
        (np.zeros((4, 4, 4), np.uint8), "frame must be (H, W, 3) uint8, got (4, 4, 4) uint8"),
        (np.zeros((0, 4, 3), np.uint8), "frame must be (H, W, 3) uint8, got (0, 4, 3) uint8"),
        (None, "frame must be (H, W, 3) uint8, got NoneType"),
    ],
)
def test_check_frame_message(image, message):
    with pytest.raises(ValueError) as err:
        check_frame(image)
    assert str(err.value) == message


def test_check_frame_passes_a_good_frame_through():
    image = np.zeros((2, 3, 3), np.uint8)
    assert check_frame(image) is image


@pytest.mark.parametrize(
    ("value", "allow_zero", "message"),
    [
        (0, False, "fps must be a finite number > 0, got 0"),
        (-1, True, "fps must be a finite number >= 0, got -1"),
        (float("inf"), False, "fps must be a finite number > 0, got inf"),
        (True, False, "fps must be a finite number > 0, got True"),
        ("30", False, "fps must be a finite number > 0, got '30'"),
        (None, False, "fps must be a finite number > 0, got None"),
    ],
)
def test_check_positive_rejects(value, allow_zero, message):
    with pytest.raises(ValueError) as err:
        check_positive("fps", value, allow_zero=allow_zero)
    assert str(err.value) == message


@pytest.mark.parametrize("value", [1, 2.5, np.float32(30), np.int64(7)])
def test_check_positive_accepts(value):
    assert check_positive("fps", value) == float(value)
