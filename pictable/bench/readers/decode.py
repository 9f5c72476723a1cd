"""``pictable decode`` against the plain libraries it is built on, timed in the same run
(issue 27).

Run: ``.venv/bin/python -m pictable.bench.readers.decode [--quick] [--steps]``, or
``pictable bench --tasks reader-decode`` (which keeps the figures for BENCHMARKS.md).

- **QR codes**, ZXing's photos (``zxing-qrcode/qrcode-1..6`` of the shared data folder, the
  development set): for each image in turn, zxing-cpp alone (``read_barcodes`` on the BGR
  frame, QRCode, ``TextMode.Plain``: as the ``qr-real`` task calls it), the QR reader
  (``decode_frame(frame, dictionaries=())``) and ``pictable decode`` as the command runs it
  (``decode_frame(frame)``: QR codes and the default marker dictionaries), each timed
  ``repeats`` times, interleaved so that the machine's load falls on all alike; each image's
  time is the median of its calls, and the figures are the mean and the median over the
  images. Bar: the QR reader's mean at most twice zxing-cpp's, reading every photo that any
  of its decoders reads alone (zxing-cpp, pyzbar, OpenCV), with no misread text reported
  verified.
- **Markers**, rendered tables (``vision.identify.scenes.scenes("codes", "normal", 20, 0)``,
  1280x720): the marker reader (``detect_markers`` with the kit's DICT_4X4_50) against
  ``cv2.aruco.ArucoDetector(DICT_4X4_50).detectMarkers``, on the same grey frames,
  interleaved as above. Bar: at most 1.5 times OpenCV's mean, the same markers (ids and
  corners). The default dictionaries against OpenCV's detector given the same five
  (``detectMarkersMultiDict``) are reported too.

Times are wall-clock milliseconds on one thread (``cv2.setNumThreads(1)``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Timed calls per image and per reader, by profile; rendered tables measured.
PROFILES: dict[str, dict[str, int]] = {
    "quick": {"repeats": 3, "scenes": 10},
    "full": {"repeats": 5, "scenes": 20},
}
TARGETS = {"qr_ratio": 2.0, "aruco_ratio": 1.5}
KIT_DICTIONARY = "DICT_4X4_50"


def _timed(fns: Sequence[Callable[[], Any]], repeats: int) -> tuple[list[float], list[Any]]:
    """Each of ``fns`` called ``repeats`` times, in turn: (median ms per fn, last outputs)."""
    times: list[list[float]] = [[] for _ in fns]
    outs: list[Any] = [None] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter_ns()
            outs[k] = fn()
            times[k].append((time.perf_counter_ns() - t0) / 1e6)
    return [float(np.median(t)) for t in times], outs


def _stats(ms: Sequence[float]) -> dict[str, float]:
    return {"mean_ms": float(np.mean(ms)), "median_ms": float(np.median(ms))}


def measure_qr(data_dir: Path, repeats: int) -> dict[str, Any]:
    """The QR figures on ZXing's photos (see the module docstring)."""
    import cv2
    import zxingcpp

    from pictable.bench.tasks.qr import from_latin1_text, payload_text
    from vision.codes import decode_frame

    base = data_dir / "zxing-qrcode"
    folders = sorted((p for p in base.iterdir() if p.is_dir()), key=lambda p: _natural(p.name))
    paths = [
        p
        for folder in folders
        for p in sorted(folder.iterdir(), key=lambda p: _natural(p.name))
        if p.suffix.lower() in (".png", ".jpg", ".gif") and p.with_suffix(".txt").is_file()
    ]
    fmt = zxingcpp.BarcodeFormats(zxingcpp.BarcodeFormat.QRCode)
    plain = zxingcpp.TextMode.Plain
    detector = cv2.QRCodeDetector()

    def zbar_alone(frame: np.ndarray) -> list[str]:
        from pyzbar import pyzbar

        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        found = pyzbar.decode(grey, symbols=[pyzbar.ZBarSymbol.QRCODE])
        return [payload_text(r.data) for r in found]

    def opencv_alone(frame: np.ndarray) -> list[str]:
        try:
            text, _, _ = detector.detectAndDecode(frame)
        except cv2.error:
            return []
        return [from_latin1_text(text)] if text else []

    rows: list[dict[str, Any]] = []
    for path in paths:
        frame = _read(path)
        truth = path.with_suffix(".txt").read_bytes().decode("utf-8")

        def zxing_alone(f: np.ndarray = frame) -> Any:
            return zxingcpp.read_barcodes(f, formats=fmt, text_mode=plain)

        def qr_reader(f: np.ndarray = frame) -> Any:
            return decode_frame(f, dictionaries=())

        def command(f: np.ndarray = frame) -> Any:
            return decode_frame(f)

        (zx_ms, qr_ms, all_ms), (zx, qr, _) = _timed([zxing_alone, qr_reader, command], repeats)
        codes = [c for c in qr if c.kind == "qr"]
        rows.append(
            {
                "id": f"{path.parent.name}/{path.stem}",
                "zxing_ms": zx_ms,
                "qr_ms": qr_ms,
                "decode_ms": all_ms,
                "right": truth in [c.text for c in codes],
                "misread": any(c.text not in (None, truth) for c in codes),
                "misread_verified": any(c.verified and c.text not in (None, truth) for c in codes),
                "unverified": any(not c.verified for c in codes),
                "zxing_right": truth in [r.text for r in zx],
                "any_library_right": truth in [r.text for r in zx]
                or truth in zbar_alone(frame)
                or truth in opencv_alone(frame),
            }
        )
    return {"rows": rows}


def measure_markers(n_scenes: int, repeats: int) -> dict[str, Any]:
    """The marker figures on rendered tables (see the module docstring)."""
    import cv2

    from pictable.bench.tasks.synth import default_cache_dir
    from vision.codes.aruco import DEFAULT_DICTIONARIES, detect_markers, resolve_dictionaries
    from vision.identify.scenes import scenes

    def opencv(names: Sequence[str]) -> Callable[[np.ndarray], Any]:
        dicts = [cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, n)) for n in names]
        det = cv2.aruco.ArucoDetector(dicts[0])
        if len(dicts) == 1:
            return det.detectMarkers
        det.setDictionaries(dicts)
        return det.detectMarkersMultiDict

    cache = default_cache_dir() / "decode-scenes"
    frames = [
        cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
        for _, f, _ in scenes("codes", "normal", n_scenes, 0, cache)
    ]
    out: dict[str, Any] = {}
    for label, names in (("kit", [KIT_DICTIONARY]), ("default", list(DEFAULT_DICTIONARIES))):
        mine = resolve_dictionaries(names)
        theirs = opencv(names)
        ours_ms: list[float] = []
        cv_ms: list[float] = []
        same = markers = 0
        for grey in frames:

            def ours(g: np.ndarray = grey, d: Any = mine) -> Any:
                return detect_markers(g, d)

            def opencv_alone(g: np.ndarray = grey, f: Any = theirs) -> Any:
                return f(g)

            (a_ms, b_ms), (found, ref) = _timed([ours, opencv_alone], repeats)
            ours_ms.append(a_ms)
            cv_ms.append(b_ms)
            corners, ids = ref[0], ref[1]
            expected = sorted(
                (int(i), tuple(np.round(np.asarray(c).reshape(-1), 2)))
                for c, i in zip(corners, [] if ids is None else ids.ravel(), strict=True)
            )
            got = sorted((m.id or 0, tuple(np.round(m.corners_px.reshape(-1), 2))) for m in found)
            markers += len(expected)
            same += got == expected
        out[label] = {
            "dictionaries": names,
            "pictable": _stats(ours_ms),
            "opencv": _stats(cv_ms),
            "ratio": float(np.mean(ours_ms) / np.mean(cv_ms)),
            "frames_same": same,
            "frames": len(frames),
            "markers": markers,
        }
    return out


def _read(path: Path) -> np.ndarray:
    import cv2

    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError(f"cannot read {path}")
    return np.asarray(frame)


def _natural(name: str) -> list[object]:
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def summarise(qr: dict[str, Any], markers: dict[str, Any]) -> dict[str, Any]:
    """``{"title", "summary", "markdown"}`` of :func:`report` from the measurements."""
    rows = qr["rows"]
    zx = _stats([r["zxing_ms"] for r in rows])
    mine = _stats([r["qr_ms"] for r in rows])
    full = _stats([r["decode_ms"] for r in rows])
    ratio = mine["mean_ms"] / zx["mean_ms"]
    right = sum(r["right"] for r in rows)
    union = [r for r in rows if r["any_library_right"]]
    lost = [r["id"] for r in union if not r["right"]]
    misread_verified = sum(r["misread_verified"] for r in rows)
    kit = markers["kit"]
    summary = [
        {
            "figure": f"QR reader mean ms per photo / zxing-cpp alone's ({len(rows)} photos, "
            "same run)",
            "value": f"{mine['mean_ms']:.2f} / {zx['mean_ms']:.2f} = {ratio:.2f}x "
            f"(medians {mine['median_ms']:.2f} / {zx['median_ms']:.2f})",
            "target": f"<= {TARGETS['qr_ratio']:.1f}x",
            "met": ratio <= TARGETS["qr_ratio"],
        },
        {
            "figure": "photos read right (every one a plain library reads alone included)",
            "value": f"{right} / {len(rows)}; zxing-cpp alone {sum(r['zxing_right'] for r in rows)}"
            f", any plain library {len(union)}" + (f"; lost: {', '.join(lost)}" if lost else ""),
            "target": f">= {len(union)}, none lost",
            "met": not lost,
        },
        {
            "figure": "photos with a misread text / reported verified / with an unverified code",
            "value": f"{sum(r['misread'] for r in rows)} / {misread_verified} / "
            f"{sum(r['unverified'] for r in rows)}",
            "target": "0 misread reported verified",
            "met": misread_verified == 0,
        },
        {
            "figure": "pictable decode (QR and default markers) mean / median ms per photo",
            "value": f"{full['mean_ms']:.2f} / {full['median_ms']:.2f} "
            f"({full['mean_ms'] / zx['mean_ms']:.1f}x zxing-cpp's mean)",
            "target": "reported",
            "met": None,
        },
        {
            "figure": f"marker reader mean ms per table / OpenCV ArucoDetector's "
            f"({KIT_DICTIONARY}, {kit['frames']} rendered tables)",
            "value": f"{kit['pictable']['mean_ms']:.1f} / {kit['opencv']['mean_ms']:.1f} = "
            f"{kit['ratio']:.2f}x (medians {kit['pictable']['median_ms']:.1f} / "
            f"{kit['opencv']['median_ms']:.1f}); same markers on {kit['frames_same']} / "
            f"{kit['frames']} tables ({kit['markers']} markers)",
            "target": f"<= {TARGETS['aruco_ratio']:.1f}x, same markers",
            "met": kit["ratio"] <= TARGETS["aruco_ratio"] and kit["frames_same"] == kit["frames"],
        },
        {
            "figure": "marker reader, the 5 default dictionaries / OpenCV given the same 5",
            "value": f"{markers['default']['pictable']['mean_ms']:.1f} / "
            f"{markers['default']['opencv']['mean_ms']:.1f} = "
            f"{markers['default']['ratio']:.2f}x; same markers on "
            f"{markers['default']['frames_same']} / {markers['default']['frames']} tables",
            "target": "reported",
            "met": None,
        },
    ]
    slowest = sorted(rows, key=lambda r: -r["qr_ms"])[:8]
    lines = [
        "## Code reader speed (`pictable decode`, issue 27)",
        "",
        "The QR reader and `pictable decode` beside zxing-cpp alone on ZXing's real QR photos "
        "(the development set), calls interleaved photo by photo; the kit's marker reader "
        "beside OpenCV's ArucoDetector on 20 rendered tables (`python -m "
        "pictable.bench.readers.decode`).",
        "",
        "| figure | value | target | met |",
        "|---|---|---|---|",
        *(
            f"| {s['figure']} | {s['value']} | {s['target']} | "
            f"{'-' if s['met'] is None else ('yes' if s['met'] else 'no')} |"
            for s in summary
        ),
        "",
        "Slowest photos for the QR reader (ms: QR reader / zxing-cpp alone): "
        + ", ".join(f"{r['id']} {r['qr_ms']:.1f} / {r['zxing_ms']:.2f}" for r in slowest),
    ]
    return {"title": "Code reader speed (pictable decode)", "summary": summary,
            "markdown": "\n".join(lines)}  # fmt: skip


def report(profile: str) -> dict[str, Any]:
    """The benchmark hook of ``pictable bench`` (task ``reader-decode``)."""
    import cv2

    from pictable.bench.data import find_data_dir

    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {profile!r}")
    cv2.setNumThreads(1)
    p = PROFILES[profile]
    qr = measure_qr(find_data_dir(), p["repeats"])
    markers = measure_markers(p["scenes"], p["repeats"])
    return summarise(qr, markers)


def _print_steps(data_dir: Path) -> None:
    """What each QR rescue step reads, and costs, on the photos where the fast pass leaves
    a code seen but not read."""

    from vision.codes import decode_frame
    from vision.codes import qr as qr_module

    real_run = qr_module.Step.run
    log: list[str] = []

    def spy(self: qr_module.Step, crop: np.ndarray) -> list[Any]:
        t0 = time.perf_counter_ns()
        out = real_run(self, crop)
        log.append(
            f"{self.name} {crop.shape[1]}x{crop.shape[0]} "
            f"{(time.perf_counter_ns() - t0) / 1e6:.1f} ms {[r.text[:24] for r in out]}"
        )
        return out

    qr_module.Step.run = spy  # type: ignore[method-assign,assignment]
    try:
        for path in sorted((data_dir / "zxing-qrcode").glob("*/*")):
            if path.suffix.lower() not in (".png", ".jpg", ".gif"):
                continue
            log.clear()
            trace = qr_module.QrTrace()
            codes = decode_frame(_read(path), trace=trace)
            if trace.steps != ["fast"]:
                marks = [
                    f"{(c.text or '')[:24]!r}{'' if c.verified else ' (unverified)'}" for c in codes
                ]
                print(f"{path.parent.name}/{path.stem}: {' '.join(trace.steps)} -> {marks}")
                for line in log:
                    print("   ", line)
    finally:
        qr_module.Step.run = real_run  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pictable.bench.readers.decode")
    parser.add_argument("--quick", action="store_true", help="3 timed calls, 10 tables")
    parser.add_argument("--steps", action="store_true", help="print the QR rescue steps run")
    args = parser.parse_args(argv)
    import cv2

    from pictable.bench.data import find_data_dir

    cv2.setNumThreads(1)
    if args.steps:
        _print_steps(find_data_dir())
        return 0
    out = report("quick" if args.quick else "full")
    print(out["markdown"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
