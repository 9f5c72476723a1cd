"""A stick's colour, measured on the frame, where the classes lose the stick.

The colour classes and the pixel model may call part of a stick the string or a shadow: a
wood whose grain shows as a dark line along it, the string lying along a stick's end. The
wood map then ends the stick there, and a long stick is read as a short one. The picture
itself still shows the stick's colour there. These helpers compare the picture with a
stick's own colour, measured along its middle in this frame (nothing is assumed of the
wood's look):

- ``across``: the picture's colour across a stick's middle at points along it;
- ``own_colour``: a stick's median colour along its middle;
- ``lengthened``: a stick found shorter than a kit stick, lengthened along its own line over
  what looks like it, when the whole then measures a longer kit stick and ends squarely
  (``stick_extend.extend_short`` asks this where the wood map shows no longer stretch);
  with ``faded``, the same for a stick fading into a glare, over what differs from the
  canvas beside it the stick's way (from the canvas's colour towards the stick's).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.classes import WHITE_LEVEL
from vision.picasso.sticks import StickFit

#: Steps along the line, mm.
STEP_MM = 1.0
#: Gaps in the run of samples like the stick bridged, mm (grain, a thin shadow across).
GAP_MM = 2.5
#: A stick whose colour lies this near the canvas's (normalised BGR levels) is not measured
#: (pale wood on a white canvas: the two cannot be told apart by colour).
MIN_CONTRAST = 30.0
#: The run must end squarely: round its end (from 4 mm before it to 6 mm past it, across
#: ``END_HALF_MM`` to each side of the line, the run's own band left out) at most
#: ``END_LIKE_MAX`` of the samples look like the stick (the string, lying along a stick's
#: line, goes on sideways where it leaves it; a 4 mm cord turning away square makes 0.14).
END_HALF_MM = 8.0
END_LIKE_MAX = 0.08
#: ... and be a stick's width: at most this share of its length looks like the stick 2.5 mm
#: beyond both of its sides (asked of runs of ``FLANKS_FROM_MM`` or more).
FLANKS_MAX = 0.3
FLANKS_FROM_MM = 10.0


def across(
    normalised: NDArray[np.uint8], pts_mm: NDArray[np.float64], d: NDArray[np.float64], s: float
) -> NDArray[np.float32]:
    """(N, 3) colours of the normalised picture at ``pts_mm``, each the mean across 4 mm of
    the middle of a stick running along ``d`` (the grain and the noise averaged out)."""
    n = np.array([-d[1], d[0]])
    us = np.arange(-2.0, 2.01, 0.5)
    return np.asarray(
        _pixels(normalised, pts_mm[:, None, :] + us[None, :, None] * n[None, None, :], s).mean(
            axis=1
        ),
        np.float32,
    )


def middle_samples(
    normalised: NDArray[np.uint8], f: StickFit, s: float
) -> NDArray[np.float32] | None:
    """(N, 3) the picture across stick ``f``'s middle (``across``) every millimetre from 3 mm
    in from its ends; None for a stick under 8 mm."""
    p0, p1 = np.asarray(f.p0, np.float64), np.asarray(f.p1, np.float64)
    length = float(np.linalg.norm(p1 - p0))
    if length <= 8.0:
        return None
    d = (p1 - p0) / length
    ts = np.arange(3.0, length - 2.99, 1.0)
    return across(normalised, p0[None, :] + ts[:, None] * d[None, :], d, s)


def own_colour(normalised: NDArray[np.uint8], f: StickFit, s: float) -> NDArray[np.float32] | None:
    """Stick ``f``'s median colour along its middle (``middle_samples``), None for a stick
    under 8 mm."""
    got = middle_samples(normalised, f, s)
    return None if got is None else np.asarray(np.median(got, axis=0), np.float32)


def _like(
    seen: NDArray[np.float32], stick: NDArray[np.float32], canvas: NDArray[np.float32]
) -> NDArray[np.bool_]:
    """Which colours ``seen`` (..., 3) lie nearer the stick's than the canvas's."""
    return np.asarray(
        np.linalg.norm(seen - stick, axis=-1) < np.linalg.norm(seen - canvas, axis=-1), bool
    )


def _pixels(
    normalised: NDArray[np.uint8], pts_mm: NDArray[np.float64], s: float
) -> NDArray[np.float32]:
    """(..., 3) the picture at ``pts_mm`` (..., 2), bilinear."""
    flat = pts_mm.reshape(-1, 2)
    got = cv2.remap(
        normalised,
        (flat[:, 0] * s - 0.5).astype(np.float32)[None, :],
        (flat[:, 1] * s - 0.5).astype(np.float32)[None, :],
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(got, np.float32).reshape(*pts_mm.shape[:-1], 3)


def on_any(pts: NDArray[np.float64], others: list[StickFit], width: float) -> NDArray[np.bool_]:
    """Which points ``pts`` (N, 2, mm) lie on any of the sticks ``others``' rectangles
    (``width`` mm wide)."""
    if not others or not len(pts):
        return np.zeros(len(pts), bool)
    a = np.array([g.p0 for g in others], np.float64)  # (k, 2)
    d = np.array([g.p1 for g in others], np.float64) - a
    length = np.linalg.norm(d, axis=1)
    d /= np.maximum(length, 1e-9)[:, None]
    rel = pts[None, :, :] - a[:, None, :]  # (k, N, 2)
    t = rel[..., 0] * d[:, None, 0] + rel[..., 1] * d[:, None, 1]
    u = rel[..., 1] * d[:, None, 0] - rel[..., 0] * d[:, None, 1]
    on = (t >= 0) & (t <= length[:, None]) & (np.abs(u) <= 0.5 * width) & (length[:, None] > 0)
    return np.asarray(on.any(axis=0), bool)


#: A stick fading into a glare (its far part washed towards white, or into the canvas's
#: own colour): the picture looks like it where its difference from the canvas beside it
#: points the stick's way (from the canvas's colour to the stick's) and reaches at least
#: ``FADED_MIN`` of the stick's own contrast, off that way by at most ``FADED_OFF`` of what
#: it reaches (and ``FADED_NOISE`` levels).
FADED_MIN = 0.25
FADED_OFF = 0.6
FADED_NOISE = 6.0
#: The canvas beside the stick: the brighter side, this far (mm) past the stick's edge.
FADED_BESIDE_MM = 4.0


def _toward(
    seen: NDArray[np.float32],
    beside: NDArray[np.float32],
    stick: NDArray[np.float32],
    canvas: NDArray[np.float32],
) -> NDArray[np.bool_]:
    """Which colours ``seen`` (..., 3) differ from the canvas ``beside`` them (broadcast)
    the stick's way (``FADED_MIN``, ``FADED_OFF``)."""
    v = stick - canvas
    e = seen - beside
    t = (e @ v) / float(v @ v)
    off = np.linalg.norm(e - t[..., None] * v, axis=-1)
    return np.asarray(
        (t >= FADED_MIN) & (off <= FADED_OFF * t * float(np.linalg.norm(v)) + FADED_NOISE), bool
    )


def _run(
    normalised: NDArray[np.uint8],
    end: NDArray[np.float64],
    d: NDArray[np.float64],
    reach: float,
    stick: NDArray[np.float32],
    canvas: NDArray[np.float32],
    others: list[StickFit],
    shapes: NDArray[np.uint8] | None,
    s: float,
    width: float,
    faded: bool = False,
) -> float | None:
    """How far past ``end`` (mm, along ``d``) the picture goes on looking like the stick,
    within ``reach``; None where it does not end squarely (``END_LIKE_MAX``) or runs along
    something wider than a stick (``FLANKS_MAX``). The run stops at another stick's
    rectangle (``others``: a stick meets this one there, or lies over it) and at a shape.
    Looking like the stick: nearer its colour than the canvas's; with ``faded`` (a stick
    fading into a glare), differing from the canvas beside it the stick's way
    (``_toward``)."""
    h, w = normalised.shape[:2]
    n = np.array([-d[1], d[0]])
    ts = np.arange(STEP_MM, reach + 1e-9, STEP_MM)
    pts = end[None, :] + ts[:, None] * d[None, :]
    inside = (pts[:, 0] >= 0) & (pts[:, 1] >= 0) & (pts[:, 0] * s < w) & (pts[:, 1] * s < h)
    beside = np.broadcast_to(canvas, (len(pts), 3))
    if faded:
        off = 0.5 * width + FADED_BESIDE_MM
        side = _pixels(normalised, np.stack([pts + off * n, pts - off * n]), s)
        beside = np.where((side[0].sum(-1) >= side[1].sum(-1))[:, None], side[0], side[1])

    def like_it(seen: NDArray[np.float32], ref: NDArray[np.float32]) -> NDArray[np.bool_]:
        """(the canvas ``ref`` beside ``seen`` matters to a faded stick only)"""
        return _toward(seen, ref, stick, canvas) if faded else _like(seen, stick, canvas)

    like = like_it(across(normalised, pts, d, s), beside) & inside
    stop = on_any(pts, others, width)
    if shapes is not None:
        xs = np.clip(np.round(pts[:, 0] * s - 0.5).astype(int), 0, w - 1)
        ys = np.clip(np.round(pts[:, 1] * s - 0.5).astype(int), 0, h - 1)
        stop |= shapes[ys, xs] > 0
    gap = round(GAP_MM / STEP_MM)
    last = -1  # index of the last sample of the run
    k = 0
    while k < len(ts) and not stop[k]:
        if like[k]:
            last = k
        elif k - last > gap:
            break
        k += 1
    if last < 0:
        return 0.0
    length = float(ts[last])
    met = last + 1 < len(ts) and bool(stop[last + 1 : last + 1 + gap + 1].any())
    if not met:
        # ends squarely: past the run's end, bare canvas across the line
        tb = length + np.arange(-4.0, 6.01, 1.0)
        ub = np.arange(-END_HALF_MM, END_HALF_MM + 1e-9, 1.0)
        pb = end[None, None, :] + tb[None, :, None] * d + ub[:, None, None] * n
        # (not the run's own band)
        away = (np.abs(ub)[:, None] > 0.5 * width + 1.0) | (tb[None, :] > length + 1.0)
        ref = np.median(beside[max(0, last - 5) : last + 1], axis=0) if faded else canvas
        seen = like_it(_pixels(normalised, pb, s), ref)
        if float(seen[away].mean()) > END_LIKE_MAX:
            return None
    # a stick's width: the picture beside the run is not the stick's
    off = 0.5 * width + 2.5
    run = pts[: last + 1]
    sides = np.stack([run + off * n, run - off * n])
    wide = like_it(_pixels(normalised, sides, s), beside[: last + 1])
    wide = wide[0] & wide[1]
    # (where another stick lies beside the run, its wood is no sign of a wide patch)
    beside_others = on_any(sides[0], others, width) | on_any(sides[1], others, width)
    if (
        length >= FLANKS_FROM_MM
        and (~beside_others).any()
        and float(wide[~beside_others].mean()) > FLANKS_MAX
    ):
        return None
    return length


def lengthened(
    f: StickFit,
    fits: list[StickFit],
    target_mm: float,
    share: tuple[float, float],
    normalised: NDArray[np.uint8],
    shapes: NDArray[np.uint8] | None,
    s: float,
    width: float,
    faded: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """New ends (mm) of stick ``f`` lengthened along its own line, past either end or both,
    over what looks like it (``_run``: nearer its own colour than the canvas's; with
    ``faded``, differing from the canvas beside it the stick's way), when the whole then
    measures ``share`` of ``target_mm``; None when it does not, or when ``f``'s colour
    cannot be told from the canvas's (``MIN_CONTRAST``)."""
    stick = own_colour(normalised, f, s)
    canvas = np.full(3, WHITE_LEVEL, np.float32)
    if stick is None or float(np.linalg.norm(stick - canvas)) < MIN_CONTRAST:
        return None
    p0, p1 = np.asarray(f.p0, np.float64), np.asarray(f.p1, np.float64)
    length = float(np.linalg.norm(p1 - p0))
    if length <= 0:
        return None
    d = (p1 - p0) / length
    lo, hi = share[0] * target_mm, share[1] * target_mm
    reach = hi - length + 1.0
    if reach <= 0:
        return None
    others = [g for g in fits if g is not f]
    back = _run(normalised, p0, -d, reach, stick, canvas, others, shapes, s, width, faded)
    if back is None:
        return None
    ahead = _run(normalised, p1, d, reach, stick, canvas, others, shapes, s, width, faded)
    if ahead is None or math.isclose(back + ahead, 0.0):
        return None
    if not lo <= length + back + ahead <= hi:
        return None
    return p0 - back * d, p1 + ahead * d
