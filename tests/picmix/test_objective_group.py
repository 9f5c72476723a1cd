"""The objective read from its items (no code): a group of items larger than those elsewhere
is the player's cards, not the objective (``vision.picmix.objective.GROUP_SIZE_MAX``; the kit
prints objective items at 21 mm, player items at 30 mm)."""

from __future__ import annotations

import pytest

from vision.picmix import objective
from vision.picmix.decks import register_deck
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.newart import NewArtTextures, register_photos
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixReading
from vision.synth.picmix_claims import claim_scene, truth_of

SEED = 2
"""Development claims, with a deck registered from the 8 face photos of this seed alone (no
objective cards: the objective is a group of items)."""
SWAPPED = 38
"""A correct claim whose objective card (items 15 px) shows 2 of its 3 items in view; the
player's three items (27-33 px) were taken for the objective, and the claim rejected."""


@pytest.fixture(scope="module")
def faces_only(model: ItemModel, tmp_path_factory: pytest.TempPathFactory) -> ItemDeck:
    folder = tmp_path_factory.mktemp("new-art-faces")
    photos = register_photos(NewArtTextures(), "teal", seed=SEED)
    return register_deck("new-art", photos, model, path=folder / "faces.json")[1]


def test_the_players_larger_items_are_not_taken_for_the_objective(
    faces_only: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth = claim_scene("normal", SEED, SWAPPED, None, new_art=True)
    assert truth_of(truth)[2] == "correct"
    reading = verify_frame(frame, deck=faces_only, model=model)
    verdict = reading.verdict if isinstance(reading, PicmixReading) else "unsure"
    assert verdict != "wrong"
    monkeypatch.setattr(objective, "GROUP_SIZE_MAX", 99.0)  # any group: the swap comes back
    before = verify_frame(frame, deck=faces_only, model=model)
    assert isinstance(before, PicmixReading) and before.verdict == "wrong"
    seen = {s.item for s in before.sightings if s.on == "objective"}
    assert seen == set(truth_of(truth)[0])  # the player's items, read as the objective's
