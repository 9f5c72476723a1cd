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

from vision.identify import kernels

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
    x = np.ascontiguousarray(cells, np.float32).reshape(m, -1, 3)
    return kernels.describe_cells(x, MIN_L_SPREAD, COLOUR_WEIGHT)


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
    chroma: tuple[float, float] = (1.0, 1.0),
) -> NDArray[np.float64]:
    """Share of cells that look like the reference once the light is fitted, robustly.

    ``observed`` and ``reference``: (k, gh, gw, 3) Lab cells, pairwise. Lightness is fitted
    as ``gain * L_ref + offset`` and each colour axis as ``a_ref + offset``, by least squares
    reweighted three times to the cells within :data:`AGREE_LAB` (so a hand or another card
    over part of the card does not pull the fit); a cell agrees when its residual (Lab
    distance) is under :data:`AGREE_LAB`. ``mask`` (k, gh, gw) bool limits the fit and the
    share to some cells. ``chroma`` (lo, hi): the colour axes are fitted with a gain too,
    ``gain * (a_ref - mean) + mean`` (one gain for both axes), where the least-squares gain
    lies within [lo, hi], and with none (1) where it does not (a print's faded ink scales its
    colours; another picture's, or a grey one's, fit no gain in the range); the default
    (1, 1) fits none. Returns (k,) shares in [0, 1]: about the visible share of the card
    for the right reference, low for another picture.
    """
    k = len(observed)
    o = np.ascontiguousarray(observed, np.float32).reshape(k, -1, 3)
    r = np.ascontiguousarray(reference, np.float32).reshape(k, -1, 3)
    n = o.shape[1]
    inside = np.ones((k, n), bool) if mask is None else np.asarray(mask, bool).reshape(k, n)
    return kernels.cell_agreement(o, r, inside, AGREE_LAB, chroma)
