"""Rendered identification scenes with ground truth, for the benchmark and the tests.

Three kinds of scene, all from :func:`vision.synth.random_cards_scene` with 1 to 12 cards
(``rng.integers(1, 13)``), the play-area markers 0-3, and the tier's hands, overlap, light
and sensor effects:

- ``codes``: Pick Pic cards, mostly face up (1 in 4 face down, the generator's default);
- ``features``: Pick Pic cards, all face up (a picture is only on the front);
- ``unknown``: face-up cards of which each is, with probability 1/2, swapped for a Pic Flip
  card (same size, not in the Pick Pic deck).

Scene ``i`` of a run with seed ``seed`` uses ``seed * 100003 + i`` (as
``vision.synth.write_render``), so scenes are the same whatever ``n`` is asked. Frames can
be cached as PNG (lossless: the tier's JPEG compression is already in the frame) with their
``Truth`` as JSON.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.synth import Truth, random_cards_scene, render_scene
from vision.synth.card_looks import card_look

SCENE_KINDS: tuple[str, ...] = ("codes", "features", "unknown")
#: Seed stride between runs (``vision.synth.write_render`` uses the same).
SEED_STRIDE = 100003
#: The deck whose cards replace half the cards of ``unknown`` scenes.
FOREIGN_DECK = "picflip"


def scene_seed(seed: int, index: int) -> int:
    """The render seed of scene ``index`` of a run with ``seed``."""
    return seed * SEED_STRIDE + index


def make_scene(
    kind: str, tier: str, seed: int, looks: str | None = None
) -> tuple[np.ndarray, Truth]:
    """Render one scene of ``kind`` (see the module docstring) for the render seed ``seed``,
    in a look of the group ``looks`` (``vision.synth.card_looks``: ``dev`` or ``held``;
    ``None`` or ``kit``: the kit look).

    Returns the frame, (720, 1280, 3) uint8 BGR, and its ``Truth``.
    """
    if kind not in SCENE_KINDS:
        raise ValueError(f"unknown scene kind {kind!r}; expected one of {list(SCENE_KINDS)}")
    look = card_look(seed, looks)
    rng = np.random.default_rng(seed)
    n_cards = int(rng.integers(1, 13))
    face = None if kind == "codes" else "front"
    spec = random_cards_scene(rng, tier, n_cards, "pickpic", face=face, look=look)
    if kind == "unknown":
        from vision.kit import load_deck

        foreign = list(load_deck(FOREIGN_DECK).ids)
        picks = rng.permutation(len(foreign))
        cards = []
        for k, card in enumerate(spec.cards):
            if rng.random() < 0.5:
                card = dataclasses.replace(card, card_id=foreign[int(picks[k])])
            cards.append(card)
        spec = dataclasses.replace(spec, cards=tuple(cards))
    return render_scene(spec, seed=seed)


def scenes(
    kind: str,
    tier: str,
    n: int,
    seed: int = 0,
    cache_dir: str | Path | None = None,
    looks: str | None = None,
) -> Iterator[tuple[int, np.ndarray, Truth]]:
    """Scenes ``0 .. n-1`` of a run: (index, frame (H, W, 3) uint8 BGR, Truth), in looks of
    the group ``looks`` (see ``make_scene``).

    With ``cache_dir``, each scene is read from ``<cache_dir>/<kind>-<tier>-<seed>/`` (with
    ``-<looks>`` after it for a look group) when there, and written there after rendering
    otherwise.
    """
    name = f"{kind}-{tier}-{seed}" + (f"-{looks}" if looks not in (None, "kit") else "")
    folder = None if cache_dir is None else Path(cache_dir) / name
    for i in range(n):
        s = scene_seed(seed, i)
        if folder is not None:
            png, js = folder / f"{i:05d}.png", folder / f"{i:05d}.json"
            if png.is_file() and js.is_file():
                frame = cv2.imread(str(png), cv2.IMREAD_COLOR)
                if frame is not None:
                    truth = Truth.from_json(json.loads(js.read_text(encoding="utf-8")))
                    yield i, frame, truth
                    continue
        frame, truth = make_scene(kind, tier, s, looks)
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{i:05d}.png"), frame)
            (folder / f"{i:05d}.json").write_text(json.dumps(truth.to_json()), encoding="utf-8")
        yield i, frame, truth


def _render_main() -> None:
    """``python -m vision.identify.scenes KIND TIER N [SEED] [CACHE] [START]``: fill a cache."""
    import sys

    kind, tier, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    cache = sys.argv[5] if len(sys.argv) > 5 else "cache/identify"
    for i, _, _ in scenes(kind, tier, n, seed, cache):
        if i % 25 == 0:
            print(kind, tier, i, flush=True)


if __name__ == "__main__":
    _render_main()
