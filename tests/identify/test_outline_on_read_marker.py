"""An outline never names a card by a square where another card's marker was read bit for
bit (:func:`vision.identify.outline_markers._on_other_marker`, issue 26: a reported outline
lies on its card).

A card named by one marker, the other under a card laid over it: an outline found across
both cards put the hidden marker's square on the top card's marker, read bit for bit as
that card's. By likeness, blurred, the square passed for the hidden one; the card was then
placed by three markers, 13% of its height off, at 0.99."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from tests.identify.conftest import named_by_codes
from vision.identify import outline_markers
from vision.identify.codes import sighting
from vision.identify.scenes import make_scene, scene_seed


def _square(x: float, y: float, side: float = 20.0) -> np.ndarray:
    """A marker's (4, 2) corners round (``x``, ``y``), ArUco order."""
    h = side / 2
    return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.float32)


def test_a_square_on_another_faces_marker_read_bit_for_bit_names_no_other_face() -> None:
    read = [sighting("marker", "pickpic-084", "front", _square(100, 100))]
    found = np.stack([_square(102, 97), _square(300, 300)])
    assert outline_markers._on_other_marker(found, ("pickpic-018", "front"), read)
    # The same face's marker: the outline may be its card's.
    assert not outline_markers._on_other_marker(found, ("pickpic-084", "front"), read)
    # Its other side is another face.
    assert outline_markers._on_other_marker(found, ("pickpic-084", "back"), read)
    # Squares beside the marker, and markers read by likeness alone, say nothing.
    beside = np.stack([_square(125, 100), _square(300, 300)])
    assert not outline_markers._on_other_marker(beside, ("pickpic-018", "front"), read)
    soft = [sighting("marker", "pickpic-084", "front", _square(100, 100), soft=True)]
    assert not outline_markers._on_other_marker(found, ("pickpic-018", "front"), soft)
    assert not outline_markers._on_other_marker(found, ("pickpic-018", "front"), [])


@functools.cache
def _scene() -> tuple[np.ndarray, object]:
    # Normal codes tables, development looks, seed 2, scene 78: pickpic-018 under
    # pickpic-084's corner, its lower marker hidden, pickpic-084's marker beside it.
    return make_scene("codes", "normal", scene_seed(2, 78), "dev")


def test_a_card_half_under_another_is_placed_on_its_card_not_by_the_others_marker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    frame, truth = _scene()
    own = {f"{t.card_id}/{t.face}": t.corners_px for t in truth.cards}
    named = named_by_codes(frame)
    assert "pickpic-018/front" in named
    for card, corners in named.items():
        assert card in own
        assert placement_error(corners, own[card]) <= PLACE_MAX, card
    monkeypatch.setattr(outline_markers, "_on_other_marker", lambda *a: False)
    before = named_by_codes(frame)["pickpic-018/front"]
    assert placement_error(before, own["pickpic-018/front"]) > PLACE_MAX
