"""What the benchmarks of the followers share: rendered games fed to a follower, the emitted
events judged the way the live session judges them, and one set of games summed up.

``judge`` applies events through the engine, skipping (and recording) those it refuses, as
the live session does; ``diff`` lists the true events missing from, or extra in, the emitted
ones (``t`` and ``meta`` aside); ``summarise`` turns one set of games (a bench set, or a
held-out set never looked at while the follower was developed) into the figures, the rows of
the games that went wrong and what went wrong in them.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import engine

BAR = 0.95
"""Issue 9's bar: the emitted events give the true outcome in at least 95% of games."""


class GameRun(Protocol):
    """What ``summarise`` reads of one followed game."""

    seed: int
    n_players: int
    right: bool
    wrong: list[str]
    frames: int
    ms_per_frame: float
    events_true: int
    events_matched: int


def judge(events: list[dict[str, Any]]) -> tuple[Any, list[str]]:
    """The engine state the events lead to, applying each and skipping those the engine
    refuses (as the live session does); returns (state, refusal reasons)."""
    state = engine.start(events[0])
    refused = []
    for ev in events[1:]:
        try:
            state = engine.apply_raw(state, ev)
        except engine.EngineError as e:
            refused.append(f"{ev.get('type')}: {e}")
    return state, refused


def diff(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    """The true events (but ``t``/``meta``) missing from, or different in, the emitted ones:
    ``missed <event>`` and ``extra <event>`` lines, the event as sorted JSON."""

    def key(e: dict[str, Any]) -> str:
        return json.dumps({k: v for k, v in e.items() if k not in ("t", "meta")}, sort_keys=True)

    have = Counter(key(e) for e in got)
    out = []
    for e in truth:
        k = key(e)
        if have[k] > 0:
            have[k] -= 1
        else:
            out.append(f"missed {k}")
    out.extend(f"extra {k}" for k, n in have.items() for _ in range(n))
    return out


@dataclass(frozen=True)
class SetSummary:
    """One set of followed games: ``right`` of ``n``, the follower's CPU per frame (median of
    the games' means), true events emitted exactly, the wrong games' table rows and the kinds
    of event missed or extra in them (``missed play: 2, ...``)."""

    seeds: str
    n: int
    right: int
    ms: float
    events_true: int
    events_matched: int
    rows: tuple[str, ...]
    failures: str

    @property
    def share(self) -> float:
        return self.right / max(1, self.n)

    @property
    def met(self) -> bool:
        return self.share >= BAR

    @property
    def events_share(self) -> float:
        return self.events_matched / max(1, self.events_true)


def summarise(results: Sequence[GameRun]) -> SetSummary:
    """The figures of one set of games (``results`` not empty)."""
    if not results:
        raise ValueError("no games to sum up")
    fails = [r for r in results if not r.right]
    kinds = Counter(
        w.split(" ")[0] + " " + json.loads(w.split(" ", 1)[1]).get("type", "?")
        for r in fails
        for w in r.wrong
    )
    rows = tuple(
        f"| {r.seed} | {r.n_players} | {r.frames} | no | "
        f"{'; '.join(r.wrong[:3]) or 'outcome differs'} |"
        for r in fails
    )
    seeds = sorted(r.seed for r in results)
    return SetSummary(
        seeds=f"{seeds[0]}..{seeds[-1]}",
        n=len(results),
        right=len(results) - len(fails),
        ms=statistics.median(r.ms_per_frame for r in results),
        events_true=sum(r.events_true for r in results),
        events_matched=sum(r.events_matched for r in results),
        rows=rows,
        failures=", ".join(f"{k}: {v}" for k, v in kinds.most_common()) or "none",
    )


def failure_table(s: SetSummary) -> list[str]:
    """Markdown lines: the wrong games of ``s`` (nothing when every game is right)."""
    if not s.rows:
        return []
    return [
        "| seed | players | frames | right | what went wrong |",
        "|---|---|---|---|---|",
        *s.rows,
    ]
