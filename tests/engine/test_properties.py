"""Hypothesis properties: whatever JSON reaches the engine (``parse``, ``apply_raw``,
``start``, ``replay``, ``engine.log.replay_lines``), the only exception is an
``EngineError`` whose message quotes the event and names a rule, and a refused event leaves
the state as it was.

Integers range far past what a float holds (huge ones once crashed the engine; see
``test_bad_events.py::test_huge_integers*``).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import EngineError, EventKind, State
from engine.log import replay_lines

from .helpers import GAMES_DIR, check_error, contract_view

EXAMPLES = {
    p.stem: [json.loads(x) for x in p.read_text("utf-8").splitlines()]
    for p in sorted(GAMES_DIR.glob("*.jsonl"))
}


def _states() -> list[tuple[State, dict[str, Any] | None]]:
    """States of every game at several points (fresh, part-way, finished), each with the
    event that came next in its example game (None at the end)."""
    out = []
    for log in EXAMPLES.values():
        for cut in sorted({1, 2, len(log) // 3, len(log) // 2, len(log) - 1, len(log)}):
            out.append((engine.replay(log[:cut]), log[cut] if cut < len(log) else None))
    return out


TYPE_NAMES = [k.value for k in EventKind]
TYPES = [*TYPE_NAMES, "", "Reveal", "bogus", "giveup"]
KEYS = [
    "player", "card", "from", "to", "order", "pieces", "visible", "returned", "items",
    "phrase", "t", "meta", "game", "players", "target", "cards_per_player", "kit",
    "three_items_only", "deck_size", "hands",
]  # fmt: skip
NAMES = ["A", "B", "C", "Ann", "Ben", "Cat", "Cy", "P1", "P5", "Z", "", " "]
CARDS = ["a1", "b1", "rA1", "c1", "cat", "o1", "o2", "x1", "zz", ""]
ITEMS = ["sun", "car", "dog", "hat", "cup", "key", "fish", "a", "b", "c", ""]
PIECES = ["long_stick", "short_stick", "shape", "string", "stick"]

STATES_NEXT = _states()
STATES = [state for state, _ in STATES_NEXT]
STARTS = [log[0] for log in EXAMPLES.values()]
GAME_EVENTS: dict[str, list[dict[str, Any]]] = {}
for _log in EXAMPLES.values():
    GAME_EVENTS.setdefault(_log[0]["game"], []).extend(_log[1:])
LEGAL_EVENTS = [obj for events in GAME_EVENTS.values() for obj in events]
# The names and card ids each game's examples use (the strings of their events).
GAME_WORDS = {
    game: sorted({v for e in events for v in e.values() if isinstance(v, str)} - set(TYPE_NAMES))
    for game, events in GAME_EVENTS.items()
}

ints = st.one_of(
    st.integers(min_value=-(2**53), max_value=2**53),
    st.integers(min_value=-(10**400), max_value=10**400),
)
scalars = st.none() | st.booleans() | ints | st.floats() | st.text(max_size=6)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=10,
)
field_values = st.one_of(
    json_values,
    st.sampled_from(NAMES),
    st.sampled_from(CARDS),
    st.lists(st.sampled_from(CARDS + NAMES), max_size=6),
    st.lists(st.sampled_from(ITEMS), max_size=6),
    st.dictionaries(st.sampled_from(PIECES), ints | json_values, max_size=5),
    st.dictionaries(st.sampled_from(NAMES), ints, max_size=4),
)
fuzz_events = st.builds(
    lambda kind, fields, extra: {**extra, **fields, "type": kind},
    st.sampled_from(TYPES) | json_values,
    st.fixed_dictionaries({}, optional=dict.fromkeys(KEYS, field_values)),
    st.dictionaries(st.text(max_size=5), json_values, max_size=2),
)


def near_values(game: str) -> st.SearchStrategy[Any]:
    """Values close to the game's own: its names and card ids, lists of them, small piece
    counts, and now and then any JSON value."""
    words = [*GAME_WORDS[game], "Z", ""]
    return st.one_of(
        st.sampled_from(words),
        st.lists(st.sampled_from(words), max_size=6),
        st.lists(st.sampled_from(ITEMS), min_size=2, max_size=5),
        st.dictionaries(st.sampled_from(PIECES), st.integers(-1, 7), max_size=4),
        field_values,
    )


def mutate(draw: st.DrawFn, obj: dict[str, Any], game: str) -> dict[str, Any]:
    """``obj`` with one key (not "type") dropped, changed or added, or kept as it is."""
    obj = dict(obj)
    how = draw(st.sampled_from(["drop", "change", "change", "add", "keep"]))
    keys = sorted(k for k in obj if k != "type")
    if how == "drop" and keys:
        del obj[draw(st.sampled_from(keys))]
    elif how == "change" and keys:
        obj[draw(st.sampled_from(keys))] = draw(near_values(game))
    elif how == "add":
        obj[draw(st.sampled_from(KEYS) | st.text(max_size=5))] = draw(near_values(game))
    return obj


@st.composite
def mutated_events(draw: st.DrawFn, game: str | None = None) -> dict[str, Any]:
    """A legal-looking event of ``game`` (of any game when None) from the example games,
    perhaps with a key dropped, changed or added."""
    chosen = draw(st.sampled_from([game] if game else sorted(GAME_EVENTS)))
    return mutate(draw, draw(st.sampled_from(GAME_EVENTS[chosen])), chosen)


@st.composite
def states_and_events(draw: st.DrawFn) -> tuple[State, Any]:
    """A state and an event: the event that came next in its example game (as it was, or
    changed a little), another event of its game, or anything at all."""
    state, following = draw(st.sampled_from(STATES_NEXT))
    game = state.summary()["game"]
    kind = draw(st.sampled_from(["next", "next-changed", "own", "own", "other", "fuzz", "json"]))
    if following is not None and kind == "next":
        return state, following
    if following is not None and kind == "next-changed":
        return state, mutate(draw, following, game)
    if kind in ("own", "next", "next-changed"):
        return state, draw(mutated_events(game))
    if kind == "other":
        return state, draw(mutated_events())
    return state, draw(fuzz_events if kind == "fuzz" else json_values)


@st.composite
def start_objects(draw: st.DrawFn) -> Any:
    base = dict(draw(st.sampled_from(STARTS)))
    options = draw(st.fixed_dictionaries({}, optional=dict.fromkeys(KEYS, field_values)))
    if draw(st.booleans()):
        base["players"] = draw(st.lists(st.sampled_from(NAMES), max_size=8) | json_values)
    if draw(st.booleans()):
        base["game"] = draw(st.sampled_from(["pickpic", "picflip", "picasso", "picmix", "x"]))
    return draw(st.sampled_from([base, {**base, **options}, {**options, "type": "start"}]))


@settings(max_examples=200)
@given(pair=states_and_events())
def test_apply_raw_raises_only_engine_errors(pair: tuple[State, Any]) -> None:
    """An event either moves the game on or raises an ``EngineError`` that quotes it and names
    a rule; the state given to ``apply`` never changes."""
    state, obj = pair
    before = copy.deepcopy(state)
    try:
        after = engine.apply_raw(state, obj)
    except EngineError as exc:
        check_error(exc)
    else:
        assert isinstance(after, State)
        assert contract_view(after.summary())["game"] == state.summary()["game"]
    assert state == before


@settings(max_examples=100)
@given(pair=states_and_events())
def test_parse_round_trips(pair: tuple[State, Any]) -> None:
    """A parsed event written back as JSON parses to the same event."""
    state, obj = pair
    try:
        event = engine.parse(state, obj)
    except EngineError as exc:
        check_error(exc)
        return
    again = engine.parse(state, json.loads(json.dumps(event.to_json())))
    assert again == event


@settings(max_examples=200)
@given(obj=st.one_of(start_objects(), fuzz_events, json_values))
def test_start_raises_only_engine_errors(obj: Any) -> None:
    """A start line either sets a game up (everyone at 0, not finished) or is refused with an
    ``EngineError`` naming a rule."""
    try:
        state = engine.start(obj)
    except EngineError as exc:
        check_error(exc)
        return
    summary = state.summary()
    assert set(summary["scores"].values()) == {0}
    assert summary["finished"] is False
    assert summary["winners"] == []


@settings(max_examples=120)
@given(
    first=st.one_of(st.sampled_from(STARTS), start_objects()),
    rest=st.lists(
        st.one_of(st.sampled_from(LEGAL_EVENTS), mutated_events(), fuzz_events), max_size=12
    ),
)
def test_replay_raises_only_engine_errors(first: Any, rest: list[Any]) -> None:
    """A whole log either replays to the state built event by event, or stops with the same
    ``EngineError`` as the event-by-event run, at the same event."""
    log = [first, *rest]
    state: State | None = None
    failure: tuple[int, str] | None = None
    for i, obj in enumerate(log):
        try:
            state = engine.start(obj) if state is None else engine.apply_raw(state, obj)
        except EngineError as exc:
            check_error(exc)
            failure = (i, str(exc))
            break
    try:
        replayed = engine.replay(log)
    except EngineError as exc:
        assert failure is not None
        assert str(exc) == failure[1]
        if failure[0] > 0:
            assert engine.replay(log[: failure[0]]) == state
    else:
        assert failure is None
        assert replayed == state


junk_lines = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "\t", "{", "}", "[]", "null", '{"type": "start"}', "\x00"]),
    st.one_of(fuzz_events, mutated_events()).map(lambda o: json.dumps(o, allow_nan=True)),
)


@settings(max_examples=200)
@given(
    start_line=st.sampled_from([json.dumps(s) for s in STARTS]) | junk_lines,
    lines=st.lists(
        junk_lines | st.sampled_from([json.dumps(e) for e in LEGAL_EVENTS]), max_size=10
    ),
)
def test_replay_lines_never_raises(start_line: str, lines: list[str]) -> None:
    """``replay_lines`` (what ``pictable replay`` runs) never raises: it returns the state
    before the first bad line and that line's number, with a reason naming a rule."""
    text = [start_line, *lines]
    result = replay_lines(text)
    if result.error is None:
        assert result.state is not None
        return
    assert 1 <= result.error.line <= len(text) + 1
    reason = result.error.reason
    assert any(f"[{rid}:" in reason or f"; {rid}:" in reason for rid in engine.rules.ALL), reason
    before = replay_lines(text[: result.error.line - 1])
    assert before.error is None or result.state is None
    if result.state is not None:
        assert before.state == result.state
