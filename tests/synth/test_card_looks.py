"""Card looks (issue 26, part 7): the synthetic camera draws card scenes in other looks than
the kit's (card stock, ink, sleeves, tables, light) without moving a card, the held-back
looks are never drawn in the development group, and the kit look renders exactly as before."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
import pytest

from vision.identify.scenes import make_scene, scene_seed, scenes
from vision.synth import (
    CARD_LOOK_GROUPS,
    KIT_CARD_LOOK,
    card_look,
    random_card_look,
    random_cards_scene,
)
from vision.synth.effects import scene_effects
from vision.synth.sprites import look_face, sleeve_sprite
from vision.synth.textures import TABLE_TILE_PPM, table_tile

#: Scene 0 of run seed 1, codes, normal tier (5 cards).
SCENE = scene_seed(1, 0)
#: Its frame as rendered before card looks existed.
KIT_SHA256 = "259c1899265204cd8f2b43cf23a37b4ee0d102fea135935d5fb3dafeceee0f03"


def test_the_kit_look_renders_as_before_card_looks_existed() -> None:
    frame, _ = make_scene("codes", "normal", SCENE)
    assert hashlib.sha256(frame.tobytes()).hexdigest() == KIT_SHA256
    again, _ = make_scene("codes", "normal", SCENE, "kit")
    assert np.array_equal(frame, again)
    assert card_look(SCENE, None) == KIT_CARD_LOOK


def test_a_look_moves_no_card() -> None:
    """The look is drawn from a stream of its own: the scene's cards, camera and truth are
    the same under every look, and only the pixels differ."""
    kit_frame, kit = make_scene("codes", "hard", SCENE)
    for group in ("dev", "wide", "held"):
        frame, truth = make_scene("codes", "hard", SCENE, group)
        assert [c.card_id for c in truth.cards] == [c.card_id for c in kit.cards]
        for a, b in zip(truth.cards, kit.cards, strict=True):
            assert np.allclose(a.corners_px, b.corners_px)
            assert a.visible_fraction == pytest.approx(b.visible_fraction, abs=0.02)
        assert not np.array_equal(frame, kit_frame)


def _names_drawn(group: str, scenes: int) -> dict[str, set[str]]:
    """The names each part of the look took in scenes ``0 .. scenes-1`` under ``group``."""
    seen: dict[str, set[str]] = {}
    for s in range(scenes):
        for part, name in card_look(s, group).names().items():
            seen.setdefault(part, set()).add(name)
    return seen


def test_held_back_looks_never_appear_among_development_looks() -> None:
    dev, held = CARD_LOOK_GROUPS["dev"], CARD_LOOK_GROUPS["held"]
    for part in ("table", "paper"):
        assert not set(dev[part]) & set(held[part]), part
    assert "glossy" in held["sleeve"] and "glossy" not in dev["sleeve"]
    assert "faded" in held["ink"] and "faded" not in dev["ink"]
    assert "cool" in held["light"] and "cool" not in dev["light"]
    for part, names in _names_drawn("dev", 300).items():
        assert names == set(dev[part]), part  # every development name drawn, nothing else


def test_the_wide_development_looks_draw_no_held_back_name() -> None:
    wide, held, dev = (CARD_LOOK_GROUPS[g] for g in ("wide", "held", "dev"))
    for part, names in _names_drawn("wide", 400).items():
        assert names == set(wide[part]), part  # every wide name drawn, nothing else
        assert not names & (set(held[part]) - set(dev[part])), part  # only shared defaults
        assert set(dev[part]) < names, part  # the development looks and more


def test_an_unknown_look_group_is_refused() -> None:
    with pytest.raises(ValueError, match="look group"):
        random_card_look(np.random.default_rng(0), "bogus")


def test_the_looks_light_tints_the_scene() -> None:
    rng = np.random.default_rng(SCENE)
    look = random_card_look(np.random.default_rng(2), "held")
    spec = random_cards_scene(rng, "normal", 4, look=look)
    tint = scene_effects(spec).tint_bgr
    want = [a * b for a, b in zip(spec.effects.tint_bgr, look.light_bgr, strict=True)]
    assert np.allclose(tint, want)


def test_a_face_printed_faded_on_cream_stock() -> None:
    face = np.zeros((20, 30, 3), np.uint8)
    face[:, :10] = 255  # paper
    face[:, 10:20] = (0, 0, 0)  # black ink
    face[:, 20:] = (40, 40, 200)  # a red
    assert look_face(face, (1.0, 1.0, 1.0), 1.0, 1.0) is face
    out = look_face(face, (0.86, 0.95, 1.0), 0.7, 0.6).astype(int)
    assert tuple(out[0, 0]) == (219, 242, 255)  # white paper takes the stock's tint
    assert 60 < out[0, 15].mean() < 90  # black ink fades towards the paper
    red = out[0, 25]
    assert red[2] - red[0] < 200 - 40  # and the red is less saturated


def test_a_sleeve_reaches_past_the_card_with_a_brighter_rim() -> None:
    ppm = 4.0
    tex = sleeve_sprite((63.0, 88.0), 1.5, 0.1, 0.0, 0.0, ppm)
    assert tex.size_mm == pytest.approx((66.0, 91.0))
    alpha = tex.bgra[..., 3].astype(float) / 255
    h, w = alpha.shape
    assert alpha[h // 2, w // 2] == pytest.approx(0.1, abs=0.01)  # haze over the card
    assert alpha[h // 2, 1] > 0.25  # the rim, 1.5 mm beyond the card's edge
    assert alpha[0, 0] == 0  # the rounded corner leaves the table clear
    glossy = sleeve_sprite((63.0, 88.0), 1.5, 0.03, 0.3, 0.0, ppm).bgra[..., 3]
    assert glossy[h // 2, w // 2] > glossy[h // 2, 8] + 40  # a band of sheen across it


def test_scenes_in_a_look_group_are_cached_apart(tmp_path) -> None:
    kit = [f for _, f, _ in scenes("codes", "normal", 1, 1, tmp_path)]
    held = [f for _, f, _ in scenes("codes", "normal", 1, 1, tmp_path, "held")]
    assert (tmp_path / "codes-normal-1").is_dir() and (tmp_path / "codes-normal-1-held").is_dir()
    assert not np.array_equal(kit[0], held[0])
    cached = [f for _, f, _ in scenes("codes", "normal", 1, 1, tmp_path, "held")]
    assert np.array_equal(cached[0], held[0])


def test_a_printed_cloth_has_small_dark_marks_on_a_light_ground() -> None:
    """The wide looks' ``motif`` table: dark squares and dots of 5-14 mm (a far card's marker
    size) on a light ground, across the tile's wrap too (it tiles without a seam)."""
    tile = table_tile("motif", (30, 30, 32), 7)
    grey = cv2.cvtColor(tile, cv2.COLOR_BGR2GRAY)
    dark = (grey < 120).astype(np.uint8)
    assert 0.03 < dark.mean() < 0.3
    assert np.median(grey[dark == 0]) > 190
    for axis in (0, 1):  # the last row (column) runs on into the first as any two do
        a = np.take(dark, [-1, 0], axis).swapaxes(0, axis)
        b = np.take(dark, [100, 101], axis).swapaxes(0, axis)
        assert np.mean(a[0] != a[1]) <= 3 * np.mean(b[0] != b[1]) + 0.01
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    sides_mm = np.sqrt(stats[1:, cv2.CC_STAT_AREA]) / TABLE_TILE_PPM
    assert n - 1 >= 14 * 14 - 20  # a mark at each point of its grid (a few may touch)
    assert 4.0 < float(np.median(sides_mm)) < 14.0
