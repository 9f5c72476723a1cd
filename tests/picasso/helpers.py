"""Rendered boards and turns for the Picasso tests: a card-art provider whose Picasso cards
carry printed codes, so that the drawn card can be named without the printable kit."""

from __future__ import annotations

import cv2
import numpy as np

from vision.picasso import segment as seg
from vision.picasso.board import PX_PER_MM, BoardView, find_board
from vision.picasso.learn import LearnedKit, learn_kit
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.stick_lines import WOOD_PX
from vision.synth import StandInTextures
from vision.synth.textures import Face

#: ``DICT_4X4_1000`` ids for the stand-in deck's Picasso cards (card k: FIRST + 2k front).
FIRST_ID = 600


class CodedCards(StandInTextures):
    """Stand-in card art with two ``DICT_4X4_1000`` markers (22 mm) on each Picasso front,
    ids from ``marker_of``."""

    name = "standin-coded"

    def card_face(self, card_id: str, face: Face, px_per_mm: float) -> np.ndarray:
        img = super().card_face(card_id, face, px_per_mm).copy()
        mid = marker_of(card_id) if face == "front" else None
        if mid is None:
            return img
        d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000)
        side = round(22 * px_per_mm)
        pad = round(3 * px_per_mm)
        mark = cv2.aruco.generateImageMarker(d, mid, side)
        h, w = img.shape[:2]
        for x, y in (
            (pad + round(4 * px_per_mm), pad + round(4 * px_per_mm)),
            (w - side - pad - round(4 * px_per_mm), h - side - pad - round(4 * px_per_mm)),
        ):
            img[y - pad : y + side + pad, x - pad : x + side + pad] = 255
            img[y : y + side, x : x + side] = mark[:, :, None]
        return img


def marker_of(card_id: str) -> int | None:
    """The marker id printed on a stand-in Picasso card's front."""
    if not card_id.startswith("picasso-"):
        return None
    return FIRST_ID + 2 * (int(card_id.split("-")[1]) - 1)


def table(marker: int) -> tuple[str, str] | None:
    """``marker -> (card id, face)`` for ``CodedCards``."""
    k = marker - FIRST_ID
    if k < 0 or k % 2 or k // 2 >= 40:
        return None
    return (f"picasso-{k // 2 + 1:03d}", "front")


def board_scene(
    pieces: list, seed: int = 0, tier: str = "easy", *, n_hands: int = 0, supply: bool = False
):
    """A rendered-board scene spec of ``tier`` (camera, light, table drawn from ``seed``)
    with exactly ``pieces`` (``vision.synth`` piece specs, board mm) on the board
    (``vision.picasso.dataset.board_with``)."""
    from vision.picasso.dataset import board_with

    return board_with(pieces, seed, tier, n_hands=n_hands, supply=supply)


def laid_apart() -> list:
    """Every kind of piece, laid apart on the canvas (for ``kit learn``): two long and two
    short sticks, one shape of each kind in four colours, and the string in a loose curve."""
    from vision.synth import ShapeSpec, StickSpec, StringSpec

    pieces: list = [
        StickSpec("long_stick", (100.0, 35.0), 0.0),
        StickSpec("long_stick", (100.0, 70.0), 6.0),
        StickSpec("short_stick", (250.0, 35.0), -10.0),
        StickSpec("short_stick", (320.0, 85.0), 80.0),
        ShapeSpec("circle", "red", (50.0, 160.0), 0.0),
        ShapeSpec("square", "blue", (125.0, 160.0), 20.0),
        ShapeSpec("triangle", "yellow", (200.0, 160.0), 10.0),
        ShapeSpec("half_circle", "green", (275.0, 160.0), 30.0),
    ]
    t = np.linspace(0, 1, 120)
    xs = 40 + 280 * t
    ys = 215 + 18 * np.sin(t * 9)
    pieces.append(StringSpec(tuple(zip(xs.tolist(), ys.tolist(), strict=True)), 2.5))
    return pieces


def _touching(
    centre: tuple[float, float], angle_deg: float, along_mm: float, support_mm: float
) -> tuple[float, float]:
    """The centre of a shape whose side (``support_mm`` from its centre) touches, from below,
    the stick at ``centre``/``angle_deg``, ``along_mm`` from the stick's middle."""
    a = np.radians(angle_deg)
    d = np.array([np.cos(a), np.sin(a)])
    n = np.array([-np.sin(a), np.cos(a)])
    c = np.asarray(centre) + d * along_mm + n * (4.0 + support_mm + 0.2)
    return (float(c[0]), float(c[1]))


def scene_a() -> list:
    """Crossed sticks (four crossings), the string over a stick, shapes touching sticks."""
    from vision.synth import ShapeSpec, StickSpec, StringSpec

    pieces: list = [
        # an asterisk of three sticks crossing near one point, and a cross
        StickSpec("long_stick", (90.0, 80.0), 10.0),
        StickSpec("long_stick", (95.0, 85.0), 75.0),
        StickSpec("short_stick", (88.0, 78.0), 130.0),
        StickSpec("long_stick", (250.0, 190.0), 160.0),
        StickSpec("short_stick", (255.0, 185.0), 105.0),
        # a stick the string lies over
        StickSpec("long_stick", (250.0, 70.0), 20.0),
        # shapes touching sticks (placed at the stick's half width + the shape's support)
        ShapeSpec("square", "blue", _touching((90.0, 80.0), 10.0, -35.0, 17.5), 10.0),
        ShapeSpec("circle", "red", _touching((250.0, 70.0), 20.0, 0.0, 20.0), 0.0),
        ShapeSpec("triangle", "yellow", (175.0, 215.0), 0.0),
    ]
    t = np.linspace(0.0, 1.0, 160)
    xs = 185 + 130 * t
    ys = 40 + 60 * t + 12 * np.sin(t * 7)
    pieces.append(StringSpec(tuple(zip(xs.tolist(), ys.tolist(), strict=True)), 2.5))
    return pieces


def scene_b() -> list:
    """Sticks touching end to end (an L, a shallow V), a half-circle by itself, no string."""
    from vision.synth import ShapeSpec, StickSpec

    def touching(first: StickSpec, kind: str, turn: float) -> StickSpec:
        end = first.endpoints_mm()[1]
        a = np.radians(first.angle_deg + turn)
        length = 100.0 if kind == "long_stick" else 50.0
        c = end + np.array([np.cos(a), np.sin(a)]) * length / 2
        return StickSpec(kind, (float(c[0]), float(c[1])), float(first.angle_deg + turn))  # type: ignore[arg-type]

    s1 = StickSpec("long_stick", (90.0, 70.0), 0.0)
    s2 = touching(s1, "short_stick", 90.0)
    s3 = StickSpec("long_stick", (230.0, 170.0), 200.0)
    s4 = touching(s3, "long_stick", 35.0)
    return [s1, s2, s3, s4, ShapeSpec("half_circle", "green", (300.0, 60.0), 45.0)]


#: Light wood once normalised (BGR), for drawn stick bars.
WOOD_BGR = (95, 150, 190)


def wood_bars(
    bars: list[tuple[float, float, float]], s: float = 1.5
) -> tuple[np.ndarray, np.ndarray]:
    """A normalised canvas 200 x 100 mm at ``s`` px/mm and its wood map, with a bar of wood
    8 mm wide along x for each (x0, x1, y) mm of ``bars`` (centred on y), bare canvas
    elsewhere: (normalised BGR, wood map)."""
    h, w = round(100 * s), round(200 * s)
    norm = np.full((h, w, 3), seg.WHITE_LEVEL, np.uint8)
    wm = np.zeros((h, w), np.uint8)
    for x0, x1, y in bars:
        box = np.s_[round((y - 4) * s) : round((y + 4) * s), round(x0 * s) : round(x1 * s)]
        norm[box] = WOOD_BGR
        wm[box] = WOOD_PX
    return norm, wm


def segmentation_of(frame: np.ndarray) -> seg.Segmentation:
    """``vision.picasso.segment.segment`` of the board in ``frame`` (found with the kit
    profile, no calibration)."""
    view = find_board(frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), None, PX_PER_MM)
    assert isinstance(view, BoardView)
    return seg.segment(view.canvas, view.px_per_mm, DEFAULT_PROFILE)


def kit_photo(look_seed: int, wood: str, shadow: str, group: str = "dev") -> np.ndarray:
    """A photo of the kit's pieces laid apart (``picasso_learn.kit_scene``) in our renderer's
    look ``look_seed`` of ``group``, checked to have that ``wood`` and ``shadow``."""
    from pictable.bench.readers.picasso_learn import kit_scene
    from vision.synth import board_look, render_scene

    look = board_look(look_seed, group)
    assert (look.wood, look.shadow) == (wood, shadow)
    frame, _ = render_scene(kit_scene(look_seed, look), seed=look_seed)
    return frame


def learned_kit(frame: np.ndarray) -> LearnedKit:
    """``kit learn``'s profile of a kit photo it must learn from."""
    result = learn_kit(frame)
    assert isinstance(result, LearnedKit), result
    return result
