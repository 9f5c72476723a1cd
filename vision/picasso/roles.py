"""Pieces by their shape first, their colour second: each patch of one colour class takes
the role its geometry says, whatever class its colour gave it.

The colour classes of ``segment`` come from the kit profile's colours, and a kit is not
always the kit of KIT.md: sticks may be dark wood, stained or painted in a shape's colour,
shapes any saturated colour. What does not change is the pieces' geometry (KIT.md): sticks
are bars 6-10 mm wide and at least 50 mm long, shapes are compact patches 20-40 mm across,
the string a line under 4 mm thick. So every patch of a piece colour (wood, dark, a shape
colour, or a colour of none of the kit's) is looked at whole:

- **a shape's body**: the part of the patch where a disc ``BLOB_MM`` wide fits (a shape's
  body; a stick is too narrow, and a heap of sticks keeps only its crossing) makes most of
  it and is about a shape's size: that part takes a shape colour (its class if it is one;
  otherwise the nearest profile colour within ``SAME_COLOUR_DE``, or a new colour named by
  its hue), and what sticks out of it as long as a stick piece becomes wood (a stick of the
  same paint under the shape);
- **a bar**: a patch that holds no shape's body, is wider than the string (a disc of
  ``CORE_MM`` fits in it), about a stick wide along its middle, and at least a stick piece
  long becomes wood (dark wood read as dark, sticks painted red read as red);
- anything else keeps its class: the string (thin), a palm or a sleeve (far larger than a
  shape, left to the occlusion check), a sliver of a shape beside a stick.

Where a patch lies on a bar is measured on the whole ink of the canvas, not on one colour
class (``ink_bars``): everything ``INK_DE`` from the canvas but dark neutral things, less
what is too thin for a stick, in patches at least ``BAR_MIN_MM`` long, about a stick wide
along their ridge, with little shape's body, and, if no larger than one stick, straight.
The same bars make a pale stick wood where its colour read as canvas or shadow
(``pale_bars``: light wood on a cream canvas).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.masks import opened, patches
from vision.picasso.profile import KitProfile, Lab

#: A disc this wide (mm) fits in every kit shape's body (the triangle's inscribed circle is
#: 23 mm) and in no stick (6-10 mm wide).
BLOB_MM = 14.0
#: A disc this wide (mm) fits in a stick, not in the string (at most 4 mm thick).
CORE_MM = 5.0
#: A patch this much body (share of its area) is a shape (a heap of sticks keeps about a
#: fifth of itself; a shape with a stick of its colour under it, two thirds).
BODY_SHARE = 0.45
#: The same for a patch of the sticks' colour (a heap's crossing is a round body).
WOOD_BODY_SHARE = 0.75
#: Sticks' half width along their middle, mm: the median distance to the edge along a
#: bar's ridge lies in this range (6-10 mm wide, blurred).
BAR_HALF_MM = (2.4, 5.8)
#: A bar at least this long (mm, its box's diagonal) may be a stick piece.
BAR_MIN_MM = 35.0
#: A patch of a colour class this long (mm, its box's diagonal), this much of it on a bar,
#: is a piece of a stick (the string across a stick cuts it in pieces).
PIECE_MIN_MM = 25.0
BAR_SHARE = 0.7
#: A patch no larger than one short stick with its shadow (mm^2) must be one straight bar:
#: its rectangle at most this wide (mm) and this full (a crescent of a shape cut off by the
#: string is no larger either; two crossed sticks are).
SINGLE_BAR_MM2 = 650.0
SINGLE_BAR_MIN_MM = 42.0
BAR_WIDE_MM = 14.0
BAR_FILL = 0.65
#: A shape colour is sticks' paint where one of its patches is a bar at least this share of
#: the shortest stick long (a strip of a 35 mm square cut off by the string is no such bar).
WHOLE_STICK_SHARE = 0.85
#: Dark bars are looked for only where this much dark (mm^2) holds a disc this wide (mm):
#: more than the string's crossings.
DARK_PRECHECK_MM = 2.0
DARK_PRECHECK_MM2 = 60.0
#: A dark bar with more than this share of its surround grey is a fold or the deep part of a
#: grey sleeve or a shadow, not a dark stick.
DARK_BAR_GREY_RING = 0.4
#: A patch within this (mm) of the canvas edge is cut by it: not made wood by its shape.
EDGE_MM = 2.0
#: A colour this close (CIE76 delta E) to a profile colour is that colour.
SAME_COLOUR_DE = 30.0

#: Names for the colours of shapes the profile does not know: L*a*b* of each hue (relative
#: to the canvas); the nearest gives the name.
HUES: dict[str, Lab] = {
    "red": (45.0, 62.0, 42.0),
    "orange": (62.0, 45.0, 65.0),
    "yellow": (85.0, -3.0, 80.0),
    "green": (55.0, -50.0, 38.0),
    "teal": (55.0, -30.0, -8.0),
    "blue": (40.0, 15.0, -55.0),
    "purple": (35.0, 45.0, -35.0),
    "pink": (65.0, 50.0, -5.0),
    "brown": (40.0, 20.0, 30.0),
    "black": (15.0, 0.0, 0.0),
    "white": (97.0, 0.0, 0.0),
    "grey": (60.0, 0.0, 0.0),
}


def hue_name(lab: NDArray[np.floating]) -> str:
    """The name in ``HUES`` nearest to one L*a*b* colour (lightness counted half)."""
    best, best_d = "colour", math.inf
    for name, (pl, pa, pb) in HUES.items():
        d = math.hypot(0.5 * (float(lab[0]) - pl), float(lab[1]) - pa, float(lab[2]) - pb)
        if d < best_d:
            best, best_d = name, d
    return best


def assign_roles(
    labels: NDArray[np.uint8],
    normalised: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    colour_names: tuple[str, ...],
    codes: dict[str, int],
    bars: InkBars,
) -> tuple[NDArray[np.uint8], tuple[str, ...]]:
    """``labels`` ((H, W) uint8 classes of ``segment`` at ``s`` px/mm) with each patch given
    the class of its role (module docstring), and the colour names extended by the colours
    it had to name. ``codes``: the class codes ``WOOD``, ``DARK``, ``GREY``, ``OTHER``,
    ``FIRST_COLOUR`` of ``segment`` (passed in: no import cycle); ``bars``: the bars seen
    whatever their colour (``ink_bars``): a patch is a bar where it lies on one."""
    from vision.picasso.segment import lab_of  # (segment imports this module)

    wood_code, dark_code, first = codes["WOOD"], codes["DARK"], codes["FIRST_COLOUR"]
    piece_codes = [wood_code, dark_code, codes["OTHER"]]
    piece_codes += [first + k for k in range(len(colour_names))]
    present = np.bincount(labels.ravel(), minlength=256)
    names = list(colour_names)
    out = labels
    areas = [sh.area_mm2 for sh in profile.shapes] or [600.0]
    smallest, largest = min(areas), max(areas)
    piece_px = PIECE_MIN_MM * s
    k_body = max(3, round(BLOB_MM * s / 2)) | 1  # on the half-size copy
    k_core = max(3, round(CORE_MM * s)) | 1
    body_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_body, k_body))
    core_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_core, k_core))
    h, w = labels.shape
    on_bar = cv2.resize(bars.mask, (w, h), interpolation=cv2.INTER_NEAREST)
    # Dark bars (dark wood, black paint) are not in the ink bars, which leave dark neutral
    # things to the string, and their colour falls between dark and wood: wood and dark
    # together, less what is too thin for a stick, judged by their own ridge.
    k3 = max(3, round(DARK_PRECHECK_MM * s)) | 1
    dark_thick = opened(
        (labels == dark_code).astype(np.uint8),
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k3, k3)),
    )
    if int(dark_thick.sum()) >= DARK_PRECHECK_MM2 * s * s:
        out = _dark_bars(labels, wood_code, dark_code, codes["GREY"], core_kernel, s)
        present = np.bincount(out.ravel(), minlength=256)
    for code in piece_codes:
        if present[code] < 0.5 * smallest * s * s * 0.35:
            continue
        mask = (out == code).astype(np.uint8)
        small = np.ascontiguousarray(mask[::2, ::2])
        body_small = opened(small, body_kernel)
        if code == wood_code and not body_small.any():
            continue  # wood with no shape's body: sticks, as its colour says
        if not _worth_a_look(small, body_small, s / 2, code, codes, smallest):
            continue
        # a stick's width fits in the patch somewhere: not the string alone
        core = opened(mask, core_kernel)
        if not core.any():
            continue
        body = cv2.resize(body_small, (w, h), interpolation=cv2.INTER_NEAREST) & mask
        n, lab, stats = patches(mask)
        area = stats[:, cv2.CC_STAT_AREA].astype(np.float64) / (s * s)
        core_px = np.bincount(lab[core > 0], minlength=n)
        body_px = np.bincount(lab[body > 0], minlength=n).astype(np.float64) / (s * s)
        bar_px = np.bincount(lab[on_bar > 0], minlength=n).astype(np.float64) / (s * s)
        extent = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        at_edge = _at_edge(stats, labels.shape, s)
        own: NDArray[np.float64] | None = None  # bars by their own ridge, when asked
        # A kit shape's colour is sticks' paint only where some patch of it is a whole stick
        # by itself (a shape cut by the string beside a stick leaves stick-like slivers).
        painted = code < first or code == codes["OTHER"]
        # (asked only when some patch could be a bar: long enough, no shape's body)
        could = (core_px > 0) & (extent >= piece_px) & (body_px < BODY_SHARE * area) & ~at_edge
        could[0] = False
        if not painted and could.any():
            own = _own_bars(mask, lab, n, stats, s)
            whole = own * (body_px < BODY_SHARE * area)
            shortest = min(st.length_mm for st in profile.sticks)
            painted = any(
                _long_side(lab, stats[i], int(i)) / s >= WHOLE_STICK_SHARE * shortest
                for i in np.flatnonzero(whole)
                if i > 0
            )
        for i in range(1, n):
            if core_px[i] == 0:
                continue  # the string, or a speck
            if area[i] > 2.5 * largest and body_px[i] > 0.3 * area[i]:
                continue  # far larger than a shape and solid: a palm or a sleeve
            # (a heap of sticks crossing at one point holds a round body too: a patch of the
            # sticks' own colour is a shape only if it is nearly all body)
            share = WOOD_BODY_SHARE if code == wood_code else BODY_SHARE
            is_shape = body_px[i] >= share * area[i] and body_px[i] >= 0.35 * smallest
            if not is_shape:
                if (
                    code == wood_code
                    or not painted
                    or at_edge[i]
                    or extent[i] < piece_px
                    # a small piece must be a straight one itself (not a shape's corner cut
                    # off by the string beside a stick, which joins the stick's bar)
                    or (area[i] <= SINGLE_BAR_MM2 and not _straight(lab, stats[i], i, s))
                ):
                    continue
                if bar_px[i] < BAR_SHARE * area[i]:
                    # not on a bar of the whole ink (a shape touching it makes that patch
                    # no bar): a bar by its own ridge
                    if own is None:
                        own = _own_bars(mask, lab, n, stats, s)
                    if not own[i]:
                        continue
            x, y, bw, bh = stats[i, :4]
            box = (slice(y, y + bh), slice(x, x + bw))
            sub = lab[box] == i
            if out is labels:
                out = labels.copy()
            if not is_shape:  # a bar (or a piece of one, the string across it): wood
                out[box][sub] = wood_code
                continue
            part = sub & (body[box] > 0)
            if code < first:  # wood, dark or another colour: a shape colour now
                out[box][part] = colour_code(lab_of(normalised[box], part), profile, names, first)
            # what sticks out of the body along a bar is wood (a stick of its paint under it)
            grow = cv2.dilate(part.astype(np.uint8), np.ones((5, 5), np.uint8))
            rest = (sub & (grow == 0)).astype(np.uint8)
            if rest.any() and painted:
                m, rl, rs, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
                rest_bar = np.bincount(rl[on_bar[box] > 0], minlength=m)
                rest_own = _own_bars(rest, rl, m, rs, s, PIECE_MIN_MM, PIECE_MIN_MM)
                for j in range(1, m):
                    long_enough = np.hypot(rs[j, 2], rs[j, 3]) >= piece_px
                    on = rest_bar[j] >= BAR_SHARE * rs[j, cv2.CC_STAT_AREA] or rest_own[j]
                    if long_enough and on:
                        out[box][rl == j] = wood_code
    return out, tuple(names)


def _worth_a_look(
    small: NDArray[np.uint8],
    body_small: NDArray[np.uint8],
    s2: float,
    code: int,
    codes: dict[str, int],
    smallest: float,
) -> bool:
    """Whether a class's patches (``small``, its mask on the half-size copy at ``s2`` px/mm;
    ``body_small`` their bodies) may change role at all: a patch with a shape's body, in a
    class that is no shape colour (wood needs ``WOOD_BODY_SHARE`` of it); or one long enough
    for a stick piece with little body. The full-size work is done only then."""
    n, lab, stats = patches(small)
    if n <= 1:
        return False
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64) / (s2 * s2)
    body = np.bincount(lab[body_small > 0], minlength=n) / (s2 * s2)
    extent = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) / s2
    if code < codes["FIRST_COLOUR"]:
        share = WOOD_BODY_SHARE if code == codes["WOOD"] else BODY_SHARE
        shape = (body >= share * area) & (body >= 0.35 * smallest)
        if bool(shape[1:].any()):
            return True
        if code == codes["WOOD"]:
            return False
    bar = (extent >= PIECE_MIN_MM) & (body < BODY_SHARE * area)
    return bool(bar[1:].any())


def _dark_bars(
    labels: NDArray[np.uint8],
    wood_code: int,
    dark_code: int,
    grey_code: int,
    core_kernel: NDArray[np.uint8],
    s: float,
) -> NDArray[np.uint8]:
    """``labels`` with the dark pixels of mostly dark bars (``_own_bars`` on wood and dark
    together, less what is thinner than ``CORE_MM``) made wood; ``labels`` itself when
    there are none."""
    both = ((labels == wood_code) | (labels == dark_code)).astype(np.uint8)
    thick = opened(both, core_kernel)
    if not thick.any():
        return labels
    n, lab, stats = patches(thick)
    is_bar = _own_bars(thick, lab, n, stats, s)
    if not is_bar.any():
        return labels
    # (mostly dark: the string where it crosses a light stick stays the string; and not cut
    # by the canvas edge: the dark end of a sleeve coming in over it)
    dark_px = np.bincount(lab[labels == dark_code], minlength=n)
    is_bar *= dark_px >= 0.5 * stats[:, cv2.CC_STAT_AREA]
    is_bar *= ~_at_edge(stats, labels.shape, s)
    # nor in a grey surround: the dark folds of a grey sleeve, a shadow's deepest part
    if is_bar.any():
        k = 2 * max(1, round(1.5 * s)) + 1
        around = cv2.dilate(lab.astype(np.uint16), np.ones((k, k), np.uint8))
        ring = (thick == 0) & (around > 0)
        ring_lab = around[ring]
        grey_px = np.bincount(ring_lab[labels[ring] == grey_code], minlength=n)
        ring_px = np.bincount(ring_lab, minlength=n)
        is_bar *= grey_px <= DARK_BAR_GREY_RING * np.maximum(ring_px, 1)
    hit = np.take(is_bar.astype(np.uint8), lab) > 0
    turn = hit & (labels == dark_code)
    if not turn.any():
        return labels
    out = labels.copy()
    out[turn] = wood_code
    return out


def _own_bars(
    mask: NDArray[np.uint8],
    lab: NDArray[np.int32],
    n: int,
    stats: NDArray[np.int32],
    s: float,
    min_mm: float = BAR_MIN_MM,
    single_min_mm: float = SINGLE_BAR_MIN_MM,
    *,
    among: NDArray[np.bool_] | None = None,
    widest: float = BAR_HALF_MM[1],
) -> NDArray[np.float64]:
    """(n,) 1.0 for each patch of ``mask`` (labelled ``lab``, ``stats``; only those of
    ``among`` if given) that is a bar by its own shape: at least ``min_mm`` long, its median
    half width along its ridge from ``BAR_HALF_MM[0]`` to ``widest`` (mm), and if no larger
    than one stick (a piece of a shape cut off by the string may be a bar's worth), straight
    and at least ``single_min_mm`` long; else 0.0."""
    out = np.zeros(n, np.float64)
    extent = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) / s
    area = stats[:, cv2.CC_STAT_AREA] / (s * s)
    wanted = extent >= min_mm
    if among is not None:
        wanted &= among
    cand = np.flatnonzero(wanted)
    cand = cand[cand > 0]
    if not len(cand):
        return out
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3) / s
    ridge = (dist >= cv2.dilate(dist, np.ones((3, 3), np.uint8))) & (dist > 0)
    ridge_lab, ridge_dist = lab[ridge], dist[ridge]
    for i in cand:
        half = ridge_dist[ridge_lab == i]
        if len(half) < 8 or not BAR_HALF_MM[0] <= float(np.median(half)) <= widest:
            continue
        if area[i] <= SINGLE_BAR_MM2 and (
            extent[i] < single_min_mm or not _straight(lab, stats[i], int(i), s)
        ):
            continue
        out[i] = 1.0
    return out


def colour_code(lab: NDArray[np.float32], profile: KitProfile, names: list[str], first: int) -> int:
    """The class code for a shape of mean colour ``lab`` ((N, 3) pixels): the profile colour
    within ``SAME_COLOUR_DE``, else a colour named by its hue (added to ``names``)."""
    mean = lab.mean(0) if len(lab) else np.zeros(3, np.float32)
    best, best_d = "", math.inf
    for name, ref in profile.colours.items():
        d = float(np.linalg.norm(mean - np.asarray(ref, np.float32)))
        if d < best_d:
            best, best_d = name, d
    name = best if best_d <= SAME_COLOUR_DE else hue_name(mean)
    if name not in names:
        names.append(name)
    return first + names.index(name)


#: Ink narrower than this (mm) is no stick (the string, 1.5-4 mm, with its shadow).
THIN_LINE_MM = 4.7
#: A pixel this far (CIE76 delta E) from the canvas is something on it.
INK_DE = 12.0


@dataclass(frozen=True, eq=False)
class InkBars:
    """The bars seen on a half-size copy of the normalised canvas, by their shape alone:

    - ``mask``: (h, w) uint8 0/1 pixels of every patch of ink (anything ``INK_DE`` from the
      canvas and not dark) at least ``BAR_MIN_MM`` long, about a stick wide along its
      ridge, with no shape's body;
    - ``patch``: (h, w) int32 the patch numbers of ``mask`` (0 elsewhere)."""

    mask: NDArray[np.uint8]
    patch: NDArray[np.int32]


def ink_bars(
    normalised: NDArray[np.uint8], s: float, index: NDArray[np.uint16] | None = None
) -> InkBars:
    """The bars of the canvas (``InkBars``), found whatever their colour (``index``: the
    pixels' lookup-table entries, ``segment.lut_index(normalised)``, if already known)."""
    from vision.picasso.segment import levels_lab, lut_index

    # anything on the canvas but dark neutral things (the string, a black cord: their own
    # classes find them), less what is too thin for a stick (the string of any colour)
    if index is None:
        index = lut_index(normalised)
    ink_full = np.take(_ink_lut(levels_lab()), index)
    k = max(3, round(THIN_LINE_MM * s)) | 1
    ink_full = opened(ink_full, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ink = np.ascontiguousarray(ink_full[::2, ::2])
    s2 = s / 2
    none = InkBars(np.zeros_like(ink), np.zeros(ink.shape, np.int32))
    if not ink.any():
        return none
    k_body = max(3, round(BLOB_MM * s2)) | 1
    body = opened(ink, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k_body, k_body)))
    n, lab_img, stats = patches(ink)
    extent = np.hypot(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) / s2
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    body_px = np.bincount(lab_img[body > 0], minlength=n)
    ok = (extent >= BAR_MIN_MM) & (body_px < BODY_SHARE * area) & (area < 15000.0 * s2 * s2)
    ok[0] = False
    if not ok.any():
        return none
    # (a shadow along it widens a bar of the whole ink by up to 0.7 mm a side)
    ok &= _own_bars(ink, lab_img, n, stats, s2, among=ok, widest=BAR_HALF_MM[1] + 0.7) > 0
    keep = np.take(ok.view(np.uint8), lab_img)
    patch = np.where(keep > 0, lab_img, 0).astype(np.int32)
    return InkBars(keep.astype(np.uint8), patch)


def _at_edge(stats: NDArray[np.int32], shape: tuple[int, ...], s: float) -> NDArray[np.bool_]:
    """(n,) whether each patch's box reaches within ``EDGE_MM`` of the canvas edge (cut by it:
    something coming in, not a piece lying on the canvas)."""
    m = EDGE_MM * s
    h, w = shape[:2]
    x, y = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    x1 = x + stats[:, cv2.CC_STAT_WIDTH]
    y1 = y + stats[:, cv2.CC_STAT_HEIGHT]
    return np.asarray((x <= m) | (y <= m) | (x1 >= w - m) | (y1 >= h - m))


def _long_side(lab_img: NDArray[np.int32], stat: NDArray[np.int32], i: int) -> float:
    """The long side (pixels) of patch ``i``'s minimum-area rectangle."""
    x, y, bw, bh = (int(v) for v in stat[:4])
    pts = cv2.findNonZero((lab_img[y : y + bh, x : x + bw] == i).astype(np.uint8))
    if pts is None:
        return 0.0
    (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
    return float(max(rw, rh))


_INK_LUT: NDArray[np.uint8] | None = None


def _ink_lut(lab: NDArray[np.float32]) -> NDArray[np.uint8]:
    """(32768,) uint8 1 for the LUT colours (``lab``: their L*a*b*, relative to the canvas)
    that are ink: ``INK_DE`` or more from the canvas, and not dark and neutral."""
    global _INK_LUT
    if _INK_LUT is None:
        light, chroma = lab[:, 0], np.hypot(lab[:, 1], lab[:, 2])
        de = np.sqrt((light - 100.0) ** 2 + chroma**2)
        _INK_LUT = ((de >= INK_DE) & ((light >= 40.0) | (chroma >= 25.0))).astype(np.uint8)
    return _INK_LUT


def _straight(lab_img: NDArray[np.int32], stat: NDArray[np.int32], i: int, s: float) -> bool:
    """Whether patch ``i`` of ``lab_img`` (at ``s`` px/mm, ``stat`` its stats row) is one
    straight bar: its minimum-area rectangle at most ``BAR_WIDE_MM`` wide and filled to
    ``BAR_FILL`` or more."""
    x, y, bw, bh = (int(v) for v in stat[:4])
    pts = cv2.findNonZero((lab_img[y : y + bh, x : x + bw] == i).astype(np.uint8))
    if pts is None:
        return False
    (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
    short = min(rw, rh) + 1.0
    fill = float(stat[cv2.CC_STAT_AREA]) / max((max(rw, rh) + 1.0) * short, 1.0)
    return short / s <= BAR_WIDE_MM and fill >= BAR_FILL


def pale_bars(
    labels: NDArray[np.uint8], bars: InkBars, neutral: tuple[int, ...], wood_code: int
) -> NDArray[np.uint8]:
    """``labels`` with the bars whose colour read as canvas or shadow (classes ``neutral``)
    for the most part made wood: a pale stick on a tinted canvas differs from it in
    lightness more than in colour. Bars mostly read as wood already are left as they are
    (their shadows stay shadows)."""
    if not bars.mask.any():
        return labels
    h, w = labels.shape
    small = labels[::2, ::2][: bars.mask.shape[0], : bars.mask.shape[1]]
    n = int(bars.patch.max()) + 1
    inside = bars.patch > 0
    total = np.bincount(bars.patch[inside], minlength=n)
    is_neutral = np.isin(small, neutral) & inside
    pale = np.bincount(bars.patch[is_neutral], minlength=n)
    turn = np.zeros(n, np.uint8)
    turn[1:] = pale[1:] > 0.5 * np.maximum(total[1:], 1)
    if not turn.any():
        return labels
    sel_small = np.take(turn, bars.patch)
    sel = cv2.resize(sel_small, (w, h), interpolation=cv2.INTER_NEAREST) > 0
    out = labels.copy()
    out[sel & np.isin(labels, neutral)] = wood_code
    return out
