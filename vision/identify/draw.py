"""Annotated images of what the card reader saw (``pictable identify --annotate``)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify.reading import FrameCards

#: Outline colours (BGR): a card named by its codes, by its picture, an unknown card.
CODE_BGR = (40, 200, 40)
FEATURES_BGR = (230, 160, 20)
UNKNOWN_BGR = (40, 40, 230)


def annotate(frame: NDArray[np.uint8], result: FrameCards) -> NDArray[np.uint8]:
    """A copy of ``frame`` ((H, W, 3) uint8 BGR; grey is converted) with each card outlined
    (a dot on its top-left corner as printed), labelled with its id, face and confidence, and
    each unknown card outlined in red."""
    img = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame.copy()
    scale = max(0.4, min(img.shape[:2]) / 1000)
    thick = max(1, round(2 * scale))
    for u in result.unknown:
        pts = np.round(u.corners_px).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, UNKNOWN_BGR, thick, cv2.LINE_AA)
        _label(img, "?", u.center_px, UNKNOWN_BGR, scale)
    for c in result.cards:
        colour = CODE_BGR if c.method == "code" else FEATURES_BGR
        pts = np.round(c.corners_px).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, colour, thick, cv2.LINE_AA)
        tl = tuple(int(v) for v in np.round(c.corners_px[0]))
        cv2.circle(img, tl, 2 + thick, colour, -1, cv2.LINE_AA)
        text = f"{c.card} {c.face} {c.confidence:.2f}" + (f" [{c.zone}]" if c.zone else "")
        _label(img, text, c.center_px, colour, scale)
    return img


def _label(
    img: NDArray[np.uint8],
    text: str,
    at: NDArray[np.floating],
    colour: tuple[int, int, int],
    scale: float,
) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    size = 0.45 * scale
    (w, h), base = cv2.getTextSize(text, font, size, 1)
    x = int(at[0] - w / 2)
    y = int(at[1] + h / 2)
    cv2.rectangle(img, (x - 2, y - h - 2), (x + w + 2, y + base), (0, 0, 0), -1)
    cv2.putText(img, text, (x, y), font, size, colour, 1, cv2.LINE_AA)
