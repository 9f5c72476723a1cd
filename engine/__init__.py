"""The rules engine: pure, standard library only, no images.

``start`` sets a game up from its ``start`` event, ``apply(state, event)`` is the one way
forward, and replaying a log rebuilds the state. Events are the JSON Lines of
docs/formats.md section 1 (which the rules cite as CONTRACTS 1). Errors: ``EngineError`` (a
``ValueError``) with ``InvalidEvent`` (malformed) and ``IllegalEvent`` (breaks a rule); each
message quotes the event and names the rule, and the state given to ``apply`` is never
changed (states are frozen).
"""

from engine.api import apply, apply_raw, game_class, parse, replay, start
from engine.core import Game, State
from engine.errors import EngineError, IllegalEvent, InvalidEvent
from engine.events import Event, EventKind, GameKind, Start

__all__ = [
    "EngineError",
    "Event",
    "EventKind",
    "Game",
    "GameKind",
    "IllegalEvent",
    "InvalidEvent",
    "Start",
    "State",
    "apply",
    "apply_raw",
    "game_class",
    "parse",
    "replay",
    "start",
]
