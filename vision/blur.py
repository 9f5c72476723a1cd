"""A camera's motion smear as a convolution kernel, shared by the synthetic camera
(``vision.synth.effects``, which smears) and the code reader (``vision.identify.deblur``,
which takes a measured smear out)."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray


def line_kernel(length: float, angle: float) -> NDArray[np.float32]:
    """A line ``length`` px long at ``angle`` degrees (x right, y down), drawn anti-aliased
    in an odd square, summing to 1."""
    n = max(3, math.ceil(length) | 1)
    kernel = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    a = math.radians(angle)
    d = np.array([math.cos(a), math.sin(a)]) * (length - 1) / 2
    p0 = (round((c - d[0]) * 16), round((c - d[1]) * 16))
    p1 = (round((c + d[0]) * 16), round((c + d[1]) * 16))
    cv2.line(kernel, p0, p1, 1.0, 1, cv2.LINE_AA, 4)
    total = float(kernel.sum())
    if total <= 0:
        kernel[n // 2, n // 2] = 1.0
        return kernel
    return kernel / total


__all__ = ["line_kernel"]
