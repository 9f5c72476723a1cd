"""Staying calibrated over frames: smoothing, hidden markers, and re-solving after a bump.

This is the calibration's own memory across frames (the per-frame readers stay stateless).
Feed it the fiducials seen in each frame with the frame's time; it answers the current table
and board planes. Thresholds are in seconds and pixels, never in frames:

- a marker seen close to where it has settled (within ``bump_px``) pulls the settled corners
  towards it with an exponential time constant ``smooth_s`` (no jitter);
- a marker not seen (a hand over it) keeps its last settled pose;
- a marker seen more than ``bump_px`` away for longer than ``bump_hold_s`` (the tripod was
  knocked, the board was pushed) is taken at its new place, the planes are re-solved and the
  change is logged; a shorter excursion (a misread, a hand's shadow) is ignored.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from calibration import layout
from calibration.intrinsics import Intrinsics
from calibration.markers import Markers
from calibration.planes import PlaneFit, fit_board, fit_table
from calibration.result import Failure

log = logging.getLogger("pictable.calibration")

# Below this much movement of the settled corners, the planes are not re-fitted (so that the
# rectification maps, which cost a few milliseconds to build, are reused).
REFIT_PX = 0.05


@dataclass(frozen=True)
class KeeperConfig:
    smooth_s: float = 0.25
    bump_px: float = 4.0
    bump_hold_s: float = 0.75


@dataclass(frozen=True)
class KeeperEvent:
    t: float
    kind: str  # "solved", "re-solved", "lost"
    plane: str  # "table" or "board"
    detail: str


@dataclass
class _Track:
    settled: NDArray[np.float64]
    last_t: float
    away_since: float | None = None


@dataclass
class PlaneKeeper:
    intrinsics: Intrinsics | None = None
    play_area_mm: tuple[float, float] | None = None
    config: KeeperConfig = field(default_factory=KeeperConfig)

    def __post_init__(self) -> None:
        self._tracks: dict[int, _Track] = {}
        self._fitted_from: dict[str, dict[int, NDArray[np.float64]]] = {}
        self.board: PlaneFit | Failure = Failure("no frame yet")
        self.table: PlaneFit | Failure = Failure("no frame yet")
        self.events: list[KeeperEvent] = []

    def update(self, markers: Markers, t: float) -> list[KeeperEvent]:
        """Takes one frame's fiducials (id -> (4, 2) px) seen at time ``t`` seconds; returns
        the events this frame caused (and appends them to ``events``)."""
        cfg = self.config
        moved: set[int] = set()
        for marker_id, corners in markers.items():
            obs = np.asarray(corners, np.float64).reshape(4, 2)
            track = self._tracks.get(marker_id)
            if track is None:
                self._tracks[marker_id] = _Track(obs.copy(), t)
                moved.add(marker_id)
                continue
            dev = float(np.max(np.linalg.norm(obs - track.settled, axis=1)))
            dt = max(t - track.last_t, 0.0)
            track.last_t = t
            if dev <= cfg.bump_px:
                alpha = 1.0 - math.exp(-dt / cfg.smooth_s) if cfg.smooth_s > 0 else 1.0
                track.settled = track.settled + alpha * (obs - track.settled)
                track.away_since = None
                continue
            if track.away_since is None:
                track.away_since = t
            if t - track.away_since >= cfg.bump_hold_s:
                track.settled = obs.copy()
                track.away_since = None
                moved.add(marker_id)
        new_events: list[KeeperEvent] = []
        for name, ids in (("board", layout.BOARD_MARKERS), ("table", layout.PLAY_AREA_MARKERS)):
            event = self._refit(name, ids, moved, t)
            if event is not None:
                new_events.append(event)
                log.info("%s plane %s at %.2f s: %s", event.plane, event.kind, t, event.detail)
        self.events.extend(new_events)
        return new_events

    def _refit(
        self, name: str, ids: tuple[int, ...], moved: set[int], t: float
    ) -> KeeperEvent | None:
        settled = {m: self._tracks[m].settled for m in ids if m in self._tracks}
        previous = self._fitted_from.get(name)
        current = self.board if name == "board" else self.table
        if previous is not None and set(previous) == set(settled):
            shift = max(
                float(np.max(np.linalg.norm(settled[m] - previous[m], axis=1))) for m in settled
            )
            if shift < REFIT_PX:
                return None
        if not settled:
            return None
        markers = {m: c.astype(np.float32) for m, c in settled.items()}
        if name == "board":
            fit = fit_board(markers, self.intrinsics)
        else:
            fit = fit_table(markers, self.intrinsics, self.play_area_mm)
        self._fitted_from[name] = {m: c.copy() for m, c in settled.items()}
        if name == "board":
            self.board = fit
        else:
            self.table = fit
        bumped = sorted(m for m in moved if m in ids)
        if isinstance(fit, Failure):
            if isinstance(current, PlaneFit):
                return KeeperEvent(t, "lost", name, fit.reason)
            return None
        if not isinstance(current, PlaneFit):
            return KeeperEvent(t, "solved", name, f"markers {list(fit.markers)}")
        if bumped:
            return KeeperEvent(
                t, "re-solved", name, f"markers {bumped} moved for over {self.config.bump_hold_s} s"
            )
        return None
