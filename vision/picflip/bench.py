"""Pic Flip followed on rendered games: do the emitted events give the true outcome?

``run_game`` renders one game of the synthetic camera (``picflip_game``), feeds its frames
to ``PicFlipFollower`` as the live pipeline would, and enters each true ``reject`` through
``follower.reject(t)`` at its time (the vote a person enters on the page). The emitted events
are judged as the live session does (refused ones skipped). A game is **right** when the
final scores (cards discarded), the cards left and the winners equal the true log's.

    python -m vision.picflip.bench --games 6 --seed 0
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from vision.picflip.follow import PicFlipFollower
from vision.pickpic.bench import _diff, judge

FPS = 4.0


@dataclass
class GameResult:
    """One rendered game: truth against what the follower's events give."""

    seed: int
    n_players: int
    right: bool
    true_scores: dict[str, int]
    got_scores: dict[str, int]
    true_winners: list[str]
    got_winners: list[str]
    wrong: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    frames: int = 0
    ms_per_frame: float = 0.0
    events_true: int = 0
    events_matched: int = 0
    rejects: int = 0


def run_game(seed: int, n_players: int, *, tier: str = "normal", fps: float = FPS) -> GameResult:
    """Render one game and follow it (see the module docstring)."""
    from vision.synth import render_sequence

    seq = render_sequence("picflip_game", seed, tier, fps, n_players=n_players)
    start = seq.events[0]
    follower = PicFlipFollower(start["players"], hands=start.get("hands"))
    events = [follower.start_event()]
    rejects = [e["t"] for e in seq.events if e["type"] == "reject"]
    spent, n, last_t = 0.0, 0, 0.0
    for f in seq:
        t0 = time.process_time()
        while rejects and rejects[0] <= f.t:
            ev = follower.reject(rejects.pop(0))
            if ev is not None:
                events.append(ev)
        events.extend(follower.update(f.frame, f.t))
        spent += time.process_time() - t0
        n += 1
        last_t = f.t
    events.extend(follower.finish(last_t))
    truth, _ = judge(seq.events)
    got, refused = judge(events)
    t_sum, g_sum = truth.summary(), got.summary()
    right = (
        t_sum["scores"] == g_sum["scores"]
        and t_sum["cards_left"] == g_sum["cards_left"]
        and list(t_sum["winners"]) == list(g_sum["winners"])
    )
    plain = [e for e in seq.events[1:] if e["type"] != "describe"]
    mine = [e for e in events[1:] if e["type"] != "describe"]
    diff = _diff(plain, mine)
    return GameResult(
        seed=seed,
        n_players=n_players,
        right=right,
        true_scores=dict(t_sum["scores"]),
        got_scores=dict(g_sum["scores"]),
        true_winners=list(t_sum["winners"]),
        got_winners=list(g_sum["winners"]),
        wrong=[] if right else diff,
        refused=refused,
        frames=n,
        ms_per_frame=1000.0 * spent / max(1, n),
        events_true=len(plain),
        events_matched=len(plain) - sum(w.startswith("missed") for w in diff),
        rejects=sum(e["type"] == "reject" for e in plain),
    )


def run(n_games: int, seed: int, *, tier: str = "normal") -> list[GameResult]:
    """``n_games`` games, seeds ``seed * 1000 + i``, 3, 4, 5 players in turn."""
    return [run_game(seed * 1000 + i, 3 + i % 3, tier=tier) for i in range(n_games)]


def report(profile: str) -> dict[str, Any]:
    """The ``pictable bench`` hook: ``quick`` (3 games) or ``full`` (45 games)."""
    if profile not in ("quick", "full"):
        raise ValueError(f"profile must be 'quick' or 'full', got {profile!r}")
    n = 3 if profile == "quick" else 45
    seed = 1
    results = run(n, seed)
    right = sum(r.right for r in results)
    share = right / len(results)
    ms = statistics.median(r.ms_per_frame for r in results)
    ev_true = sum(r.events_true for r in results)
    ev_ok = sum(r.events_matched for r in results)
    rejects = sum(r.rejects for r in results)
    fails = [r for r in results if not r.right]
    kinds = Counter(
        w.split(" ")[0] + " " + json.loads(w.split(" ", 1)[1])["type"]
        for r in fails
        for w in r.wrong
    )
    fail_text = (
        ", ".join(f"{k}: {v}" for k, v in kinds.most_common()) if kinds else "none in this sample"
    )
    rows = [
        f"| {r.seed} | {r.n_players} | {r.frames} | {'yes' if r.right else 'no'} | "
        f"{'; '.join(r.wrong[:3]) or ('right' if r.right else 'outcome differs')} |"
        for r in fails
    ]
    md = "\n".join(
        [
            "## Pic Flip followed from the camera (rendered games)",
            "",
            f"Tier normal, {n} whole games (3, 4 and 5 players in turn, 3-5 cards each, about "
            f"one play in five rejected), rendered by `vision.synth` (`picflip_game`) at "
            f"{FPS:g} fps, seeds {seed * 1000}..{seed * 1000 + n - 1}. Each frame goes "
            "through `PicFlipFollower.update` (cards by their printed codes); each true "
            "`reject` is entered through `reject(t)` at its time, as a vote on the page would "
            "be. A game is right when the scores (cards discarded), cards left and winners "
            "from the emitted events equal the true log's. `describe` is spoken, not seen: "
            "the follower emits it with the phrase `(spoken)`.",
            "",
            "| figure | value | target |",
            "|---|---|---|",
            f"| games with the true outcome | {share:.1%} ({right}/{n}) | >= 95% |",
            f"| true lead/play/reject events emitted exactly (player and card) | "
            f"{ev_ok / max(1, ev_true):.1%} ({ev_ok}/{ev_true}, {rejects} rejects) | - |",
            f"| follower CPU per frame, median of game medians | {ms:.0f} ms | - |",
            "",
            f"Events missed or extra in the wrong games: {fail_text}.",
            "",
            *(
                [
                    "| seed | players | frames | right | what went wrong |",
                    "|---|---|---|---|---|",
                    *rows,
                ]
                if rows
                else []
            ),
        ]
    )
    return {
        "title": "Pic Flip from the camera",
        "summary": [
            {
                "figure": "Pic Flip games with the true outcome (normal)",
                "value": f"{share:.1%} ({right}/{n})",
                "target": ">= 95%",
                "met": share >= 0.95,
            },
            {
                "figure": "Pic Flip true lead/play/reject events emitted exactly",
                "value": f"{ev_ok / max(1, ev_true):.1%} ({ev_ok}/{ev_true})",
                "target": "-",
                "met": None,
            },
            {
                "figure": "Pic Flip follower CPU per frame (median)",
                "value": f"{ms:.0f} ms",
                "target": "-",
                "met": None,
            },
        ],
        "markdown": md,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tier", default="normal")
    args = ap.parse_args(argv)
    for r in run(args.games, args.seed, tier=args.tier):
        print(json.dumps(asdict(r)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
