"""The table's own markers (play area, Picasso board) when cards are read by their pictures:
they are found, their white squares give no card outline (and so no keypoint window), and
their known size tells the card's size where they lie (with the single cards found, fitted
across the table by a plane, for the outlines of cards that touch)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from tests.identify.conftest import camera
from vision.identify import ReferenceDeck, quads
from vision.identify.candidates import _overlap
from vision.identify.codes import read_fiducials
from vision.identify.outlines import _card_heights_at, table_markers
from vision.identify.scenes import make_scene, scene_seed
from vision.kit import geometry
from vision.synth import EffectsSpec, SceneSpec, TableSpec, play_area_markers, render_scene

from .conftest import small_deck, table_scene


def _markers_only() -> tuple[np.ndarray, object]:
    """The play area's four markers on a wooden table, no card."""
    cam = camera()
    spec = SceneSpec(
        camera=cam,
        table=TableSpec("wood", (95, 140, 185), 3),
        markers=play_area_markers(cam),
        cards=(),
        effects=EffectsSpec(light_gain=0.95, noise_sigma=2.0, jpeg_quality=90),
        tier="custom",
    )
    return render_scene(spec, seed=5)


def test_table_markers_are_found_with_their_ids_and_corners() -> None:
    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids = table_markers(grey)
    assert sorted(ids.tolist()) == [0, 1, 2, 3]
    for marker in truth.markers:
        k = int(np.flatnonzero(ids == marker.marker_id)[0])
        # Read at half size from the contour: about a pixel.
        assert np.abs(corners[k] - marker.corners_px).max() < 2.5


def test_card_markers_are_not_table_markers() -> None:
    # The cards' own markers (ids 50 and up) are many in this scene; none is returned.
    frame, _, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert all(0 <= m < 50 for m, _ in read_fiducials(grey))
    assert len(read_fiducials(grey)) == 4


def test_no_table_markers_gives_empty_arrays() -> None:
    corners, ids = table_markers(np.full((300, 400), 128, np.uint8))
    assert corners.shape == (0, 4, 2) and ids.shape == (0,)


def test_outlines_round_table_markers_are_dropped() -> None:
    frame, truth = _markers_only()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    markers, _ = table_markers(grey)

    def round_a_marker(outlines: list[quads.Outline]) -> int:
        return sum(
            any(_overlap(o.corners_px, m.corners_px) > 0.5 for m in truth.markers) for o in outlines
        )

    # Without being told, the finder fits card-shaped outlines round the markers' squares.
    assert round_a_marker(quads.find_outlines(grey)) >= 2
    assert round_a_marker(quads.find_outlines(grey, not_cards=markers)) == 0


def test_a_region_much_larger_than_the_marker_is_kept() -> None:
    # A marker's square inside a card-sized silhouette (a card touching it): still searched.
    square = np.array([[[10, 10]], [[30, 10]], [[30, 30]], [[10, 30]]], np.int32)
    big = np.array([[[0, 0]], [[60, 0]], [[60, 80]], [[0, 80]]], np.int32)
    tile = np.array([[[5, 5]], [[35, 5]], [[35, 35]], [[5, 35]]], np.int32)
    centres, areas = square.reshape(1, 4, 2).mean(axis=1), np.array([400.0])  # mask px
    kept = [
        c for c in (big, tile) if not quads._round_not_card(c, cv2.contourArea(c), centres, areas)
    ]
    assert len(kept) == 1 and kept[0] is big


def test_height_at_follows_a_plane_and_never_extrapolates() -> None:
    # Heights that fall off linearly up the frame (a tilted table).
    pts = np.array([[100, 600], [1100, 600], [600, 100], [200, 300]], np.float64)
    h = 120.0 - 0.08 * (600 - pts[:, 1])
    samples = np.column_stack([pts, h])
    assert abs(quads.height_at(samples, np.array([640.0, 350.0])) - (120 - 0.08 * 250)) < 1e-6
    # Beyond the samples: the nearest extreme, not a smaller or larger card than any seen.
    assert quads.height_at(samples, np.array([640.0, -2000.0])) == h.min()
    assert quads.height_at(samples, np.array([640.0, 5000.0])) == h.max()
    # Samples on one line tell no plane: their median.
    line = np.array([[0, 0, 80], [10, 10, 90], [20, 20, 130]], np.float64)
    assert quads.height_at(line, np.array([0.0, 100.0])) == 90.0
    points = np.array([[640.0, 350.0], [640.0, -2000.0], [10.0, 700.0]])
    each = [quads.height_at(samples, p) for p in points]
    assert quads.heights_at(samples, points).tolist() == each


def test_card_height_from_a_markers_size() -> None:
    deck = dataclasses.replace(small_deck(), builtin=True)
    side = 40.0
    sq = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float64)
    markers = np.stack([sq + 100, sq + 300, sq + 500])
    ids = np.array([0, 5, 20])  # play area (40 mm), Picasso board (30 mm), no known size
    rows = _card_heights_at(markers, ids, deck)
    assert rows is not None and rows.shape == (2, 3)
    card_mm = max(geometry.face_size_wh_mm(deck.cards[0].id))
    assert np.allclose(rows[0], [120, 120, side * card_mm / geometry.PLAY_AREA_MARKER_MM])
    assert np.allclose(rows[1], [320, 320, side * card_mm / geometry.BOARD_MARKER_MM])
    # A registered deck: its cards' size in mm is not known.
    assert _card_heights_at(markers, ids, dataclasses.replace(deck, builtin=False)) is None


def test_a_card_partly_under_another_keeps_an_outline(pickpic: ReferenceDeck) -> None:
    # A rendered table of the benchmark (seed 1, scene 224): a card 81% visible, its fourth
    # side under a card lying on it; the cluster's many rectangles round the top card must
    # not crowd its outline out.
    frame, truth = make_scene("features", "normal", scene_seed(1, 224))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    card = truth.card("pickpic-019")
    assert card is not None and 0.6 < card.visible_fraction < 0.9
    corners = card.corners_px.astype(np.float64)
    markers, ids = table_markers(grey)
    outlines = quads.find_outlines(
        grey, aspect=pickpic.aspect, not_cards=markers,
        heights_at=_card_heights_at(markers, ids, pickpic),
    )  # fmt: skip
    area = cv2.contourArea(corners.astype(np.float32))
    assert any(
        _overlap(o.corners_px, corners) > 0.8 and 0.8 < cv2.contourArea(o.corners_px) / area < 1.25
        for o in outlines
    )
