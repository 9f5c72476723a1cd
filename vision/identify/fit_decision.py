"""Fit the picture decision (``vision.identify.outlines.DECISION_*``) on rendered tables.

Every outline that :func:`vision.identify.quads.find_outlines` finds in the frames, as
:func:`vision.identify.identify_frame` asks for them (the table's markers and their sizes
given), and its variant grown by the deck's frame, is matched to the built-in Pick Pic deck by
:func:`vision.identify.outlines.match_outlines`; a match is *right* when a truth card's
centre is within a quarter of its width of the match's and has the matched id face up, and
*wrong* when no card is there, or a card with another id, a Pic Flip card or a back is. Matches
of the right id on a badly placed outline (centre a quarter to a half width off) are left out.
A logistic model is fitted (iteratively reweighted least squares, a small ridge) on the
standardised features of ``_decision_features`` and printed as Python constants, with how
many cards each probability threshold names right and wrong.

``python -m vision.identify.fit_decision [--scenes 100] [--seed 0] [--cache cache/identify]``
"""

from __future__ import annotations

import argparse
import sys

import cv2
import numpy as np

from vision.identify.deck import open_deck
from vision.identify.outlines import _decision_features, card_outlines, match_outlines
from vision.identify.scenes import scenes


def collect(
    n: int, seed: int, cache: str | None
) -> tuple[np.ndarray, np.ndarray, list[tuple[str, int, str | None, int]]]:
    """(features (k, 9), labels (k,) 1 right / 0 wrong, keys (kind, scene, truth id or
    None, outline)) over the ``features`` and ``unknown`` scenes."""
    deck = open_deck("pickpic")
    feats, labels, keys = [], [], []
    for kind in ("features", "unknown"):
        for i, frame, truth in scenes(kind, "normal", n, seed, cache):
            grey = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
            outlines = card_outlines(grey, deck)
            if not outlines:
                continue
            for m in match_outlines(frame, outlines, deck):
                centre = m.corners.mean(axis=0)
                label, tid = 0, None
                for t in truth.cards:
                    w = float(np.linalg.norm(t.corners_px[1] - t.corners_px[0]))
                    d = float(np.linalg.norm(t.corners_px.mean(axis=0) - centre))
                    if d < 0.5 * w:
                        tid = t.card_id
                        same = t.card_id == m.card and t.face == "front"
                        label = 1 if same and d < 0.25 * w else (-1 if same else 0)
                if label < 0:
                    continue
                o = outlines[m.outline]
                feats.append(
                    _decision_features(
                        np.array([m.cosine]), np.array([m.margin]), np.array([m.agree]),
                        np.array([m.agree - m.agree_next]), np.array([o.outline]),
                        np.array([float(o.support.min())]),
                    )[0]
                )  # fmt: skip
                labels.append(label)
                keys.append((kind, i, tid, m.outline))
            print(f"{kind} {i + 1}/{n}", file=sys.stderr, flush=True)
    return np.asarray(feats), np.asarray(labels, np.float64), keys


def fit(
    x: np.ndarray, y: np.ndarray, ridge: float = 1e-3
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weights (1 + d,), mean (d,), scale (d,)) of a logistic model of ``y`` on ``x``."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    xs = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(xs.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-xs @ w))
        grad = xs.T @ (y - p) - ridge * w
        hess = (xs * (p * (1 - p))[:, None]).T @ xs + ridge * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w, mean, scale


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.identify.fit_decision", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--scenes", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cache", default="cache/identify")
    args = p.parse_args(argv)
    from vision.identify.threads import single_thread

    single_thread()
    x, y, keys = collect(args.scenes, args.seed, args.cache)
    w, mean, scale = fit(x, y)
    prob = 1 / (1 + np.exp(-(w[0] + ((x - mean) / scale) @ w[1:])))
    print("DECISION_WEIGHTS = np.array([" + ", ".join(f"{v:.4f}" for v in w) + "])")
    print("DECISION_MEAN = np.array([" + ", ".join(f"{v:.5f}" for v in mean) + "])")
    print("DECISION_SCALE = np.array([" + ", ".join(f"{v:.5f}" for v in scale) + "])")
    for th in (0.5, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99):
        ok = prob >= th
        right = {
            (k[0], k[1], k[2]) for k, a, lab in zip(keys, ok, y, strict=True) if a and lab == 1
        }
        wrong = {
            (k[0], k[1], k[3]) for k, a, lab in zip(keys, ok, y, strict=True) if a and lab == 0
        }
        print(f"# p >= {th}: {len(right)} cards named right, {len(wrong)} outlines named wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
