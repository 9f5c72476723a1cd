"""Art the item model never saw (``vision.picmix.newart``): registered from photos with
``pictable deck register picmix``, no retraining, then named in rendered claims."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pictable.bench.readers.picmix import bench_picmix, naming
from pictable.commands.picmix_deck import run_register
from vision.kit.pictograms import GLYPH_NAMES
from vision.picmix.decks import load_registered
from vision.picmix.model import ItemModel
from vision.picmix.newart import NEW_ITEMS, NewArtTextures, register_photos
from vision.picmix.reader import verify_frame


def test_new_items_are_none_of_the_trained_pictograms() -> None:
    assert len(set(NEW_ITEMS)) == 16 and not set(NEW_ITEMS) & set(GLYPH_NAMES)
    face = NewArtTextures().card_face("picmix-red-1", "front", 4.0)
    assert face.shape == (252, 352, 3) and face.dtype == np.uint8


@pytest.fixture(scope="module")
def new_deck(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The new-art deck registered from photos of the teal faces and the objective cards."""
    folder = tmp_path_factory.mktemp("new-art-photos")
    for name, img in register_photos(NewArtTextures(), "teal", seed=5, objectives=True):
        cv2.imwrite(str(folder / name), img)
    return folder


def test_register_new_art_and_name_its_items(
    new_deck: Path,
    model: ItemModel,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PICTABLE_DECKS", str(tmp_path / "decks"))
    assert run_register(["shapes", str(new_deck), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(i["name"] for i in out["items"]) == sorted(NEW_ITEMS)
    assert len(out["objectives"]) >= 20
    deck = load_registered("shapes")
    # claims rendered with other colour sets: items named by the prototypes alone
    got = naming(4, 11, deck, model, cache=tmp_path / "scenes")
    player = got["player"]
    assert player["seen"] >= 10
    assert player["top1_rate"] >= 0.75
    assert player["sure_wrong"] <= 1
    figures = bench_picmix(
        "normal",
        4,
        11,
        cache=tmp_path / "scenes",
        verify=lambda f: verify_frame(f, deck, model=model),
        new_art=True,
    )
    assert figures["wrong_accepted"] == 0
