"""The engine's errors: one root, one kind for malformed events, one for broken rules."""

from __future__ import annotations

import json
from typing import Any


def quote(obj: Any) -> str:
    """The event as one line of compact JSON, for error messages."""
    try:
        return json.dumps(obj, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError):
        return repr(obj)


class EngineError(ValueError):
    """Root of the engine's errors. ``rule`` names the rule or contract paragraph broken."""

    rule: str
    reason: str
    event: Any

    def __init__(self, reason: str, *, event: Any = None, rule: str = "") -> None:
        self.reason = reason
        self.event = event
        self.rule = rule
        text = reason
        if event is not None:
            text = f"{self._label} {quote(event)}: {reason}"
        if rule:
            text = f"{text} [{rule}]"
        super().__init__(text)

    _label = "bad event"


class InvalidEvent(EngineError):
    """The event is malformed: not an object, an unknown type or key, a wrong value type."""

    _label = "invalid event"


class IllegalEvent(EngineError):
    """The event is well formed but breaks a rule of the game in the state it arrives in."""

    _label = "illegal event"
