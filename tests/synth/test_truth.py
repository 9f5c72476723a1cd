"""Ground truth: measured fractions, JSON round trip, Picasso counts and cost, Picmix items."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.synth import (
    BoardSpec,
    Camera,
    CardSpec,
    HandSpec,
    SceneSpec,
    StandInTextures,
    Truth,
    random_picasso_board,
    random_picmix_claim,
    render_scene,
)
from vision.synth.generators import picmix_chain_visible, picmix_row_chain
from vision.synth.spec import CANVAS_WH_MM, PIECE_COST, ShapeSpec, StickSpec, StringSpec

CAM = Camera.from_pose(height_mm=650, tilt_deg=12, yaw_deg=5, dist=(-0.08, 0.02, 0.0, 0.0, 0.0))
TOP = CAM.to_table(np.array([[640.0, 0.0]]))[0]  # the table point at the top edge of the frame


@pytest.fixture(scope="module")
def overlap_truth(standin: StandInTextures) -> Truth:
    cards = (
        CardSpec.flat("pickpic-001", "front", (-200.0, 0.0), 10.0),
        CardSpec.flat("pickpic-002", "front", (-200.0, 0.0), 10.0, height_mm=0.3),  # covers 001
        CardSpec.flat("pickpic-003", "front", (0.0, 0.0), 0.0),
        CardSpec.flat("pickpic-004", "back", (31.5, 0.0), 0.0, height_mm=0.3),  # right half of 003
        CardSpec.flat("pickpic-005", "front", (200.0, 60.0), 30.0),
        CardSpec.flat("pickpic-006", "front", (float(TOP[0]), float(TOP[1])), 0.0),  # on the edge
    )
    hand = HandSpec(tip_mm=(200.0, 60.0), angle_deg=-90.0, height_mm=40.0)
    spec = SceneSpec(camera=CAM, cards=cards, hands=(hand,))
    _, truth = render_scene(spec, 1, standin)
    return truth


def test_a_fully_covered_card_reports_nothing_visible(overlap_truth: Truth) -> None:
    assert overlap_truth.card("pickpic-001").visible_fraction < 0.02
    assert overlap_truth.card("pickpic-002").visible_fraction > 0.97


def test_a_half_covered_card_reports_half(overlap_truth: Truth) -> None:
    assert overlap_truth.card("pickpic-003").visible_fraction == pytest.approx(0.5, abs=0.03)
    assert overlap_truth.card("pickpic-004").visible_fraction > 0.97


def test_frame_edge_and_hands_reduce_visibility(overlap_truth: Truth) -> None:
    edge = overlap_truth.card("pickpic-006")
    assert 0.0 < edge.in_frame_fraction < 0.9
    assert edge.visible_fraction <= edge.in_frame_fraction + 1e-6
    under = overlap_truth.card("pickpic-005")
    assert under.hand_fraction > 0.2
    assert under.visible_fraction + under.hand_fraction == pytest.approx(1.0, abs=0.02)
    assert overlap_truth.hands[0].frame_fraction > 0.01


def test_fractions_are_fractions(overlap_truth: Truth) -> None:
    for c in overlap_truth.cards:
        for v in (c.visible_fraction, c.in_frame_fraction, c.hand_fraction):
            assert 0.0 <= v <= 1.0
        assert c.visible_fraction + c.hand_fraction <= 1.0 + 1e-6


def test_card_corners_project_and_lie_in_the_table_plane(overlap_truth: Truth) -> None:
    c = overlap_truth.card("pickpic-003")
    assert c.corners_px.shape == (4, 2) and c.corners_px.dtype == np.float32
    assert np.allclose(CAM.project(c.corners_mm.astype(np.float64)), c.corners_px, atol=1e-3)
    assert np.allclose(c.heights_mm, 0.0)
    w = np.linalg.norm(c.corners_mm[1] - c.corners_mm[0])
    assert w == pytest.approx(63.0, abs=1e-3)


def test_truth_json_round_trips(overlap_truth: Truth) -> None:
    obj = overlap_truth.to_json()
    text = json.dumps(obj)
    back = Truth.from_json(json.loads(text))
    assert back.to_json() == obj
    assert np.array_equal(
        back.card("pickpic-003").corners_px, overlap_truth.card("pickpic-003").corners_px
    )
    assert back.camera.K.dtype == np.float64


@pytest.mark.parametrize("seed", range(8))
def test_picasso_cost_is_the_formula(seed: int) -> None:
    spec = random_picasso_board(np.random.default_rng(seed), "normal")
    board = spec.board
    assert board is not None
    on = [
        p
        for p in board.pieces
        if 0 <= np.mean(_outline(p), axis=0)[0] <= CANVAS_WH_MM[0]
        and 0 <= np.mean(_outline(p), axis=0)[1] <= CANVAS_WH_MM[1]
    ]
    a = sum(isinstance(p, StickSpec) and p.kind == "long_stick" for p in on)
    b = sum(isinstance(p, StickSpec) and p.kind == "short_stick" for p in on)
    c = sum(isinstance(p, ShapeSpec) for p in on)
    d = sum(isinstance(p, StringSpec) for p in on)
    assert board.counts() == {"long_stick": a, "short_stick": b, "shape": c, "string": d}
    assert board.cost() == a + b + 2 * c + 3 * d
    assert board.cost() == sum(PIECE_COST[k] * n for k, n in board.counts().items())


def _outline(p: StickSpec | ShapeSpec | StringSpec) -> np.ndarray:
    return p.polyline_mm() if isinstance(p, StringSpec) else p.polygon_mm()


def test_rendered_picasso_truth(standin: StandInTextures) -> None:
    spec = random_picasso_board(np.random.default_rng(5), "normal", string=True, n_hands=0)
    _, truth = render_scene(spec, 5, standin)
    b = truth.board
    assert b is not None and isinstance(spec.board, BoardSpec)
    counts = {"long_stick": 0, "short_stick": 0, "shape": 0, "string": 0}
    for p in b.pieces:
        if p.on_canvas:
            counts[p.kind] += 1
        assert 0.0 <= p.visible_fraction <= 1.0
        if p.kind in ("long_stick", "short_stick"):
            assert p.endpoints_mm.shape == (2, 2)
            assert p.length_mm in (100.0, 50.0)
        if p.kind == "shape":
            assert p.shape in ("circle", "square", "triangle", "half_circle")
            assert p.colour in ("red", "blue", "yellow", "green")
        if p.kind == "string":
            assert 560 < p.length_mm < 640
            assert p.visible_fraction > 0.95  # drawn on top of everything but hands
    assert counts == b.counts
    assert (
        b.cost
        == counts["long_stick"] + counts["short_stick"] + 2 * counts["shape"] + 3 * counts["string"]
    )
    assert b.canvas_visible_fraction > 0.5
    assert sorted(m.marker_id for m in truth.markers if m.on_board) == [4, 5, 6, 7]


@pytest.mark.parametrize("seed", [0, 1])
def test_picmix_visible_items_follow_the_overlay(standin: StandInTextures, seed: int) -> None:
    spec = random_picmix_claim(
        np.random.default_rng(seed), "easy", correct=True, n_hands=0, provider=standin
    )
    _, truth = render_scene(spec, seed, standin)
    (area,) = truth.picmix_areas
    deck = {c.card_id: c for c in standin.deck("picmix")}
    row = [c for c in spec.cards if c.area == area.player]
    chain = picmix_row_chain(row, deck)
    assert area.visible_items == tuple(sorted(set(picmix_chain_visible(chain))))
    objective = next(c for c in truth.cards if c.items)
    assert sorted(objective.items) == list(area.visible_items)  # a correct claim
    for item in area.items:
        assert item.visible_fraction < 0.1 or item.visible_fraction > 0.9
