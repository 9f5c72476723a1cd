"""The string: a dark cord 2-3 mm thick lying in free curves (KIT.md).

Dark pixels that form thin lines are the string; dark patches thicker than a few millimetres
are something else (a dark sleeve, hair, a phone) and go to the occlusion check. The string
is reported present when its visible thin-line length is at least ``MIN_LENGTH_MM`` (it
lies on top of everything else, so most of it shows), with a coarse polyline for the
annotation. Where the classes show no string, a faint one (a white cord on a white canvas,
blurred) is looked for in the pixel model's string probability (``faint_cord``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.masks import opened
from vision.picasso.pixel_model import STRING, probability
from vision.picasso.profile import KitProfile

#: The string counts when this much of it (mm of line) shows: a quarter of KIT.md's string
#: (about 600 mm). On rendered boards a string on the canvas shows 182 mm and more (normal
#: run seed 0, development and wide looks of run seed 1, hard run seeds 0-1: the least,
#: a white string on a cream canvas); pieces of line where there is no string (a shape's
#: colour fringe, the pixel model's specks on a blurred heap) added up to 89-146 mm on hard
#: boards seen at 0.55-0.67 frame px/mm (80 mm before).
MIN_LENGTH_MM = 150.0
#: A piece of dark line with this share of it within ``SHADOW_REACH_MM`` of a stick or a
#: shape is that piece's hard drop shadow.
SHADOW_HUG = 0.85
SHADOW_REACH_MM = 2.0
#: ... unless it comes within this (mm) of the rest of the string (which then lies along it).
SHADOW_NEAR_STRING_MM = 6.0
#: A line of any colour at most this wide (mm) is thin: wider than any string (KIT.md: 1.5 to
#: 4 mm), narrower than any stick (6 to 10 mm).
THIN_MM = 5.5


@dataclass(frozen=True, eq=False)
class CordReading:
    """The string's pixels and what they measure.

    - ``mask``: (H, W) uint8 0/1 canvas pixels of the thin dark line;
    - ``thick``: (H, W) uint8 0/1 dark pixels too thick for the string;
    - ``length_mm``: visible length (line area / thickness);
    - ``points_mm``: (N, 2) float32 board mm along the line, chained in order (a coarse
      polyline for drawing, not a measurement); rows of NaN separate pieces that could not
      be joined (where the string crosses itself or hides under nothing visible).
    """

    mask: NDArray[np.uint8]
    thick: NDArray[np.uint8]
    length_mm: float
    points_mm: NDArray[np.float32]

    @property
    def present(self) -> bool:
        return self.length_mm >= MIN_LENGTH_MM


def find_cord(
    dark: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    grey: NDArray[np.uint8] | None = None,
) -> CordReading:
    """The string among the dark pixels ``dark`` ((H, W) uint8 0/1 at ``s`` px/mm).
    ``grey``: the grey (shadowed) pixels, if known: dark specks inside a shadow, with grey
    all round them, are the shadow's noise, not the string (which lies on the light canvas
    or on pieces)."""
    thickness = profile.string_thickness_mm
    # Thicker than twice the string: not the string.
    k = 2 * math.ceil(1.1 * thickness * s) + 1
    thick = opened(dark, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # Dark patches with a thick part (a dark sleeve, the deep shadow in a corner) are not
    # the string, thin fringes included; nor are specks (noise): pieces of line shorter than
    # 12 mm. Labelled on a half-size copy: a quarter of the work.
    h, w = dark.shape
    small = (cv2.resize(dark, (w // 2, h // 2), interpolation=cv2.INTER_AREA) > 0).astype(np.uint8)
    # (OpenCV's default labelling: the ring below lets the higher label win where two
    # patches' rings meet, so the numbering matters)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=8)
    min_px = 12.0 * thickness * (s / 2) ** 2
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= min_px
    line = dark
    if thick.any():
        # a patch mostly thick goes whole; from a string with a thick spot (where it lies
        # over itself) only the spot goes
        thick_small = cv2.resize(thick, (w // 2, h // 2), interpolation=cv2.INTER_NEAREST) > 0
        thick_px = np.bincount(lab[thick_small], minlength=n)
        keep &= thick_px < 0.3 * stats[:, cv2.CC_STAT_AREA]
        grow = cv2.dilate(thick, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
        line = dark & (1 - grow)
    if grey is not None and n > 1:
        keep &= _out_of_shadow(small, lab, n, grey, s)
    # np.take: a third of the time of fancy indexing over the label image
    kept_small = np.take(keep.view(np.uint8), np.asarray(lab))
    kept = np.asarray(cv2.resize(kept_small, (w, h), interpolation=cv2.INTER_NEAREST), np.uint8)
    line = line & kept
    area_mm2 = float(line.sum()) / (s * s)
    length = area_mm2 / max(thickness, 0.5)
    return CordReading(line, thick, length, _polyline(line, s))


def _out_of_shadow(
    small: NDArray[np.uint8],
    lab: NDArray[np.int32],
    n: int,
    grey: NDArray[np.uint8],
    s: float,
) -> NDArray[np.bool_]:
    """(n,) whether each patch of the half-size mask ``small`` (labelled ``lab``) has less
    than 60% grey round it (``grey``: the full-size shadow mask at ``s`` px/mm): specks of a
    shadow have grey all round them, the string lies on the light canvas or on pieces. All
    true when there are too many patches to label in 16 bits."""
    if n >= 65535:
        return np.ones(n, bool)
    h, w = grey.shape
    grey_small = cv2.resize(grey, (w // 2, h // 2), interpolation=cv2.INTER_NEAREST) > 0
    # each pixel round a patch, labelled with the patch (a max filter on the labels)
    # (the ring reaches about 1.5 mm out on the half-size copy)
    r = 2 * max(1, round(0.75 * s)) + 1
    around = cv2.dilate(lab.astype(np.uint16), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
    ring = (small == 0) & (around > 0)
    # counts per patch of the ring's few pixels (not weights over the whole canvas)
    ring_lab = around[ring]
    ring_px = np.bincount(ring_lab, minlength=n)
    grey_px = np.bincount(ring_lab[grey_small[ring]], minlength=n)
    return np.asarray(grey_px < 0.6 * np.maximum(ring_px, 1))


def thin_lines(
    ink: NDArray[np.uint8], s: float, profile: KitProfile, grey: NDArray[np.uint8] | None = None
) -> NDArray[np.uint8]:
    """The string found by its shape alone, whatever its colour: the parts of ``ink`` (every
    pixel that is neither canvas nor shadow, (H, W) uint8 0/1 at ``s`` px/mm) too thin to
    hold a disc ``THIN_MM`` wide, a little away from anything thicker (the rims of sticks
    and shapes), in pieces at least 12 mm long, not lying in a shadow (``grey`` all round).
    (H, W) uint8 0/1."""
    d = max(3, round(min(THIN_MM, 0.75 * profile.stick_width_mm) * s)) | 1
    thick = opened(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d)))
    rim = max(3, round(1.5 * s)) | 1
    grown = cv2.dilate(thick, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (rim, rim)))
    thin = ink & (1 - grown)
    if not thin.any():
        return thin
    h, w = thin.shape
    small = (cv2.resize(thin, (w // 2, h // 2), interpolation=cv2.INTER_AREA) > 0).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=8)
    thickness = min(profile.string_thickness_mm, 4.0)
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= 12.0 * thickness * (s / 2) ** 2
    # a line, not a blotch: its box's diagonal at least 12 mm
    diag = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) / (s / 2)
    keep &= diag >= 12.0
    if grey is not None and keep.any():
        keep &= _out_of_shadow(small, lab, n, grey, s)
    kept_small = np.take(keep.view(np.uint8), np.asarray(lab))
    kept = np.asarray(cv2.resize(kept_small, (w, h), interpolation=cv2.INTER_NEAREST), np.uint8)
    return thin & kept


def with_lines(
    cord: CordReading, lines: NDArray[np.uint8], s: float, profile: KitProfile
) -> CordReading:
    """``cord`` with the thin lines ``lines`` (``thin_lines``) added to it."""
    extra = lines & (1 - cord.mask)
    if not extra.any():
        return cord
    line = cord.mask | lines
    length = float(line.sum()) / (s * s) / max(profile.string_thickness_mm, 0.5)
    return CordReading(line, cord.thick, length, _polyline(line, s))


def without_shadow_lines(
    cord: CordReading, pieces: NDArray[np.uint8], s: float, profile: KitProfile
) -> CordReading:
    """``cord`` less its pieces of line that hug a piece along their whole length: a hard
    drop shadow is a thin dark line along a stick's or a shape's edge, the string crosses
    pieces or lies on the canvas apart from them. ``pieces``: (H, W) uint8 0/1 the sticks'
    and shapes' pixels. A piece of line is dropped when ``SHADOW_HUG`` of it lies within
    ``SHADOW_REACH_MM`` of a piece and it does not go on from the rest of the string."""
    if not cord.mask.any() or not pieces.any():
        return cord
    h, w = cord.mask.shape
    small = np.ascontiguousarray(cord.mask[::2, ::2])
    n, lab, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=8)
    if n <= 1:
        return cord
    r = 2 * max(1, round(SHADOW_REACH_MM * s / 2)) + 1
    near = cv2.dilate(
        np.ascontiguousarray(pieces[::2, ::2]),
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)),
    )[: small.shape[0], : small.shape[1]]
    hug = np.bincount(lab[near > 0], minlength=n)
    drop = hug >= SHADOW_HUG * stats[:, cv2.CC_STAT_AREA]
    drop[0] = False
    if not drop.any():
        return cord
    # nor is a piece that goes on from the string kept (its end near it): the string lying
    # along a stick
    kept = (small > 0) & ~np.take(drop, lab)
    if kept.any():
        k = 2 * max(1, round(SHADOW_NEAR_STRING_MM * s / 2)) + 1
        near_kept = cv2.dilate(
            kept.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        )
        drop[np.unique(lab[(near_kept > 0) & (lab > 0)])] = False
        drop[0] = False
    if not drop.any():
        return cord
    gone_small = np.take(drop.view(np.uint8), lab)
    gone = cv2.resize(gone_small, (w, h), interpolation=cv2.INTER_NEAREST)
    line = cord.mask & (1 - gone)
    length = float(line.sum()) / (s * s) / max(profile.string_thickness_mm, 0.5)
    return CordReading(line, cord.thick, length, _polyline(line, s))


def _polyline(line: NDArray[np.uint8], s: float, step_mm: float = 8.0) -> NDArray[np.float32]:
    """Points of the line every ~``step_mm`` (one per grid cell), chained: from one end,
    each next point is the nearest unvisited one within two cells, the chain grown at
    both ends; chains that cannot be joined are concatenated with a NaN row between them.
    (N, 2) float32 board mm."""
    found = cv2.findNonZero(line)  # row by row, as np.nonzero, and far quicker when sparse
    if found is None:
        return np.zeros((0, 2), np.float32)
    xs, ys = found.reshape(-1, 2).T
    cell = max(1, round(step_mm * s))
    # cells numbered row by row; the occupied ones in that order (as sorting the keys
    # would give them), their pixels summed in the order found
    n_cols = int(xs.max()) // cell + 1
    keys = (ys // cell) * n_cols + (xs // cell)
    counts = np.bincount(keys)
    occupied = np.flatnonzero(counts)
    counts = counts[occupied]
    pts = np.stack(
        [np.bincount(keys, xs)[occupied] / counts, np.bincount(keys, ys)[occupied] / counts], 1
    ).astype(np.float32)  # the middle of the line in each cell
    reach2 = (2 * cell) ** 2
    # Each cell's neighbours within reach, nearest first (ties: lower index first, as
    # ``argmin`` would), so that the chaining below is plain Python; from all squared
    # distances at once (one cell per 8 mm square of the canvas: at most about 1,500 cells,
    # and a string makes under a hundred).
    n = len(pts)
    diff = pts[:, None, :] - pts[None, :, :]
    dist2 = (diff * diff).sum(2)
    rows, cols = np.nonzero(dist2 <= reach2)  # the few pairs within reach, by row
    order = np.lexsort((cols, dist2[rows, cols], rows))
    near = cols[order].tolist()
    bounds = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]).tolist()
    ranked = [near[bounds[i] : bounds[i + 1]] for i in range(n)]
    left = [True] * n

    def nearest(i: int) -> int:
        return next((j for j in ranked[i] if left[j]), -1)

    chains: list[list[int]] = []
    for start in range(n):
        if not left[start]:
            continue
        chain = [start]
        left[start] = False
        for end in (1, 0):  # grow the tail, then the head
            while True:
                j = nearest(chain[-1] if end else chain[0])
                if j < 0:
                    break
                left[j] = False
                if end:
                    chain.append(j)
                else:
                    chain.insert(0, j)
        if len(chain) > 1:
            chains.append(chain)
    out: list[NDArray[np.float32]] = []
    for i, chain in enumerate(sorted(chains, key=len, reverse=True)):
        if i:
            out.append(np.full((1, 2), np.nan, np.float32))
        out.append((pts[chain] + 0.5) / s)
    return np.concatenate(out).astype(np.float32) if out else np.zeros((0, 2), np.float32)


#: A string too faint for the pixel model's classes (a white or pale cord on a light canvas,
#: blurred or under a glare) still raises the model's string probability along it: pixels
#: of at least this probability, away from the pieces found, in thin lines (``faint_cord``).
#: Chosen on the hard development sets (our renderer's run seeds 1 and 3, the second
#: drawer's seeds 0 and 5; 62 boards read without a string, 9 of them with one): 0.08 or 12 mm
#: pieces gave strings to boards without one (specks of a textured canvas under JPEG noise
#: joined into pieces), 0.2 found fewer faint strings.
FAINT_PROB = 0.12
#: ... in pieces of line at least this long (mm along their skeleton)
FAINT_PIECE_MM = 30.0
#: ... and not within this of the canvas's edge (mm: the frame's rim)
FAINT_EDGE_MM = 4.0
#: ... thin (``THIN_MM``), or up to this wide (mm, area over length) where the piece bends:
#: the model's probability spreads over a blurred cord's width (pieces of white strings on
#: the development sets measured 5.5-8.2 mm), and a stick is straight.
FAINT_WIDE_MM = 10.0
#: A piece bends when its skeleton strays this far (mm) from its own straight axis (a
#: straight band's skeleton strays by its spurs at the ends, under half its width).
FAINT_BEND_MM = 4.0


def _bends(
    skel: NDArray[np.bool_], lab: NDArray[np.int32], stat: NDArray[np.int32], k: int, px_mm: float
) -> bool:
    """Whether patch ``k`` of ``lab`` (its stats ``stat``) bends: its part of the skeleton
    ``skel`` strays more than ``FAINT_BEND_MM`` from its principal axis."""
    x, y, w, h = (int(v) for v in stat[:4])
    ys, xs = np.nonzero(skel[y : y + h, x : x + w] & (lab[y : y + h, x : x + w] == k))
    if len(xs) < 3:
        return False
    pts = np.stack([xs, ys], 1).astype(np.float64)
    pts -= pts.mean(axis=0)
    _, _, axes = np.linalg.svd(pts, full_matrices=False)
    return float(np.abs(pts @ axes[1]).max()) / px_mm > FAINT_BEND_MM


def faint_cord(
    logits: NDArray[np.float32], pieces: NDArray[np.uint8], s: float, profile: KitProfile
) -> CordReading:
    """The string where the pixel model gives it at least ``FAINT_PROB`` (``logits``: the
    model's (5, H/2, W/2) class logits; ``pieces``: (H, W) uint8 0/1 the sticks' and shapes'
    pixels, whose rims are left out), in thin pieces of line at least ``FAINT_PIECE_MM``
    long (the specks of a textured canvas under JPEG noise make shorter ones); its length
    is measured along the lines (their skeleton), not by area. Empty (length 0) when they
    cannot add up to ``MIN_LENGTH_MM``."""
    h, w = pieces.shape
    hh, hw = logits.shape[1:]
    empty = np.zeros_like(pieces)
    none = CordReading(empty, empty, 0.0, np.zeros((0, 2), np.float32))
    cand = (probability(logits, STRING, FAINT_PROB) >= FAINT_PROB).astype(np.uint8)
    if not cand.any():
        return none
    r = 2 * max(1, round(1.5 * s / 2)) + 1
    near = cv2.dilate(
        np.ascontiguousarray(pieces[::2, ::2][:hh, :hw]),
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)),
    )
    cand[near > 0] = 0
    m = max(1, round(FAINT_EDGE_MM * s / 2))
    cand[:m] = 0
    cand[-m:] = 0
    cand[:, :m] = 0
    cand[:, -m:] = 0
    n, lab, stats, _ = cv2.connectedComponentsWithStats(cand, connectivity=8)
    px_mm = s / 2
    # a skeleton is no longer than its patch's pixels: pieces that cannot be long enough,
    # or together cannot make the string, end it here
    most = stats[:, cv2.CC_STAT_AREA] / px_mm
    maybe_piece = most >= FAINT_PIECE_MM
    maybe_piece[0] = False
    if most[maybe_piece].sum() < MIN_LENGTH_MM:
        return none
    from skimage.morphology import skeletonize  # here: its import is slow

    skel = skeletonize(np.take(maybe_piece, lab))
    along = np.bincount(lab[skel], minlength=n) / px_mm
    width = stats[:, cv2.CC_STAT_AREA] / px_mm**2 / np.maximum(along, 1e-3)
    keep = maybe_piece & (along >= FAINT_PIECE_MM) & (width <= THIN_MM)
    for k in np.flatnonzero(maybe_piece & (along >= FAINT_PIECE_MM) & ~keep):
        keep[k] = width[k] <= FAINT_WIDE_MM and _bends(skel, lab, stats[k], k, px_mm)
    length = float(along[keep].sum())
    if length < MIN_LENGTH_MM:
        return none
    kept_small = np.take(keep.view(np.uint8), lab)
    line = np.asarray(cv2.resize(kept_small, (w, h), interpolation=cv2.INTER_NEAREST), np.uint8)
    return CordReading(line, empty, length, _polyline(line, s))
