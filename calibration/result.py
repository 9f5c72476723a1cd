"""Estimation that can fail returns its result or a falsy ``Failure`` with the reason
(never a matrix of NaNs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Failure:
    """Why an estimation failed. Falsy, so ``if not result:`` reads naturally."""

    reason: str

    def __bool__(self) -> Literal[False]:
        return False

    def __str__(self) -> str:
        return self.reason


class CalibrationError(ValueError):
    """Bad input to calibration: a file of the wrong version or size, an unusable board spec."""


def check_image(image: object, name: str = "image") -> NDArray[np.uint8]:
    """``image`` as (H, W) or (H, W, 3) uint8, or ``ValueError`` naming what it was."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"{name} must be a numpy array, got {type(image).__name__}")
    ok_shape = image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (1, 3, 4))
    if not ok_shape or image.dtype != np.uint8 or image.size == 0:
        raise ValueError(
            f"{name} must be (H, W, 3) or (H, W) uint8, got {image.shape} {image.dtype}"
        )
    return image


def to_gray(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """(H, W) uint8 from (H, W), (H, W, 1), (H, W, 3) BGR or (H, W, 4) BGRA."""
    import cv2

    if image.ndim == 2:
        return image
    if image.shape[2] == 1:
        return np.ascontiguousarray(image[:, :, 0])
    code = cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY
    return np.asarray(cv2.cvtColor(image, code), dtype=np.uint8)
