"""The outline finder's work stays bounded where a cluster's lines give rectangles by the
hundred thousand (a patterned cloth joined to every card: edges everywhere). One such frame of
a Picmix claim took 43 s in the card reader. A cluster counts as at most
``quads._CLUSTER_CARDS_MAX`` cards, at most ``quads._SUPPORT_POOL`` of its rectangles (an even
spread) are checked against its edges, and at most ``quads._DEDUPE_POOL`` (the best
supported) are deduplicated."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from vision.identify import quads
from vision.synth.identify_speed import speed_frames


def test_a_flood_of_rectangles_from_lines_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    grey = np.asarray(cv2.cvtColor(speed_frames(1, 7)[0], cv2.COLOR_BGR2GRAY), np.uint8)
    real_lines = quads.rectangles_from_lines
    rng = np.random.default_rng(0)

    def flood(edges: np.ndarray, box: tuple[int, int, int, int], *args: Any) -> np.ndarray:
        # The cluster's own rectangles, and 120,000 more card-shaped ones across its box.
        own = real_lines(edges, box, *args)
        x0, y0, x1, y1 = box
        centres = rng.uniform([x0, y0], [max(x0 + 1, x1), max(y0 + 1, y1)], (120_000, 2))
        card = np.array([[-20.0, -28.0], [20.0, -28.0], [20.0, 28.0], [-20.0, 28.0]])
        return np.concatenate([own.reshape(-1, 4, 2), centres[:, None] + card[None]])

    seen: dict[str, list[int]] = {"support": [], "dedupe": [], "limit": []}
    real_support, real_dedupe = quads._side_support, quads._dedupe

    def support(mask: np.ndarray, cand: np.ndarray, *args: Any) -> np.ndarray:
        seen["support"].append(len(cand))
        return real_support(mask, cand, *args)

    def dedupe(q: np.ndarray, score: np.ndarray, limit: int | None = None) -> np.ndarray:
        seen["dedupe"].append(len(q))
        if limit is not None:
            seen["limit"].append(limit)
        return real_dedupe(q, score, limit)

    monkeypatch.setattr(quads, "rectangles_from_lines", flood)
    monkeypatch.setattr(quads, "_side_support", support)
    monkeypatch.setattr(quads, "_dedupe", dedupe)
    assert quads.find_outlines(grey)
    assert seen["limit"], "no cluster was read from its lines"
    # Without the bounds, a cluster's rectangles (tens of thousands from its tiles) all went
    # to both steps.
    assert max(seen["support"]) == quads._SUPPORT_POOL
    assert max(seen["dedupe"][: len(seen["limit"])]) <= quads._DEDUPE_POOL
    assert max(seen["limit"]) <= quads._OUTLINES_PER_CARD * quads._CLUSTER_CARDS_MAX
