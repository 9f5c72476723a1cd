"""Pick Pic followed from the camera: references, hand-overs, random cards and rankings.

``PickPicFollower`` (``vision.pickpic.follow``) turns frames into docs/formats.md events;
``vision.pickpic.calls`` is the order in which players are called to give;
``vision.pickpic.bench`` measures the follower on rendered sessions. Imports are lazy so that
the synthetic camera can use ``calls`` without loading the card reader.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PickPicFollower"]


def __getattr__(name: str) -> Any:
    if name == "PickPicFollower":
        from vision.pickpic.follow import PickPicFollower

        return PickPicFollower
    raise AttributeError(name)
