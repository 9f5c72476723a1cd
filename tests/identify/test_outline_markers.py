"""Codes at low resolution read where the card's outline puts them (issue 26, part 3): a
small card's markers that no dark square shows (blur joins them to a dark picture) are read
at their known places on its outline, both at once, and name the card only when they lead
every other marker of the kit and the card's picture agrees at least as well with it as
with the runner-up's."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision.identify import outline_markers, quads
from vision.identify.codes import _lstsq_homographies, face_geometry
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit import render_face


@functools.cache
def _hard_scene(index: int) -> tuple[np.ndarray, object]:
    """Scene ``index`` of the hard codes tables of seed 0 (a development seed)."""
    return make_scene("codes", "hard", scene_seed(0, index))


def _named(frame: np.ndarray) -> dict[str, np.ndarray]:
    res = identify_frame(frame, None, codes="fast", game="pickpic")
    return {f"{r.card}/{r.side}": r.corners_px for r in res.cards}


def _grads_regions(grey: np.ndarray) -> tuple[quads.Gradients, tuple[np.ndarray, float]]:
    return quads.Gradients(grey), quads.silhouettes(grey)


def _truth_card(truth, card: str):
    return next(t for t in truth.cards if t.card_id == card)


def test_layout_of_a_game_whose_faces_carry_two_markers_at_opposite_corners() -> None:
    face, squares = outline_markers._layout("pickpic")
    assert face[2].tolist() == [63.0, 88.0]
    # Turned half round, each square lands on the other.
    turned = np.array([63.0, 88.0]) - squares[0]
    assert np.allclose(np.sort(turned, axis=0), np.sort(squares[1], axis=0))
    size, markers, _ = face_geometry("pickpic-001", "back")
    assert len(markers) == 2 and size == (63.0, 88.0)


@pytest.mark.parametrize(
    ("index", "cards"),
    [
        (1, ["pickpic-087/front", "pickpic-108/front", "pickpic-023/back"]),
        (20, ["pickpic-044/front"]),
    ],
)
def test_small_cards_whose_markers_no_dark_square_shows_are_named_by_their_outline(
    index: int, cards: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth = _hard_scene(index)
    named = _named(frame)
    for card in cards:
        assert card in named, f"{card} not named on scene {index}"
        t = _truth_card(truth, card.split("/")[0])
        height = np.linalg.norm(t.corners_px[0] - t.corners_px[3])
        off = np.linalg.norm(named[card] - t.corners_px, axis=1).max()
        assert off <= 0.1 * height  # placed on its card
    # Without the reading by outlines, none of them is named.
    monkeypatch.setattr(outline_markers, "MIN_LEAD", 10.0)
    without = _named(frame)
    assert not any(card in without for card in cards)


def test_the_squares_are_found_where_the_ring_every_marker_shares_is() -> None:
    frame, truth = _hard_scene(20)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    t = _truth_card(truth, "pickpic-044")
    face, squares = outline_markers._layout("pickpic")
    true_sq = outline_markers._apply(
        _lstsq_homographies(face[None], t.corners_px.astype(np.float64)[None])[0],
        squares.reshape(-1, 2),
    ).reshape(1, 2, 4, 2)
    cell = np.linalg.norm(true_sq[0, 0, 1] - true_sq[0, 0, 0]) / 6
    # Half a cell off and 10% too large: moved back within a third of a cell.
    off = true_sq + 0.5 * cell
    centre = off.mean(axis=2, keepdims=True)
    off = centre + 1.1 * (off - centre)
    found = outline_markers._located(grey, off)
    assert np.abs(found - true_sq).max() <= 0.34 * cell + 0.5


def _plain_card_frame(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A face drawn small (56 px wide), blurred, on a mid-grey table: frame and corners."""
    frame = np.full((300, 400, 3), 120, np.uint8)
    w, h = 56, 78
    src = np.float32(
        [[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]]
    )
    dst = np.float32([[180, 110], [180 + w, 114], [176 + w, 114 + h], [176, 110 + h]])
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(face, m, (400, 300), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full(face.shape[:2], 255, np.uint8), m, (400, 300))
    frame[mask > 0] = warped[mask > 0]
    return cv2.GaussianBlur(frame, (0, 0), 0.7), dst.astype(np.float64)


def test_a_card_with_its_markers_painted_out_is_named_by_none() -> None:
    face = render_face("pickpic-044", "front", 8.0)
    _, markers, qr = face_geometry("pickpic-044", "front")
    for r in (*markers, *((qr,) if qr else ())):
        x0, y0 = (r.corners().min(axis=0) * 8).astype(int)
        x1, y1 = (r.corners().max(axis=0) * 8).astype(int)
        face[y0:y1, x0:x1] = 255
    frame, _ = _plain_card_frame(face)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert outline_markers.outline_sightings(grey, *_grads_regions(grey), [], "pickpic") == []
    assert identify_frame(frame, None, codes="fast", game="pickpic").cards == ()


def test_a_card_is_not_named_where_its_picture_agrees_better_with_the_runner_up() -> None:
    face = render_face("pickpic-044", "front", 8.0)
    frame, _ = _plain_card_frame(face)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = outline_markers.outline_sightings(
        grey, *_grads_regions(grey), [], "pickpic", lambda p, f: np.array([0.5, 0.4])
    )
    assert {(s.card, s.side) for s in found} == {("pickpic-044", "front")}
    assert len(found) == 2  # both squares
    refused = outline_markers.outline_sightings(
        grey, *_grads_regions(grey), [], "pickpic", lambda p, f: np.array([0.4, 0.5])
    )
    assert refused == []


def test_nothing_to_read_without_a_game_layout() -> None:
    grey = np.full((120, 160), 128, np.uint8)
    assert outline_markers.outline_sightings(grey, *_grads_regions(grey), [], "nogame") == []
