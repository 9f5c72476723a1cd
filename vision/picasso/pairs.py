"""Merging pairs of found pieces until no two merge: two sticks in line, two halves of a shape
cut by a stick."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def merge_pairs(items: list[T], merge: Callable[[T, T, list[T]], T | None]) -> list[T]:
    """``items`` with pairs merged until none is: ``merge(a, b, items)`` gives the one piece
    that a and b are (``items``: all of them, a and b included), or None; a merged pair is
    replaced by its piece, put last, and the search starts again."""
    out = list(items)
    changed = True
    while changed:
        changed = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                merged = merge(out[i], out[j], out)
                if merged is not None:
                    out = [*(g for k, g in enumerate(out) if k not in (i, j)), merged]
                    changed = True
                    break
            if changed:
                break
    return out
