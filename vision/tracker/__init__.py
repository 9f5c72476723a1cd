"""The tracker: the only state over time. It confirms what the per-frame readers see over
time and turns it into the engine's events (docs/formats.md section 1), with ``t`` and ``meta``.

Every threshold is in seconds, never in frames, so the same settings work at 10 or 30 fps.

- ``vision.tracker.stable``: ``Debouncer``, a reading confirmed once stable;
- ``vision.tracker.tracks``: the card tracks and arms the card games share;
- one follower per game, each implementing the live pipeline's follower protocol
  (``pictable.followers``): ``vision.tracker.pickpic``, ``picflip``, ``picasso``,
  ``picmix``.

Imports are lazy: the card tracks load the card reader, which the Picasso and Picmix
followers do not need.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["CardTrack", "CardTracker", "Debouncer", "Sighting", "check_players"]


def check_players(players: Sequence[str], game: str) -> list[str]:
    """The names, stripped; ``ValueError`` for fewer than two, blanks or repeats."""
    names = [str(p).strip() for p in players]
    if len(names) < 2 or any(not n for n in names):
        raise ValueError(f"{game} needs at least two named players, got {list(players)!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"player names must differ, got {names!r}")
    return names


def __getattr__(name: str) -> Any:
    if name == "Debouncer":
        from vision.tracker.stable import Debouncer

        return Debouncer
    if name in ("CardTrack", "CardTracker", "Sighting"):
        import vision.tracker.tracks as tracks

        return getattr(tracks, name)
    raise AttributeError(name)
