"""The engine's errors: one root, one kind for malformed events, one for broken rules."""

from __future__ import annotations

import json
import re
from typing import Any

QUOTE_MAX_CHARS = 400
NO_EVENT: Any = object()  # "no event to quote" (a JSON null is an event to quote)
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A code point no text holds: JSON's ``"\\ud800"`` parses to it, but UTF-8 cannot encode it
(a valid pair of escapes parses to one character, never to two of these)."""


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate as its JSON escape (``\\ud800``), so that any UTF-8
    writer (a terminal, SQLite, a web page) takes it; inside a JSON string the escape means
    the same, so JSON text stays the same value."""
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def quote(obj: Any) -> str:
    """The event as one line of compact JSON, for error messages, cut to ``QUOTE_MAX_CHARS``.
    Never raises: an event JSON cannot print (a 5,000-digit number) is described instead;
    the text is always writable as UTF-8 (lone surrogates appear as their escapes)."""
    try:
        text = json.dumps(obj, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(obj)
        except (ValueError, RecursionError):
            text = f"<a {type(obj).__name__} too large to print>"
    if len(text) > QUOTE_MAX_CHARS:
        text = text[: QUOTE_MAX_CHARS - 1] + "…"
    # A lone surrogate in the event ("\ud800" in its JSON) would make the message unwritable
    # as UTF-8 (to a terminal, a database, a web page): it is quoted as its JSON escape.
    return escape_surrogates(text)


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
