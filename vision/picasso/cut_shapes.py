"""A shape with a stick laid across it, where the pixel model reads it as something else.

A stick lying over the middle of a shape cuts it in two sides of the shape's colour, each
a wedge or a slice 10-20 mm wide. The pixel model, which judges by width and outline, can
call such sides stick (a triangle's or a half-circle's halves: issue 25's hard case 5, the
other way up), and the stick search then fits short sticks to them and no shape is
counted; or it can call the stick's wood over the shape canvas, and the long stick is read
as two short ones, one each side. Geometry says otherwise: the sides, taken with what lies
between them (the stick: anything but bare canvas), make one compact piece of a shape's
size, which no stick or heap of painted sticks makes.

``mend_cut_shapes`` finds such a whole, for each shape colour of the colour table: its sides
(the pixels of that colour, whether the model calls them shape or stick), grouped within
``BRIDGE_MM`` of each other; at least two sides of ``SIDE_SHARE`` of the smallest kit shape;
wood between them (``shapes.JOIN_STICK_MM2``: the table's wood, or what the model calls
stick in another colour); their convex hull a kit shape's size (``AREA_RANGE``), bare canvas
wider than a thin line over no more than ``1 - MIN_SOLIDITY`` of it, and not a bar (its
least rectangle at least ``MIN_SIDE_WIDTHS`` sticks wide and at most ``MAX_ASPECT`` times as
long as wide). There, the pixels the model calls stick take the shape's colour, and those it
calls canvas where the table sees wood are wood again. The shapes' own step
(``shapes.join_split``) then joins the sides across the stick and names the shape, and the
stick search finds the stick whole.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.classes import CANVAS, FIRST_COLOUR, WOOD
from vision.picasso.masks import patches
from vision.picasso.profile import KitProfile
from vision.picasso.shapes import JOIN_STICK_MM2, wide_bare

#: Sides of one colour this close (mm) are grouped: a stick's width and its blurred rims.
BRIDGE_MM = 11.0
#: The whole's area (its hull less bare canvas), as shares of the kit's smallest and
#: largest shape's.
AREA_RANGE = (0.6, 1.3)
#: ... at least this share of its convex hull (a V or an X of painted sticks leaves bare
#: canvas between its arms).
MIN_SOLIDITY = 0.88
#: Each of the two sides (or more) at least this share of the kit's smallest shape's area.
SIDE_SHARE = 0.15
#: ... its least rectangle's shorter side at least this many stick widths, and its longer
#: side at most this many times the shorter (a half-circle is 2; two painted sticks side by
#: side, 3 to 6).
MIN_SIDE_WIDTHS = 1.8
MAX_ASPECT = 2.3


def mend_cut_shapes(
    labels: NDArray[np.uint8], table: NDArray[np.uint8], s: float, profile: KitProfile
) -> NDArray[np.uint8]:
    """``labels`` (the pixel model's roles, ``segment.model_labels``) mended where a stick
    lies across a shape (module docstring): the stick pixels of the shape's sides given its
    colour, the canvas pixels of the stick over it wood. ``table``: the colour table's
    classes (``segment.classify``) of the same picture; ``s`` px/mm."""
    coloured = (labels == WOOD) & (table >= FIRST_COLOUR)
    # the stick's wood over a shape, which the model may call canvas
    lost = (labels == CANVAS) & (table == WOOD)
    if not profile.shapes or not (coloured.any() or lost.any()):
        return labels
    areas = [sh.area_mm2 for sh in profile.shapes]
    lo, hi = AREA_RANGE[0] * min(areas) * s * s, AREA_RANGE[1] * max(areas) * s * s
    width = profile.stick_width_mm * s
    least = SIDE_SHARE * min(areas) * s * s
    band = JOIN_STICK_MM2 * s * s
    k = max(3, round(BRIDGE_MM * s) | 1)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    out = labels
    not_canvas = (labels != CANVAS).astype(np.uint8)
    codes = set(np.unique(table[coloured]).tolist())
    if lost.any():
        near = cv2.dilate(lost.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        codes |= set(np.unique(labels[near & (labels >= FIRST_COLOUR)]).tolist())
    for code in sorted(codes):
        parts = coloured & (table == code)
        body = (parts | (labels == code)).astype(np.uint8)
        x, y, w, h = cv2.boundingRect(body)
        y0, y1 = max(0, y - k), min(body.shape[0], y + h + k)
        x0, x1 = max(0, x - k), min(body.shape[1], x + w + k)
        b = body[y0:y1, x0:x1]
        part_box = parts[y0:y1, x0:x1]
        lost_box = lost[y0:y1, x0:x1]
        stick_box = (table[y0:y1, x0:x1] == WOOD) | (
            (labels[y0:y1, x0:x1] == WOOD) & (table[y0:y1, x0:x1] != code)
        )
        solid = b | not_canvas[y0:y1, x0:x1] | lost_box
        # parts within BRIDGE_MM of each other, as groups
        n, lab, stats = patches(cv2.dilate(b, disc))
        for i in range(1, n):
            bx, by, bw, bh = stats[i, :4]
            win = np.s_[by : by + bh, bx : bx + bw]
            g = (lab[win] == i) & (b[win] > 0)
            mine = g & part_box[win]
            # two sides or more, a stick between them: one patch is not a shape cut in two
            _, _, side_stats = patches(g.astype(np.uint8))
            if int(np.count_nonzero(side_stats[1:, cv2.CC_STAT_AREA] >= least)) < 2:
                continue
            hull = cv2.convexHull(cv2.findNonZero(g.astype(np.uint8)))
            inside = np.zeros((bh, bw), np.uint8)
            cv2.fillConvexPoly(inside, hull, 1)
            # bare canvas in the hull, where wider than a thin line (the stick's pale rim, a
            # pale string across the shape)
            hull_area = float(np.count_nonzero(inside))
            area = hull_area - wide_bare((inside > 0) & (solid[win] == 0), s)
            if not lo <= area <= hi or area < MIN_SOLIDITY * hull_area:
                continue
            (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
            short, long_ = min(rw, rh), max(rw, rh)
            if short < MIN_SIDE_WIDTHS * width or long_ > MAX_ASPECT * short:
                continue
            # a stick between the sides: wood (the table's, or what the model calls stick
            # in another colour) over ``shapes.JOIN_STICK_MM2`` of the hull outside them
            between = (inside > 0) & ~g & stick_box[win]
            if int(np.count_nonzero(between)) < band:
                continue
            wood = (inside > 0) & lost_box[win]
            if not mine.any() and not wood.any():
                continue
            if out is labels:
                out = labels.copy()
            box = out[y0 + by : y0 + by + bh, x0 + bx : x0 + bx + bw]
            box[mine] = code
            box[wood] = WOOD
    return out
