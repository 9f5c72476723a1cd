"""The tracker: the only stateful reader. It confirms what the per-frame readers see over
time and turns it into the engine's events (docs/formats.md section 1), with ``t`` and ``meta``.

Every threshold is in seconds, never in frames, so the same settings work at 10 or 30 fps.
"""

from vision.tracker.cards import CardTrack, CardTracker, Sighting
from vision.tracker.stable import Debouncer

__all__ = ["CardTrack", "CardTracker", "Debouncer", "Sighting"]
