"""A long stick laid across a shape (issue 25's hard case 5, the other way up), over a
family of boards: every kit shape kind in every kit colour, the stick through the shape's
middle or 6 mm off it either way, at -45 or 10 degrees, the shape turned 0 or 35 degrees
(192 boards, those whose truth holds one long stick and one shape on the canvas). Each is
drawn by ``vision.synth`` with the normal-tier camera, table, light and sensor of seed 2,
no hand, no soft shadow, no motion blur (as ``tests/picasso/test_hard_cases.py`` draws its
boards), read, and right when it counts one long stick and one shape and is not occluded.

    python -m pictable.bench.readers.picasso_across          # about a minute
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from dataclasses import replace
from typing import Any

import numpy as np

KINDS = ("triangle", "half_circle", "square", "circle")
COLOURS = ("red", "blue", "yellow", "green")
OFFSETS_MM = (0.0, 6.0, -6.0)
TURNS_DEG = (0.0, 35.0)
STICK_ANGLES_DEG = (-45.0, 10.0)
#: The camera, table, light and sensor of every board.
SEED = 2
WANT = {"long_stick": 1, "short_stick": 0, "shape": 1, "string": 0}


def _scene(pieces: list[Any]) -> Any:
    from vision.picasso.dataset import board_with

    spec = board_with(pieces, SEED, "normal")
    return replace(spec, effects=replace(spec.effects, shadows=(), motion_blur_px=0.0))


def measure() -> dict[str, Any]:
    """Boards read right of those drawn, and the wrong ones with what they read."""
    from vision.picasso import BoardReading, read_board
    from vision.synth import ShapeSpec, StandInTextures, StickSpec, render_scene

    right = boards = 0
    wrong: list[dict[str, Any]] = []
    for kind, colour, off, turn, angle in itertools.product(
        KINDS, COLOURS, OFFSETS_MM, TURNS_DEG, STICK_ANGLES_DEG
    ):
        shape = ShapeSpec(kind, colour, (200.0, 130.0), turn)  # type: ignore[arg-type]
        a = math.radians(angle + 90.0)
        c = np.asarray(shape.center_mm) + off * np.array([math.cos(a), math.sin(a)])
        stick = StickSpec("long_stick", (float(c[0]), float(c[1])), angle)
        frame, truth = render_scene(_scene([shape, stick]), seed=SEED, provider=StandInTextures())
        if truth.board is None or truth.board.counts != WANT:
            continue
        boards += 1
        r = read_board(frame)
        ok = isinstance(r, BoardReading) and not r.occluded and r.counts == WANT
        right += ok
        if not ok:
            got = r.seen_counts if isinstance(r, BoardReading) else str(r)
            wrong.append(
                {
                    "shape": kind,
                    "colour": colour,
                    "offset_mm": off,
                    "turn_deg": turn,
                    "stick_deg": angle,
                    "read": got,
                }
            )
    return {"boards": boards, "right": right, "wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(
        prog="python -m pictable.bench.readers.picasso_across",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    ).parse_args(argv)
    import cv2

    cv2.setNumThreads(1)
    out = measure()
    print(f"{out['right']}/{out['boards']} boards read right")
    for w in out["wrong"]:
        print(f"  {w}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
