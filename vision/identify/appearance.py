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
    ``size_wh`` image: (m, h, w, C) uint8 (a frame pixel centre at integer coordinates, as
    OpenCV; the quad's corners land on the image's outer corners; bilinear, the frame's
    border replicated). One ``cv2.warpPerspective`` per quad, straight into the output
    (cheaper than building sampling maps in numpy for one ``cv2.remap``)."""
    w, h = size_wh
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    channels = frame.shape[2] if frame.ndim == 3 else 1
    out = np.empty((len(q), h, w, channels), np.uint8)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) - 0.5
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    for i, quad in enumerate(q):
        if not np.isfinite(quad).all():
            out[i] = frame.reshape(*frame.shape[:2], channels)[0, 0]
            continue
        warped = cv2.warpPerspective(
            frame, _homography(src, quad), (w, h), flags=flags, borderMode=cv2.BORDER_REPLICATE
        )
        out[i] = warped.reshape(h, w, channels)
    return out


def _homography(src: NDArray[np.float64], dst: NDArray[np.float64]) -> NDArray[np.float64]:
    """The 3 x 3 map of 4 points ``src`` onto 4 points ``dst`` (each (4, 2))."""
    return np.asarray(
        cv2.getPerspectiveTransform(src.astype(np.float32), np.asarray(dst, np.float32)), np.float64
    )


def lab_cells(images: NDArray[np.uint8], grid_wh: tuple[int, int] = GRID_WH) -> NDArray[np.float32]:
    """(m, h, w, 3) uint8 BGR images -> (m, gh, gw, 3) float32 Lab cells (L in [0, 100]) by
    area averaging; images whose size is a whole multiple of the grid are averaged in one
    step, others shrunk one by one (``cv2.INTER_AREA``)."""
    gw, gh = grid_wh
    m = len(images)
    if m == 0:
        return np.zeros((0, gh, gw, 3), np.float32)
    h, w = images.shape[1:3]
    if h % gh == 0 and w % gw == 0:
        # Stacked, the images shrink in one call: cell boundaries fall on image boundaries.
        stacked = np.ascontiguousarray(images).reshape(m * h, w, 3)
        small = cv2.resize(stacked, (gw, m * gh), interpolation=cv2.INTER_AREA)
        small = small.reshape(m, gh, gw, 3).astype(np.float32)
    else:
        small = np.stack(
            [cv2.resize(img, (gw, gh), interpolation=cv2.INTER_AREA) for img in images]
        ).astype(np.float32)
    lab = cv2.cvtColor((small * (1.0 / 255.0)).reshape(m * gh, gw, 3), cv2.COLOR_BGR2Lab)
    return np.asarray(lab, np.float32).reshape(m, gh, gw, 3)


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
    o = np.asarray(observed, np.float32).reshape(k, -1, 3)
    r = np.asarray(reference, np.float32).reshape(k, -1, 3)
    inside = np.ones(o.shape[:2], bool) if mask is None else np.asarray(mask, bool).reshape(k, -1)
    # Per cell, per pair: lightness of reference and observation, and the colour difference
    # (k, n) each; the weighted sums below are row dot products (einsum), no (k, n) temporaries
    # beyond the residuals.
    rl, ol = np.ascontiguousarray(r[..., 0]), np.ascontiguousarray(o[..., 0])
    da, db = o[..., 1] - r[..., 1], o[..., 2] - r[..., 2]
    w = inside.astype(np.float32)
    far2 = np.float32((AGREE_LAB * 1.5) ** 2)
    for _ in range(4):
        sw = w.sum(axis=1) + np.float32(1e-9)
        mr = np.einsum("kn,kn->k", w, rl) / sw
        mo = np.einsum("kn,kn->k", w, ol) / sw
        rc = rl - mr[:, None]
        wrc = w * rc
        var = np.einsum("kn,kn->k", wrc, rc)
        cov = np.einsum("kn,kn->k", wrc, ol - mo[:, None])
        gain = np.clip(np.where(var > 1e-6, cov / np.maximum(var, 1e-6), 1.0), 0.4, 2.5)
        off = mo - gain * mr
        oa = np.einsum("kn,kn->k", w, da) / sw
        ob = np.einsum("kn,kn->k", w, db) / sw
        res2 = (ol - gain[:, None] * rl - off[:, None]) ** 2
        res2 += (da - oa[:, None]) ** 2
        res2 += (db - ob[:, None]) ** 2
        w = inside * ((res2 < far2) + np.float32(1e-3))
    agree = ((res2 < np.float32(AGREE_LAB**2)) & inside).sum(axis=1) / np.maximum(
        inside.sum(axis=1), 1
    )
    return np.asarray(agree, np.float64)
