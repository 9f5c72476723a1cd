"""A folder of still images played as a video, in natural order (``f2.png`` before
``f10.png``)."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import cv2
import numpy as np

from vision.sources.base import Frame, FrameSource, SourceError, check_positive
from vision.sources.limits import too_large, too_large_decoded

log = logging.getLogger("pictable.sources")

IMAGE_SUFFIXES = frozenset(
    {
        ".png",
        ".jpg",
        ".jpeg",
        ".jpe",
        ".bmp",
        ".dib",
        ".tif",
        ".tiff",
        ".webp",
        ".ppm",
        ".pgm",
        ".pbm",
        ".pnm",
        ".jp2",
        ".exr",
        ".hdr",
        ".pic",
        ".sr",
        ".ras",
    }
)
"""Suffixes (lower case) taken as images; other files in the folder are ignored, not counted."""

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders digit runs by value: ``f2.png`` < ``f10.png``; case-insensitive."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part.casefold())
        for part in _DIGITS.split(name)
        if part
    )


class ImageFolderSource(FrameSource):
    """The images of one folder (not its subfolders), in natural order, as frames at ``fps``.

    ``index`` is the image's position in that order and ``t = index / fps`` seconds, so an
    unreadable image leaves a gap in time rather than shifting every later frame. Unreadable
    images (corrupt, truncated, not really images, over ``MAX_IMAGE_PIXELS``) are skipped,
    logged, and listed in ``unreadable``. Images are decoded to 3-channel BGR uint8 (grey
    expanded, alpha dropped, 16-bit scaled down by OpenCV). Hidden files and files without an
    image suffix are ignored. The listing is taken at ``open()``.
    """

    live = False

    def __init__(self, directory: str | Path, *, fps: float = 30.0) -> None:
        self.directory = Path(directory)
        self._fps = check_positive("fps", fps)
        self._paths: list[Path] = []
        self._position = 0
        self._opened = False
        self.unreadable: list[Path] = []

    @property
    def fps(self) -> float:
        """The rate chosen at construction (frames per second)."""
        return self._fps

    @property
    def paths(self) -> list[Path]:
        """The image files found at ``open()``, in play order."""
        return list(self._paths)

    def open(self) -> None:
        """List the folder; raises ``SourceError`` if it is not a readable directory."""
        if not self.directory.is_dir():
            raise SourceError(f"not a directory: {self.directory}")
        try:
            entries = list(self.directory.iterdir())
        except OSError as exc:
            raise SourceError(f"cannot list {self.directory}: {exc}") from exc
        self._paths = sorted(
            (
                p
                for p in entries
                if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.startswith(".") and p.is_file()
            ),
            key=lambda p: natural_key(p.name),
        )
        self._position = 0
        self.unreadable = []
        self._opened = True
        log.info("opened %s", self.describe())

    def read(self) -> Frame | None:
        """The next readable image, or ``None`` after the last one."""
        while self._opened and self._position < len(self._paths):
            index = self._position
            path = self._paths[index]
            self._position += 1
            image = _read_image(path)
            if image is None:
                self.unreadable.append(path)
                log.warning("%s: cannot read image %s; skipped", self.describe(), path.name)
                continue
            return Frame(image=image, t=index / self._fps, index=index)
        return None

    def close(self) -> None:
        """Stop reading (idempotent); the listing is kept for ``paths``."""
        self._opened = False

    def describe(self) -> str:
        """``images frames/ (42 files @ 30 fps)``."""
        listed = f"{len(self._paths)} files @ " if self._paths else ""
        return f"images {self.directory}/ ({listed}{self._fps:g} fps)"


def _read_image(path: Path) -> np.ndarray | None:
    """Decode ``path`` as (H, W, 3) uint8 BGR, or ``None`` if it cannot be read or is over
    ``MAX_IMAGE_PIXELS`` (checked on its header first, so no memory goes to its pixels).

    Reads the bytes with numpy and decodes them with ``cv2.imdecode`` so that non-ASCII paths
    work on every platform and an I/O error is told apart from a decoding one in the log.
    """
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        log.debug("cannot read %s: %s", path, exc)
        return None
    if data.size == 0:
        return None
    problem = too_large(data, path)  # from the header, before decoding a pixel
    if problem is not None:
        log.warning("%s: %s", path.name, problem)
        return None
    try:
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    except cv2.error as exc:
        log.debug("cannot decode %s: %s", path, exc)
        return None
    if image is None or image.size == 0:
        return None
    problem = too_large_decoded(image.shape)
    if problem is not None:
        log.warning("%s: %s", path.name, problem)
        return None
    return image
