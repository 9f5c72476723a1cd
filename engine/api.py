"""The engine's entry points: start a game, parse and apply events, replay a log."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import rules
from engine.core import Game, State
from engine.errors import IllegalEvent
from engine.events import Event, GameKind, Reader, Start, parse_start
from engine.picasso import Picasso
from engine.picflip import PicFlip
from engine.pickpic import PickPic
from engine.picmix import Picmix

GAMES: dict[GameKind, type[Game]] = {
    GameKind.PICKPIC: PickPic,
    GameKind.PICFLIP: PicFlip,
    GameKind.PICASSO: Picasso,
    GameKind.PICMIX: Picmix,
}


def game_class(kind: GameKind | str) -> type[Game]:
    return GAMES[GameKind(kind)]


def start(event: Start | Any) -> State:
    """The initial state of the game a ``start`` event (parsed or raw JSON object) sets up."""
    parsed = event if isinstance(event, Start) else parse_start(event)
    return game_class(parsed.game).from_start(parsed).initial_state()


def parse(state: State, obj: Any) -> Event:
    """The raw JSON object ``obj`` as an event of ``state``'s game; raises ``InvalidEvent``."""
    reader = Reader(obj)
    if reader.type == "start":
        raise IllegalEvent(
            "a game has exactly one start, on the first line",
            event=obj,
            rule=str(rules.LOG_START_FIRST),
        )
    return state.game.parse(reader)


def apply(state: State, event: Event) -> State:
    """The state after ``event``. Raises ``IllegalEvent`` when it breaks a rule; ``state``
    itself is frozen and stays as it was."""
    return state.game.step(state, event)


def apply_raw(state: State, obj: Any) -> State:
    """``apply(state, parse(state, obj))``."""
    return apply(state, parse(state, obj))


def replay(objs: Iterable[Any]) -> State:
    """The state a whole log (raw JSON objects, ``start`` first) leads to; raises at the first
    bad event. For line numbers and the state before a bad line, see ``engine.log``."""
    it = iter(objs)
    try:
        first = next(it)
    except StopIteration:
        raise IllegalEvent(
            "an empty log: the first line must be start", rule=str(rules.LOG_START_FIRST)
        ) from None
    state = start(first)
    for obj in it:
        state = apply_raw(state, obj)
    return state
