"""``bench_picmix(tier, n, seed)``: the Picmix verifier measured on rendered claims.

Scenes come from ``vision.synth.random_picmix_claim`` (scene ``i`` uses seed
``seed * 1_000_003 + i``, the same scheme as ``pictable bench``), rendered once and kept as
PNG + truth JSON under ``cache/picmix-bench/<tier>-seed<seed>/`` (git-ignored), so a rerun
measures the reader only. The truth's verdict is the synthetic camera's: the player's
``visible_items`` equal the objective's items.

Figures (all counts over the ``n`` claims):

- ``verdict_right``: the verdict equals the truth's; ``verdict_right_rate`` over all claims,
  ``decided_right_rate`` over the claims not answered ``unsure``;
- ``unsure``: claims answered ``unsure`` (or failed); ``unsure_rate``;
- ``wrong_accepted``: truly wrong claims answered ``correct`` (the costliest error), and
  ``wrong_accepted_rate`` over the truly wrong claims; ``right_rejected`` likewise;
- ``item_precision`` / ``item_recall``: items reported visible on the player's cards against
  the truth's visible items (summed over claims);
- ``objective_by_code``, ``objective_right``: how the objective was found, and whether its
  items are right;
- ``ms_median``, ``ms_p95``: thread CPU time of ``verify_frame`` per claim (one thread).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

SEED_STRIDE = 1_000_003


def repo_root() -> Path:
    """The repository's root folder (the scene cache lives under its ``cache/``)."""
    return Path(__file__).resolve().parents[2]


def claim_scene(
    tier: str, seed: int, i: int, cache: Path | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """Rendered claim ``i`` of ``(tier, seed)``: the frame (720, 1280, 3) uint8 BGR and the
    truth as JSON (``Truth.to_json()``), from ``cache`` when it is there."""
    folder = (cache or repo_root() / "cache" / "picmix-bench") / f"{tier}-seed{seed}"
    png, js = folder / f"{i:04d}.png", folder / f"{i:04d}.json"
    if png.is_file() and js.is_file():
        frame = cv2.imread(str(png), cv2.IMREAD_COLOR)
        if frame is not None:
            return frame, json.loads(js.read_text(encoding="utf-8"))
    from vision.synth import random_picmix_claim, render_scene

    s = seed * SEED_STRIDE + i
    frame, truth = render_scene(random_picmix_claim(np.random.default_rng(s), tier), seed=s)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(png), frame)
    js.write_text(json.dumps(truth.to_json()), encoding="utf-8")
    return frame, truth.to_json()


def truth_of(truth: dict[str, Any]) -> tuple[set[str], set[str], str]:
    """(visible items, objective items, verdict) of a claim's truth."""
    area = truth["picmix_areas"][0]
    visible = set(area["visible_items"])
    objective = next(set(c["items"]) for c in truth["cards"] if c.get("items"))
    return visible, objective, "correct" if visible == objective else "wrong"


def bench_picmix(
    tier: str = "normal",
    n: int = 400,
    seed: int = 0,
    *,
    cache: Path | None = None,
    verify: Callable[[np.ndarray], Any] | None = None,
    failures: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Verify ``n`` rendered claims of ``tier`` and return the figures (module docstring).

    ``verify``: the reader (default ``verify_frame``); ``failures``: when given, each claim
    whose verdict is not right is appended (index, truth, reading) for inspection."""
    from vision.picmix.reader import PicmixReading, verify_frame

    fn = verify or verify_frame
    right = unsure = wrong_total = wrong_accepted = right_total = right_rejected = 0
    tp = fp = fn_items = 0
    by_code = objective_right = 0
    times: list[float] = []
    cv2.setNumThreads(1)
    for i in range(n):
        frame, truth = claim_scene(tier, seed, i, cache)
        t_vis, t_obj, t_verdict = truth_of(truth)
        t0 = time.thread_time()
        reading = fn(frame)
        times.append((time.thread_time() - t0) * 1000)
        verdict = reading.verdict if isinstance(reading, PicmixReading) else "unsure"
        wrong_total += t_verdict == "wrong"
        right_total += t_verdict == "correct"
        if verdict == t_verdict:
            right += 1
        elif verdict == "unsure":
            unsure += 1
        if t_verdict == "wrong" and verdict == "correct":
            wrong_accepted += 1
        if t_verdict == "correct" and verdict == "wrong":
            right_rejected += 1
        if isinstance(reading, PicmixReading):
            got = set(reading.visible)
            tp += len(got & t_vis)
            fp += len(got - t_vis)
            fn_items += len(t_vis - got)
            by_code += reading.objective_method == "code"
            objective_right += set(reading.objective_items) == t_obj
        else:
            fn_items += len(t_vis)
        if failures is not None and verdict != t_verdict:
            failures.append(
                {
                    "index": i,
                    "truth": {
                        "visible": sorted(t_vis),
                        "objective": sorted(t_obj),
                        "verdict": t_verdict,
                    },
                    "reading": reading.to_json()
                    if isinstance(reading, PicmixReading)
                    else str(reading),
                }
            )
    decided = n - unsure
    return {
        "tier": tier,
        "n": n,
        "seed": seed,
        "verdict_right": right,
        "verdict_right_rate": right / max(1, n),
        "decided_right_rate": right / max(1, decided),
        "unsure": unsure,
        "unsure_rate": unsure / max(1, n),
        "truly_wrong": wrong_total,
        "wrong_accepted": wrong_accepted,
        "wrong_accepted_rate": wrong_accepted / max(1, wrong_total),
        "truly_correct": right_total,
        "right_rejected": right_rejected,
        "item_precision": tp / max(1, tp + fp),
        "item_recall": tp / max(1, tp + fn_items),
        "objective_by_code": by_code,
        "objective_right": objective_right,
        "ms_median": float(np.median(times)) if times else 0.0,
        "ms_p95": float(np.percentile(times, 95)) if times else 0.0,
    }


def render_cache(tier: str, n: int, seed: int, start: int = 0) -> None:
    """Render (or find) claims ``start..n-1`` of ``(tier, seed)`` into the cache."""
    for i in range(start, n):
        claim_scene(tier, seed, i)


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.picmix.bench TIER [N] [SEED] [--no-codes] [--render-only]
    [--start I] [--failures FILE]``: print the figures as JSON (or only fill the cache)."""
    import argparse
    import functools

    ap = argparse.ArgumentParser(prog="python -m vision.picmix.bench")
    ap.add_argument("tier", choices=("easy", "normal", "hard"))
    ap.add_argument("n", type=int, nargs="?", default=400)
    ap.add_argument("seed", type=int, nargs="?", default=0)
    ap.add_argument("--start", type=int, default=0, help="render-only: first claim index")
    ap.add_argument("--render-only", action="store_true", help="fill the scene cache only")
    ap.add_argument("--no-codes", action="store_true", help="ignore printed codes (look only)")
    ap.add_argument("--failures", type=Path, help="write the claims judged wrong to FILE")
    args = ap.parse_args(argv)
    if args.render_only:
        render_cache(args.tier, args.n, args.seed, args.start)
        return 0
    from vision.picmix.reader import verify_frame

    fn = functools.partial(verify_frame, use_codes=not args.no_codes)
    fails: list[dict[str, Any]] = []
    out = bench_picmix(args.tier, args.n, args.seed, verify=fn, failures=fails)
    out["codes"] = not args.no_codes
    print(json.dumps(out, indent=2))
    if args.failures is not None:
        args.failures.write_text(json.dumps(fails, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
