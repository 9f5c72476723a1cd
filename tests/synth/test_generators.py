"""Random specs: tier ranges, Picasso layouts, cross-checks with the kit's geometry."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from vision.synth import TIERS, StandInTextures, random_cards_scene, random_picasso_board
from vision.synth.generators import count_crossings
from vision.synth.spec import (
    BOARD_MARKER_IDS,
    BOARD_MARKER_MM,
    CANVAS_WH_MM,
    PLAY_AREA_MARKER_MM,
    StickSpec,
    StringSpec,
)


@pytest.mark.parametrize("seed", range(6))
def test_normal_camera_and_card_size(seed: int, standin: StandInTextures) -> None:
    spec = random_cards_scene(np.random.default_rng(seed), "normal", 6, provider=standin)
    cam = spec.camera
    t = TIERS["normal"]
    assert t.height_mm[0] <= cam.height_mm <= t.height_mm[1]
    assert t.tilt_deg[0] <= cam.tilt_deg <= t.tilt_deg[1]
    for c in spec.cards:
        px = cam.project(c.pose.apply(c.corners_local()))
        width = float(np.linalg.norm(px[1] - px[0]))
        assert 45 < width < 130  # ~70-100 px at the view centre, foreshortened at the far edge


@pytest.mark.parametrize("seed", range(10))
def test_normal_picasso_builds(seed: int) -> None:
    spec = random_picasso_board(np.random.default_rng(seed), "normal", supply=False)
    assert spec.board is not None
    sticks = [p for p in spec.board.pieces if isinstance(p, StickSpec)]
    assert 4 <= len(sticks) <= 10
    assert (
        sum(s.kind == "long_stick" for s in sticks) <= 5
        and sum(s.kind == "short_stick" for s in sticks) <= 5
    )
    assert count_crossings(sticks) >= 3
    for p in spec.board.pieces:
        outline = p.polyline_mm() if isinstance(p, StringSpec) else p.polygon_mm()
        assert outline[:, 0].min() >= 0 and outline[:, 0].max() <= CANVAS_WH_MM[0]
        assert outline[:, 1].min() >= 0 and outline[:, 1].max() <= CANVAS_WH_MM[1]


def test_geometry_agrees_with_the_kit() -> None:
    try:
        g = importlib.import_module("vision.kit.geometry")
    except ImportError:
        pytest.skip("vision.kit.geometry is not importable")
    assert tuple(g.BOARD_CANVAS_WH_MM) == CANVAS_WH_MM
    assert tuple(g.BOARD_MARKER_IDS) == BOARD_MARKER_IDS
    assert g.BOARD_MARKER_MM == BOARD_MARKER_MM
    assert g.PLAY_AREA_MARKER_MM == PLAY_AREA_MARKER_MM
    assert (g.CARD_W_MM, g.CARD_H_MM) == (63.0, 88.0)
