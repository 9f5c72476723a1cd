"""Write training shards of the item-matching model:
``python -m models.picmix_match.make_data OUT SEED CLASSES [LOOKS]``.

Each shard (``OUT/shard_SEED.npz``) holds ``LOOKS`` crops of each of ``CLASSES`` pictures:
random art (``art.py``) and the kit's pictograms other than Picmix's 16 items (so that the
kit's own Picmix deck, registered from photos, is art this model never saw too). A crop is
made exactly as at run time: the picture is printed on a paper patch (any paper tint, in any
ink colour or black, sometimes beside a printed code, a divider line or a neighbour, sometimes
partly under a card's edge or a hand), seen under a random look
(``vision.picmix.looks.render_look``: size, turn, perspective, light, blur, noise, JPEG), and
its blob found and cropped by ``vision.picmix.ink`` and ``vision.picmix.crops``. Seeds make it
reproducible; class ids are unique across shards (``SEED * CLASS_STRIDE + k``).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import cv2
import numpy as np

from models.picmix_match.art import art_mask, draw_mask, random_art
from vision.kit.picmix import ITEMS
from vision.kit.pictograms import GLYPH_NAMES, draw_pictogram
from vision.picmix.crops import blob_crops
from vision.picmix.ink import candidates, ink_map
from vision.picmix.looks import render_look

CLASS_STRIDE = 100_000
ART_PX = 64
"""Side (px) at which a picture is printed on its patch before the look shrinks it."""
PICTOGRAMS = tuple(g for g in GLYPH_NAMES if g not in ITEMS)
"""Kit pictograms used in training: all but Picmix's 16 items."""
PICTOGRAM_SHARE = 0.15
"""Share of the classes that draw a kit pictogram (one drawn at random for each such class:
with 67 pictograms, most of them are drawn by several classes; the shipped model was trained
so, see README.md)."""
INKS = (
    (40, 40, 40), (30, 30, 170), (40, 110, 230), (50, 140, 40), (140, 130, 20),
    (170, 60, 30), (110, 40, 30), (130, 40, 120), (140, 90, 220), (40, 70, 120),
    (110, 110, 110), (20, 20, 20),
)  # fmt: skip
"""Ink colours (BGR): black, red, orange, green, teal, blue, navy, purple, pink, brown, grey."""
SKIN = ((150, 180, 225), (120, 155, 205), (95, 125, 175), (65, 90, 135))


def _patch(rng: np.random.Generator, draw: object) -> tuple[np.ndarray, tuple[float, float]]:
    """A paper patch with the picture printed in its middle (``draw(img, box, ink)``), and
    perhaps a code, a line or a neighbour beside it, and a card edge or a hand over part of
    it: (image (S, S, 3) uint8 BGR, the picture's centre)."""
    side = int(ART_PX * rng.uniform(2.6, 3.4))
    paper = np.clip(np.array([245, 245, 245]) - rng.integers(0, 35, 3), 0, 255)
    img = np.empty((side, side, 3), np.uint8)
    img[:] = paper
    c = side / 2.0
    x0 = c - ART_PX / 2
    ink = INKS[int(rng.integers(len(INKS)))]
    reach = ART_PX * 0.5
    if rng.random() < 0.3:  # a printed code beside it
        m = int(ART_PX * rng.uniform(0.5, 0.9))
        ang = rng.uniform(0, 2 * math.pi)
        d = reach + m * 0.75 + rng.uniform(3, 14)
        mx, my = int(c + d * math.cos(ang) - m / 2), int(c + d * math.sin(ang) - m / 2)
        cv2.rectangle(img, (mx, my), (mx + m, my + m), (25, 25, 25), -1)
        q = max(2, m // 6)
        for _ in range(5):
            a, b = rng.integers(1, 5, 2)
            cv2.rectangle(
                img, (mx + a * q, my + b * q), (mx + a * q + q, my + b * q + q), (240,) * 3, -1
            )
    if rng.random() < 0.25:  # a divider line
        off = reach + rng.uniform(4, 12)
        if rng.random() < 0.5:
            xx = int(c + off * rng.choice([-1, 1]))
            cv2.line(img, (xx, 0), (xx, side), tuple(int(v) for v in ink), 1)
        else:
            yy = int(c + off * rng.choice([-1, 1]))
            cv2.line(img, (0, yy), (side, yy), tuple(int(v) for v in ink), 1)
    draw(img, (x0, x0, ART_PX), ink)  # type: ignore[operator]
    if rng.random() < 0.25:  # part of the picture under a card's edge or a hand
        ang = rng.uniform(0, 2 * math.pi)
        depth = rng.uniform(0.05, 0.45) * ART_PX  # how far past the picture's edge it reaches
        n = np.array([math.cos(ang), math.sin(ang)])
        edge = c + (reach - depth) * n  # a point on the cover's edge
        t = np.array([-n[1], n[0]])
        far = side * 2
        poly = np.array([edge + t * far, edge + t * far + n * far, edge - t * far + n * far,
                         edge - t * far])  # fmt: skip
        if rng.random() < 0.6:
            col = tuple(int(v) for v in np.clip(paper - rng.integers(0, 20, 3), 0, 255))
            cv2.fillPoly(img, [np.int32(poly)], col)
            cv2.line(img, tuple(np.int32(edge + t * far)), tuple(np.int32(edge - t * far)),
                     (90, 90, 90), 1)  # fmt: skip
        else:
            col = SKIN[int(rng.integers(len(SKIN)))]
            cv2.fillPoly(img, [np.int32(poly)], col)
    return img, (c, c)


def _drawer(rng: np.random.Generator, cls_seed: int) -> object:
    """``draw(img, box, ink)`` for one class: a kit pictogram (``PICTOGRAM_SHARE`` of the
    classes; mono in the look's ink, or in its own colours) or a random picture (its mask
    drawn once)."""
    crng = np.random.default_rng(cls_seed)
    if crng.random() < PICTOGRAM_SHARE:
        name = PICTOGRAMS[int(crng.integers(len(PICTOGRAMS)))]

        def draw_glyph(img: np.ndarray, box: tuple[float, float, float], ink: tuple) -> None:
            mono = rng.random() < 0.8
            draw_pictogram(img, name, box, colour=ink if mono else None, mono=mono)

        return draw_glyph
    mask = art_mask(random_art(crng), 4 * ART_PX)

    def draw_random(img: np.ndarray, box: tuple[float, float, float], ink: tuple) -> None:
        draw_mask(img, mask, box, ink, tuple(int(v * 0.45) for v in ink))

    return draw_random


def class_looks(cls_seed: int, looks: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``looks`` crops (M, 2, 32, 32) float32 of class ``cls_seed``."""
    draw = _drawer(rng, cls_seed)
    out = []
    for _ in range(looks * 2):
        if len(out) >= looks:
            break
        face, (cx, cy) = _patch(rng, draw)
        img, (x, y), size = render_look(face, (cx, cy, float(ART_PX)), rng)
        im = ink_map(img)
        best, best_d = None, 0.6 * size
        for b in candidates(im):
            d = math.hypot(b.centre_px[0] - x, b.centre_px[1] - y)
            if d < best_d:
                best, best_d = b, d
        if best is not None:
            out.append(blob_crops(im, [best])[0])
    return np.stack(out) if out else np.zeros((0, 2, 32, 32), np.float32)


def make_shard(out: Path, seed: int, classes: int, looks: int = 16) -> Path:
    """``classes`` classes of ``looks`` crops each, saved to ``out/shard_SEED.npz``."""
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    crops, cls = [], []
    for k in range(classes):
        cid = seed * CLASS_STRIDE + k
        c = class_looks(cid, looks, rng)
        if len(c) < 4:
            continue
        crops.append((c * 255).round().astype(np.uint8))
        cls.append(np.full(len(c), cid, np.int64))
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"shard_{seed}.npz"
    part = out / f"shard_{seed}.part.npz"
    np.savez_compressed(part, crops=np.concatenate(crops), cls=np.concatenate(cls))
    part.replace(path)
    return path


if __name__ == "__main__":
    args = sys.argv[1:]
    print(
        make_shard(Path(args[0]), int(args[1]), int(args[2]), int(args[3]) if len(args) > 3 else 16)
    )
