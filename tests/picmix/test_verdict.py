"""The verdict from the surely visible and the unsure items: never a confident answer that an
unsure item could overturn."""

from __future__ import annotations

import pytest

from vision.picmix.objective import _plausible
from vision.picmix.reading import UNSURE_BAND, VISIBLE_MIN, ItemSighting
from vision.picmix.sightings import _status
from vision.picmix.verdict import (
    UNNAMED,
    UNSEEN_MAX,
    decide,
    decide_among,
    decide_in_doubt,
    doubt_slots,
)

OBJ = {"sun", "fish", "moon"}


@pytest.mark.parametrize(
    ("visible", "unsure", "verdict", "missing", "extra"),
    [
        ({"sun", "fish", "moon"}, set(), "correct", [], []),
        ({"sun", "fish", "moon", "key"}, set(), "wrong", [], ["key"]),
        ({"sun", "fish"}, set(), "wrong", ["moon"], []),
        # an extra item surely shows: wrong whatever the doubt
        ({"sun", "fish", "moon", "key"}, {"star"}, "wrong", [], ["key"]),
        # an objective item neither visible nor in doubt: wrong
        ({"sun", "fish"}, {"star"}, "wrong", ["moon"], []),
        # the only doubt is an objective item: could be missing
        ({"sun", "fish"}, {"moon"}, "unsure", ["moon"], []),
        # a doubtful other item could be an extra
        ({"sun", "fish", "moon"}, {"key"}, "unsure", [], []),
        # doubt about an item that surely shows elsewhere changes nothing
        ({"sun", "fish", "moon"}, {"sun"}, "correct", [], []),
        # an item in view whose name is in doubt could be the missing one
        ({"sun", "fish"}, {UNNAMED, "key"}, "unsure", ["moon"], []),
        # ... but not make an extra item go away
        ({"sun", "fish", "moon", "key"}, {UNNAMED}, "wrong", [], ["key"]),
    ],
)
def test_decide(
    visible: set[str], unsure: set[str], verdict: str, missing: list[str], extra: list[str]
) -> None:
    got, got_missing, got_extra, reasons = decide(OBJ, visible, unsure)
    assert (got, got_missing, got_extra) == (verdict, missing, extra)
    assert bool(reasons) == (verdict == "unsure")


OBJ4 = {"sun", "fish", "moon", "key"}


@pytest.mark.parametrize(
    ("visible", "slots", "verdict"),
    [
        # one sighting not surely named, four objective items unseen: it can be one of them,
        # and one more may have gone unseen (UNSEEN_MAX); two more cannot: wrong
        (set(), [None], "wrong"),
        ({"sun"}, [None], "wrong"),
        ({"sun", "fish"}, [None], "unsure"),
        # a surely named sighting is its own item only: two of "moon" are one objective item
        (set(), [None, frozenset({"moon"}), frozenset({"moon"})], "wrong"),
        (set(), [None, None, None], "unsure"),
        ({"sun"}, [None, frozenset({"moon"})], "unsure"),
        # each sighting is one item
        ({"sun"}, [None, None], "unsure"),
        (set(), [None, None], "wrong"),
    ],
)
def test_each_sighting_in_doubt_is_one_item(
    visible: set[str], slots: list[frozenset[str] | None], verdict: str
) -> None:
    assert UNSEEN_MAX == 1
    unsure = {UNNAMED} | {n for s in slots if s is not None for n in s}
    got, missing, _, _ = decide(OBJ4, set(visible), unsure, slots)
    assert got == verdict
    if verdict == "wrong":
        assert missing == sorted(OBJ4 - visible)
    # without the sightings, an item not surely named could be any missing one: never wrong
    assert decide(OBJ4, set(visible), unsure)[0] == "unsure"


def test_doubt_slots_are_the_players_unsure_sightings() -> None:
    def sighting(item: str, status: str, confidence: float, on: str = "player") -> ItemSighting:
        return ItemSighting(item, (0, 0, 10, 10), 0.5, 0.5, confidence, "x", status, on)  # type: ignore[arg-type]

    slots = doubt_slots(
        [
            sighting("sun", "visible", 0.99),
            sighting("moon", "unsure", 0.95),
            sighting("key", "unsure", 0.5),
            sighting("fish", "hidden", 0.99),
            sighting("star", "unsure", 0.99, on="objective"),
        ]
    )
    assert slots == [frozenset({"moon"}), None]


def test_unsure_reasons_name_the_items() -> None:
    _, _, _, reasons = decide(OBJ, {"sun", "fish"}, {"moon", "key"})
    assert any(r.startswith("moon:") for r in reasons)
    assert any(r.startswith("key:") for r in reasons)


def test_threshold_sits_inside_the_unsure_band() -> None:
    lo, hi = UNSURE_BAND
    assert lo < VISIBLE_MIN < hi
    assert _status(VISIBLE_MIN, 0.999) == "unsure"
    assert _status(lo - 0.01, 0.999) == "hidden"
    assert _status(hi + 0.01, 0.999) == "visible"
    assert _status(hi + 0.01, 0.5) == "unsure"  # shows, but not surely named


D3 = (frozenset({"sun", "star"}), frozenset({"fish"}), frozenset({"moon", "key"}))


@pytest.mark.parametrize(
    ("doubt", "visible", "unsure", "verdict"),
    [
        # 3 items read, a 4th may have been missed: 5 surely showing is too many for any card
        (D3, {"sun", "fish", "moon", "key", "bell"}, set(), "wrong"),
        (D3, {"sun", "fish", "moon", "key"}, set(), "unsure"),
        # fewer could show than the card surely has
        (D3, {"sun", "fish"}, set(), "wrong"),
        (D3, {"sun"}, {"fish"}, "wrong"),
        (D3, {"sun", "fish"}, {UNNAMED}, "unsure"),
        # a showing item no objective item may be: only wrong when all 4 items were read
        (D3, {"sun", "fish", "bell"}, set(), "unsure"),
        ((*D3, frozenset({"tree"})), {"sun", "fish", "moon", "bell"}, set(), "wrong"),
        ((*D3, frozenset({"tree"})), {"sun", "fish", "moon", "tree"}, set(), "unsure"),
    ],
)
def test_decide_in_doubt_is_never_correct(
    doubt: tuple[frozenset[str], ...], visible: set[str], unsure: set[str], verdict: str
) -> None:
    got, _, _, reasons = decide_in_doubt(doubt, visible, unsure)
    assert got == verdict
    assert reasons  # a verdict in doubt always says why


CANDS = (("card-a", ("fish", "moon", "sun")), ("card-b", ("fish", "moon", "star")))


@pytest.mark.parametrize(
    ("cands", "visible", "unsure", "verdict"),
    [
        (CANDS, {"fish", "moon", "key"}, set(), "wrong"),  # wrong for either card
        (CANDS, {"fish", "moon", "sun"}, set(), "unsure"),  # correct only for card-a
        (CANDS[:1], {"fish", "moon", "sun"}, set(), "correct"),
        (CANDS, {"fish", "moon"}, set(), "wrong"),
        (CANDS, {"fish", "moon"}, {"sun"}, "unsure"),
    ],
)
def test_decide_among_plausible_cards(
    cands: tuple[tuple[str, tuple[str, ...]], ...],
    visible: set[str],
    unsure: set[str],
    verdict: str,
) -> None:
    assert decide_among(cands, visible, unsure)[0] == verdict


def test_plausible_cards_allow_a_missed_item() -> None:
    objectives = {
        "a": ("sun", "fish", "moon"),
        "b": ("sun", "fish", "moon", "key"),
        "c": ("bell", "fish", "moon"),
    }
    doubt = (frozenset({"sun", "star"}), frozenset({"fish"}), frozenset({"moon"}))
    assert [c for c, _ in _plausible(doubt, objectives)] == ["a", "b"]
