"""Board looks (issue 25): the colours and materials the synthetic camera can give the
Picasso kit and the room, split into *development* looks and *held-back* looks.

The board reader was first tuned on one look (KIT.md's light wood, dark cord, four shape
colours, one canvas). A real kit may have any string colour, any wood or paint, any
saturated shapes, a white, cream or grey canvas, under warm or cool light. The benchmark
measures the reader on looks of two groups (``LOOK_GROUPS``): ``dev``, the only ones to look
at while tuning, and ``held``, whose string colours and stick woods are never used while
tuning, so that what the reader learnt from ``dev`` is measured on looks it never saw.

The part names and the split match those of the second board drawer
(``pictable/bench/drawers/picasso_board.py``), but the colours here are this module's own:
the two drawers are to stay independent, so neither imports the other.

``random_board_look(rng, group)`` draws a look from a generator of its own (``board_look``
makes one per scene seed): the pieces of a scene are drawn from the scene's generator, so a
seed keeps its pieces under every look and the kit look draws exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.spec import BGR, KIT_LOOK, BoardLook, CanvasTexture, ShadowKind
from vision.synth.tiers import sample_table

#: String colours: base BGR and thickness range, mm (the issue: 1.5 to 4 mm).
STRING_LOOKS: dict[str, tuple[BGR, tuple[float, float]]] = {
    "black": ((24, 23, 26), (1.5, 3.0)),
    "red-brown": ((38, 50, 112), (2.0, 3.0)),
    "blue": ((150, 82, 28), (1.5, 3.5)),
    "jute": ((112, 158, 192), (2.5, 4.0)),
    "white": ((236, 238, 238), (2.0, 4.0)),
    "brown": ((42, 66, 96), (1.5, 3.5)),
    "green": ((58, 128, 42), (1.5, 3.5)),
    "dark-red": ((32, 26, 128), (1.5, 3.0)),
    "grey": ((104, 104, 110), (1.8, 3.2)),
}
#: Stick materials: base BGR, painted (else wood), grain depth.
WOOD_LOOKS: dict[str, tuple[BGR, bool, float]] = {
    "light": ((125, 182, 222), False, 0.07),  # the kit's natural light wood
    "dark": ((58, 86, 122), False, 0.10),
    "honey": ((62, 146, 204), False, 0.08),
    "stained": ((42, 52, 108), False, 0.09),  # a red mahogany stain
    "painted-red": ((42, 36, 192), True, 0.015),
    "painted-blue": ((168, 92, 36), True, 0.015),
    "painted-green": ((62, 152, 58), True, 0.015),
    "painted-black": ((30, 29, 31), True, 0.015),
}
#: Shape palettes, in the order of the kit's red, blue, yellow, green. ``kit``: the kit's
#: own colours (``sprites.SHAPE_BGR``, read when drawn).
SHAPE_LOOKS: dict[str, tuple[tuple[str, BGR], ...]] = {
    "kit": (),
    "bright": (
        ("orange", (22, 128, 246)),
        ("purple", (142, 44, 116)),
        ("pink", (172, 108, 242)),
        ("teal", (142, 136, 14)),
    ),
}
#: Canvas tints.
CANVAS_LOOKS: dict[str, BGR] = {
    "white": (244, 245, 246),
    "cream": (204, 231, 246),
    "light-grey": (210, 212, 213),
    "off-white": (230, 237, 240),
}
#: Light temperature as white-balance multipliers (B, G, R), before the camera.
LIGHT_LOOKS: dict[str, tuple[float, float, float]] = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.87, 0.97, 1.06),
    "cool": (1.08, 1.01, 0.91),
}
#: Drop shadows: ranges of blur and darkness as multiples of the kit look's.
SHADOW_LOOKS: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "soft": ((1.0, 1.6), (0.85, 1.1)),
    "hard": ((0.25, 0.45), (1.2, 1.45)),
}
#: Board frame colours (any group): painted, wood, plastic.
FRAME_LOOKS: tuple[BGR, ...] = (
    (60, 85, 120),
    (36, 38, 40),
    (205, 205, 200),
    (112, 82, 52),
    (40, 70, 150),
    (90, 130, 170),
)

#: Development looks (tune on these) and held-back looks (never tuned on): the names each
#: group draws from, per part of the look.
LOOK_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "dev": {
        "string": ("black", "red-brown", "blue", "jute", "white"),
        "wood": ("light", "dark", "painted-red", "painted-blue"),
        "shapes": ("kit",),
        "canvas": ("white", "cream"),
        "texture": ("plain", "paper"),
        "light": ("neutral", "warm"),
        "shadow": ("soft", "hard"),
    },
    "held": {
        "string": ("brown", "green", "dark-red", "grey"),
        "wood": ("honey", "stained", "painted-green", "painted-black"),
        "shapes": ("kit", "bright"),
        "canvas": ("light-grey", "off-white"),
        "texture": ("canvas", "plain"),
        "light": ("cool", "neutral"),
        "shadow": ("soft", "hard"),
    },
}
#: The second key of the look's own generator (``board_look``): not the scene's stream.
LOOK_STREAM = 25


def _jitter(rng: np.random.Generator, bgr: BGR, light: float, hue: float) -> BGR:
    """``bgr`` scaled by one lightness factor within ``1 +- light`` and per channel within
    ``1 +- hue`` (no two boards of one name alike), clipped to 0..255."""
    k = (1.0 + rng.uniform(-light, light)) * (1.0 + rng.uniform(-hue, hue, 3))
    v = np.clip(np.asarray(bgr, np.float64) * k, 0, 255).round().astype(int)
    return (int(v[0]), int(v[1]), int(v[2]))


def _pick(rng: np.random.Generator, names: tuple[str, ...]) -> str:
    return names[int(rng.integers(len(names)))]


def random_board_look(rng: np.random.Generator, group: str) -> BoardLook:
    """A random look of ``group`` (``dev`` or ``held``): each part's name drawn from the
    group's names (``LOOK_GROUPS``), its colour jittered a little round the name's, the
    string 1.5 to 4 mm thick, sheen, shadows, table and frame drawn too.

    Draw it from a generator of its own (not the scene's): see ``board_look``.
    """
    if group not in LOOK_GROUPS:
        raise ValueError(f"look group must be one of {sorted(LOOK_GROUPS)}, got {group!r}")
    parts = LOOK_GROUPS[group]
    string = _pick(rng, parts["string"])
    string_bgr, (t0, t1) = STRING_LOOKS[string]
    wood = _pick(rng, parts["wood"])
    wood_bgr, paint, grain = WOOD_LOOKS[wood]
    shapes = _pick(rng, parts["shapes"])
    canvas = _pick(rng, parts["canvas"])
    texture = _pick(rng, parts["texture"])
    light = _pick(rng, parts["light"])
    shadow = cast(ShadowKind, _pick(rng, parts["shadow"]))
    blur, depth = SHADOW_LOOKS[shadow]
    # the light's tint: between half and all of the name's departure from neutral
    strength = float(rng.uniform(0.5, 1.0))
    tint = tuple(1.0 + strength * (v - 1.0) for v in LIGHT_LOOKS[light])
    return BoardLook(
        string=string,
        string_bgr=_jitter(rng, string_bgr, 0.1, 0.04),
        string_mm=round(float(rng.uniform(t0, t1)), 2),
        wood=wood,
        stick_bgr=_jitter(rng, wood_bgr, 0.08, 0.03),
        paint=paint,
        stick_grain=grain,
        sheen=round(float(rng.uniform(0.1, 0.45)), 3),
        shapes=shapes,
        shape_bgr=SHAPE_LOOKS[shapes],
        canvas=canvas,
        canvas_bgr=_jitter(rng, CANVAS_LOOKS[canvas], 0.02, 0.01),
        texture=cast(CanvasTexture, texture),
        light=light,
        light_bgr=(tint[0], tint[1], tint[2]),
        shadow=shadow,
        shadow_blur=round(float(rng.uniform(*blur)), 3),
        shadow_depth=round(float(rng.uniform(*depth)), 3),
        table=sample_table(rng),
        frame_bgr=_jitter(rng, FRAME_LOOKS[int(rng.integers(len(FRAME_LOOKS)))], 0.08, 0.03),
        frame_grain=round(float(rng.uniform(0.0, 0.12)), 3),
    )


#: Training looks (``wide``): colours drawn anywhere, except this close (CIE76 delta E)
#: to a held-back colour of the same part, so held-back looks stay unseen by what is trained.
HOLE_DE = 20.0


def _lab(bgr: BGR | tuple[float, float, float]) -> NDArray[np.float64]:
    px = np.asarray(bgr, np.float32).reshape(1, 1, 3) / 255.0
    return cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(3).astype(np.float64)


def _held_colours(part: str) -> list[NDArray[np.float64]]:
    if part == "string":
        return [_lab(STRING_LOOKS[n][0]) for n in LOOK_GROUPS["held"]["string"]]
    if part == "wood":
        return [_lab(WOOD_LOOKS[n][0]) for n in LOOK_GROUPS["held"]["wood"]]
    return [_lab(c) for name in LOOK_GROUPS["held"]["shapes"] for _, c in SHAPE_LOOKS[name]]


def _hsv_colour(
    rng: np.random.Generator,
    hue: tuple[float, float],
    sat: tuple[float, float],
    val: tuple[float, float],
) -> BGR:
    hsv = np.array(
        [[[rng.uniform(*hue) % 180.0, rng.uniform(*sat) * 255.0, rng.uniform(*val) * 255.0]]],
        np.float32,
    )
    v = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).reshape(3)
    return (int(v[0]), int(v[1]), int(v[2]))


def _away_from(
    rng: np.random.Generator,
    draw: Callable[[np.random.Generator], BGR],
    holes: list[NDArray[np.float64]],
    also: Sequence[NDArray[np.float64]] = (),
) -> BGR:
    """A colour from ``draw`` at least ``HOLE_DE`` from every hole (and 15 from ``also``:
    the canvas, which a piece must differ from)."""
    for _ in range(200):
        c = draw(rng)
        lab = _lab(c)
        if all(np.linalg.norm(lab - h) >= HOLE_DE for h in holes) and all(
            np.linalg.norm(lab - a) >= 15.0 for a in also
        ):
            return c
    raise RuntimeError("no colour found outside the held-back holes")


def random_wide_look(rng: np.random.Generator) -> BoardLook:
    """A training look (``wide``): a development look whose string, stick and shape colours
    are drawn anywhere in colour space (the string any hue from black to white, the sticks
    a wood tone or any paint, the shapes any saturated colours), except near a held-back
    colour of the same part (``HOLE_DE``). What learns from these sees the world's range of
    colours and still never a held-back look."""
    base = random_board_look(rng, "dev")
    canvas = _lab(base.canvas_bgr) if base.canvas_bgr is not None else _lab((240, 240, 240))
    string = _away_from(
        rng,
        lambda r: _hsv_colour(r, (0, 180), (0.0, 0.9), (0.06, 0.97)),
        _held_colours("string"),
        [canvas],
    )
    paint = bool(rng.random() < 0.5)
    if paint:
        stick = _away_from(
            rng,
            lambda r: _hsv_colour(r, (0, 180), (0.0, 0.95), (0.08, 0.95)),
            _held_colours("wood"),
            [canvas],
        )
    else:  # wood tones: orange-brown hues, from pale to near black
        stick = _away_from(
            rng,
            lambda r: _hsv_colour(r, (4, 26), (0.25, 0.75), (0.18, 0.92)),
            _held_colours("wood"),
            [canvas],
        )
    shapes: tuple[tuple[str, BGR], ...] = base.shape_bgr
    if rng.random() < 0.6:
        holes = _held_colours("shapes")
        shapes = tuple(
            (
                f"colour-{k}",
                _away_from(rng, lambda r: _hsv_colour(r, (0, 180), (0.55, 1.0), (0.5, 1.0)), holes),
            )
            for k in range(4)
        )
    t0, t1 = 1.5, 4.0
    return replace(
        base,
        string="wide",
        string_bgr=string,
        string_mm=round(float(rng.uniform(t0, t1)), 2),
        wood="wide-paint" if paint else "wide-wood",
        stick_bgr=stick,
        paint=paint,
        stick_grain=0.015 if paint else float(rng.uniform(0.05, 0.11)),
        shapes="wide" if shapes else base.shapes,
        shape_bgr=shapes,
    )


def board_look(seed: int, looks: str | None) -> BoardLook:
    """The look of the scene of seed ``seed`` in a run of ``looks``: the kit look for
    ``None`` or ``"kit"``, else ``random_board_look`` of that group drawn from the look's own
    generator ``default_rng([seed, LOOK_STREAM])`` (the scene's pieces come from
    ``default_rng(seed)``, untouched)."""
    if looks is None or looks == "kit":
        return KIT_LOOK
    if looks == "wide":
        return random_wide_look(np.random.default_rng([int(seed), LOOK_STREAM]))
    return random_board_look(np.random.default_rng([int(seed), LOOK_STREAM]), looks)
