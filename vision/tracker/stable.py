"""Confirming a changing reading over time: a new value counts only once it has been seen,
unchanged and unobstructed, for ``stable_s`` seconds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass
class Debouncer(Generic[T]):
    """Holds a confirmed value; a candidate replaces it once stable for ``stable_s``.

    ``update(value, t, blocked)``: ``blocked`` frames (a hand or motion over the region)
    neither confirm nor count: they restart the wait, so a change is confirmed only
    ``stable_s`` after the region is clear and still. ``value`` None means "nothing readable
    in this frame" and is treated like a blocked frame. Returns the newly confirmed value
    when this frame confirms a change, else None.

    ``since``: the value is known to have been in view, unchanged and unobstructed, from
    this time on (s, at most ``t``): the frames in between showed the region exactly as this
    one (a motion check says so) but were not read. A new candidate counts from then; a
    caller passes it only for the first reading after a change, never for a reading that
    differs from one made since then.

    ``glitch_s``: readings that differ for at most this long (s), once in a candidate's
    wait, between two that agree on it (a reader that misreads one reading of a still
    region), do not restart the wait: the candidate goes on from where it was (0: every
    differing reading restarts it). A second glitch in the same wait, or a blocked frame,
    restarts it: a reading that flickers never confirms.

    ``confirmed_at`` is when the change was confirmed; ``first_seen`` when the confirmed
    value first appeared (the event's time ``t`` is the confirmation, the delay is their
    difference)."""

    stable_s: float
    glitch_s: float = 0.0
    confirmed: T | None = None
    confirmed_at: float | None = None
    first_seen: float | None = None
    frames: int = 0  # frames that agreed with the confirmed value when it was confirmed
    _candidate: T | None = field(default=None, repr=False)
    _since: float | None = field(default=None, repr=False)
    _count: int = field(default=0, repr=False)
    # the candidate that differing readings interrupted: (value, since, count), and when
    # the first of them came
    _held: tuple[T, float, int] | None = field(default=None, repr=False)
    _differing_since: float = field(default=0.0, repr=False)
    _glitched: bool = field(default=False, repr=False)  # the candidate's wait had its glitch

    def update(
        self, value: T | None, t: float, blocked: bool = False, since: float | None = None
    ) -> T | None:
        if blocked or value is None:
            self._candidate, self._since, self._count = None, None, 0
            self._held = None
            return None
        if self._held is not None:
            if t - self._differing_since > self.glitch_s:
                self._held = None  # differing for too long: a change, not a glitch
            elif value == self._held[0]:
                # the readings in between were a glitch: the candidate goes on
                self._candidate, self._since, self._count = self._held
                self._held, self._glitched = None, True
        elif (
            self.glitch_s > 0
            and self._candidate is not None
            and value != self._candidate
            and not self._glitched
        ):
            assert self._since is not None
            self._held, self._differing_since = (self._candidate, self._since, self._count), t
        if value == self.confirmed:
            self._candidate, self._since, self._count = None, None, 0
            return None
        if value != self._candidate:
            start = t if since is None else min(float(since), t)
            self._candidate, self._since, self._count = value, start, 1
            self._glitched = False
        else:
            self._count += 1
        assert self._since is not None
        if t - self._since >= self.stable_s:
            self.confirmed = value
            self.confirmed_at = t
            self.first_seen = self._since
            self.frames = self._count
            self._candidate, self._since, self._count = None, None, 0
            self._held = None
            return value
        return None

    def reset(self, value: T | None = None) -> None:
        self.confirmed = value
        self._candidate, self._since, self._count = None, None, 0
        self._held = None
