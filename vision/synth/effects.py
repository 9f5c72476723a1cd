"""Light and sensor effects applied to a clean rendered frame.

Order, as in a camera: scene light (exposure gain, gradient, vignette, white balance,
soft environmental shadows) -> lens defocus -> motion blur -> sensor noise (shot noise
grows with brightness) -> 8-bit clipping -> JPEG round trip.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np

from vision.blur import line_kernel as motion_kernel
from vision.synth._checks import check_frame
from vision.synth.spec import EffectsSpec, SceneSpec

NoiseSource = Callable[[tuple[int, int, int]], np.ndarray]


def scene_effects(spec: SceneSpec) -> EffectsSpec:
    """The scene's effects with the board look's and the card look's light temperature
    folded into the white balance (a tint on the whole scene before the camera);
    ``spec.effects`` itself under neutral light (the kit looks)."""
    light = spec.board.look.light_bgr if spec.board is not None else (1.0, 1.0, 1.0)
    if spec.card_look.light_bgr != (1.0, 1.0, 1.0):
        light = tuple(a * b for a, b in zip(light, spec.card_look.light_bgr, strict=True))
    if light == (1.0, 1.0, 1.0):
        return spec.effects
    tint = tuple(a * b for a, b in zip(spec.effects.tint_bgr, light, strict=True))
    return replace(spec.effects, tint_bgr=(tint[0], tint[1], tint[2]))


def light_map(effects: EffectsSpec, size_wh: tuple[int, int]) -> np.ndarray:
    """(H, W, 3) float32 multiplicative light of the scene (cached per effects and size)."""
    key = (
        effects.light_gain,
        effects.gradient,
        effects.vignette,
        effects.tint_bgr,
        effects.shadows,
        size_wh,
    )
    hit = _LIGHT_CACHE.get(key)
    if hit is not None:
        return hit
    w, h = size_wh
    # computed at 1/8 resolution: light is smooth
    sw, sh = max(2, w // 8), max(2, h // 8)
    x = (np.arange(sw, dtype=np.float32) + 0.5) / sw - 0.5
    y = (np.arange(sh, dtype=np.float32) + 0.5) / sh - 0.5
    xx, yy = np.meshgrid(x, y)
    lum = effects.light_gain * (1.0 + effects.gradient[0] * xx + effects.gradient[1] * yy)
    r2 = (xx**2 + (yy * h / w) ** 2) / (0.25 + 0.25 * (h / w) ** 2)
    lum *= 1.0 - effects.vignette * r2**1.5
    for s in effects.shadows:
        d2 = (
            (xx + 0.5 - s.center_frac[0]) ** 2 + ((yy + 0.5 - s.center_frac[1]) * h / w) ** 2
        ) / max(1e-6, s.radius_frac**2)
        lum *= 1.0 - s.strength * np.exp(-d2)
    small = lum[..., None] * np.asarray(effects.tint_bgr, np.float32)[None, None, :]
    out = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    _LIGHT_CACHE[key] = out
    while len(_LIGHT_CACHE) > 8:
        _LIGHT_CACHE.popitem(last=False)
    return out


_LIGHT_CACHE: OrderedDict[object, np.ndarray] = OrderedDict()


#: Noise fields are kept as int16 in units of 1/NOISE_ONE of a standard deviation.
NOISE_ONE = 64


class NoiseBank:
    """Precomputed Gaussian noise cut at random offsets: fast noise for long sequences.

    Each call returns a different (H, W, 3) int16 crop (unit sigma = ``NOISE_ONE``) of one
    larger field (random offset), deterministic given the generator.
    """

    def __init__(
        self, rng: np.random.Generator, shape: tuple[int, int, int], pad: int = 128
    ) -> None:
        h, w, c = shape
        self._field = standard_noise(rng, (h + pad, w + pad, c))
        self._rng = rng
        self._pad = pad

    def __call__(self, shape: tuple[int, int, int]) -> np.ndarray:
        h, w, _ = shape
        dy, dx = (int(v) for v in self._rng.integers(0, self._pad, 2))
        return self._field[dy : dy + h, dx : dx + w]


def standard_noise(rng: np.random.Generator, shape: tuple[int, int, int]) -> np.ndarray:
    """Sensor-like noise, mostly luminance with some chroma: (H, W, C) int16 with a
    standard deviation of ``NOISE_ONE``."""
    h, w, c = shape
    luma = rng.standard_normal((h, w, 1), dtype=np.float32)
    chroma = rng.standard_normal((h, w, c), dtype=np.float32)
    f = (0.85 * luma + 0.5 * chroma) * np.float32(NOISE_ONE / math.hypot(0.85, 0.5))
    return np.clip(np.rint(f), -32000, 32000).astype(np.int16)


def _light_u16(effects: EffectsSpec, size_wh: tuple[int, int]) -> np.ndarray:
    key = (
        "u16",
        effects.light_gain,
        effects.gradient,
        effects.vignette,
        effects.tint_bgr,
        effects.shadows,
        size_wh,
    )
    hit = _LIGHT_CACHE.get(key)
    if hit is None:
        hit = np.clip(np.rint(light_map(effects, size_wh) * 256), 0, 65535).astype(np.uint16)
        _LIGHT_CACHE[key] = hit
    return hit


def apply_effects(
    frame: np.ndarray,
    effects: EffectsSpec,
    rng: np.random.Generator,
    noise: NoiseSource | None = None,
) -> np.ndarray:
    """Apply ``effects`` to a clean frame.

    Args:
        frame: (H, W, 3) uint8 BGR, the clean render.
        effects: what to apply.
        rng: randomness of the noise (unused when ``noise`` is given).
        noise: a source of unit Gaussian noise fields, e.g. a ``NoiseBank``.

    Returns:
        (H, W, 3) uint8 BGR.
    """
    check_frame(frame)
    h, w = frame.shape[:2]
    e = effects
    lit = (e.light_gain, e.gradient, e.vignette, e.tint_bgr) != (
        1.0,
        (0.0, 0.0),
        0.0,
        (1.0, 1.0, 1.0),
    ) or e.shadows
    if (
        not lit
        and e.defocus_sigma_px <= 0
        and e.motion_blur_px < 1
        and e.noise_sigma <= 0
        and e.jpeg_quality is None
    ):
        return frame.copy()
    out = frame
    if lit:
        out = cv2.multiply(
            frame.astype(np.uint16), _light_u16(e, (w, h)), scale=1 / 256, dtype=cv2.CV_8U
        )
    if e.defocus_sigma_px > 0:
        out = cv2.GaussianBlur(out, (0, 0), e.defocus_sigma_px)
    if e.motion_blur_px >= 1:
        out = cv2.filter2D(out, -1, motion_kernel(e.motion_blur_px, e.motion_angle_deg))
    if e.noise_sigma > 0:
        field = noise((h, w, 3)) if noise is not None else standard_noise(rng, (h, w, 3))
        # variance = read + shot: sigma at mid-grey is ``noise_sigma``, looked up per level,
        # in 1/8 level units so that the int16 product keeps its precision
        levels = np.arange(256, dtype=np.float64)
        lut = np.rint(np.sqrt(np.maximum(0.3 + 0.7 * levels / 128, 0.05)) * e.noise_sigma * 8)
        scale = cv2.LUT(out, np.clip(lut, 0, 255).astype(np.uint8)).astype(np.int16)
        delta = cv2.multiply(field, scale, scale=1 / (8 * NOISE_ONE), dtype=cv2.CV_16S)
        out = cv2.add(out, delta, dtype=cv2.CV_8U)
    elif out is frame:
        out = frame.copy()
    if e.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(e.jpeg_quality)])
        if not ok:
            raise ValueError(f"JPEG encoding failed at quality {e.jpeg_quality}")
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if decoded is None:
            raise ValueError("JPEG decoding failed")
        out = decoded
    return out
