"""``bench_picasso(tier, n, seed)``: the board reader's accuracy and speed on rendered boards.

    .venv/bin/python -m vision.picasso.bench --tier normal --n 200 --seed 0
    .venv/bin/python -m vision.picasso.bench --tier hard --n 100 --seed 0 --calibrated
    .venv/bin/python -m vision.picasso.bench --seams --n 12 --seed 1

Boards are those of ``pictable bench`` (``vision.picasso.dataset``: the same seeds, cached as
PNG under ``cache/picasso``). A board whose canvas a hand covers (``canvas_hand_fraction`` >
0 in the truth) must be reported occluded and is not counted; the others must be counted
exactly. Timing is per frame (1280 x 720), one OpenCV thread, everything included (marker
detection, rectification, reading).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.intrinsics import Intrinsics
from calibration.result import Failure
from vision.picasso.dataset import SEED_STRIDE, iter_boards
from vision.picasso.reader import read_board
from vision.picasso.reading import COST, COUNT_KEYS

KINDS = COUNT_KEYS


def bench_picasso(
    tier: str = "normal", n: int = 200, seed: int = 0, *, calibrated: bool = False
) -> dict[str, Any]:
    """Read ``n`` rendered boards of ``tier`` and score them.

    Args:
        tier: ``easy``, ``normal`` or ``hard`` (``vision.synth`` tiers).
        n: boards.
        seed: the run's seed (scene ``i`` uses ``seed * 1_000_003 + i``).
        calibrated: give the reader the camera's true intrinsics, as a calibration file
            would (default: none, a plain homography, as ``analyze`` without --calibration).

    Returns:
        a JSON-able dict: ``boards``; ``counted`` (boards without a hand over the canvas)
        and of those ``counts_right``/``cost_right`` (numbers and ``_pct``), ``no_board``,
        ``false_occlusion``; ``kind_errors`` (per piece kind: boards where that count is
        wrong, and the pieces missed and extra); ``occluded`` (boards with a hand over the
        canvas) and ``occlusion_found`` (reported occluded); ``ms_median``/``ms_p95`` (wall
        time per frame) and ``cpu_ms_median``; ``failures``: the wrong boards, with what
        was expected and read.
    """
    cv2.setNumThreads(1)
    counted = counts_right = cost_right = no_board = false_occ = 0
    occluded = occ_found = 0
    kind_errors = {k: {"boards": 0, "missed": 0, "extra": 0} for k in KINDS}
    wall: list[float] = []
    cpu: list[float] = []
    failures: list[dict[str, Any]] = []
    boards = 0
    for b in iter_boards(tier, n, seed):
        boards += 1
        intr = None
        if calibrated:
            c = b.camera
            intr = Intrinsics(
                np.asarray(c["K"], np.float64),
                np.asarray(c["dist"], np.float64),
                (int(c["image_size_wh"][0]), int(c["image_size_wh"][1])),
            )
        t0, c0 = time.perf_counter(), time.thread_time()
        reading = read_board(b.frame, intrinsics=intr)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        want = {k: int(b.board["counts"].get(k, 0)) for k in KINDS}
        hand = float(b.board["canvas_hand_fraction"]) > 0
        if hand:
            occluded += 1
            if not isinstance(reading, Failure) and reading.occluded:
                occ_found += 1
            continue
        counted += 1
        if isinstance(reading, Failure):
            no_board += 1
            failures.append({"index": b.index, "seed": b.seed, "error": reading.reason})
            continue
        if reading.occluded:
            false_occ += 1
            failures.append(
                {
                    "index": b.index,
                    "seed": b.seed,
                    "false_occlusion": True,
                    "covered": reading.occlusion.covered_fraction if reading.occlusion else 0,
                }
            )
            continue
        got = reading.counts or {}
        ok = all(got.get(k, 0) == want[k] for k in KINDS)
        counts_right += ok
        cost = sum(COST[k] * v for k, v in want.items())
        cost_right += reading.cost == cost
        if not ok:
            for k in KINDS:
                d = got.get(k, 0) - want[k]
                if d:
                    kind_errors[k]["boards"] += 1
                    kind_errors[k]["extra" if d > 0 else "missed"] += abs(d)
            failures.append({"index": b.index, "seed": b.seed, "want": want, "got": got})

    def pct(a: int, b: int) -> float:
        return round(100.0 * a / b, 1) if b else 0.0

    return {
        "tier": tier,
        "seed": seed,
        "calibrated": calibrated,
        "boards": boards,
        "counted": counted,
        "counts_right": counts_right,
        "counts_right_pct": pct(counts_right, counted),
        "cost_right": cost_right,
        "cost_right_pct": pct(cost_right, counted),
        "no_board": no_board,
        "false_occlusion": false_occ,
        "kind_errors": kind_errors,
        "occluded": occluded,
        "occlusion_found": occ_found,
        "occlusion_found_pct": pct(occ_found, occluded),
        "ms_median": round(1e3 * float(np.median(wall)), 1) if wall else None,
        "ms_p95": round(1e3 * float(np.percentile(wall, 95)), 1) if wall else None,
        "cpu_ms_median": round(1e3 * float(np.median(cpu)), 1) if cpu else None,
        "failures": failures,
    }


def seam_boards(
    n: int, seed: int = 1
) -> Iterator[tuple[NDArray[np.uint8], list[tuple[str, float, float]]]]:
    """Rendered normal-tier boards with eight slots each: a long stick, or two short sticks
    end to end in line (a gap of 0-1 mm, up to 1 mm out of line, up to 2.5 degrees turned),
    in any direction: (frame, [(``"long"`` or ``"pair"``, x, y)])."""
    from dataclasses import replace

    from vision.synth import StandInTextures, StickSpec, random_picasso_board, render_scene

    rng = np.random.default_rng(seed)
    for b in range(n):
        pieces: list[Any] = []
        truth: list[tuple[str, float, float]] = []
        for k in range(8):
            cx = 95 + 170 * (k % 2) + rng.uniform(-10, 10)
            cy = 35 + 62 * (k // 2) + rng.uniform(-5, 5)
            ang = float(rng.uniform(-20, 20))
            if rng.random() < 0.5:
                pieces.append(StickSpec("long_stick", (cx, cy), ang))
                truth.append(("long", cx, cy))
                continue
            gap = float(rng.uniform(0, 1.0))
            off = float(rng.uniform(0, 1.0)) * (1 if rng.random() < 0.5 else -1)
            turn = float(rng.uniform(-2.5, 2.5))
            a = np.radians(ang)
            d = np.array([np.cos(a), np.sin(a)])
            nrm = np.array([-d[1], d[0]])
            c1 = np.array([cx, cy]) - d * (25 + gap / 2)
            c2 = np.array([cx, cy]) + d * (25 + gap / 2) + nrm * off
            pieces.append(StickSpec("short_stick", (float(c1[0]), float(c1[1])), ang))
            pieces.append(StickSpec("short_stick", (float(c2[0]), float(c2[1])), ang + turn))
            truth.append(("pair", cx, cy))
        spec = random_picasso_board(
            np.random.default_rng(seed * SEED_STRIDE + b),
            "normal",
            n_sticks=0,
            n_shapes=0,
            string=False,
            supply=False,
            n_hands=0,
        )
        assert spec.board is not None
        spec = replace(spec, board=replace(spec.board, pieces=tuple(pieces)))
        frame, _ = render_scene(spec, seed=seed * SEED_STRIDE + b, provider=StandInTextures())
        yield frame, truth


def bench_seams(n: int = 12, seed: int = 1) -> dict[str, Any]:
    """How often two short sticks laid end to end in line are read as two short sticks (by
    the seam test), and a long stick as one long stick, on ``seam_boards(n, seed)``."""
    out = {"long": [0, 0], "pair": [0, 0]}
    for frame, truth in seam_boards(n, seed):
        reading = read_board(frame)
        if isinstance(reading, Failure):
            continue
        for kind, cx, cy in truth:
            near = sorted(
                s.kind
                for s in reading.sticks
                if np.hypot((s.p0_mm[0] + s.p1_mm[0]) / 2 - cx, (s.p0_mm[1] + s.p1_mm[1]) / 2 - cy)
                < 30
            )
            want = ["long_stick"] if kind == "long" else ["short_stick", "short_stick"]
            out[kind][0] += near == want
            out[kind][1] += 1
    return {
        "pairs_split": out["pair"][0],
        "pairs": out["pair"][1],
        "pairs_split_pct": round(100.0 * out["pair"][0] / max(out["pair"][1], 1), 1),
        "longs_whole": out["long"][0],
        "longs": out["long"][1],
        "longs_whole_pct": round(100.0 * out["long"][0] / max(out["long"][1], 1), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tier", default="normal", choices=("easy", "normal", "hard"))
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--calibrated", action="store_true", help="give the true intrinsics")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.add_argument(
        "--seams", action="store_true", help="measure the seam test on --n boards of sticks in line"
    )
    args = parser.parse_args(argv)
    if args.seams:
        print(json.dumps(bench_seams(args.n, args.seed or 1)))
        return 0
    res = bench_picasso(args.tier, args.n, args.seed, calibrated=args.calibrated)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(
        f"{res['tier']} ({'calibrated' if res['calibrated'] else 'no calibration'}), "
        f"{res['boards']} boards, seed {res['seed']}:\n"
        f"  counted {res['counted']}: counts right {res['counts_right']} "
        f"({res['counts_right_pct']}%), "
        f"cost right {res['cost_right']} ({res['cost_right_pct']}%), no board {res['no_board']}, "
        f"false occlusion {res['false_occlusion']}\n"
        f"  kind errors: {res['kind_errors']}\n"
        f"  hand over the canvas {res['occluded']}: reported occluded {res['occlusion_found']} "
        f"({res['occlusion_found_pct']}%)\n"
        f"  time per frame: median {res['ms_median']} ms, p95 {res['ms_p95']} ms "
        f"(CPU median {res['cpu_ms_median']} ms)"
    )
    for f in res["failures"]:
        print("   ", f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
