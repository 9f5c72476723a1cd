"""Pick Pic followed on rendered sessions: do the emitted events give the true scores?

``run_session`` renders one session of the synthetic camera (``pickpic_session``), feeds
its frames to ``PickPicFollower`` as the live pipeline would, and judges the emitted events
the way the live session does (each applied through the engine; an event the engine refuses
is recorded and skipped). A session is **right** when the final scores equal those of the
true event log. ``report(profile)`` is the ``pictable bench`` hook.

    python -m vision.pickpic.bench --sessions 6 --seed 0
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import engine
from vision.pickpic.follow import PickPicFollower

FPS = 4.0
ROUNDS = 2


@dataclass
class SessionResult:
    """One rendered session: truth against what the follower's events give."""

    seed: int
    n_players: int
    right: bool
    true_scores: dict[str, int]
    got_scores: dict[str, int]
    wrong: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    frames: int = 0
    ms_per_frame: float = 0.0
    events_true: int = 0
    events_matched: int = 0


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


def _diff(truth: list[dict[str, Any]], got: list[dict[str, Any]]) -> list[str]:
    """The true events (but ``t``/``meta``) missing from, or different in, the emitted ones."""

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


def run_session(
    seed: int,
    n_players: int,
    *,
    tier: str = "normal",
    rounds: int = ROUNDS,
    fps: float = FPS,
    out_of_turn: float = 0.0,
) -> SessionResult:
    """Render one session and follow it (see the module docstring). ``out_of_turn``: the
    share of gives the rendered players make before they are called."""
    from vision.synth import render_sequence

    seq = render_sequence(
        "pickpic_session",
        seed,
        tier,
        fps,
        n_players=n_players,
        n_rounds=rounds,
        out_of_turn=out_of_turn,
    )
    players = seq.events[0]["players"]
    follower = PickPicFollower(players)
    events = [follower.start_event()]
    spent = 0.0
    n = 0
    last_t = 0.0
    for f in seq:
        t0 = time.process_time()
        events.extend(follower.update(f.frame, f.t))
        spent += time.process_time() - t0
        n += 1
        last_t = f.t
    events.extend(follower.finish(last_t))
    truth_state = engine.replay(seq.events)
    got_state, refused = judge(events)
    truth_scores = dict(truth_state.scores())
    got_scores = dict(got_state.scores())
    right = truth_scores == got_scores and truth_state.finished == got_state.finished
    diff = _diff(seq.events[1:], events[1:])
    return SessionResult(
        seed=seed,
        n_players=n_players,
        right=right,
        true_scores=truth_scores,
        got_scores=got_scores,
        wrong=[] if right else diff,
        refused=refused,
        frames=n,
        ms_per_frame=1000.0 * spent / max(1, n),
        events_true=len(seq.events) - 1,
        events_matched=len(seq.events) - 1 - sum(w.startswith("missed") for w in diff),
    )


def run(n_sessions: int, seed: int, *, tier: str = "normal") -> list[SessionResult]:
    """``n_sessions`` sessions, seeds ``seed * 1000 + i``, 3, 4, 5 players in turn."""
    return [run_session(seed * 1000 + i, 3 + i % 3, tier=tier) for i in range(n_sessions)]


def report(profile: str) -> dict[str, Any]:
    """The ``pictable bench`` hook: ``quick`` (1 session) or ``full`` (12 sessions)."""
    if profile not in ("quick", "full"):
        raise ValueError(f"profile must be 'quick' or 'full', got {profile!r}")
    n = 1 if profile == "quick" else 12
    seed = 1
    results = run(n, seed)
    right = sum(r.right for r in results)
    share = right / len(results)
    ms = statistics.median(r.ms_per_frame for r in results)
    ev_true = sum(r.events_true for r in results)
    ev_ok = sum(r.events_matched for r in results)
    rows = []
    for r in results:
        what = "right" if r.right else "; ".join(r.wrong[:3]) or "scores differ"
        rows.append(
            f"| {r.seed} | {r.n_players} | {r.frames} | {'yes' if r.right else 'no'} | {what} |"
        )
    fails = [r for r in results if not r.right]
    kinds = Counter(
        w.split(" ")[0] + " " + json.loads(w.split(" ", 1)[1])["type"]
        for r in fails
        for w in r.wrong
    )
    fail_text = (
        ", ".join(f"{k}: {v}" for k, v in kinds.most_common()) if kinds else "none in this sample"
    )
    md = "\n".join(
        [
            "## Pick Pic followed from the camera (rendered sessions)",
            "",
            f"Tier normal, {n} sessions of {ROUNDS} rounds (3, 4 and 5 players in turn), "
            f"rendered by `vision.synth` (`pickpic_session`) at {FPS:g} fps, "
            f"seeds {seed * 1000}..{seed * 1000 + n - 1}; each frame goes through "
            "`PickPicFollower.update` (cards by their printed codes, fast path). A session is "
            "right when the final scores from the emitted events (each applied through the "
            "engine, refused ones skipped) equal those of the true log.",
            "",
            "| figure | value | target |",
            "|---|---|---|",
            f"| sessions with the true final scores | {share:.1%} ({right}/{n}) | >= 95% |",
            f"| follower CPU per frame, median of session medians | {ms:.0f} ms | - |",
            f"| true events emitted exactly (but `t`, `meta`) | {ev_ok / max(1, ev_true):.1%} "
            f"({ev_ok}/{ev_true}) | - |",
            "",
            "| seed | players | frames | right | what went wrong |",
            "|---|---|---|---|---|",
            *rows,
            "",
            f"Events missed or extra in the wrong sessions: {fail_text}.",
        ]
    )
    return {
        "title": "Pick Pic from the camera",
        "summary": [
            {
                "figure": "Pick Pic sessions with the true final scores (normal)",
                "value": f"{share:.1%} ({right}/{n})",
                "target": ">= 95%",
                "met": share >= 0.95,
            },
            {
                "figure": "Pick Pic true events emitted exactly",
                "value": f"{ev_ok / max(1, ev_true):.1%} ({ev_ok}/{ev_true})",
                "target": "-",
                "met": None,
            },
            {
                "figure": "Pick Pic follower CPU per frame (median)",
                "value": f"{ms:.0f} ms",
                "target": "-",
                "met": None,
            },
        ],
        "markdown": md,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tier", default="normal")
    args = ap.parse_args(argv)
    for r in run(args.sessions, args.seed, tier=args.tier):
        print(json.dumps(asdict(r)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
