"""``--codes full`` reads what ``fast`` reads and more, never fewer (issue 26): the full
reader runs every decoder and fallback on top of the fast reader, and keeps a code both read
once."""

from __future__ import annotations

import pytest

from pictable.bench.readers.identify import score_frame
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed

#: Hard-tier scenes of run seed 0 where the full reader alone named fewer cards than the fast
#: one (small, blurred markers that only the fast reader's own search reads).
SCENES = (0, 6, 8, 10)


@pytest.mark.parametrize("index", SCENES)
def test_full_names_every_card_fast_names_on_hard_scenes(index: int) -> None:
    frame, truth = make_scene("codes", "hard", scene_seed(0, index))
    fast = identify_frame(frame, None, codes="fast")
    full = identify_frame(frame, None, codes="full")
    assert {(r.card, r.side) for r in fast.cards} <= {(r.card, r.side) for r in full.cards}
    right_fast = score_frame(fast, truth, "pickpic", check_face=True)
    right_full = score_frame(full, truth, "pickpic", check_face=True)
    assert right_full["right"] >= right_fast["right"] and right_full["wrong"] == 0
