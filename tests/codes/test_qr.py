"""QR reading on generated codes: several codes per frame, duplicates at two places,
inverted, rotated and Micro QR codes; the fusion rules; decoders that fail."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import segno

from tests.codes.helpers import qr_image
from vision.codes import decode_frame
from vision.codes import qr as qr_module
from vision.codes.qr import OPENCV, ZBAR, ZXING, Read, fuse


def _sheet(*tiles: np.ndarray, gap: int = 30) -> np.ndarray:
    h = max(t.shape[0] for t in tiles)
    padded = [cv2.copyMakeBorder(t, 0, h - t.shape[0], 0, gap, cv2.BORDER_CONSTANT,
                                 value=(255, 255, 255)) for t in tiles]  # fmt: skip
    return np.hstack(padded)


def test_several_codes_and_a_duplicate_each_reported_once_per_place():
    a, b = qr_image("card:A", scale=4), qr_image("card:B", scale=4)
    codes = decode_frame(_sheet(a, b, a), dictionaries=())
    assert [c.text for c in codes] == ["card:A", "card:B", "card:A"]  # top-down, left-right
    xs = sorted(float(c.center_px[0]) for c in codes if c.text == "card:A")
    assert xs[1] - xs[0] > a.shape[1]  # the two copies are two places


def test_inverted_rotated_and_micro_codes():
    inverted = 255 - qr_image("light on dark", scale=5)
    assert [c.text for c in decode_frame(inverted, dictionaries=())] == ["light on dark"]

    tilted = qr_image("rotated 33 degrees", scale=5)
    h, w = tilted.shape[:2]
    rot = cv2.getRotationMatrix2D((w / 2, h / 2), 33, 0.8)
    tilted = cv2.warpAffine(tilted, rot, (w, h), borderValue=(255, 255, 255))
    (code,) = decode_frame(tilted, dictionaries=())
    assert code.text == "rotated 33 degrees"
    # Corner 0 is the code's own top-left: the finder pattern corner, rotated with the code.
    upright = decode_frame(qr_image("rotated 33 degrees", scale=5), dictionaries=())[0]
    expected = cv2.transform(upright.corners_px[None], rot)[0]
    assert np.abs(code.corners_px - expected).max() < 4

    micro = segno.make("M1", micro=True)
    buf = np.array(micro.matrix, np.uint8)
    img = np.kron(1 - buf, np.ones((8, 8), np.uint8)) * 255
    img = cv2.copyMakeBorder(img, 24, 24, 24, 24, cv2.BORDER_CONSTANT, value=255)
    assert [c.text for c in decode_frame(img, dictionaries=())] == ["M1"]


def _read(decoder: str, text: str, x: float = 0.0, payload: bytes | None = None) -> Read:
    quad = np.array([[x, 0], [x + 100, 0], [x + 100, 100], [x, 100]], np.float32)
    return Read(decoder, text, payload, quad, "test")


def test_fusion_votes_then_trusts():
    # Two decoders outvote the most trusted one.
    (c,) = fuse([_read(ZXING, "A"), _read(ZBAR, "B"), _read(OPENCV, "B")])
    assert (c.text, c.decoders, c.dissent) == ("B", (ZBAR, OPENCV), (ZXING,))
    # One against one: the more trusted decoder.
    (c,) = fuse([_read(OPENCV, "B"), _read(ZBAR, "A")])
    assert (c.text, c.decoders, c.dissent) == ("A", (ZBAR,), (OPENCV,))
    # The same payload bytes agree, whatever the text; zxing-cpp's text stands.
    (c,) = fuse([_read(ZBAR, "ﾃﾞ?", payload=b"\xc3\xde"), _read(ZXING, "ﾃﾞ", payload=b"\xc3\xde")])
    assert (c.text, c.decoders, c.dissent, c.payload) == ("ﾃﾞ", (ZXING, ZBAR), (), b"\xc3\xde")
    # One decoder twice (two preprocessing steps) is one vote.
    (c,) = fuse([_read(ZBAR, "B"), _read(ZBAR, "B"), _read(ZXING, "A")])
    assert c.text == "A"
    # Two places: two codes, even with the same text.
    assert [c.text for c in fuse([_read(ZXING, "A"), _read(ZXING, "A", x=500)])] == ["A", "A"]


def test_a_failing_decoder_does_not_stop_the_others(monkeypatch: pytest.MonkeyPatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("decoder crashed")

    image = qr_image("still read", scale=5)
    monkeypatch.setattr(qr_module.zxingcpp, "read_barcodes", broken)
    (code,) = decode_frame(image, dictionaries=())
    assert code.text == "still read" and code.decoders == (ZBAR,)

    monkeypatch.setattr(qr_module, "_zbar", lambda: None)  # libzbar missing
    monkeypatch.setattr(qr_module.cv2, "QRCodeDetector", broken)
    assert decode_frame(image, dictionaries=()) == ()  # nothing left to read it: no crash


def test_fallbacks_run_only_when_needed():
    """A clean code is read by the fast pass alone (zxing-cpp, no other decoder); a frame
    without codes only looks for QR finder patterns (nothing was read or located), among
    the marker search's squares when markers are looked for, and rescues nothing."""
    from vision.codes.qr import QrTrace

    trace = QrTrace()
    (code,) = decode_frame(qr_image("fast path", scale=4), dictionaries=(), trace=trace)
    assert trace.steps == ["fast"] and code.decoders == (ZXING,) and code.verified

    blank = np.full((480, 640, 3), 128, np.uint8)
    trace = QrTrace()
    assert decode_frame(blank, (), trace=trace) == ()
    assert trace.steps == ["fast", "finders"]
    trace = QrTrace()
    assert decode_frame(blank, trace=trace) == ()  # the markers' squares serve
    assert trace.steps == ["fast"]
    trace = QrTrace()
    assert decode_frame(blank, (), fallbacks=False, trace=trace) == ()
    assert trace.steps == ["fast"]


def test_large_frame_read_by_the_fast_pass():
    frame = np.full((720, 1280, 3), 235, np.uint8)
    tile = qr_image("card:large", scale=4)
    frame[300 : 300 + tile.shape[0], 900 : 900 + tile.shape[1]] = tile
    (code,) = decode_frame(frame, dictionaries=())
    assert code.text == "card:large" and code.decoders == (ZXING,) and code.verified
    assert code.corners_px[:, 0].min() >= 900 and code.corners_px[:, 0].max() < 900 + tile.shape[1]
