"""What each canvas pixel is, by a small ONNX model: canvas, stick, string, shape or other.

The model (``models/picasso_seg``, trained by ``models/picasso_seg/train.py`` on boards of
the synthetic camera in the kit look and the development looks, every crop recoloured at
random) reads the canvas-normalised picture (``segment.normalise``) and answers per pixel,
at half resolution. It judges by width, length, straightness and outline more than by
colour, which is what the colour lookup table cannot do on a kit it has not been told
about (painted sticks, a string of any colour, pale wood on cream).

``segment`` uses it for the role of each pixel; the colour table still names the shapes'
colours and keeps the outlines sharp.
"""

from __future__ import annotations

import logging
import math
import threading

import cv2
import numpy as np
from numpy.typing import NDArray

log = logging.getLogger("pictable.picasso")

MODEL_NAME = "picasso_seg"
CANVAS, STICK, STRING, SHAPE, OTHER = range(5)
#: The model's input planes: B, G, R, then the colour table's wood, dark, grey, other and
#: any shape colour (``model_input``).
IN_CHANNELS = 8
#: The model's input height and width are multiples of this (``half_logits`` pads them).
MULTIPLE = 8

_LOCK = threading.Lock()
_MODEL: object | None = None
_FAILED = False


def _model() -> object | None:
    """The loaded model, or None when it cannot be loaded (said once in the log)."""
    global _MODEL, _FAILED
    with _LOCK:
        if _MODEL is None and not _FAILED:
            from models.loader import ModelError, load_model

            try:
                _MODEL = load_model(MODEL_NAME)
            except ModelError as exc:
                _FAILED = True
                log.warning("the Picasso pixel model is not used: %s", exc)
        return _MODEL


def model_input(
    normalised: NDArray[np.uint8], table: NDArray[np.uint8], multiple: int = 1
) -> NDArray[np.float32]:
    """(1, IN_CHANNELS, H', W') float32: the normalised picture ((H, W, 3) uint8, canvas =
    200) as BGR / 255, and the colour table's classes (``table``: (H, W) uint8 codes of
    ``segment.classify``) as 0/1 planes: wood, dark, grey, other, any shape colour; H' and
    W' are H and W rounded up to a ``multiple``, the rows and columns added repeating the
    last ones (an arm coming in over the bottom or right edge goes on to the padded edge,
    as it does to the picture's edge without padding)."""
    from vision.picasso import segment as seg

    h, w = normalised.shape[:2]
    hp, wp = -(-h // multiple) * multiple, -(-w // multiple) * multiple
    x = np.empty((1, IN_CHANNELS, hp, wp), np.float32)
    v = x[0, :, :h, :w]
    v[:3] = normalised.transpose(2, 0, 1)
    v[:3] *= np.float32(1.0 / 255.0)
    for k, code in enumerate((seg.WOOD, seg.DARK, seg.GREY, seg.OTHER)):
        np.equal(table, code, out=v[3 + k], casting="unsafe")
    np.greater_equal(table, seg.FIRST_COLOUR, out=v[7], casting="unsafe")
    if wp > w:
        x[0, :, :h, w:] = v[:, :, w - 1 : w]
    if hp > h:
        x[0, :, h:] = x[0, :, h - 1 : h]
    return x


def half_logits(
    normalised: NDArray[np.uint8], table: NDArray[np.uint8]
) -> NDArray[np.float32] | None:
    """(5, ceil(H / 2), ceil(W / 2)) float32 class logits of a normalised canvas picture
    ((H, W, 3) uint8) and its colour-table classes (``table``), as the model answers them;
    None without the model."""
    model = _model()
    if model is None:
        return None
    # The model upsamples its coarse levels by a constant factor of 2
    # (``models/picasso_seg/split_joins.py``): its input is padded to a multiple of 8 by
    # repeating the last rows and columns (padded with zeros, two hands of 41 coming in over
    # the bottom or right edge of hard boards were no longer seen), and the answer cut back.
    h, w = normalised.shape[:2]
    x = model_input(normalised, table, MULTIPLE)
    out = np.asarray(model.run(x)[0], np.float32)  # type: ignore[attr-defined]
    return np.ascontiguousarray(out[:, : (h + 1) // 2, : (w + 1) // 2])


def probability(logits: NDArray[np.float32], k: int, floor: float = 0.0) -> NDArray[np.float32]:
    """(H, W) float32 the probability of class ``k`` from (K, H, W) logits (a softmax),
    computed only where it can reach ``floor`` (the class's logit within log(floor) of the
    largest) and 0 elsewhere: a floor makes it cheap where the class is rare."""
    top = logits.max(0)
    if floor <= 0.0:
        e = np.exp(logits - top)
        return np.asarray(e[k] / e.sum(0), np.float32)
    maybe = logits[k] - top >= math.log(floor)
    out = np.zeros(top.shape, np.float32)
    if maybe.any():
        e = np.exp(logits[:, maybe] - top[maybe])
        out[maybe] = e[k] / e.sum(0)
    return out


def argmax(logits: NDArray[np.float32]) -> NDArray[np.uint8]:
    """(H, W) uint8 index of the largest of (K, H, W) logits (a loop over K: faster than
    ``np.argmax`` over the first axis)."""
    best = logits[0].copy()
    out = np.zeros(best.shape, np.uint8)
    for k in range(1, len(logits)):
        more = logits[k] > best
        out[more] = k
        np.maximum(best, logits[k], out=best)
    return out


def full_classes(logits: NDArray[np.float32], size_hw: tuple[int, int]) -> NDArray[np.uint8]:
    """(H, W) uint8 class codes from half-resolution logits, upsampled bilinearly (as the
    model was trained) before the argmax."""
    h, w = size_hw
    up = np.stack(
        [
            cv2.resize(np.ascontiguousarray(c), (w, h), interpolation=cv2.INTER_LINEAR)
            for c in logits
        ]
    )
    return argmax(up)


def pixel_classes(
    normalised: NDArray[np.uint8], table: NDArray[np.uint8]
) -> NDArray[np.uint8] | None:
    """(H, W) uint8 class codes (``CANVAS`` .. ``OTHER``) of a normalised canvas picture
    and its colour-table classes, or None without the model."""
    logits = half_logits(normalised, table)
    if logits is None:
        return None
    return full_classes(logits, normalised.shape[:2])
