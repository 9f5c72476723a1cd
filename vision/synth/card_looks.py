"""Card looks (issue 26): how the synthetic camera can draw the cards and the room of a card
scene, split into *development* looks and *held-back* looks.

The card readers were tuned on one look: the kit's art printed on white stock, bare, on the
tables of ``vision.synth.tiers.sample_table`` under the tier's tint. A player's cards may be
printed on cream or grey stock, faded or dark, kept in matt or glossy sleeves, and lie on a
checked cloth or a stone table under warm or cool light. The benchmark measures the readers
on looks of three groups (``CARD_LOOK_GROUPS``): ``dev`` and ``wide``, the only ones to look
at while tuning, and ``held``, whose tables, papers and sleeves are never used while tuning.

The part names match those of the second card drawer (``pictable/bench/drawers/cards.py``),
but the numbers here are this module's own: the two drawers stay independent.

``card_look(seed, looks)`` draws a scene's look from a generator of its own: a seed lays the
same cards under every look, and the kit look draws exactly as before.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from vision.synth.spec import KIT_CARD_LOOK, CardLook, TableSpec, Vec3
from vision.synth.textures import TableKind

#: Card stock: tint multipliers (B, G, R) of the printed face.
PAPER_LOOKS: dict[str, Vec3] = {
    "white": (1.0, 1.0, 1.0),
    "bright": (1.0, 0.99, 0.97),
    "cream": (0.86, 0.95, 1.0),
    "grey": (0.88, 0.88, 0.87),
    "ivory": (0.93, 0.97, 1.0),
    "recycled": (0.91, 0.94, 0.94),
}
#: Print: contrast against the paper and saturation ranges.
INK_LOOKS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "fresh": ((0.95, 1.0), (0.95, 1.05)),
    "rich": ((1.0, 1.0), (1.1, 1.3)),
    "faded": ((0.65, 0.8), (0.6, 0.8)),
    "pale": ((0.8, 0.92), (0.75, 0.9)),
}
#: Sleeves: haze over the card, reach past its edge (mm), broad sheen (ranges).
SLEEVE_LOOKS: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "none": ((0.0, 0.0), (0.0, 0.0), (0.0, 0.0)),
    "matt": ((0.05, 0.12), (1.0, 2.0), (0.0, 0.0)),
    "glossy": ((0.02, 0.06), (1.0, 2.0), (0.15, 0.35)),
    "satin": ((0.03, 0.08), (1.0, 2.0), (0.05, 0.14)),
}
#: Light temperature as white-balance multipliers (B, G, R), before the camera.
LIGHT_LOOKS: dict[str, Vec3] = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.84, 0.96, 1.08),
    "cool": (1.1, 1.01, 0.9),
    "daylight": (1.05, 1.0, 0.95),
    "fluorescent": (0.96, 1.06, 0.95),
}
#: Tables: kind and base colours (BGR).
TABLE_LOOKS: dict[str, tuple[TableKind, tuple[tuple[int, int, int], ...]]] = {
    "wood": ("wood", ((95, 140, 185), (70, 110, 160), (120, 165, 205), (50, 80, 120))),
    "cloth": ("cloth", ((60, 110, 40), (120, 70, 40), (70, 70, 75), (40, 40, 110))),
    "grey": ("plain", ((150, 150, 150), (90, 95, 100), (120, 125, 128))),
    "white": ("plain", ((228, 232, 234), (236, 238, 240))),
    "check": ("check", ((40, 40, 160), (140, 80, 30), (50, 120, 50))),
    "stone": ("stone", ((60, 62, 66), (200, 202, 204), (45, 48, 52))),
    "dark": ("plain", ((34, 34, 38), (28, 38, 52), (48, 44, 40))),
    "felt": ("cloth", ((110, 45, 30), (40, 30, 125), (35, 95, 110))),
    "motif": ("motif", ((30, 30, 32), (90, 40, 30), (30, 30, 110), (40, 80, 40))),
}

#: Development looks (tune on these) and held-back looks (never tuned on): the names each
#: group draws from, per part of the look. ``wide`` is a second development group: the
#: development looks and more, varying what the held-back looks vary (stock of another tint,
#: paler ink, a sleeve with some sheen, light of other colours, dark and coloured tables, a
#: printed cloth of small dark squares and dots) in
#: values of its own, none of the held-back names. Its figures are development figures.
CARD_LOOK_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "dev": {
        "table": ("wood", "cloth", "grey"),
        "paper": ("white", "bright"),
        "ink": ("fresh", "rich"),
        "sleeve": ("none", "matt"),
        "light": ("neutral", "warm"),
    },
    "held": {
        "table": ("white", "check", "stone"),
        "paper": ("cream", "grey"),
        "ink": ("fresh", "faded"),
        "sleeve": ("none", "glossy"),
        "light": ("neutral", "cool"),
    },
    "wide": {
        "table": ("wood", "cloth", "grey", "dark", "felt", "motif"),
        "paper": ("white", "bright", "ivory", "recycled"),
        "ink": ("fresh", "rich", "pale"),
        "sleeve": ("none", "matt", "satin"),
        "light": ("neutral", "warm", "daylight", "fluorescent"),
    },
}
#: The second key of the look's own generator (``card_look``): not the scene's stream.
CARD_LOOK_STREAM = 26


def _pick(rng: np.random.Generator, names: tuple[str, ...]) -> str:
    return names[int(rng.integers(len(names)))]


def _u(rng: np.random.Generator, r: tuple[float, float]) -> float:
    return round(float(rng.uniform(r[0], r[1])), 3) if r[1] > r[0] else float(r[0])


def random_card_look(rng: np.random.Generator, group: str) -> CardLook:
    """A random look of ``group`` (``dev``, ``wide`` or ``held``): each part's name drawn from the
    group's names (``CARD_LOOK_GROUPS``), its numbers drawn within the name's ranges.

    Draw it from a generator of its own (not the scene's): see ``card_look``.
    """
    if group not in CARD_LOOK_GROUPS:
        raise ValueError(f"look group must be one of {sorted(CARD_LOOK_GROUPS)}, got {group!r}")
    parts = CARD_LOOK_GROUPS[group]
    table = _pick(rng, parts["table"])
    kind, colours = TABLE_LOOKS[table]
    base = np.array(colours[int(rng.integers(len(colours)))], np.float64) * rng.uniform(0.9, 1.1)
    c = np.clip(base, 0, 255).astype(int)
    paper = _pick(rng, parts["paper"])
    ink = _pick(rng, parts["ink"])
    contrast, saturation = INK_LOOKS[ink]
    sleeve = _pick(rng, parts["sleeve"])
    haze, reach, sheen = SLEEVE_LOOKS[sleeve]
    light = _pick(rng, parts["light"])
    strength = float(rng.uniform(0.5, 1.0))
    tint = tuple(round(1.0 + strength * (v - 1.0), 4) for v in LIGHT_LOOKS[light])
    return CardLook(
        paper=paper,
        paper_bgr=PAPER_LOOKS[paper],
        ink=ink,
        ink_contrast=_u(rng, contrast),
        ink_saturation=_u(rng, saturation),
        sleeve=sleeve,
        sleeve_haze=_u(rng, haze),
        sleeve_mm=_u(rng, reach),
        sleeve_sheen=_u(rng, sheen),
        light=light,
        light_bgr=(tint[0], tint[1], tint[2]),
        surface=table,
        table=TableSpec(
            kind=cast(TableKind, kind),
            colour_bgr=(int(c[0]), int(c[1]), int(c[2])),
            seed=int(rng.integers(0, 10_000)),
        ),
    )


def card_look(seed: int, looks: str | None) -> CardLook:
    """The look of the card scene of render seed ``seed`` in a run of ``looks``: the kit look
    for ``None`` or ``"kit"``, else ``random_card_look`` of that group drawn from the look's
    own generator ``default_rng([seed, CARD_LOOK_STREAM])`` (the scene's cards come from
    ``default_rng(seed)``, untouched)."""
    if looks is None or looks == "kit":
        return KIT_CARD_LOOK
    return random_card_look(np.random.default_rng([int(seed), CARD_LOOK_STREAM]), looks)
