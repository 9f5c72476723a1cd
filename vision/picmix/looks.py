"""An item of a registered photo seen under many looks: the crops the verifier would take of it
on the table (``vision.picmix.decks`` keeps their embeddings as the item's prototypes).

A photographed face (flattened, ``decks.card_face``) is drawn again the way the camera sees
cards at table distance: the item ``ITEM_PX`` across, turned by any angle, slightly askew
(perspective), under another light (gain, a gradient, a colour cast), blurred, with sensor
noise and JPEG; its blob is then found and cropped exactly as at run time
(``vision.picmix.ink``, ``vision.picmix.crops``). Seeded: the same photo gives the same looks.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.picmix.crops import CROP_PX, blob_crops
from vision.picmix.ink import candidates, ink_map

ITEM_PX = (15.0, 46.0)
"""Longer side (px) of an item in a look: objective items are 14-22 px at table distance,
player items 20-40 px (``vision.picmix.ink`` keeps blobs of 9-110 px)."""
TILT = 0.12
"""Largest shift of a window corner (share of its side) for the perspective of a look."""
BLUR_SIGMA = (0.0, 1.3)
NOISE_SIGMA = (0.0, 5.0)
JPEG_QUALITY = (55, 95)
GAIN = (0.6, 1.15)


def _window_side(item_px: float) -> int:
    """Side (px) of a look's image: room for the paper round the item (the ink map's local
    white, ``vision.picmix.ink.WHITE_RADIUS_PX``)."""
    return int(max(112, math.ceil(4.0 * item_px)))


def render_look(
    face: np.ndarray,
    spot: tuple[float, float, float],
    rng: np.random.Generator,
    item_px: float | None = None,
) -> tuple[np.ndarray, tuple[float, float], float]:
    """One look of the item at ``spot`` (centre x, y and longer side, px of ``face``, a
    (H, W, 3) uint8 BGR flattened face): (image (S, S, 3) uint8 BGR, the item's centre in it,
    its longer side in it). ``item_px``: that side (default: drawn from ``ITEM_PX``)."""
    cx, cy, side = spot
    size = float(item_px if item_px is not None else rng.uniform(*ITEM_PX))
    k = size / max(side, 1.0)
    out = _window_side(size)
    theta = rng.uniform(0.0, 2 * math.pi)
    c, s = math.cos(theta) * k, math.sin(theta) * k
    centre = out / 2.0
    affine = np.float64(
        [[c, -s, centre - c * cx + s * cy], [s, c, centre - s * cx - c * cy], [0, 0, 1]]
    )
    src = np.float32([[0, 0], [out, 0], [out, out], [0, out]])
    dst = src + rng.uniform(-TILT, TILT, (4, 2)).astype(np.float32) * out
    tilt = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    hmat = tilt @ affine
    table = tuple(int(v) for v in rng.integers(30, 150, 3))
    img = cv2.warpPerspective(
        face, hmat, (out, out), flags=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT, borderValue=table,
    )  # fmt: skip
    at = cv2.perspectiveTransform(np.float32([[[centre, centre]]]), tilt)[0, 0]
    img = _light(img, rng)
    return img, (float(at[0]), float(at[1])), size


def _light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``img`` under another light and sensor: gain, a linear gradient, a colour cast, blur,
    noise and JPEG."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    gain = rng.uniform(*GAIN)
    gx, gy = rng.uniform(-0.25, 0.25, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ramp = 1.0 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    cast = rng.uniform(0.92, 1.08, 3).astype(np.float32)
    f = f * (gain * ramp)[..., None] * cast
    sigma = rng.uniform(*BLUR_SIGMA)
    if sigma > 0.2:
        f = cv2.GaussianBlur(f, (0, 0), sigma)
    f += rng.normal(0.0, rng.uniform(*NOISE_SIGMA), f.shape).astype(np.float32)
    img = np.clip(f, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(
        ".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*JPEG_QUALITY))]
    )
    seen = cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else None
    return img if seen is None else np.asarray(seen, np.uint8)


def item_looks(face: np.ndarray, spot: tuple[float, float, float], n: int, seed: int) -> np.ndarray:
    """Crops (M, 2, CROP_PX, CROP_PX) float32 of up to ``n`` looks of the item at ``spot`` of
    ``face`` (``render_look``), each the blob found nearest the item's centre (within half
    its size) by the run-time steps; looks where none is found are left out."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    for _ in range(n):
        img, (x, y), size = render_look(face, spot, rng)
        im = ink_map(img)
        blobs = candidates(im)
        best, best_d = None, 0.5 * size
        for b in blobs:
            d = math.hypot(b.centre_px[0] - x, b.centre_px[1] - y)
            if d < best_d:
                best, best_d = b, d
        if best is not None:
            out.append(blob_crops(im, [best])[0])
    if not out:
        return np.zeros((0, 2, CROP_PX, CROP_PX), np.float32)
    return np.stack(out)
