"""Reading a known objective card from its items (``objective._known_objective``): a card
with more items than were seen is that much less likely for each item it needs unseen
(``UNSEEN_ITEM_P``), so three items read surely, one of them a little in doubt, name the
three-item card that has them rather than leave it in doubt with a four-item card that
would need the doubtful one renamed and a fourth item unseen."""

from __future__ import annotations

import numpy as np

from vision.picmix.model import ItemDeck
from vision.picmix.objective import UNSEEN_ITEM_P, _known_objective

ITEMS = ("arrow", "halfdisc", "pacman", "tee", "triangle", "ring")


def _deck(objectives: dict[str, tuple[str, ...]]) -> ItemDeck:
    return ItemDeck(
        name="mine",
        items=ITEMS,
        prototypes=None,
        class_index=tuple(range(len(ITEMS))),
        objectives=objectives,
        matcher="picmix_match",
    )


def _probs(rows: list[dict[str, float]]) -> np.ndarray:
    out = np.full((len(rows), len(ITEMS) + 1), 1e-4)
    for r, row in enumerate(rows):
        for name, p in row.items():
            out[r, ITEMS.index(name)] = p
    return out


SEEN = [{"pacman": 0.999}, {"tee": 0.94, "arrow": 0.05}, {"triangle": 0.998}]
CARDS = {
    "three": ("pacman", "tee", "triangle"),
    "four": ("halfdisc", "pacman", "triangle", "arrow"),
}


def test_a_card_that_needs_an_item_unseen_is_less_likely() -> None:
    assert 0 < UNSEEN_ITEM_P < 0.5
    assert _known_objective(_probs(SEEN), _deck(CARDS)) == ("three", ("pacman", "tee", "triangle"))


def test_a_card_seen_whole_is_still_in_doubt_when_an_item_may_be_either() -> None:
    # both cards of three items: "tee" or "arrow" is the whole difference
    cards = {"three": CARDS["three"], "other": ("arrow", "pacman", "triangle")}
    assert _known_objective(_probs(SEEN), _deck(cards)) is None


def test_the_four_item_card_is_named_when_its_fourth_item_is_seen() -> None:
    seen = [*SEEN[:1], {"arrow": 0.94, "tee": 0.05}, SEEN[2], {"halfdisc": 0.99}]
    assert _known_objective(_probs(seen), _deck(CARDS)) == (
        "four",
        ("arrow", "halfdisc", "pacman", "triangle"),
    )
