"""The item model's input: one square crop per candidate blob, the same at training and run time.

A crop is centred on the blob's bounding box, ``CROP_SCALE`` times its longer side (plus
``CROP_PAD_PX``), resampled to ``CROP_PX`` x ``CROP_PX``, with two channels:

0. the ink map (0 paper .. 1 black, ``vision.picmix.ink``), which reads coloured and black
   ink alike under any light;
1. the blob's own pixels (1) against everything else (0), so that the model knows which of
   the things in the crop it is asked about (a marker or a neighbour may show at the edge).

Outside the frame both channels are 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.picmix.ink import Blob, InkMap

CROP_PX = 32
CROP_SCALE = 1.3
CROP_PAD_PX = 4


def crop_window(box_xywh: tuple[int, int, int, int]) -> tuple[int, int, int]:
    """(x0, y0, side) in px of the square crop window of a blob's bounding box."""
    x, y, w, h = box_xywh
    side = round(max(w, h) * CROP_SCALE + CROP_PAD_PX)
    cx, cy = x + w / 2.0, y + h / 2.0
    return round(cx - side / 2.0), round(cy - side / 2.0), side


def _take(img: np.ndarray, x0: int, y0: int, side: int) -> np.ndarray:
    """``img[y0:y0+side, x0:x0+side]`` with zeros outside ``img`` (2-D arrays)."""
    h, w = img.shape[:2]
    out = np.zeros((side, side), img.dtype)
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + side), min(h, y0 + side)
    if xa < xb and ya < yb:
        out[ya - y0 : yb - y0, xa - x0 : xb - x0] = img[ya:yb, xa:xb]
    return out


def blob_crops(im: InkMap, blobs: Sequence[Blob]) -> np.ndarray:
    """(N, 2, CROP_PX, CROP_PX) float32 crops of ``blobs`` (channels: ink 0..1, own mask)."""
    out = np.zeros((len(blobs), 2, CROP_PX, CROP_PX), np.float32)
    for k, b in enumerate(blobs):
        x0, y0, side = crop_window(b.box_xywh)
        ink = _take(im.ink, x0, y0, side)
        own = (_take(im.labels, x0, y0, side) == b.label).astype(np.uint8) * 255
        interp = cv2.INTER_AREA if side > CROP_PX else cv2.INTER_LINEAR
        out[k, 0] = cv2.resize(ink, (CROP_PX, CROP_PX), interpolation=interp) / 255.0
        out[k, 1] = cv2.resize(own, (CROP_PX, CROP_PX), interpolation=interp) / 255.0
    return out
