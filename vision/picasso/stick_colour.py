"""A "stick" of the string's colour is the string (geometry first, colour as a hint).

The stick search fits rectangles to the wood map. Where the string lies over a heap of
sticks, or runs along one, the pixel classes may call a stretch of it wood (a pale blue
cord over dark sticks, a thick jute cord beside a painted stick), and a short stick is fitted
to it. Its geometry is a stick's; its colour is not: the sticks of a kit share one look
(KIT.md: one wood or one paint), and this "stick" has the string's.

So each stick's own pixels (inside its rectangle, in no other stick's, not the string's) are
measured, and the board's wood colour is the median of the sticks' colours. A stick is the
string's when its colour is far from the wood's and much nearer the string's (measured on
the string's pixels away from the sticks). The distance is the colour table's
(``segment.table_distance``: the a*b* plane, lightness counted a quarter). Nothing is done
when the string and the wood look alike (a jute cord and light wood), when fewer than
``MIN_STICKS`` sticks agree on a wood colour, or on too few pixels; nor when the string or
the stick measures nearly the canvas's colour (``FROM_CANVAS``).
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso import segment as seg
from vision.picasso.sticks import StickFit

#: A stick's own pixels are measured this far (mm) inside its rectangle's sides and ends.
INSET_MM = 1.5
#: A stick's colour counts when this many of its own pixels are left...
MIN_OWN_PX = 60
#: ...and the wood's colour is the median of at least this many sticks' colours.
MIN_STICKS = 3
#: The string's colour is measured on at least this many of its pixels.
MIN_STRING_PX = 150
#: A stick is the string's when its colour lies farther than ``FAR_FROM_WOOD`` from the
#: wood's, and ``NEARER`` times nearer the string's than the wood's.
FAR_FROM_WOOD = 15.0
NEARER = 2.0
#: Both the string's colour and the stick's lie at least this far from the canvas's: a
#: string measured nearly canvas (a faint one on a coarse view, its pixels mostly canvas)
#: says nothing of its colour, and a stick that pale is one washed out by the light.
FROM_CANVAS = 10.0
#: The canvas in the normalised picture's L*a*b* (``segment.lab_of``: relative to it).
CANVAS_LAB = np.array([100.0, 0.0, 0.0])


Box = tuple[slice, slice]


def _colour(levels: NDArray[np.uint8]) -> NDArray[np.float64]:
    """The L*a*b* (relative to the canvas) of the median level of each channel of (N, 3)
    pixels of the normalised picture."""
    level = np.median(levels, axis=0).astype(np.float32)[None]
    return np.asarray(seg.lab_of_levels(level)[0], np.float64)


def _rectangles(
    fits: list[StickFit], shape: tuple[int, int], s: float, width_mm: float
) -> list[tuple[Box, NDArray[np.uint8]]]:
    """Each stick's rectangle, ``INSET_MM`` inside its sides and ends: its box in the
    picture (``shape``) and a 0/1 mask of the box."""
    out = []
    h, w = shape
    wpx = max(1, round((width_mm - 2 * INSET_MM) * s))
    pad = wpx // 2 + 2
    for f in fits:
        p0 = np.asarray(f.p0, np.float64)
        p1 = np.asarray(f.p1, np.float64)
        d = p1 - p0
        n = float(np.hypot(d[0], d[1]))
        if n <= 2 * INSET_MM:
            out.append(((slice(0, 0), slice(0, 0)), np.zeros((0, 0), np.uint8)))
            continue
        d /= n
        a = np.round((p0 + d * INSET_MM) * s - 0.5).astype(int)
        b = np.round((p1 - d * INSET_MM) * s - 0.5).astype(int)
        x0 = min(max(min(a[0], b[0]) - pad, 0), w)
        x1 = min(max(max(a[0], b[0]) + pad + 1, 0), w)
        y0 = min(max(min(a[1], b[1]) - pad, 0), h)
        y1 = min(max(max(a[1], b[1]) + pad + 1, 0), h)
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        if m.size:
            cv2.line(m, (int(a[0] - x0), int(a[1] - y0)), (int(b[0] - x0), int(b[1] - y0)), 1, wpx)
        out.append(((slice(y0, y1), slice(x0, x1)), m))
    return out


def string_coloured(
    fits: list[StickFit],
    normalised: NDArray[np.uint8],
    cord_mask: NDArray[np.uint8],
    s: float,
    width_mm: float,
) -> list[int]:
    """Indices into ``fits`` of the sticks whose colour is the string's, not the wood's
    (module docstring). ``normalised``: the canvas picture divided by its canvas model
    (``segment.normalise``); ``cord_mask``: (H, W) uint8, nonzero on the string's pixels."""
    if len(fits) < MIN_STICKS + 1 or not cord_mask.any():
        return []
    shape = normalised.shape[:2]
    rects = _rectangles(fits, shape, s, width_mm)
    cover = np.zeros(shape, np.uint8)
    for box, m in rects:
        cover[box] += m
    # the string's colour on every other row and column: a quarter of the work
    string_px = (cord_mask[::2, ::2] > 0) & (cover[::2, ::2] == 0)
    if 4 * int(np.count_nonzero(string_px)) < MIN_STRING_PX:
        return []
    string = _colour(normalised[::2, ::2][string_px])
    if seg.table_distance(string, CANVAS_LAB) < FROM_CANVAS:
        return []
    colours: list[NDArray[np.float64] | None] = []
    for box, m in rects:
        own = (m > 0) & (cover[box] == 1) & (cord_mask[box] == 0)
        if int(np.count_nonzero(own)) < MIN_OWN_PX:
            colours.append(None)
            continue
        colours.append(_colour(normalised[box][own]))
    measured = [c for c in colours if c is not None]
    if len(measured) < MIN_STICKS:
        return []
    wood = np.median(np.stack(measured), axis=0)
    near_wood = sum(1 for c in measured if seg.table_distance(c, wood) <= FAR_FROM_WOOD)
    if near_wood < MIN_STICKS:
        return []
    out = []
    for i, c in enumerate(colours):
        if c is None:
            continue
        to_wood, to_string = seg.table_distance(c, wood), seg.table_distance(c, string)
        pale = seg.table_distance(c, CANVAS_LAB) < FROM_CANVAS
        if to_wood > FAR_FROM_WOOD and NEARER * to_string < to_wood and not pale:
            out.append(i)
    return out


__all__ = ["string_coloured"]
