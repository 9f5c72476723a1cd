"""An independent Picasso board drawer: photos of the board drawn with plain OpenCV from
KIT.md's defaults alone (not ``vision.synth``), to check that the reader is not fitted to
the project's own renderer.

The table, the board and everything on it are drawn flat in table millimetres (board
markers 4-7 of ``DICT_4X4_50``, 30 mm, their inner corners on the canvas corners; a
360 x 260 off-white canvas; sticks 100 x 8 and 50 x 8 of light wood with grain and a drop
shadow; circle d40, square 35, triangle side 40 and half-circle d40 in solid red, blue,
yellow or green; a dark cord 2.5 mm thick in free curves; spare pieces beside the board;
sometimes a hand and arm over the canvas), then seen by a 1280 x 720 camera: a
perspective warp (0.95-1.5 px/mm, turned, tilted), uneven light, blur, sensor noise and
JPEG compression.

Every look the world can take is a choice (``Look``): the string's colour and thickness
(1.5-4 mm), the sticks' wood or paint, the shapes' colours, the canvas's tint and texture,
the light's temperature and the shadows' hardness. The looks are split in two groups
(``LOOK_GROUPS``): *development* looks, the only ones to tune the reader on, and *held-back*
looks, measured but never tuned on. A look is drawn from its own random stream, so one seed
gives the same pieces in the same places under every look. With no look given, a board is
drawn in ``KIT_LOOK`` (KIT.md's defaults), exactly as this drawer always drew it.

    .venv/bin/python -m pictable.bench.drawers.picasso_board --n 100 --seed 0   # the kit's look
    .venv/bin/python -m pictable.bench.drawers.picasso_board --n 80 --looks held  # held-back looks
    .venv/bin/python -m pictable.bench.drawers.picasso_board --n 80 --string red-brown
    .venv/bin/python -m pictable.bench.drawers.picasso_board --n 4 --looks dev --out DIR
    .venv/bin/python -m pictable.bench.drawers.picasso_board --n 80 --tier hard  # harder camera

``--tier hard`` (``draw_board``'s ``tier``) sees the same boards through a harder camera: the
board tilted up to 40 degrees before a pinhole camera, more blur (defocus and motion), a
glare spot, JPEG quality 40-80, and 1-2 more hands near or over the board.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

#: KIT.md's defaults, millimetres.
CANVAS_W_MM, CANVAS_H_MM = 360.0, 260.0
MARKER_MM = 30.0
STICKS_MM = {"long_stick": 100.0, "short_stick": 50.0}
STICK_W_MM = 8.0
SHAPE_KINDS = ("circle", "square", "triangle", "half_circle")
#: String looks: (BGR low, BGR high, thickness range mm). "grey" is KIT.md's dark cord as this
#: drawer first drew it; "red-brown" is issue 25's cord (the reader once labelled it wood).
STRING_LOOKS: dict[str, tuple[tuple[float, ...], tuple[float, ...], tuple[float, float]]] = {
    "grey": ((30, 30, 35), (60, 55, 70), (2.2, 3.0)),
    "red-brown": ((20, 35, 90), (40, 55, 125), (2.5, 2.7)),
    "black": ((18, 18, 20), (35, 35, 38), (1.5, 3.0)),
    "blue": ((140, 70, 25), (175, 95, 45), (1.8, 3.5)),
    "jute": ((105, 150, 185), (130, 175, 210), (2.5, 4.0)),
    "white": ((232, 234, 236), (248, 250, 252), (2.0, 4.0)),
    "brown": ((30, 55, 85), (50, 75, 110), (1.5, 3.5)),
    "green": ((45, 115, 35), (70, 145, 60), (1.8, 3.5)),
    "dark-red": ((25, 20, 110), (45, 35, 150), (1.5, 3.0)),
}
#: Stick looks: (BGR low, BGR high, painted). Wood has grain and darker long edges; paint is
#: flat with a sheen along the top.
WOOD_LOOKS: dict[str, tuple[tuple[float, ...], tuple[float, ...], bool]] = {
    "light": ((120, 170, 205), (150, 195, 230), False),  # KIT.md's natural light wood
    "dark": ((45, 70, 100), (70, 95, 130), False),
    "honey": ((70, 140, 190), (95, 165, 215), False),
    "stained": ((35, 55, 110), (55, 75, 140), False),  # mahogany stain
    "painted-red": ((35, 35, 175), (55, 50, 205), True),
    "painted-blue": ((160, 90, 30), (185, 110, 50), True),
    "painted-green": ((55, 140, 50), (80, 165, 75), True),
    "painted-black": ((25, 25, 25), (40, 40, 40), True),
}
#: Shape colour sets (four each, KIT.md: "solid red, blue, yellow or green" by default).
SHAPE_LOOKS: dict[str, dict[str, tuple[int, int, int]]] = {
    "kit": {
        "red": (45, 40, 200),
        "blue": (175, 95, 35),
        "yellow": (40, 200, 235),
        "green": (70, 155, 45),
    },
    "bright": {
        "orange": (30, 120, 240),
        "purple": (150, 50, 120),
        "pink": (160, 100, 235),
        "teal": (150, 140, 20),
    },
    # in no look group: the learned kit's development probe (``picasso_learn --palette``)
    "deep": {
        "lime": (40, 215, 150),
        "sky": (235, 185, 80),
        "magenta": (165, 35, 195),
        "navy": (110, 40, 25),
    },
}
COLOURS_BGR = SHAPE_LOOKS["kit"]
#: Canvas looks: (BGR low, BGR high) of the paper.
CANVAS_LOOKS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "off-white": ((221, 221, 221), (247, 247, 247)),  # as first drawn (see draw_board)
    "white": ((238, 238, 238), (250, 250, 250)),
    "cream": ((200, 226, 238), (214, 236, 248)),
    "light-grey": ((200, 202, 202), (216, 218, 218)),
}
TEXTURES = ("plain", "paper", "canvas")
#: Light temperature: per-channel BGR gain.
LIGHTS: dict[str, tuple[float, float, float]] = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.86, 0.97, 1.06),
    "cool": (1.07, 1.0, 0.9),
}
SHADOWS = ("soft", "hard")


@dataclass(frozen=True)
class Look:
    """How the kit and the room look on one board (names of the tables above)."""

    string: str = "grey"
    wood: str = "light"
    shapes: str = "kit"
    canvas: str = "off-white"
    texture: str = "plain"
    light: str = "neutral"
    shadow: str = "soft"

    def name(self) -> str:
        return "/".join(str(v) for v in asdict(self).values())


#: KIT.md's defaults, drawn exactly as this drawer first drew every board.
KIT_LOOK = Look()
#: Development looks (tune on these) and held-back looks (never tuned on): per part of the
#: look, the names each group draws from.
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


def pick_look(seed: int, group: str) -> Look:
    """A random look of ``group`` ("dev" or "held") for board ``seed`` (its own stream)."""
    parts = LOOK_GROUPS[group]
    rng = np.random.default_rng([seed, 25])
    return Look(**{k: str(rng.choice(v)) for k, v in parts.items()})


COST = {"long_stick": 1, "short_stick": 1, "shape": 2, "string": 3}
#: Camera tiers: "normal" (as this drawer always drew) and "hard" (``draw_board``).
TIERS = ("normal", "hard")
#: The hard tier's random stream: ``default_rng([seed, HARD_STREAM])``.
HARD_STREAM = 40
#: The hard tier's pinhole camera: focal length (px; 1280 px across is then about 65
#: degrees) and the most the board's plane tilts from facing it.
FOCAL_PX = 1000.0
MAX_TILT_DEG = 40.0

#: The flat scene is drawn at this scale, over this part of the table (mm, canvas origin).
DRAW_PX_PER_MM = 3.0
TABLE_MM = (-260.0, -150.0, 620.0, 420.0)  # x0, y0, x1, y1
FRAME_WH = (1280, 720)


@dataclass
class Board:
    """One drawn photo: ``frame`` (720, 1280, 3) uint8 BGR, the ``counts`` on the canvas,
    whether a hand covers part of the canvas, and the pieces (for failure reports)."""

    frame: NDArray[np.uint8]
    counts: dict[str, int]
    hand: bool
    crossings: int
    pieces: list[dict[str, Any]] = field(default_factory=list)
    look: Look = KIT_LOOK

    @property
    def cost(self) -> int:
        return sum(COST[k] * v for k, v in self.counts.items())


class _Canvas:
    """The flat table drawing, with a label image to measure how much of a piece shows."""

    def __init__(self, rng: np.random.Generator) -> None:
        x0, y0, x1, y1 = TABLE_MM
        k = DRAW_PX_PER_MM
        self.w, self.h = round((x1 - x0) * k), round((y1 - y0) * k)
        base = np.array(rng.uniform([60, 80, 100], [140, 150, 170]), np.float32)
        low = cv2.resize(
            rng.normal(0, 12, (6, 9)).astype(np.float32), (self.w, self.h), cv2.INTER_CUBIC
        )
        grain = cv2.GaussianBlur(rng.normal(0, 6, (self.h, self.w)).astype(np.float32), (0, 0), 3)
        self.img = np.clip(base[None, None, :] + (low + grain)[:, :, None], 0, 255).astype(
            np.float32
        )
        self.labels = np.zeros((self.h, self.w), np.int32)
        # drop shadows: blur (mm) and depth; the look sets them (``soft`` as first drawn)
        self.shadow_mm, self.shadow_depth = 1.5, 0.35

    def px(self, pts_mm: NDArray[np.float64]) -> NDArray[np.int32]:
        """(N, 2) mm -> (N, 2) int32 pixel coordinates with 4 fractional bits."""
        p = (np.asarray(pts_mm, np.float64) - TABLE_MM[:2]) * DRAW_PX_PER_MM
        return np.round(p * 16).astype(np.int32)

    def poly(self, pts_mm: NDArray[np.float64], bgr: Any, label: int = 0) -> None:
        p = self.px(pts_mm)
        cv2.fillPoly(self.img, [p], bgr, cv2.LINE_AA, 4)
        if label:
            cv2.fillPoly(self.labels, [p], label, cv2.LINE_8, 4)

    def shadow(self, pts_mm: NDArray[np.float64], offset_mm: tuple[float, float]) -> None:
        p = self.px(np.asarray(pts_mm) + offset_mm)
        pad = round(6 * DRAW_PX_PER_MM)
        x0, y0 = np.maximum(p.min(0) // 16 - pad, 0)
        x1, y1 = np.minimum(p.max(0) // 16 + pad, [self.w, self.h])
        if x1 <= x0 or y1 <= y0:
            return
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [p - 16 * np.array([x0, y0], np.int32)], 255, cv2.LINE_AA, 4)
        m = cv2.GaussianBlur(m, (0, 0), self.shadow_mm * DRAW_PX_PER_MM).astype(np.float32) / 255
        self.img[y0:y1, x0:x1] *= (1 - self.shadow_depth * m)[:, :, None]


def _rect(centre: NDArray[np.float64], angle: float, length: float, width: float) -> Any:
    d = np.array([math.cos(angle), math.sin(angle)])
    n = np.array([-d[1], d[0]])
    c = np.asarray(centre, np.float64)
    return np.array(
        [
            c - d * length / 2 - n * width / 2,
            c + d * length / 2 - n * width / 2,
            c + d * length / 2 + n * width / 2,
            c - d * length / 2 + n * width / 2,
        ]
    )


def _shape_outline(kind: str, centre: NDArray[np.float64], angle: float) -> Any:
    c = np.asarray(centre, np.float64)
    if kind == "circle":
        t = np.linspace(0, 2 * math.pi, 90, endpoint=False)
        pts = np.stack([20 * np.cos(t), 20 * np.sin(t)], 1)
    elif kind == "square":
        pts = np.array([[-17.5, -17.5], [17.5, -17.5], [17.5, 17.5], [-17.5, 17.5]])
    elif kind == "triangle":
        r = 40 / math.sqrt(3)
        t = np.array([-90, 30, 150]) * math.pi / 180
        pts = np.stack([r * np.cos(t), r * np.sin(t)], 1)
    else:  # half-circle: its flat side through the centre of the d40 circle
        t = np.linspace(0, math.pi, 46)
        pts = np.stack([20 * np.cos(t), 20 * np.sin(t) - 8.5], 1)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return pts @ rot.T + c


def _segments_cross(a: Any, b: Any) -> bool:
    def side(p: Any, q: Any, r: Any) -> float:
        return float((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    return (side(a[0], a[1], b[0]) * side(a[0], a[1], b[1]) < 0) and (
        side(b[0], b[1], a[0]) * side(b[0], b[1], a[1]) < 0
    )


def _wood(
    cv: _Canvas, poly: Any, rng: np.random.Generator, label: int, wood: str = "light"
) -> None:
    """A stick of ``WOOD_LOOKS[wood]``: wood with a few grain lines along it and slightly
    darker edges, or paint (faint grain, a sheen along the top)."""
    low, high, painted = WOOD_LOOKS[wood]
    base = np.array(rng.uniform(low, high))
    cv.shadow(poly, (0.8, 1.0))
    cv.poly(poly, tuple(float(v) for v in base * 0.86), label)
    # the top face: the long sides moved in by 0.8 mm
    a, b, c, d = poly
    n = (d - a) / max(float(np.linalg.norm(d - a)), 1e-9)
    inner = np.array([a + 0.8 * n, b + 0.8 * n, c - 0.8 * n, d - 0.8 * n])
    cv.poly(inner, tuple(float(v) for v in base), 0)
    along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
    for _ in range(3):
        off = rng.uniform(1.5, STICK_W_MM - 1.5)
        p0 = a + n * off + along * rng.uniform(0, 10)
        p1 = b + n * (off + rng.uniform(-0.6, 0.6)) - along * rng.uniform(0, 10)
        cv2.line(
            cv.img,
            tuple(cv.px(p0[None])[0]),
            tuple(cv.px(p1[None])[0]),
            tuple(float(v) for v in base * (0.97 if painted else rng.uniform(0.88, 0.95))),
            max(1, round(0.4 * DRAW_PX_PER_MM)),
            cv2.LINE_AA,
            4,
        )
    if painted:  # a sheen along the top face
        mid0, mid1 = a + n * 0.35 * STICK_W_MM, b + n * 0.35 * STICK_W_MM
        cv2.line(
            cv.img,
            tuple(cv.px(mid0[None])[0]),
            tuple(cv.px(mid1[None])[0]),
            tuple(float(min(255.0, v * 1.25 + 30)) for v in base),
            max(1, round(1.2 * DRAW_PX_PER_MM)),
            cv2.LINE_AA,
            4,
        )


def _string_path(rng: np.random.Generator, on_canvas: bool) -> Any:
    """A cord 350-600 mm long in free curves: a walk whose heading turns smoothly, kept
    inside the canvas (bouncing off a 12 mm margin)."""
    length = rng.uniform(350, 600) if on_canvas else rng.uniform(200, 300)
    step = 1.0
    if on_canvas:
        lo, hi = np.array([12.0, 12.0]), np.array([CANVAS_W_MM - 12, CANVAS_H_MM - 12])
    else:
        lo, hi = np.array([-230.0, 20.0]), np.array([-70.0, 240.0])
    p = rng.uniform(lo + 30, hi - 30)
    heading = rng.uniform(0, 2 * math.pi)
    turn = 0.0
    pts = [p.copy()]
    for _ in range(int(length / step)):
        turn = 0.9 * turn + rng.normal(0, 0.012)
        heading += turn
        q = p + step * np.array([math.cos(heading), math.sin(heading)])
        if np.any(q < lo) or np.any(q > hi):
            heading += math.pi * rng.uniform(0.5, 0.8)
            turn = 0.0
            continue
        p = q
        pts.append(p.copy())
    return np.array(pts)


def _texture(cv: _Canvas, kind: str, rng: np.random.Generator) -> None:
    """Paper grain (fine blotches) or a canvas weave (two fine ridges, 1.2 mm apart) over
    the canvas."""
    x0, y0 = (-np.array(TABLE_MM[:2]) * DRAW_PX_PER_MM).round().astype(int)
    w, h = round(CANVAS_W_MM * DRAW_PX_PER_MM), round(CANVAS_H_MM * DRAW_PX_PER_MM)
    if kind == "paper":
        tex = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2)
        tex *= 4.0 / max(float(tex.std()), 1e-6)
    else:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) / DRAW_PX_PER_MM
        period = float(rng.uniform(1.0, 1.6))
        tex = 3.0 * (np.cos(2 * np.pi * xx / period) + np.cos(2 * np.pi * yy / period))
        tex += cv2.GaussianBlur(rng.normal(0, 2, (h, w)).astype(np.float32), (0, 0), 2)
    cv.img[y0 : y0 + h, x0 : x0 + w] += tex[:, :, None]


def _board_base(
    cv: _Canvas, rng: np.random.Generator, look: Look, texture_rng: np.random.Generator
) -> None:
    """The board: a white card with its shadow, the canvas's paper in ``look``'s tint and
    texture (drawn from ``texture_rng``), markers 4-7 at its corners. (The same two draws
    for every canvas look: the pieces drawn after stay where they are.)"""
    white = tuple(float(v) for v in rng.uniform(225, 245, 3))
    card = np.array([[-45, -45], [405, -45], [405, 305], [-45, 305]], float)
    cv.shadow(card, (3, 4))
    cv.poly(card, white)
    level, jitter = float(rng.uniform(226, 242)), rng.uniform(-5, 5, 3)
    if look.canvas == "off-white":
        paper = level + jitter
    else:
        low, high = (np.array(v, np.float64) for v in CANVAS_LOOKS[look.canvas])
        paper = low + (level - 226) / 16 * (high - low) + 0.3 * jitter
    cv.poly(
        np.array([[0, 0], [CANVAS_W_MM, 0], [CANVAS_W_MM, CANVAS_H_MM], [0, CANVAS_H_MM]]),
        tuple(float(v) for v in paper),
    )
    if look.texture != "plain":
        _texture(cv, look.texture, texture_rng)
    aruco = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side = round(MARKER_MM * DRAW_PX_PER_MM)
    for mid, (x, y) in {
        4: (-MARKER_MM, -MARKER_MM),
        5: (CANVAS_W_MM, -MARKER_MM),
        6: (CANVAS_W_MM, CANVAS_H_MM),
        7: (-MARKER_MM, CANVAS_H_MM),
    }.items():
        m = cv2.aruco.generateImageMarker(aruco, mid, side).astype(np.float32)
        m = 25 + m * (200 / 255) + 20 * (m > 0)
        px = round((x - TABLE_MM[0]) * DRAW_PX_PER_MM)
        py = round((y - TABLE_MM[1]) * DRAW_PX_PER_MM)
        cv.img[py : py + side, px : px + side] = m[:, :, None]


def draw_board(
    seed: int,
    *,
    hand: bool | None = None,
    string: bool | None = None,
    look: Look = KIT_LOOK,
    tier: str = "normal",
) -> Board:
    """One photo of the board (module docstring), drawn from ``seed`` in ``look``: 0-10
    sticks of which several cross, 0-4 shapes, the string on half the boards, spare pieces
    beside the board, a hand over the canvas on a quarter of them (or as ``hand`` says).
    The same seed puts the same pieces in the same places whatever the look and the tier.

    ``tier`` "hard" (``TIERS``) adds, from a random stream of its own (so that the normal
    tier draws exactly as before, and a hard board holds the same pieces): 1-2 more hands
    near the board or over it, and a harder camera (``_photograph``'s ``hard``): the board
    tilted up to 40 degrees before a pinhole camera, stronger blur, a glare spot, JPEG
    quality 40-80. ``Board.hand`` says whether any hand covers part of the canvas."""
    if tier not in TIERS:
        raise ValueError(f"tier {tier!r}: one of {TIERS}")
    rng = np.random.default_rng(seed)
    look_rng = np.random.default_rng([seed, 26])  # the look's own draws (texture, sheen)
    cv = _Canvas(rng)
    if look.shadow == "hard":
        cv.shadow_mm, cv.shadow_depth = 0.5, float(look_rng.uniform(0.35, 0.5))
    palette = SHAPE_LOOKS[look.shapes]
    if hand is None:
        hand = bool(rng.random() < 0.25)
    if string is None:
        string = bool(rng.random() < 0.5)
    _board_base(cv, rng, look, look_rng)

    pieces: list[dict[str, Any]] = []
    label = 0
    # Shapes first, apart from each other.
    n_shapes = int(rng.integers(0, 5))
    centres: list[NDArray[np.float64]] = []
    for _ in range(n_shapes * 20):
        if len(centres) == n_shapes:
            break
        c = rng.uniform([30, 30], [CANVAS_W_MM - 30, CANVAS_H_MM - 30])
        if all(np.linalg.norm(c - o) > 50 for o in centres):
            centres.append(c)
    for c in centres:
        kind = str(rng.choice(SHAPE_KINDS))
        colour = str(rng.choice(list(palette)))
        outline = _shape_outline(kind, c, rng.uniform(0, 2 * math.pi))
        label += 1
        cv.shadow(outline, (0.6, 0.8))
        bgr = np.array(palette[colour]) * rng.uniform(0.9, 1.08)
        cv.poly(outline, tuple(float(v) for v in np.clip(bgr, 0, 255)), label)
        pieces.append({"kind": "shape", "shape": kind, "colour": colour, "label": label})
    shape_area = (cv.labels > 0).copy()

    # Sticks: some in a heap crossing each other, the others anywhere; never over a shape.
    n_sticks = int(rng.integers(0, 11))
    segs: list[Any] = []
    heap = rng.uniform([90, 80], [CANVAS_W_MM - 90, CANVAS_H_MM - 80])
    tries = 0
    while len(segs) < n_sticks and tries < 400:
        tries += 1
        kind = "long_stick" if rng.random() < 0.55 else "short_stick"
        length = STICKS_MM[kind]
        angle = rng.uniform(0, math.pi)
        if len(segs) < 4 and rng.random() < 0.8:
            c = heap + rng.normal(0, 18, 2)
        else:
            c = rng.uniform([10, 10], [CANVAS_W_MM - 10, CANVAS_H_MM - 10])
        poly = _rect(c, angle, length, STICK_W_MM)
        if poly.min(0)[0] < 6 or poly.min(0)[1] < 6:
            continue
        if poly.max(0)[0] > CANVAS_W_MM - 6 or poly.max(0)[1] > CANVAS_H_MM - 6:
            continue
        m = np.zeros_like(cv.labels, np.uint8)
        cv2.fillPoly(m, [cv.px(_rect(c, angle, length + 4, STICK_W_MM + 4))], 1, cv2.LINE_8, 4)
        if (m.astype(bool) & shape_area).any():
            continue
        d = np.array([math.cos(angle), math.sin(angle)])
        ends = np.array([c - d * length / 2, c + d * length / 2])
        # no two sticks nearly in line and overlapping (one would hide the other)
        if any(
            abs(math.sin(angle - o["angle"])) < math.sin(math.radians(12))
            and np.linalg.norm(c - o["centre"]) < (length + o["length"]) / 2 + 4
            and abs(float(d[0] * (c - o["centre"])[1] - d[1] * (c - o["centre"])[0]))
            < STICK_W_MM + 3
            for o in segs
        ):
            continue
        label += 1
        _wood(cv, poly, rng, label, look.wood)
        segs.append({"kind": kind, "centre": c, "angle": angle, "length": length, "ends": ends})
        pieces.append({"kind": kind, "ends_mm": ends.round(1).tolist(), "label": label})
    crossings = sum(
        _segments_cross(a["ends"], b["ends"]) for i, a in enumerate(segs) for b in segs[i + 1 :]
    )
    # A stick mostly hidden by the ones laid after it is not a fair question: redraw.
    for p in pieces:
        full = np.zeros_like(cv.labels, np.uint8)
        if p["kind"] == "shape":
            continue
        seg = next(s for s in segs if np.allclose(s["ends"], np.array(p["ends_mm"]), atol=0.1))
        cv2.fillPoly(
            full,
            [cv.px(_rect(seg["centre"], seg["angle"], seg["length"], STICK_W_MM))],
            1,
            cv2.LINE_8,
            4,
        )
        shown = float((cv.labels[full > 0] == p["label"]).mean())
        if shown < 0.65:
            return draw_board(seed + 7_919, hand=hand, string=string, look=look, tier=tier)

    if string:
        path = _string_path(rng, True)
        pts = cv.px(path)
        sh = np.zeros((cv.h, cv.w), np.uint8)
        cv2.polylines(sh, [pts + 16 * 3], False, 255, round(2.5 * DRAW_PX_PER_MM), cv2.LINE_AA, 4)
        sh = cv2.GaussianBlur(sh, (0, 0), DRAW_PX_PER_MM).astype(np.float32) / 255
        cv.img *= (1 - 0.3 * sh)[:, :, None]
        low, high, thickness = STRING_LOOKS[look.string]
        colour = tuple(float(v) for v in rng.uniform(low, high))
        thick = rng.uniform(*thickness)
        cv2.polylines(cv.img, [pts], False, colour, round(thick * DRAW_PX_PER_MM), cv2.LINE_AA, 4)
        pieces.append({"kind": "string", "length_mm": round(float(len(path)), 1)})

    # The supply beside the board: not counted.
    for _ in range(int(rng.integers(2, 6))):
        c = np.array([rng.uniform(-220, -70), rng.uniform(-100, 350)])
        if rng.random() < 0.6:
            kind = "long_stick" if rng.random() < 0.5 else "short_stick"
            poly = _rect(c, rng.uniform(0, math.pi), STICKS_MM[kind], STICK_W_MM)
            _wood(cv, poly, rng, 0, look.wood)
        else:
            colour = str(rng.choice(list(palette)))
            cv.poly(
                _shape_outline(str(rng.choice(SHAPE_KINDS)), c, rng.uniform(0, 6.3)),
                palette[colour],
            )
    if rng.random() < 0.4:
        cv2.polylines(
            cv.img,
            [cv.px(_string_path(rng, False))],
            False,
            (45, 40, 50)
            if look == KIT_LOOK
            else tuple((a + b) / 2 for a, b in zip(*STRING_LOOKS[look.string][:2], strict=True)),
            round(2.5 * DRAW_PX_PER_MM),
            cv2.LINE_AA,
            4,
        )

    covered = _hand(cv, rng) if hand else False
    hard = np.random.default_rng([seed, HARD_STREAM]) if tier == "hard" else None
    if hard is not None:
        for _ in range(1 if hard.random() < 0.7 else 2):
            covered |= _hand(cv, hard, near=bool(hard.random() < 0.75))

    counts = {
        "long_stick": sum(1 for s in segs if s["kind"] == "long_stick"),
        "short_stick": sum(1 for s in segs if s["kind"] == "short_stick"),
        "shape": len(centres),
        "string": int(string),
    }
    frame = _photograph(cv.img, rng, LIGHTS[look.light], hard)
    return Board(frame, counts, covered, crossings, pieces, look)


def _hand(cv: _Canvas, rng: np.random.Generator, near: bool = False) -> bool:
    """An arm coming in over the bottom or a side of the board, a palm over the canvas (or,
    ``near``, its fingertips short of the canvas on the side the arm comes from: beside
    the board, perhaps over a marker); whether any of it covers part of the canvas."""
    skin = np.array(rng.uniform([90, 120, 170], [140, 170, 225]))
    if near:
        side = int(rng.integers(0, 3))
        low, high = ([-40, 300], [400, 380]) if side == 0 else ([-140, -20], [-45, 280])
        tip = rng.uniform(low, high)
        if side == 2:
            tip[0] = CANVAS_W_MM - tip[0]
    else:
        tip = rng.uniform([80, 70], [CANVAS_W_MM - 80, CANVAS_H_MM - 60])
        side = int(rng.integers(0, 3))
    start = {
        0: np.array([tip[0] + rng.uniform(-80, 80), 420.0]),
        1: np.array([-250.0, tip[1] + rng.uniform(-60, 60)]),
        2: np.array([610.0, tip[1] + rng.uniform(-60, 60)]),
    }[int(side)]
    d = tip - start
    d /= np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    wrist = tip - d * 90
    arm = np.array([start + n * 45, wrist + n * 38, wrist - n * 38, start - n * 45])
    cv.shadow(arm, (6, 8))
    palm = wrist - d * 5
    ax = (int(60 * DRAW_PX_PER_MM), int(42 * DRAW_PX_PER_MM))
    centre = tuple(int(v) for v in cv.px((palm + d * 45)[None])[0] // 16)
    angle = math.degrees(math.atan2(d[1], d[0]))
    fingers = []
    for f in range(4):
        base = palm + d * 80 + n * (-27 + 18 * f)
        fingers.append((base, base + d * rng.uniform(25, 45)))
    # drawn on the picture, and on a mask of the hand to tell whether it covers the canvas
    mask = np.zeros((cv.h, cv.w), np.uint8)
    for img, arm_c, palm_c, finger_c in (
        (cv.img, skin * 0.95, skin, skin * 1.02),
        (mask, (1,), (1,), (1,)),
    ):
        cv2.fillPoly(img, [cv.px(arm)], tuple(float(v) for v in arm_c), cv2.LINE_AA, 4)
        cv2.ellipse(
            img, centre, ax, angle, 0, 360, tuple(float(v) for v in palm_c), -1, cv2.LINE_AA
        )
        for base, tipf in fingers:
            cv2.line(
                img,
                tuple(cv.px(base[None])[0]),
                tuple(cv.px(tipf[None])[0]),
                tuple(float(v) for v in finger_c),
                round(15 * DRAW_PX_PER_MM),
                cv2.LINE_AA,
                4,
            )
    x0, y0 = (-np.array(TABLE_MM[:2]) * DRAW_PX_PER_MM).round().astype(int)
    w, h = round(CANVAS_W_MM * DRAW_PX_PER_MM), round(CANVAS_H_MM * DRAW_PX_PER_MM)
    return bool(mask[y0 : y0 + h, x0 : x0 + w].any())


def _photograph(
    img: NDArray[np.float32],
    rng: np.random.Generator,
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0),
    hard: np.random.Generator | None = None,
) -> NDArray[np.uint8]:
    """The flat drawing as a 1280 x 720 camera sees it: a homography (scale 0.95-1.5 px/mm,
    turned up to 15 degrees, corners tilted by up to 5%), uneven light of colour ``gains``
    (BGR gains), blur, noise, JPEG.

    With ``hard`` (the hard tier's own random stream; ``rng`` draws as for the normal tier,
    so that the rest of the photo stays as it was): the board seen by a pinhole camera,
    tilted up to 40 degrees (``_tilted_camera``), a glare spot, more blur (defocus, and
    motion on half the boards) and JPEG quality 40-80."""
    w, h = FRAME_WH
    scale = rng.uniform(0.95, 1.5)
    ang = math.radians(rng.uniform(-15, 15))
    cx, cy = w / 2 + rng.uniform(-60, 60), h / 2 + rng.uniform(-30, 30)
    canvas = np.array([[0, 0], [CANVAS_W_MM, 0], [CANVAS_W_MM, CANVAS_H_MM], [0, CANVAS_H_MM]])
    mid = canvas.mean(0)
    rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
    dst = (canvas - mid) @ rot.T * scale + [cx, cy]
    dst += rng.uniform(-0.05, 0.05, (4, 2)) * scale * np.array([CANVAS_W_MM, CANVAS_H_MM])
    src = (canvas - TABLE_MM[:2]) * DRAW_PX_PER_MM
    hm = np.asarray(
        cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)), np.float64
    )
    # Anti-alias before shrinking (the drawing has ~3 px per frame pixel).
    sigma = 0.45 * DRAW_PX_PER_MM / scale
    if hard is not None:
        hm, least = _tilted_camera(hard, scale, ang, (cx, cy))
        sigma = 0.45 / least
    smooth = cv2.GaussianBlur(img, (0, 0), sigma)
    out = cv2.warpPerspective(
        smooth,
        hm,
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )
    seen = cv2.warpPerspective(
        np.ones(img.shape[:2], np.float32),
        hm,
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
    )
    # Beyond the drawing: more of the table, its mean colour with a little texture.
    table = img[: 40 * round(DRAW_PX_PER_MM)].reshape(-1, 3).mean(0)
    rest = (
        table[None, None, :]
        + cv2.GaussianBlur(rng.normal(0, 5, (h, w)).astype(np.float32), (0, 0), 2)[:, :, None]
    )
    out = out + (1 - seen)[:, :, None] * rest
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    lx, ly = rng.uniform(-1, 1, 2)
    light = 1.0 + rng.uniform(0.05, 0.18) * (lx * (xx / w - 0.5) + ly * (yy / h - 0.5))
    light *= rng.uniform(0.85, 1.05)
    tint = (rng.uniform(0.97, 1.03, 3) * np.array(gains)).astype(np.float32)
    out = out * light[:, :, None] * tint[None, None, :]
    if hard is not None and hard.random() < 0.8:
        out = _glare(np.asarray(out, np.float32), hm, hard)
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.1))
    if hard is not None:
        out = _hard_blur(np.asarray(out, np.float32), hard)
    out += rng.normal(0, rng.uniform(1.5, 4.0), out.shape).astype(np.float32)
    frame = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.integers(80, 95))
    if hard is not None:
        quality = int(hard.integers(40, 81))
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError("cannot encode JPEG")
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


def _tilted_camera(
    hard: np.random.Generator, scale: float, turn: float, centre: tuple[float, float]
) -> tuple[NDArray[np.float64], float]:
    """(drawing px -> frame px, the least frame px per drawing px at the canvas's corners):
    a pinhole camera (focal ``FOCAL_PX``) whose axis meets the canvas centre, the board
    turned by ``turn`` in its plane and then tilted by up to ``MAX_TILT_DEG`` about a
    random line in it, at the distance that sees ``scale`` px/mm at the canvas centre (less
    by steps of 8% until the four markers lie inside the frame), the canvas centre at
    frame pixel ``centre`` (the principal point)."""
    tilt = math.radians(hard.uniform(0.0, MAX_TILT_DEG))
    axis = hard.uniform(0.0, 2 * math.pi)
    spin = np.array(
        [[math.cos(turn), -math.sin(turn), 0], [math.sin(turn), math.cos(turn), 0], [0, 0, 1]]
    )
    lean, _ = cv2.Rodrigues(np.array([math.cos(axis), math.sin(axis), 0.0]) * tilt)
    rot = lean @ spin
    mid = np.array([CANVAS_W_MM / 2, CANVAS_H_MM / 2])
    # drawing px -> board mm from the canvas centre
    k = DRAW_PX_PER_MM
    to_mm = np.array(
        [[1 / k, 0, TABLE_MM[0] - mid[0]], [0, 1 / k, TABLE_MM[1] - mid[1]], [0, 0, 1]]
    )
    outer = np.array([[-30, -30], [390, -30], [390, 290], [-30, 290]], np.float64) - mid
    w, h = FRAME_WH
    for _ in range(12):
        cam = np.array([[FOCAL_PX, 0, centre[0]], [0, FOCAL_PX, centre[1]], [0, 0, 1]])
        plane = cam @ np.column_stack([rot[:, 0], rot[:, 1], [0, 0, FOCAL_PX / scale]])
        seen = cv2.perspectiveTransform(outer.reshape(-1, 1, 2), plane).reshape(-1, 2)
        if (seen >= 4).all() and (seen[:, 0] <= w - 5).all() and (seen[:, 1] <= h - 5).all():
            break
        scale *= 0.92
    hm = plane @ to_mm
    least = min(_least_gain(hm, (c + mid - TABLE_MM[:2]) * k) for c in outer)
    return hm, least


def _least_gain(hm: NDArray[np.float64], p: NDArray[np.float64]) -> float:
    """The least stretch (smaller singular value of the Jacobian) of homography ``hm`` at
    point ``p``."""
    x, y = float(p[0]), float(p[1])
    u, v, z = hm @ np.array([x, y, 1.0])
    jac = np.array(
        [
            [(hm[0, 0] * z - u * hm[2, 0]) / z**2, (hm[0, 1] * z - u * hm[2, 1]) / z**2],
            [(hm[1, 0] * z - v * hm[2, 0]) / z**2, (hm[1, 1] * z - v * hm[2, 1]) / z**2],
        ]
    )
    return float(np.linalg.svd(jac, compute_uv=False)[-1])


def _glare(
    out: NDArray[np.float32], hm: NDArray[np.float64], hard: np.random.Generator
) -> NDArray[np.float32]:
    """A glare spot: a bright soft blob (40-140 px, adding 60-220 grey levels at its
    middle, so that sometimes the board saturates there) somewhere over the board."""
    spot_mm = hard.uniform([-30.0, -30.0], [CANVAS_W_MM + 30, CANVAS_H_MM + 30])
    spot = (spot_mm - TABLE_MM[:2]) * DRAW_PX_PER_MM
    gx, gy = cv2.perspectiveTransform(spot.reshape(1, 1, 2), hm).reshape(2)
    radius, peak = hard.uniform(40, 140), hard.uniform(60, 220)
    h, w = out.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    blob = peak * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * radius**2))
    return np.asarray(out + blob[:, :, None], np.float32)


def _hard_blur(out: NDArray[np.float32], hard: np.random.Generator) -> NDArray[np.float32]:
    """More blur: defocus (a Gaussian of 0.6-1.6 px more) and, on half the boards, motion
    (a line 3-9 px long at any angle)."""
    out = np.asarray(cv2.GaussianBlur(out, (0, 0), hard.uniform(0.6, 1.6)), np.float32)
    if hard.random() < 0.5:
        length = hard.uniform(3.0, 9.0)
        angle = hard.uniform(0.0, math.pi)
        size = math.ceil(length) | 1
        kernel = np.zeros((size, size), np.float32)
        c = (size - 1) / 2
        dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
        cv2.line(
            kernel,
            (round((c - dx) * 16), round((c - dy) * 16)),
            (round((c + dx) * 16), round((c + dy) * 16)),
            1.0,
            1,
            cv2.LINE_AA,
            4,
        )
        out = np.asarray(cv2.filter2D(out, -1, kernel / max(float(kernel.sum()), 1e-6)), np.float32)
    return out


def board_look(seed: int, looks: str, string: str | None = None) -> Look:
    """The look of board ``seed`` in a run of ``looks`` ("kit": ``KIT_LOOK``; "dev" or
    "held": drawn from that group), its string's look forced to ``string`` if given."""
    look = KIT_LOOK if looks == "kit" else pick_look(seed, looks)
    if string is not None:
        look = replace(look, string=string)
    return look


def measure(
    n: int,
    seed: int = 0,
    *,
    looks: str = "kit",
    string: str | None = None,
    profile: Any = None,
    tier: str = "normal",
) -> dict[str, Any]:
    """Read ``n`` drawn boards of camera ``tier`` (scene ``i`` uses seed ``seed * 100_003 +
    i``, in the looks of ``board_look``; ``profile``: a kit profile for the reader, None
    for the default): boards with a hand over the canvas must be reported occluded; the
    others counted exactly. Failures name the board's look."""
    from calibration.result import Failure
    from pictable.bench.readers.picasso_fails import reading_scale
    from vision.picasso import read_board

    kwargs = {} if profile is None else {"profile": profile}
    cv2.setNumThreads(1)
    counted = right = cost_right = occluded = occ_found = false_occ = no_board = 0
    doubted = doubted_right = 0
    scales: list[tuple[float, bool]] = []
    ms: list[float] = []
    failures: list[dict[str, Any]] = []
    for i in range(n):
        board_seed = seed * 100_003 + i
        b = draw_board(board_seed, look=board_look(board_seed, looks, string), tier=tier)
        t0 = time.thread_time()
        r = read_board(b.frame, **kwargs)
        ms.append(1e3 * (time.thread_time() - t0))
        if b.hand:
            occluded += 1
            found = not isinstance(r, Failure) and r.occluded
            occ_found += int(found)
            if not found:
                failures.append({"index": i, "look": b.look.name(), "occlusion_missed": True})
            continue
        counted += 1
        if isinstance(r, Failure):
            no_board += 1
            failures.append({"index": i, "look": b.look.name(), "error": r.reason})
            continue
        if r.occluded:
            false_occ += 1
            failures.append({"index": i, "look": b.look.name(), "false_occlusion": True})
            continue
        got = r.counts or {}
        ok = all(got.get(k, 0) == v for k, v in b.counts.items())
        right += ok
        scales.append((reading_scale(r), bool(ok)))
        if r.doubt:
            doubted += 1
            doubted_right += ok
        cost_right += r.cost == b.cost
        if not ok:
            failures.append(
                {
                    "index": i,
                    "look": b.look.name(),
                    "want": b.counts,
                    "got": got,
                    "crossings": b.crossings,
                }
            )
    return {
        "boards": n,
        "tier": tier,
        "looks": looks,
        "counted": counted,
        "counts_right": right,
        "cost_right": cost_right,
        "no_board": no_board,
        "false_occlusion": false_occ,
        "occluded": occluded,
        "occlusion_found": occ_found,
        "cpu_ms_median": round(float(np.median(ms)), 1) if ms else None,
        "doubted": doubted,
        "doubted_right": doubted_right,
        "scales": scales,
        "failures": failures,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=100, help="boards to draw (default 100)")
    ap.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    ap.add_argument(
        "--looks",
        choices=("kit", "dev", "held"),
        default="kit",
        help="kit: KIT.md's look on every board; dev / held: a random development or "
        "held-back look per board (default kit)",
    )
    ap.add_argument("--string", choices=sorted(STRING_LOOKS), help="force the string's look")
    ap.add_argument(
        "--tier",
        choices=TIERS,
        default="normal",
        help="normal: the camera as always; hard: tilted up to 40 degrees, more blur, glare, "
        "JPEG 40-80, 1-2 more hands near or over the board (default normal)",
    )
    ap.add_argument("--kit", type=Path, help="a kit profile (kit learn picasso) for the reader")
    ap.add_argument("--out", type=Path, help="write the photos (PNG) and their truth here")
    args = ap.parse_args(argv)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for i in range(args.n):
            board_seed = args.seed * 100_003 + i
            look = board_look(board_seed, args.looks, args.string)
            b = draw_board(board_seed, look=look, tier=args.tier)
            cv2.imwrite(str(args.out / f"board_{i:03d}.png"), b.frame)
            truth = {"counts": b.counts, "hand": b.hand, "crossings": b.crossings}
            truth["tier"] = args.tier
            truth["look"] = asdict(b.look)
            (args.out / f"board_{i:03d}.json").write_text(json.dumps(truth))
        return 0
    profile = None
    if args.kit is not None:
        from vision.picasso.profile import load_profile

        profile = load_profile(args.kit)
    res = measure(
        args.n, args.seed, looks=args.looks, string=args.string, profile=profile, tier=args.tier
    )
    print(json.dumps({k: v for k, v in res.items() if k != "failures"}))
    for f in res["failures"]:
        print("  ", f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
