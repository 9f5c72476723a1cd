"""Shared fixtures: the item model through the project's loader, and the kit's exported faces."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.picmix.compose import Faces
from vision.picmix.model import ItemDeck, ItemModel, kit_deck, load_item_model

EXPORTED = (
    "picmix-obj-01,picmix-obj-02,picmix-obj-03,picmix-obj-04,picmix-obj-05,"
    "picmix-red-1,picmix-red-2,picmix-red-3,picmix-red-4,"
    "picmix-teal-1,picmix-teal-2,picmix-teal-3,picmix-teal-4"
)


@pytest.fixture(scope="session")
def model() -> ItemModel:
    return load_item_model()


@pytest.fixture(scope="session")
def deck(model: ItemModel) -> ItemDeck:
    return kit_deck(model)


@pytest.fixture(scope="session")
def faces(tmp_path_factory: pytest.TempPathFactory) -> Faces:
    """Faces written by `pictable kit export picmix` (100 dpi), as a user would print them."""
    from pictable.cli import main

    out: Path = tmp_path_factory.mktemp("kit-picmix")
    assert main(["kit", "export", "picmix", str(out), "--dpi", "100", "--cards", EXPORTED]) == 0
    return Faces(out)
