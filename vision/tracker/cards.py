"""Following identified cards between frames.

A card appears once it has been seen for ``appear_s``; it stays while it is seen, and while
it is hidden by a hand (its last place is covered) or was seen less than ``forget_s`` ago, so
that a card briefly hidden is the same card, not a new one. A card reported with a
confidence under ``enter_conf`` does not start a track; once tracked, sightings down to
``keep_conf`` keep it (hysteresis).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Sighting:
    """One card seen in one frame: id, corners (4, 2) float32 px, face "up"/"down", the
    reader's confidence in [0, 1], and the seat zone it lies in (or None)."""

    card: str
    corners_px: NDArray[np.float32]
    face: str = "up"
    confidence: float = 1.0
    zone: str | None = None


@dataclass
class CardTrack:
    card: str
    first_seen: float
    last_seen: float
    corners_px: NDArray[np.float32]
    face: str
    zone: str | None
    frames: int = 1
    confirmed: bool = False
    confirmed_at: float | None = None

    @property
    def centre_px(self) -> tuple[float, float]:
        c = self.corners_px.reshape(4, 2).mean(axis=0)
        return float(c[0]), float(c[1])


@dataclass
class CardTracker:
    appear_s: float = 0.4
    forget_s: float = 1.5
    gap_s: float = 0.3  # a card not yet confirmed may be missed this long
    enter_conf: float = 0.6
    keep_conf: float = 0.4
    tracks: dict[str, CardTrack] = field(default_factory=dict)

    def update(
        self,
        sightings: Iterable[Sighting],
        t: float,
        occluded: Callable[[tuple[float, float]], bool] | None = None,
    ) -> tuple[list[CardTrack], list[CardTrack]]:
        """Feeds one frame's sightings at time ``t`` seconds. ``occluded(point_px)`` says
        whether a point is under a hand in this frame. Returns (tracks confirmed in this
        frame, tracks dropped in this frame)."""
        appeared: list[CardTrack] = []
        seen: set[str] = set()
        for s in sightings:
            track = self.tracks.get(s.card)
            threshold = self.keep_conf if track is not None else self.enter_conf
            if s.confidence < threshold or s.card in seen:
                continue
            seen.add(s.card)
            if track is None:
                track = CardTrack(s.card, t, t, s.corners_px, s.face, s.zone)
                self.tracks[s.card] = track
            else:
                track.last_seen = t
                track.corners_px = s.corners_px
                track.face = s.face
                track.zone = s.zone
                track.frames += 1
            if not track.confirmed and t - track.first_seen >= self.appear_s:
                track.confirmed = True
                track.confirmed_at = t
                appeared.append(track)
        dropped: list[CardTrack] = []
        for card, track in list(self.tracks.items()):
            if card in seen:
                continue
            hidden = occluded is not None and occluded(track.centre_px)
            if hidden:
                continue  # under a hand: keep it where it was
            limit = self.forget_s if track.confirmed else self.gap_s
            if t - track.last_seen > limit:
                del self.tracks[card]
                if track.confirmed:
                    dropped.append(track)
        return appeared, dropped

    def present(self) -> list[CardTrack]:
        return [tr for tr in self.tracks.values() if tr.confirmed]
