"""Motion blur measured on a frame's dark squares, and taken out of the frame (issue 26:
codes at low resolution, read deblur-aware).

A camera that moves while it takes a frame (a bumped table, a hand-held phone, a webcam on a
soft arm) smears every point along one line. On cards 40-60 px wide a smear of 4-6 px spans
two or three of a marker's cells, and most of those markers are read neither bit for bit
nor by likeness. The smear is one line for the whole frame, and the frame shows what it is:
a marker's, or any dark square's, sides are sharp steps of the card, so a side across the
line of the smear is spread over its length and a side along it is not.

:func:`motion_blur` measures it. Across each side of the dark squares the codes' reader
found (read or not), the grey profile is sampled outward from the square, averaged along
the middle half of the side; the spread (the variance) of its rise is the blur across that
side. A box smear of length ``L`` at angle ``a`` adds ``L^2 / 12 * cos^2(phi - a)`` to the
spread across a side whose normal lies at ``phi``, so over the sides' angles the spread is
``s0 + A cos 2 phi + B sin 2 phi`` with ``L^2 / 24 = hypot(A, B)``: a linear fit (reweighted
against squares of the pictures, whose sides are no steps). The length measured comes out
short of the smear's by about a fifth (the rise's faint tails are cut at a tenth of its
peak), so it is scaled by :data:`LENGTH_SCALE`.

:func:`deconvolved` takes it out: a Wiener filter of the line of that length and angle,
with :data:`WIENER_K` as the noise's share (the camera's noise and JPEG are over the smear).

Measured on rendered hard codes scenes (the project's camera, 100 scenes each of seed 3 in
development looks and seed 0 in the kit's look): of the frames smeared 3 px or more, 24 of
31 and 19 of 20 are measured, the angle within 8 degrees (median; within 15 on 30 of 43),
the length 0.98 of the smear (median; 0.68-1.37); of the frames smeared 1-3 px, 3 of 15 and
3 of 23; of those smeared under 1 px, 1 of 54 and 3 of 57 (read twice: time, not cards).
Frames measured under :data:`MIN_LENGTH` are left as they are."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.blur import line_kernel

#: A frame whose smear measures less than this (px) is left as it is: frames with none
#: mostly measure 0.4-2.1 px (defocus and noise spread every side a little).
MIN_LENGTH = 2.5
#: The length measured, times this, is the smear taken out.
LENGTH_SCALE = 1.25
#: The Wiener filter's noise-to-signal share (0.005, 0.02, 0.05 tried with the true smear on
#: 40 hard scenes: 48, 53 and 54 of 76 smeared cards read, 46 as they were).
WIENER_K = 0.05
#: Sides measured: the most squares used, the least sides for a measure, the profile's reach
#: out and in (px) and its step, the least rise (grey levels a px) of a side that counts.
MAX_SQUARES = 48
MIN_SIDES = 16
REACH_PX = 8.0
STEP_PX = 0.5
MIN_RISE = 8.0
#: The share of the rise's peak its spread is measured down to.
RISE_FLOOR = 0.1
#: Where along a side its profiles are taken (shares of the side).
_ALONG = np.linspace(0.25, 0.75, 7)


def motion_blur(
    grey: NDArray[np.uint8], squares: NDArray[np.floating]
) -> tuple[float, float] | None:
    """(length px, angle degrees in [0, 180)) of the frame's motion blur measured across the
    sides of ``squares`` ((n, 4, 2) corners, dark inside: the dark squares of the codes'
    reader), or None when there are too few sides to tell or the smear measures under
    :data:`MIN_LENGTH`."""
    q = np.asarray(squares, np.float64).reshape(-1, 4, 2)
    if not len(q) or grey.ndim != 2:
        return None
    side_len = np.linalg.norm(np.roll(q, -1, axis=1) - q, axis=2)
    q = q[np.argsort(-side_len.min(axis=1), kind="stable")[:MAX_SQUARES]]
    a, b = q, np.roll(q, -1, axis=1)
    side = (b - a).reshape(-1, 2)
    length = np.linalg.norm(side, axis=1)
    ok = length >= 8.0
    side, length = side[ok], length[ok]
    if len(side) < MIN_SIDES:
        return None
    start = a.reshape(-1, 2)[ok]
    centre = np.repeat(q.mean(axis=1), 4, axis=0)[ok]
    unit = side / length[:, None]
    normal = np.column_stack([unit[:, 1], -unit[:, 0]])
    outward = np.einsum("ij,ij->i", normal, start + side / 2 - centre) >= 0
    normal[~outward] *= -1
    t = np.arange(-REACH_PX, REACH_PX + 1e-9, STEP_PX)
    points = start[:, None, :] + _ALONG[None, :, None] * side[:, None, :]  # (m, 7, 2)
    xy = points[:, :, None, :] + t[None, None, :, None] * normal[:, None, None, :]
    m = len(side)
    mx = xy[..., 0].reshape(m * len(_ALONG), len(t)).astype(np.float32)
    my = xy[..., 1].reshape(m * len(_ALONG), len(t)).astype(np.float32)
    # The grey levels as they are (a float copy of the frame would cost more than the rest).
    samples = cv2.remap(grey, mx, my, cv2.INTER_LINEAR)
    profile = np.asarray(samples, np.float64).reshape(m, len(_ALONG), len(t)).mean(axis=1)
    rise = np.clip(np.diff(profile, axis=1) / STEP_PX, 0.0, None)  # dark in, light out
    mid = (t[:-1] + t[1:]) / 2
    peak_at = np.argmax(rise, axis=1)
    peak = rise[np.arange(m), peak_at]
    # The rise's lobe round its peak: the run of samples above RISE_FLOOR of it.
    above = rise > RISE_FLOOR * peak[:, None]
    idx = np.arange(rise.shape[1])[None, :]
    below_left = np.where(~above & (idx < peak_at[:, None]), idx, -1).max(axis=1)
    below_right = np.where(~above & (idx > peak_at[:, None]), idx, rise.shape[1]).min(axis=1)
    lobe = (idx > below_left[:, None]) & (idx < below_right[:, None])
    w = np.where(lobe, rise, 0.0)
    total = w.sum(axis=1)
    keep = (peak >= MIN_RISE) & (total > 0)
    if keep.sum() < MIN_SIDES:
        return None
    w, total = w[keep], total[keep]
    mean = (w * mid).sum(axis=1) / total
    spread = (w * (mid - mean[:, None]) ** 2).sum(axis=1) / total
    phi = np.arctan2(normal[keep, 1], normal[keep, 0])
    design = np.column_stack([np.ones(len(phi)), np.cos(2 * phi), np.sin(2 * phi)])
    weight = np.ones(len(phi))
    coef = np.zeros(3)
    for _ in range(3):  # reweighted: sides of pictures' dark patches are no steps
        coef, *_ = np.linalg.lstsq(design * weight[:, None], spread * weight, rcond=None)
        residual = spread - design @ coef
        scale = 1.4826 * float(np.median(np.abs(residual))) + 1e-6
        weight = 1.0 / np.maximum(1.0, np.abs(residual) / (2 * scale))
    amplitude = float(math.hypot(coef[1], coef[2]))
    measured = math.sqrt(24.0 * amplitude)
    if not math.isfinite(measured) or measured < MIN_LENGTH:
        return None
    angle = math.degrees(0.5 * math.atan2(coef[2], coef[1])) % 180.0
    return measured * LENGTH_SCALE, angle


def deconvolved(
    frame: NDArray[np.uint8], length: float, angle: float, k: float = WIENER_K
) -> NDArray[np.uint8]:
    """``frame`` ((H, W) or (H, W, C) uint8) with a motion blur of ``length`` px at
    ``angle`` degrees taken out by a Wiener filter of noise share ``k`` (edges wrap)."""
    img = np.asarray(frame)
    h, w = img.shape[:2]
    kernel = line_kernel(length, angle)
    kh, kw = kernel.shape
    if kh > h or kw > w:
        return img.copy()
    padded = np.zeros((h, w), np.float32)
    padded[:kh, :kw] = kernel
    padded = np.roll(padded, (-(kh // 2), -(kw // 2)), axis=(0, 1))
    spectrum = cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT)
    re, im = spectrum[..., 0], spectrum[..., 1]
    # conj(H) / (|H|^2 + k), times 1 + k so that the frame's mean level (H = 1) is kept.
    power = (re * re + im * im + np.float32(k)) / np.float32(1 + k)
    wiener = np.dstack([re / power, -im / power]).astype(np.float32)
    channels = [img] if img.ndim == 2 else [img[..., c] for c in range(img.shape[2])]
    out = []
    for ch in channels:
        f = cv2.dft(ch.astype(np.float32), flags=cv2.DFT_COMPLEX_OUTPUT)
        g = cv2.mulSpectrums(f, wiener, 0)
        sharp = cv2.idft(g, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT)
        out.append(np.clip(sharp, 0, 255).astype(np.uint8))
    return out[0] if img.ndim == 2 else np.dstack(out)


__all__ = ["MIN_LENGTH", "deconvolved", "line_kernel", "motion_blur"]
