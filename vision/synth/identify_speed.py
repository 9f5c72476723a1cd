"""The identification speed benchmark's tables, for the benchmark and the tests alike.

``speed_frames(n, seed)``: ``n`` normal-tier 1280 x 720 frames with 12 Pick Pic cards
(``random_cards_scene``, 1 in 4 face down); frame ``i`` draws its spec from, and renders
with, seed ``seed * 1000 + i``. With ``cache_dir``, frames are kept as PNG under
``<cache_dir>/speed-<seed>/`` (lossless: the tier's JPEG compression is already in the
frame), so a second use reads them back.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np


def speed_frames(
    n: int, seed: int = 7, cache_dir: str | os.PathLike[str] | None = None
) -> list[np.ndarray]:
    """``n`` normal-tier 1280 x 720 frames with 12 Pick Pic cards (1 in 4 face down)."""
    from vision.synth import random_cards_scene, render_scene

    frames = []
    folder = None if cache_dir is None else Path(cache_dir) / f"speed-{seed}"
    for i in range(n):
        path = None if folder is None else folder / f"{i:04d}.png"
        if path is not None and path.is_file():
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is not None:
                frames.append(img)
                continue
        rng = np.random.default_rng(seed * 1000 + i)
        spec = random_cards_scene(rng, "normal", 12, "pickpic")
        frame, _ = render_scene(spec, seed=seed * 1000 + i)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(path), frame)
        frames.append(frame)
    return frames
