"""The identification benchmark on rendered tables: accuracy and speed.

``bench_identify(tier, n_scenes, seed, method)`` renders (or reads from a cache) scenes of
:mod:`vision.identify.scenes` and scores the reader the way ``pictable bench`` scores cards:
a reported card is matched to the unused truth card whose outline centre is nearest its own,
within half a card width; it is *right* when the id (and, by codes, the face) is the truth's
and that card is at least 60% visible, *wrong* when the id or face differs or no card is
there. Every truth card of the deck at least 60% visible counts in ``cards``.

Methods: ``codes`` (codes alone, ``codes`` scenes, Pick Pic cards mostly face up, 1 in 4 face
down), ``features`` (pictures alone against the built-in Pick Pic deck, ``features`` scenes,
all face up), ``unknown`` (pictures alone against Pick Pic on ``unknown`` scenes, where half
the cards are Pic Flip cards: each of those at least 60% visible should get no id; *listed*
counts those reported in the ``unknown`` list), ``both`` (codes and pictures, ``codes``
scenes).

``bench_speed(method, n_frames, seed, deck)``: 1280 x 720 normal-tier frames with 12 cards,
one thread (OpenCV and numpy's BLAS: :func:`vision.identify.threads.single_thread`), median
and 95th percentile of wall time and of the
thread's CPU time per frame (the CPU time is the figure to compare on a busy machine).

Run ``python -m vision.identify.bench --help``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.identify.deck import (
    ReferenceDeck,
    build_deck,
    kit_faces,
    load_deck_folder,
    open_deck,
    save_deck,
)
from vision.identify.identify import identify_frame
from vision.identify.reading import FrameCards
from vision.identify.scenes import scenes
from vision.identify.threads import single_thread
from vision.synth import Truth

METHODS: tuple[str, ...] = ("codes", "features", "unknown", "both")
VISIBLE_MIN = 0.6
#: Cards narrower than this (px, short side) are counted apart: KIT.md's table distance
#: gives 70-100 px, but the normal tier's camera (600-900 mm, tilted up to 30 degrees)
#: shows far cards smaller.
SMALL_PX = 55.0
DECK_GAME = "pickpic"


def _scene_kind(method: str) -> str:
    return {"codes": "codes", "features": "features", "unknown": "unknown", "both": "codes"}[method]


def _reader(method: str, deck: ReferenceDeck | None) -> Callable[[np.ndarray], FrameCards]:
    if method == "codes":
        return lambda f: identify_frame(f, None, codes="fast")
    if method in ("features", "unknown"):
        return lambda f: identify_frame(f, deck, codes=None)
    if method == "both":
        return lambda f: identify_frame(f, deck, codes="fast")
    raise ValueError(f"unknown method {method!r}; expected one of {list(METHODS)}")


def score_frame(
    result: FrameCards, truth: Truth, deck_prefix: str, check_face: bool
) -> dict[str, Any]:
    """Counts for one frame (see the module docstring) and the details of every mistake."""
    cards = list(truth.cards)
    used: set[int] = set()
    right = wrong = 0
    mistakes: list[str] = []
    for r in result.cards:
        centre = r.corners_px.mean(axis=0)
        best, best_d = None, np.inf
        for i, t in enumerate(cards):
            d = float(np.linalg.norm(t.corners_px.mean(axis=0) - centre))
            width = float(np.linalg.norm(t.corners_px[1] - t.corners_px[0]))
            if i not in used and d < 0.5 * width and d < best_d:
                best, best_d = i, d
        if best is None:
            wrong += 1
            mistakes.append(f"{r.card} where there is no card ({r.method}, {r.confidence:.2f})")
            continue
        used.add(best)
        t = cards[best]
        if r.card != t.card_id or (check_face and r.side != t.face):
            wrong += 1
            mistakes.append(
                f"{r.card}/{r.side} for {t.card_id}/{t.face} ({t.visible_fraction:.0%} visible, "
                f"{r.method}, {r.confidence:.2f})"
            )
        elif t.visible_fraction >= VISIBLE_MIN:
            right += 1
    ours = [
        t for t in cards if t.card_id.startswith(deck_prefix) and t.visible_fraction >= VISIBLE_MIN
    ]
    small = {
        i
        for i, t in enumerate(cards)
        if t.card_id.startswith(deck_prefix)
        and t.visible_fraction >= VISIBLE_MIN
        and np.linalg.norm(t.corners_px[1] - t.corners_px[0]) < SMALL_PX
    }
    foreign = [
        (i, t)
        for i, t in enumerate(cards)
        if not t.card_id.startswith(deck_prefix) and t.visible_fraction >= VISIBLE_MIN
    ]
    listed = 0
    for _, t in foreign:
        c = t.corners_px.mean(axis=0)
        width = float(np.linalg.norm(t.corners_px[1] - t.corners_px[0]))
        listed += any(float(np.linalg.norm(u.center_px - c)) < 0.5 * width for u in result.unknown)
    missed = [
        f"{t.card_id}/{t.face} ({t.visible_fraction:.0%} visible, "
        f"{np.linalg.norm(t.corners_px[1] - t.corners_px[0]):.0f} px wide)"
        for i, t in enumerate(cards)
        if t.card_id.startswith(deck_prefix) and t.visible_fraction >= VISIBLE_MIN and i not in used
    ]
    return {
        "cards": len(ours),
        "small_cards": len(small),
        "small_missed": len(small - used),
        "right": right,
        "wrong": wrong,
        "foreign": len(foreign),
        "foreign_named": sum(1 for i, _ in foreign if i in used),
        "foreign_listed": listed,
        "mistakes": mistakes,
        "missed": missed,
    }


def bench_identify(
    tier: str = "normal",
    n_scenes: int = 100,
    seed: int = 1,
    method: str = "codes",
    *,
    deck: ReferenceDeck | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Accuracy of ``method`` on ``n_scenes`` rendered scenes of ``tier`` (see the module
    docstring). Returns a dict: ``tier``, ``method``, ``scenes``, ``seed``, ``cards``,
    ``right``, ``wrong``, ``right_rate``, ``wrong_rate`` (of ``cards``), ``foreign``,
    ``foreign_unnamed_rate``, ``foreign_listed_rate`` (``unknown`` only), ``ms_median``,
    ``mistakes`` and ``missed`` (per scene index, for reading)."""
    single_thread()
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {list(METHODS)}")
    if deck is None and method != "codes":
        deck = open_deck(DECK_GAME)
    read = _reader(method, deck)
    totals = {
        "cards": 0,
        "small_cards": 0,
        "small_missed": 0,
        "right": 0,
        "wrong": 0,
        "foreign": 0,
        "foreign_named": 0,
        "foreign_listed": 0,
    }
    mistakes: dict[int, list[str]] = {}
    missed: dict[int, list[str]] = {}
    times: list[float] = []
    for i, frame, truth in scenes(_scene_kind(method), tier, n_scenes, seed, cache_dir):
        t0 = time.perf_counter()
        result = read(frame)
        times.append(time.perf_counter() - t0)
        s = score_frame(result, truth, DECK_GAME, check_face=method in ("codes", "both"))
        for k in totals:
            totals[k] += s[k]
        if s["mistakes"]:
            mistakes[i] = s["mistakes"]
        if s["missed"]:
            missed[i] = s["missed"]
        if progress and (i + 1) % 25 == 0:
            print(f"  {method} {tier}: {i + 1}/{n_scenes} scenes", file=sys.stderr, flush=True)
    cards = max(totals["cards"], 1)
    out: dict[str, Any] = {
        "tier": tier,
        "method": method,
        "scenes": n_scenes,
        "seed": seed,
        **totals,
        "right_rate": totals["right"] / cards,
        "wrong_rate": totals["wrong"] / cards,
        "ms_median": float(np.median(times) * 1000) if times else None,
        "mistakes": mistakes,
        "missed": missed,
    }
    if totals["foreign"]:
        out["foreign_unnamed_rate"] = 1 - totals["foreign_named"] / totals["foreign"]
        out["foreign_listed_rate"] = totals["foreign_listed"] / totals["foreign"]
    return out


# ---- speed ---------------------------------------------------------------------------------


def speed_frames(
    n: int, seed: int = 7, cache_dir: str | os.PathLike[str] | None = None
) -> list[np.ndarray]:
    """``n`` normal-tier 1280 x 720 frames with 12 Pick Pic cards (1 in 4 face down)."""
    from vision.synth import random_cards_scene, render_scene

    frames = []
    folder = None if cache_dir is None else Path(cache_dir) / f"speed-{seed}"
    for i in range(n):
        path = None if folder is None else folder / f"{i:04d}.png"
        if path is not None and path.is_file():
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if img is not None:
                frames.append(img)
                continue
        rng = np.random.default_rng(seed * 1000 + i)
        spec = random_cards_scene(rng, "normal", 12, "pickpic")
        frame, _ = render_scene(spec, seed=seed * 1000 + i)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(path), frame)
        frames.append(frame)
    return frames


def large_deck(n: int = 1000, cache_dir: str | os.PathLike[str] | None = None) -> ReferenceDeck:
    """A deck of ``n`` cards for timing: every front of the printable edition (Pick Pic, Pic
    Flip, Picasso, Picmix: 351 cards) and variants of the Pick Pic photos (mirrored, and crops
    of their pictures enlarged to the card) to make up ``n``."""
    folder = None if cache_dir is None else Path(cache_dir) / f"deck-{n}"
    if folder is not None and (folder / "deck.json").is_file():
        return load_deck_folder(folder)
    faces: dict[str, np.ndarray] = {}
    for game in ("pickpic", "picflip", "picasso", "picmix"):
        faces.update(kit_faces(game))
    base = list(kit_faces("pickpic").items())
    k = 0
    while len(faces) < n:
        card_id, face = base[k % len(base)]
        variant = k // len(base)
        h, w = face.shape[:2]
        if variant == 0:
            img = np.ascontiguousarray(face[:, ::-1])
        else:
            rng = np.random.default_rng(k)
            zoom = 0.55 + 0.35 * rng.random()
            cw, ch = int(w * zoom), int(h * zoom)
            x0 = int(rng.integers(0, w - cw + 1))
            y0 = int(rng.integers(0, h - ch + 1))
            img = cv2.resize(
                face[y0 : y0 + ch, x0 : x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR
            )
        faces[f"{card_id}-v{variant}"] = img
        k += 1
    deck = build_deck(f"bench-{n}", faces)
    if folder is not None:
        save_deck(deck, folder, faces)
        return load_deck_folder(folder)
    return deck


def bench_speed(
    method: str,
    n_frames: int = 30,
    seed: int = 7,
    deck: ReferenceDeck | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Per-frame time of ``method`` (``codes``, ``features`` or ``both``) on 12-card
    1280 x 720 frames, one thread: ``wall_ms`` and ``cpu_ms`` (median, p95) over
    ``n_frames`` frames, each read once before (a live session's steady state: the kit faces
    that codes are checked against are rendered on first sight of a card), and
    ``deck_cards``."""
    single_thread()
    if deck is None and method != "codes":
        deck = open_deck(DECK_GAME)
    read = _reader(method, deck)
    frames = speed_frames(n_frames, seed, cache_dir)
    for f in frames:  # warm-up: imports, and the kit faces each card's codes are checked with
        read(f)
    wall, cpu = [], []
    for f in frames:
        t0, c0 = time.perf_counter(), time.thread_time()
        read(f)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return {
        "method": method,
        "frames": len(frames),
        "deck_cards": 0 if deck is None else len(deck),
        "wall_ms": [float(np.median(wall) * 1000), float(np.percentile(wall, 95) * 1000)],
        "cpu_ms": [float(np.median(cpu) * 1000), float(np.percentile(cpu, 95) * 1000)],
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.identify.bench``: print the figures as JSON."""
    p = argparse.ArgumentParser(
        prog="python -m vision.identify.bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("what", choices=(*METHODS, "speed"))
    p.add_argument("--tier", default="normal", choices=("easy", "normal", "hard"))
    p.add_argument("--scenes", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--cache", default=None, help="folder caching rendered scenes (and decks)")
    p.add_argument(
        "--deck-cards", type=int, default=120, help="speed: 120 (Pick Pic) or more (built)"
    )
    p.add_argument(
        "--method", default="features", choices=("codes", "features", "both"), help="speed: method"
    )
    p.add_argument("--frames", type=int, default=30)
    p.add_argument("--details", action="store_true", help="include every mistake and miss")
    args = p.parse_args(argv)
    if args.what == "speed":
        deck = None
        if args.method != "codes" and args.deck_cards != 120:
            deck = large_deck(args.deck_cards, args.cache)
        out = bench_speed(args.method, args.frames, deck=deck, cache_dir=args.cache)
    else:
        out = bench_identify(
            args.tier, args.scenes, args.seed, args.what, cache_dir=args.cache, progress=True
        )
        if not args.details:
            out["mistakes"] = sum(len(v) for v in out["mistakes"].values())
            out["missed"] = sum(len(v) for v in out["missed"].values())
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
