"""Reading event logs (JSON Lines) with line numbers, for ``pictable replay``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from engine import rules
from engine.api import apply_raw, start
from engine.core import State
from engine.errors import EngineError, InvalidEvent


@dataclass(frozen=True)
class LogError:
    """Where a log went wrong: the 1-based line number and the reason (naming the rule)."""

    line: int
    reason: str


@dataclass(frozen=True)
class ReplayResult:
    """The state after the last good line (None when even ``start`` was bad) and the first
    error, if any."""

    state: State | None
    error: LogError | None
    events: int


def numbered_objects(lines: Iterable[str]) -> Iterator[tuple[int, object]]:
    """Each non-blank line as (line number, parsed JSON), raising ``InvalidEvent`` with the
    line number in ``args`` for a line that is not JSON."""
    for number, line in enumerate(lines, start=1):
        if number == 1:
            line = line.removeprefix("\ufeff")  # a byte-order mark some editors write
        if not line.strip():
            continue
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:  # undecodable bytes, kept as surrogates by the reader
            raise _LineError(number, f"not UTF-8 text [{rules.LOG_OBJECT}]") from None
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _LineError(
                number, f"not JSON ({exc.msg} at column {exc.colno}) [{rules.LOG_OBJECT}]"
            ) from None
        except ValueError as exc:  # e.g. an integer of more than 4,300 digits
            raise _LineError(
                number, f"not JSON the engine can read ({exc}) [{rules.LOG_OBJECT}]"
            ) from None
        except RecursionError:
            raise _LineError(number, f"not JSON (nested too deeply) [{rules.LOG_OBJECT}]") from None
        yield number, obj


class _LineError(Exception):
    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def replay_lines(lines: Iterable[str]) -> ReplayResult:
    """Replays JSON Lines; stops at the first malformed or illegal line."""
    state: State | None = None
    count = 0
    last_line = 0
    try:
        for number, obj in numbered_objects(lines):
            last_line = number
            try:
                state = start(obj) if state is None else apply_raw(state, obj)
            except EngineError as exc:
                return ReplayResult(state, LogError(number, str(exc)), count)
            except RecursionError:
                reason = f"event nested too deeply [{rules.LOG_OBJECT}]"
                return ReplayResult(state, LogError(number, reason), count)
            count += 1
    except _LineError as exc:
        return ReplayResult(state, LogError(exc.line, exc.reason), count)
    if state is None:
        reason = str(
            InvalidEvent(
                "the log is empty: the first line must be start", rule=str(rules.LOG_START_FIRST)
            )
        )
        return ReplayResult(None, LogError(last_line + 1, reason), 0)
    return ReplayResult(state, None, count)
