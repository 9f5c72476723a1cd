"""QR codes in ZXing's real photos (``zxing-qrcode/qrcode-1..6``): exact text against
``<stem>.txt``.

Every runner returns ``{"codes": [{"kind": "qr", "text": ..., "corners": ...}]}`` (the
``pictable decode`` entry). Payload text is handled the way a careful caller would:

- pyzbar returns bytes. zbar has already transcoded the payload to UTF-8 by its own guess of the
  character set, so the bytes are decoded as UTF-8, falling back to Shift-JIS, then Latin-1
  (:func:`payload_text`) for anything else.
- zxing-cpp is asked for ``TextMode.Plain``: the payload transcoded by its ECI or guessed
  character set, nothing escaped. Its default ``TextMode.HRI`` renders control characters as
  ``<SOH>``, which is not the payload (qrcode-2/33 starts with 0x01 0x10).
- OpenCV returns byte-mode payloads as ISO-8859-1 text (the QR default without an ECI), so
  Shift-JIS and UTF-8 payloads come back as mojibake. The text is turned back into its bytes and
  decoded like pyzbar's. ``text_as_returned`` keeps what the library gave, scored separately.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from pictable.bench.adapters import codes_adapter, entries
from pictable.bench.core import (
    CallFailed,
    DataSource,
    Metric,
    Runner,
    RunnerSpec,
    Sample,
    Score,
    Settings,
    Task,
)
from pictable.bench.data import natural_key, require_dir, spread
from pictable.bench.tasks.common import dist_version, opencv_version

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".bmp")


def payload_text(data: bytes) -> str:
    """Text of a QR payload's bytes: UTF-8, else Shift-JIS, else Latin-1 (never raises).

    Shift-JIS comes second because Japanese QR codes commonly carry it without an ECI; Latin-1
    last because it accepts every byte string.
    """
    for encoding in ("utf-8", "shift_jis"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            pass
    return data.decode("latin-1")


def from_latin1_text(text: str) -> str:
    """A payload OpenCV decoded as ISO-8859-1, decoded again by :func:`payload_text` (text
    with characters above U+00FF is already real text and is kept)."""
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        return text
    return payload_text(raw)


def _corners(points: Any) -> list[list[float]] | None:
    if points is None:
        return None
    arr = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    return arr.tolist()


# ---- samples -----------------------------------------------------------------------------


def load_samples(settings: Settings) -> list[Sample]:
    """Every image of ``zxing-qrcode/qrcode-*`` that has a ``<stem>.txt``, in natural order
    (then :func:`spread` down to ``settings.limit``)."""
    root = require_dir(settings.data_dir, "zxing-qrcode")
    samples: list[Sample] = []
    for folder in sorted(
        (p for p in root.iterdir() if p.is_dir()), key=lambda p: natural_key(p.name)
    ):
        images = [p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
        for image in sorted(images, key=lambda p: natural_key(p.name)):
            truth_file = image.with_suffix(".txt")
            if not truth_file.is_file():
                continue
            # Exact bytes: CR/LF and trailing spaces are part of the payload.
            text = truth_file.read_bytes().decode("utf-8")
            samples.append(Sample(id=f"{folder.name}/{image.stem}", path=image, truth=text))
    return spread(samples, settings.limit)


# ---- plain-library runners -----------------------------------------------------------------


def pyzbar_runner(samples: Sequence[Sample]) -> Runner:
    """pyzbar alone: ``pyzbar.decode(grey, symbols=[QRCODE])``."""
    import cv2
    from pyzbar import pyzbar

    symbols = [pyzbar.ZBarSymbol.QRCODE]

    def run(frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        codes = [
            {
                "kind": "qr",
                "text": payload_text(found.data),
                "text_as_returned": found.data.decode("utf-8", errors="replace"),
                "corners": _corners([(p.x, p.y) for p in found.polygon]),
            }
            for found in pyzbar.decode(grey, symbols=symbols)
        ]
        return {"codes": codes}

    return run


def zxingcpp_runner(samples: Sequence[Sample]) -> Runner:
    """zxing-cpp alone: ``read_barcodes(frame, formats=QRCode, text_mode=Plain)`` (library
    defaults otherwise: try_rotate, try_downscale, try_invert)."""
    import zxingcpp

    fmt = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
    mode = zxingcpp.TextMode.Plain

    def run(frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        codes = []
        for found in zxingcpp.read_barcodes(frame, formats=fmt, text_mode=mode):
            pos = found.position
            corners = [pos.top_left, pos.top_right, pos.bottom_right, pos.bottom_left]
            codes.append(
                {
                    "kind": "qr",
                    "text": found.text,
                    "text_as_returned": found.text,
                    "corners": [[float(p.x), float(p.y)] for p in corners],
                }
            )
        return {"codes": codes}

    return run


def opencv_runner(samples: Sequence[Sample], multi: bool = False) -> Runner:
    """OpenCV alone: ``QRCodeDetector().detectAndDecode(frame)`` (or ``detectAndDecodeMulti``).

    OpenCV raises ``cv2.error`` on some payload modes ("mode 13 not implemented"); the harness
    counts that as an error and a miss.
    """
    import cv2

    detector = cv2.QRCodeDetector()

    def run(frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        if multi:
            ok, texts, points, _ = detector.detectAndDecodeMulti(frame)
            found = list(zip(texts, points, strict=True)) if ok and points is not None else []
        else:
            text, points, _ = detector.detectAndDecode(frame)
            found = [(text, points)] if points is not None else []
        codes = [
            {
                "kind": "qr",
                "text": from_latin1_text(text) if text else None,
                "text_as_returned": text or None,
                "corners": _corners(pts),
            }
            for text, pts in found
        ]
        return {"codes": codes}

    return run


# ---- scoring -------------------------------------------------------------------------------


def _short(text: str | None, n: int = 24) -> str:
    if text is None:
        return "None"
    return repr(text if len(text) <= n else text[:n] + "…")


def score(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Exact-text scoring of one expected payload per image.

    An image is *correct* when the expected text is among the QR texts read; it is a *misread*
    when any text read differs from it (a wrong id is worse than none; both can happen on one
    image). A code found without text (undecodable payload) is neither. ``misreads_ascii``
    counts misreads of images whose true payload is ASCII (issue 5's bar).
    """
    correct = misreads = misreads_ascii = correct_raw = 0
    by_folder: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    misread_notes: list[str] = []
    correct_ids: list[str] = []
    misread_ids: list[str] = []
    for sample, output in zip(samples, outputs, strict=True):
        expected: str = sample.truth
        folder = sample.id.split("/")[0]
        totals[folder] += 1
        codes = [] if isinstance(output, CallFailed) else entries(output, "codes")
        qr = [c for c in codes if c.get("kind", "qr") == "qr"]
        texts = [c.get("text") for c in qr]
        raw = [c.get("text_as_returned", c.get("text")) for c in qr]
        if expected in texts:
            correct += 1
            by_folder[folder] += 1
            correct_ids.append(sample.id)
        if expected in raw:
            correct_raw += 1
        wrong = [t for t in texts if t is not None and t != expected]
        if wrong:
            misreads += 1
            misread_ids.append(sample.id)
            misreads_ascii += expected.isascii()
            misread_notes.append(f"{sample.id}: {_short(wrong[0])} for {_short(expected)}")
    notes = [
        "by folder: "
        + ", ".join(
            f"{f} {by_folder[f]}/{n}"
            for f, n in sorted(totals.items(), key=lambda kv: natural_key(kv[0]))
        )
    ]
    if misread_notes:
        shown = misread_notes[:4]
        more = len(misread_notes) - len(shown)
        notes.append("misreads: " + "; ".join(shown) + (f"; and {more} more" if more else ""))
    return Score(
        metrics={
            "correct": correct,
            "misreads": misreads,
            "misreads_ascii": misreads_ascii,
            "correct_as_returned": correct_raw,
        },
        notes=notes,
        details={"correct": correct_ids, "misread": misread_ids, "by_folder": dict(by_folder)},
    )


METRICS = (
    Metric("correct", "correct", "count", "higher", of="samples"),
    Metric("misreads", "misread images", "count", "lower", of="samples"),
    Metric("misreads_ascii", "misread ASCII", "int", "lower"),
    Metric("correct_as_returned", "correct, text as returned", "count", None, of="samples"),
)

RUNNERS = (
    RunnerSpec.planned(
        "vision.codes:decode_frame",
        label="pictable decode",
        adapter=codes_adapter,
    ),
    RunnerSpec.library(
        "zxing-cpp",
        "zxing-cpp alone (read_barcodes, QRCode, TextMode.Plain)",
        zxingcpp_runner,
        version=functools.partial(dist_version, "zxing-cpp"),
    ),
    RunnerSpec.library(
        "pyzbar",
        "pyzbar alone (decode, QRCODE, grey)",
        pyzbar_runner,
        version=functools.partial(dist_version, "pyzbar"),
    ),
    RunnerSpec.library(
        "opencv",
        "OpenCV QRCodeDetector.detectAndDecode",
        opencv_runner,
        version=opencv_version,
    ),
    RunnerSpec.library(
        "opencv-multi",
        "OpenCV QRCodeDetector.detectAndDecodeMulti",
        functools.partial(opencv_runner, multi=True),
        version=opencv_version,
    ),
)

TASK = Task(
    name="qr-real",
    title="QR codes in ZXing's real photos",
    source=DataSource(
        "real", "zxing-qrcode/qrcode-1..6 (real photos and web images)", load_samples
    ),
    score=score,
    metrics=METRICS,
    runners=RUNNERS,
    description=(
        "One expected payload per image (`<stem>.txt`), compared exactly (CR/LF and trailing "
        "spaces included). *correct*: the expected text is among the texts read; *misread "
        "images*: some text read is not the expected one; *misread ASCII*: misreads of ASCII "
        "payloads; *correct, text as returned*: without the payload re-decoding described "
        "below (OpenCV's ISO-8859-1 text kept as is, pyzbar's bytes as UTF-8). "
        "Bias: zxing-cpp's own test suite ships these folders."
    ),
)
