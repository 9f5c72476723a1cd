"""Difficulty tiers: the ranges the random generators draw from.

| parameter                    | easy          | normal          | hard            |
|------------------------------|---------------|-----------------|-----------------|
| camera height (mm)           | 600-750       | 600-900         | 500-1200        |
| tilt from vertical (deg)     | 0-15          | 0-30            | 0-40            |
| yaw (deg)                    | +-5           | +-30            | +-180           |
| roll (deg)                   | 0             | +-2             | +-5             |
| horizontal FOV (deg)         | 68-72         | 65-75           | 60-80           |
| distortion k1 / k2           | -0.05-0 / 0   | -0.15-0.05 / +-0.03 | -0.3-0.1 / +-0.08 |
| tangential p1, p2            | 0             | +-0.001         | +-0.003         |
| sensor noise sigma (8-bit)   | 0.5-1.5       | 1.5-4           | 3-9             |
| defocus sigma (px)           | 0-0.3         | 0.2-0.7         | 0.4-1.3         |
| motion blur (px)             | 0             | 0-2 (30%)       | 0-6 (50%)       |
| JPEG quality                 | none or 95    | 75-95           | 40-80           |
| exposure gain                | 0.95-1.05     | 0.75-1.15       | 0.5-1.3         |
| light gradient (each axis)   | +-0.05        | +-0.2           | +-0.4           |
| vignette                     | 0-0.1         | 0.05-0.3        | 0.15-0.5        |
| soft shadows                 | 0             | 0-1             | 0-3             |
| white balance tint           | +-2%          | +-6%            | +-12%           |
| glare per card (prob, peak)  | 0             | 15%, 0.3-0.7    | 35%, 0.5-0.95   |
| glare on the Picasso board   | 0             | 0               | 50%, 0.3-0.7    |
| hands                        | 0             | 0-1             | 1-2             |
| card overlap (max share hidden) | 0          | 0.3             | 0.6             |
| card turn (deg)              | +-15          | any             | any             |
| Picasso sticks / crossings   | 2-6 / >= 1    | 4-10 / >= 3     | 6-10 / >= 4     |
| Picasso shapes               | 0-2           | 0-4             | 2-4             |
| Picasso string on the board  | 30%           | 50%             | 70%             |
| Picmix cards in the area     | 2-3           | 2-4             | 2-4             |

Issue figures downstream are measured on ``normal`` (cards about 70-100 px wide at
1280x720).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synth.camera import Camera
from vision.synth.spec import EffectsSpec, ShadowBlob, TableSpec
from vision.synth.textures import TableKind

Range = tuple[float, float]


@dataclass(frozen=True)
class Tier:
    """Ranges of one difficulty tier (see the module docstring for the table)."""

    name: str
    height_mm: Range
    tilt_deg: Range
    yaw_deg: float
    roll_deg: float
    hfov_deg: Range
    k1: Range
    k2: float
    tangential: float
    noise_sigma: Range
    defocus_px: Range
    motion_p: float
    motion_px: Range
    jpeg_quality: tuple[int, int] | None
    jpeg_p: float
    gain: Range
    gradient: float
    vignette: Range
    shadows: tuple[int, int]
    tint: float
    glare_p: float
    glare_strength: Range
    hands: tuple[int, int]
    overlap_max: float
    card_turn_deg: float
    sticks: tuple[int, int]
    min_crossings: int
    shapes: tuple[int, int]
    string_p: float
    picmix_cards: tuple[int, int]
    board_glare_p: float = 0.0
    board_glare_strength: Range = (0.0, 0.0)


TIERS: dict[str, Tier] = {
    "easy": Tier(
        name="easy",
        height_mm=(600, 750),
        tilt_deg=(0, 15),
        yaw_deg=5,
        roll_deg=0,
        hfov_deg=(68, 72),
        k1=(-0.05, 0.0),
        k2=0.0,
        tangential=0.0,
        noise_sigma=(0.5, 1.5),
        defocus_px=(0.0, 0.3),
        motion_p=0.0,
        motion_px=(0, 0),
        jpeg_quality=(95, 95),
        jpeg_p=0.5,
        gain=(0.95, 1.05),
        gradient=0.05,
        vignette=(0.0, 0.1),
        shadows=(0, 0),
        tint=0.02,
        glare_p=0.0,
        glare_strength=(0.0, 0.0),
        hands=(0, 0),
        overlap_max=0.0,
        card_turn_deg=15,
        sticks=(2, 6),
        min_crossings=1,
        shapes=(0, 2),
        string_p=0.3,
        picmix_cards=(2, 3),
    ),
    "normal": Tier(
        name="normal",
        height_mm=(600, 900),
        tilt_deg=(0, 30),
        yaw_deg=30,
        roll_deg=2,
        hfov_deg=(65, 75),
        k1=(-0.15, 0.05),
        k2=0.03,
        tangential=0.001,
        noise_sigma=(1.5, 4.0),
        defocus_px=(0.2, 0.7),
        motion_p=0.3,
        motion_px=(0.0, 2.0),
        jpeg_quality=(75, 95),
        jpeg_p=1.0,
        gain=(0.75, 1.15),
        gradient=0.2,
        vignette=(0.05, 0.3),
        shadows=(0, 1),
        tint=0.06,
        glare_p=0.15,
        glare_strength=(0.3, 0.7),
        hands=(0, 1),
        overlap_max=0.3,
        card_turn_deg=180,
        sticks=(4, 10),
        min_crossings=3,
        shapes=(0, 4),
        string_p=0.5,
        picmix_cards=(2, 4),
    ),
    "hard": Tier(
        name="hard",
        height_mm=(500, 1200),
        tilt_deg=(0, 40),
        yaw_deg=180,
        roll_deg=5,
        hfov_deg=(60, 80),
        k1=(-0.3, 0.1),
        k2=0.08,
        tangential=0.003,
        noise_sigma=(3.0, 9.0),
        defocus_px=(0.4, 1.3),
        motion_p=0.5,
        motion_px=(0.0, 6.0),
        jpeg_quality=(40, 80),
        jpeg_p=1.0,
        gain=(0.5, 1.3),
        gradient=0.4,
        vignette=(0.15, 0.5),
        shadows=(0, 3),
        tint=0.12,
        glare_p=0.35,
        glare_strength=(0.5, 0.95),
        hands=(1, 2),
        overlap_max=0.6,
        card_turn_deg=180,
        sticks=(6, 10),
        min_crossings=4,
        shapes=(2, 4),
        string_p=0.7,
        picmix_cards=(2, 4),
        board_glare_p=0.5,
        board_glare_strength=(0.3, 0.7),
    ),
}


def get_tier(tier: str | Tier) -> Tier:
    """The ``Tier`` named ``tier`` (``ValueError`` for an unknown name)."""
    if isinstance(tier, Tier):
        return tier
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {sorted(TIERS)}")
    return TIERS[tier]


def _u(rng: np.random.Generator, r: Range) -> float:
    return float(rng.uniform(r[0], r[1])) if r[1] > r[0] else float(r[0])


def sample_camera(
    rng: np.random.Generator,
    tier: str | Tier,
    target_mm: tuple[float, float] = (0.0, 0.0),
    *,
    height_mm: Range | None = None,
) -> Camera:
    """A random camera of ``tier`` aimed near ``target_mm``."""
    t = get_tier(tier)
    h = _u(rng, height_mm or t.height_mm)
    tilt = _u(rng, t.tilt_deg)
    yaw = _u(rng, (-t.yaw_deg, t.yaw_deg))
    roll = _u(rng, (-t.roll_deg, t.roll_deg))
    hfov = _u(rng, t.hfov_deg)
    for _ in range(100):
        k1 = _u(rng, t.k1)
        dist = (
            k1,
            _u(rng, (-t.k2, t.k2)),
            _u(rng, (-t.tangential, t.tangential)),
            _u(rng, (-t.tangential, t.tangential)),
            0.0,
        )
        try:
            return Camera.from_pose(
                height_mm=h,
                tilt_deg=tilt,
                yaw_deg=yaw,
                roll_deg=roll,
                target_mm=target_mm,
                hfov_deg=hfov,
                dist=dist,
            )
        except ValueError:
            continue  # this lens folds back inside the frame: draw another
    return Camera.from_pose(
        height_mm=h, tilt_deg=tilt, yaw_deg=yaw, roll_deg=roll, target_mm=target_mm, hfov_deg=hfov
    )


def sample_effects(rng: np.random.Generator, tier: str | Tier) -> EffectsSpec:
    """Random light and sensor effects of ``tier``."""
    t = get_tier(tier)
    shadows = tuple(
        ShadowBlob(
            (_u(rng, (0.0, 1.0)), _u(rng, (0.0, 1.0))), _u(rng, (0.15, 0.45)), _u(rng, (0.1, 0.35))
        )
        for _ in range(int(rng.integers(t.shadows[0], t.shadows[1] + 1)))
    )
    motion = _u(rng, t.motion_px) if rng.random() < t.motion_p else 0.0
    jpeg = None
    if t.jpeg_quality is not None and rng.random() < t.jpeg_p:
        jpeg = int(rng.integers(t.jpeg_quality[0], t.jpeg_quality[1] + 1))
    tint = 1.0 + rng.uniform(-t.tint, t.tint, 3)
    return EffectsSpec(
        light_gain=_u(rng, t.gain),
        gradient=(_u(rng, (-t.gradient, t.gradient)), _u(rng, (-t.gradient, t.gradient))),
        vignette=_u(rng, t.vignette),
        tint_bgr=(float(tint[0]), float(tint[1]), float(tint[2])),
        shadows=shadows,
        defocus_sigma_px=_u(rng, t.defocus_px),
        motion_blur_px=motion,
        motion_angle_deg=_u(rng, (0.0, 180.0)),
        noise_sigma=_u(rng, t.noise_sigma),
        jpeg_quality=jpeg,
    )


_TABLE_COLOURS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "wood": ((95, 140, 185), (70, 110, 160), (120, 165, 205), (50, 80, 120)),
    "cloth": ((60, 110, 40), (120, 70, 40), (70, 70, 75), (40, 40, 110)),
    "plain": ((200, 200, 200), (215, 225, 230), (150, 150, 150), (90, 95, 100)),
}


def sample_table(rng: np.random.Generator) -> TableSpec:
    """A random table top (wood 50%, cloth 25%, plain 25%)."""
    kinds: tuple[TableKind, ...] = ("wood", "wood", "cloth", "plain")
    kind = kinds[int(rng.integers(4))]
    colours = _TABLE_COLOURS[kind]
    base = np.array(colours[int(rng.integers(len(colours)))], np.float64) * rng.uniform(0.9, 1.1)
    colour = tuple(int(c) for c in np.clip(base, 0, 255))
    return TableSpec(
        kind=kind, colour_bgr=(colour[0], colour[1], colour[2]), seed=int(rng.integers(0, 10_000))
    )
