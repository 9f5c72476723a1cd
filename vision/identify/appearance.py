"""The whole-card appearance descriptor: a card shrunk to 18 x 25 cells in Lab colour.

At table distance a card is 70 to 100 px wide, too small for local features to name it
reliably; its overall look does (``../shared/KIT.md``: 93% against 56-68%). A card seen in a
frame is rectified from its outline to an upright portrait image (``RECT_WH``), shrunk by
area averaging to ``GRID_WH`` cells and converted to CIE Lab; the descriptor normalises away
what the light changes: lightness to zero mean and unit spread, each colour axis to zero
mean (white balance), the colour axes weighted against lightness by ``COLOUR_WEIGHT``. It is
an (D,) float32 unit vector, D = 18 * 25 * 3 = 1350, so a whole deck is matched by one matrix
product (cosine similarity).

Conventions: frames (H, W, 3) uint8 BGR; quads (m, 4, 2) pixels, corners TL, TR, BR, BL of
the card's portrait face (the first side is the card's top edge); the 180-degree turn of a
card is handled by the deck holding each reference in both orientations.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

#: Cells across and down a portrait card (KIT.md's 18 x 25).
GRID_WH = (18, 25)
#: The rectified card before shrinking: 3 x 3 pixels per cell (area averaging).
RECT_WH = (54, 75)
#: Weight of the colour axes (a, b), in Lab units, against lightness in units of its spread.
COLOUR_WEIGHT = 1.0 / 20.0
#: Smallest lightness spread used to normalise (a flat card is not blown up into noise).
MIN_L_SPREAD = 3.0
DESCRIPTOR_DIM = GRID_WH[0] * GRID_WH[1] * 3


def rectify(
    frame: NDArray[np.uint8], quads: NDArray[np.floating], size_wh: tuple[int, int] = RECT_WH
) -> NDArray[np.uint8]:
    """Each quad of (m, 4, 2) pixel corners (TL, TR, BR, BL) warped to an upright
    ``size_wh`` image: (m, h, w, 3) uint8 BGR (a frame pixel centre at integer coordinates,
    as OpenCV; the quad's corners land on the image's outer corners)."""
    w, h = size_wh
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) - 0.5
    out = np.zeros((len(q), h, w, frame.shape[2] if frame.ndim == 3 else 1), np.uint8)
    for i, quad in enumerate(q):
        m = cv2.getPerspectiveTransform(quad, dst)
        warped = cv2.warpPerspective(
            frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        out[i] = warped.reshape(h, w, -1)
    return out


def lab_cells(images: NDArray[np.uint8], grid_wh: tuple[int, int] = GRID_WH) -> NDArray[np.float32]:
    """(m, h, w, 3) uint8 BGR images -> (m, gh, gw, 3) float32 Lab cells (L in [0, 100])
    by area averaging (the images are shrunk to ``grid_wh`` first)."""
    gw, gh = grid_wh
    out = np.zeros((len(images), gh, gw, 3), np.float32)
    for i, img in enumerate(images):
        small = cv2.resize(img, (gw, gh), interpolation=cv2.INTER_AREA)
        out[i] = cv2.cvtColor(small.astype(np.float32) * (1.0 / 255.0), cv2.COLOR_BGR2Lab)
    return out


def describe(cells: NDArray[np.float32]) -> NDArray[np.float32]:
    """(m, gh, gw, 3) Lab cells -> (m, D) float32 unit descriptors (see the module
    docstring)."""
    m = len(cells)
    x = np.asarray(cells, np.float32).reshape(m, -1, 3).copy()
    lightness = x[..., 0]
    lightness -= lightness.mean(axis=1, keepdims=True)
    lightness /= np.maximum(lightness.std(axis=1, keepdims=True), MIN_L_SPREAD)
    x[..., 1:] -= x[..., 1:].mean(axis=1, keepdims=True)
    x[..., 1:] *= COLOUR_WEIGHT
    v = x.reshape(m, -1)
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    return np.asarray(v / np.maximum(norm, 1e-6), np.float32)


def turned(cells: NDArray[np.float32]) -> NDArray[np.float32]:
    """(m, gh, gw, 3) cells of the same cards turned half round."""
    return np.ascontiguousarray(cells[:, ::-1, ::-1])


def face_cells(face: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(gh, gw, 3) Lab cells of a reference face image (H, W, 3) uint8 BGR, portrait (a
    landscape face is turned a quarter clockwise first: see :func:`portrait`)."""
    return lab_cells(portrait(face)[None])[0]


def portrait(face: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A face image turned a quarter clockwise when it is wider than tall, else itself."""
    if face.shape[1] > face.shape[0]:
        return np.ascontiguousarray(np.rot90(face, k=-1))
    return face


#: A cell agrees with the reference when its Lab residual (after the light is fitted) is
#: under this many Lab units.
AGREE_LAB = 10.0


def agreement(
    observed: NDArray[np.float32],
    reference: NDArray[np.float32],
    mask: NDArray[np.bool_] | None = None,
) -> NDArray[np.float64]:
    """Share of cells that look like the reference once the light is fitted, robustly.

    ``observed`` and ``reference``: (k, gh, gw, 3) Lab cells, pairwise. Lightness is fitted
    as ``gain * L_ref + offset`` and each colour axis as ``a_ref + offset``, by least squares
    reweighted three times to the cells within :data:`AGREE_LAB` (so a hand or another card
    over part of the card does not pull the fit); a cell agrees when its residual (Lab
    distance) is under :data:`AGREE_LAB`. ``mask`` (k, gh, gw) bool limits the fit and the
    share to some cells. Returns (k,) shares in [0, 1]: about the visible share of the card
    for the right reference, low for another picture.
    """
    k = len(observed)
    o = np.asarray(observed, np.float64).reshape(k, -1, 3)
    r = np.asarray(reference, np.float64).reshape(k, -1, 3)
    inside = np.ones(o.shape[:2], bool) if mask is None else np.asarray(mask, bool).reshape(k, -1)
    w = inside.astype(np.float64)
    for _ in range(4):
        sw = w.sum(axis=1, keepdims=True) + 1e-9
        mr = (w * r[..., 0]).sum(axis=1, keepdims=True) / sw
        mo = (w * o[..., 0]).sum(axis=1, keepdims=True) / sw
        var = (w * (r[..., 0] - mr) ** 2).sum(axis=1, keepdims=True)
        cov = (w * (r[..., 0] - mr) * (o[..., 0] - mo)).sum(axis=1, keepdims=True)
        gain = np.clip(np.where(var > 1e-6, cov / np.maximum(var, 1e-6), 1.0), 0.4, 2.5)
        off = mo - gain * mr
        dab = o[..., 1:] - r[..., 1:]
        off_ab = (w[..., None] * dab).sum(axis=1, keepdims=True) / sw[..., None]
        res_l = o[..., 0] - (gain * r[..., 0] + off)
        res_ab = dab - off_ab
        res = np.sqrt(res_l**2 + (res_ab**2).sum(axis=2))
        w = inside * ((res < AGREE_LAB * 1.5) + 1e-3)
    agree = ((res < AGREE_LAB) & inside).sum(axis=1) / np.maximum(inside.sum(axis=1), 1)
    return np.asarray(agree, np.float64)
