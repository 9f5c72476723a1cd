"""A lamp's reflection over the Picasso board (issue 25, part 5: the hard tier has glare):
the hard tier draws one on about half its boards, over the canvas, the frame and the
pieces alike; the other tiers draw none, and the glare changes nothing else of a scene."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.picasso.dataset import board_folder, scene_seed
from vision.synth import random_picasso_board, render_scene
from vision.synth.spec import BOARD_FRAME_MM, CANVAS_WH_MM, GlareSpec


def _boards(tier: str, n: int) -> list:
    return [random_picasso_board(np.random.default_rng(scene_seed(0, i)), tier) for i in range(n)]


def test_the_hard_tier_has_glare_on_about_half_its_boards() -> None:
    glares = [s.board.glare for s in _boards("hard", 40)]
    lit = [g for g in glares if g is not None]
    assert 10 <= len(lit) <= 30
    for g in lit:
        assert 0.3 <= g.strength <= 0.7
        assert 50 <= g.radius_mm <= 140


def test_other_tiers_have_none() -> None:
    assert all(s.board.glare is None for s in _boards("normal", 30) + _boards("easy", 10))


def test_glare_changes_no_piece_camera_hand_or_effect() -> None:
    """Drawn last from the scene's generator: with or without it, the rest is the same."""
    for spec in _boards("hard", 12):
        if spec.board.glare is None:
            continue
        again = replace(spec, board=replace(spec.board, glare=None))
        assert again.board.pieces == spec.board.pieces
        assert again.camera == spec.camera and again.hands == spec.hands
        assert again.effects == spec.effects


def test_glare_brightens_the_canvas_under_it_and_the_truth_says_so() -> None:
    spec = next(s for s in _boards("hard", 20) if s.board.glare is not None)
    w, h = CANVAS_WH_MM
    middle = (BOARD_FRAME_MM + w / 2, BOARD_FRAME_MM + h / 2)
    glare = GlareSpec(center_mm=middle, radius_mm=120.0, strength=0.7)
    spec = replace(spec, hands=(), board=replace(spec.board, pieces=(), glare=glare))
    plain = replace(spec, board=replace(spec.board, glare=None))
    lit, truth = render_scene(spec, seed=5)
    dark, truth0 = render_scene(plain, seed=5)
    assert truth.board is not None and truth0.board is not None
    assert truth.board.glare == 0.7 and truth0.board.glare == 0.0
    # the canvas's middle, in the frame
    centre = truth.board.canvas_corners_px.mean(0).round().astype(int)
    x, y = int(centre[0]), int(centre[1])
    patch = (slice(y - 10, y + 10), slice(x - 10, x + 10))
    assert lit[patch].mean() > dark[patch].mean() + 3
    # off the board (the table), nothing changed
    corners = truth.board.canvas_corners_px
    far = np.linalg.norm(corners.mean(0) - corners[0]) * 1.6
    yy, xx = np.mgrid[0 : lit.shape[0], 0 : lit.shape[1]]
    off = np.hypot(xx - x, yy - y) > far
    assert off.sum() > 1000
    assert np.abs(lit[off].astype(int) - dark[off].astype(int)).mean() < 0.5


def test_hard_boards_are_cached_apart_from_those_drawn_before_glare() -> None:
    assert board_folder("hard", 0) == "hard-seed0-glare"
    assert board_folder("hard", 1, "dev") == "hard-dev-seed1-glare"
    assert board_folder("normal", 1, "dev") == "normal-dev-seed1"
