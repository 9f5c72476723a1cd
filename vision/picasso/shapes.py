"""Shapes on the canvas: flat patches of one of the kit's colours, named by their outline.

Each colour's mask is mended (its paler blended rim, and anything but canvas between two
parts of it - the string across it and the blends along the string - join it, then an
opening trims what sticks out), split into connected patches (two touching shapes of one
colour are cut between their two notches), and each patch of about a kit shape's size is
described in millimetres (``ShapeGeometry``): area,
how much of its minimum-area rectangle and of its smallest enclosing circle it fills, and
the rectangle's aspect. The kind is the nearest profile shape in these terms
(``classify_geometry``); the ONNX model of ``vision.picasso.shape_model`` may confirm or
overrule it (see there for when, and what it measurably changes). A patch far larger than
any shape is not a shape (a sleeve, a card): it is left to the occlusion check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso import pixel_model as pm
from vision.picasso.classes import FIRST_COLOUR, WOOD
from vision.picasso.masks import half_contrast, patches
from vision.picasso.pairs import merge_pairs
from vision.picasso.profile import KitProfile, ShapeSize
from vision.picasso.reading import Shape

#: The canvas class code of ``vision.picasso.segment`` (imported lazily there: no cycle).
CANVAS_CODE = 0
#: A patch smaller than this share of the smallest shape is noise.
MIN_AREA_SHARE = 0.35
#: A patch larger than this multiple of the largest shape is not one shape.
MAX_AREA_SHARE = 1.6
#: A patch of a shape colour at least this share of the smallest kit shape's area, too small
#: for a shape, may be one side of a shape cut by a stick (``colour_patches``' ``parts``).
PART_AREA_SHARE = 0.2


@dataclass(frozen=True)
class ShapeGeometry:
    """What a patch's outline measures: ``area_mm2``; ``rect_fill`` (area / minimum-area
    rectangle), ``circle_fill`` (area / smallest enclosing circle), ``aspect`` (short side /
    long side of that rectangle); ``centre_mm`` (x, y) and ``angle_deg`` of the rectangle."""

    area_mm2: float
    rect_fill: float
    circle_fill: float
    aspect: float
    centre_mm: tuple[float, float]
    angle_deg: float


def template_geometry(shape: ShapeSize) -> tuple[float, float, float, float]:
    """(area, rect_fill, circle_fill, aspect) of a perfect kit shape."""
    d = shape.size_mm
    if shape.kind == "circle":
        return (math.pi * d * d / 4, math.pi / 4, 1.0, 1.0)
    if shape.kind == "square":
        return (d * d, 1.0, 2 / math.pi, 1.0)
    if shape.kind == "triangle":
        area = math.sqrt(3) / 4 * d * d
        return (area, 0.5, area / (math.pi * d * d / 3), math.sqrt(3) / 2)
    return (math.pi * d * d / 8, math.pi / 4, 0.5, 0.5)  # half_circle


def classify_geometry(geom: ShapeGeometry, profile: KitProfile) -> tuple[str, float]:
    """(kind, distance) of the profile shape nearest to ``geom``: a weighted distance over
    log area, rectangle fill, circle fill and aspect (0 for a perfect match)."""
    best, best_d = "", math.inf
    for sh in profile.shapes:
        area, rf, cf, asp = template_geometry(sh)
        d = math.sqrt(
            (math.log(max(geom.area_mm2, 1.0) / area) / 0.25) ** 2
            + ((geom.rect_fill - rf) / 0.08) ** 2
            + ((geom.circle_fill - cf) / 0.08) ** 2
            + ((geom.aspect - asp) / 0.12) ** 2
        )
        if d < best_d:
            best, best_d = sh.kind, d
    return best, best_d


def measure(contour_px: NDArray[np.int32], s: float) -> ShapeGeometry:
    """Geometry of a patch outline given as an OpenCV contour in canvas pixels at ``s``."""
    area = float(cv2.contourArea(contour_px)) / (s * s)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(contour_px)
    _, radius = cv2.minEnclosingCircle(contour_px)
    rect_area = max(rw * rh, 1.0) / (s * s)
    circ_area = max(math.pi * radius * radius, 1.0) / (s * s)
    return ShapeGeometry(
        area_mm2=area,
        rect_fill=min(1.0, area / rect_area),
        circle_fill=min(1.0, area / circ_area),
        aspect=float(min(rw, rh) / max(rw, rh, 1e-6)),
        centre_mm=((cx + 0.5) / s, (cy + 0.5) / s),
        angle_deg=float(ang),
    )


@dataclass(frozen=True, eq=False)
class ShapePatch:
    """A patch of one shape colour: its ``colour`` name, outline ``contour_px`` (N, 1, 2)
    int32 in canvas pixels, ``mask`` (h, w) uint8 of its bounding ``box`` (x, y, w, h) in
    canvas pixels, and its geometry."""

    colour: str
    contour_px: NDArray[np.int32]
    mask: NDArray[np.uint8]
    box: tuple[int, int, int, int]
    geometry: ShapeGeometry


def _split_touching(
    contour: NDArray[np.int32], s: float, min_area_mm2: float
) -> list[NDArray[np.int32]]:
    """Two shapes of one colour that touch make one patch with two notches where they meet
    (each shape is convex): cut it between the two deepest notches."""
    area = cv2.contourArea(contour) / (s * s)
    if area < 1.4 * min_area_mm2 or len(contour) < 5:
        return [contour]
    hull_idx = cv2.convexHull(contour, returnPoints=False)
    if hull_idx is None or len(hull_idx) < 3:
        return [contour]
    hull_area = cv2.contourArea(cv2.convexHull(contour)) / (s * s)
    if area / max(hull_area, 1e-6) > 0.94:
        return [contour]
    try:
        defects = cv2.convexityDefects(contour, np.sort(hull_idx, axis=0))
    except cv2.error:
        return [contour]
    if defects is None or len(defects) < 2:
        return [contour]
    d = defects.reshape(-1, 4)
    deep = d[np.argsort(-d[:, 3])[:2]]
    if deep[1, 3] / 256.0 < 2.0 * s:  # the second notch is under 2 mm deep
        return [contour]
    a = tuple(int(v) for v in contour[deep[0, 2], 0])
    b = tuple(int(v) for v in contour[deep[1, 2], 0])
    x, y, w, h = cv2.boundingRect(contour)
    m = np.zeros((h + 2, w + 2), np.uint8)
    cv2.drawContours(m, [contour - [x - 1, y - 1]], -1, 1, cv2.FILLED)
    cv2.line(m, (a[0] - x + 1, a[1] - y + 1), (b[0] - x + 1, b[1] - y + 1), 0, 2)
    parts, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if len(parts) < 2:
        return [contour]
    shift = np.array([x - 1, y - 1], np.int32)
    return [np.asarray(p + shift, np.int32) for p in parts]


def colour_patches(
    labels: NDArray[np.uint8],
    code: int,
    colour: str,
    s: float,
    profile: KitProfile,
    parts: list[ShapePatch] | None = None,
) -> tuple[list[ShapePatch], list[NDArray[np.int32]]]:
    """The patches of one colour class ``code`` in ``labels`` ((H, W) uint8 classes of
    ``vision.picasso.segment``): those of about a shape's size, and the contours of those
    too large to be one (left to the occlusion check). Contours are in canvas pixels.
    Patches too small for a shape but at least ``PART_AREA_SHARE`` of the smallest are
    added to ``parts`` when it is given: the two sides of a shape a stick lies across
    (``join_split``)."""
    full = labels == code
    if not full.any():
        return [], []
    # Work in the colour's bounding box (with room for the morphology): colours are sparse.
    x0, y0, bw, bh = cv2.boundingRect(full.astype(np.uint8))
    pad = round(6 * s)
    x0, y0 = max(0, x0 - pad), max(0, y0 - pad)
    x1 = min(labels.shape[1], x0 + bw + 2 * pad)
    y1 = min(labels.shape[0], y0 + bh + 2 * pad)
    sub_labels = labels[y0:y1, x0:x1]
    mask = (sub_labels == code).astype(np.uint8)
    not_canvas = (sub_labels != CANVAS_CODE).astype(np.uint8)
    # The blended rim (paler, so it may read as wood) belongs to the shape...
    r = 2 * round(1.0 * s) + 1
    ring = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r))) & not_canvas
    # ...and so do the string across it and the blends along the string (anything not canvas
    # between two parts of the colour).
    k = 2 * round(2.5 * s) + 1
    closed = cv2.morphologyEx(
        mask | ring, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    mended = mask | ring | (closed & not_canvas)
    k = 2 * round(1.5 * s) + 1
    mended = cv2.morphologyEx(
        mended, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    contours, _ = cv2.findContours(
        mended, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0)
    )
    areas = [sh.area_mm2 for sh in profile.shapes] or [600.0]
    contours = [part for c in contours for part in _split_touching(c, s, min(areas))]
    lo = MIN_AREA_SHARE * min(areas) * s * s
    hi = MAX_AREA_SHARE * max(areas) * s * s
    patches: list[ShapePatch] = []
    too_big: list[NDArray[np.int32]] = []
    least = PART_AREA_SHARE * min(areas) * s * s
    for c in contours:
        a = cv2.contourArea(c)
        if a < lo and (parts is None or a < least):
            continue
        if a > hi:
            too_big.append(c)
            continue
        x, y, w, h = cv2.boundingRect(c)
        m = np.zeros((h, w), np.uint8)
        cv2.drawContours(m, [c - [x, y]], -1, 1, cv2.FILLED)
        patch = ShapePatch(colour, c, m, (x, y, w, h), measure(c, s))
        (patches if a >= lo or parts is None else parts).append(patch)
    return patches, too_big


#: Two parts of one colour this close (mm) may be one shape with a stick across it.
JOIN_GAP_MM = 11.0
#: ...when their convex hull is at most this share bare canvas (kit shapes are convex; the
#: string across a shape and the blurred rim along the stick leave some: 10% on a square
#: cut by a painted stick, run seed 3 board 93 of the development looks).
JOIN_MAX_CANVAS = 0.12
#: ...counting only canvas wider than this (mm): a line of the canvas's class as thin as the
#: string is the string across the shape (a white or pale one reads as canvas), no bare
#: canvas between two shapes.
JOIN_THIN_MM = 6.0
#: ...and, where a part too small for a shape joins, at most this share of another shape
#: colour.
JOIN_MAX_OTHER = 0.05
#: ...and that fits a kit shape better than the worse part does alone, or both parts fit
#: worse than this and the whole this well (``classify_geometry``'s distance).
JOIN_POOR_PART = 1.0
JOIN_FAIR_WHOLE = 2.5
#: ...or, with at least this much wood between the parts inside the hull (mm²: a stick
#: across the shape), the whole this well.
JOIN_ACROSS_STICK = 1.5
JOIN_STICK_MM2 = 60.0


def wide_bare(bare: NDArray[np.bool_], s: float) -> int:
    """How many pixels of ``bare`` ((h, w) bool: bare canvas inside a hull) lie in canvas
    wider than a thin line (``JOIN_THIN_MM``, at ``s`` px/mm): the string across a shape
    or the pale rim along a stick over it is no bare canvas between two shapes."""
    k = 2 * round(0.5 * JOIN_THIN_MM * s) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    return int(np.count_nonzero(cv2.morphologyEx(bare.astype(np.uint8), cv2.MORPH_OPEN, disc)))


def join_split(
    patches: list[ShapePatch],
    labels: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    parts: Sequence[ShapePatch] = (),
) -> list[ShapePatch]:
    """Patches of one colour that are the two sides of one shape with a stick laid across it
    (players do lay sticks over shapes): two patches within ``JOIN_GAP_MM`` of each other
    whose convex hull (kit shapes are convex) is almost no bare canvas (``labels``: the
    classes of ``vision.picasso.segment``), matches a kit shape well and better than the
    worse part does alone become one patch, the hull. (Not better than the better part: a
    square cut near a corner leaves a large part that passes for a half-circle.) Where both
    parts fit their own kind poorly (``JOIN_POOR_PART``), a whole that fits fairly
    (``JOIN_FAIR_WHOLE``) will do: a square cut in two rectangles by a thin line; and with a
    stick's wood between them (``JOIN_STICK_MM2``), one that fits well
    (``JOIN_ACROSS_STICK``): a square crossed at a slant. ``parts``,
    patches too small for a shape (``colour_patches``), join as the others do, and are
    dropped where they join none: a half-circle with a stick across its middle leaves two
    sides of about 180 mm² each."""
    if len(patches) + len(parts) < 2:
        return patches
    small = {id(p) for p in parts}
    out = merge_pairs(
        [*patches, *parts], lambda a, b, _every: _join(a, b, labels, s, profile, small)
    )
    return [p for p in out if id(p) not in small]


def _join(
    a: ShapePatch,
    b: ShapePatch,
    labels: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    small: set[int] | None = None,
) -> ShapePatch | None:
    gap = JOIN_GAP_MM * s
    ax, ay, aw, ah = a.box
    bx, by, bw, bh = b.box
    if ax > bx + bw + gap or bx > ax + aw + gap or ay > by + bh + gap or by > ay + ah + gap:
        return None
    # the nearest points of the two outlines
    pa = a.contour_px.reshape(-1, 2).astype(np.float32)
    pb = b.contour_px.reshape(-1, 2).astype(np.float32)
    d2 = ((pa[:, None, :] - pb[None, :, :]) ** 2).sum(2)
    if float(d2.min()) > gap * gap:
        return None
    hull = cv2.convexHull(np.concatenate([a.contour_px, b.contour_px]).astype(np.int32))
    x, y, w, h = cv2.boundingRect(hull)
    m = np.zeros((h, w), np.uint8)
    cv2.drawContours(m, [hull - [x, y]], -1, 1, cv2.FILLED)
    inside = m > 0
    bare = wide_bare((labels[y : y + h, x : x + w] == CANVAS_CODE) & inside, s)
    if bare > JOIN_MAX_CANVAS * int(np.count_nonzero(inside)):
        return None
    if small is not None and (id(a) in small or id(b) in small):
        # a part too small for a shape joins only across what is not another shape's colour
        # (one shape that the table reads in two colours leaves parts of each)
        ax0, ay0 = a.box[:2]
        own = labels[ay0 : ay0 + a.box[3], ax0 : ax0 + a.box[2]][a.mask > 0]
        code = int(np.bincount(own).argmax()) if own.size else -1
        sub = labels[y : y + h, x : x + w]
        other = (sub >= FIRST_COLOUR) & (sub != code) & inside
        if int(np.count_nonzero(other)) > JOIN_MAX_OTHER * int(np.count_nonzero(inside)):
            return None
    geom = measure(hull, s)
    _, d_joined = classify_geometry(geom, profile)
    d_a, d_b = (classify_geometry(p.geometry, profile)[1] for p in (a, b))
    if d_joined > 3.0:
        return None
    # (both parts fitting their kinds poorly and the whole a kit shape well enough: a shape
    # cut by a thin line, its two rectangles no half-circles)
    if d_joined >= max(d_a, d_b) and not (
        min(d_a, d_b) > JOIN_POOR_PART and d_joined <= JOIN_FAIR_WHOLE
    ):
        # (a stick across the whole, which fits a kit shape well: a square crossed at a
        # slant leaves two sides that each pass for a half-circle)
        if d_joined > JOIN_ACROSS_STICK:
            return None
        sides = np.zeros((h, w), np.uint8)
        for p in (a, b):
            px, py, pw, ph = p.box
            sides[py - y : py - y + ph, px - x : px - x + pw] |= p.mask
        wood = (labels[y : y + h, x : x + w] == WOOD) & inside & (sides == 0)
        if int(np.count_nonzero(wood)) < JOIN_STICK_MM2 * s * s:
            return None
    return ShapePatch(a.colour, np.asarray(hull, np.int32), m, (x, y, w, h), geom)


#: A patch too wide for a stick (``occlusion.wide_wood``: it holds a 32 mm disc) is a shape
#: when its outline fits a kit shape this well (``classify_geometry``'s distance; 0 is a
#: perfect fit) and it is this solid (area / convex hull area): a pale disc or square under
#: a glare, or of a colour the table calls wood, is no palm.
SOLID_FIT = 2.0
SOLID_FILL = 0.92


def solid_shapes(
    wide: NDArray[np.uint8],
    normalised: NDArray[np.uint8],
    canvas_level: float,
    s: float,
    profile: KitProfile,
) -> list[ShapePatch]:
    """The patches of ``wide`` ((H, W) uint8 0/1) that are kit shapes, outlined at half their
    contrast to the canvas in ``normalised`` (the canvas at ``canvas_level`` in each
    channel; the patch's colour its farthest half's median) and judged by that outline
    alone (``SOLID_FIT``, ``SOLID_FILL``): shape patches without a colour name (``colour``
    ""); the reader names them. The classes outline a faint piece raggedly; its contrast
    outlines it whole."""
    if not wide.any() or not profile.shapes:
        return []
    areas = [sh.area_mm2 for sh in profile.shapes]
    lo, hi = 0.35 * min(areas) * s * s, 1.3 * max(areas) * s * s
    n, lab, stats = patches(wide)
    pad = round(6.0 * s)
    h_img, w_img = wide.shape
    out: list[ShapePatch] = []
    for i in range(1, n):
        x, y, w, h, a = (int(v) for v in stats[i])
        if not lo <= a <= hi:
            continue
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(w_img, x + w + pad), min(h_img, y + h + pad)
        comp = (lab[y0:y1, x0:x1] == i).astype(np.uint8)
        sub = normalised[y0:y1, x0:x1].astype(np.float32) - np.float32(canvas_level)
        outlined = half_contrast(sub, comp, pad)
        if outlined is None:
            continue
        half = outlined[0]
        contours, _ = cv2.findContours(
            half, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x0, y0)
        )
        if len(contours) != 1:
            continue
        c = contours[0]
        area = cv2.contourArea(c)
        if not 0.75 * min(areas) * s * s <= area <= hi:
            continue
        hull = cv2.contourArea(cv2.convexHull(c))
        if hull <= 0 or area / hull < SOLID_FILL:
            continue
        geom = measure(c, s)
        if classify_geometry(geom, profile)[1] > SOLID_FIT:
            continue
        bx, by, bw, bh = cv2.boundingRect(c)
        mask = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(mask, [c - [bx, by]], -1, 1, cv2.FILLED)
        out.append(ShapePatch("", c, mask, (bx, by, bw, bh), geom))
    return out


#: A shape whose outline lies this share or more inside another shape's outline is part of
#: it, not a shape of its own: flat cut-outs of one size cannot lie one within another (a
#: shape's lighter middle or its rim found as a second patch of the same colour: a teal
#: half-circle read as a half-circle and a "C" inside it, wide looks run seed 5, board 20).
NESTED_SHARE = 0.5


def without_nested(shapes: list[Shape]) -> list[Shape]:
    """``shapes`` less each one lying ``NESTED_SHARE`` or more inside another's outline
    (their convex hulls); of two such, the one named with more confidence stays (the larger
    when equal)."""
    if len(shapes) < 2:
        return list(shapes)
    hulls = [cv2.convexHull(np.asarray(sh.outline_mm, np.float32)) for sh in shapes]
    areas = [float(cv2.contourArea(h)) for h in hulls]
    rank = sorted(range(len(shapes)), key=lambda k: (-shapes[k].confidence, -areas[k]))

    def nested(k: int, j: int) -> bool:
        smaller = min(areas[k], areas[j])
        common, _ = cv2.intersectConvexConvex(hulls[k], hulls[j])
        return smaller > 0 and common >= NESTED_SHARE * smaller

    kept: list[int] = []
    for k in rank:
        if not any(nested(k, j) for j in kept):
            kept.append(k)
    return [shapes[k] for k in sorted(kept)]


#: Patches of the shapes' colours smaller than this share of the smallest kit shape, where
#: the pixel model sees a stick and the colour table wood round them, are unknown to the
#: stick search (``stick_specks``).
SPECK_AREA_SHARE = PART_AREA_SHARE
#: The share of wood in the 2 mm round a speck's pixel that makes it a speck in wood.
SPECK_WOOD_SHARE = 0.5
#: ... and no larger patch of a shape colour within this distance (a shape's rim or side).
SPECK_CLEAR_MM = 4.0


def stick_specks(
    colour_px: NDArray[np.uint8],
    wood: NDArray[np.uint8],
    model_classes: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: the pixels of small patches of a shape colour (``colour_px``, any
    colour) that the pixel model (``model_classes``, its classes at half resolution) calls
    stick and that lie in the colour table's ``wood`` (``SPECK_WOOD_SHARE`` of the pixels
    within 2 mm). Reddish wood reads as specks of the red shapes' colour in the colour
    table, and each speck is a hole in the wood the stick search measures across (a stick
    whose middle is speckled is not wood from side to side); such a speck is not a shape.
    Patches of a shape's size, the sides of a shape a stick lies across, and specks among
    the colour of a shape or the string are left as they are."""
    h, w = colour_px.shape
    stick = cv2.resize(
        (model_classes == pm.STICK).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST
    )
    out = np.zeros((h, w), np.uint8)
    if not (colour_px & stick).any():
        return out
    areas = [sh.area_mm2 for sh in profile.shapes] or [600.0]
    _n, lab, stats = patches(colour_px)
    small = stats[:, cv2.CC_STAT_AREA] < SPECK_AREA_SHARE * min(areas) * s * s
    small[0] = False
    k = 2 * round(2.0 * s) + 1
    around = cv2.boxFilter(wood.astype(np.float32), -1, (k, k), normalize=True)
    big = (~small[lab] & (lab > 0)).astype(np.uint8)
    k = 2 * round(SPECK_CLEAR_MM * s) + 1
    near = cv2.dilate(big, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    np.logical_and(
        small[lab],
        (stick > 0) & (around >= SPECK_WOOD_SHARE) & (near == 0),
        out=out,
        casting="unsafe",
    )
    return out
