"""Flat pictures photographed through a rough camera: identify by pictures with a small deck.

Eight of scikit-image's sample pictures are registered as a deck (``pictable deck register``
does the same with photos of cards); those eight and four distractors not in the deck are
each "photographed" ``per_picture`` times: warped onto a gravel background (a turn of up to
40 degrees, the far side shrunk by up to 35% for a steep view, the picture 12-80% of the
frame's fit), then dimmed (x0.3-1.1), noised, blurred (sigma up to 2.5 px) and JPEG-coded
(quality 25-90), 1000 x 700. Each photo is read as ``pictable identify PHOTO --deck`` reads
it. A reported card is *right* when it is the picture photographed and its centre lies on
it (its outline *off* when a corner is more than 10% of the picture's height from the
truth), else *wrong*; a deck picture with no right report is *missed*.

    python -m pictable.bench.readers.flat_pictures [--seed 0] [--min-scale 0.3] [--per-picture 4]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

DECK = (
    "astronaut",
    "coffee",
    "chelsea",
    "rocket",
    "hubble_deep_field",
    "retina",
    "motorcycle",
    "coins",
)
DISTRACTORS = ("camera", "moon", "brick", "page")
FRAME_WH = (1000, 700)


def _picture(name: str) -> np.ndarray:
    import cv2

    from vision.kit.photos import _source_rgb

    return np.asarray(cv2.cvtColor(np.ascontiguousarray(_source_rgb(name)), cv2.COLOR_RGB2BGR))


def photograph(
    picture: np.ndarray, rng: np.random.Generator, min_scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """A rough photo (H, W, 3) uint8 of ``picture`` and its true corners (4, 2) in it."""
    import cv2

    w_f, h_f = FRAME_WH
    bg = cv2.resize(_picture("gravel"), FRAME_WH)
    bg = (bg.astype(np.float32) * rng.uniform(0.4, 1.0)).clip(0, 255).astype(np.uint8)
    h, w = picture.shape[:2]
    scale = rng.uniform(min_scale, 0.8) * min(w_f / w, h_f / h)
    cx, cy = rng.uniform(0.35, 0.65) * w_f, rng.uniform(0.35, 0.65) * h_f
    ang = np.radians(rng.uniform(-40, 40))
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    corners = corners * scale @ np.array([[np.cos(ang), np.sin(ang)], [-np.sin(ang), np.cos(ang)]])
    tilt, side = rng.uniform(0, 0.35), int(rng.integers(4))
    mid = corners.mean(axis=0)
    for f in (side, (side + 1) % 4):  # the far side, shrunk: a steep view
        corners[f] = mid + (corners[f] - mid) * (1 - tilt)
    dst = (corners + np.array([cx, cy])).astype(np.float32)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    hom = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(picture, hom, FRAME_WH)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), hom, FRAME_WH)
    frame = np.where(mask[..., None] > 0, warped, bg).astype(np.float32)
    frame = frame * rng.uniform(0.3, 1.1) + rng.normal(0, rng.uniform(1, 6), frame.shape)
    out = frame.clip(0, 255).astype(np.uint8)
    sigma = rng.uniform(0, 2.5)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    _, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
    return np.asarray(cv2.imdecode(enc, cv2.IMREAD_COLOR)), dst.astype(np.float64)


def run(
    seed: int = 0,
    min_scale: float = 0.3,
    per_picture: int = 4,
    deck: Sequence[str] = DECK,
    distractors: Sequence[str] = DISTRACTORS,
) -> dict[str, Any]:
    """The counts (right, wrong, missed, off), the wrong reports and the median ms a photo."""
    import cv2

    from vision.identify import identify_frame, open_deck
    from vision.identify.deck import register

    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"photos": 0, "right": 0, "wrong": 0, "missed": 0, "off": 0}
    wrong: list[dict[str, Any]] = []
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        register("flat", [(n, _picture(n)) for n in deck], Path(tmp))
        cards = open_deck("flat", Path(tmp))
        for name in [*deck, *distractors]:
            for k in range(per_picture):
                frame, truth = photograph(_picture(name), rng, min_scale)
                t = time.perf_counter()
                got = identify_frame(frame, cards, codes="fast", features=True, precise=True)
                times.append(time.perf_counter() - t)
                out["photos"] += 1
                poly = truth.astype(np.float32).reshape(-1, 1, 2)
                height = float(np.linalg.norm(truth[0] - truth[3]))
                found = False
                for c in got.cards:
                    centre = c.corners_px.mean(axis=0)
                    on = cv2.pointPolygonTest(poly, (float(centre[0]), float(centre[1])), False)
                    if c.card == name and on >= 0:
                        found = True
                        off = np.linalg.norm(c.corners_px - truth, axis=1).max()
                        out["off"] += int(off > 0.1 * height)
                    else:
                        out["wrong"] += 1
                        wrong.append({"photo": f"{name}/{k}", "card": c.card,
                                      "confidence": round(c.confidence, 3),
                                      "evidence": list(c.evidence)})  # fmt: skip
                if name in deck:
                    out["right" if found else "missed"] += 1
    out["wrong_reports"] = wrong
    out["ms_median"] = round(1000.0 * float(np.median(times)), 1) if times else None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-scale", type=float, default=0.3, help="smallest picture (0-0.8)")
    ap.add_argument("--per-picture", type=int, default=4, help="photos of each picture")
    args = ap.parse_args(argv)
    print(json.dumps(run(args.seed, args.min_scale, args.per_picture), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
