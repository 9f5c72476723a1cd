"""Which QR decoder to trust when decoders disagree: the measurement behind
``vision.codes.qr.TRUST``.

Run: ``.venv/bin/python -m tests.codes.qr_trust [DATA_DIR]``. Every decoder of the fused
reader, on every ZXing photo under every preprocessing step the reader uses (whole image),
with the payload decoding the reader uses; counts texts read right and wrong, and lists the
wrong ones. A wrong text is a misread the fusion must outvote.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import cv2

from tests.codes.qr_bar import load_samples
from tests.conftest import data_dir
from vision.codes.qr import (
    RESCUE_STEPS,
    opencv_aruco_read,
    opencv_curved_read,
    opencv_read,
    zbar_read,
    zxing_read,
)


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else data_dir()
    if root is None:
        print("no shared data folder (set PICTABLE_DATA)", file=sys.stderr)
        return 2
    decoders = {
        "zxing-cpp local": lambda g: zxing_read(g, "local")[0],
        "zxing-cpp global": lambda g: zxing_read(g, "global")[0],
        "zbar (raw bytes)": zbar_read,
        "opencv": opencv_read,
        "opencv-aruco": opencv_aruco_read,
        "opencv-curved": opencv_curved_read,
    }
    right: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    notes: list[str] = []
    samples = load_samples(root)
    for s in samples:
        grey = cv2.imread(str(s.path), cv2.IMREAD_GRAYSCALE)
        images = [("grey", grey)] + [(st.name, st.transform(grey)[0]) for st in RESCUE_STEPS]
        for step, img in images:
            for name, read in decoders.items():
                for r in read(img):
                    if r.text == s.truth:
                        right[name] += 1
                    else:
                        wrong[name] += 1
                        notes.append(
                            f"{name} on {s.id} ({step}): {r.text[:30]!r} for {s.truth[:30]!r}"
                        )
    print(f"{len(samples)} images x {1 + len(RESCUE_STEPS)} preprocessing steps")
    print(f"{'decoder':18} {'right':>6} {'wrong':>6}")
    for name in decoders:
        print(f"{name:18} {right[name]:>6} {wrong[name]:>6}")
    for n in notes:
        print("wrong:", n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
