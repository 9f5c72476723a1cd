"""Capture in a thread of its own, handing the consumer the newest frame.

``LatestFrameReader(source)`` reads ``source`` in a daemon thread and passes every frame
through a ``FrameGuard`` (convert or skip, counted). What happens next depends on ``live``:

- live (the default for cameras and streams): a one-slot buffer; a new frame replaces one the
  consumer has not taken yet (counted in ``dropped``), so a slow consumer always gets the
  newest frame and lag never grows. A file read live is paced at its own timestamps, as if
  a camera were filming it.
- not live (the default for files, folders, synthetic sessions): the capture thread waits for
  the consumer to take each frame, so nothing is dropped and the file is read as fast as the
  consumer reads.

A live source that fails (``read()`` returns ``None`` or raises ``OSError`` / ``cv2.error``)
is closed and reopened with exponential back-off; the gap is logged on the
``pictable.sources`` logger and recorded in ``stats.gaps``. Meanwhile the consumer's
``read(timeout)`` just returns ``None``: a missing camera is a state, not an exception.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, TracebackType
from typing import Self

import cv2

from vision.sources.base import Frame, FrameSource, check_positive
from vision.sources.guard import FrameGuard, Skip

log = logging.getLogger("pictable.sources")


@dataclass(frozen=True)
class Backoff:
    """Delays between reopening attempts, in seconds: ``initial_s``, then times ``factor``
    after every failed attempt, capped at ``max_s`` (0.5, 1, 2, 4, 8, 8, ... by default)."""

    initial_s: float = 0.5
    factor: float = 2.0
    max_s: float = 8.0

    def __post_init__(self) -> None:
        check_positive("initial_s", self.initial_s)
        check_positive("max_s", self.max_s)
        if check_positive("factor", self.factor) < 1:
            raise ValueError(f"factor must be >= 1, got {self.factor!r}")

    def delays(self) -> Iterator[float]:
        """The endless sequence of delays in seconds."""
        delay = min(self.initial_s, self.max_s)
        while True:
            yield delay
            delay = min(delay * self.factor, self.max_s)


@dataclass(frozen=True)
class ReaderStats:
    """A snapshot of a ``LatestFrameReader``'s counters.

    Every frame read from the source (``captured``) ends up in exactly one of ``delivered``,
    ``dropped`` (replaced in the slot before the consumer took it, or left there at close),
    ``skipped`` (by ``Skip`` reason) or ``pending`` (in the slot now). ``converted`` counts
    delivered-or-droppable frames that needed a conversion (by ``Convert`` reason).

    ``gaps`` are the closed periods without frames from a live source, ``(start_t, end_t)``
    in seconds on the reader's clock (``time.monotonic`` by default, the clock cameras stamp
    frames with): from the failed read to the first frame after reopening, or to ``close()``
    if the source never came back. ``gap_since`` is the start of the gap in progress, if any.
    """

    captured: int = 0
    delivered: int = 0
    dropped: int = 0
    pending: int = 0
    skipped: Mapping[str, int] = field(default_factory=dict)
    converted: Mapping[str, int] = field(default_factory=dict)
    gaps: tuple[tuple[float, float], ...] = ()
    gap_since: float | None = None
    reopen_attempts: int = 0
    reopens: int = 0
    ended: bool = False

    @property
    def skipped_total(self) -> int:
        """All skipped frames, whatever the reason."""
        return sum(self.skipped.values())


class LatestFrameReader:
    """Read ``source`` in a background thread; ``read()`` returns the newest frame.

    ``live`` defaults to ``source.live`` (see the module docstring for what it changes).
    ``backoff`` sets the reopening delays for live sources; ``guard`` the frame checks (a
    fresh ``FrameGuard`` by default); ``clock`` the clock for gaps and pacing (seconds,
    monotonic).

    Use as a context manager, or call ``start()`` and ``close()``::

        with LatestFrameReader(CameraSource(0)) as reader:
            while running:
                frame = reader.read(timeout=1.0)   # None while the camera is away
                if frame is not None:
                    process(frame.image)           # (H, W, 3) uint8 BGR

    ``start()`` opens the source in the caller's thread and raises if it cannot (a wrong
    camera index or a missing file is reported at once); after that the source is read and
    closed only by the capture thread. An unexpected exception in the capture thread (a bug
    in a source, a malformed synthetic item) ends the capture and is re-raised by ``read()``
    once the frames already captured have been handed over.
    """

    POLL_S = 0.5
    """How often iteration re-checks for the end while no frame comes."""

    def __init__(
        self,
        source: FrameSource,
        *,
        live: bool | None = None,
        backoff: Backoff | None = None,
        guard: FrameGuard | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.live = bool(source.live) if live is None else bool(live)
        self.paced = self.live and not source.live
        self.backoff = Backoff() if backoff is None else backoff
        self.name = source.describe()
        self.guard = FrameGuard(name=self.name) if guard is None else guard
        self._clock = clock
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Everything below is shared with the capture thread: read and written under _cond.
        self._slot: Frame | None = None
        self._captured = 0
        self._delivered = 0
        self._dropped = 0
        self._skipped: dict[str, int] = {}
        self._converted: dict[str, int] = {}
        self._gaps: list[tuple[float, float]] = []
        self._gap_since: float | None = None
        self._reopen_attempts = 0
        self._reopens = 0
        self._done = False
        self._failure: Exception | None = None

    # -- consumer side ----------------------------------------------------------------------
    def start(self) -> Self:
        """Open the source (raising ``SourceError`` / ``OSError`` if it cannot) and start the
        capture thread. Returns ``self``."""
        if self._thread is not None:
            raise RuntimeError(f"reader for {self.name} already started")
        self.source.open()
        self.name = self.source.describe()
        self._thread = threading.Thread(
            target=self._run, name=f"pictable-capture {self.name}", daemon=True
        )
        try:
            self._thread.start()
        except RuntimeError:
            self.source.close()
            raise
        return self

    def read(self, timeout: float | None = 1.0) -> Frame | None:
        """The newest frame not handed over yet, waiting up to ``timeout`` seconds for one
        (``None`` waits without limit, 0 does not wait). Returns ``None`` on timeout or once
        the source has ended; never raises for a missing camera."""
        if self._thread is None:
            raise RuntimeError(f"reader for {self.name} not started; call start()")
        if timeout is not None:
            check_positive("timeout", timeout, allow_zero=True)
        with self._cond:
            self._cond.wait_for(lambda: self._slot is not None or self._done, timeout)
            frame = self._slot
            if frame is not None:
                self._slot = None
                self._delivered += 1
                self._cond.notify_all()
                return frame
            if self._failure is not None:
                raise self._failure
            return None

    def __iter__(self) -> Iterator[Frame]:
        """Frames until the source ends (a live source never ends by itself: stop by
        breaking out or calling ``close()`` from another thread)."""
        while True:
            frame = self.read(timeout=self.POLL_S)
            if frame is not None:
                yield frame
            elif self.ended:
                return

    @property
    def ended(self) -> bool:
        """True once capture has finished (end of file, failure or ``close()``) and the last
        frame has been handed over."""
        with self._cond:
            return self._done and self._slot is None

    @property
    def running(self) -> bool:
        """Whether the capture thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def stats(self) -> ReaderStats:
        """A consistent snapshot of the counters."""
        with self._cond:
            return self._snapshot()

    def wait_for_stats(
        self, predicate: Callable[[ReaderStats], bool], timeout: float | None
    ) -> bool:
        """Block until ``predicate(stats)`` holds or ``timeout`` seconds pass; returns whether
        it holds. Every change of the counters wakes the waiters, so this is how a caller (or
        a test) waits for "10 frames captured" or "the camera is back" without sleeping."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self._snapshot()), timeout)

    def stop(self) -> None:
        """Ask the capture thread to stop, without waiting: it finishes the read in progress
        (if any), closes the source and exits. Safe from any thread, e.g. a signal handler;
        ``close()`` is this plus the wait."""
        with self._cond:
            self._stop.set()
            self._cond.notify_all()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the capture thread and wait up to ``timeout`` seconds for it to finish; the
        thread closes the source. A thread stuck in a driver call past the timeout is left
        behind (it is a daemon, so it cannot keep the process alive) and logged."""
        check_positive("timeout", timeout, allow_zero=True)
        self.stop()
        thread = self._thread
        if thread is None or thread is threading.current_thread():
            return
        thread.join(timeout)
        if thread.is_alive():
            log.warning(
                "%s: capture thread did not stop within %g s; leaving it as a daemon",
                self.name,
                timeout,
            )

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LatestFrameReader({self.name!r}, live={self.live})"

    def _snapshot(self) -> ReaderStats:
        return ReaderStats(
            captured=self._captured,
            delivered=self._delivered,
            dropped=self._dropped,
            pending=int(self._slot is not None),
            skipped=MappingProxyType(dict(self._skipped)),
            converted=MappingProxyType(dict(self._converted)),
            gaps=tuple(self._gaps),
            gap_since=self._gap_since,
            reopen_attempts=self._reopen_attempts,
            reopens=self._reopens,
            ended=self._done and self._slot is None,
        )

    # -- capture thread ---------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._capture()
        # The thread boundary: whatever a source raises must reach the consumer, the way
        # concurrent.futures re-raises in result(); BaseException (KeyboardInterrupt,
        # SystemExit) is left alone.
        except Exception as exc:
            log.exception("%s: capture failed", self.name)
            with self._cond:
                self._failure = exc
        finally:
            self._close_source()
            with self._cond:
                if self._gap_since is not None:
                    self._gaps.append((self._gap_since, self._clock()))
                    self._gap_since = None
                if self._slot is not None and self._stop.is_set():
                    # Closed with a frame nobody will take: it was dropped.
                    self._slot = None
                    self._dropped += 1
                self._done = True
                self._cond.notify_all()

    def _capture(self) -> None:
        pace_origin: tuple[float, float] | None = None  # (frame t, clock) of the first frame
        delays: Iterator[float] | None = None  # set while a live source is away
        while not self._stop.is_set():
            frame = self._read_source()
            if frame is None:
                if self._stop.is_set():
                    return
                if not self.source.live:
                    log.info("%s: end of source", self.name)
                    return
                if delays is None:
                    delays = self.backoff.delays()
                    self._begin_gap()
                if not self._reopen(delays):
                    return
                continue
            if delays is not None:
                delays = None
                self._end_gap()
            admitted = self.guard.admit(frame)
            with self._cond:
                self._captured += 1
                self._skipped = dict(self.guard.skipped)
                self._converted = dict(self.guard.converted)
                self._cond.notify_all()
            if isinstance(admitted, Skip):
                continue
            if self.paced:
                now = self._clock()
                if pace_origin is None:
                    pace_origin = (admitted.t, now)
                wait = pace_origin[1] + (admitted.t - pace_origin[0]) - now
                if wait > 0 and self._stop.wait(wait):
                    with self._cond:
                        self._dropped += 1  # captured, then closed before its time came
                    return
            self._hand_over(admitted)

    def _read_source(self) -> Frame | None:
        try:
            return self.source.read()
        except (OSError, cv2.error) as exc:
            if not self.source.live:
                raise
            log.debug("%s: read failed: %s", self.name, exc)
            return None

    def _hand_over(self, frame: Frame) -> None:
        with self._cond:
            if not self.live:
                self._cond.wait_for(lambda: self._slot is None or self._stop.is_set())
                if self._stop.is_set():
                    self._dropped += 1  # closed while the consumer still had the last one
                    return
            elif self._slot is not None:
                self._dropped += 1
            self._slot = frame
            self._cond.notify_all()

    def _begin_gap(self) -> None:
        start = self._clock()
        with self._cond:
            self._gap_since = start
            self._cond.notify_all()
        log.warning(
            "%s: lost at t=%.3f s; reopening with back-off",
            self.name,
            start,
            extra={"gap_start_t": start},
        )

    def _end_gap(self) -> None:
        end = self._clock()
        with self._cond:
            start = self._gap_since if self._gap_since is not None else end
            self._gaps.append((start, end))
            self._gap_since = None
            self._cond.notify_all()
        log.warning(
            "%s: back after %.3f s without frames (t=%.3f to %.3f s)",
            self.name,
            end - start,
            start,
            end,
            extra={"gap": (start, end)},
        )

    def _reopen(self, delays: Iterator[float]) -> bool:
        """Close the source and reopen it, waiting the next back-off delay before each
        attempt; True once open, False if ``close()`` was called meanwhile."""
        self._close_source()
        for delay in delays:
            with self._cond:
                self._reopen_attempts += 1
                attempt = self._reopen_attempts
                self._cond.notify_all()
            log.info(
                "%s: reopening in %.3g s (attempt %d)",
                self.name,
                delay,
                attempt,
                extra={"delay_s": delay, "attempt": attempt},
            )
            if self._stop.wait(delay):
                return False
            try:
                self.source.open()
            except (OSError, cv2.error) as exc:
                log.info("%s: reopen failed: %s", self.name, exc)
                self._close_source()
                continue
            self.guard.reset_size()
            with self._cond:
                self._reopens += 1
                self._cond.notify_all()
            return True
        return False  # only if a custom delays iterator ends

    def _close_source(self) -> None:
        try:
            self.source.close()
        except (OSError, cv2.error) as exc:
            log.debug("%s: close failed: %s", self.name, exc)


def iter_frames(source: FrameSource, *, guard: FrameGuard | None = None) -> Iterator[Frame]:
    """Every frame of ``source`` in the calling thread, guarded like ``LatestFrameReader``'s
    (converted, or skipped and counted in ``guard``), until ``read()`` returns ``None``.

    For offline work on files, folders and synthetic sessions (benchmarks, tests): no thread,
    no drops, no reopening. Opens the source and closes it when the iteration ends or is
    abandoned.
    """
    guard = FrameGuard(name=source.describe()) if guard is None else guard
    source.open()
    try:
        while (frame := source.read()) is not None:
            admitted = guard.admit(frame)
            if not isinstance(admitted, Skip):
                yield admitted
    finally:
        source.close()
