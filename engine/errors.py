"""The engine's errors: one root, one kind for malformed events, one for broken rules."""

from __future__ import annotations

import json
from typing import Any

QUOTE_MAX_CHARS = 400
NO_EVENT: Any = object()  # "no event to quote" (a JSON null is an event to quote)


def quote(obj: Any) -> str:
    """The event as one line of compact JSON, for error messages, cut to ``QUOTE_MAX_CHARS``.
    Never raises: an event JSON cannot print (a 5,000-digit number) is described instead."""
    try:
        text = json.dumps(obj, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(obj)
        except (ValueError, RecursionError):
            text = f"<a {type(obj).__name__} too large to print>"
    if len(text) > QUOTE_MAX_CHARS:
        text = text[: QUOTE_MAX_CHARS - 1] + "…"
    return text


class EngineError(ValueError):
    """Root of the engine's errors. ``rule`` names the rule or contract paragraph broken."""

    rule: str
    reason: str
    event: Any

    def __init__(self, reason: str, *, event: Any = NO_EVENT, rule: str = "") -> None:
        self.reason = reason
        self.event = None if event is NO_EVENT else event
        self.rule = rule
        text = reason
        if event is not NO_EVENT:
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
