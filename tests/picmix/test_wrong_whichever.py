"""A claim whose objective card is unread, judged against every objective card a registered
deck knows (``reader._wrong_whichever``): wrong only when no card has all the items surely
showing, and not judged when more items show than a card has (another player's cards may be
in view)."""

from __future__ import annotations

from typing import Any

import pytest

from vision.picmix.frame_items import FrameItems
from vision.picmix.ink import Blob
from vision.picmix.model import ItemDeck
from vision.picmix.reader import _wrong_whichever
from vision.picmix.reading import ItemSighting, PicmixReading

ITEMS = ("arrow", "cross", "gear", "ring", "tee", "zigzag")
CARDS = {"obj-1": ("arrow", "cross", "gear"), "obj-2": ("ring", "tee", "zigzag", "arrow")}


def _deck(objectives: dict[str, tuple[str, ...]], matcher: str | None = "picmix_match") -> ItemDeck:
    return ItemDeck("mine", ITEMS, None, tuple(range(len(ITEMS))), objectives, matcher=matcher)


def _frame_items(shown: list[str]) -> FrameItems:
    seen = []
    for k, item in enumerate(shown):
        blob = Blob(k + 1, (40 * k, 0, 30, 30), 500, (40.0 * k + 15, 15.0))
        s = ItemSighting(item, blob.box_xywh, 1.0, 1.0, 0.99, "x", "visible", "player")
        seen.append((s, blob))
    return FrameItems(seen, [], None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("shown", "wrong"),
    [
        (["cross", "ring"], True),  # no card has both
        (["arrow", "cross"], False),  # obj-1 may be the card
        (["arrow", "cross", "gear", "ring", "tee"], False),  # more than a card: not judged
    ],
)
def test_an_unread_objective_is_judged_against_every_registered_card(
    shown: list[str], wrong: bool
) -> None:
    got: Any = _wrong_whichever(_frame_items(shown), _deck(CARDS))
    if wrong:
        assert isinstance(got, PicmixReading) and got.verdict == "wrong"
        assert "no objective card has them all" in got.reasons[0]
    else:
        assert got is None


def test_a_deck_that_knows_no_objective_cards_judges_nothing() -> None:
    assert _wrong_whichever(_frame_items(["cross", "ring"]), _deck({})) is None
    assert _wrong_whichever(_frame_items(["cross", "ring"]), _deck(CARDS, matcher=None)) is None
