"""A deck opened from its folder builds nothing: its arrays and indexes are read memory-mapped
(``arrays/``), and it names the cards as the deck built in memory does; a deck saved without
them (by an older pictable) is read as before and converted once, with a message."""

from __future__ import annotations

import functools
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.identify.conftest import small_deck, table_scene
from vision.identify import identify_frame, local, open_deck
from vision.identify.deck import (
    ARRAYS_DIR,
    ReferenceDeck,
    build_deck,
    builtin_deck,
    load_deck_folder,
    save_deck,
)
from vision.identify.index_arrays import index_arrays, restored_index
from vision.identify.reading import FrameCards


@functools.cache
def registered_deck() -> ReferenceDeck:
    """The cards of the small deck as a registered deck (not built-in: no back)."""
    built = small_deck()
    assert built.images is not None
    return build_deck("mine", dict(zip(built.ids, built.images, strict=True)))


def _saved(folder: Path, deck: ReferenceDeck | None = None) -> tuple[ReferenceDeck, Path]:
    deck = registered_deck() if deck is None else deck
    assert deck.images is not None
    images = {c.id: img for c, img in zip(deck.cards, deck.images, strict=True)}
    return deck, save_deck(deck, folder, images)


def _as_an_older_pictable_saved_it(folder: Path) -> None:
    """What an older pictable wrote: deck.json, deck.npz and the images, no ``arrays/``."""
    shutil.rmtree(folder / ARRAYS_DIR)
    meta = json.loads((folder / "deck.json").read_text())
    del meta["arrays"]
    (folder / "deck.json").write_text(json.dumps(meta))


def _builds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building an index, finding a card's keypoints, rendering a kit face: each raises."""

    def refuse(*_: object, **__: object) -> Any:
        raise AssertionError("built when opening a stored deck")

    monkeypatch.setattr(local.KeypointIndex, "__init__", refuse)
    monkeypatch.setattr(local, "table_keypoints", refuse)
    monkeypatch.setattr("vision.kit.render_face", refuse)


def _readings(found: FrameCards) -> list[tuple[Any, ...]]:
    return [
        (c.card, c.face, c.method, round(c.confidence, 6), np.round(c.corners_px, 3).tolist())
        for c in found.cards
    ] + [np.round(u.corners_px, 3).tolist() for u in found.unknown]


def _mapped(array: np.ndarray) -> bool:
    base: Any = array
    while base is not None:
        if isinstance(base, np.memmap):
            return True
        base = getattr(base, "base", None)
    return False


def test_an_opened_deck_builds_nothing_and_names_the_cards_as_the_built_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh, folder = _saved(tmp_path / "mine")
    frame, _, _ = table_scene()
    by_pictures = identify_frame(frame, fresh, codes=None)
    assert len(by_pictures.cards) >= 5  # the pictures are what is compared
    both = identify_frame(frame, fresh)
    _builds_nothing(monkeypatch)
    opened = open_deck(str(folder))
    assert _mapped(opened.cells) and _mapped(opened.frame_index._words)
    assert _mapped(opened.table_index.desc) and opened.frame_back is None
    assert _readings(identify_frame(frame, opened, codes=None)) == _readings(by_pictures)
    assert _readings(identify_frame(frame, opened)) == _readings(both)


def test_a_stored_index_is_the_built_one_field_by_field() -> None:
    deck = small_deck()
    for index in (deck.frame_index, deck.table_index):
        again = restored_index(index_arrays("x.", index), "x.")
        assert set(vars(again)) == set(vars(index))
        for name, value in vars(index).items():
            if isinstance(value, np.ndarray):
                assert vars(again)[name].dtype == value.dtype, name
                np.testing.assert_array_equal(vars(again)[name], value, err_msg=name)
            else:
                assert vars(again)[name] == value, name
        window = deck.table_keypoints(3)
        assert again.retrieve(window) == index.retrieve(window)


def test_a_deck_saved_without_arrays_is_read_as_before_then_converted_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fresh, folder = _saved(tmp_path / "decks" / "mine")
    _as_an_older_pictable_saved_it(folder)
    old = load_deck_folder(folder)
    assert not old._stored and len(old._search_kp) == len(fresh)
    with caplog.at_level(logging.WARNING, logger="pictable.decks"):
        first = open_deck("mine", tmp_path / "decks")
    assert [r.getMessage() for r in caplog.records] == [
        f"deck 'mine': its indexes stored once in {folder / ARRAYS_DIR} (it was saved "
        "without them, by an older pictable or with other index settings); it now opens "
        "without building them"
    ]
    assert first.frame_index.n_cards == len(fresh)
    caplog.clear()
    again = open_deck("mine", tmp_path / "decks")
    assert again._stored and not caplog.records  # once
    np.testing.assert_array_equal(again.frame_index._start, fresh.frame_index._start)
    np.testing.assert_array_equal(again.table_index._words, fresh.table_index._words)
    assert sorted(p.name for p in (tmp_path / "decks").iterdir()) == ["mine"]


def test_arrays_of_another_deck_npz_are_not_read(tmp_path: Path) -> None:
    """A deck.npz written again beside them (not by this pictable's save): its own arrays
    are read, never indexes made from another."""
    _, folder = _saved(tmp_path / "mine")
    with np.load(folder / "deck.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["cells"] = arrays["cells"] + 1.0
    np.savez_compressed(folder / "deck.npz", **arrays)
    deck = load_deck_folder(folder)
    assert not deck._stored
    np.testing.assert_array_equal(deck.cells, arrays["cells"])


def test_a_builtin_deck_saved_and_opened_as_such_keeps_its_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built, folder = _saved(tmp_path / "kit", small_deck())
    _builds_nothing(monkeypatch)
    deck = load_deck_folder(folder, builtin=True)
    assert _mapped(deck.back_cells) and deck.frame_back == len(deck)
    np.testing.assert_array_equal(deck.back_descriptors, built.back_descriptors)
    back, built_back = deck.back_keypoints, built.back_keypoints
    assert back is not None and built_back is not None
    np.testing.assert_array_equal(back.desc, built_back.desc)
    # Its folder named by its path reads as a registered deck's: no back, nothing written.
    as_path = open_deck(str(folder))
    assert not as_path._stored and not len(as_path.back_cells)
    assert json.loads((folder / "deck.json").read_text())["arrays"]["builtin"] is True


def test_the_builtin_cache_is_opened_without_building_or_rendering(
    builtin_decks: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _builds_nothing(monkeypatch)
    deck = builtin_deck("pickpic", builtin_decks)
    assert deck._stored and len(deck) == 120
    assert deck.frame_index.n_cards == 121 and deck.frame_back == 120  # the back: one more
    assert len(deck.back_descriptors) and deck.table_index.n_cards == 120
