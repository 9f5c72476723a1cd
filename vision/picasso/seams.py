"""Two sticks end to end in line look like one: the seam test.

A stretch of wood as long as a long stick may be one long stick or two short ones laid end
to end in a line (and one as long as a long and a short, a long and a short). The mask of
wood cannot tell; the picture can, by two cues at the place where the two would meet:

- **the seam**: two stick ends never meet perfectly; the joint shows as a narrow dark line
  across the whole width (a hairline gap, the end grain, a shadow): the lightness along the
  stick dips there, by ``DIP`` of the lightness around it, and only there;
- **across the whole width**: the joint of two square-cut ends darkens both halves of the
  stick's width at one place; the string or another thin line lying across the stick at a
  slant darkens one half here and the other half further on (``HALF_SHARE``);
- **misalignment**: two sticks laid by hand are rarely exactly in line: each half's centre
  line, fitted from its long edges, is offset from the other's at the joint, or turned.
  Measured, but not decided on: on rendered boards without a camera calibration the lens
  bends a long stick enough that its halves read up to 1.5 mm and 3 degrees apart, as much
  as two sticks laid by a careful hand.

A joint is never looked for where another stick crosses, nor where the string, a shadow or
a shape lies across (each makes a dip of its own): ``crossed``/``clear``. Measured on rendered
pairs (``pictable.bench.readers.picasso.bench_seams``); a long stick wrongly cut in two costs a
point, so the threshold is conservative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.classes import WHITE_LEVEL
from vision.picasso.profile import KitProfile
from vision.picasso.stick_lines import DARK_PX

DIP = 0.05
#: ...and deeper by this factor than the deepest dip the same test measures elsewhere along
#: the stick (``SeamCues.elsewhere``: grain, JPEG and noise on a coarse view). 1.3 -> 1.4:
#: a long stick of dark, grained wood (wide looks run seed 2, board 48) dipped 0.057 at its
#: middle and 0.043 elsewhere, and was cut in two; on the 14 development sets that board
#: alone changed, and the seam bench (``bench_seams(6, 1)``: pairs split 18 of 22, long
#: sticks kept whole 26 of 26) is unchanged.
STANDS_OUT = 1.4
#: A joint is not looked for within this much beyond a crossing stick's side (with 1.2
#: stick widths from its centre line): a stick lying over another casts its shadow across
#: it a few millimetres off, a dip like a seam's (dark wood under a hard light, where the
#: seam's own dip is a few hundredths). Measured on run seeds 1 and 3 of the development
#: looks and 0-1 of the hard tier: 0 -> 5 mm read 4 more boards exactly and none fewer
#: (8 mm the same, 3 mm 2 more); the seam bench's pairs (no crossings) are unchanged.
#: 5 -> 10 mm: on the hard tier's coarse, blurred views, a stick crossing 16-19 mm from a
#: long stick's middle (4 of 4 long sticks wrongly cut there, hard run seed 0-1 and hard
#: development looks run seed 1) still dips it; that read 3 more boards of the hard
#: development looks exactly (21 -> 24 of 35) and changed none of the other sets.
CROSS_MARGIN_MM = 10.0
#: The dip must show across the whole width: each half of the stick's middle (one long edge
#: to the centre line, and the other) dips at least this share of the other half's dip. On
#: the seam bench's true joints (``bench_seams(6, 1)``) the shallower half dipped 0.43 of
#: the deeper one or more; a pale green string lying over a long stick at 20 degrees, one
#: half of its width (wide looks run seed 2, board 51), dipped 0.197 and 0.009 there and
#: the stick was cut in two.
HALF_SHARE = 0.3


def lightness(normalised: NDArray[np.uint8]) -> NDArray[np.float32]:
    """(H, W) float32 mean of the three channels of a normalised canvas picture
    (``segment.normalise``), 1.0 for the canvas (one ``cv2.transform``: a tenth of numpy's
    ``mean(axis=2)``)."""
    m = np.full((1, 3), 1.0 / (3.0 * WHITE_LEVEL), np.float32)
    return np.asarray(cv2.transform(normalised.astype(np.float32), m), np.float32)


class Lightness:
    """The ``lightness`` of a normalised canvas picture, computed only where it is looked
    at: the seam test samples a few joints per frame, and the whole picture's lightness
    was about a millisecond."""

    def __init__(self, normalised: NDArray[np.uint8]) -> None:
        self.normalised = normalised

    def remap(self, mx: NDArray[np.float32], my: NDArray[np.float32]) -> NDArray[np.float32]:
        """``cv2.remap(lightness(normalised), mx, my, cv2.INTER_LINEAR)`` (zero beyond the
        picture), pixel for pixel: the lightness is computed in the box of the pixels the
        samples read (two pixels to spare, clipped to the picture) and the sample points
        moved by the box's whole-pixel corner, which moves none of their fractions."""
        h, w = self.normalised.shape[:2]
        if mx.size == 0 or not (np.isfinite(mx).all() and np.isfinite(my).all()):
            return np.asarray(
                cv2.remap(lightness(self.normalised), mx, my, cv2.INTER_LINEAR), np.float32
            )
        x0 = min(max(math.floor(float(mx.min())) - 2, 0), w)
        x1 = min(max(math.floor(float(mx.max())) + 3, 0), w)
        y0 = min(max(math.floor(float(my.min())) - 2, 0), h)
        y1 = min(max(math.floor(float(my.max())) + 3, 0), h)
        if x1 <= x0 or y1 <= y0:  # every sample beyond the picture
            return np.zeros(mx.shape, np.float32)
        box = lightness(self.normalised[y0:y1, x0:x1])
        return np.asarray(
            cv2.remap(box, mx - np.float32(x0), my - np.float32(y0), cv2.INTER_LINEAR),
            np.float32,
        )


@dataclass(frozen=True)
class SeamCues:
    """The cues at one candidate joint: ``dip`` (relative lightness drop), ``offset_mm`` and
    ``turn_deg`` (between the two halves' centre lines), ``crossed`` (another stick crosses
    there), ``clear`` (neither the string nor a shape lies across), ``elsewhere`` (the
    deepest dip away from the joint) and ``halves`` (the dip in each half of the stick's
    width; None where not measured)."""

    dip: float
    offset_mm: float
    turn_deg: float
    crossed: bool
    clear: bool = True
    elsewhere: float = 0.0
    halves: tuple[float, float] | None = None

    @property
    def seam(self) -> bool:
        if self.crossed or not self.clear:
            return False
        if self.halves is not None and min(self.halves) < HALF_SHARE * max(self.halves):
            return False  # one half of the width dips: a line across at a slant
        return self.dip >= DIP and self.dip > STANDS_OUT * self.elsewhere


def _half_line(
    gray: Lightness,
    p0: NDArray[np.float64],
    d: NDArray[np.float64],
    n: NDArray[np.float64],
    t0: float,
    t1: float,
    width_mm: float,
    s: float,
) -> tuple[float, float] | None:
    """Centre offset (mm, at t=0 along n) and slope of one half, from its two long edges:
    the strongest lightness step on each side near where the edge should be."""
    ts = np.arange(t0, t1 + 1e-9, 0.5)
    us = np.arange(-0.5 * width_mm - 2.5, 0.5 * width_mm + 2.51, 0.25)
    pts = p0[None, None, :] + ts[None, :, None] * d + us[:, None, None] * n
    mx = (pts[..., 0] * s - 0.5).astype(np.float32)
    my = (pts[..., 1] * s - 0.5).astype(np.float32)
    prof = gray.remap(mx, my)  # (nu, nt)
    grad = np.diff(prof, axis=0)  # between us[i] and us[i + 1]
    mid_u = 0.5 * (us[1:] + us[:-1])
    centres = []
    for sign in (1.0, -1.0):
        near = np.abs(mid_u - sign * 0.5 * width_mm) <= 2.0
        g = grad[near] * sign  # wood is darker than canvas: lightness rises going out
        j = np.argmax(g, axis=0)
        strong = g[j, np.arange(g.shape[1])] > 0.04
        edge = mid_u[near][j]
        centres.append(np.where(strong, edge - sign * 0.5 * width_mm, np.nan))
    both = np.stack(centres)
    seen = np.isfinite(both).any(axis=0)
    c = np.full(both.shape[1], np.nan)
    c[seen] = np.nanmean(both[:, seen], axis=0)
    ok = np.isfinite(c)
    if ok.sum() < 6:
        return None
    a = np.vstack([np.ones(int(ok.sum())), ts[ok]]).T
    coef = np.linalg.solve(a.T @ a + 1e-9 * np.eye(2), a.T @ c[ok])
    res = np.abs(c[ok] - a @ coef)
    keep = res < max(0.3, float(np.median(res)) * 3)
    if keep.sum() >= 6:
        a2 = a[keep]
        coef = np.linalg.solve(a2.T @ a2 + 1e-9 * np.eye(2), a2.T @ c[ok][keep])
    return float(coef[0]), float(coef[1])


def seam_cues(
    gray: Lightness,
    p0_mm: tuple[float, float],
    p1_mm: tuple[float, float],
    at_mm: float,
    others: list[tuple[tuple[float, float], tuple[float, float]]],
    s: float,
    profile: KitProfile,
    wood_mp: NDArray[np.uint8] | None = None,
    *,
    measure_alignment: bool = False,
    shapes: NDArray[np.uint8] | None = None,
) -> SeamCues:
    """The cues for a joint ``at_mm`` from ``p0_mm`` along the stick p0 -> p1. ``gray``:
    the lightness of the normalised canvas (the canvas is 1); ``others``:
    the other sticks' ends (to know where they cross); ``wood_mp``: the wood map
    (``stick_lines.wood_map``), to know where the string or a shadow lies across;
    ``measure_alignment``: also fit each half's centre line (``offset_mm``/``turn_deg``;
    for measuring, the decision does not use them); ``shapes``: (H, W) uint8, nonzero
    where the pixels have a shape's colour, to know where a shape lies across."""
    width = profile.stick_width_mm
    p0 = np.asarray(p0_mm, np.float64)
    p1 = np.asarray(p1_mm, np.float64)
    length = float(np.linalg.norm(p1 - p0))
    d = (p1 - p0) / max(length, 1e-9)
    n = np.array([-d[1], d[0]])
    joint = p0 + d * at_mm
    crossed = any(_crosses(joint, d, width, q0, q1) for q0, q1 in others)
    ts = np.arange(-12.0, 12.01, 0.25)
    dip = _dip(_middle(gray, joint, d, n, ts, width, s), ts)
    offset = turn = 0.0
    if measure_alignment:
        a = _half_line(gray, joint, -d, n, 4.0, min(at_mm, 40.0) - 3.0, width, s)
        b = _half_line(gray, joint, d, n, 4.0, min(length - at_mm, 40.0) - 3.0, width, s)
        if a is not None and b is not None:
            # a's u axis is flipped (it runs along -d with normal n): its centre offset is
            # the same, its slope the opposite
            offset = abs(a[0] - b[0])
            turn = abs(math.degrees(math.atan(-a[1]) - math.atan(b[1])))
    clear = True
    tw = np.arange(-4.0, 4.01, 0.5)
    uw = np.arange(-0.5 * width + 1.0, 0.5 * width - 0.99, 0.5)
    pw = joint[None, None, :] + tw[None, :, None] * d + uw[:, None, None] * n
    mx = (pw[..., 0] * s - 0.5).astype(np.float32)
    my = (pw[..., 1] * s - 0.5).astype(np.float32)
    if wood_mp is not None:
        vals = cv2.remap(wood_mp, mx, my, cv2.INTER_NEAREST)
        clear = not bool((vals == DARK_PX).any())  # the string does not lie across
        if clear:
            clear = not _string_across(wood_mp, joint, d, n, width, s)
    if clear and shapes is not None:
        # nor a shape: a stick passing under a shape's edge dips where it goes under
        clear = not bool(cv2.remap(shapes, mx, my, cv2.INTER_NEAREST).any())
    elsewhere = 0.0
    halves = None
    if dip >= DIP and clear and not crossed:
        elsewhere = _dip_elsewhere(gray, p0, d, n, length, at_mm, others, s, width, wood_mp)
        halves = _half_dips(gray, joint, d, n, ts, width, s)
    return SeamCues(dip, offset, turn, crossed, clear, elsewhere, halves)


def _half_dips(
    gray: Lightness,
    joint: NDArray[np.float64],
    d: NDArray[np.float64],
    n: NDArray[np.float64],
    ts: NDArray[np.float64],
    width: float,
    s: float,
) -> tuple[float, float]:
    """The seam test's dip (``_dip``) at the joint in each half of the stick's middle: from
    1.5 mm in from one long edge to 0.5 mm short of the centre line, and the same on the
    other side (``HALF_SHARE``)."""
    inner = np.arange(0.5, 0.5 * width - 1.49, 0.5)
    a, b = (_dip(_middle(gray, joint, d, n, ts, width, s, us), ts) for us in (-inner[::-1], inner))
    return a, b


def _dip_elsewhere(
    gray: Lightness,
    p0: NDArray[np.float64],
    d: NDArray[np.float64],
    n: NDArray[np.float64],
    length: float,
    at_mm: float,
    others: list[tuple[tuple[float, float], tuple[float, float]]],
    s: float,
    width: float,
    wood_mp: NDArray[np.uint8] | None,
) -> float:
    """The deepest dip the seam test measures along the same stick away from the joint
    (more than 8 mm from it, 14 mm in from the ends, nowhere another stick crosses or the
    string lies across): the grain, noise and JPEG of this view of this stick. 0 when no
    such place is left."""
    ts = np.arange(2.0, length - 1.99, 0.25)
    if ts.size < 2:
        return 0.0
    prof = _middle(gray, p0, d, n, ts, width, s)
    centres = np.arange(14.0, length - 13.99, 1.0)
    centres = centres[np.abs(centres - at_mm) > 8.0]
    best = 0.0
    h = w = 0
    if wood_mp is not None:
        h, w = wood_mp.shape
    for c in centres:
        q = p0 + d * c
        if any(_crosses(q, d, width, q0, q1) for q0, q1 in others):
            continue
        if wood_mp is not None:
            xs = np.clip(np.round((q[0] + np.array([-4.0, 0.0, 4.0]) * d[0]) * s - 0.5), 0, w - 1)
            ys = np.clip(np.round((q[1] + np.array([-4.0, 0.0, 4.0]) * d[1]) * s - 0.5), 0, h - 1)
            if (wood_mp[ys.astype(int), xs.astype(int)] == DARK_PX).any():
                continue
        best = max(best, _dip(prof, ts - c))
    return best


def _middle(
    gray: Lightness,
    origin: NDArray[np.float64],
    d: NDArray[np.float64],
    n: NDArray[np.float64],
    ts: NDArray[np.float64],
    width: float,
    s: float,
    us: NDArray[np.float64] | None = None,
) -> NDArray[np.float32]:
    """The lightness along the middle of a stick (1.5 mm in from its long edges, averaged
    across) at ``ts`` mm from ``origin`` along ``d``; ``us``: other offsets across it to
    average (mm along ``n``)."""
    if us is None:
        us = np.arange(-0.5 * width + 1.5, 0.5 * width - 1.49, 0.5)
    pts = origin[None, None, :] + ts[None, :, None] * d + us[:, None, None] * n
    return np.asarray(
        gray.remap(
            (pts[..., 0] * s - 0.5).astype(np.float32),
            (pts[..., 1] * s - 0.5).astype(np.float32),
        ).mean(0),
        np.float32,
    )


def _dip(prof: NDArray[np.float32], rel: NDArray[np.float64]) -> float:
    """The seam test's dip in ``prof`` about the place where ``rel`` (mm from it) is 0: its
    darkest within 2.5 mm below the median from 4 to 12 mm on both sides, relative to that."""
    mid = np.abs(rel) <= 2.5
    ring = (np.abs(rel) > 4.0) & (np.abs(rel) <= 12.0)
    base = float(np.median(prof[ring]))
    return (base - float(prof[mid].min())) / max(base, 1e-6)


def _string_across(
    wood_mp: NDArray[np.uint8],
    joint: NDArray[np.float64],
    d: NDArray[np.float64],
    n: NDArray[np.float64],
    width: float,
    s: float,
) -> bool:
    """Whether the string, seen on the canvas on both flanks of the stick (``DARK_PX`` of the
    wood map, 0.5 to 4 mm beyond its long edges), passes over it near the joint: a place
    where it meets one flank and a place where it meets the other, at most 30 mm apart along
    the stick, span a stretch that reaches within 4 mm of the joint. (A string the colour of
    wood is wood over the stick itself; a shallow crossing spans many millimetres.)"""
    tb = np.arange(-25.0, 25.01, 1.0)
    ub = np.arange(0.5 * width + 0.5, 0.5 * width + 4.01, 0.5)
    ub = np.concatenate([-ub, ub])
    pb = joint[None, None, :] + tb[None, :, None] * d + ub[:, None, None] * n
    side = cv2.remap(
        wood_mp,
        (pb[..., 0] * s - 0.5).astype(np.float32),
        (pb[..., 1] * s - 0.5).astype(np.float32),
        cv2.INTER_NEAREST,
    )
    half = len(ub) // 2
    left = tb[(side[:half] == DARK_PX).any(0)]
    right = tb[(side[half:] == DARK_PX).any(0)]
    if not len(left) or not len(right):
        return False
    lo = np.minimum(left[:, None], right[None, :])
    hi = np.maximum(left[:, None], right[None, :])
    return bool(((hi - lo <= 30.0) & (lo <= 4.0) & (hi >= -4.0)).any())


def _crosses(
    joint: NDArray[np.float64],
    d: NDArray[np.float64],
    width: float,
    q0: tuple[float, float],
    q1: tuple[float, float],
) -> bool:
    """Whether the stick q0-q1 passes within 1.2 stick widths and ``CROSS_MARGIN_MM`` of
    the joint."""
    # plain floats: called for every other stick at every joint looked at
    ax, ay = float(q0[0]), float(q0[1])
    abx, aby = float(q1[0]) - ax, float(q1[1]) - ay
    jx, jy = float(joint[0]), float(joint[1])
    t = ((jx - ax) * abx + (jy - ay) * aby) / max(abx * abx + aby * aby, 1e-9)
    t = min(max(t, 0.0), 1.0)
    return math.hypot(ax + t * abx - jx, ay + t * aby - jy) < 1.2 * width + CROSS_MARGIN_MM
