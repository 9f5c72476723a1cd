"""Surface materials of board looks (``BoardLook``): painted sticks with a specular sheen,
glossy shapes, paper and woven canvas. The kit look uses none of them (its sprites are
drawn exactly as before looks existed); these add what other kits look like.

Each function works on float32 colour arrays in the object's own texels and draws its
randomness from the generator it is given (a stream of its own, never the kit look's).
"""

from __future__ import annotations

import math

import numpy as np

from vision.synth.textures import periodic_noise

#: The second key of the generator of a board's canvas texture (``default_rng([seed, 25])``):
#: a stream of its own, so the kit look's textures draw as before.
TEXTURE_STREAM = 25
#: The colour a specular highlight tends to (light slightly below pure white).
SPECULAR_BGR = np.array((250.0, 250.0, 250.0), np.float32)


def painted_stick(
    paint_bgr: tuple[int, int, int],
    across_mm: np.ndarray,
    width_mm: float,
    grain: np.ndarray,
    grain_depth: float,
    sheen: float,
    light_side: float,
) -> np.ndarray:
    """A painted stick's colour: flat paint over a trace of the grain, darker on its
    rounded edges, and a specular stripe along it on the side facing the light.

    Args:
        paint_bgr: the paint.
        across_mm: (h,) signed distance of each texel row from the stick's centre line, mm.
        width_mm: the stick's width, mm.
        grain: (h, w) wood grain noise (about unit spread), the stick's own.
        grain_depth: how much of the grain shows through the paint.
        sheen: the stripe's peak blend towards ``SPECULAR_BGR`` (0..1).
        light_side: +1 or -1, the side of the centre line facing the light (rows of
            positive or negative ``across_mm``).

    Returns:
        (h, w, 3) float32 colour.
    """
    half = width_mm / 2
    edge = 1.0 - 0.22 * np.clip(np.abs(across_mm) / half, 0, 1) ** 3
    colour = (
        np.array(paint_bgr, np.float32)
        * (1.0 + grain_depth * grain)[..., None]
        * edge[:, None, None].astype(np.float32)
    )
    centre = light_side * 0.22 * width_mm
    stripe = np.exp(-0.5 * ((across_mm - centre) / (0.11 * width_mm)) ** 2).astype(np.float32)
    # the sheen wanders a little along the stick (a hand-painted coat is not even)
    s = sheen * stripe[:, None] * (0.8 + 0.2 * np.clip(grain, -1, 1))
    out: np.ndarray = colour * (1.0 - s[..., None]) + SPECULAR_BGR * s[..., None]
    return out


def shape_highlight(
    colour: np.ndarray, ppm: float, centre_px: tuple[float, float], sheen: float
) -> np.ndarray:
    """A glossy shape: a broad soft highlight (about 9 mm across) at ``centre_px``,
    blended towards ``SPECULAR_BGR`` by up to ``sheen`` (returns a new array)."""
    h, w = colour.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - centre_px[0]) ** 2 + (yy - centre_px[1]) ** 2) / (9.0 * ppm) ** 2
    s = (sheen * np.exp(-2.0 * r2)).astype(np.float32)
    out: np.ndarray = colour * (1.0 - s[..., None]) + SPECULAR_BGR * s[..., None]
    return out


def canvas_texture(
    kind: str, shape_hw: tuple[int, int], ppm: float, rng: np.random.Generator
) -> np.ndarray:
    """(h, w) float32 relative lightness of a canvas's surface (multiply the tint by it):
    ``plain`` all ones; ``paper`` a mottled sheet with fine fibres; ``canvas`` a woven
    cloth: threads about 1.4 mm apart both ways, uneven in thickness, over a faint
    mottling. Kept within a few percent: a texture, not a pattern to read."""
    h, w = shape_hw
    if kind == "plain":
        return np.ones((h, w), np.float32)
    mottle = periodic_noise(rng, (h, w), (14.0 * ppm, 14.0 * ppm))
    if kind == "paper":
        fibres = periodic_noise(rng, (h, w), (0.35 * ppm, 1.6 * ppm))
        cross = periodic_noise(rng, (h, w), (1.6 * ppm, 0.35 * ppm))
        return (1.0 + 0.018 * mottle + 0.012 * fibres + 0.008 * cross).astype(np.float32)
    if kind != "canvas":
        raise ValueError(f"canvas texture must be plain, paper or canvas, got {kind!r}")
    period = float(rng.uniform(1.2, 1.6)) * ppm
    y = (np.arange(h, dtype=np.float32) + 0.5) / period
    x = (np.arange(w, dtype=np.float32) + 0.5) / period
    # threads: each row or column of thread a little thicker or thinner than the next
    warp = 1.0 + 0.35 * periodic_noise(rng, (1, w), (1.0, 0.6 * period))[0]
    weft = 1.0 + 0.35 * periodic_noise(rng, (h, 1), (0.6 * period, 1.0))[:, 0]
    tx = np.cos(2 * math.pi * x) * warp
    ty = np.cos(2 * math.pi * y) * weft
    # over-under: a thread is lighter where it lies on top
    checker = np.sign(np.cos(math.pi * x)[None, :] * np.cos(math.pi * y)[:, None])
    weave = 0.5 * (tx[None, :] + ty[:, None]) + 0.25 * checker * (tx[None, :] - ty[:, None])
    surface: np.ndarray = (1.0 + 0.022 * weave + 0.012 * mottle).astype(np.float32)
    return surface
