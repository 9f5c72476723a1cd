"""QR payload handling and exact-text scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from pictable.bench.core import CallFailed, Sample
from pictable.bench.tasks.qr import from_latin1_text, payload_text, score


def _sample(sid: str, text: str) -> Sample:
    return Sample(id=sid, path=Path(f"/nonexistent/{sid}.png"), truth=text)


def _codes(*texts: str | None) -> dict[str, object]:
    return {"codes": [{"kind": "qr", "text": t, "corners": None} for t in texts]}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"hello", "hello"),
        ("測試".encode(), "測試"),
        ("ﾃﾞｻﾞｲﾝQR".encode("shift_jis"), "ﾃﾞｻﾞｲﾝQR"),
        (b"\xff\xfe\xfa", "\xff\xfe\xfa"),  # neither UTF-8 nor Shift-JIS: Latin-1
        (b"\x01\x10AD", "\x01\x10AD"),
    ],
)
def test_payload_text(data: bytes, expected: str) -> None:
    assert payload_text(data) == expected


def test_opencv_latin1_text_is_decoded_again() -> None:
    mojibake = "ﾃﾞｻﾞｲﾝQR".encode("shift_jis").decode("latin-1")
    assert from_latin1_text(mojibake) == "ﾃﾞｻﾞｲﾝQR"
    assert from_latin1_text("already 測試") == "already 測試"


def test_a_misread_counts_as_a_misread_not_as_correct() -> None:
    samples = [
        _sample("qrcode-1/1", "http://example.com"),
        _sample("qrcode-1/2", "ABC"),
        _sample("qrcode-2/3", "ﾃﾞｻﾞｲﾝ"),
        _sample("qrcode-2/4", "exact\r\n  "),
        _sample("qrcode-2/5", "x"),
    ]
    outputs = [
        _codes("http://example.com"),  # correct
        _codes("ABD"),  # misread of an ASCII payload
        _codes("蹬靼翌"),  # misread of a non-ASCII payload
        _codes("exact\r\n"),  # trailing spaces matter: misread
        CallFailed("error: boom"),  # a crash is a miss, not a misread
    ]
    result = score(samples, outputs, None)
    assert result.metrics["correct"] == 1
    assert result.metrics["misreads"] == 3
    assert result.metrics["misreads_ascii"] == 2
    assert result.details["misread"] == ["qrcode-1/2", "qrcode-2/3", "qrcode-2/4"]


def test_right_and_wrong_text_on_one_image_is_both_correct_and_misread() -> None:
    result = score([_sample("a/1", "A")], [_codes("A", "B")], None)
    assert result.metrics["correct"] == 1
    assert result.metrics["misreads"] == 1


def test_a_code_without_text_is_not_a_misread() -> None:
    result = score([_sample("a/1", "A")], [_codes(None)], None)
    assert result.metrics == {
        "correct": 0,
        "misreads": 0,
        "misreads_ascii": 0,
        "correct_as_returned": 0,
    }


def test_text_as_returned_is_scored_separately() -> None:
    out = {"codes": [{"kind": "qr", "text": "ﾃﾞ", "text_as_returned": "ÃÞ"}]}
    result = score([_sample("a/1", "ﾃﾞ")], [out], None)
    assert result.metrics["correct"] == 1
    assert result.metrics["correct_as_returned"] == 0
