"""Naming a shape's kind: by its outline's geometry, and a small ONNX model for the doubtful
ones.

The model (``models/picasso_shapes``, trained by ``models/picasso_shapes/train.py``) looks at
the patch's binary mask only, resampled to 32 x 32 at ``MASK_MM_PER_PX`` around its
centroid (so it sees the size as well as the outline, but no colour, no texture: nothing
of a particular renderer's look), and answers circle, square, triangle, half_circle or
not_a_shape. It runs only where the geometric match is doubtful (``DOUBT``: a shape partly
under a stick, a mask cut by the string or blurred), and its kind replaces the geometric one
when it is confident (``CONFIDENT``). It never removes a shape (the cost does not depend on
the kind, and rejecting patches it took for "not a shape" dropped real shapes half under a
stick). The figures (what it changes over geometry alone, on rendered
boards it was not trained on) are in ``models/picasso_shapes/REPORT.md``: nothing on the
benchmark's boards (geometry is already right on every normal-tier shape), the kind of 7 more
shapes in 60 (36 -> 43) where shapes lie partly under sticks.
"""

from __future__ import annotations

import logging
from typing import Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.shapes import ShapePatch

log = logging.getLogger("pictable.picasso")

MODEL_NAME = "picasso_shapes"
MASK_SIZE = 32
MASK_MM_PER_PX = 1.75
#: Geometric distance (``shapes.classify_geometry``) above which the kind is doubtful.
DOUBT = 2.5
#: The model's probability needed to overrule the geometry.
CONFIDENT = 0.8


class ShapeNamer(Protocol):
    """Names a shape patch: returns (kind, confidence, method) to overrule the geometric
    kind ("" for not a shape), or None to keep it."""

    def name(
        self, patch: ShapePatch, s: float, kind: str, dist: float, canvas: NDArray[np.uint8]
    ) -> tuple[str, float, str] | None: ...


def mask_input(mask: NDArray[np.uint8], s: float) -> NDArray[np.float32]:
    """The model's input for a patch: (1, 32, 32) float32 in [0, 1], the share of each
    1.75 mm cell covered by the patch, centred on the patch's centroid. ``mask``: (h, w)
    uint8 0/1 of the patch's bounding box at ``s`` px/mm."""
    m = mask.astype(np.float32)
    total = float(m.sum())
    if total <= 0:
        return np.zeros((1, MASK_SIZE, MASK_SIZE), np.float32)
    ys, xs = np.nonzero(mask)
    cx, cy = float(xs.mean()), float(ys.mean())
    k = MASK_MM_PER_PX * s  # canvas pixels per model pixel
    # model pixel (u, v) covers canvas around (cx + (u - 15.5) * k, cy + (v - 15.5) * k)
    half = (MASK_SIZE - 1) / 2
    if k > 1.0:
        m = cv2.GaussianBlur(m, (0, 0), 0.4 * k)
    a = np.array([[1 / k, 0, half - cx / k], [0, 1 / k, half - cy / k]], np.float32)
    out = cv2.warpAffine(
        m, a, (MASK_SIZE, MASK_SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    return np.clip(out, 0, 1).reshape(1, MASK_SIZE, MASK_SIZE).astype(np.float32)


class GeometryOnly:
    """Keeps the geometric kind."""

    def name(
        self, patch: ShapePatch, s: float, kind: str, dist: float, canvas: NDArray[np.uint8]
    ) -> tuple[str, float, str] | None:
        return None


class ModelNamer:
    """Asks the ONNX model about doubtful patches (module docstring)."""

    def __init__(self) -> None:
        from models.loader import load_model

        self.model = load_model(MODEL_NAME)
        self.labels = self.model.labels

    def probs(self, patch: ShapePatch, s: float) -> NDArray[np.float32]:
        """(n_labels,) float32 probabilities for one patch."""
        x = mask_input(patch.mask, s)[None]
        return self.model.run(x)[0]

    def name(
        self, patch: ShapePatch, s: float, kind: str, dist: float, canvas: NDArray[np.uint8]
    ) -> tuple[str, float, str] | None:
        if dist <= DOUBT:
            return None
        p = self.probs(patch, s)
        j = int(np.argmax(p))
        label = self.labels[j]
        # It renames, it never removes: a shape's cost does not depend on its kind, and a
        # shape half under a stick is still a shape (measured: rejecting "not a shape"
        # patches dropped real ones).
        if p[j] < CONFIDENT or label == "not_a_shape":
            return None
        return (label, float(p[j]), "model")


_DEFAULT: ShapeNamer | None = None


def default_namer() -> ShapeNamer:
    """The model namer when the model loads (its hash checked), else geometry alone (logged
    once: a missing model costs accuracy on doubtful shapes, never a crash)."""
    global _DEFAULT
    if _DEFAULT is None:
        from models.loader import ModelError

        try:
            _DEFAULT = ModelNamer()
        except (ModelError, ImportError) as exc:  # say so and go on
            log.warning("picasso shape model not used (%s): geometry only", exc)
            _DEFAULT = GeometryOnly()
    return _DEFAULT
