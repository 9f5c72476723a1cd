"""Shared fixtures of the tracker's tests: the Picmix item model through the project's loader,
and the kit's deck of items (as ``tests/picmix`` loads them)."""

from __future__ import annotations

import pytest

from vision.picmix.model import ItemDeck, ItemModel, kit_deck, load_item_model


@pytest.fixture(scope="session")
def model() -> ItemModel:
    return load_item_model()


@pytest.fixture(scope="session")
def deck(model: ItemModel) -> ItemDeck:
    return kit_deck(model)
