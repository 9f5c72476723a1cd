"""Sources backed by ``cv2.VideoCapture``: cameras, network streams and video files.

Reads never raise: a failed or erroring read returns ``None`` (for a camera or stream, a
drop-out that ``LatestFrameReader`` answers by reopening with back-off; for a file, the end).
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable
from pathlib import Path

import cv2

from vision.sources.base import Frame, FrameSource, SourceError, check_positive

log = logging.getLogger("pictable.sources")

DEFAULT_CAMERA_SIZE_WH = (1280, 720)
"""What ``CameraSource`` asks the camera for; the camera may deliver something else."""
FALLBACK_FPS = 30.0
"""Nominal rate assumed when a device or container does not declare one."""


class _CaptureSource(FrameSource):
    """Owns one ``cv2.VideoCapture``; subclasses say how to create and read it."""

    def __init__(self) -> None:
        self._cap: cv2.VideoCapture | None = None
        self._fps = FALLBACK_FPS
        self._size_wh: tuple[int, int] | None = None

    # -- what subclasses provide ------------------------------------------------------------
    def _make_capture(self) -> cv2.VideoCapture:
        raise NotImplementedError

    def _configure(self, cap: cv2.VideoCapture) -> None:
        """Called once the capture is open, before the first read."""

    def _name(self) -> str:
        raise NotImplementedError

    # -- the protocol -----------------------------------------------------------------------
    @property
    def fps(self) -> float:
        """Nominal frames per second: what the device or container declares once open
        (``FALLBACK_FPS`` when it declares nothing usable, or before ``open()``)."""
        return self._fps

    @property
    def size_wh(self) -> tuple[int, int] | None:
        """(width, height) in pixels that the device reports, once open."""
        return self._size_wh

    @property
    def is_open(self) -> bool:
        """Whether the capture exists and OpenCV says it is opened."""
        return self._cap is not None and bool(self._cap.isOpened())

    def open(self) -> None:
        """Create the capture; raises ``SourceError`` when OpenCV cannot open it."""
        self.close()
        try:
            cap = self._make_capture()
            opened = bool(cap.isOpened())
        except cv2.error as exc:
            raise SourceError(f"cannot open {self._name()}: {exc}") from exc
        if not opened:
            cap.release()
            raise SourceError(f"cannot open {self._name()}")
        self._cap = cap
        self._configure(cap)
        fps = cap.get(cv2.CAP_PROP_FPS)
        if math.isfinite(fps) and 0 < fps < 1000:
            self._fps = float(fps)
        w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        self._size_wh = (w, h) if w > 0 and h > 0 else None
        log.info("opened %s", self.describe())

    def close(self) -> None:
        """Release the capture (idempotent)."""
        cap, self._cap = self._cap, None
        if cap is not None:
            try:
                cap.release()
            except cv2.error as exc:  # a driver that fails to release is already gone
                log.debug("%s: release failed: %s", self._name(), exc)

    def describe(self) -> str:
        """``camera 0 (1280x720 @ 30 fps)``; just the name before the first ``open()``."""
        if self._size_wh is None:
            return self._name()
        w, h = self._size_wh
        return f"{self._name()} ({w}x{h} @ {self._fps:g} fps)"


class _LiveCaptureSource(_CaptureSource):
    """A real-time device: frames are stamped with a monotonic clock when grabbed and the
    index keeps counting across reopenings."""

    live = True

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__()
        self._clock = clock
        self._next_index = 0

    def read(self) -> Frame | None:
        """The next frame, or ``None`` when the device is gone or the read failed."""
        cap = self._cap
        if cap is None:
            return None
        try:
            # grab() then stamp then retrieve(): the stamp is as close to the exposure as
            # OpenCV lets us get without backend-specific timestamps.
            if not cap.isOpened() or not cap.grab():
                return None
            t = self._clock()
            ok, image = cap.retrieve()
        except cv2.error as exc:
            log.debug("%s: read failed: %s", self._name(), exc)
            return None
        if not ok:
            return None
        frame = Frame(image=image, t=t, index=self._next_index)
        self._next_index += 1
        return frame


class CameraSource(_LiveCaptureSource):
    """A local camera through OpenCV: ``CameraSource(0)``, or a device path such as
    ``CameraSource("/dev/video2")``.

    ``size_wh`` (pixels) and ``fps`` are requests; the camera may choose otherwise, and
    ``size_wh`` / ``fps`` report what it chose once open. ``t`` is ``clock()`` seconds
    (``time.monotonic`` by default) taken just after each grab.
    """

    def __init__(
        self,
        index: int | str = 0,
        *,
        size_wh: tuple[int, int] | None = DEFAULT_CAMERA_SIZE_WH,
        fps: float | None = None,
        backend: int = cv2.CAP_ANY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(clock)
        if isinstance(index, bool) or not isinstance(index, int | str):
            raise ValueError(f"camera index must be an int or a device path, got {index!r}")
        if isinstance(index, int) and index < 0:
            raise ValueError(f"camera index must be >= 0, got {index}")
        if size_wh is not None:
            check_positive("size_wh[0]", size_wh[0])
            check_positive("size_wh[1]", size_wh[1])
        self.index = index
        self.requested_size_wh = size_wh
        self.requested_fps = None if fps is None else check_positive("fps", fps)
        self.backend = backend

    def _name(self) -> str:
        return f"camera {self.index}"

    def _make_capture(self) -> cv2.VideoCapture:
        return cv2.VideoCapture(self.index, self.backend)

    def _configure(self, cap: cv2.VideoCapture) -> None:
        if self.requested_size_wh is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.requested_size_wh[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.requested_size_wh[1])
        if self.requested_fps is not None:
            cap.set(cv2.CAP_PROP_FPS, self.requested_fps)
            self._fps = self.requested_fps
        # Fewer frames queued in the driver means less lag; backends that cannot do it
        # ignore the request.
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)


_CREDENTIALS = re.compile(r"(?<=://)([^/@:]+):([^/@]*)@")


def redact_url(url: str) -> str:
    """``rtsp://admin:secret@cam/stream`` -> ``rtsp://admin:***@cam/stream`` (for logs)."""
    return _CREDENTIALS.sub(r"\1:***@", url)


class StreamSource(_LiveCaptureSource):
    """A network stream (RTSP, HTTP MJPEG, HLS...) through OpenCV's FFmpeg backend.

    Live like a camera: ``t`` is ``clock()`` seconds at grab, and a dropped connection makes
    ``read()`` return ``None``; ``LatestFrameReader`` then reopens it with back-off.
    ``open_timeout_s`` / ``read_timeout_s`` bound how long OpenCV may block, so a dead
    server cannot hang the capture thread (and with it ``close()``).
    """

    def __init__(
        self,
        url: str,
        *,
        open_timeout_s: float = 10.0,
        read_timeout_s: float = 5.0,
        backend: int = cv2.CAP_FFMPEG,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(clock)
        if not isinstance(url, str) or "://" not in url:
            raise ValueError(f"stream url must look like scheme://host/..., got {url!r}")
        self.url = url
        self.open_timeout_s = check_positive("open_timeout_s", open_timeout_s)
        self.read_timeout_s = check_positive("read_timeout_s", read_timeout_s)
        self.backend = backend

    def _name(self) -> str:
        return f"stream {redact_url(self.url)}"

    def _make_capture(self) -> cv2.VideoCapture:
        params = [
            cv2.CAP_PROP_OPEN_TIMEOUT_MSEC,
            round(self.open_timeout_s * 1000),
            cv2.CAP_PROP_READ_TIMEOUT_MSEC,
            round(self.read_timeout_s * 1000),
        ]
        return cv2.VideoCapture(self.url, self.backend, params)


class VideoFileSource(_CaptureSource):
    """A video file, read from the start at each ``open()``; ``read()`` returns ``None`` at
    the end.

    ``t`` is the frame's timestamp in the file (``CAP_PROP_POS_MSEC`` / 1000) when the
    container gives a usable one, else ``index / fps``. ``fps`` is the container's declared
    rate (``FALLBACK_FPS`` when it declares none).
    """

    live = False

    def __init__(self, path: str | Path, *, backend: int = cv2.CAP_ANY) -> None:
        super().__init__()
        self.path = Path(path)
        self.backend = backend
        self._next_index = 0
        self._last_t = -math.inf
        self._frame_count: int | None = None
        self._first: Frame | None = None

    @property
    def frame_count(self) -> int | None:
        """Frames the container declares (may be approximate), once open."""
        return self._frame_count

    def _name(self) -> str:
        return f"video {self.path}"

    def _make_capture(self) -> cv2.VideoCapture:
        if not self.path.is_file():
            raise FileNotFoundError(f"no such video file: {self.path}")
        return cv2.VideoCapture(str(self.path), self.backend)

    def _configure(self, cap: cv2.VideoCapture) -> None:
        self._next_index = 0
        self._last_t = -math.inf
        count = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        self._frame_count = int(count) if math.isfinite(count) and count > 0 else None
        fps = cap.get(cv2.CAP_PROP_FPS)
        if not (math.isfinite(fps) and 0 < fps < 1000):
            log.warning("%s declares no frame rate; assuming %g fps", self._name(), FALLBACK_FPS)

    def open(self) -> None:
        """Open the file and decode its first frame; raises ``SourceError`` when OpenCV
        cannot open it or it has no frame OpenCV can decode (a file that is not a video, or
        an empty one), so that nothing is started on it."""
        self._first = None
        super().open()
        first = self._read()
        if first is None:
            self.close()
            raise SourceError(f"{self._name()}: no frame could be decoded (not a video, or empty)")
        self._first = first

    def close(self) -> None:
        """Release the capture (idempotent)."""
        self._first = None
        super().close()

    def read(self) -> Frame | None:
        """The next frame, or ``None`` at the end of the file (or on a decoding error)."""
        first, self._first = self._first, None
        if first is not None:
            return first
        return self._read()

    def _read(self) -> Frame | None:
        cap = self._cap
        if cap is None:
            return None
        try:
            ok, image = cap.read()
            pos_ms = cap.get(cv2.CAP_PROP_POS_MSEC)
        except cv2.error as exc:
            log.warning("%s: decoding failed at frame %d: %s", self._name(), self._next_index, exc)
            return None
        if not ok:
            return None
        index = self._next_index
        t = pos_ms / 1000.0
        # Some backends report 0 or a stale position; then frame number over rate is the
        # honest timestamp.
        if not (math.isfinite(t) and t >= 0 and (index == 0 or t > self._last_t)):
            t = index / self._fps
        self._next_index += 1
        self._last_t = t
        return Frame(image=image, t=t, index=index)

    def describe(self) -> str:
        """``video clip.avi (64x48 @ 10 fps, 7 frames)``."""
        text = super().describe()
        if self._frame_count is not None and text.endswith(")"):
            text = f"{text[:-1]}, {self._frame_count} frames)"
        return text
