"""Writing rendered frames and their truth to disk (the hook behind a CLI command).

Layout of ``write_render(out_dir, kind, tier, n, seed)``:

- still kinds (``cards``, ``picasso``, ``picmix``): ``frame_00000.png`` ... and one
  ``truth.jsonl`` with a line per frame: ``{"frame": name, "index": i, "kind": kind,
  "tier": tier, "seed": scene_seed, "truth": {...}}``;
- sequence kinds (``picasso_turn``, ``picmix_claim``, ``pickpic_round``, ...): one folder per
  sequence, ``seq_000/``, holding its frames, ``truth.jsonl`` (as above plus ``"t"``)
  and ``events.jsonl`` (the docs/formats.md event log a perfect tracker would emit).

Scene ``i`` of a run uses seed ``seed * 100003 + i``, so any frame can be rendered again
alone. With ``image_format="jpg"`` the frame's JPEG round trip is the file itself.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth.generators import random_cards_scene, random_picasso_board, random_picmix_claim
from vision.synth.render import render_scene
from vision.synth.sequences import SEQUENCE_KINDS, render_sequence
from vision.synth.spec import SceneSpec
from vision.synth.textures import TextureProvider, default_provider
from vision.synth.tiers import get_tier

STILL_KINDS: tuple[str, ...] = ("cards", "picasso", "picmix")
KINDS: tuple[str, ...] = STILL_KINDS + SEQUENCE_KINDS


def scene_seed(seed: int, index: int) -> int:
    """The seed of scene ``index`` in a run seeded ``seed``."""
    return int(seed) * 100003 + int(index)


def random_spec(
    kind: str, tier: str, seed: int, provider: TextureProvider | None = None
) -> SceneSpec:
    """The still scene spec of ``kind`` for ``seed``."""
    rng = np.random.default_rng(seed)
    if kind == "cards":
        return random_cards_scene(rng, tier, int(rng.integers(4, 13)), provider=provider)
    if kind == "picasso":
        return random_picasso_board(rng, tier)
    if kind == "picmix":
        return random_picmix_claim(rng, tier, provider=provider)
    raise ValueError(f"unknown still kind {kind!r}; expected one of {list(STILL_KINDS)}")


def write_render(
    out_dir: str | Path,
    kind: str,
    tier: str = "normal",
    n: int = 10,
    seed: int = 0,
    *,
    fps: float = 10.0,
    image_format: str = "png",
    provider: TextureProvider | None = None,
) -> dict[str, Any]:
    """Render ``n`` scenes (or sequences) of ``kind`` and write frames and truth.

    Args:
        out_dir: folder to write into (created).
        kind: ``cards``, ``picasso``, ``picmix``, ``picasso_turn``, ``picmix_claim``,
            ``pickpic_round``, ``pickpic_session`` or ``picflip_game``.
        tier: ``easy``, ``normal`` or ``hard``.
        n: number of scenes (stills) or sequences.
        seed: run seed.
        fps: frames per second of sequences.
        image_format: ``png`` (lossless) or ``jpg``.
        provider: card art; ``default_provider()`` when None.

    Returns:
        a summary: ``{"out_dir", "kind", "tier", "frames", "files": [...]}``.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; expected one of {list(KINDS)}")
    if image_format not in ("png", "jpg"):
        raise ValueError(f"image_format must be 'png' or 'jpg', got {image_format!r}")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    get_tier(tier)
    provider = provider or default_provider()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    frames = 0
    if kind in STILL_KINDS:
        with open(out / "truth.jsonl", "w", encoding="utf-8") as sink:
            for i in range(n):
                s = scene_seed(seed, i)
                spec = random_spec(kind, tier, s, provider)
                quality = spec.effects.jpeg_quality
                if image_format == "jpg":
                    spec = replace(spec, effects=replace(spec.effects, jpeg_quality=None))
                frame, truth = render_scene(spec, s, provider)
                name = f"frame_{i:05d}.{image_format}"
                _write_image(out / name, frame, image_format, quality)
                files.append(name)
                frames += 1
                line = {
                    "frame": name,
                    "index": i,
                    "kind": kind,
                    "tier": tier,
                    "seed": s,
                    "truth": truth.to_json(),
                }
                sink.write(json.dumps(line) + "\n")
        files.append("truth.jsonl")
    else:
        for j in range(n):
            s = scene_seed(seed, j)
            seq = render_sequence(kind, s, tier, fps, provider=provider)
            folder = out / f"seq_{j:03d}"
            folder.mkdir(exist_ok=True)
            with open(folder / "events.jsonl", "w", encoding="utf-8") as ev:
                for e in seq.events:
                    ev.write(json.dumps(e) + "\n")
            with open(folder / "truth.jsonl", "w", encoding="utf-8") as sink:
                for fr in seq:
                    name = f"frame_{fr.index:05d}.{image_format}"
                    _write_image(folder / name, fr.frame, image_format, None)
                    frames += 1
                    line = {
                        "frame": name,
                        "index": fr.index,
                        "t": fr.t,
                        "kind": kind,
                        "tier": tier,
                        "seed": s,
                        "truth": fr.truth.to_json(),
                    }
                    sink.write(json.dumps(line) + "\n")
            files.append(folder.name)
    return {"out_dir": str(out), "kind": kind, "tier": tier, "frames": frames, "files": files}


def _write_image(path: Path, frame: np.ndarray, image_format: str, quality: int | None) -> None:
    params = [cv2.IMWRITE_JPEG_QUALITY, int(quality or 95)] if image_format == "jpg" else []
    if not cv2.imwrite(str(path), frame, params):
        raise OSError(f"could not write {path}")
