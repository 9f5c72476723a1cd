"""A card named by its codes is snapped to the edges round it; where the card's picture agreed
more with its face before the snap, the pose is put back (``code_cards.SNAP_AGREE_LOSS``).
A small card's snap reaches 5 px, a tenth of its height, and can take a side onto a
touching card's edge (issue 26: a reported outline lies on its card)."""

from __future__ import annotations

import numpy as np
import pytest

from pictable.bench.readers.identify import placement_error
from vision.identify import code_cards, identify_frame
from vision.identify.scenes import make_scene, scene_seed

#: Development scenes (codes, hard tier, development looks, seed 5) where a card named by
#: its marker was snapped a tenth of its height off: (scene, card).
SNAPPED_OFF = ((16, "pickpic-038"), (57, "pickpic-060"))


@pytest.mark.parametrize(("scene", "card"), SNAPPED_OFF)
def test_a_snap_onto_another_edge_is_taken_back(
    scene: int, card: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth = make_scene("codes", "hard", scene_seed(5, scene), "dev")
    lying = next(c for c in truth.cards if c.card_id == card)
    true = np.asarray(lying.corners_px, np.float64)
    found = identify_frame(frame, None, codes="fast", game="pickpic").card(card)
    assert found is not None
    assert placement_error(found.corners_px, true) < 0.1
    monkeypatch.setattr(code_cards, "SNAP_AGREE_LOSS", 1.0)  # every snap kept, as before
    snapped = identify_frame(frame, None, codes="fast", game="pickpic").card(card)
    assert snapped is not None
    assert placement_error(snapped.corners_px, true) > 0.1
