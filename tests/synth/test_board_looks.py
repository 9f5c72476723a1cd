"""Board looks (issue 25): the synthetic camera draws the Picasso kit in other looks than
KIT.md's (string colour and thickness, wood or paint, shape colours, canvas, light,
shadows) without changing the pieces, and the kit look renders exactly as before."""

from __future__ import annotations

import hashlib
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest

from vision.picasso.dataset import board_folder, iter_boards, scene_seed
from vision.synth import (
    KIT_LOOK,
    LOOK_GROUPS,
    BoardLook,
    SceneSpec,
    Truth,
    board_look,
    random_board_look,
    random_picasso_board,
    render_scene,
)
from vision.synth.effects import scene_effects
from vision.synth.looks import SHAPE_LOOKS, STRING_LOOKS, WOOD_LOOKS

#: Board 0 of run seed 1 (normal tier: 4 sticks, 2 shapes and the string on the canvas).
SCENE = scene_seed(1, 0)
#: Its frame as rendered before looks existed (the PNG cached by the benchmark then).
KIT_SHA256 = "fa9ff06cd362362fd7d8bce2be11e59232d3f95ed168d6a7b5580acf7c5421d5"


def _look(group: str, string: str, wood: str, shapes: str = "kit") -> BoardLook:
    """A random look of ``group`` with the string, wood and shape palette named."""
    bgr, (t0, t1) = STRING_LOOKS[string]
    wood_bgr, paint, grain = WOOD_LOOKS[wood]
    look = random_board_look(np.random.default_rng(3), group)
    return replace(
        look,
        string=string,
        string_bgr=bgr,
        string_mm=(t0 + t1) / 2,
        wood=wood,
        stick_bgr=wood_bgr,
        paint=paint,
        stick_grain=grain,
        shapes=shapes,
        shape_bgr=SHAPE_LOOKS[shapes],
    )


DEV = _look("dev", "white", "painted-red")
HELD = _look("held", "green", "painted-green", "bright")


def _render(look: BoardLook | None) -> tuple[SceneSpec, np.ndarray, Truth]:
    spec = random_picasso_board(np.random.default_rng(SCENE), "normal", look=look)
    frame, truth = render_scene(spec, seed=SCENE)
    return spec, frame, truth


@pytest.fixture(scope="module")
def kit() -> tuple[SceneSpec, np.ndarray, Truth]:
    return _render(None)


@pytest.fixture(scope="module")
def dev() -> tuple[SceneSpec, np.ndarray, Truth]:
    return _render(DEV)


@pytest.fixture(scope="module")
def held() -> tuple[SceneSpec, np.ndarray, Truth]:
    return _render(HELD)


def test_the_kit_look_renders_exactly_as_before(kit: tuple[SceneSpec, np.ndarray, Truth]) -> None:
    _, frame, _ = kit
    assert hashlib.sha256(frame.tobytes()).hexdigest() == KIT_SHA256


def test_the_kit_look_given_is_no_look() -> None:
    a = random_picasso_board(np.random.default_rng(SCENE), "normal")
    b = random_picasso_board(np.random.default_rng(SCENE), "normal", look=KIT_LOOK)
    for f in fields(SceneSpec):
        if f.name != "camera":  # compared by identity
            assert getattr(a, f.name) == getattr(b, f.name), f.name
    assert a.board is not None and a.board.look == KIT_LOOK
    assert scene_effects(a) is a.effects  # neutral light: the effects themselves


def test_a_look_keeps_the_pieces(
    kit: tuple[SceneSpec, np.ndarray, Truth], held: tuple[SceneSpec, np.ndarray, Truth]
) -> None:
    """The look is drawn from its own stream: the same seed lays the same pieces (only the
    shapes' colour names follow the palette) and the same counts."""
    ks, _, kt = kit
    hs, _, ht = held
    assert ks.board is not None and hs.board is not None
    assert ks.board.center_mm == hs.board.center_mm and ks.hands == hs.hands
    assert kt.board is not None and ht.board is not None
    assert kt.board.counts == ht.board.counts and kt.board.cost == ht.board.cost
    for a, b in zip(kt.board.pieces, ht.board.pieces, strict=True):
        assert a.kind == b.kind and a.shape == b.shape
        np.testing.assert_array_equal(a.polygon_mm, b.polygon_mm)
        np.testing.assert_array_equal(a.polyline_mm, b.polyline_mm)
    kit_colours = [str(p.colour) for p in kt.board.pieces if p.kind == "shape"]
    held_colours = [str(p.colour) for p in ht.board.pieces if p.kind == "shape"]
    assert kit_colours and set(kit_colours) <= {"red", "blue", "yellow", "green"}
    palette = [name for name, _ in SHAPE_LOOKS["bright"]]
    kit_order = ["red", "blue", "yellow", "green"]
    assert held_colours == [palette[kit_order.index(c)] for c in kit_colours]


def _string_pixels(frame: np.ndarray, truth: Truth) -> np.ndarray:
    """(N, 3) BGR of the frame along the string on the canvas, away from the sticks and
    shapes (which may lie over it)."""
    assert truth.board is not None
    strings = [p for p in truth.board.pieces if p.kind == "string" and p.on_canvas]
    assert strings
    others = [p.polygon_px for p in truth.board.pieces if p.kind != "string" and len(p.polygon_px)]
    pts = strings[0].polyline_px
    keep = []
    for x, y in pts:
        near = min(
            (float(np.hypot(*(np.asarray(o) - (x, y)).T).min()) for o in others), default=99.0
        )
        if near > 25:
            keep.append(frame[round(y), round(x)])
    assert len(keep) > 20
    return np.asarray(keep, np.float64)


def _stick_pixels(frame: np.ndarray, truth: Truth) -> np.ndarray:
    """(N, 3) BGR along the middle of the centre line of the most visible stick."""
    assert truth.board is not None
    sticks = [p for p in truth.board.pieces if p.kind.endswith("_stick") and p.on_canvas]
    s = max(sticks, key=lambda p: p.visible_fraction)
    a, b = np.asarray(s.endpoints_px, np.float64)
    ts = np.linspace(0.3, 0.7, 15)
    return np.asarray([frame[round(y), round(x)] for x, y in a + ts[:, None] * (b - a)], np.float64)


def test_looks_render(
    kit: tuple[SceneSpec, np.ndarray, Truth],
    dev: tuple[SceneSpec, np.ndarray, Truth],
    held: tuple[SceneSpec, np.ndarray, Truth],
) -> None:
    """A development look (white string, red paint) and a held-back look (green string,
    green paint, bright shapes) render at the camera's size, and the string and the
    sticks take the look's colours where they lie."""
    _, kf, kt = kit
    for _, frame, truth in (dev, held):
        assert frame.shape == kf.shape and frame.dtype == np.uint8
        assert truth.board is not None and kt.board is not None
        assert truth.board.counts == kt.board.counts
    kit_string = np.median(_string_pixels(kf, kt), axis=0)
    white = np.median(_string_pixels(dev[1], dev[2]), axis=0)
    green = np.median(_string_pixels(held[1], held[2]), axis=0)
    assert kit_string.max() < 90  # the kit's dark cord
    assert white.min() > kit_string.max() + 80
    assert green[1] > 1.3 * green[0] and green[1] > 1.3 * green[2]
    b, g, r = np.median(_stick_pixels(dev[1], dev[2]), axis=0)
    assert r > 2 * g and r > 2 * b  # painted red
    b, g, r = np.median(_stick_pixels(held[1], held[2]), axis=0)
    assert g > 1.5 * r and g > 1.3 * b  # painted green
    b, g, r = np.median(_stick_pixels(kf, kt), axis=0)
    assert r > g > b and r < 2.2 * b  # the kit's light wood (not painted red)


def test_groups_draw_only_their_names() -> None:
    """``random_board_look`` never draws a held-back name in the dev group nor the other
    way round, and the held-back parts (string colours, woods) share no name."""
    for part in ("string", "wood"):
        assert not set(LOOK_GROUPS["dev"][part]) & set(LOOK_GROUPS["held"][part])
    rng = np.random.default_rng(0)
    for group, parts in LOOK_GROUPS.items():
        seen: dict[str, set[str]] = {p: set() for p in parts}
        for _ in range(300):
            look = random_board_look(rng, group)
            for part, name in look.names().items():
                assert name in parts[part], (group, part, name)
                seen[part].add(name)
            assert 1.5 <= (look.string_mm or 0) <= 4.0
        assert seen == {p: set(v) for p, v in parts.items()}, group
    with pytest.raises(ValueError, match="group"):
        random_board_look(rng, "all")


def test_board_look_streams() -> None:
    """The look of a scene comes from its own stream: the same for the same seed, the kit
    look for a kit run."""
    assert board_look(SCENE, None) is KIT_LOOK and board_look(SCENE, "kit") is KIT_LOOK
    assert board_look(SCENE, "dev") == board_look(SCENE, "dev")
    assert board_look(SCENE, "dev") != board_look(SCENE + 1, "dev")
    assert board_look(SCENE, "held").string in LOOK_GROUPS["held"]["string"]


def test_warm_light_tints_the_scene(kit: tuple[SceneSpec, np.ndarray, Truth]) -> None:
    spec = kit[0]
    assert spec.board is not None
    warm = replace(spec, board=replace(spec.board, look=BoardLook(light_bgr=(0.9, 1.0, 1.1))))
    tint = scene_effects(warm).tint_bgr
    assert tint == pytest.approx(
        (0.9 * spec.effects.tint_bgr[0], spec.effects.tint_bgr[1], 1.1 * spec.effects.tint_bgr[2])
    )


def test_cached_boards_per_look(tmp_path: Path) -> None:
    assert board_folder("normal", 1) == board_folder("normal", 1, "kit") == "normal-seed1"
    assert board_folder("normal", 1, "dev") == "normal-dev-seed1"
    (b,) = list(iter_boards("easy", 1, 4, cache_dir=tmp_path, looks="held"))
    assert (tmp_path / "picasso" / "easy-held-seed4" / "0000.png").is_file()
    assert b.look == board_look(b.seed, "held").names()
    (again,) = list(iter_boards("easy", 1, 4, cache_dir=tmp_path, looks="held"))
    assert again.look == b.look and np.array_equal(again.frame, b.frame)
    with pytest.raises(ValueError, match="looks"):
        board_folder("normal", 1, "all")


def test_wide_looks_keep_out_of_held_back_colours() -> None:
    """The training looks (``wide``) draw string, stick and shape colours anywhere, yet never
    within ``HOLE_DE`` of a held-back colour of the same part, and never a held-back canvas,
    texture or light: the held-back looks stay unseen by the pixel model."""
    from vision.synth.looks import HOLE_DE, _held_colours, _lab, random_wide_look

    rng = np.random.default_rng(7)
    strings, sticks = [], []
    for _ in range(200):
        look = random_wide_look(rng)
        assert look.string_bgr is not None and look.stick_bgr is not None
        for part, colours in (
            ("string", [look.string_bgr]),
            ("wood", [look.stick_bgr]),
            ("shapes", [c for _, c in look.shape_bgr]),
        ):
            for c in colours:
                assert min(np.linalg.norm(_lab(c) - h) for h in _held_colours(part)) >= HOLE_DE
        assert look.canvas in LOOK_GROUPS["dev"]["canvas"]
        assert look.texture in LOOK_GROUPS["dev"]["texture"]
        assert look.light in LOOK_GROUPS["dev"]["light"]
        assert 1.5 <= (look.string_mm or 0) <= 4.0
        strings.append(_lab(look.string_bgr))
        sticks.append(_lab(look.stick_bgr))
    # wide indeed: strings from near black to near white, sticks pale to dark
    assert min(c[0] for c in strings) < 15 and max(c[0] for c in strings) > 90
    assert min(c[0] for c in sticks) < 30 and max(c[0] for c in sticks) > 80
    assert board_look(SCENE, "wide") == board_look(SCENE, "wide")
