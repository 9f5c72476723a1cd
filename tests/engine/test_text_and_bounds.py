"""Strings that are not text, and options beyond any game: both refused as malformed, naming
their rule, with a message that can itself be written anywhere (issue 23)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine import EngineError, InvalidEvent
from engine.errors import quote

from .helpers import (
    expect_error,
    expect_start_error,
    picasso_start,
    picflip_start,
    picmix_start,
    pp_start,
    run,
)

AB = ["Ann", "Ben"]
LONE = "\ud800"  # what the JSON escape "\ud800" parses to: a lone surrogate, not a character


def _writable(exc: EngineError) -> None:
    """The message goes to terminals, SQLite and web pages: it must encode as UTF-8."""
    str(exc).encode("utf-8")


# --- text ------------------------------------------------------------------------------------

BAD_TEXT_STARTS: list[tuple[str, Any, str]] = [
    ("player-name", picasso_start([LONE, "Ben"]), "a player name must be valid text"),
    ("player-name-low", picasso_start(["Ann", "B\udfff"]), "a player name must be valid text"),
    ("hands-key", picflip_start(AB, hands={"Ann": 3, "Ben": 3, LONE: 1}), "valid text"),
    ("kit-key", picasso_start(AB, kit={LONE: 1}), "valid text"),
    ("option-key", {**picmix_start(AB), LONE: 1}, "valid text"),
    ("meta-value", {**picmix_start(AB), "meta": {"note": ["x", LONE]}}, "valid text"),
    ("game", {"type": "start", "game": LONE, "players": AB}, "valid text"),
]


@pytest.mark.rule("log.text")
@pytest.mark.parametrize(
    ("obj", "said"), [pytest.param(*case[1:], id=case[0]) for case in BAD_TEXT_STARTS]
)
def test_a_start_with_a_string_that_is_not_text(obj: Any, said: str) -> None:
    """A lone surrogate anywhere in ``start`` (a player name, a key, meta) is malformed.

    > Card ids and player names are non-empty strings.
    """
    exc = expect_start_error(obj, "log.text", InvalidEvent)
    assert said in exc.reason
    assert "\\ud800" in str(exc) or "\\udfff" in str(exc)
    _writable(exc)


BAD_TEXT_EVENTS: list[tuple[str, list[Any], Any, str]] = [
    (
        "draw-player",
        [picasso_start(AB)],
        {"type": "draw", "player": LONE, "card": "cat"},
        "a player name",
    ),
    (
        "draw-card",
        [picasso_start(AB)],
        {"type": "draw", "player": "Ann", "card": LONE},
        "a card id",
    ),
    (
        "claim-item",
        [picmix_start(AB), {"type": "reveal", "card": "o1", "items": ["a", "b", "c"]}],
        {"type": "claim", "player": "Ann", "visible": ["a", f"b{LONE}"]},
        "an item",
    ),
    (
        "describe-phrase",
        [picflip_start(AB), {"type": "lead", "player": "Ann", "card": "c1"}],
        {"type": "describe", "player": "Ann", "phrase": f"red {LONE} car"},
        "a phrase",
    ),
    ("meta-key", [picasso_start(AB)], {"type": "give_up", "meta": {LONE: 1}}, "every string"),
    ("type", [picasso_start(AB)], {"type": LONE}, "every string"),
]


@pytest.mark.rule("log.text")
@pytest.mark.parametrize(
    ("log", "obj", "said"), [pytest.param(*case[1:], id=case[0]) for case in BAD_TEXT_EVENTS]
)
def test_an_event_with_a_string_that_is_not_text(log: list[Any], obj: Any, said: str) -> None:
    """The same in any later event: refused as malformed, the state left as it was.

    > Card ids and player names are non-empty strings.
    """
    exc = expect_error(run(log), obj, "log.text", InvalidEvent)
    assert exc.reason.startswith(said), exc.reason
    _writable(exc)


def test_a_pair_of_escapes_is_one_character_and_is_text() -> None:
    """``"\\ud83d\\ude00"`` in JSON is a valid pair: one character (an emoji), a fine name."""
    start = json.loads('{"type": "start", "game": "picmix", "players": ["\\ud83d\\ude00", "B"]}')
    assert engine.start(start).summary()["players"] == ["\U0001f600", "B"]


def test_a_deeply_nested_meta_is_checked_without_recursion() -> None:
    """The text check walks a nested value iteratively: no RecursionError on a deep meta."""
    deep: Any = "ok"
    for _ in range(5000):
        deep = [deep]
    state = run([picasso_start(AB)])
    after = engine.apply_raw(
        state, {"type": "draw", "player": "Ann", "card": "c", "meta": {"x": deep}}
    )
    assert after.summary()["card"] == "c"


def test_quote_escapes_lone_surrogates() -> None:
    """Whatever an event holds, its quotation encodes as UTF-8."""
    text = quote({"player": LONE, "items": ["\udc80x"]})
    assert "\\ud800" in text and "\\udc80x" in text
    text.encode("utf-8")


# --- bounds of the options -------------------------------------------------------------------

TOO_LARGE: list[tuple[str, Any, str]] = [
    ("pickpic-target", pp_start(target=101), "pickpic.target.max"),
    ("pickpic-target-huge", pp_start(target=10**29), "pickpic.target.max"),
    ("picasso-cards", picasso_start(cards_per_player=10**29 - 1), "picasso.cards_per_player.max"),
    ("picasso-cards-101", picasso_start(cards_per_player=101), "picasso.cards_per_player.max"),
    ("picasso-kit", picasso_start(kit={"long_stick": 101}), "picasso.kit.max"),
    ("picasso-kit-huge", picasso_start(kit={"shape": 10**40}), "picasso.kit.max"),
    ("picmix-target", picmix_start(target=26), "picmix.target.max"),
    ("picflip-deck", picflip_start(deck_size=105), "picflip.deck.max"),
    ("picflip-deck-huge", picflip_start(deck_size=10**29), "picflip.deck.max"),
    ("picflip-hand", picflip_start(AB, hands={"Ann": 105, "Ben": 1}), "picflip.deck.max"),
    ("picflip-hands-total", picflip_start(AB, hands={"Ann": 60, "Ben": 60}), "picflip.deck.max"),
]


@pytest.mark.rule(
    "pickpic.target.max",
    "picasso.cards_per_player.max",
    "picasso.kit.max",
    "picmix.target.max",
    "picflip.deck.max",
)
@pytest.mark.parametrize(
    ("obj", "rule_id"), [pytest.param(*case[1:], id=case[0]) for case in TOO_LARGE]
)
def test_an_option_beyond_any_game_is_refused(obj: Any, rule_id: str) -> None:
    """Every numeric option has a bound, from the box or far above the rulebook's game; a
    value over it is malformed, and the refusal names the bound's rule.

    > The first player to reach 20 points will win.
    > If this is your first game, start with 3 cards per player.
    > 5 long sticks
    > 25 Objective cards
    > 110 cards (104 Playing Cards, 6 Cover Cards)
    """
    exc = expect_start_error(obj, rule_id, InvalidEvent)
    assert "at most" in exc.reason or "more than a deck" in exc.reason


AT_THE_BOUND: list[tuple[str, Any]] = [
    ("pickpic-target", pp_start(target=100)),
    ("picasso-cards", picasso_start(cards_per_player=100)),
    ("picasso-kit", picasso_start(kit={"long_stick": 100, "shape": 100, "string": 0})),
    ("picmix-target", picmix_start(target=25)),
    ("picflip-deck", picflip_start(deck_size=104)),
    ("picflip-hands", picflip_start(AB, hands={"Ann": 100, "Ben": 4})),
]


@pytest.mark.parametrize("obj", [pytest.param(case[1], id=case[0]) for case in AT_THE_BOUND])
def test_an_option_at_its_bound_is_taken(obj: Any) -> None:
    """The bounds themselves are games."""
    engine.start(obj)
