"""Fixtures for the source tests: fakes that are always released and no capture thread left
behind."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from vision.sources import Backoff, FrameSource, LatestFrameReader

from .fakes import FakeCapture, FakeSource

FAST_BACKOFF = Backoff(initial_s=0.01, factor=2.0, max_s=0.08)
WAIT_S = 10.0
"""Generous timeout for every wait on the capture thread: a loaded machine is slow, never
wrong, so tests wait for conditions and never assert on durations from above."""


@pytest.fixture
def make_fake() -> Iterator[Any]:
    """``make_fake(cues, live=..., ...)``: a ``FakeSource`` released at teardown."""
    made: list[FakeSource] = []

    def make(*args: Any, **kwargs: Any) -> FakeSource:
        fake = FakeSource(*args, **kwargs)
        made.append(fake)
        return fake

    yield make
    for fake in made:
        fake.release()


@pytest.fixture
def make_reader() -> Iterator[Any]:
    """``make_reader(source, ...)``: a started ``LatestFrameReader`` (fast back-off unless
    given), closed at teardown."""
    made: list[LatestFrameReader] = []

    def make(source: FrameSource, **kwargs: Any) -> LatestFrameReader:
        kwargs.setdefault("backoff", FAST_BACKOFF)
        reader = LatestFrameReader(source, **kwargs)
        made.append(reader)
        return reader.start()

    yield make
    for reader in made:
        reader.stop()
        if isinstance(reader.source, FakeSource):
            reader.source.release()
        reader.close(timeout=WAIT_S)


@pytest.fixture(autouse=True)
def no_capture_thread_left() -> Iterator[None]:
    """Every test must leave no live capture thread behind."""
    yield
    left = [
        t for t in threading.enumerate() if t.name.startswith("pictable-capture") and t.is_alive()
    ]
    for t in left:
        t.join(WAIT_S)
    assert not [t.name for t in left if t.is_alive()]


@pytest.fixture
def fake_capture(monkeypatch: pytest.MonkeyPatch) -> type[FakeCapture]:
    """Replace ``cv2.VideoCapture`` with ``FakeCapture`` for the test."""
    import cv2

    FakeCapture.reset()
    monkeypatch.setattr(cv2, "VideoCapture", FakeCapture)
    return FakeCapture


@pytest.fixture
def source_log(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Capture the ``pictable.sources`` logger at INFO."""
    caplog.set_level(logging.INFO, logger="pictable.sources")
    return caplog
