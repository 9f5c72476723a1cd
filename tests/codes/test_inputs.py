"""Malformed and unusual inputs never crash the reader: a clear ValueError for what is not
an image, and every image of any size, dtype or channel count is read."""

from __future__ import annotations

import time

import cv2
import numpy as np
import pytest

from tests.codes.helpers import qr_image
from vision.codes import decode_frame, to_grey

TEXT = "card:picflip:103"


@pytest.fixture(scope="module")
def qr_bgr() -> np.ndarray:
    return qr_image(TEXT, scale=5)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (None, "got NoneType"),
        ([[0, 255], [255, 0]], "got list"),
        ("photo.png", "got str"),
        (np.zeros(10, np.uint8), r"got \(10,\) uint8"),
        (np.zeros((4, 4, 3, 2), np.uint8), r"got \(4, 4, 3, 2\) uint8"),
        (np.zeros((4, 4, 5), np.uint8), r"got \(4, 4, 5\) uint8"),
        (np.zeros((0, 0, 3), np.uint8), r"got \(0, 0, 3\) uint8"),
        (np.zeros((5, 0), np.uint8), r"got \(5, 0\) uint8"),
        (np.zeros((4, 4), np.complex64), r"got \(4, 4\) complex64"),
        (np.zeros((4, 4), object), r"got \(4, 4\) object"),
        (np.array([["a"]]), "<U1"),
    ],
)
def test_non_images_raise_a_clear_value_error(frame: object, message: str):
    with pytest.raises(ValueError, match=r"frame must be an image array: .*" + message):
        decode_frame(frame)  # type: ignore[arg-type]


@pytest.mark.parametrize("shape", [(1, 1), (1, 1, 3), (2, 3, 4), (1, 5000), (3, 3, 1)])
def test_tiny_and_thin_images_give_no_codes(shape: tuple[int, ...]):
    assert decode_frame(np.full(shape, 200, np.uint8)) == ()


def _variants(bgr: np.ndarray) -> dict[str, np.ndarray]:
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    transparent = np.zeros((*grey.shape, 4), np.uint8)  # black ink on a transparent sheet
    transparent[:, :, 3] = 255 - grey
    grey_alpha = np.stack([np.zeros_like(grey), 255 - grey], axis=2)
    return {
        "grey": grey,
        "grey (H, W, 1)": grey[:, :, None],
        "grey + alpha": grey_alpha,
        "BGRA, transparent background": transparent,
        "uint16": grey.astype(np.uint16) * 257,
        "12-bit in uint16": (grey.astype(np.uint16) * 16),
        "float32 0..1": grey.astype(np.float32) / 255,
        "float64 with NaN and inf": np.where(grey > 0, np.inf, np.nan).astype(np.float64),
        "int32, negative": grey.astype(np.int32) - 1000,
        "bool": grey > 127,
        "non-contiguous view": np.ascontiguousarray(np.pad(bgr, ((0, 0), (0, 0), (0, 1))))[
            :, :, :3
        ],
        "Fortran order": np.asfortranarray(bgr),
        "read-only": np.lib.stride_tricks.as_strided(bgr, writeable=False),
    }


@pytest.mark.parametrize("name", list(_variants(np.zeros((2, 2, 3), np.uint8))))
def test_every_kind_of_image_is_read(qr_bgr: np.ndarray, name: str):
    frame = _variants(qr_bgr)[name]
    codes = decode_frame(frame)
    assert [c.text for c in codes] == [TEXT], name


def test_huge_image_is_shrunk_and_corners_are_in_frame_pixels():
    """A 10000 x 10000 frame is read within bounded time, and the code's corners come back in
    the frame's own pixels."""
    frame = np.full((10000, 10000), 255, np.uint8)
    code = cv2.cvtColor(qr_image(TEXT, scale=40, border=0), cv2.COLOR_BGR2GRAY)  # 840 px
    y0, x0 = 6000, 3000
    frame[y0 : y0 + code.shape[0], x0 : x0 + code.shape[1]] = code
    t0 = time.perf_counter()
    (found,) = decode_frame(frame, dictionaries=())
    assert time.perf_counter() - t0 < 20
    assert found.text == TEXT
    side = code.shape[0]
    truth = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], float)
    assert np.abs(found.corners_px - truth).max() < 25  # a module is 40 px here


def test_to_grey_scale_and_size():
    g = to_grey(np.zeros((9000, 100, 3), np.uint16))
    assert g.pixels.dtype == np.uint8 and max(g.pixels.shape) <= 4096
    assert g.size_wh == (100, 9000)
    assert g.scale_xy == (100 / g.pixels.shape[1], 9000 / g.pixels.shape[0])
    assert to_grey(np.zeros((3, 4), np.uint8)).scale_xy == (1.0, 1.0)


def test_codes_are_frozen_readings(qr_bgr: np.ndarray):
    (code,) = decode_frame(qr_bgr)
    with pytest.raises(AttributeError):
        code.text = "other"  # type: ignore[misc]
    with pytest.raises(ValueError):
        code.corners_px[0, 0] = 1.0
    assert code == decode_frame(qr_bgr)[0]
    assert len({code, decode_frame(qr_bgr)[0]}) == 1
