"""What every frame source shares: the ``Frame``, the ``FrameSource`` protocol, the errors and
the one parameter-check helper.

A source is a device boundary, the way an httpx transport is: ``read()`` hands over what the
camera, file or renderer produced, stamped with a time and an index. Built-in sources normally
produce (H, W, 3) uint8 BGR, but a device may not (a grey camera, a PNG with alpha, a driver
that returns an empty buffer), so the consumers of sources, ``LatestFrameReader`` and
``iter_frames``, pass every frame through ``FrameGuard`` and never hand a malformed one on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

import numpy as np


class SourceError(OSError):
    """A source could not be opened or read: no such camera, an unreadable file, a stream
    that refuses the connection. An ``OSError`` because that is what it is: a device or I/O
    condition the caller may retry, not a programming mistake."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One captured frame.

    - ``image``: ``np.ndarray`` (H, W, 3) uint8 BGR once it has passed ``FrameGuard`` (every
      frame a ``LatestFrameReader`` or ``iter_frames`` hands over has); straight from a
      source's ``read()`` it is whatever the device produced.
    - ``t``: seconds, source time. Files: the frame's timestamp in the video (or index / fps);
      image folders and synthetic sessions: the time they declare; cameras and streams:
      ``time.monotonic()`` just after the frame was grabbed.
    - ``index``: the source's frame counter, 0 for the first frame after ``open()`` for files
      and folders (the frame number / file position), and increasing over the source's whole
      life for cameras and streams (a reopened camera does not restart at 0).

    ``eq=False``: frames compare by identity; comparing pixel arrays element-wise is never
    what a caller means by ``==``.
    """

    image: np.ndarray
    t: float
    index: int


@runtime_checkable
class FrameSource(Protocol):
    """Where frames come from: a camera, a stream, a video file, an image folder, a synthetic
    session. Implementations (and test fakes) may subclass this protocol to inherit the
    context-manager methods, or implement everything themselves.

    Contract:

    - ``open()`` acquires the device and (re)starts from the beginning where that makes sense
      (files, folders, re-iterable synthetic sessions). It raises ``SourceError`` (or another
      ``OSError``) when the device cannot be opened. Calling it on an open source reopens it.
    - ``read()`` returns the next ``Frame``, or ``None``. For a source that is not ``live``,
      ``None`` means the end; for a ``live`` one it means the device failed (unplugged
      camera, dropped stream), and the caller may ``close()`` and ``open()`` it again. A read
      may also raise ``OSError`` / ``cv2.error`` for a device failure.
    - ``close()`` releases the device; idempotent; safe on a source that never opened.
    - ``fps``: nominal frames per second (what the file or camera declares, or what the
      caller chose for a folder), used to pace playback and convert thresholds.
    - ``live``: True for cameras and streams (frames arrive in real time; a failed read is a
      drop-out), False for files, folders and synthetic sessions (a failed read is the end).
    - ``describe()``: a short human description for logs, e.g. ``camera 0 (1280x720 @ 30 fps)``.

    One source is used from one thread at a time; ``LatestFrameReader`` opens it in the
    caller's thread, then reads and closes it only from its capture thread.
    """

    @property
    def fps(self) -> float:
        """Nominal frames per second (> 0)."""
        ...

    @property
    def live(self) -> bool:
        """True for real-time devices (cameras, streams)."""
        ...

    def open(self) -> None:
        """Acquire the device; raises ``SourceError`` when it cannot."""
        ...

    def read(self) -> Frame | None:
        """The next frame, or ``None`` (end of a file; failure of a live device)."""
        ...

    def close(self) -> None:
        """Release the device (idempotent)."""
        ...

    def describe(self) -> str:
        """A short description for logs."""
        ...

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def check_positive(name: str, value: object, *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float if it is a finite real number > 0 (>= 0 with
    ``allow_zero``); otherwise raise ``ValueError("fps must be a finite number > 0, got -1")``.

    The one check for the numeric parameters of this package (rates, delays, timeouts).
    """
    bound = ">= 0" if allow_zero else "> 0"
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    if ok:
        number = float(value)  # type: ignore[arg-type]
        ok = math.isfinite(number) and (number >= 0 if allow_zero else number > 0)
    if not ok:
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return number
