"""Drawing codes on an image (for ``pictable decode --annotate``)."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.codes.image import MAX_SIDE_PX, describe
from vision.codes.reading import Code

QR_COLOUR = (0, 200, 0)  # BGR
MARKER_COLOUR = (255, 120, 0)
FIRST_CORNER_COLOUR = (0, 0, 255)


def display_bgr(
    image: np.ndarray, max_side_px: int = MAX_SIDE_PX
) -> tuple[NDArray[np.uint8], float]:
    """An (h, w, 3) uint8 BGR copy of any accepted image for drawing, shrunk to at most
    ``max_side_px``, and the factor that maps frame pixels to it (<= 1)."""
    from vision.codes.image import _levels  # the same level rules as the reader

    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError(f"image must be an image array, got {describe(image)}")
    arr = image if image.ndim == 3 else image[:, :, None]
    channels = arr.shape[2]
    colour = _levels(arr[:, :, :3] if channels >= 3 else arr[:, :, :1])
    if colour.shape[2] == 1:
        colour = np.repeat(colour, 3, axis=2)
    if channels in (2, 4):  # alpha over white, as the reader sees it
        a = _levels(arr[:, :, channels - 1 :])[:, :, :1].astype(np.float32) / 255.0
        colour = (colour.astype(np.float32) * a + 255.0 * (1.0 - a) + 0.5).astype(np.uint8)
    h, w = colour.shape[:2]
    factor = min(1.0, max_side_px / max(h, w))
    if factor < 1.0:
        size = (max(1, round(w * factor)), max(1, round(h * factor)))
        colour = np.asarray(cv2.resize(colour, size, interpolation=cv2.INTER_AREA), np.uint8)
    return np.ascontiguousarray(colour), factor


def label(code: Code, limit: int = 40) -> str:
    """A short ASCII label: ``QR "text..."`` or ``DICT_6X6_250 #23`` (putText draws ASCII
    only; anything else becomes ``?``)."""
    if code.kind == "aruco":
        return f"{code.dictionary} #{code.id}"
    text = code.text or ""
    short = text if len(text) <= limit else text[: limit - 3] + "..."
    safe = "".join(ch if " " <= ch <= "~" else "?" for ch in short)
    return f'QR "{safe}"'


def annotate(image: np.ndarray, codes: Sequence[Code]) -> NDArray[np.uint8]:
    """A BGR uint8 copy of ``image`` with each code outlined and labelled, its first corner
    (the code's top-left) marked with a red dot."""
    out, factor = display_bgr(image)
    side = max(out.shape[:2])
    thickness = max(1, side // 400)
    font_scale = max(0.4, side / 1600)
    for code in codes:
        pts = code.corners_px * np.float32(factor)
        colour = QR_COLOUR if code.kind == "qr" else MARKER_COLOUR
        cv2.polylines(
            out,
            [np.round(pts).astype(np.int32).reshape(-1, 1, 2)],
            True,
            colour,
            thickness,
            cv2.LINE_AA,
        )
        first = (round(float(pts[0, 0])), round(float(pts[0, 1])))
        cv2.circle(out, first, thickness + 2, FIRST_CORNER_COLOUR, -1, cv2.LINE_AA)
        text = label(code)
        x = round(float(pts[:, 0].min()))
        y = round(float(pts[:, 1].min())) - 4
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        x = min(max(0, x), max(0, out.shape[1] - tw))
        y = max(th + 2, y)
        cv2.putText(
            out,
            text,
            (x, y),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            (255, 255, 255),
            thickness + 2,
            cv2.LINE_AA,
        )
        cv2.putText(
            out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, thickness, cv2.LINE_AA
        )
    return out
