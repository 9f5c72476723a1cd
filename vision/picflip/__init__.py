"""Pic Flip followed from the camera: the discard pile, who laid each card, challenges.

``PicFlipFollower`` (``vision.picflip.follow``) turns frames into docs/formats.md events;
``vision.picflip.bench`` measures it on rendered games. Imports are lazy.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PicFlipFollower"]


def __getattr__(name: str) -> Any:
    if name == "PicFlipFollower":
        from vision.picflip.follow import PicFlipFollower

        return PicFlipFollower
    raise AttributeError(name)
