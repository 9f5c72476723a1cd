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


def sets_report(
    sets: Sequence[tuple[str, SetSummary]], *, game: str, unit: str, outcome: str, events: str
) -> tuple[list[str], list[dict[str, Any]]]:
    """The shared part of a follower's ``report``: the Markdown table of ``sets`` (``(name,
    summary)``, the bench seeds first) with each set's wrong ``unit`` (``games``) and what
    went wrong, and the summary rows (``outcome``: what a right game gives, e.g. ``the true
    outcome``; ``events``: which true events are counted, e.g. ``lead/play/reject``)."""
    true_events = f"true {events} events" if events else "true events"
    md = [
        f"| set | seeds | {unit} with {outcome} | {true_events} emitted exactly (but `t`, "
        "`meta`) | follower CPU per frame (median) | target |",
        "|---|---|---|---|---|---|",
    ]
    md += [
        f"| {name} | {s.seeds} | {s.share:.1%} ({s.right}/{s.n}) | {s.events_share:.1%} "
        f"({s.events_matched}/{s.events_true}) | {s.ms:.0f} ms | >= {BAR:.0%} |"
        for name, s in sets
    ]
    for name, s in sets:
        md += ["", f"Events missed or extra in the wrong {unit} ({name}): {s.failures}."]
        md += ["", *failure_table(s)] if s.rows else []
    bench = sets[0][1]
    summary: list[dict[str, Any]] = [
        {
            "figure": f"{game} {unit} with {outcome} ({name}, {s.seeds})",
            "value": f"{s.share:.1%} ({s.right}/{s.n})",
            "target": f">= {BAR:.0%}",
            "met": s.met,
        }
        for name, s in sets
    ]
    summary += [
        {
            "figure": f"{game} {true_events} emitted exactly ({sets[0][0]})",
            "value": f"{bench.events_share:.1%} ({bench.events_matched}/{bench.events_true})",
            "target": "-",
            "met": None,
        },
        {
            "figure": f"{game} follower CPU per frame (median)",
            "value": f"{bench.ms:.0f} ms",
            "target": "-",
            "met": None,
        },
    ]
    return md, summary
