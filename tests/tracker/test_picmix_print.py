"""In the game, a claim is the claimer's cards, not the table's print: on a cloth printed with
dark dots and squares (wide development looks, normal seed 2, claim 1), the look names the
dots cloud, bell or heart surely, and the claim's event listed them among the visible items.
With the player faces' codes read and things like items beyond them, only the items where a
read face prints one are the claimer's (``claim_items``, ``vision.picmix.reader.on_read_faces``),
as ``verify_frame`` does."""

from __future__ import annotations

import pytest

from vision.picmix import reader
from vision.picmix.frame_items import read_items
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.objective import Objective, find_objective
from vision.synth.picmix_claims import claim_scene, truth_of
from vision.tracker.picmix import claim_items


def test_the_claimers_items_are_on_their_cards_not_on_the_cloth(
    model: ItemModel, deck: ItemDeck, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth = claim_scene("normal", 2, 1, None, looks="wide")
    visible_truth, objective, _ = truth_of(truth)
    fi = read_items(frame, deck, model)
    obj = find_objective(frame, fi, deck)
    assert isinstance(obj, Objective) and set(obj.items) == objective
    visible, unsure = claim_items(fi, obj.indices, None)
    assert visible == visible_truth and not unsure
    # a seat's zone narrows it further, never widens it
    visible, _ = claim_items(fi, obj.indices, lambda b: b.centre_px[0] < 560)
    assert visible and visible < visible_truth
    monkeypatch.setattr(reader, "PRINT_MIN", 10**6)  # every item in view counts again
    visible, unsure = claim_items(fi, obj.indices, None)
    assert visible > visible_truth and {"cloud", "bell", "heart"} & visible
