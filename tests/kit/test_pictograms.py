"""The pictograms' groups and their order (``vision.kit.pictograms``)."""

from __future__ import annotations

import json
from pathlib import Path

from vision.kit.pictograms import (
    GLYPH_NAMES,
    GLYPHS,
    animals,
    buildings,
    food,
    nature,
    objects,
    people,
    play,
    vehicles,
)

GROUPS = (animals, buildings, food, nature, objects, people, play, vehicles)
MANIFEST = Path(__file__).resolve().parents[2] / "models" / "manifest.json"


def test_every_pictogram_is_drawn_in_one_group_and_named_once_in_the_order() -> None:
    drawn = [name for group in GROUPS for name in group.GLYPHS]
    assert len(drawn) == len(set(drawn))
    assert len(GLYPH_NAMES) == len(set(GLYPH_NAMES))
    assert sorted(drawn) == sorted(GLYPH_NAMES)
    assert tuple(GLYPHS) == GLYPH_NAMES


def test_the_order_is_the_item_models_labels() -> None:
    """The item model's logits follow ``GLYPH_NAMES``: reordering it would rename them."""
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    assert tuple(manifest["models"]["picmix_items"]["labels"]) == GLYPH_NAMES
