"""The decks as data: ids, counts, contents, and Pick Pic photos that all look different."""

from __future__ import annotations

import re
from collections import Counter

import cv2
import numpy as np
import pytest

from vision.kit import picmix
from vision.kit.decks import GAMES, PICASSO_WORDS, all_cards, get_card, is_card_id, load_deck
from vision.kit.photos import PHOTO_SPECS, photo_rgb
from vision.kit.pictograms import GLYPHS

ID_PATTERNS = {
    "pickpic": r"pickpic-(\d{3})",
    "picflip": r"picflip-(\d{3}|cover-[1-6])",
    "picasso": r"picasso-(\d{3})",
    "picmix": r"picmix-(obj-\d{2}|(red|blue|green|purple|orange|teal)-[1-4])",
}


@pytest.mark.parametrize(
    ("game", "size"), [("pickpic", 120), ("picflip", 110), ("picasso", 72), ("picmix", 49)]
)
def test_deck_sizes_and_id_format(game: str, size: int) -> None:
    deck = load_deck(game)
    assert len(deck) == size
    assert all(re.fullmatch(ID_PATTERNS[game], c.id) for c in deck), deck.ids
    assert all(c.game == game for c in deck)


def test_ids_are_unique_stable_and_looked_up() -> None:
    ids = [c.id for c in all_cards()]
    assert len(ids) == len(set(ids)) == 351
    assert ids[0] == "pickpic-001" and load_deck("pickpic").ids[-1] == "pickpic-120"
    assert load_deck("picflip").ids[103:] == (
        "picflip-104",
        *(f"picflip-cover-{i}" for i in range(1, 7)),
    )
    assert get_card("picasso-001").word == "cat"
    assert get_card("picmix-obj-01").items == picmix.OBJECTIVES[0]
    assert is_card_id("picmix-teal-4") and not is_card_id("picmix-teal-5")
    with pytest.raises(KeyError, match="nope"):
        get_card("nope")
    with pytest.raises(ValueError, match="unknown game"):
        load_deck("chess")


def test_load_deck_is_frozen_data() -> None:
    deck = load_deck("picasso")
    with pytest.raises(AttributeError):
        deck.cards[0].word = "dog"  # type: ignore[misc]
    assert deck.card("picasso-002").word == "dog"
    with pytest.raises(KeyError):
        deck.card("pickpic-001")


def test_picflip_cards_show_two_different_pictures() -> None:
    pictures = [p for c in load_deck("picflip") if c.kind == "pictures" for p in c.pictures]
    assert len(pictures) == 208
    for card in load_deck("picflip"):
        if card.kind == "pictures":
            assert len(card.pictures) == 2 and card.pictures[0].glyph != card.pictures[1].glyph
    assert len({(p.glyph, p.colour, p.background, p.count) for p in pictures}) == 208
    assert len({p.colour for p in pictures}) >= 10
    assert set(Counter(p.glyph for p in pictures)) == set(GLYPHS)


def test_picasso_has_at_least_60_distinct_words_with_pictograms() -> None:
    words = [w for w, _ in PICASSO_WORDS]
    assert len(words) >= 60 and len(set(words)) == len(words)
    assert all(g in GLYPHS for _, g in PICASSO_WORDS)


def test_every_picmix_set_holds_the_16_items_once_and_sets_differ_only_in_colour() -> None:
    layouts = set()
    for colour in picmix.SET_COLOURS:
        cards = [get_card(i) for i in picmix.player_set_ids(colour)]
        items = [f.item(h) for c in cards for f in (c.faces or ()) for h in ("left", "right")]
        assert sorted(items) == sorted(picmix.ITEMS)
        assert len(set(items)) == 16
        layouts.add(tuple(c.faces for c in cards))
        assert {c.colour for c in cards} == {colour}
    assert len(layouts) == 1
    assert all(item in GLYPHS for item in picmix.ITEMS)
    assert picmix.player_item_at("picmix-red-1", "back", "right") == "moon"


def test_photo_crops_do_not_overlap() -> None:
    by_source: dict[str, list[tuple[int, int, int, int]]] = {}
    for spec in PHOTO_SPECS:
        if spec.box is not None:
            by_source.setdefault(spec.source, []).append(spec.box)
    for source, boxes in by_source.items():
        for i, (x, y, w, h) in enumerate(boxes):
            for x2, y2, w2, h2 in boxes[i + 1 :]:
                overlap = min(x + w, x2 + w2) > max(x, x2) and min(y + h, y2 + h2) > max(y, y2)
                assert not overlap, (source, (x, y, w, h), (x2, y2, w2, h2))
    assert sum(s.source != "landscape" for s in PHOTO_SPECS) >= 60


def test_pickpic_photos_are_visually_distinct() -> None:
    """Whole-card appearance (KIT.md: 18 x 25 in Lab, nearest neighbour) tells them apart."""
    thumbs = []
    for spec in PHOTO_SPECS:
        small = cv2.resize(photo_rgb(spec), (18, 25), interpolation=cv2.INTER_AREA)
        thumbs.append(cv2.cvtColor(small, cv2.COLOR_RGB2Lab).astype(np.float32).ravel())
    t = np.stack(thumbs)
    d = np.linalg.norm(t[:, None] - t[None], axis=2)
    np.fill_diagonal(d, np.inf)
    # 250 over 1350 values is a mean difference of about 7 levels of 255 per value
    assert d.min() > 250, np.unravel_index(np.argmin(d), d.shape)
    assert np.median(d.min(axis=1)) > 600


def test_photos_are_deterministic() -> None:
    spec = PHOTO_SPECS[-1]
    a = photo_rgb(spec).copy()
    photo_rgb.cache_clear()
    assert np.array_equal(a, photo_rgb(spec))


def test_games_tuple_matches_the_cli() -> None:
    from pictable.commands import kit as cli_kit
    from vision.kit.printing import PRINTABLES

    assert cli_kit.GAMES == GAMES
    assert cli_kit.PRINTABLES == PRINTABLES
