"""Codes read where the card's outline puts them, for a game whose faces carry their markers
in more than one layout (issue 26, part 3): Picmix's portrait objective cards have theirs
top left and bottom right, its landscape player cards on the other diagonal of the same
rectangle seen upright. Each layout is read with its own markers at its own squares."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.identify import outline_markers, quads
from vision.identify.likeness import game_marker_ids
from vision.kit import render_face
from vision.kit.codes import card_for_marker


def test_picmix_has_a_portrait_and_a_landscape_layout() -> None:
    layouts = outline_markers._layouts("picmix")
    assert [layout.turn for layout in layouts] == [0, 1]
    portrait, landscape = layouts
    assert all(card_for_marker(m)[0].startswith("picmix-obj-") for m in portrait.ids)
    assert not any(card_for_marker(m)[0].startswith("picmix-obj-") for m in landscape.ids)
    assert portrait.ids | landscape.ids == game_marker_ids("picmix")
    # Both on the upright 63 x 88 mm outline; the landscape faces' squares (13, 13) and
    # (75, 50) mm of 88 x 63 lie on the other diagonal, a quarter turn on.
    assert portrait.face.tolist() == landscape.face.tolist()
    assert portrait.squares.mean(axis=1).tolist() == [[13.0, 13.0], [50.0, 75.0]]
    assert landscape.squares.mean(axis=1).tolist() == [[50.0, 13.0], [13.0, 75.0]]
    # One layout for the games whose faces all carry their markers alike.
    assert len(outline_markers._layouts("pickpic")) == 1
    assert outline_markers._layouts("nogame") == ()


def _small_card(card: str, width: float, height: float) -> tuple[np.ndarray, np.ndarray]:
    """``card``'s front drawn ``width`` x ``height`` px, turned a little and blurred, on a
    mid-grey table: the grey frame and the face's corners as printed (TL, TR, BR, BL)."""
    face = render_face(card, "front", 8.0)
    h, w = face.shape[:2]
    centre = np.array([210.0, 160.0])
    a = np.deg2rad(12)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    box = np.array([[0, 0], [width, 0], [width, height], [0, height]]) - [width / 2, height / 2]
    dst = (box @ rot.T + centre).astype(np.float32)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)
    frame = np.full((320, 420, 3), 120, np.uint8)
    warped = cv2.warpPerspective(face, m, (420, 320), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (420, 320))
    frame[mask > 0] = warped[mask > 0]
    grey = cv2.cvtColor(cv2.GaussianBlur(frame, (0, 0), 0.8), cv2.COLOR_BGR2GRAY)
    return grey, dst.astype(np.float64)


@pytest.mark.parametrize(
    ("card", "size"),
    [("picmix-obj-08", (56.0, 78.0)), ("picmix-red-3", (78.0, 56.0))],
)
def test_a_small_picmix_card_is_named_and_placed_by_its_layout(
    card: str, size: tuple[float, float]
) -> None:
    grey, corners = _small_card(card, *size)
    height = max(size)

    def agreement(poses: np.ndarray, faces: list[tuple[str, str]]) -> np.ndarray:
        # The picture agrees where the outline is the face's own, corners as printed.
        on_card = np.abs(poses - corners[None]).max(axis=(1, 2)) <= 0.05 * height
        return np.where(on_card, 0.6, 0.2)

    found = outline_markers.outline_sightings(
        grey, quads.Gradients(grey), quads.silhouettes(grey), [], "picmix", agreement
    )
    assert {(s.card, s.side) for s in found} == {(card, "front")}
    assert len(found) == 2  # both squares
    # Each square allows two poses (either of the face's markers): one is the card's own.
    for s in found:
        off = np.abs(s.poses - corners[None]).max(axis=(1, 2)).min()
        assert off <= 0.05 * height


def test_a_landscape_card_is_not_read_with_the_portrait_layouts_squares(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    grey, _ = _small_card("picmix-red-3", 78.0, 56.0)
    portrait_only = outline_markers._layouts("picmix")[:1]
    monkeypatch.setattr(outline_markers, "_layouts", lambda game: portrait_only)
    found = outline_markers.outline_sightings(
        grey,
        quads.Gradients(grey),
        quads.silhouettes(grey),
        [],
        "picmix",
        lambda poses, faces: np.full(len(poses), 0.6),
    )
    assert found == []
