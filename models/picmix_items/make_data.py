"""Write training shards of the item model: ``python -m models.picmix_items.make_data OUT SEED N``.

Each shard (``OUT/shard_SEED.npz``) holds the crops, classes and visible shares of the blobs of
``N`` composed scenes (``compose.py``); seeds make it reproducible.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from models.picmix_items.compose import compose_scene, effects, scene_samples
from vision.kit.pictograms import GLYPH_NAMES

VARIANTS = 3
"""Light and sensor variants of each composed scene."""


def make_shard(out: Path, seed: int, n: int) -> Path:
    """Compose ``n`` scenes from ``seed``, each seen under ``VARIANTS`` random effects, and
    save their labelled crops to ``out``."""
    index = {name: i for i, name in enumerate(GLYPH_NAMES)}
    rng = np.random.default_rng(seed)
    crops, cls, vis = [], [], []
    for _ in range(n):
        scene = compose_scene(rng)
        for _ in range(VARIANTS):
            s = scene_samples(scene, index, effects(rng, scene.image))
            crops.append((s.crops * 255).round().astype(np.uint8))
            cls.append(s.cls)
            vis.append(s.visible)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"shard_{seed}.npz"
    part = out / f"shard_{seed}.part.npz"  # renamed when complete: readers never see half
    np.savez_compressed(
        part, crops=np.concatenate(crops), cls=np.concatenate(cls), visible=np.concatenate(vis)
    )
    part.replace(path)
    return path


if __name__ == "__main__":
    print(make_shard(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
