"""A table of bad events: each with the exact error class it gets and the rule id its
message names. And the engine bugs found while writing the suite, now fixed."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import EngineError, IllegalEvent, InvalidEvent

from .helpers import (
    build,
    expect_error,
    expect_start_error,
    picasso_start,
    picflip_start,
    picmix_start,
    pp_reveals,
    pp_round,
    pp_start,
    pp_until_rank,
    run,
)

P4 = ["A", "B", "C", "D"]
AB = ["Ann", "Ben"]
DRAW = {"type": "draw", "player": "Ann", "card": "cat"}
REVEAL_O1 = {"type": "reveal", "card": "o1", "items": ["sun", "car", "dog"]}
LEAD = {"type": "lead", "player": "Ann", "card": "c1"}
DESCRIBE = {"type": "describe", "player": "Ann", "phrase": "red"}

BASES: dict[str, list[dict[str, Any]]] = {
    "pickpic": [pp_start()],
    "pickpic-giving": [pp_start(), *pp_reveals(P4)],
    "pickpic-ranking": [pp_start(), *pp_until_rank(P4)],
    "pickpic-finished": [pp_start(target=1), *pp_round(P4)],
    "picasso": [picasso_start(AB)],
    "picasso-drawn": [picasso_start(AB), DRAW],
    "picasso-finished": [
        picasso_start(AB, cards_per_player=1),
        DRAW,
        {"type": "give_up"},
        {"type": "draw", "player": "Ben", "card": "dog"},
        {"type": "give_up"},
    ],
    "picmix": [picmix_start(AB)],
    "picmix-open": [picmix_start(AB), REVEAL_O1],
    "picmix-finished": [
        picmix_start(AB, target=1),
        REVEAL_O1,
        {"type": "claim", "player": "Ann", "visible": ["sun", "car", "dog"]},
    ],
    "picflip": [picflip_start(AB)],
    "picflip-led": [picflip_start(AB), LEAD, DESCRIBE],
    "picflip-finished": [
        picflip_start(AB, hands={"Ann": 2, "Ben": 1}),
        LEAD,
        DESCRIBE,
        {"type": "play", "player": "Ben", "card": "c2"},
    ],
}

INV, ILL = InvalidEvent, IllegalEvent
KEY, FIELD, IDS, TYPE = "log.unknown_key", "log.field", "log.ids", "log.unknown_type"
OBJECT, FINISHED, PLAYER = "log.object", "log.finished", "log.player"


def ev(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, **fields}


def give(giver: str, to: str, card: str = "x", **extra: Any) -> dict[str, Any]:
    return {"type": "give", "from": giver, "to": to, "card": card, **extra}


def claim(visible: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "claim", "player": "Ann", "visible": visible, **extra}


# (case id, base state, event, exact class, rule id named in the message)
CASES: list[tuple[str, str, Any, type[EngineError], str]] = [
    # -- unknown keys (typos)
    ("reveal-typo", "pickpic", ev("reveal", player="A", card="x", crad="x"), INV, KEY),
    ("give-typo-from", "pickpic-giving", ev("give", form="A", to="B", card="x"), INV, FIELD),
    ("give-extra", "pickpic-giving", give("A", "B", by="A"), INV, KEY),
    ("random-typo", "pickpic-ranking", ev("random", to="A", card="x", player="A"), INV, KEY),
    ("rank-typo", "pickpic-ranking", ev("rank", player="A", order=[], oder=[]), INV, KEY),
    ("draw-typo", "picasso", ev("draw", player="Ann", card="c", cards="c"), INV, KEY),
    ("build-piece-typo", "picasso-drawn", build(long_sticks=1), INV, KEY),
    ("build-extra", "picasso-drawn", ev("build", pieces={}, cost=3), INV, KEY),
    ("guess-extra", "picasso-drawn", ev("guess", player="Ben", word="cat"), INV, KEY),
    ("give-up-extra", "picasso-drawn", ev("give_up", player="Ann"), INV, KEY),
    ("claim-typo", "picmix-open", claim([], **{"return": "o1"}), INV, KEY),
    ("picmix-reveal-typo", "picmix", {**REVEAL_O1, "item": "d"}, INV, KEY),
    ("describe-typo", "picflip-led", ev("describe", player="Ann", phrase="x", phase="x"), INV, KEY),
    ("reject-extra", "picflip-led", ev("reject", player="Ben"), INV, KEY),
    ("Type-capital", "pickpic", ev("reveal", player="A", card="x", Type="reveal"), INV, KEY),
    # -- missing fields
    ("reveal-no-card", "pickpic", ev("reveal", player="A"), INV, FIELD),
    ("reveal-no-player", "pickpic", ev("reveal", card="x"), INV, FIELD),
    ("give-no-to", "pickpic-giving", {"type": "give", "from": "A", "card": "x"}, INV, FIELD),
    ("give-no-card", "pickpic-giving", {"type": "give", "from": "A", "to": "B"}, INV, FIELD),
    ("random-no-to", "pickpic-ranking", ev("random", card="x"), INV, FIELD),
    ("rank-no-order", "pickpic-ranking", ev("rank", player="A"), INV, FIELD),
    ("draw-no-card", "picasso", ev("draw", player="Ann"), INV, FIELD),
    ("build-no-pieces", "picasso-drawn", ev("build"), INV, FIELD),
    ("guess-no-player", "picasso-drawn", ev("guess"), INV, FIELD),
    ("picmix-reveal-no-items", "picmix", ev("reveal", card="o"), INV, FIELD),
    ("picmix-reveal-no-card", "picmix", ev("reveal", items=["a", "b", "c"]), INV, FIELD),
    ("claim-no-visible", "picmix-open", ev("claim", player="Ann"), INV, FIELD),
    ("lead-no-card", "picflip", ev("lead", player="Ann"), INV, FIELD),
    ("describe-no-phrase", "picflip-led", ev("describe", player="Ann"), INV, FIELD),
    ("play-no-player", "picflip-led", ev("play", card="c2"), INV, FIELD),
    # -- wrong types: bool for int, empty strings, non-lists, numbers for names
    ("build-bool", "picasso-drawn", build(shape=True), INV, FIELD),
    ("build-float", "picasso-drawn", ev("build", pieces={"shape": 1.0}), INV, FIELD),
    ("build-negative", "picasso-drawn", build(string=-1), INV, FIELD),
    ("build-string-count", "picasso-drawn", ev("build", pieces={"shape": "2"}), INV, FIELD),
    ("build-pieces-list", "picasso-drawn", ev("build", pieces=["shape"]), INV, FIELD),
    ("build-pieces-null", "picasso-drawn", ev("build", pieces=None), INV, FIELD),
    ("t-bool", "pickpic", ev("reveal", player="A", card="x", t=False), INV, "log.t"),
    ("t-string", "pickpic", ev("reveal", player="A", card="x", t="12"), INV, "log.t"),
    ("t-inf", "picmix", {**REVEAL_O1, "t": float("inf")}, INV, "log.t"),
    ("meta-list", "picmix", {**REVEAL_O1, "meta": ["x"]}, INV, "log.meta"),
    ("player-empty", "pickpic", ev("reveal", player="", card="x"), INV, IDS),
    ("card-empty", "pickpic", ev("reveal", player="A", card=""), INV, IDS),
    ("player-number", "picasso", ev("draw", player=1, card="c"), INV, IDS),
    ("card-number", "picasso", ev("draw", player="Ann", card=1), INV, IDS),
    ("player-bool", "picasso-drawn", ev("guess", player=True), INV, IDS),
    ("player-null", "picflip", ev("lead", player=None, card="c"), INV, IDS),
    ("player-list", "picflip-led", ev("play", player=["Ben"], card="c"), INV, IDS),
    ("returned-empty", "picmix-open", claim([], returned=""), INV, IDS),
    ("returned-number", "picmix-open", claim([], returned=1), INV, IDS),
    ("order-string", "pickpic-ranking", ev("rank", player="A", order="1:B>A"), INV, FIELD),
    ("order-object", "pickpic-ranking", ev("rank", player="A", order={"1:B>A": 1}), INV, FIELD),
    ("order-empty-id", "pickpic-ranking", ev("rank", player="A", order=["1:B>A", ""]), INV, IDS),
    ("order-number-id", "pickpic-ranking", ev("rank", player="A", order=[1, 2]), INV, IDS),
    ("items-string", "picmix", ev("reveal", card="o", items="sun,car,dog"), INV, FIELD),
    ("items-empty-name", "picmix", ev("reveal", card="o", items=["sun", "", "dog"]), INV, IDS),
    ("visible-string", "picmix-open", claim("sun"), INV, FIELD),
    ("visible-null", "picmix-open", claim(None), INV, FIELD),
    ("phrase-empty", "picflip-led", ev("describe", player="Ann", phrase=""), INV, FIELD),
    ("phrase-blank", "picflip-led", ev("describe", player="Ann", phrase="  "), INV, FIELD),
    ("phrase-number", "picflip-led", ev("describe", player="Ann", phrase=3), INV, FIELD),
    # -- not an event, unknown types
    ("list", "pickpic", ["reveal", "A", "x"], INV, OBJECT),
    ("string", "picflip", "reject", INV, OBJECT),
    ("no-type", "picmix", {"card": "o", "items": ["a", "b", "c"]}, INV, OBJECT),
    ("type-number", "picmix", ev(1), INV, OBJECT),  # type: ignore[arg-type]
    ("type-empty", "picmix", ev(""), INV, TYPE),
    ("type-case", "picflip", ev("Reject"), INV, TYPE),
    ("pickpic-draw", "pickpic", ev("draw", player="A", card="x"), INV, TYPE),
    ("picasso-reveal", "picasso", ev("reveal", player="Ann", card="x"), INV, TYPE),
    ("picmix-play", "picmix-open", ev("play", player="Ann", card="x"), INV, TYPE),
    ("picflip-claim", "picflip-led", claim([]), INV, TYPE),
    ("picflip-give-up", "picflip-led", ev("give_up"), INV, TYPE),
    # -- a second start
    ("start-again-pickpic", "pickpic-giving", pp_start(), ILL, "log.start_first"),
    ("start-again-other-game", "picasso-drawn", picmix_start(), ILL, "log.start_first"),
    ("start-again-finished", "picflip-finished", picflip_start(), ILL, "log.start_first"),
    # -- events after the finish
    ("after-pickpic", "pickpic-finished", ev("reveal", player="A", card="x"), ILL, FINISHED),
    ("after-picasso-draw", "picasso-finished", ev("draw", player="Ann", card="x"), ILL, FINISHED),
    ("after-picasso-guess", "picasso-finished", ev("guess", player="Ben"), ILL, FINISHED),
    ("after-picmix", "picmix-finished", REVEAL_O1, ILL, FINISHED),
    ("after-picflip-play", "picflip-finished", ev("play", player="Ann", card="c3"), ILL, FINISHED),
    ("after-picflip-describe", "picflip-finished", {**DESCRIBE, "player": "Ben"}, ILL, FINISHED),
    # -- non-players (names are exact: case and spaces count)
    ("reveal-stranger", "pickpic", ev("reveal", player="E", card="x"), ILL, PLAYER),
    ("give-to-stranger", "pickpic-giving", give("A", "a"), ILL, PLAYER),
    ("give-from-stranger", "pickpic-giving", give("Z", "A"), ILL, PLAYER),
    ("random-stranger", "pickpic-ranking", ev("random", to="Z", card="x"), ILL, PLAYER),
    ("rank-stranger", "pickpic-ranking", ev("rank", player="Z", order=[]), ILL, PLAYER),
    ("draw-stranger", "picasso", ev("draw", player="ann", card="x"), ILL, PLAYER),
    ("guess-stranger", "picasso-drawn", ev("guess", player="Ben "), ILL, PLAYER),
    ("claim-stranger", "picmix-open", {**claim([]), "player": "Cy"}, ILL, PLAYER),
    ("lead-stranger", "picflip", ev("lead", player="Cy", card="x"), ILL, PLAYER),
    ("play-stranger", "picflip-led", ev("play", player="Cy", card="x"), ILL, PLAYER),
    # -- well formed, against a game rule
    ("give-self", "pickpic-giving", give("A", "A"), ILL, "pickpic.give.self"),
    ("give-before-reveals", "pickpic", give("A", "B"), ILL, "pickpic.round_order"),
    (
        "rank-no-stack",
        "pickpic-ranking",
        ev("rank", player="A", order=["x"]),
        ILL,
        "pickpic.rank.stack",
    ),
    ("draw-out-of-turn", "picasso", ev("draw", player="Ben", card="x"), ILL, "picasso.turn"),
    ("guess-by-builder", "picasso-drawn", ev("guess", player="Ann"), ILL, "picasso.guesser"),
    ("build-over-kit", "picasso-drawn", build(string=2), ILL, "picasso.kit"),
    ("reveal-two-items", "picmix", ev("reveal", card="o", items=["a", "b"]), ILL, "picmix.items"),
    ("reveal-while-open", "picmix-open", REVEAL_O1, ILL, "picmix.reveal.when"),
    ("returned-not-won", "picmix-open", claim([], returned="o9"), ILL, "picmix.claim.returned"),
    ("describe-not-top", "picflip-led", {**DESCRIBE, "player": "Ben"}, ILL, "picflip.describe"),
    ("reject-described", "picflip-led", ev("reject"), ILL, "picflip.reject"),
    ("lead-twice", "picflip-led", LEAD, ILL, "picflip.lead"),
]


@pytest.mark.rule("log.unknown_key", "log.field", "log.ids", "log.object", "log.unknown_type")
@pytest.mark.parametrize(
    ("base", "obj", "cls", "rule_id"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_bad_event(base: str, obj: Any, cls: type[EngineError], rule_id: str) -> None:
    """The event is refused with exactly ``cls``, its message quotes it and names
    ``rule_id``, and the state is left as it was.

    > any other unknown key is an error (typos must not pass silently)
    > Card ids and player names are non-empty strings.
    """
    expect_error(run(BASES[base]), obj, rule_id, cls)


START_CASES: list[tuple[str, Any, type[EngineError], str]] = [
    ("not-start", ev("reveal", player="A", card="x"), INV, "log.start_first"),
    ("no-game", ev("start", players=["A", "B"]), INV, FIELD),
    ("no-players", ev("start", game="picmix"), INV, FIELD),
    ("unknown-game", ev("start", game="dixit", players=["A", "B", "C"]), INV, "log.game"),
    ("players-string", ev("start", game="picmix", players="A,B"), INV, FIELD),
    ("player-empty", ev("start", game="picmix", players=["A", ""]), INV, IDS),
    ("players-twice", ev("start", game="picmix", players=["A", "A"]), INV, "log.players"),
    ("target-bool", pp_start(target=True), INV, "pickpic.target"),
    ("target-zero", pp_start(target=0), INV, "pickpic.target"),
    ("target-typo", pp_start(targets=10), INV, KEY),
    ("pickpic-2-players", pp_start(["A", "B"]), INV, "pickpic.players"),
    ("cards-per-player-bool", picasso_start(cards_per_player=False), INV, "picasso.options"),
    ("kit-not-object", picasso_start(kit=5), INV, "picasso.kit"),
    ("kit-bool", picasso_start(kit={"shape": True}), INV, "picasso.kit"),
    ("kit-typo", picasso_start(kit={"strings": 1}), INV, KEY),
    ("picmix-target-string", picmix_start(target="5"), INV, "picmix.options"),
    ("picmix-variant-string", picmix_start(three_items_only="yes"), INV, "picmix.three_items_only"),
    ("picmix-7-players", picmix_start(list("ABCDEFG")), INV, "picmix.players"),
    ("deck-size-bool", picflip_start(deck_size=True), INV, "picflip.deal"),
    ("hands-missing-player", picflip_start(hands={"A": 3}), INV, "picflip.deal"),
    ("hands-bool", picflip_start(hands={"A": 3, "B": True}), INV, "picflip.deal"),
    ("picflip-1-player", picflip_start(["A"]), INV, "picflip.players"),
    ("t-bool", {**picmix_start(), "t": True}, INV, "log.t"),
    ("meta-string", {**picmix_start(), "meta": "x"}, INV, "log.meta"),
]


@pytest.mark.rule("log.game", "log.players", "log.start_first")
@pytest.mark.parametrize(
    ("obj", "cls", "rule_id"), [pytest.param(*case[1:], id=case[0]) for case in START_CASES]
)
def test_bad_start(obj: Any, cls: type[EngineError], rule_id: str) -> None:
    """A bad first line is refused with exactly ``cls``, naming ``rule_id``.

    > The first line is always start.
    > start: {"type": "start", "game": G, "players": [...], ...options}
    """
    expect_start_error(obj, rule_id, cls)


def test_returned_null_is_the_same_as_no_returned() -> None:
    """The engine reads ``"returned": null`` as an absent "returned" (the most recently won
    objective goes back), not as a malformed card id."""
    log = [
        picmix_start(AB),
        REVEAL_O1,
        {"type": "claim", "player": "Ann", "visible": ["sun", "car", "dog"]},
    ]
    log.append({**REVEAL_O1, "card": "o2"})
    with_null = run([*log, {"type": "claim", "player": "Ann", "visible": [], "returned": None}])
    without = run([*log, {"type": "claim", "player": "Ann", "visible": []}])
    assert with_null.summary() == without.summary()
    assert with_null.summary()["pile_bottom"] == ["o1", "o2"]


# --- engine bugs ----------------------------------------------------------------------------


@pytest.mark.rule("log.t")
@pytest.mark.parametrize("where", ["event", "start"])
def test_huge_integer_t_is_an_invalid_event(where: str) -> None:
    """ "t" = 10**400 is a JSON number too big for a float: it must be refused as
    malformed, not crash the engine.

    > Any event may carry "t" (seconds, a number)
    """
    t = 10**400
    if where == "start":
        expect_start_error({**picmix_start(), "t": t}, "log.t")
    else:
        expect_error(run([picmix_start()]), {**REVEAL_O1, "t": t}, "log.t", InvalidEvent)


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "bogus", "x": 10**5000},
        {"type": "claim", "player": "Ann", "visible": [], "zz": 10**5000},
        {"type": "claim", "player": "Ann", "visible": [10**5000]},
    ],
)
def test_huge_integers_anywhere_give_an_engine_error(obj: Any) -> None:
    """Whatever an event holds, the engine answers with an ``EngineError``."""
    with pytest.raises(EngineError):
        engine.apply_raw(run(BASES["picmix-open"]), obj)


def test_a_null_event_is_quoted() -> None:
    """The message quotes the event, even when the event is ``null``.

    STYLE.md: "The message quotes the event and names the rule".
    """
    with pytest.raises(EngineError) as info:
        engine.apply_raw(run(BASES["picmix"]), None)
    assert "null" in str(info.value)
