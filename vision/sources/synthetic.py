"""Frames from any iterable of ``(image, t)`` pairs: the synthetic table camera's rendered
sessions, a list built in a test, a generator.

Kept generic on purpose: this module does not import ``vision.synth``. A rendered sequence,
which yields objects with ``.frame`` and ``.t``, plugs in through ``unpack``::

    SyntheticSource(sequence, fps=sequence.fps, unpack=lambda f: (f.frame, f.t))

and since the sequence is re-iterable, every ``open()`` replays it from the start.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from vision.sources.base import Frame, FrameSource, check_positive

_END = object()


class SyntheticSource(FrameSource):
    """Play ``frames``, an iterable of ``(image, t)`` (or of anything ``unpack`` turns into
    one): ``image`` a (H, W, 3) uint8 BGR array (anything else goes to ``FrameGuard`` like a
    camera's bad frame), ``t`` seconds of session time, finite and non-decreasing. ``index``
    counts items from 0, so it matches the item's position (and a renderer's frame number).

    ``open()`` calls ``iter(frames)`` again, so a re-iterable (a list, a render object with
    ``__iter__``) restarts from its first frame, while a one-shot iterator (a generator)
    continues where it was. Not live: the end of the iterable is the end of the source.

    Raises ``ValueError`` from ``read()`` for a malformed item or a ``t`` that is not a finite
    number or goes backwards: that is a bug in the renderer, not a device hiccup.
    """

    live = False

    def __init__(
        self,
        frames: Iterable[Any],
        *,
        fps: float = 30.0,
        name: str = "synthetic",
        unpack: Callable[[Any], tuple[np.ndarray, float]] | None = None,
    ) -> None:
        self._frames = frames
        self._fps = check_positive("fps", fps)
        self.name = name
        self._unpack = unpack
        self._it: Iterator[Any] | None = None
        self._next_index = 0
        self._last_t = -math.inf

    @property
    def fps(self) -> float:
        """The session's nominal frame rate (frames per second)."""
        return self._fps

    def open(self) -> None:
        """Start (or restart, for a re-iterable) the session."""
        self._it = iter(self._frames)
        self._next_index = 0
        self._last_t = -math.inf

    def read(self) -> Frame | None:
        """The next ``Frame``, or ``None`` when the iterable is exhausted."""
        if self._it is None:
            return None
        item = next(self._it, _END)
        if item is _END:
            self._it = None
            return None
        if self._unpack is not None:
            item = self._unpack(item)
        if not (isinstance(item, tuple) and len(item) == 2):
            raise ValueError(
                f"{self.name} frame {self._next_index} must be an (image, t) pair, "
                f"got {type(item).__name__}"
            )
        image, t = item
        real = isinstance(t, int | float | np.integer | np.floating) and not isinstance(t, bool)
        if not real or not math.isfinite(t) or t < self._last_t:
            raise ValueError(
                f"{self.name} frame {self._next_index} t must be a finite number >= the "
                f"previous t ({self._last_t}), got {t!r}"
            )
        t = float(t)
        frame = Frame(image=image, t=t, index=self._next_index)
        self._next_index += 1
        self._last_t = t
        return frame

    def close(self) -> None:
        """Drop the iterator (idempotent)."""
        self._it = None

    def describe(self) -> str:
        """``synthetic (@ 30 fps)``."""
        return f"{self.name} (@ {self._fps:g} fps)"
