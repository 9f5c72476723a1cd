"""Pictograms drawn by code: the pictures of Picasso word cards, Pic Flip cards and Picmix items.

Each pictogram is a function drawing into a square box with a ``Pen`` in *unit coordinates*:
(0, 0) is the box's top-left corner and (1, 1) its bottom-right, x right, y down. Shapes get
a dark outline drawn outside them, so touching shapes read as one silhouette.

Two styles: ``"colour"`` (natural colours; the pictogram's ``main`` colour can be changed, as
Pic Flip does) and ``"mono"`` (everything in one colour with white details: Picmix items, which
must stay recognisable at 15 mm and differ between player sets only in colour).

The drawings are grouped by subject, one module each (``animals``, ``nature``, ``food``,
``vehicles``, ``buildings``, ``people``, ``objects``, ``play``); ``pen`` holds the colours, the
shape helpers and the ``Pen``.
"""

from __future__ import annotations

import numpy as np

from vision.kit.pictograms import (
    animals,
    buildings,
    food,
    nature,
    objects,
    people,
    play,
    vehicles,
)
from vision.kit.pictograms.pen import COLOURS, Colour, Glyph, Palette, Pen

GLYPH_NAMES: tuple[str, ...] = (
    "cat",
    "dog",
    "fish",
    "bird",
    "house",
    "tree",
    "pine",
    "sun",
    "moon",
    "star",
    "heart",
    "car",
    "boat",
    "bicycle",
    "train",
    "plane",
    "rocket",
    "flower",
    "apple",
    "pear",
    "banana",
    "cherry",
    "carrot",
    "mushroom",
    "cup",
    "key",
    "umbrella",
    "bell",
    "cloud",
    "lightning",
    "drop",
    "snowman",
    "mountain",
    "clock",
    "glasses",
    "hat",
    "crown",
    "ladder",
    "kite",
    "balloon",
    "candle",
    "book",
    "pencil",
    "bottle",
    "lamp",
    "chair",
    "table",
    "door",
    "bridge",
    "castle",
    "tent",
    "flag",
    "snake",
    "spider",
    "butterfly",
    "snail",
    "egg",
    "envelope",
    "ghost",
    "hammer",
    "icecream",
    "lollipop",
    "robot",
    "tv",
    "rainbow",
    "eye",
    "face",
    "anchor",
    "guitar",
    "leaf",
    "turtle",
    "gift",
    "cake",
    "duck",
    "whale",
    "scissors",
    "bus",
    "shirt",
    "ball",
    "sock",
    "bread",
    "watermelon",
    "palm",
)
"""Every pictogram's name, in the order they were first drawn: the order of ``GLYPHS``, of the
item model's labels (``models/picmix_items``) and of the decks' pictures (``vision.kit.decks``).
A new pictogram goes at the end."""

_BY_NAME: dict[str, Glyph] = {
    name: g
    for group in (animals, nature, food, vehicles, buildings, people, objects, play)
    for name, g in group.GLYPHS.items()
}
GLYPHS: dict[str, Glyph] = {name: _BY_NAME[name] for name in GLYPH_NAMES}
"""Every pictogram by name, in the order of ``GLYPH_NAMES``."""


def draw_pictogram(
    img: np.ndarray,
    name: str,
    box_px: tuple[float, float, float],
    colour: str | Colour | None = None,
    mono: bool = False,
) -> None:
    """Draw pictogram ``name`` into ``img`` ((H, W, 3) uint8 BGR, in place).

    ``box_px`` is (x0, y0, size): the square box in pixels. ``colour`` replaces the main
    colour (a name from ``COLOURS`` or a BGR tuple); ``mono`` draws a one-colour silhouette
    with white details.
    """
    if name not in GLYPHS:
        raise ValueError(f"unknown pictogram {name!r}")
    g = GLYPHS[name]
    if colour is None:
        colour = g.main
    main = COLOURS[colour] if isinstance(colour, str) else colour
    g.draw(Pen(img, box_px[0], box_px[1], box_px[2], Palette(main, mono)))
