"""``open_source(spec)``: one string from the command line to a ``FrameSource``."""

from __future__ import annotations

import re
import stat
from pathlib import Path

from vision.sources.base import FrameSource, check_positive
from vision.sources.capture import (
    DEFAULT_CAMERA_SIZE_WH,
    CameraSource,
    StreamSource,
    VideoFileSource,
)
from vision.sources.folder import ImageFolderSource

STREAM_SCHEMES = ("rtsp", "rtsps", "rtmp", "http", "https")
"""URL schemes handed to OpenCV's FFmpeg backend as network streams."""
DEFAULT_FOLDER_FPS = 30.0

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def open_source(
    spec: str,
    *,
    fps: float | None = None,
    size_wh: tuple[int, int] | None = DEFAULT_CAMERA_SIZE_WH,
) -> FrameSource:
    """The source ``spec`` names (not opened yet):

    - ``"0"``, ``"1"``... (a non-negative integer): ``CameraSource(index)``, asking for
      ``size_wh`` (pixels) and ``fps`` if given;
    - ``rtsp://``, ``rtsps://``, ``rtmp://``, ``http://``, ``https://``: ``StreamSource``;
    - an existing directory: ``ImageFolderSource`` at ``fps`` (30 by default);
    - an existing file: ``VideoFileSource`` (its own rate; ``fps`` is ignored);
    - a character device such as ``/dev/video2``: ``CameraSource`` on that device.

    Raises ``ValueError`` for an empty spec or an unknown URL scheme, and
    ``FileNotFoundError`` for a path that does not exist.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"source spec must be a camera index, URL or path, got {spec!r}")
    if fps is not None:
        check_positive("fps", fps)
    text = spec.strip()
    if text.isascii() and text.isdigit():
        return CameraSource(int(text), size_wh=size_wh, fps=fps)
    scheme = _SCHEME.match(text)
    if scheme:
        name = scheme.group(1).lower()
        if name in STREAM_SCHEMES:
            return StreamSource(text)
        raise ValueError(
            f"unknown URL scheme {name!r} in {spec!r}; streams must be one of "
            + ", ".join(f"{s}://" for s in STREAM_SCHEMES)
        )
    path = Path(text).expanduser()
    if path.is_dir():
        return ImageFolderSource(path, fps=DEFAULT_FOLDER_FPS if fps is None else fps)
    if path.is_file():
        return VideoFileSource(path)
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = 0
    if stat.S_ISCHR(mode):
        return CameraSource(str(path), size_wh=size_wh, fps=fps)
    raise FileNotFoundError(
        f"{spec!r} is not a camera index, a stream URL, or an existing folder or video file"
    )
