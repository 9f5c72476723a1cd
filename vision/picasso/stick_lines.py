"""What the stick search's steps (``vision.picasso.sticks``) share: the wood map they read
(its codes and ``wood_map``), and the lines on the canvas, the bands sampled along them
and the candidate sticks measured on them that they pass on."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np
from numpy.typing import NDArray

#: Wood map codes.
NOT_WOOD, WOOD_PX, DARK_PX, SHADE_PX = 0, 1, 2, 3


def wood_map(
    wood: NDArray[np.uint8], dark: NDArray[np.uint8], shade: NDArray[np.uint8]
) -> NDArray[np.uint8]:
    """(H, W) uint8 codes: ``WOOD_PX``, ``DARK_PX`` (the string, which lies on top and may
    hide wood), ``SHADE_PX`` (grey: a shadow, which may fall on wood), ``NOT_WOOD``.
    Inputs are (H, W) uint8 0/1 masks. Wood is opened with a 3x3 square first: the one- or
    two-pixel rims that blending gives coloured shapes are not wood."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
    w = cv2.morphologyEx(wood, cv2.MORPH_OPEN, k)
    out = w.copy()
    out[(shade > 0) & (w == 0)] = SHADE_PX
    out[(dark > 0) & (w == 0)] = DARK_PX
    return out


#: How far round the string the camera's blur mixes it with what it lies on, in frame pixels,
#: less what the wood map already leaves to the string there (``HALO_OFF_MM``). Measured on
#: run seed 0 and 1 of the hard tier (kit look) and seeds 1 and 3 of the development looks:
#: 2.5 and 1.0 read 8 more hard boards and 6 more development boards exactly, and 2 fewer
#: in the kit look (an X of two short sticks by the string); 1.5 and 0 cost 3 in the kit
#: look; a halo only next to wood kept the kit look and gained 5 of those 14.
HALO_FRAME_PX = 2.5
HALO_OFF_MM = 1.0


def blur_halo(
    wm: NDArray[np.uint8], string: NDArray[np.uint8], s: float, frame_px_per_mm: float
) -> None:
    """Mark as unknown (``SHADE_PX``), in place, what the wood map calls bare canvas within
    the string's blur halo: ``HALO_FRAME_PX`` frame pixels less ``HALO_OFF_MM``. A camera that
    sees the board coarsely (0.5-1 px/mm) blurs a 2-3 mm string over the wood it crosses or
    runs along into a smear that is neither wood nor string, and a stick's stretch used to
    end there: a long stick read as a short one."""
    k = round((HALO_FRAME_PX / max(frame_px_per_mm, 1e-6) - HALO_OFF_MM) * s)
    if k < 1 or not string.any():
        return
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    halo = cv2.dilate(string, disc)
    wm[(halo > 0) & (wm == 0)] = SHADE_PX


#: Wood beside the string narrower than this share of a stick's width (what an opening by a
#: disc that wide removes) is the string's coloured blur fringe, not a stick lying there.
#: Measured against none (development and kit looks of both renderers, hard tier run seeds
#: 0 and 1): 0.3 read 5 more boards exactly and 1 fewer (a short stick 40% hidden in a heap
#: by the string); 0.5 read 3 more and 3 fewer (the strips of sticks the string lies on),
#: 0.2 none more.
FRINGE_WIDTH = 0.3
#: ...looked for within this many millimetres of the string.
FRINGE_REACH_MM = 3.0


def string_fringe(
    wm: NDArray[np.uint8], string: NDArray[np.uint8], s: float, width_mm: float
) -> None:
    """Mark as unknown (``SHADE_PX``), in place, the thin wood along the string: a blurred
    dark string on a tinted canvas leaves a rim of in-between colour along its sides that
    the colour table may call wood, and a stretch of string with its rim passed for a
    stick. A stick lying along the string or across it is wider than ``FRINGE_WIDTH`` of
    a stick and keeps its wood."""
    if not string.any():
        return
    wood = (wm == WOOD_PX).astype(np.uint8)
    if not wood.any():
        return
    r = max(1, round(FRINGE_REACH_MM * s))
    near = cv2.dilate(string, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    k = max(3, round(FRINGE_WIDTH * width_mm * s) | 1)
    opened = cv2.morphologyEx(
        wood, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    # Wood the opening removes, near the string, and not touching wood it keeps within a
    # pixel or two (a stick's blurred rim is the stick's).
    kept = cv2.dilate(opened, np.ones((3, 3), np.uint8))
    thin = (wood > 0) & (opened == 0) & (near > 0) & (kept == 0)
    wm[thin] = SHADE_PX


def turn_between(a: float, b: float) -> float:
    """How far two lines at directions ``a`` and ``b`` (radians) are turned from each
    other, radians in [0, pi / 2]: a line has no head, so pi apart is no turn."""
    return abs((a - b + math.pi / 2) % math.pi - math.pi / 2)


@dataclass(frozen=True)
class _Line:
    cx: float  # a point on the line, canvas px
    cy: float
    angle: float  # radians, direction of the line
    # The direction's components as floats: computed once per line (the search asks for
    # them thousands of times per frame).
    cos: float = field(init=False, repr=False, compare=False)
    sin: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cos", math.cos(self.angle))
        object.__setattr__(self, "sin", math.sin(self.angle))

    # Direction ``d`` and normal ``n``, read-only (2,) float64: made when first asked (most
    # lines never are; two small arrays per line were a few percent of the search).
    @cached_property
    def d(self) -> NDArray[np.float64]:
        d = np.array([self.cos, self.sin])
        d.setflags(write=False)
        return d

    @cached_property
    def n(self) -> NDArray[np.float64]:
        n = np.array([-self.sin, self.cos])
        n.setflags(write=False)
        return n

    def at(self, t_mm: float, s: float) -> NDArray[np.float64]:
        return np.array([self.cx + self.cos * t_mm * s, self.cy + self.sin * t_mm * s])

    def t_of(self, p: NDArray[np.float64], s: float) -> float:
        return ((float(p[0]) - self.cx) * self.cos + (float(p[1]) - self.cy) * self.sin) / s


@dataclass(frozen=True)
class _Band:
    """A band sampled along a line: ``wood``/``known`` (nu, nt) bool arrays, the across
    offsets ``u`` (nu,) and along positions ``t`` (nt,), in mm; ``stats``, its
    ``_stretch_stats`` when computed in a batch (None: computed when asked)."""

    line: _Line
    t: NDArray[np.float64]
    u: NDArray[np.float64]
    wood: NDArray[np.bool_]
    known: NDArray[np.bool_]
    # ``_stretch_stats`` of the band when they were computed with others at once
    stats: tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]] | None = None


@dataclass(frozen=True)
class _Candidate:
    line: _Line
    t0: float  # mm along the line from its point
    t1: float

    def ends_px(self, s: float) -> NDArray[np.float64]:
        return np.stack([self.line.at(self.t0, s), self.line.at(self.t1, s)])

    @property
    def length(self) -> float:
        return self.t1 - self.t0
