"""The stage boundary between devices and the readers: every frame becomes (H, W, 3) uint8 BGR
or is skipped with a counted reason.

Safe conversions only: grey (H, W) or (H, W, 1) -> BGR, and BGRA (H, W, 4) -> BGR (alpha
dropped). Anything else that is not (H, W, 3) uint8 (other dtypes, other channel counts, empty
buffers, non-arrays) is skipped: rescaling a float or 16-bit frame would mean guessing its
range, and a silent guess is worse than a counted skip.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import replace
from enum import StrEnum

import cv2
import numpy as np

from vision.sources.base import Frame, check_positive

log = logging.getLogger("pictable.sources")


class Skip(StrEnum):
    """Why a frame was skipped (the keys of ``ReaderStats.skipped``)."""

    EMPTY = "empty"
    """``None`` or an array with no pixels."""
    NOT_ARRAY = "not_array"
    """Not an ``np.ndarray`` at all."""
    DTYPE = "dtype"
    """Not uint8 (float, uint16, bool...)."""
    SHAPE = "shape"
    """Not (H, W), (H, W, 1), (H, W, 3) or (H, W, 4)."""
    SIZE_CHANGED = "size_changed"
    """(H, W) differs from the stream's size (until the new size has lasted long enough)."""


class Convert(StrEnum):
    """How a frame was converted (the keys of ``ReaderStats.converted``)."""

    GRAY = "gray"
    """(H, W) or (H, W, 1) uint8 grey -> BGR."""
    BGRA = "bgra"
    """(H, W, 4) uint8 BGRA -> BGR."""


def describe_array(obj: object) -> str:
    """``(480, 640) float64`` for an array, the type name for anything else."""
    if isinstance(obj, np.ndarray):
        return f"{obj.shape} {obj.dtype}"
    return type(obj).__name__


def normalise_image(image: object) -> tuple[np.ndarray | None, Skip | Convert | None]:
    """Make ``image`` a C-contiguous (H, W, 3) uint8 BGR array when that is safe.

    Returns ``(bgr, None)`` for an image that was already right, ``(bgr, Convert.X)`` for a
    converted one, and ``(None, Skip.X)`` for one that cannot be used. Stateless: the
    size-change rule needs the stream's history and lives in ``FrameGuard``.
    """
    if image is None:
        return None, Skip.EMPTY
    if not isinstance(image, np.ndarray):
        return None, Skip.NOT_ARRAY
    if image.size == 0:
        return None, Skip.EMPTY
    if image.dtype != np.uint8:
        return None, Skip.DTYPE
    if image.ndim == 3 and image.shape[2] == 3:
        return np.ascontiguousarray(image), None
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        grey = np.ascontiguousarray(image.reshape(image.shape[:2]))
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), Convert.GRAY
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_BGRA2BGR), Convert.BGRA
    return None, Skip.SHAPE


def check_frame(image: object, name: str = "frame") -> np.ndarray:
    """Return ``image`` if it is an (H, W, 3) uint8 array with pixels; otherwise raise
    ``ValueError("frame must be (H, W, 3) uint8, got (480, 640) float64")``.

    The strict counterpart of ``FrameGuard`` for callers that hold a frame which must already
    be right (no conversion, no skipping).
    """
    if not (
        isinstance(image, np.ndarray)
        and image.ndim == 3
        and image.shape[2] == 3
        and image.dtype == np.uint8
        and image.size > 0
    ):
        raise ValueError(f"{name} must be (H, W, 3) uint8, got {describe_array(image)}")
    return image


class FrameGuard:
    """Admit frames of one stream: convert what is safe, skip and count the rest.

    The first admitted frame fixes the stream's size (W, H). A frame of another size is
    skipped (``Skip.SIZE_CHANGED``) unless that new size has lasted ``adopt_new_size_after_s``
    seconds of source time, in which case the guard adopts it (logged) rather than skipping
    forever: one odd frame is corruption, a lasting change is the device's new mode.
    ``reset_size()`` forgets the size, for a reopened device that may negotiate another mode.

    Not thread-safe; one guard belongs to one reader.
    """

    def __init__(self, *, adopt_new_size_after_s: float = 1.0, name: str = "source") -> None:
        self.adopt_new_size_after_s = check_positive(
            "adopt_new_size_after_s", adopt_new_size_after_s, allow_zero=True
        )
        self.name = name
        self.skipped: Counter[str] = Counter()
        self.converted: Counter[str] = Counter()
        self.size_wh: tuple[int, int] | None = None
        self._candidate_wh: tuple[int, int] | None = None
        self._candidate_since_t = 0.0

    def reset_size(self) -> None:
        """Forget the stream's size: the next admitted frame fixes it again."""
        self.size_wh = None
        self._candidate_wh = None

    def admit(self, frame: Frame) -> Frame | Skip:
        """The frame with an (H, W, 3) uint8 BGR image (the same object when nothing had to
        change), or the reason it was skipped. Counts both."""
        image, outcome = normalise_image(frame.image)
        if image is None:
            assert isinstance(outcome, Skip)  # normalise_image returns a Skip with no image
            return self._skip(outcome)
        size_wh = (image.shape[1], image.shape[0])
        if self.size_wh is None:
            self.size_wh = size_wh
        elif size_wh != self.size_wh:
            if size_wh != self._candidate_wh:
                self._candidate_wh, self._candidate_since_t = size_wh, frame.t
            if frame.t - self._candidate_since_t < self.adopt_new_size_after_s:
                return self._skip(Skip.SIZE_CHANGED)
            log.warning(
                "%s: frame size changed from %dx%d to %dx%d and stayed; adopting it",
                self.name,
                *self.size_wh,
                *size_wh,
            )
            self.size_wh = size_wh
        self._candidate_wh = None
        if isinstance(outcome, Convert):
            self.converted[outcome] += 1
        if image is frame.image:
            return frame
        return replace(frame, image=image)

    def _skip(self, reason: Skip) -> Skip:
        if self.skipped[reason] == 0:
            log.warning(
                "%s: skipping frames (%s); further ones are only counted", self.name, reason
            )
        self.skipped[reason] += 1
        return reason
