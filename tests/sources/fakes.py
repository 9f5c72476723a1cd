"""Test doubles for frame sources: a cue-driven fake camera and a fake ``cv2.VideoCapture``.

``FakeSource`` implements the ``FrameSource`` protocol the way httpx tests implement a
transport: the test feeds it cues (images, corrupt frames, "the camera is gone", "the read
raises") and the code under test cannot tell it from a device.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np

from vision.sources import Frame, FrameSource, SourceError

GONE = "<gone>"
"""Cue: the device disappears; ``read()`` returns ``None`` and the source is no longer open."""
RAISE = "<raise>"
"""Cue: ``read()`` raises ``OSError`` (a driver error)."""

SIZE_WH = (16, 12)


def img(value: int, size_wh: tuple[int, int] = SIZE_WH) -> np.ndarray:
    """A (H, W, 3) uint8 frame filled with ``value`` (its identity in the tests)."""
    w, h = size_wh
    return np.full((h, w, 3), value % 256, dtype=np.uint8)


class FakeSource(FrameSource):
    """A source that plays its cues in order.

    Each cue is an image (anything: it becomes ``Frame(cue, t=index / fps, index)``; corrupt
    ones included), ``GONE`` or ``RAISE``. When no cue is queued, a non-live fake has ended
    (``read()`` returns ``None``) and a live one blocks, like a camera between frames, until
    a cue arrives or ``release()`` is called (then it returns ``None``).

    ``fail_opens``: how many of the next ``open()`` calls raise ``SourceError`` (set it to
    keep the device away for a while). Counters ``opens`` / ``closes`` and the names of the
    threads that called ``read()`` are kept for assertions.
    """

    def __init__(
        self,
        cues: Iterable[Any] = (),
        *,
        live: bool = True,
        fps: float = 100.0,
        fail_opens: int = 0,
    ) -> None:
        self.cues: queue.Queue[Any] = queue.Queue()
        for cue in cues:
            self.cues.put(cue)
        self._live = live
        self._fps = fps
        self.fail_opens = fail_opens
        self.opens = 0
        self.closes = 0
        self.is_open = False
        self.next_index = 0
        self.released = threading.Event()
        self.reader_threads: set[str] = set()

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def live(self) -> bool:
        return self._live

    def feed(self, *cues: Any) -> None:
        for cue in cues:
            self.cues.put(cue)

    def release(self) -> None:
        """Stop blocking: from now on an empty queue means ``read()`` returns ``None``."""
        self.released.set()

    def open(self) -> None:
        self.opens += 1
        if self.fail_opens > 0:
            self.fail_opens -= 1
            raise SourceError("fake: device not there")
        self.is_open = True

    def read(self) -> Frame | None:
        self.reader_threads.add(threading.current_thread().name)
        if not self.is_open:
            return None
        while True:
            try:
                cue = self.cues.get(timeout=0.01) if self.live else self.cues.get_nowait()
            except queue.Empty:
                if not self.live or self.released.is_set():
                    return None
                continue
            break
        if isinstance(cue, str) and cue == GONE:
            self.is_open = False
            return None
        if isinstance(cue, str) and cue == RAISE:
            raise OSError("fake: driver error")
        frame = Frame(image=cue, t=self.next_index / self._fps, index=self.next_index)
        self.next_index += 1
        return frame

    def close(self) -> None:
        self.closes += 1
        self.is_open = False

    def describe(self) -> str:
        return f"fake {'live' if self.live else 'file'}"


class FakeCapture:
    """Stands in for ``cv2.VideoCapture`` (monkeypatched in), driven by class-level knobs.

    ``FakeCapture.available``: whether the device can be opened now; ``frames_left``: how
    many frames it delivers before failing (None = forever); ``instances`` records every
    capture made, with the arguments and the properties set on it.
    """

    available = True
    frames_left: int | None = None
    instances: list[FakeCapture] = []  # noqa: RUF012 - a deliberate class-level record

    def __init__(self, *args: Any) -> None:
        self.args = args
        self.props: dict[int, float] = {}
        self.opened = FakeCapture.available
        self.released = False
        self.grabs = 0
        FakeCapture.instances.append(self)

    @classmethod
    def reset(cls) -> None:
        cls.available = True
        cls.frames_left = None
        cls.instances = []

    def isOpened(self) -> bool:
        return self.opened and not self.released

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def get(self, prop: int) -> float:
        import cv2

        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            return self.props.get(prop, 640)
        if prop == cv2.CAP_PROP_FRAME_HEIGHT:
            return self.props.get(prop, 480)
        if prop == cv2.CAP_PROP_FPS:
            return 30.0
        return 0.0

    def grab(self) -> bool:
        if FakeCapture.frames_left is not None:
            if FakeCapture.frames_left <= 0:
                self.opened = False
                return False
            FakeCapture.frames_left -= 1
        self.grabs += 1
        return True

    def retrieve(self) -> tuple[bool, np.ndarray]:
        import cv2

        w = int(self.get(cv2.CAP_PROP_FRAME_WIDTH))
        h = int(self.get(cv2.CAP_PROP_FRAME_HEIGHT))
        return True, np.zeros((h, w, 3), np.uint8)

    def release(self) -> None:
        self.released = True
