"""A deck registered from face photos alone knows none of its objective cards: an objective
read from its items may have one more item than were seen (the fourth merged with the card's
printed code, or under a finger). A claim is then never rejected for showing the items seen
and one more: it is ``unsure``, asked about on the view and the page."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from vision.picmix.objective import Objective
from vision.picmix.reader import _may_have_more


def objective(*items: str, method: str = "items", card: str | None = None) -> Objective:
    return Objective(card, tuple(sorted(items)), method, None, frozenset())  # type: ignore[arg-type]


FACES_ONLY = SimpleNamespace(objectives={})
WITH_CARDS = SimpleNamespace(objectives={"obj-1": ("house", "star", "tree")})


def test_three_seen_and_one_more_may_be_a_card_of_four() -> None:
    obj = objective("house", "star", "tree")
    assert _may_have_more(obj, FACES_ONLY, missing=[], extra=["cup"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("obj", "deck", "missing", "extra", "why"),
    [
        (objective("house", "star", "tree"), WITH_CARDS, [], ["cup"], "the deck knows its cards"),
        (objective("house", "star", "tree", method="code"), FACES_ONLY, [], ["cup"], "by code"),
        (objective("house", "star", "tree"), FACES_ONLY, ["tree"], ["cup"], "an item missing"),
        (objective("house", "star", "tree"), FACES_ONLY, [], ["cup", "key"], "two more: 5 > 4"),
        (objective("a", "b", "c", "d"), FACES_ONLY, [], ["cup"], "a card of 4 has no 5th"),
    ],
)
def test_a_sure_reason_stays_wrong(
    obj: Objective, deck: object, missing: list[str], extra: list[str], why: str
) -> None:
    assert not _may_have_more(obj, deck, missing, extra), why  # type: ignore[arg-type]
