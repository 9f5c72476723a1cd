"""Rendered scenes shared by the Picasso tests (rendered once per session: a board takes
about a second)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tests.picasso.helpers import board_scene, scene_a, scene_b
from vision.synth import HandSpec, StandInTextures, render_scene


def _render(spec: Any, seed: int) -> tuple[np.ndarray, Any]:
    return render_scene(spec, seed=seed, provider=StandInTextures())


@pytest.fixture(scope="session")
def board_a() -> tuple[np.ndarray, Any]:
    """Crossed sticks, the string over a stick, shapes touching sticks, and the unused
    pieces beside the board (the supply)."""
    return _render(board_scene(scene_a(), seed=5, tier="normal", supply=True), 5)


@pytest.fixture(scope="session")
def board_b() -> tuple[np.ndarray, Any]:
    """Sticks touching end to end, a shape by itself."""
    return _render(board_scene(scene_b(), seed=8, tier="normal"), 8)


@pytest.fixture(scope="session")
def board_b_hand() -> tuple[np.ndarray, Any]:
    """Board b with a hand reaching over the middle of the canvas."""
    spec = board_scene(scene_b(), seed=8, tier="normal")
    assert spec.board is not None
    c = spec.board.to_table(np.array([[180.0, 130.0]]))[0]
    hand = HandSpec(tip_mm=(float(c[0]), float(c[1])), angle_deg=-80.0, height_mm=50.0)
    return _render(replace(spec, hands=(hand,)), 8)


@pytest.fixture(scope="session")
def board_b_sleeve_shadow() -> tuple[np.ndarray, Any]:
    """Board b with a white sleeve held 55 mm up just beyond the canvas's top edge, the arm
    pointing away from the board: the sleeve covers no part of the canvas, its shadow does."""
    spec = board_scene(scene_b(), seed=8, tier="normal")
    assert spec.board is not None
    # the arm runs back 540 mm from the fingertips (``vision.synth.sprites.HAND_LEN_MM``):
    # its end lies 5 mm beyond the top edge
    tip = spec.board.to_table(np.array([[180.0, -545.0]]))[0]
    hand = HandSpec(
        tip_mm=(float(tip[0]), float(tip[1])),
        angle_deg=spec.board.angle_deg - 90.0,
        height_mm=55.0,
        skin=4,
        sleeve_bgr=(200, 200, 205),
        gesture="fist",
    )
    return _render(replace(spec, hands=(hand,)), 8)
