"""Sticks of a look the colour table and the pixel model do not know, read again with a
colour measured on the frame itself (``segment.segment`` asks these after the model's first
answer; each gives a new look only on the few frames that need one):

- ``pale_wood``: light wood on a cream canvas under a warm light, which the table calls
  canvas where the model finds sticks: the table made again with the sticks' colour;
- ``grey_wood`` and ``wood_tinted``: grey sticks (painted grey, or pale wood whose tint the
  canvas normalisation took away), of which the model sees the shaded edges only: the model
  reads the picture again with the neutral pixels given the wood's chroma;
- ``pale_ink``: pastel-painted sticks, which both call canvas: the table made again with
  the colour of that ink.

What ``kit learn`` measures from a photo of the kit, for a reader without one.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso import pixel_model as pm
from vision.picasso.classes import CANVAS, GREY, NEUTRAL_CHROMA, WHITE_LEVEL, WOOD
from vision.picasso.masks import patches
from vision.picasso.profile import KitProfile, Lab


def lab_of(normalised: NDArray[np.uint8], mask: NDArray[np.bool_]) -> NDArray[np.float32]:
    """``segment.lab_of``."""
    from vision.picasso.segment import lab_of as of  # (segment imports this module)

    return of(normalised, mask)


#: The pixel model's sticks are pale wood that the colour table does not know when it
#: calls at least ``PALE_WOOD_SHARE`` of their pixels canvas or shadow, over at least
#: ``PALE_WOOD_MIN_PX`` pixels at half resolution (about 530 mm^2: two thirds of a short
#: stick's face). Measured with the default profile: on 9 boards of light wood on a cream
#: canvas under a warm light (our renderer's wide look 5, run seed 0 of the learn bench)
#: 0.79-0.91 of them (0.42 and 0.24 on two more boards of that look); on the boards of the
#: 14 development sets where a share of 0.5 took effect, 0.65 (two wide-look boards of
#: cream canvases, both read worse for it). At 0.75 the 14 sets read board for board as
#: without the step.
PALE_WOOD_SHARE = 0.75
PALE_WOOD_MIN_PX = 300


def _unknown_sticks(
    table_half: NDArray[np.uint8], half: NDArray[np.uint8]
) -> NDArray[np.bool_] | None:
    """The pixel model's sticks (``half``: its classes at half resolution) when there are
    enough of them (``PALE_WOOD_MIN_PX``) and the colour table (``table_half``) calls most
    of them canvas or shadow (``PALE_WOOD_SHARE``), else None."""
    stick = half == pm.STICK
    n = int(np.count_nonzero(stick))
    if n < PALE_WOOD_MIN_PX:
        return None
    under = table_half[stick]
    if np.count_nonzero((under == CANVAS) | (under == GREY)) < PALE_WOOD_SHARE * n:
        return None
    return stick


def _sticks_lab(
    norm: NDArray[np.uint8], half: NDArray[np.uint8], stick: NDArray[np.bool_]
) -> tuple[float, float, float]:
    """The median L*a*b* (relative to the canvas) of the model's sticks."""
    lab = lab_of(norm[::2, ::2][: half.shape[0], : half.shape[1]], stick)
    big_l, a, b = (float(v) for v in np.median(lab, axis=0))
    return big_l, a, b


#: Pale coloured ink that both the colour table and the pixel model call canvas: a pixel at
#: least ``PALE_INK_DE`` (delta E) from the canvas with a chroma of at least
#: ``PALE_INK_CHROMA`` (shadows are neutral), in patches wider than ``PALE_INK_OPEN_MM``
#: (the string's thin rim and the sticks' blurred edges are not), over at least
#: ``PALE_INK_MIN_MM2`` (three quarters of a short stick's face). Measured, with a first form
#: of the test (at full resolution, no rim or hue test), on 293 boards with no hand of
#: development sets (our renderer's kit, development and wide looks, the second drawer, 20
#: of the hard tier): 95% have under 45 mm^2 of it; boards of pastel-painted sticks (pale
#: blue, mint, lavender on white or cream; the model calls their bodies canvas and their
#: shaded edges the string) 400-2,100 mm^2; the few others over 300 mm^2 were the blurred
#: rim of light wood on the hard tier's coarse views, a shade along the canvas's edge and
#: the rims of shapes washed out by a glare, which the tests below leave out.
PALE_INK_DE = 9.0
PALE_INK_CHROMA = 6.0
PALE_INK_OPEN_MM = 4.0
PALE_INK_MIN_MM2 = 300.0
#: ...not counting patches that reach within this of the canvas's edge (mm).
PALE_INK_EDGE_MM = 10.0
#: ...nor within this of what the model calls a shape or other (mm).
PALE_INK_RIM_MM = 3.0
#: ...nor ink of the hue of the wood (within this, degrees) and no more saturated: the
#: blurred rim of the sticks on a coarse view.
PALE_INK_HUE_DEG = 25.0
#: A pixel of ``PALE_INK_CHROMA`` or more spreads its three channels by at least this many
#: levels of the normalised picture (5 at the least, over the whole colour cube): the cheap
#: first test of ``pale_ink``.
PALE_INK_SPREAD = 4


def pale_ink(
    norm: NDArray[np.uint8],
    table_half: NDArray[np.uint8],
    half: NDArray[np.uint8],
    profile: KitProfile,
    px_per_mm: float,
) -> KitProfile | None:
    """``profile`` with the wood's colour measured on pale coloured ink that the pixel
    model (``half``: its classes at half resolution) calls canvas (``PALE_INK_*``), when
    there is more of it than the model finds sticks and it is no blend of the wood's own
    colour with the canvas (the profile's, or that of the model's sticks where the table
    calls them wood, ``table_half``): sticks painted a pastel colour, nearly as light as
    the canvas, which the table calls canvas (their chroma is below its neutral band) and
    the model, which never saw such sticks, canvas too. Their colour then marks them in the
    table's wood plane, one of the model's inputs, and the model finds them by their shape,
    as for ``pale_wood``. None otherwise."""
    s = 0.5 * px_per_mm
    small = np.ascontiguousarray(norm[::2, ::2][: half.shape[0], : half.shape[1]])
    stick = half == pm.STICK
    n_stick = int(np.count_nonzero(stick))
    # Most frames stop here: a chroma of 6 spreads the channels by 5 levels or more
    # (measured over the whole colour cube), so fewer such pixels than the ink needs (and
    # than the model's sticks) leave nothing to measure, and the L*a*b* conversion is made
    # only for the pixels that may be ink.
    b, g, r = cv2.split(small)
    spread = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    maybe = (half == pm.CANVAS) & (spread >= PALE_INK_SPREAD)
    need = max(PALE_INK_MIN_MM2 * s * s, n_stick)
    if np.count_nonzero(maybe) < need:
        return None
    at = np.flatnonzero(maybe)
    vals = lab_of(small, maybe)
    chroma = np.hypot(vals[:, 1], vals[:, 2])
    ok = (chroma >= PALE_INK_CHROMA) & (np.hypot(100.0 - vals[:, 0], chroma) > PALE_INK_DE)
    if np.count_nonzero(ok) < need:  # (what follows only takes pixels away)
        return None
    ink = np.zeros(half.shape, bool)
    ink.flat[at[ok]] = True
    lab = np.zeros((*half.shape, 3), np.float32)
    lab.reshape(-1, 3)[at] = vals
    # not the rim of a shape or of something else (a shape washed out by a glare, which the
    # model calls other)
    rim = max(1, round(PALE_INK_RIM_MM * s))
    near = cv2.dilate(
        ((half == pm.SHAPE) | (half == pm.OTHER)).astype(np.uint8),
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rim + 1, 2 * rim + 1)),
    )
    ink &= near == 0
    k = max(3, round(PALE_INK_OPEN_MM * s) | 1)
    mask = cv2.morphologyEx(
        ink.astype(np.uint8), cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    if np.count_nonzero(mask) < PALE_INK_MIN_MM2 * s * s:
        return None
    # not what reaches into the canvas's edge band (the frame's shade, a tinted light at
    # the edge): the pieces lie on the canvas
    _n, lab_ids, _stats = patches(mask)
    edge = max(1, round(PALE_INK_EDGE_MM * s))
    border = np.zeros(mask.shape, bool)
    border[:edge] = border[-edge:] = True
    border[:, :edge] = border[:, -edge:] = True
    cut = np.unique(lab_ids[border & (mask > 0)])
    mask[np.isin(lab_ids, cut[cut > 0])] = 0
    n_ink = int(np.count_nonzero(mask))
    # ...and more of it than the model's sticks: the sticks are what the model missed, not
    # the pale rim, the glare or the blur round the sticks it found (the hard tier's
    # coarse views have such ink beside every heap)
    if n_ink < PALE_INK_MIN_MM2 * s * s or n_ink < n_stick:
        return None
    med = np.median(lab[mask > 0], axis=0)
    # A blend of the sticks' own colour with the canvas (the blurred rim of known sticks on
    # a coarse view) is no new wood: the profile's wood, and the colour of the model's
    # sticks when the table calls most of them wood (not when it calls them anything else:
    # those are the pale sticks themselves, seen in part).
    refs = [profile.wood_lab]
    if n_stick >= PALE_WOOD_MIN_PX and np.count_nonzero(table_half[stick] == WOOD) >= 0.5 * n_stick:
        refs.append(tuple(float(v) for v in np.median(lab_of(small, stick), axis=0)))  # type: ignore[arg-type]
    if any(_toward(med, ref) for ref in refs):
        return None
    wood = tuple(float(round(float(v))) for v in med)
    return replace(profile, wood_lab=wood)  # type: ignore[arg-type]


def _toward(colour: NDArray[np.float32], ref: Lab | tuple[float, ...]) -> bool:
    """Whether ``colour`` (L*a*b* relative to the canvas) lies between the canvas and
    ``ref`` in chroma: within ``PALE_INK_HUE_DEG`` of its hue and no more saturated."""
    ca, cb = float(colour[1]), float(colour[2])
    ra, rb = float(ref[1]), float(ref[2])
    if math.hypot(ra, rb) < NEUTRAL_CHROMA or math.hypot(ca, cb) > math.hypot(ra, rb):
        return False
    turn = abs(math.degrees(math.atan2(cb, ca) - math.atan2(rb, ra))) % 360.0
    return min(turn, 360.0 - turn) <= PALE_INK_HUE_DEG


def grey_wood(
    norm: NDArray[np.uint8], table_half: NDArray[np.uint8], half: NDArray[np.uint8]
) -> bool:
    """Whether the sticks are grey: the colour table calls most of what the pixel model
    calls sticks canvas or shadow (as for ``pale_wood``) and they are neutral (grey-painted
    sticks, or pale wood whose tint the canvas normalisation took away). The model, which
    never saw grey sticks, then finds their shaded edges only."""
    stick = _unknown_sticks(table_half, half)
    if stick is None:
        return False
    _, a, b = _sticks_lab(norm, half, stick)
    return math.hypot(a, b) < NEUTRAL_CHROMA


def wood_tinted(norm: NDArray[np.uint8], profile: KitProfile) -> NDArray[np.uint8]:
    """``norm`` with its neutral pixels given the wood's chroma in proportion to how much
    darker than the canvas they are (the canvas stays as it is; the wood's lightness or
    darker gets all of it): grey sticks then look like the kit's wood to the pixel model,
    which tells them from shadows and the string by their shape."""
    lab = cv2.cvtColor(norm.astype(np.float32) * np.float32(1.0 / WHITE_LEVEL), cv2.COLOR_BGR2Lab)
    big_l, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    wl, wa, wb = profile.wood_lab
    share = np.clip((100.0 - big_l) / max(100.0 - wl, 5.0), 0.0, 1.0)
    share[np.hypot(a, b) >= NEUTRAL_CHROMA] = 0.0
    a += share * np.float32(wa)
    b += share * np.float32(wb)
    out = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR) * np.float32(WHITE_LEVEL)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def pale_wood(
    norm: NDArray[np.uint8],
    table_half: NDArray[np.uint8],
    half: NDArray[np.uint8],
    profile: KitProfile,
) -> KitProfile | None:
    """``profile`` with the sticks' colour as this frame shows them (the median L*a*b* of
    what the pixel model calls sticks, ``half``: its classes at half resolution), when the
    colour table (``table_half``, at the same resolution) calls most of those pixels canvas
    or shadow (``PALE_WOOD_SHARE``): light wood on a cream canvas under a warm light is
    nearly neutral once the canvas is normalised, paler than the profile's wood by more than
    the table's neutral band, and the table's wood plane, one of the model's inputs, then
    marks other things (a green string) and not the sticks. None when the sticks are known
    to the table, too few, or grey (no colour to tell them from the canvas by).
    ``kit learn`` measures such wood from a photo of the kit; this is the same measurement
    made on the frame itself, for a reader without a learned profile."""
    stick = _unknown_sticks(table_half, half)
    if stick is None:
        return None
    big_l, a, b = _sticks_lab(norm, half, stick)
    if math.hypot(a, b) < NEUTRAL_CHROMA:
        return None
    # (whole units: frames of one kit share their tables in the cache)
    return replace(profile, wood_lab=(float(round(big_l)), float(round(a)), float(round(b))))
