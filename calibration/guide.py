"""Guidance for calibrating live: which parts of the view the board has covered, and when
there are enough views."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration.intrinsics import View

GRID = (6, 4)  # cells across and down
ENOUGH_VIEWS = 12
ENOUGH_COVERAGE = 0.7
MIN_MOVE_PX = 25.0  # a new view must move the board this much from every kept view


@dataclass
class CoverageGuide:
    """Collects board views, keeping only ones that add something, and says what is missing."""

    image_size: tuple[int, int]
    views: list[View] = field(default_factory=list)
    covered: NDArray[np.bool_] = field(init=False)

    def __post_init__(self) -> None:
        self.covered = np.zeros((GRID[1], GRID[0]), bool)

    def cells(self, view: View) -> NDArray[np.bool_]:
        w, h = self.image_size
        cols = np.clip((view.image_px[:, 0] / w * GRID[0]).astype(int), 0, GRID[0] - 1)
        rows = np.clip((view.image_px[:, 1] / h * GRID[1]).astype(int), 0, GRID[1] - 1)
        out = np.zeros((GRID[1], GRID[0]), bool)
        out[rows, cols] = True
        return out

    def offer(self, view: View) -> bool:
        """Keeps ``view`` if the board moved enough from every kept view; True if kept."""
        for other in self.views:
            if other.image_px.shape == view.image_px.shape:
                moved = float(np.median(np.linalg.norm(other.image_px - view.image_px, axis=1)))
                if moved < MIN_MOVE_PX:
                    return False
        self.views.append(view)
        self.covered |= self.cells(view)
        return True

    @property
    def coverage(self) -> float:
        return float(self.covered.mean())

    @property
    def enough(self) -> bool:
        return len(self.views) >= ENOUGH_VIEWS and self.coverage >= ENOUGH_COVERAGE

    def advice(self) -> str:
        if self.enough:
            return f"{len(self.views)} views, {self.coverage:.0%} of the view covered: enough"
        missing = []
        rows, cols = np.nonzero(~self.covered)
        if len(rows):
            parts = set()
            for r, c in zip(rows, cols, strict=True):
                v = "top" if r < GRID[1] / 3 else "bottom" if r >= 2 * GRID[1] / 3 else "middle"
                h = "left" if c < GRID[0] / 3 else "right" if c >= 2 * GRID[0] / 3 else "centre"
                parts.add(f"{v} {h}" if v != "middle" or h != "centre" else "centre")
            missing.append("move the board to the " + ", ".join(sorted(parts)))
        if len(self.views) < ENOUGH_VIEWS:
            missing.append(f"{ENOUGH_VIEWS - len(self.views)} more views, tilted different ways")
        return f"{len(self.views)} views, {self.coverage:.0%} covered: " + "; ".join(missing)
