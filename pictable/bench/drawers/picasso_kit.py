"""The kit photo of the second drawer: the pieces of a kit laid apart on the board, in one
``Look``, for ``pictable kit learn picasso`` (``vision.picasso.learn.learn_kit``).

``learn_kit`` wants every kind of piece on the canvas, apart from each other (a finger's
width or more between pieces, clear of the canvas edge): sticks of both lengths (straight
bars), one shape of each kind, and the string in a loose curve (a thin line that fills
little of its bounding rectangle). ``draw_kit_photo`` lays them so: the sticks along the
top, the four shapes in a row in the middle (each kind once, in the look's palette), the
string in a wave along the bottom; positions and turns jittered from the seed. The board,
the pieces and the camera are drawn exactly as ``picasso_board.draw_board`` draws them
(its wood, shapes, string, drop shadows and ``_photograph``), from random streams of their
own (``default_rng([seed, KIT_STREAM])``), so the boards of a seed are drawn as before.

For learn's refusals the photo can also be spoilt on purpose: a kind of piece left out
(``omit``), two pieces laid touching (``touching``), or the light turned down
(``exposure``, a factor on the scene's light before the camera's noise).

    .venv/bin/python -m pictable.bench.drawers.picasso_kit --seed 3 --looks dev --out kit.png
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Collection
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from pictable.bench.drawers.picasso_board import (
    CANVAS_W_MM,
    DRAW_PX_PER_MM,
    KIT_LOOK,
    LIGHTS,
    SHAPE_KINDS,
    SHAPE_LOOKS,
    STICK_W_MM,
    STICKS_MM,
    STRING_LOOKS,
    Look,
    _board_base,
    _Canvas,
    _photograph,
    _rect,
    _shape_outline,
    _wood,
    board_look,
)

#: The kit photo's random stream: ``default_rng([seed, KIT_STREAM])`` (boards use the seed
#: alone, the look 25 and 26, the hard tier 40).
KIT_STREAM = 27
#: What can be left out of the photo (``omit``): a stick length, the shapes, the string.
OMITTABLE = ("long_stick", "short_stick", "shapes", "string")
#: Which two pieces ``touching`` lays against each other.
TOUCHING = ("sticks", "stick-shape", "string-stick")


def _string_wave(rng: np.random.Generator, y0: float) -> NDArray[np.float64]:
    """(N, 2) mm: a loose curve across the canvas's bottom part (about 300 mm long, a wave
    of 12-20 mm amplitude), at 1 mm steps."""
    x0 = rng.uniform(35, 50)
    x1 = CANVAS_W_MM - rng.uniform(35, 50)
    amp, waves, phase = rng.uniform(12, 20), rng.uniform(1.2, 1.8), rng.uniform(0, 2 * math.pi)
    xs = np.arange(x0, x1, 1.0)
    t = (xs - x0) / (x1 - x0)
    ys = y0 + amp * np.sin(2 * math.pi * waves * t + phase)
    return np.stack([xs, ys], 1)


def draw_kit_photo(
    seed: int,
    look: Look = KIT_LOOK,
    *,
    omit: Collection[str] = (),
    touching: str | None = None,
    exposure: float = 1.0,
) -> NDArray[np.uint8]:
    """A photo ((720, 1280, 3) uint8 BGR) of a kit's pieces laid apart on the board in
    ``look``, drawn from ``seed`` (module docstring): one or two long and one or two short
    sticks along the top, the four shape kinds in a row (each in a colour of the look's
    palette), the string in a wave along the bottom, every piece at least 15 mm from the
    others and from the canvas edge.

    Spoilt photos (learn must refuse them): ``omit`` leaves out pieces (``OMITTABLE``);
    ``touching`` lays two pieces against each other (``TOUCHING``: two sticks crossing,
    a stick against a shape, the string over a stick); ``exposure`` scales the light on
    the scene (0.1: a dim room)."""
    bad = set(omit) - set(OMITTABLE)
    if bad:
        raise ValueError(f"omit: unknown {sorted(bad)}; choose from {OMITTABLE}")
    if touching is not None and touching not in TOUCHING:
        raise ValueError(f"touching {touching!r}: one of {TOUCHING}")
    rng = np.random.default_rng([seed, KIT_STREAM])
    cv = _Canvas(rng)
    if look.shadow == "hard":
        cv.shadow_mm, cv.shadow_depth = 0.5, float(rng.uniform(0.35, 0.5))
    _board_base(cv, rng, look, np.random.default_rng([seed, KIT_STREAM, 1]))
    label = 0
    # Sticks along the top: long ones on the left, short ones on the right, nearly level.
    n_long, n_short = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    sticks: list[tuple[str, NDArray[np.float64], float]] = []
    if "long_stick" not in omit:
        for k in range(n_long):
            c = np.array([rng.uniform(75, 90), 28 + 26 * k + rng.uniform(-3, 3)])
            sticks.append(("long_stick", c, math.radians(rng.uniform(-6, 6))))
    if "short_stick" not in omit:
        for k in range(n_short):
            c = np.array([rng.uniform(195, 215) + 70 * k, rng.uniform(30, 60)])
            sticks.append(("short_stick", c, math.radians(rng.uniform(-8, 8) + 90 * (k % 2))))
    if touching == "sticks" and len(sticks) >= 1:
        # a short stick laid across the first stick's right half, near its upper end
        kind, c, a = sticks[0]
        sticks.append(
            ("short_stick", c + np.array([25.0, 17.0]), a + math.radians(rng.uniform(75, 105)))
        )
    for kind, c, a in sticks:
        label += 1
        _wood(cv, _rect(c, a, STICKS_MM[kind], STICK_W_MM), rng, label, look.wood)
    # The shapes in a row across the middle, each kind once in a colour of the palette.
    palette = SHAPE_LOOKS[look.shapes]
    if "shapes" not in omit:
        colours = list(palette)
        order = [colours[i % len(colours)] for i in rng.permutation(len(SHAPE_KINDS))]
        for k, (kind, colour) in enumerate(zip(SHAPE_KINDS, order, strict=True)):
            c = np.array([50 + 87 * k + rng.uniform(-5, 5), 125 + rng.uniform(-6, 6)])
            if touching == "stick-shape" and k == 0:
                # a short stick lying level against the circle's top
                top = c - [0.0, 20.0 + STICK_W_MM / 2]
                _wood(cv, _rect(top, 0.0, STICKS_MM["short_stick"], STICK_W_MM), rng, 0, look.wood)
            outline = _shape_outline(kind, c, rng.uniform(0, 2 * math.pi))
            label += 1
            cv.shadow(outline, (0.6, 0.8))
            bgr = np.array(palette[colour]) * rng.uniform(0.9, 1.08)
            cv.poly(outline, tuple(float(v) for v in np.clip(bgr, 0, 255)), label)
    # The string in a wave along the bottom (drawn as draw_board draws it).
    if "string" not in omit:
        path = _string_wave(rng, rng.uniform(205, 215))
        if touching == "string-stick":
            # a stick laid across the wave
            c = np.array([CANVAS_W_MM / 2, path[len(path) // 2, 1]])
            _wood(
                cv,
                _rect(c, math.radians(80), STICKS_MM["short_stick"], STICK_W_MM),
                rng,
                0,
                look.wood,
            )
        pts = cv.px(path)
        line = np.zeros((cv.h, cv.w), np.uint8)
        cv2.polylines(line, [pts + 16 * 3], False, 255, round(2.5 * DRAW_PX_PER_MM), cv2.LINE_AA, 4)
        sh = cv2.GaussianBlur(line, (0, 0), DRAW_PX_PER_MM).astype(np.float32) / 255
        cv.img *= (1 - 0.3 * sh)[:, :, None]
        low, high, thickness = STRING_LOOKS[look.string]
        colour_bgr = tuple(float(v) for v in rng.uniform(low, high))
        thick = rng.uniform(*thickness)
        cv2.polylines(
            cv.img, [pts], False, colour_bgr, round(thick * DRAW_PX_PER_MM), cv2.LINE_AA, 4
        )
    if exposure != 1.0:
        cv.img *= np.float32(exposure)
    return _photograph(cv.img, rng, LIGHTS[look.light])


def main(argv: list[str] | None = None) -> int:
    """Write one kit photo (PNG) of a look of a group, or of KIT.md's look."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seed", type=int, default=0, help="the photo's seed (default 0)")
    ap.add_argument("--looks", choices=("kit", "dev", "held"), default="kit")
    ap.add_argument("--omit", action="append", default=[], choices=OMITTABLE)
    ap.add_argument("--touching", choices=TOUCHING)
    ap.add_argument("--exposure", type=float, default=1.0)
    ap.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = ap.parse_args(argv)
    look = board_look(args.seed, args.looks)
    frame = draw_kit_photo(
        args.seed, look, omit=args.omit, touching=args.touching, exposure=args.exposure
    )
    if not cv2.imwrite(str(args.out), frame):
        print(f"cannot write {args.out}", file=sys.stderr)
        return 2
    print(f"{args.out}: {look.name()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
