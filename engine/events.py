"""Events as small frozen dataclasses, parsed from the JSON Lines of docs/formats.md section 1.

Parsing checks the form of an event (its keys and their types); whether it is legal in a
state is each game's business. Every parse error is an ``InvalidEvent`` naming its rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from engine import rules
from engine.errors import LONE_SURROGATE, InvalidEvent, escape_surrogates

# What a string under each key names, for the refusal of one that is not text.
_NAMED_BY_KEY = {
    "players": "a player name",
    "player": "a player name",
    "from": "a player name",
    "to": "a player name",
    "hands": "a player name",
    "card": "a card id",
    "returned": "a card id",
    "order": "a card id",
    "items": "an item",
    "visible": "an item",
    "phrase": "a phrase",
}


def not_text(obj: Any) -> tuple[str, str] | None:
    """The first string of a parsed JSON value (keys included) that is not text, as (the
    top-level key it lies under, or "" for the value itself; the string), or None. Walks
    without recursion: a deeply nested value must not overflow the stack here."""
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack:
        top, value = stack.pop()
        if isinstance(value, str):
            if LONE_SURROGATE.search(value):
                return top, value
        elif isinstance(value, dict):
            for key, item in value.items():
                where = top or str(key)
                if isinstance(key, str) and LONE_SURROGATE.search(key):
                    return where, key
                stack.append((where, item))
        elif isinstance(value, list | tuple):
            stack.extend((top, item) for item in value)
    return None


def _shown(text: str, width: int = 40) -> str:
    """``text`` around its first lone surrogate, cut to about ``width`` characters, with every
    lone surrogate as its JSON escape (so that the message itself is text)."""
    at = LONE_SURROGATE.search(text)
    start = max(0, at.start() - width // 2) if at is not None else 0
    part = text[start : start + width]
    part = ("…" if start else "") + part + ("…" if start + width < len(text) else "")
    return escape_surrogates(part)


class GameKind(StrEnum):
    PICKPIC = "pickpic"
    PICFLIP = "picflip"
    PICASSO = "picasso"
    PICMIX = "picmix"


class EventKind(StrEnum):
    START = "start"
    REVEAL = "reveal"
    GIVE = "give"
    RANDOM = "random"
    RANK = "rank"
    DRAW = "draw"
    BUILD = "build"
    GUESS = "guess"
    GIVE_UP = "give_up"
    CLAIM = "claim"
    LEAD = "lead"
    DESCRIBE = "describe"
    PLAY = "play"
    REJECT = "reject"


@dataclass(frozen=True, kw_only=True)
class Event:
    """Fields every event may carry: ``t`` in seconds and a free ``meta`` object."""

    t: float | None = None
    meta: Mapping[str, Any] | None = field(default=None, compare=False)

    kind: ClassVar[EventKind]

    def to_json(self) -> dict[str, Any]:
        """The event as its JSON object (the inverse of parsing)."""
        out: dict[str, Any] = {"type": self.kind.value}
        out.update(self._fields())
        if self.t is not None:
            out["t"] = self.t
        if self.meta is not None:
            out["meta"] = dict(self.meta)
        return out

    def _fields(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True, kw_only=True)
class Start(Event):
    game: GameKind
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)

    kind: ClassVar[EventKind] = EventKind.START

    def _fields(self) -> dict[str, Any]:
        return {"game": self.game.value, "players": list(self.players), **self.options}


class Reader:
    """Reads the fields of one raw event object, checking each, and then that none is left over."""

    def __init__(self, obj: Any) -> None:
        if not isinstance(obj, dict):
            raise InvalidEvent(
                f"an event must be a JSON object, got {type(obj).__name__}",
                event=obj,
                rule=str(rules.LOG_OBJECT),
            )
        bad = not_text(obj)
        if bad is not None:
            key, value = bad
            if key == value:  # the key itself
                reason = f'every string of an event must be valid text: the key "{_shown(key)}"'
            else:
                what = _NAMED_BY_KEY.get(key, "every string of an event")
                reason = f'{what} must be valid text: "{_shown(key)}" holds "{_shown(value)}"'
            raise InvalidEvent(
                f"{reason}, with a lone surrogate", event=obj, rule=str(rules.LOG_TEXT)
            )
        self.obj: dict[str, Any] = obj
        self._seen: set[str] = {"type"}
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise InvalidEvent(
                'an event needs a "type" string', event=obj, rule=str(rules.LOG_OBJECT)
            )
        self.type: str = kind

    def fail(self, reason: str, rule: rules.Rule = rules.LOG_FIELD) -> InvalidEvent:
        return InvalidEvent(reason, event=self.obj, rule=str(rule))

    def _take(self, key: str, required: bool) -> Any:
        self._seen.add(key)
        if key not in self.obj:
            if required:
                raise self.fail(f'"{self.type}" needs "{key}"')
            return None
        return self.obj[key]

    def name(self, key: str, what: str = "a player name", required: bool = True) -> str | None:
        value = self._take(key, required)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(f'"{key}" must be {what} (a non-empty string)', rules.LOG_IDS)
        return value

    def player(self, key: str) -> str:
        value = self.name(key)
        assert value is not None  # required=True never returns None
        return value

    def card(self, key: str) -> str:
        value = self.name(key, "a card id")
        assert value is not None
        return value

    def optional_card(self, key: str) -> str | None:
        return self.name(key, "a card id", required=False)

    def text(self, key: str) -> str:
        value = self._take(key, True)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f'"{key}" must be a non-empty string')
        return value

    def names(self, key: str, what: str = "card ids") -> tuple[str, ...]:
        value = self._take(key, True)
        if not isinstance(value, list):
            raise self.fail(f'"{key}" must be a list of {what}')
        for item in value:
            if not isinstance(item, str) or not item:
                raise self.fail(f'"{key}" must hold {what} (non-empty strings)', rules.LOG_IDS)
        return tuple(value)

    def raw(self, key: str, required: bool = False) -> Any:
        return self._take(key, required)

    def common(self) -> dict[str, Any]:
        """``t`` and ``meta``, checked."""
        out: dict[str, Any] = {}
        if "t" in self.obj:
            t = self._take("t", True)
            try:
                finite = not isinstance(t, bool) and isinstance(t, int | float) and math.isfinite(t)
            except OverflowError:  # an integer too large for a float
                finite = False
            if not finite:
                raise self.fail('"t" must be a finite number of seconds', rules.LOG_T)
            out["t"] = float(t)
        if "meta" in self.obj:
            meta = self._take("meta", True)
            if not isinstance(meta, dict):
                raise self.fail('"meta" must be a JSON object', rules.LOG_META)
            out["meta"] = meta
        return out

    def done(self) -> None:
        extra = [k for k in self.obj if k not in self._seen]
        if extra:
            names = ", ".join(f'"{k}"' for k in extra)
            raise self.fail(f'unknown key {names} in "{self.type}"', rules.LOG_UNKNOWN_KEY)


def int_option(
    value: Any,
    key: str,
    *,
    minimum: int,
    maximum: int,
    obj: Any,
    rule: rules.Rule,
    max_rule: rules.Rule,
) -> int:
    """An integer option of ``start``, from ``minimum`` to ``maximum``; above it the refusal
    names ``max_rule`` (every numeric option has a bound: a huge one is a mistake, and would
    reach the page and the scoreboard as a number nobody can read)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidEvent(f'option "{key}" must be an integer', event=obj, rule=str(rule))
    if value < minimum:
        raise InvalidEvent(f'option "{key}" must be at least {minimum}', event=obj, rule=str(rule))
    if value > maximum:
        raise InvalidEvent(
            f'option "{key}" must be at most {maximum}', event=obj, rule=str(max_rule)
        )
    return value


def parse_start(obj: Any) -> Start:
    """The ``start`` line: game, players and the game's options (checked by the game)."""
    reader = Reader(obj)
    if reader.type != EventKind.START.value:
        raise reader.fail(
            f'the first line must be "start", got "{reader.type}"', rules.LOG_START_FIRST
        )
    game = reader.raw("game", required=True)
    try:
        kind = GameKind(game)
    except ValueError:
        choices = ", ".join(g.value for g in GameKind)
        raise reader.fail(
            f"unknown game {game!r}: choose one of {choices}", rules.LOG_GAME
        ) from None
    players = reader.names("players", "player names")
    if len(set(players)) != len(players):
        raise reader.fail("players must be distinct", rules.LOG_PLAYERS)
    common = reader.common()
    options = {
        k: v for k, v in reader.obj.items() if k not in ("type", "game", "players", "t", "meta")
    }
    return Start(game=kind, players=players, options=options, **common)
