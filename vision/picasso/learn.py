"""``kit learn picasso``: measure the owner's own pieces and write a kit profile.

Lay every kind of piece on the board, apart from each other (at least a finger's width
between pieces): both stick lengths, each shape kind, each colour, and the string. From one
photo (or a camera frame), ``learn_kit`` finds the board, looks at the canvas from above
(white-balanced by the bare canvas round each place, ``normalise_local``: a soft shadow over
part of the canvas bends the light more than the reader's quadratic canvas model follows),
and, without assuming any colour, takes every patch that differs from the canvas
(``PIECE_DE`` or more in L*a*b*, neutral greys lighter than ``DARK_L`` excepted: those are
the canvas in shadow, the pieces' drop shadows):

- each patch is measured at **half contrast**: its colour is the median of its inner pixels,
  and its outline is where a pixel has come at least half-way from the canvas's colour to
  it (lightness counted a quarter for a coloured piece, whose drop shadow differs from the
  canvas in lightness only), and no darker than the piece by ``SHADE_DL`` (its drop shadow:
  a hard shadow along a light stick had widened it by up to 1.8 mm). A threshold on the
  difference from the canvas puts the outline further out the more the piece differs (a
  saturated red stick measured 10.3 mm wide instead of 8); half-way is the edge whatever
  the contrast;
- **shapes**: compact patches named circle, square, triangle or half-circle by their
  outline (``shapes.template_geometry`` at unit size: fills and aspect do not depend on the
  size), sized from their area; colours grouped (within 12 a*b* units: one colour) and named
  after the nearest default colour within ``COLOUR_PRECISION_DE``, else as the reader names
  a colour it does not know (``roles.hue_name``: orange, pink, teal...);
- **sticks**: straight bars (the minimum-area rectangle at least 3 times as long as wide,
  filled to 80%, a stick wide): the lengths fall into two groups, long and short (the
  largest gap between sorted lengths; each group within 15% of its median); the width is
  the median of area / length; the wood's colour the median of their colours;
- **the string**: thin patches (their ridge a median ``STRING_RADIUS_MM`` or less from their
  edge); its width at half contrast is area / centre-line length. A string of the canvas's
  colour or lighter (white on a cream canvas) differs from the canvas too little for the
  patches above: it is looked for as a thin line lighter than the canvas round it (the
  median of the canvas ``LOCAL_MM`` wide, the pieces left out). White on a white canvas
  shows only as its faint shadow, and is not found.

The profile records what was measured (its ``seen``: the sticks' and the string's colours
and the string's width), and holds, for the reader, what makes the reader read that kit at
least as well as the default profile does (``_sizes_for_reader``, ``_names_for_reader``,
``_wood_for_reader``, ``_string_for_reader``). The reader tells pieces apart by their
geometry first and builds its colour classes from the profile (``segment._build_lut``: the
nearest of the wood colour and the shape colours, neutral colours by lightness, the dark
threshold a third of the way from the string's lightness to the canvas); on the
development looks of both board drawers:

- **sizes and colours** within learning's precision of the default's (``LENGTH_PRECISION``,
  ``WIDTH_PRECISION``, ``SHAPE_PRECISION``, ``COLOUR_PRECISION_DE``) are the default's: a
  measure that close is no difference, and a profile equal to the default reads as the
  default does (the colours are kept in the default's order, which numbers the classes);
- **the shapes' colours name the shapes; they do not classify pixels**: the reader's colour
  classes stay the default's, and the measured colours (``seen.colours``) name each shape
  after the nearest of them (``_names_for_reader``; the reader finds shapes of any colour
  by their shape). As classes, measured colours made the reader worse: a light colour of a
  darker one's hue (sky blue beside navy) took the blended rim of the darker shapes for a
  shape of its own. On a development probe (development looks with a palette in neither
  look group: lime, sky, magenta, navy; 15 looks per drawer) the learned profile read 4
  looks worse than the default (2 better) with them as classes, none worse (none better)
  with them as names;
- **the wood colour** is the default's unless the default's colour classes take
  ``PALE_SHARE`` of the sticks' pixels or more for canvas or shadow (pale wood on a cream
  canvas: 5 of 12 boards read right with the default's colour, 10 with the measured one).
  Dark wood and paint are read as sticks by their shape whatever their colour (``roles``),
  and their measured colour as the wood's made the reader worse (each alone in the default
  profile, 24 development looks): dark wood's on 6 of 10 looks (1-2 boards fewer, or a
  false occlusion; 2 better), a paint that is a shape's colour (``SAME_PAINT_DE``) on all
  12 (9 boards right to 1, 11 to 2: each stick's pixels split between "wood" and that
  shape's colour);
- **the string's lightness** is the default's unless the string is a grey the default's
  dark threshold would take for shadow (``STRING_GREY_L``: written at most
  ``STRING_L_MAX``): a darker string lowers the threshold and dark wood reads grey in
  pieces (8 boards right to 3), a light one raises it into the shadows (jute's: 10 to 5,
  and 5 to 0 with 3 false occlusions). The reader finds strings of any colour by their
  shape;
- **the string's thickness** is the default's unless its width at half contrast (a thin
  line's blurred width, 1-2 mm more than the string) is ``THICKNESS_PRECISION_MM`` away.

A photo that cannot be learned from is refused with the reason (``Failure``): no board
(markers 4-7); the light too dim (the canvas darker than ``MIN_CANVAS_LEVEL`` of 255, or
noisier than ``MAX_CANVAS_NOISE``; under ``DIM_LEVEL`` any other refusal says the light may
be why); a piece missing (no stick of one of the two lengths, a shape kind, the string);
pieces touching (a patch that is no stick, shape or string alone: two pieces against or
over each other, the string over a stick, sticks end to end or side by side, a piece over
the canvas edge).

The profile's format is documented in ``vision.picasso.profile``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.intrinsics import Intrinsics
from calibration.result import Failure
from vision.picasso.board import PX_PER_MM, BoardView, find_board
from vision.picasso.profile import (
    DEFAULT_PROFILE,
    SHAPE_KINDS,
    KitProfile,
    Lab,
    SeenLook,
    ShapeSize,
    StickSize,
    shape_area_mm2,
)
from vision.picasso.roles import hue_name
from vision.picasso.segment import (
    CANVAS,
    GREY,
    MODEL_CELL_MM,
    WHITE_LEVEL,
    canvas_model_grid,
    classify,
    normalise,
    table_distance,
)
from vision.picasso.shapes import ShapeGeometry, measure, template_geometry
from vision.sources.guard import check_frame

#: A pixel this far (CIE76) from the canvas may be a piece's...
PIECE_DE = 12.0
#: ...unless it is a neutral grey (chroma under ``NEUTRAL_CHROMA``) lighter than ``DARK_L``:
#: the canvas in a shadow, a drop shadow.
NEUTRAL_CHROMA = 8.0
DARK_L = 62.0
#: A piece this colourful (chroma) is measured with lightness counted a quarter.
CHROMATIC = 12.0
#: A pixel of a piece's half-contrast mask is its drop shadow, not the piece, when its
#: lightness is this far below the piece's median (L*). On the kit photos of 40 development
#: looks (both drawers, 8 mm sticks), the sticks' width (each photo's median) measured 8.4 mm
#: over the photos and up to 9.6 mm with the shadow (a hard shadow along light wood), which
#: learning's precision no longer took for 8 mm; without it, 8.25 mm and at most 9.15 mm.
SHADE_DL = 10.0
#: A patch with more than ``REST_MM2`` (mm^2) lying more than ``REST_MM`` (mm) outside its
#: half-contrast outline holds another piece, of another colour, against it.
REST_MM = 2.5
REST_MM2 = 60.0
#: A string patch whose ridge, as first seen, runs more than ``STRING_WIDE_MM`` (mm) where
#: its edge is ``WIDE_MM`` (mm) away is the string against or over a stick or a shape (the
#: string, 1.5-4 mm thick, blurred and with its shadow, measures at most 3.3 mm there).
WIDE_MM = 3.5
STRING_WIDE_MM = 5.0
#: Patches smaller than this (mm^2) are specks.
MIN_PATCH_MM2 = 40.0
#: Ignored along the canvas edge (the board's frame may show there), mm.
EDGE_MM = 3.0
#: A patch whose ridge lies at a median distance under this (mm) from its edge is the string
#: (sticks are 6-10 mm wide, the string 1.5-4 mm)...
STRING_RADIUS_MM = 3.0
#: ...unless its ridge is that far from its edge along more than this (mm, or this share
#: of its length): a stick's part.
STRING_THICK_MM = 15.0
STRING_THICK_SHARE = 0.1
#: ...when its centre line is at least this long (mm); shorter thin patches are specks.
STRING_MIN_MM = 10.0
#: The whole string must be at least this long (mm): the kit's is about 600.
STRING_TOTAL_MM = 120.0
#: A stick: its rectangle at least ``BAR_ASPECT`` times as long as wide, filled to
#: ``BAR_FILL``, at most ``BAR_MAX_WIDTH_MM`` wide.
BAR_ASPECT = 3.0
BAR_FILL = 0.8
BAR_MAX_WIDTH_MM = 16.0
#: Stick widths within this ratio of their median; lengths within this ratio of their
#: group's median (else two sticks touch side by side or end to end).
WIDTH_RATIO = 1.35
LENGTH_RATIO = 1.15
#: A shape: its outline this near a kit shape's (``_shape_kind``'s distance) and its area
#: in this range (mm^2: the kit's half-circle is 628, its square 1225).
SHAPE_MAX_DISTANCE = 2.5
SHAPE_AREA_MM2 = (150.0, 5000.0)
#: The canvas must reach at least this level (0-255, its brightest channel, median over the
#: canvas) in the photo...
MIN_CANVAS_LEVEL = 90.0
#: ...and its noise (robust standard deviation of its grey level, percent of the canvas's)
#: stay below this. Under ``DIM_LEVEL`` a piece found missing or pieces found touching may
#: be the dim light's doing: the reason says so.
MAX_CANVAS_NOISE = 3.0
DIM_LEVEL = 130.0
#: The local canvas model's reach, cells of ``segment.MODEL_CELL_MM`` (``normalise_local``).
LOCAL_CELLS = 5
#: A string lighter than the canvas round it: the median of the canvas this wide (mm) is
#: what lies round it; the line's pixels differ from it by at least this share of the
#: canvas's level, and several times the noise.
LOCAL_MM = 9.0
LIGHT_LINE_SHARE = 0.025
#: ...and at least this far (mm) from the other pieces (their shadows).
AWAY_MM = 4.0
#: Wood closer than this (the reader's colour distance: a*b*, and L* counted a quarter) to a
#: shape colour is that shape's paint (module docstring).
SAME_PAINT_DE = 20.0
#: The default's wood colour is kept unless its colour classes take this share of the
#: sticks' pixels for canvas or shadow (module docstring).
PALE_SHARE = 0.15
#: A grey string (this neutral, chroma; its L* in this range) would read as shadow with
#: the default's dark threshold: its lightness is written, at most ``STRING_L_MAX``. A
#: lighter one (a white string) no dark threshold can catch without the shadows.
NEUTRAL_STRING_CHROMA = 10.0
STRING_GREY_L = (50.0, 70.0)
STRING_L_MAX = 45.0
#: The string's thickness as written: the default's within this (mm: a thin line's width at
#: half contrast is its blurred width, 1-2 mm more than the string's), else in this range.
THICKNESS_PRECISION_MM = 2.5
STRING_MM_RANGE = (1.5, 4.0)
#: Learning's precision: a measure this near the default's (a share of it; CIE76 for
#: colours) is the default's.
LENGTH_PRECISION = 0.05
WIDTH_PRECISION = 0.2
SHAPE_PRECISION = 0.06
COLOUR_PRECISION_DE = 20.0


@dataclass(frozen=True)
class LearnedKit:
    """What ``learn_kit`` found: the ``profile`` (its ``seen``: the sticks' and the string's
    colours as measured), and what it is based on: the measured stick lengths (mm), the
    shapes (kind, size mm, colour name), the string's width at half contrast (mm), and
    ``notes`` (what was measured but written otherwise for the reader, and why)."""

    profile: KitProfile
    stick_lengths_mm: tuple[float, ...]
    shapes: tuple[tuple[str, float, str], ...]
    string_thickness_mm: float | None
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class _Patch:
    """One piece's patch: its half-contrast ``mask`` ((h, w) uint8 0/1 of ``box`` (x, y, w,
    h) in canvas pixels), outline ``contour`` (canvas pixels), ``colour`` (median L*a*b* of
    its inner pixels), ``area_mm2``; ``half_width_mm``, the median distance (mm) from its
    ridge to its edge (half a bar's width; robust to a blob here and there), and
    ``thick_mm``, how long (mm) its ridge is where that distance reaches
    ``STRING_RADIUS_MM`` (a string crossing itself has a few pixels of it, a stick all its
    length); ``rest_mm2``, how much of the patch lies more than ``REST_MM`` outside the
    half-contrast outline (another piece of another colour against it); ``wide_mm``, how
    long (mm) the ridge of the patch as first seen (before half contrast) runs where its
    edge is ``WIDE_MM`` or more away (nowhere on the string, with its blur and shadow: a
    stick or a shape against it)."""

    mask: NDArray[np.uint8]
    box: tuple[int, int, int, int]
    contour: NDArray[np.int32]
    colour: NDArray[np.float64]
    area_mm2: float
    half_width_mm: float
    thick_mm: float
    rest_mm2: float = 0.0
    wide_mm: float = 0.0

    def centre_mm(self, s: float) -> tuple[float, float]:
        x, y, w, h = self.box
        return (round((x + w / 2) / s), round((y + h / 2) / s))


def canvas_lab(norm: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(H, W, 3) float32 L*a*b* relative to the canvas of a normalised canvas picture
    (``segment.normalise``: the canvas at ``WHITE_LEVEL``; lighter than it clips to white)."""
    rgb = np.clip(norm.astype(np.float32) / WHITE_LEVEL, 0, 1).astype(np.float32)
    return np.asarray(cv2.cvtColor(rgb, cv2.COLOR_BGR2Lab), np.float32)


def _foreground(lab: NDArray[np.float32], threshold: float) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: pixels ``threshold`` or more from the canvas, less neutral greys
    lighter than ``DARK_L`` (module docstring)."""
    big_l, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    chroma = np.hypot(a, b)
    de = np.hypot(big_l - 100.0, chroma)
    shadow = (chroma < NEUTRAL_CHROMA) & (big_l >= DARK_L)
    return np.asarray((de >= threshold) & ~shadow, np.uint8)


def normalise_local(canvas: NDArray[np.uint8], s: float) -> NDArray[np.uint8]:
    """(H, W, 3) uint8: ``canvas`` divided by the bare canvas's colour round each pixel, the
    canvas at ``WHITE_LEVEL`` (as ``segment.normalise``, but following the light locally).

    The reader's canvas model is a quadratic surface over the whole canvas; a soft shadow
    over part of it (a lamp's, a hand's held high) bends the light more than that, and the
    pieces under it would be learned darker than they are. Here the canvas is taken in cells
    of ``segment.MODEL_CELL_MM``: a cell is bare canvas when it is nearly as bright as the
    brightest cells round it (within ``LOCAL_CELLS`` cells) and of the canvas's hue; the
    model at each cell is the mean of the bare cells near it (a Gaussian of ``LOCAL_CELLS``
    / 2 cells)."""
    h, w = canvas.shape[:2]
    cell = max(1, round(MODEL_CELL_MM * s))
    gh, gw = max(2, h // cell), max(2, w // cell)
    small = cv2.resize(canvas[: gh * cell, : gw * cell], (gw, gh), interpolation=cv2.INTER_AREA)
    pix = small.astype(np.float32)
    total = pix.sum(axis=2) + 1e-3
    chroma = pix / total[..., None]
    k = 2 * LOCAL_CELLS + 1
    brightest = cv2.dilate(total, np.ones((k, k), np.uint8))
    bright = total >= 0.9 * brightest
    hue = np.median(chroma[bright], axis=0) if bright.any() else np.full(3, 1 / 3, np.float32)
    bare = bright & (np.abs(chroma - hue).max(axis=2) < 0.025)
    if bare.sum() < 12:
        return normalise(canvas, s)
    weight = cv2.GaussianBlur(bare.astype(np.float32), (0, 0), LOCAL_CELLS / 2)
    model = cv2.GaussianBlur(pix * bare[..., None], (0, 0), LOCAL_CELLS / 2)
    model = model / np.maximum(weight, 1e-3)[..., None]
    # cells with no bare canvas near them: the reader's model
    far = weight < 0.05
    if far.any():
        model[far] = canvas_model_grid(canvas, s)[: model.shape[0], : model.shape[1]][far]
    full = cv2.resize(np.clip(model, 1, 255), (w, h), interpolation=cv2.INTER_LINEAR)
    out = canvas.astype(np.float32) * (WHITE_LEVEL / full)
    return np.asarray(np.clip(out + 0.5, 0, 255), np.uint8)


def _canvas_noise(norm: NDArray[np.uint8], lab: NDArray[np.float32]) -> float:
    """The canvas's noise in percent of its level: the robust standard deviation (1.4826
    MAD) of the grey level of the pixels that are nearly canvas."""
    near = (np.abs(lab[..., 0] - 100.0) < 10.0) & (np.hypot(lab[..., 1], lab[..., 2]) < 8.0)
    if near.sum() < 100:
        return math.inf
    v = norm[near].astype(np.float32).mean(axis=1) * (100.0 / WHITE_LEVEL)
    return float(1.4826 * np.median(np.abs(v - np.median(v))))


def canvas_level(canvas: NDArray[np.uint8], s: float) -> float:
    """How bright the canvas is in the photo: its brightest channel (0-255), the median over
    the canvas model's cells (``segment.canvas_model_grid``)."""
    return float(np.median(canvas_model_grid(canvas, s).max(axis=2)))


def _half_contrast(
    lab: NDArray[np.float32], comp: NDArray[np.uint8], box: tuple[int, int, int, int]
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """The half-contrast mask of one patch (its pixels ``comp``, (h, w) uint8 0/1 over
    ``box`` of ``lab``) and its colour (module docstring): (mask over ``box``, colour)."""
    x, y, w, h = box
    sub = lab[y : y + h, x : x + w]
    core = cv2.erode(comp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))).astype(bool)
    pix = sub[core] if core.sum() >= 12 else sub[comp > 0]
    if not core.sum() >= 12:  # a thin patch: its most contrasted half
        de = np.hypot(pix[:, 0] - 100.0, np.hypot(pix[:, 1], pix[:, 2]))
        pix = pix[de >= np.median(de)]
    colour = np.median(pix, axis=0).astype(np.float64)
    # a coloured piece: lightness counted a quarter (its drop shadow is as far from the
    # canvas in lightness as a pale piece is)
    weight = np.array([1.0 if math.hypot(colour[1], colour[2]) < CHROMATIC else 0.25, 1.0, 1.0])
    v = (colour - np.array([100.0, 0.0, 0.0])) * weight
    norm2 = float(v @ v)
    if norm2 < 1e-6:
        return comp, colour
    t = ((sub - np.array([100.0, 0.0, 0.0], np.float32)) @ (v * weight).astype(np.float32)) / norm2
    near = cv2.dilate(comp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    half = (t >= 0.5) & (near > 0)
    # Not its drop shadow: darker than the piece by SHADE_DL (the piece's own grain is
    # not, and its core is kept whatever it reads).
    half &= (sub[..., 0] >= colour[0] - SHADE_DL) | core
    half = half.astype(np.uint8)
    # the part connected to the patch itself
    n, lab_img = cv2.connectedComponents(half, connectivity=8)
    if n > 2:
        keep = np.unique(lab_img[(comp > 0) & (half > 0)])
        half = np.isin(lab_img, keep[keep > 0]).astype(np.uint8)
    return (half if half.any() else comp), colour


def _patches(
    lab: NDArray[np.float32], fg: NDArray[np.uint8], s: float
) -> tuple[list[_Patch], list[tuple[float, float]]]:
    """The pieces' patches of ``fg`` (each measured at half contrast), and the centres (mm)
    of patches cut by the canvas edge."""
    pad = round(3 * s)
    h_img, w_img = fg.shape
    n, lab_img, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    out: list[_Patch] = []
    at_edge: list[tuple[float, float]] = []
    edge = round(EDGE_MM * s) + 1
    for i in range(1, n):
        x, y, w, h, n_px = (int(v) for v in stats[i])
        if n_px < MIN_PATCH_MM2 * s * s:
            continue
        if x <= edge or y <= edge or x + w >= w_img - edge or y + h >= h_img - edge:
            at_edge.append((round((x + w / 2) / s), round((y + h / 2) / s)))
            continue
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(w_img, x + w + pad), min(h_img, y + h + pad)
        box = (x0, y0, x1 - x0, y1 - y0)
        comp = (lab_img[y0:y1, x0:x1] == i).astype(np.uint8)
        mask, colour = _half_contrast(lab, comp, box)
        contours, _ = cv2.findContours(
            mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0)
        )
        contour = max(contours, key=cv2.contourArea)
        half, thick = _ridge(_without_specks(mask, s), s)
        k = 2 * round(REST_MM * s) + 1
        grown = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        rest = float((comp & (1 - grown)).sum()) / (s * s)
        parts = sum(cv2.contourArea(c) >= MIN_PATCH_MM2 * s * s for c in contours)
        area = float(mask.sum()) / (s * s)
        _, wide = _ridge(comp, s, WIDE_MM)
        if parts > 1:
            rest = math.inf  # two pieces of one colour against each other
        out.append(
            _Patch(mask, box, np.asarray(contour, np.int32), colour, area, half, thick, rest, wide)
        )
    return out, at_edge


#: Holes in a piece's half-contrast patch up to this size (mm^2) are specks of its own
#: surface (the grain of dark wood, a highlight under a hard light), not the canvas: a loop
#: of the string encloses far more.
SPECK_MM2 = 4.0


def _without_specks(mask: NDArray[np.uint8], s: float) -> NDArray[np.uint8]:
    """``mask`` ((h, w) uint8 0/1) with its holes up to ``SPECK_MM2`` filled. Each hole's
    pixels are ridge points of their own, at a pixel from an edge: 39 specks in a dark
    stick under a hard light had made its half width 0.7 mm, the string's, though it
    measured 8.7 mm across (the kit photo then refused: "pieces touch")."""
    n, lab_img, stats, _ = cv2.connectedComponentsWithStats(1 - mask, connectivity=4)
    if n <= 2:
        return mask
    h, w = mask.shape
    x, y, bw, bh, area = (stats[:, k] for k in range(5))
    inner = (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    speck = inner & (area <= SPECK_MM2 * s * s)
    speck[0] = False
    if not speck.any():
        return mask
    return np.where(np.take(speck, lab_img), 1, mask).astype(np.uint8)


def _ridge(
    mask: NDArray[np.uint8], s: float, reach_mm: float = STRING_RADIUS_MM
) -> tuple[float, float]:
    """(``half_width_mm``, ``thick_mm``) of a patch (``_Patch``): the median distance (mm)
    from its ridge to its edge, and the length (mm) of its ridge where that distance
    reaches ``reach_mm``."""
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5) / s
    ridge = dist[(dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 0)]
    if not len(ridge):
        return 0.0, 0.0
    return float(np.median(ridge)), float((ridge >= reach_mm).sum()) / s


def _shape_kind(geom: ShapeGeometry) -> tuple[str, float]:
    """(kind, distance) of the kit shape whose outline is nearest to ``geom``'s, by fills
    and aspect alone (they do not depend on the size)."""
    best, best_d = "", math.inf
    for kind in SHAPE_KINDS:
        _, rf, cf, asp = template_geometry(ShapeSize(kind, 1.0, 1.0))
        d = math.hypot((geom.rect_fill - rf) / 0.08, (geom.circle_fill - cf) / 0.08)
        d = math.hypot(d, (geom.aspect - asp) / 0.12)
        if d < best_d:
            best, best_d = kind, d
    return best, best_d


def _centre_line_mm(mask: NDArray[np.uint8], s: float) -> float:
    """Length (mm) of a thin patch's centre line: its skeleton's pixel count."""
    from skimage.morphology import skeletonize

    return float(skeletonize(mask.astype(bool)).sum()) / s


@dataclass
class _Found:
    """The pieces ``_sort`` found: sticks (length, width mm, colour), string parts (area,
    centre-line length mm, colour), shapes (geometry, colour, kind), and patches that are
    none of these (their centres, mm)."""

    sticks: list[tuple[float, float, NDArray[np.float64]]] = field(default_factory=list)
    string: list[tuple[float, float, NDArray[np.float64]]] = field(default_factory=list)
    shapes: list[tuple[ShapeGeometry, NDArray[np.float64], str]] = field(default_factory=list)
    odd: list[tuple[float, float]] = field(default_factory=list)
    solid: list[_Patch] = field(default_factory=list)  # the sticks' and shapes' patches
    stick_patches: list[_Patch] = field(default_factory=list)
    string_patches: list[_Patch] = field(default_factory=list)


def _bar_half_width(p: _Patch, length_mm: float) -> float:
    """Half the width (mm) of a straight bar ``length_mm`` long: its ridge's distance to its
    edge (``_Patch.half_width_mm``), or half its mean width (area / length) where that is
    more. A pale stick's mask at half contrast is ragged along its edges and bitten by its
    grain, and the median ridge of a stick 8 mm wide can fall under the string's
    (``STRING_RADIUS_MM``); its area still says how wide it is. A straight piece of the
    string, 1.5-4 mm thick, is as thin by either measure."""
    return max(p.half_width_mm, 0.5 * p.area_mm2 / max(length_mm, 1e-6))


def _sort(patches: list[_Patch], s: float) -> _Found:
    """Each patch is a stick, a part of the string, a shape, or none (module docstring)."""
    found = _Found()
    for p in patches:
        if p.rest_mm2 > REST_MM2:
            found.odd.append(p.centre_mm(s))  # two pieces of two colours against each other
            continue
        geom = measure(p.contour, s)
        kind, d = _shape_kind(geom)
        if d <= SHAPE_MAX_DISTANCE and SHAPE_AREA_MM2[0] <= geom.area_mm2 <= SHAPE_AREA_MM2[1]:
            found.shapes.append((geom, p.colour, kind))
            found.solid.append(p)
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(p.contour)
        long_side, short_side = max(rw, rh) / s, min(rw, rh) / s
        fill = p.area_mm2 / max(long_side * short_side, 1e-6)
        if (
            long_side >= BAR_ASPECT * short_side
            and fill >= BAR_FILL
            and _bar_half_width(p, long_side) >= STRING_RADIUS_MM
        ):
            # (its width: area / length, the mean width; the rectangle's is the widest)
            if short_side <= BAR_MAX_WIDTH_MM:
                found.sticks.append((long_side, p.area_mm2 / long_side, p.colour))
                found.solid.append(p)
                found.stick_patches.append(p)
            else:
                found.odd.append(p.centre_mm(s))
            continue
        if p.half_width_mm < STRING_RADIUS_MM:
            length = _centre_line_mm(p.mask, s)
            if (
                p.thick_mm > max(STRING_THICK_MM, STRING_THICK_SHARE * length)
                or p.wide_mm > STRING_WIDE_MM
            ):
                found.odd.append(p.centre_mm(s))  # the string over a stick, or against one
            elif length >= STRING_MIN_MM:
                found.string.append((p.area_mm2, length, p.colour))
                found.string_patches.append(p)
            continue  # (a short thin patch: a speck, a sliver)
        found.odd.append(p.centre_mm(s))
    return found


def _light_string(
    norm: NDArray[np.uint8], taken: NDArray[np.uint8], s: float
) -> tuple[tuple[float, float, NDArray[np.float64]], NDArray[np.uint8]] | None:
    """A string lighter than the canvas round it (module docstring), away from the pieces
    ``taken`` ((H, W) uint8 0/1): ((area mm^2, centre-line length mm, colour), its (H, W)
    uint8 0/1 pixels), or None. (A white string on a white canvas shows only as its thin
    shadow: too faint to tell from the canvas's grain and the pieces' shadows.)"""
    k = max(3, round(LOCAL_MM * s)) | 1
    r = 2 * round(AWAY_MM * s) + 1
    away = cv2.dilate(taken, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
    # the pieces and their shadows are canvas for the median (else the canvas beside a
    # piece is lighter than the median there, all along it)
    flat = norm.copy()
    flat[away > 0] = round(WHITE_LEVEL)
    bg = cv2.medianBlur(flat, k).astype(np.float32)
    lighter = (norm.astype(np.float32) - bg).max(axis=2)
    noise = float(1.4826 * np.median(np.abs(lighter - np.median(lighter))))
    line = (lighter >= max(LIGHT_LINE_SHARE * WHITE_LEVEL, 3.0 * noise)).astype(np.uint8)
    line &= 1 - away
    edge = round(EDGE_MM * s) + 1
    line[:edge] = line[-edge:] = 0
    line[:, :edge] = line[:, -edge:] = 0
    line = cv2.morphologyEx(line, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, lab_img, stats, _ = cv2.connectedComponentsWithStats(line, connectivity=8)
    best: tuple[float, float, NDArray[np.float64]] | None = None
    best_i = 0
    for i in range(1, n):
        x, y, w, h = (int(v) for v in stats[i, :4])
        if math.hypot(w, h) / s < STRING_MIN_MM:
            continue
        m = (lab_img[y : y + h, x : x + w] == i).astype(np.uint8)
        half, thick = _ridge(m, s)
        if half >= STRING_RADIUS_MM:
            continue
        length = _centre_line_mm(m, s)
        if thick > max(STRING_THICK_MM, STRING_THICK_SHARE * length):
            continue
        if length < STRING_TOTAL_MM or (best is not None and length <= best[1]):
            continue
        pix = norm[y : y + h, x : x + w][m > 0].astype(np.float32) / WHITE_LEVEL
        lab = cv2.cvtColor(np.clip(pix, 0, 1).reshape(-1, 1, 3), cv2.COLOR_BGR2Lab)
        colour = np.median(lab.reshape(-1, 3), axis=0).astype(np.float64)
        best = (float(m.sum()) / (s * s), length, colour)
        best_i = i
    if best is None:
        return None
    return best, (lab_img == best_i).astype(np.uint8)


def _lengths(
    sticks: list[tuple[float, float, NDArray[np.float64]]],
) -> tuple[float, float] | Failure:
    """(short, long) stick lengths (mm), or why the sticks do not make two lengths."""
    if len(sticks) < 2:
        return Failure(
            f"a piece is missing: found {len(sticks)} stick(s); lay at least one long and "
            "one short stick apart on the board"
        )
    lengths = sorted(length for length, _, _ in sticks)
    gaps = np.diff(lengths)
    cut = int(np.argmax(gaps))
    shown = [round(v) for v in lengths]
    if gaps[cut] < 0.25 * lengths[cut + 1]:
        return Failure(
            f"a piece is missing: the sticks measure {shown} mm, all about one length; lay "
            "at least one long and one short stick"
        )
    groups = (lengths[: cut + 1], lengths[cut + 1 :])
    for g in groups:
        if max(g) > LENGTH_RATIO * min(g):
            return Failure(
                f"pieces touch: the sticks measure {shown} mm, more than two lengths; lay "
                "them apart (not end to end)"
            )
    return float(np.median(groups[0])), float(np.median(groups[1]))


def _snap(value: float, default: float, precision: float) -> float:
    """``default`` when ``value`` is within ``precision`` (a share of it) of it: a measure
    within learning's precision of the default's is the default's (and a profile equal to
    the default reads as the default does)."""
    return default if abs(value - default) <= precision * default else value


def _sizes_for_reader(
    short: float, long_: float, width: float, shapes: tuple[ShapeSize, ...]
) -> tuple[tuple[StickSize, ...], tuple[ShapeSize, ...]]:
    """The sticks' and shapes' sizes to write: as measured, the default's where within
    ``LENGTH_PRECISION``, ``WIDTH_PRECISION``, ``SHAPE_PRECISION`` of it."""
    d_long, d_short = (DEFAULT_PROFILE.stick(k) for k in ("long_stick", "short_stick"))
    w = round(_snap(width, d_long.width_mm, WIDTH_PRECISION), 1)
    sticks = (
        StickSize("long_stick", round(_snap(long_, d_long.length_mm, LENGTH_PRECISION), 1), w),
        StickSize("short_stick", round(_snap(short, d_short.length_mm, LENGTH_PRECISION), 1), w),
    )
    defaults = {sh.kind: sh for sh in DEFAULT_PROFILE.shapes}
    out = []
    for sh in shapes:
        d = defaults.get(sh.kind)
        if d is not None and _snap(sh.size_mm, d.size_mm, SHAPE_PRECISION) == d.size_mm:
            out.append(d)
        else:
            out.append(sh)
    return sticks, tuple(out)


def _names_for_reader(colours: dict[str, Lab]) -> tuple[tuple[str, Lab], ...]:
    """The shapes' colours the reader names shapes by (the profile's ``seen.colours``; they
    name, they do not classify: module docstring): each measured colour named after a
    default one and within ``COLOUR_PRECISION_DE`` of it is that default colour (the kit's
    own), other colours as measured, the default's names first; none when they are the
    default's colours (the reader's classes name them already)."""
    out: dict[str, Lab] = {}
    order = [n for n in DEFAULT_PROFILE.colours if n in colours]
    order += [n for n in colours if n not in DEFAULT_PROFILE.colours]
    for name in order:
        lab = colours[name]
        ref = DEFAULT_PROFILE.colours.get(name)
        near = ref is not None and math.dist(ref, lab) <= COLOUR_PRECISION_DE
        out[name] = ref if near and ref is not None else lab
    if out == DEFAULT_PROFILE.colours:
        return ()
    return tuple(out.items())


def _wood_for_reader(
    wood: Lab, colours: dict[str, Lab], pale_share: float, notes: list[str]
) -> Lab:
    """The wood colour to write (module docstring): the default's, unless the default's
    colour classes take ``PALE_SHARE`` or more of the sticks' pixels for canvas or shadow
    (``pale_share``: pale wood, which the reader would lose), and the wood is no shape
    colour's paint."""
    for name, lab in colours.items():
        if table_distance(wood, lab) < SAME_PAINT_DE:
            notes.append(
                f"the sticks are painted the {name} shapes' colour: the reader's wood colour "
                "is left at the default's (it tells sticks from shapes by their shape)"
            )
            return DEFAULT_PROFILE.wood_lab
    if pale_share >= PALE_SHARE:
        return wood
    if math.dist(wood, DEFAULT_PROFILE.wood_lab) > COLOUR_PRECISION_DE:
        notes.append(
            "the reader's wood colour is left at the default's: with it the reader already "
            "takes these sticks for pieces (and reads them as sticks by their shape)"
        )
    return DEFAULT_PROFILE.wood_lab


def _string_for_reader(seen: Lab, thickness: float, notes: list[str]) -> tuple[Lab, float]:
    """The string's colour and thickness to write (module docstring): its hue as measured;
    its lightness the default's, unless it is a grey the default's dark threshold would take
    for shadow (``STRING_GREY_L``: then at most ``STRING_L_MAX``); its thickness the default's
    within ``THICKNESS_PRECISION_MM``, else within ``STRING_MM_RANGE``."""
    d_l = DEFAULT_PROFILE.string_lab[0]
    big_l = d_l
    neutral = math.hypot(seen[1], seen[2]) < NEUTRAL_STRING_CHROMA
    if neutral and STRING_GREY_L[0] < seen[0] <= STRING_GREY_L[1]:
        big_l = min(seen[0], STRING_L_MAX)
    if abs(big_l - seen[0]) > 5.0:
        notes.append(
            f"the string's lightness L* {seen[0]:.0f} is written as {big_l:.0f}: the reader "
            "takes it for its dark threshold, and finds strings of any colour by their shape"
        )
    d_t = DEFAULT_PROFILE.string_thickness_mm
    t_lo, t_hi = STRING_MM_RANGE
    mm = (
        d_t
        if abs(thickness - d_t) <= THICKNESS_PRECISION_MM
        else float(np.clip(thickness, t_lo, t_hi))
    )
    return (round(big_l, 1), float(seen[1]), float(seen[2])), mm


def _pale_share(canvas: NDArray[np.uint8], s: float, sticks: NDArray[np.uint8]) -> float:
    """The share of the sticks' pixels (``sticks``, (H, W) uint8 0/1) that the default
    profile's colour classes (``segment.classify``) take for canvas or shadow."""
    if not sticks.any():
        return 0.0
    classes = classify(normalise_local(canvas, s), DEFAULT_PROFILE)[sticks > 0]
    return float(np.isin(classes, (CANVAS, GREY)).mean())


def _lab3(v: NDArray[np.float64]) -> Lab:
    return (round(float(v[0]), 1), round(float(v[1]), 1), round(float(v[2]), 1))


def learn_kit(
    frame: NDArray[np.uint8],
    *,
    intrinsics: Intrinsics | None = None,
    name: str = "learned",
    source: str = "",
) -> LearnedKit | Failure:
    """Measure the pieces laid apart on the board in ``frame`` ((H, W, 3) uint8 BGR) and
    build a kit profile (module docstring). A ``Failure`` says why not: no board, the light
    too dim, a piece missing (a stick length, a shape kind, the string), pieces touching."""
    check_frame(frame, "frame")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    view = find_board(frame, gray, intrinsics, PX_PER_MM)
    if isinstance(view, Failure):
        if float(np.percentile(gray, 99)) < MIN_CANVAS_LEVEL:
            return Failure(f"{view.reason} (the photo is very dark: light the board better)")
        return view
    s = view.px_per_mm
    level = canvas_level(view.canvas, s)
    if level < MIN_CANVAS_LEVEL:
        return Failure(
            f"the light is too dim: the canvas reads {level:.0f} of 255 (at least "
            f"{MIN_CANVAS_LEVEL:.0f} needed); light the board better or open the camera's "
            "exposure"
        )
    norm = normalise_local(view.canvas, s)
    lab = canvas_lab(norm)
    noise = _canvas_noise(norm, lab)
    if noise > MAX_CANVAS_NOISE:
        return Failure(
            f"the light is too dim: the canvas is too noisy to tell the pieces from it (its "
            f"level varies by {noise:.1f}%, at most {MAX_CANVAS_NOISE:.1f}%); light the board "
            "better"
        )
    result = _learn_canvas(view, norm, lab, name, source)
    if isinstance(result, Failure) and level < DIM_LEVEL:
        return Failure(
            f"{result.reason} (the light is dim: the canvas reads {level:.0f} of 255; in "
            "brighter light the pieces show better)"
        )
    return result


def _learn_canvas(
    view: BoardView, norm: NDArray[np.uint8], lab: NDArray[np.float32], name: str, source: str
) -> LearnedKit | Failure:
    """``learn_kit`` once the board is found and the light is good enough: the pieces
    measured on the canvas (``norm``, ``normalise_local``'s picture; ``lab``, its L*a*b*)."""
    s = view.px_per_mm
    fg = _foreground(lab, PIECE_DE)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    patches, at_edge = _patches(lab, fg, s)
    if at_edge:
        return Failure(
            f"pieces touch the canvas edge near {at_edge[0]} mm: lay every piece inside the "
            "canvas, apart from the others"
        )
    found = _sort(patches, s)
    if found.odd:
        places = ", ".join(str(c) for c in found.odd[:3])
        return Failure(
            f"pieces touch: near {places} mm (board mm from the canvas's top-left) a patch is "
            "no stick, shape or string alone; lay every piece apart, a finger's width between"
        )
    lengths = _lengths(found.sticks)
    if isinstance(lengths, Failure):
        return lengths
    short, long_ = lengths
    widths = [w for _, w, _ in found.sticks]
    width = float(np.median(widths))
    if max(widths) > WIDTH_RATIO * width:
        return Failure(
            f"pieces touch: a stick measures {max(widths):.0f} mm wide (the others "
            f"{width:.0f}): two sticks lie side by side; lay them apart"
        )
    kinds = {k for _, _, k in found.shapes}
    missing = [k.replace("_", "-") for k in SHAPE_KINDS if k not in kinds]
    if missing:
        return Failure(
            f"a piece is missing: no {', '.join(missing)} found; lay one shape of each kind "
            "(circle, square, triangle, half-circle) apart on the board"
        )
    string_parts = list(found.string)
    string_px = np.zeros_like(fg)
    for p in found.string_patches:
        x, y, w, h = p.box
        string_px[y : y + h, x : x + w] |= p.mask
    notes: list[str] = []
    if sum(length for _, length, _ in string_parts) < STRING_TOTAL_MM:
        taken = np.zeros_like(fg)
        for p in found.solid:
            x, y, w, h = p.box
            taken[y : y + h, x : x + w] |= p.mask
        light = _light_string(norm, taken, s)
        if light is None:
            return Failure(
                "a piece is missing: no string found; lay the string in a loose curve on "
                "the canvas, apart from the other pieces (a string of the canvas's own "
                "colour, a white one on a white canvas, does not show)"
            )
        string_parts = [light[0]]
        string_px = light[1]
        notes.append("the string is lighter than the canvas")
    wood_seen = _lab3(np.median(np.stack([c for _, _, c in found.sticks]), axis=0))
    learned_shapes, colours_seen, shape_report = _shapes(found.shapes)
    stick_px = np.zeros_like(fg)
    for p in found.stick_patches:
        x, y, w, h = p.box
        stick_px[y : y + h, x : x + w] |= cv2.erode(p.mask, np.ones((3, 3), np.uint8))
    pale = _pale_share(view.canvas, s, stick_px)
    wood = _wood_for_reader(wood_seen, colours_seen, pale, notes)
    area = sum(a for a, _, _ in string_parts)
    line = sum(length for _, length, _ in string_parts)
    thickness = area / max(line, 1.0)
    string_seen = _lab3(np.median(np.stack([c for _, _, c in string_parts]), axis=0))
    string_lab, string_mm = _string_for_reader(string_seen, thickness, notes)
    sticks, shape_sizes = _sizes_for_reader(short, long_, width, learned_shapes)
    profile = KitProfile(
        name=name,
        source=source or "learned by pictable kit learn picasso",
        sticks=sticks,
        wood_lab=wood,
        shapes=shape_sizes,
        colours=dict(DEFAULT_PROFILE.colours),
        string_thickness_mm=round(string_mm, 2),
        string_lab=string_lab,
        seen=SeenLook(wood_seen, string_seen, round(thickness, 2), _names_for_reader(colours_seen)),
    )
    return LearnedKit(
        profile,
        tuple(sorted(round(v, 1) for v, _, _ in found.sticks)),
        tuple(shape_report),
        round(thickness, 2),
        tuple(notes),
    )


def _shapes(
    shapes: list[tuple[ShapeGeometry, NDArray[np.float64], str]],
) -> tuple[tuple[ShapeSize, ...], dict[str, Lab], list[tuple[str, float, str]]]:
    """Kinds, sizes and colours of the shape patches (module docstring)."""
    by_kind: dict[str, list[float]] = {}
    for geom, _, kind in shapes:
        by_kind.setdefault(kind, []).append(_size_from_area(kind, geom.area_mm2))
    learned = []
    for kind in SHAPE_KINDS:
        if kind in by_kind:
            size = float(np.median(by_kind[kind]))
            learned.append(ShapeSize(kind, round(size, 1), round(shape_area_mm2(kind, size), 1)))
    medians = [colour for _, colour, _ in shapes]
    groups: list[list[int]] = []
    for i, m in enumerate(medians):
        for g in groups:
            if np.linalg.norm(medians[g[0]][1:] - m[1:]) < 12.0:
                g.append(i)
                break
        else:
            groups.append([i])
    colours: dict[str, Lab] = {}
    names: dict[int, str] = {}
    for g in groups:
        lab = np.median(np.stack([medians[i] for i in g]), axis=0)
        near = min(DEFAULT_PROFILE.colours.items(), key=lambda kv: math.dist(kv[1], lab))
        # the default's name within learning's precision of it, else the name the reader
        # gives a colour it does not know (``roles.hue_name``)
        name = near[0] if math.dist(near[1], lab) <= COLOUR_PRECISION_DE else hue_name(lab)
        base, k = name, 2
        while name in colours:
            name = f"{base}{k}"
            k += 1
        colours[name] = _lab3(lab)
        for i in g:
            names[i] = name
    report = [
        (kind, round(_size_from_area(kind, geom.area_mm2), 1), names[i])
        for i, (geom, _, kind) in enumerate(shapes)
    ]
    return tuple(learned), colours, report


def _size_from_area(kind: str, area: float) -> float:
    """The diameter or side (mm) of a shape of ``kind`` with ``area`` (mm^2)."""
    return math.sqrt(area / shape_area_mm2(kind, 1.0))


def run_kit_learn(
    images: list[str],
    out: str,
    *,
    camera: str | None = None,
    calibration: str | None = None,
    name: str | None = None,
) -> int:
    """The body of ``pictable kit learn picasso IMAGE|--camera INDEX --out FILE``: learn
    from the first photo (or a frame of the camera) in which the board and its pieces are
    found, write the profile to ``out``, print what was measured. Returns the exit status:
    0 written, 1 nothing learnable, 2 bad arguments or files."""
    import sys
    from pathlib import Path

    from calibration.files import load as load_calibration
    from calibration.result import CalibrationError

    def error(message: str, code: int = 2) -> int:
        print(f"pictable kit learn picasso: {message}", file=sys.stderr)
        return code

    if bool(images) == bool(camera is not None):
        return error("give IMAGE files or --camera INDEX (one of them)")
    intr = None
    if calibration:
        try:
            intr = load_calibration(calibration).intrinsics
        except CalibrationError as exc:
            return error(str(exc))
    frames: list[tuple[str, NDArray[np.uint8] | None]] = []
    if camera is not None:
        from vision.sources import SourceError, open_source

        try:
            src = open_source(camera)
            src.open()
            try:
                for _ in range(10):  # let the exposure settle
                    got = src.read()
                frames.append((f"camera {camera}", None if got is None else got.image))
            finally:
                src.close()
        except (SourceError, OSError, ValueError) as exc:
            return error(f"camera {camera}: {exc}")
    else:
        for path in images:
            img = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
            frames.append((path, img))
    reasons = []
    for label, frame in frames:
        if frame is None:
            reasons.append(f"{label}: cannot read the image")
            continue
        result = learn_kit(
            frame, intrinsics=intr, name=name or Path(out).stem, source=f"learned from {label}"
        )
        if isinstance(result, Failure):
            reasons.append(f"{label}: {result.reason}")
            continue
        try:
            result.profile.save(out)
        except OSError as exc:
            return error(f"cannot write {out}: {exc.strerror or exc}")
        p = result.profile
        sticks = ", ".join(f"{s.kind} {s.length_mm:g} x {s.width_mm:g} mm" for s in p.sticks)
        shapes = ", ".join(f"{s.kind} {s.size_mm:g} mm" for s in p.shapes)
        print(f"{out}: learned from {label}")
        print(f"  sticks: {sticks} (measured: {list(result.stick_lengths_mm)})")
        seen_names = [name for name, _ in p.seen.colours] if p.seen is not None else []
        print(f"  shapes: {shapes}; colours: {', '.join(seen_names or p.colours)}")
        if p.seen is not None:
            lab = ", ".join(f"{v:.0f}" for v in p.seen.wood_lab)
            print(f"  sticks' colour (L*a*b* relative to the canvas): {lab}")
            lab = ", ".join(f"{v:.0f}" for v in p.seen.string_lab)
            print(f"  string: {p.seen.string_thickness_mm:.1f} mm wide in the photo, colour {lab}")
        for note in result.notes:
            print(f"  note: {note}")
        return 0
    for r in reasons:
        print(f"pictable kit learn picasso: {r}", file=sys.stderr)
    return 1
