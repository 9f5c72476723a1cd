"""False markers per dictionary: the measurement behind ``DEFAULT_DICTIONARIES``.

Run: ``.venv/bin/python -m tests.codes.aruco_fp [DATA_DIR]``. For every predefined dictionary,
alone: markers found in the ZXing QR photos and in the photos without markers (chessboards,
feature scenes), which are all false; markers found in OpenCV's ArUco photos that are not the
photo's own markers (false too); and the median time per image (CPU, one thread).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from tests.conftest import data_dir
from vision.codes.aruco import PREDEFINED, detect_markers, load_dictionary
from vision.codes.image import to_grey

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def _images(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)


def _own_markers(aruco: Path) -> dict[str, list[np.ndarray]]:
    """Each ArUco photo's true marker centres (px)."""
    own: dict[str, list[np.ndarray]] = {}
    for gt_path in aruco.glob("*.gt.json"):
        gt = json.loads(gt_path.read_text(encoding="utf-8"))
        own[gt["image"]] = [np.mean(m["corners"], axis=0) for m in gt.get("markers", [])]
    return own


def measure(root: Path) -> list[dict[str, object]]:
    cv2.setNumThreads(1)
    qr = [to_grey(cv2.imread(str(p))).pixels for p in _images(root / "zxing-qrcode")]
    plain = [
        to_grey(cv2.imread(str(p))).pixels
        for sub in ("opencv-calib-left", "opencv-features")
        for p in _images(root / sub)
    ]
    aruco_dir = root / "opencv-aruco"
    own = _own_markers(aruco_dir)
    aruco = [(p.name, to_grey(cv2.imread(str(p))).pixels) for p in _images(aruco_dir)]
    rows = []
    for name in PREDEFINED:
        d = (load_dictionary(name),)
        times, on_qr = [], 0
        for g in qr:
            t0 = time.process_time()
            on_qr += len(detect_markers(g, d))
            times.append(time.process_time() - t0)
        on_plain = sum(len(detect_markers(g, d)) for g in plain)
        stray = 0
        for image_name, g in aruco:
            centres = own.get(image_name, [])
            for m in detect_markers(g, d):
                if not any(np.linalg.norm(m.center_px - c) < 5 for c in centres):
                    stray += 1
        rows.append(
            {
                "dictionary": name,
                "codes": len(d[0]),
                "false_on_qr": on_qr,
                "false_on_plain": on_plain,
                "stray_on_aruco": stray,
                "median_ms": 1000 * float(np.median(times)),
            }
        )
    return rows


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else data_dir()
    if root is None:
        print("no shared data folder (set PICTABLE_DATA)", file=sys.stderr)
        return 2
    n_qr = len(_images(root / "zxing-qrcode"))
    print(
        f"{'dictionary':24} {'codes':>5} {'false/QR(' + str(n_qr) + ')':>13} "
        f"{'false/plain':>11} {'stray/aruco':>11} {'ms/QR img':>9}"
    )
    for r in measure(root):
        print(
            f"{r['dictionary']:24} {r['codes']:>5} {r['false_on_qr']:>13} "
            f"{r['false_on_plain']:>11} {r['stray_on_aruco']:>11} {r['median_ms']:>9.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
