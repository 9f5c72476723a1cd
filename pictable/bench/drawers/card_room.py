"""The room of the second card drawer (``pictable.bench.drawers.cards``): its tables and its
looks (issue 26), in plain numpy and OpenCV from KIT.md, like the drawer (it imports neither
``vision.synth`` nor ``vision.kit``).

- ``table_image``: a table of one of ``TABLES`` (planks of wood with grain and seams, felt,
  laminate, a white table, a checked cloth, dark slate), its colour and scale random.
- ``CARD_LOOKS``: what development looks (the only ones to tune on) and held-back looks
  (never tuned on) draw from, by part: table, card stock, ink, sleeve, light.
  ``scene_look(seed, group)`` draws one from its own stream; ``print_face`` prints a face
  in it. The sleeve and the light are drawn by the drawer (``_Drawing.veil``, the camera's
  white balance).
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

TABLES = ("wood", "felt", "laminate", "white", "check", "slate")
#: Table looks: (colours BGR, large-scale mottle, fine grain); checked cloths: white and one of
#: ``CHECKS_BGR``.
TABLE_LOOKS: dict[str, tuple[list[list[int]], float, float]] = {
    "wood": ([[110, 160, 200], [50, 75, 110], [60, 90, 160], [150, 162, 172]], 0.0, 0.04),
    "felt": ([[60, 110, 30], [120, 60, 20], [40, 40, 130], [90, 90, 90], [35, 35, 38]], 0.04, 0.03),
    "laminate": ([[150, 170, 185], [175, 175, 170], [120, 140, 150], [190, 200, 205]], 0.02, 0.035),
    "white": ([[236, 238, 240], [228, 234, 238]], 0.015, 0.02),
    "slate": ([[55, 55, 60], [45, 48, 50], [70, 68, 65]], 0.08, 0.05),
}
CHECKS_BGR = ([60, 60, 200], [170, 100, 40], [70, 140, 60], [50, 50, 50])
#: Looks (issue 26): what each group draws from, by part. ``dev`` looks are the only ones to
#: tune on; ``held`` looks (their tables, papers, inks and sleeves) are never tuned on. Without
#: a group (``looks=None``) a scene has any table and the kit's print, bare, as it always had.
CARD_LOOKS: dict[str, dict[str, tuple[str, ...]]] = {
    "dev": {
        "table": ("wood", "felt", "laminate"),
        "paper": ("white", "bright"),
        "ink": ("fresh", "rich"),
        "sleeve": ("none", "matt"),
        "light": ("neutral", "warm"),
    },
    "held": {
        "table": ("white", "check", "slate"),
        "paper": ("cream", "grey"),
        "ink": ("fresh", "faded"),
        "sleeve": ("none", "glossy"),
        "light": ("neutral", "cool"),
    },
}
#: Card stock tints (B, G, R multipliers); inks (contrast against the paper, saturation);
#: sleeves (haze range, sheen range; reach 1-2 mm); lamps (white balance, B, G, R).
PAPERS = {"white": (1.0, 1.0, 1.0), "bright": (1.0, 0.98, 0.96), "cream": (0.84, 0.93, 1.0),
          "grey": (0.9, 0.9, 0.88)}  # fmt: skip
INKS = {"fresh": (1.0, 1.0), "rich": (1.0, 1.25), "faded": (0.7, 0.65)}
SLEEVES = {"none": ((0.0, 0.0), (0.0, 0.0)), "matt": ((0.06, 0.13), (0.0, 0.0)),
           "glossy": ((0.02, 0.06), (0.15, 0.4))}  # fmt: skip
LAMPS = {"neutral": (1.0, 1.0, 1.0), "warm": (0.85, 0.96, 1.07), "cool": (1.1, 1.0, 0.88)}
#: The looks' own random stream (the drawers use 51 and 52 for their scenes and claims): a
#: scene's cards and camera are the same under every look of a group.
LOOKS_STREAM = 53


def field_noise(
    rng: np.random.Generator, a: NDArray[Any], b: NDArray[Any], cell: float
) -> NDArray[np.float32]:
    """Smooth noise of about unit deviation over coordinates ``a``, ``b`` (any unit), its
    grain ``cell`` of those units (bicubic over a random grid)."""
    a0, b0 = float(a.min()), float(b.min())
    gw = min(int((float(a.max()) - a0) / cell) + 4, 4000)
    gh = min(int((float(b.max()) - b0) / cell) + 4, 4000)
    grid = rng.normal(0, 1, (gh, gw)).astype(np.float32)
    ma, mb = (a - a0) / cell + 1, (b - b0) / cell + 1
    out = cv2.remap(grid, ma, mb, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)
    return np.asarray(out / max(float(out.std()), 1e-6), np.float32)


def table_image(
    rng: np.random.Generator, x: NDArray[np.float32], y: NDArray[np.float32], kind: str
) -> NDArray[np.float32]:
    """A table of ``kind`` (``TABLES``) seen at the table points ``x``, ``y`` (mm, one per
    pixel): (H, W, 3) float32 BGR."""
    phi = rng.uniform(0, math.pi)
    u = np.float32(math.cos(phi)) * x + np.float32(math.sin(phi)) * y
    v = -np.float32(math.sin(phi)) * x + np.float32(math.cos(phi)) * y
    if kind == "check":
        c = np.array(CHECKS_BGR[int(rng.integers(len(CHECKS_BGR)))], np.float32)
        white, strength, size = rng.uniform(225, 245), rng.uniform(0.35, 0.8), rng.uniform(12, 35)
        bands = (np.mod(np.floor(u / size), 2) + np.mod(np.floor(v / size), 2)) / 2
        img = white + strength * bands.astype(np.float32)[:, :, None] * (c - white)
        return np.asarray(img * (1 + 0.03 * field_noise(rng, x, y, 1.0))[:, :, None], np.float32)
    colours, mottle, grain = TABLE_LOOKS[kind]
    base = np.array(colours[int(rng.integers(len(colours)))], np.float32)
    if kind == "wood":  # planks with grain along them, dark seams between them
        width, period = rng.uniform(90, 200), rng.uniform(3, 8)
        plank = np.floor(v / width).astype(np.int64)
        tones = rng.normal(0, 0.07, 64).astype(np.float32)
        wobble = field_noise(rng, u / 40, v / 4, 1.0)
        shade = 1 + tones[plank % 64] + 0.06 * np.sin(2 * np.pi * (v / period + 1.2 * wobble))
        shade += grain * field_noise(rng, u / 30, v / 1.5, 1.0)
        across = np.mod(v, width)
        shade *= np.where(np.minimum(across, width - across) < 0.8, 0.55, 1.0).astype(np.float32)
    else:
        shade = (
            1
            + mottle * field_noise(rng, x, y, rng.uniform(15, 40))
            + grain * field_noise(rng, x, y, 1.0)
        )
    tint = np.float32(rng.uniform(0.9, 1.06)) * rng.uniform(0.97, 1.03, 3).astype(np.float32)
    return np.asarray(shade[:, :, None] * base * tint, np.float32)


def scene_look(seed: int, group: str | None) -> dict[str, Any]:
    """The look of scene ``seed`` in the group ``group`` (``CARD_LOOKS``), drawn from its own
    stream: names by part and the numbers drawn for them (the table's texture from
    ``table_seed``). ``None``: the default look (any table, drawn from the scene's stream,
    kit print, no sleeve, neutral lamp)."""
    if group is None:
        return {"table": None, "paper": "white", "ink": "fresh", "sleeve": "none",
                "light": "neutral", "haze": 0.0, "sheen": 0.0, "reach": 0.0}  # fmt: skip
    if group not in CARD_LOOKS:
        raise ValueError(f"looks {group!r}: one of {sorted(CARD_LOOKS)}")
    r = np.random.default_rng([seed, LOOKS_STREAM])
    out: dict[str, Any] = {k: str(r.choice(v)) for k, v in CARD_LOOKS[group].items()}
    haze, sheen = SLEEVES[out["sleeve"]]
    out.update(
        table_seed=int(r.integers(2**31)),
        haze=float(r.uniform(*haze)),
        sheen=float(r.uniform(*sheen)),
        reach=float(r.uniform(1.0, 2.0)) if out["sleeve"] != "none" else 0.0,
    )
    return out


def print_face(face: NDArray[np.float32], look: dict[str, Any]) -> NDArray[np.float32]:
    """The face as printed with the look's ink on its paper (unchanged by the default)."""
    contrast, saturation = INKS[look["ink"]]
    paper = np.asarray(PAPERS[look["paper"]], np.float32)
    if contrast == 1.0 and saturation == 1.0 and np.all(paper == 1.0):
        return face
    grey = cv2.cvtColor(np.clip(face, 0, 255), cv2.COLOR_BGR2GRAY)[:, :, None]
    f = grey + np.float32(saturation) * (face - grey)
    f = 255.0 - np.float32(contrast) * (255.0 - f)
    return np.asarray(np.clip(f, 0, 255) * paper, np.float32)
