"""Table and search keypoints stored in a deck folder: read back as they were found, and found
again from the images when a deck has none stored or they were made another way."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.identify.conftest import small_deck
from vision.identify import local
from vision.identify.deck import ReferenceDeck, load_deck_folder, save_deck, table_recipe


def _saved(tmp_path: Path) -> tuple[ReferenceDeck, Path]:
    deck = small_deck()
    assert deck.images is not None
    images = {c.id: img for c, img in zip(deck.cards, deck.images, strict=True)}
    return deck, save_deck(deck, tmp_path / "deck", images)


def _same(a: local.Keypoints, b: local.Keypoints) -> None:
    np.testing.assert_array_equal(a.xy, b.xy)
    np.testing.assert_array_equal(a.desc, b.desc)
    np.testing.assert_array_equal(a.angle, b.angle)
    np.testing.assert_array_equal(a.size, b.size)


def test_stored_keypoints_are_read_back_without_finding_them_again(tmp_path: Path) -> None:
    deck, folder = _saved(tmp_path)
    meta = json.loads((folder / "deck.json").read_text())
    assert meta["local"]["table"] == table_recipe()
    loaded = load_deck_folder(folder)
    # Read from deck.npz: present before any use.
    assert len(loaded._search_kp) == len(deck) and len(loaded._table_kp) == len(deck)
    for i in (0, 5, len(deck) - 1):
        _same(loaded.table_keypoints(i), deck.table_keypoints(i))
        _same(loaded.search_keypoints(i), deck.search_keypoints(i))


def test_keypoints_made_another_way_or_missing_are_found_from_the_images(tmp_path: Path) -> None:
    deck, folder = _saved(tmp_path)
    meta = json.loads((folder / "deck.json").read_text())
    meta["local"]["table"]["scales"] = [1.0, 0.5]
    (folder / "deck.json").write_text(json.dumps(meta))
    other = load_deck_folder(folder)
    assert not other._search_kp
    _same(other.search_keypoints(3), deck.search_keypoints(3))
    # A deck written before keypoints were stored (no search arrays): read as before.
    with np.load(folder / "deck.npz") as z:
        old = {k: z[k] for k in ("cells", "kp_xy", "kp_desc", "kp_card")}
    np.savez_compressed(folder / "deck.npz", **old)
    del meta["local"]["table"]
    (folder / "deck.json").write_text(json.dumps(meta))
    before = load_deck_folder(folder)
    assert not before._search_kp and not before._table_kp
    _same(before.table_keypoints(2), deck.table_keypoints(2))
    assert before.frame_index.n_cards == len(deck)


def test_builtin_cache_without_stored_keypoints_is_built_again(
    builtin_decks: Path, tmp_path: Path
) -> None:
    import shutil

    from vision.identify.deck import BUILTIN_CACHE, builtin_deck

    decks = tmp_path / "decks"
    shutil.copytree(builtin_decks, decks)
    folder = decks / BUILTIN_CACHE / "pickpic"
    assert load_deck_folder(folder)._search_kp  # the fixture's cache has them
    meta = json.loads((folder / "deck.json").read_text())
    del meta["local"]["table"]
    (folder / "deck.json").write_text(json.dumps(meta))
    assert not load_deck_folder(folder)._search_kp
    deck = builtin_deck("pickpic", decks)
    assert deck._search_kp
    assert json.loads((folder / "deck.json").read_text())["local"]["table"] == table_recipe()
