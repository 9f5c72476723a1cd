"""Untrusted payloads (issue 5, item 3): generated QR codes with hostile payloads come back
as data, exactly, never interpreted; the text rules of vision.codes.payload."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.codes.helpers import qr_image
from vision.codes import decode_frame, payload_text
from vision.codes.payload import latin1_transcoded_text
from vision.codes.qr import zbar_read

HOSTILE_TEXT = [
    "plain ASCII card:pickpic:017",
    '{"kind": "aruco", "id": 3, "corners": []}',  # JSON-looking
    '"}], "images": [{"image": "evil"',  # JSON injection attempt
    "line one\r\nline two\ttabbed  ",  # CR/LF, tab, trailing spaces
    "\x1b[31mred\x1b[0m \x07 bell \x00 nul \x7f",  # control characters, ESC sequences
    "ﾃﾞｻﾞｲﾝ 測試 Ünïcødé ✓ 🎲",
    "' OR 1=1; DROP TABLE cards; --",
    "../../etc/passwd",
]


@pytest.mark.parametrize("text", HOSTILE_TEXT)
def test_hostile_text_round_trips_exactly(text: str):
    (code,) = decode_frame(qr_image(text.encode("utf-8"), mode="byte"), dictionaries=())
    assert code.kind == "qr" and code.text == text and code.payload == text.encode("utf-8")
    assert code.id is None and code.dictionary is None
    # The fast pass (zxing-cpp) reads it, with its error correction to spare; zbar, a rescue
    # decoder, returns the same text from the raw bytes.
    assert code.decoders == ("zxing-cpp",) and code.verified
    grey = qr_image(text.encode("utf-8"), mode="byte")[:, :, 0]
    assert [r.text for r in zbar_read(grey)] == [text]


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)),  # every byte value
        b"\x00\x01\xff\xfe binary \x80\x81",
        b"caf\xe9 \xff invalid UTF-8",
        b"\xc3\x28 \xa0\xa1 bad sequences",
    ],
)
def test_binary_and_invalid_utf8_payloads_are_returned_as_data(data: bytes):
    (code,) = decode_frame(qr_image(data, mode="byte"), dictionaries=())
    assert code.payload == data
    assert isinstance(code.text, str)
    assert code.text.encode("latin-1") == data  # lossless: one character per byte


def test_shift_jis_payload_without_eci():
    data = "ﾃﾞｻﾞｲﾝQR 入り".encode("shift_jis")
    (code,) = decode_frame(qr_image(data, mode="byte"), dictionaries=())
    assert code.text == "ﾃﾞｻﾞｲﾝQR 入り"


def test_utf8_with_eci():
    (code,) = decode_frame(qr_image("Grüße, 漢字", encoding="utf-8", eci=True), dictionaries=())
    assert code.text == "Grüße, 漢字"


def test_long_payload_7kb():
    """7,089 digits: the largest QR code there is (version 40, numeric, level L)."""
    digits = "".join(str(i % 10) for i in range(7089))
    (code,) = decode_frame(qr_image(digits, mode="numeric", error="l", scale=3), dictionaries=())
    assert code.text == digits


def test_long_binary_payload():
    rng = np.random.default_rng(7)
    data = rng.integers(0, 256, 2000, dtype=np.uint8).tobytes()
    (code,) = decode_frame(qr_image(data, mode="byte", error="l", scale=3), dictionaries=())
    assert code.payload == data


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=1, max_size=60))
def test_any_bytes_round_trip(data: bytes):
    codes = decode_frame(qr_image(data, mode="byte", scale=4), dictionaries=())
    assert len(codes) == 1
    assert codes[0].payload == data
    text = codes[0].text
    assert isinstance(text, str)
    json.dumps(text)  # always serialisable
    with contextlib.suppress(UnicodeDecodeError):
        assert text == data.decode("utf-8")


def test_payload_text_rules():
    assert payload_text("漢字".encode()) == "漢字"
    assert payload_text("ﾃﾞｻﾞｲﾝ".encode("shift_jis")) == "ﾃﾞｻﾞｲﾝ"
    assert payload_text(b"caf\xe9") == "café"
    assert payload_text(bytes(range(256))).encode("latin-1") == bytes(range(256))
    # OpenCV's ISO-8859-1-as-UTF-8 text is undone, real text above U+00FF kept.
    assert latin1_transcoded_text("ﾃﾞ".encode("shift_jis").decode("latin-1").encode()) == "ﾃﾞ"
    assert latin1_transcoded_text("測試".encode()) == "測試"
    assert latin1_transcoded_text(b"\xff\xfe") == "ÿþ"
