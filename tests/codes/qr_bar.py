"""Issue 5's bar on ZXing's real QR photos: the fused reader against each library alone, on
the same images in the same run.

Run: ``.venv/bin/python -m tests.codes.qr_bar [DATA_DIR] [--verbose]`` (prints per-folder
counts, misreads and times); ``tests/codes/test_qr_bar.py`` asserts the bar in CI.

Scoring (as ``pictable bench``'s qr-real task): an image is *correct* when its expected text
(``<stem>.txt``, compared exactly: CR/LF and trailing spaces included) is among the QR texts
read; it is *misread* when any text read differs from it; a misread counts against the bar
when the expected text is ASCII.

The libraries alone are called the plain way a user would, and their payloads decoded the
way a careful caller would (pyzbar's bytes as UTF-8, else Shift-JIS, else Latin-1; OpenCV's
ISO-8859-1 text turned back into bytes first), so the comparison is about reading, not about
character sets.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from tests.conftest import data_dir
from vision.codes import decode_frame
from vision.codes.payload import latin1_transcoded_text, payload_text

Reader = Callable[[np.ndarray], list[str]]


@dataclass(frozen=True)
class Sample:
    id: str  # "qrcode-2/17"
    path: Path
    truth: str


def natural_key(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def load_samples(root: Path) -> list[Sample]:
    """Every image of ``zxing-qrcode/qrcode-*`` with a ``<stem>.txt``, in natural order."""
    samples = []
    base = root / "zxing-qrcode"
    for folder in sorted(
        (p for p in base.iterdir() if p.is_dir()), key=lambda p: natural_key(p.name)
    ):
        images = [p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".gif")]
        for image in sorted(images, key=lambda p: natural_key(p.name)):
            truth = image.with_suffix(".txt")
            if truth.is_file():
                text = truth.read_bytes().decode("utf-8")
                samples.append(Sample(f"{folder.name}/{image.stem}", image, text))
    return samples


# ---- the readers -----------------------------------------------------------------------------


def zxingcpp_alone(frame: np.ndarray) -> list[str]:
    """``zxingcpp.read_barcodes(frame, formats=QRCode, text_mode=Plain)``, defaults otherwise."""
    import zxingcpp

    found = zxingcpp.read_barcodes(
        frame, formats=[zxingcpp.BarcodeFormat.QRCode], text_mode=zxingcpp.TextMode.Plain
    )
    return [r.text for r in found]


def pyzbar_alone(frame: np.ndarray) -> list[str]:
    """``pyzbar.decode(grey, symbols=[QRCODE])``; bytes decoded by ``payload_text``."""
    from pyzbar import pyzbar

    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return [payload_text(r.data) for r in pyzbar.decode(grey, symbols=[pyzbar.ZBarSymbol.QRCODE])]


def opencv_alone(frame: np.ndarray) -> list[str]:
    """``cv2.QRCodeDetector().detectAndDecode(frame)``; its ISO-8859-1 text re-decoded."""
    try:
        text, _, _ = cv2.QRCodeDetector().detectAndDecode(frame)
    except cv2.error:  # "mode 13 not implemented" (Hanzi): a miss
        return []
    return [latin1_transcoded_text(text.encode("utf-8"))] if text else []


def fused(frame: np.ndarray) -> list[str]:
    """``vision.codes.decode_frame`` (QR only: markers are not part of this bar)."""
    return [
        c.text
        for c in decode_frame(frame, dictionaries=())
        if c.kind == "qr" and c.text is not None
    ]


READERS: dict[str, Reader] = {
    "zxing-cpp": zxingcpp_alone,
    "pyzbar": pyzbar_alone,
    "opencv": opencv_alone,
    "fused": fused,
}


# ---- scoring ---------------------------------------------------------------------------------


@dataclass
class Score:
    name: str
    correct: int = 0
    total: int = 0
    by_folder: dict[str, list[int]] = field(default_factory=dict)  # folder -> [correct, total]
    misreads: list[str] = field(default_factory=list)  # "id: got ... expected ..."
    misreads_ascii: int = 0
    correct_ids: set[str] = field(default_factory=set)
    seconds: list[float] = field(default_factory=list)  # CPU seconds per image

    @property
    def median_ms(self) -> float:
        return 1000 * float(np.median(self.seconds)) if self.seconds else 0.0


def score(
    name: str, reader: Reader, samples: Sequence[Sample], frames: Sequence[np.ndarray]
) -> Score:
    """Run ``reader`` on every frame (CPU time per image) and score it."""
    s = Score(name)
    for sample, frame in zip(samples, frames, strict=True):
        t0 = time.process_time()
        texts = reader(frame)
        s.seconds.append(time.process_time() - t0)
        folder = sample.id.split("/")[0]
        counts = s.by_folder.setdefault(folder, [0, 0])
        counts[1] += 1
        s.total += 1
        if sample.truth in texts:
            s.correct += 1
            counts[0] += 1
            s.correct_ids.add(sample.id)
        wrong = [t for t in texts if t != sample.truth]
        if wrong:
            s.misreads.append(
                f"{sample.id}: read {wrong[0][:40]!r}, expected {sample.truth[:40]!r}"
            )
            s.misreads_ascii += sample.truth.isascii()
    return s


def run_all(
    root: Path, names: Sequence[str] = tuple(READERS)
) -> tuple[list[Sample], dict[str, Score]]:
    """All ``names`` readers on the same frames, in one run."""
    samples = load_samples(root)
    frames = [cv2.imread(str(s.path), cv2.IMREAD_COLOR) for s in samples]
    return samples, {name: score(name, READERS[name], samples, frames) for name in names}


def report(scores: dict[str, Score]) -> str:
    folders = sorted({f for s in scores.values() for f in s.by_folder}, key=natural_key)
    head = f"{'reader':10} {'correct':>8} " + " ".join(f"{f[-8:]:>9}" for f in folders)
    head += f" {'misread':>7} {'ASCII':>5} {'median ms':>9} {'mean ms':>7}"
    lines = [head]
    for s in scores.values():
        cells = " ".join(f"{s.by_folder[f][0]:>4}/{s.by_folder[f][1]:<4}" for f in folders)
        mean = 1000 * float(np.mean(s.seconds)) if s.seconds else 0.0
        lines.append(
            f"{s.name:10} {s.correct:>4}/{s.total:<3} {cells} {len(s.misreads):>7} "
            f"{s.misreads_ascii:>5} {s.median_ms:>9.1f} {mean:>7.1f}"
        )
    for s in scores.values():
        for m in s.misreads:
            lines.append(f"misread by {s.name}: {m}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    args = [a for a in argv if a != "--verbose"]
    root = Path(args[0]) if args else data_dir()
    if root is None:
        print("no shared data folder (set PICTABLE_DATA)", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    samples, scores = run_all(root)
    print(f"{len(samples)} images, CPU time per image (one OpenCV thread)")
    print(report(scores))
    best = max((s for n, s in scores.items() if n != "fused"), key=lambda s: s.correct)
    f = scores["fused"]
    print(
        f"bar: fused {f.correct} vs best single library {best.name} {best.correct}; "
        f"misread ASCII payloads: {f.misreads_ascii}"
    )
    if verbose:
        only = sorted(f.correct_ids - best.correct_ids, key=natural_key)
        lost = sorted(best.correct_ids - f.correct_ids, key=natural_key)
        print("fused only:", ", ".join(only) or "-")
        print(f"{best.name} only:", ", ".join(lost) or "-")
        print(
            "missed by all:",
            ", ".join(
                s.id for s in samples if all(s.id not in sc.correct_ids for sc in scores.values())
            ),
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
