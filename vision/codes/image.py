"""The one input check of the code reader: any image array in, a (H, W) uint8 grey image out.

``pictable decode`` runs on photos from anywhere, so the reader takes more than the house
frame format ((H, W, 3) uint8 BGR): grey, BGRA and grey+alpha, 16-bit, float and bool images
are all images, and are converted here, once, with documented rules. Anything that is not an
image (not an array, no pixels, too many dimensions, complex or object dtype) raises one
``ValueError`` that says what was expected and what came.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

#: Longest side the readers work on, in pixels. A 12-megapixel phone photo (4032 x 3024)
#: passes untouched; larger images are shrunk to this (and code corners scaled back), so a
#: 10000 x 10000 image costs a bounded amount of time and memory.
MAX_SIDE_PX = 4096

WANT = "an image array: (H, W), (H, W, 1), (H, W, 2), (H, W, 3) BGR or (H, W, 4) BGRA"


@dataclass(frozen=True)
class Grey:
    """A frame prepared for the readers.

    ``pixels``: (h, w) uint8, C-contiguous. ``scale_xy``: frame pixels per working pixel
    along x and y ((1.0, 1.0), or more when a huge frame was shrunk): multiply working
    coordinates by it to get frame pixel coordinates. ``size_wh``: the frame's (width,
    height) in pixels.
    """

    pixels: NDArray[np.uint8]
    scale_xy: tuple[float, float]
    size_wh: tuple[int, int]


def describe(obj: object) -> str:
    """``(480, 640) float64`` for an array, the type name for anything else."""
    if isinstance(obj, np.ndarray):
        return f"{obj.shape} {obj.dtype}"
    return type(obj).__name__


def to_grey(frame: object, name: str = "frame", max_side_px: int = MAX_SIDE_PX) -> Grey:
    """Check ``frame`` and convert it to the readers' (h, w) uint8 grey image.

    Accepted: a numpy array of shape (H, W) or (H, W, C) with C in 1..4 (grey, grey+alpha,
    BGR, BGRA), H, W >= 1, of dtype uint8, any other integer type, float or bool.

    - Alpha (C = 2 or 4) is composited over white, so a code drawn on a transparent
      background reads as printed on paper.
    - uint8 is used as is; bool maps to 0/255; every other dtype is stretched linearly from
      its own minimum..maximum to 0..255 (codes need contrast, not absolute levels); NaN and
      -inf count as the minimum, +inf as the maximum.
    - Frames with a side longer than ``max_side_px`` are shrunk (first by sampling every
      k-th pixel, so no full-size copy is made, then by area averaging), and ``scale_xy``
      says by how much.

    Raises ``ValueError("frame must be an image array: ..., got (0, 0, 3) uint8")`` for
    anything else, including empty arrays.
    """
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"{name} must be {WANT}, got {describe(frame)}")
    ok_shape = frame.ndim == 2 or (frame.ndim == 3 and 1 <= frame.shape[2] <= 4)
    kind = frame.dtype.kind
    if not ok_shape or kind not in "biuf" or frame.shape[0] < 1 or frame.shape[1] < 1:
        raise ValueError(f"{name} must be {WANT}, got {describe(frame)}")
    h, w = int(frame.shape[0]), int(frame.shape[1])
    arr: np.ndarray = frame if frame.ndim == 3 else frame[:, :, None]
    step = 1
    if max(h, w) > 2 * max_side_px:
        # A strided view: no copy of the huge frame is made before it is small.
        step = max(h, w) // (2 * max_side_px) + 1
        arr = arr[::step, ::step]
    grey = _grey_uint8(arr)
    gh, gw = grey.shape
    if max(gh, gw) > max_side_px:
        f = max_side_px / max(gh, gw)
        size = (max(1, round(gw * f)), max(1, round(gh * f)))
        grey = np.asarray(cv2.resize(grey, size, interpolation=cv2.INTER_AREA), np.uint8)
    # Strided sampling keeps ceil(n / step) pixels; the scale is exact per axis.
    out_h, out_w = grey.shape
    return Grey(np.ascontiguousarray(grey), (w / out_w, h / out_h), (w, h))


def _grey_uint8(arr: np.ndarray) -> NDArray[np.uint8]:
    """(h, w, C) of any accepted dtype -> (h, w) uint8 grey, alpha over white."""
    channels = arr.shape[2]
    colour = arr[:, :, :3] if channels >= 3 else arr[:, :, :1]
    alpha = arr[:, :, channels - 1] if channels in (2, 4) else None
    levels = _levels(colour).astype(np.float32) if alpha is not None else _levels(colour)
    if channels >= 3:
        grey_any = cv2.cvtColor(np.ascontiguousarray(levels), cv2.COLOR_BGR2GRAY)
    else:
        grey_any = levels[:, :, 0]
    if alpha is None:
        return np.asarray(grey_any, dtype=np.uint8)
    a = _levels(alpha[:, :, None])[:, :, 0].astype(np.float32) / 255.0
    out = grey_any.astype(np.float32) * a + 255.0 * (1.0 - a)
    return np.asarray(np.clip(out + 0.5, 0, 255), dtype=np.uint8)


def _levels(arr: np.ndarray) -> NDArray[np.uint8]:
    """Any accepted dtype -> uint8 with the rules of :func:`to_grey` (channels kept)."""
    if arr.dtype == np.uint8:
        return arr
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8) * np.uint8(255)
    values = arr.astype(np.float64)
    finite = np.isfinite(values)
    if not finite.all():
        low = float(values[finite].min()) if finite.any() else 0.0
        high = float(values[finite].max()) if finite.any() else 1.0
        values = np.nan_to_num(values, nan=low, posinf=high, neginf=low)
    low, high = float(values.min()), float(values.max())
    if high <= low:
        return np.zeros(arr.shape, np.uint8)
    return ((values - low) * (255.0 / (high - low)) + 0.5).astype(np.uint8)
