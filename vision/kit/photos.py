"""The 120 Pick Pic photographs: crops of the photographs scikit-image ships, plus procedural
landscapes to fill up.

Sources are the ``skimage.data`` images bundled with the package (no download): each is cut
into a grid of non-overlapping crops with the aspect of the card's picture area, and each crop
gets a colour grade that keeps it photo-like (white balance, toning of black-and-white
photographs, fading) and sometimes a mirror flip. The rest are landscapes drawn from fractal
noise with their own seeds. Everything is deterministic: ``photo_image(spec)`` returns the
same pixels for the same spec.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.kit.geometry import PICTURE_RECT

PHOTO_ASPECT = PICTURE_RECT.w / PICTURE_RECT.h
"""Width / height of a photo: the picture area of a portrait front (57 x 82 mm)."""
LANDSCAPE_SIZE_WH = (342, 492)
"""Pixel size at which procedural photos are drawn (6 px/mm over the picture area)."""


@dataclass(frozen=True)
class PhotoSpec:
    """How to make one photo.

    ``source`` is a ``skimage.data`` image name, or ``"landscape"`` for a procedural one;
    ``box`` the crop (x, y, w, h) in source pixels; ``grade`` a colour grade name (see
    ``GRADES``); ``flip`` mirrors left-right; ``seed`` drives procedural photos.
    """

    source: str
    box: tuple[int, int, int, int] | None
    grade: str
    flip: bool = False
    seed: int = 0
    scene: str = ""

    @property
    def title(self) -> str:
        if self.source == "landscape":
            return f"{self.scene} (procedural, seed {self.seed})"
        return f"{self.source} crop {self.box} {self.grade}{' flipped' if self.flip else ''}"


# --------------------------------------------------------------------------------------------
# Colour grades (RGB float images in [0, 1])
# --------------------------------------------------------------------------------------------
def _c(*values: float) -> np.ndarray:
    """An RGB colour (or any small vector) as a float32 array."""
    return np.array(values, np.float32)


def _tone(
    grey: np.ndarray, dark: tuple[float, float, float], light: tuple[float, float, float]
) -> np.ndarray:
    """Duotone of a (H, W) grey image in [0, 1]: dark -> light, RGB tuples in [0, 1]."""
    d = np.asarray(dark, np.float32)
    lt = np.asarray(light, np.float32)
    return np.asarray(d + grey[..., None] * (lt - d), np.float32)


def _grey(rgb: np.ndarray) -> np.ndarray:
    return (rgb @ np.array([0.299, 0.587, 0.114], np.float32)).astype(np.float32)


def _balance(rgb: np.ndarray, gains: tuple[float, float, float]) -> np.ndarray:
    return rgb * np.asarray(gains, np.float32)


def _grade(rgb: np.ndarray, grade: str) -> np.ndarray:
    """Apply a named grade to a (H, W, 3) float32 RGB image in [0, 1]."""
    g = _grey(rgb)
    if grade == "none":
        out = rgb
    elif grade == "warm":
        out = _balance(rgb, (1.10, 1.0, 0.82))
    elif grade == "cool":
        out = _balance(rgb, (0.85, 0.98, 1.15))
    elif grade == "faded":
        out = 0.18 + 0.72 * (0.6 * rgb + 0.4 * g[..., None]) * _c(1.02, 1.0, 0.93)
    elif grade == "vivid":
        out = g[..., None] + 1.45 * (rgb - g[..., None])
        out = (out - 0.5) * 1.15 + 0.5
    elif grade == "bw":
        out = np.repeat(g[..., None], 3, axis=2)
    elif grade == "sepia":
        out = _tone(g, (0.16, 0.09, 0.04), (1.0, 0.93, 0.78))
    elif grade == "cyanotype":
        out = _tone(g, (0.02, 0.12, 0.32), (0.88, 0.95, 1.0))
    elif grade == "selenium":
        out = _tone(g, (0.17, 0.07, 0.14), (0.98, 0.94, 0.92))
    elif grade == "terracotta":
        out = _tone(g, (0.25, 0.07, 0.03), (1.0, 0.72, 0.55))
    elif grade == "moss":
        out = _tone(g, (0.05, 0.14, 0.03), (0.80, 0.95, 0.45))
    elif grade == "straw":
        out = _tone(g, (0.22, 0.16, 0.04), (1.0, 0.93, 0.62))
    elif grade == "slate":
        out = _tone(g, (0.08, 0.10, 0.14), (0.80, 0.86, 0.92))
    elif grade == "sand":
        out = _tone(g, (0.32, 0.22, 0.12), (1.0, 0.90, 0.72))
    elif grade == "night":
        out = _tone(g, (0.0, 0.02, 0.10), (0.55, 0.75, 1.0))
    elif grade == "rose":
        out = _tone(g, (0.20, 0.04, 0.10), (1.0, 0.82, 0.86))
    elif grade == "ochre":
        out = _tone(g, (0.20, 0.10, 0.02), (0.98, 0.80, 0.35))
    else:
        raise ValueError(f"unknown photo grade {grade!r}; known: {', '.join(GRADES)}")
    return np.asarray(np.clip(out, 0.0, 1.0), np.float32)


GRADES = (
    "none",
    "warm",
    "cool",
    "faded",
    "vivid",
    "bw",
    "sepia",
    "cyanotype",
    "selenium",
    "terracotta",
    "moss",
    "straw",
    "slate",
    "sand",
    "night",
    "rose",
    "ochre",
)

# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------
# (name, crop (w, h), grid origin (x, y), (cols, rows), grades in row-major order, flips).
# A grade of "" drops that cell (an empty or duplicate-looking part of the photograph).
_GRIDS: tuple[
    tuple[str, tuple[int, int], tuple[int, int], tuple[int, int], tuple[str, ...], str], ...
] = (
    (
        "astronaut",
        (168, 242),
        (4, 14),
        (3, 2),
        ("none", "warm", "none", "vivid", "none", "cool"),
        "010010",
    ),
    (
        "coffee",
        (138, 199),
        (24, 1),
        (4, 2),
        ("none", "warm", "none", "faded", "cool", "none", "vivid", "none"),
        "00100100",
    ),
    ("chelsea", (150, 216), (0, 42), (3, 1), ("none", "warm", "faded"), "001"),
    (
        "rocket",
        (148, 213),
        (24, 0),
        (4, 2),
        ("none", "", "", "warm", "none", "vivid", "none", "faded"),
        "00000010",
    ),
    (
        "motorcycle",
        (172, 248),
        (26, 2),
        (4, 2),
        ("none", "warm", "none", "cool", "vivid", "none", "faded", "none"),
        "00010100",
    ),
    (
        "immunohistochemistry",
        (168, 242),
        (4, 14),
        (3, 2),
        ("none", "cool", "none", "warm", "faded", "none"),
        "000100",
    ),
    (
        "retina",
        (280, 403),
        (285, 300),
        (3, 2),
        ("none", "", "faded", "", "vivid", "cool"),
        "001001",
    ),
    (
        "hubble_deep_field",
        (300, 431),
        (50, 5),
        (3, 2),
        ("none", "", "warm", "", "cool", ""),
        "000000",
    ),
    (
        "camera",
        (168, 242),
        (4, 14),
        (3, 2),
        ("bw", "sepia", "cyanotype", "selenium", "bw", "sepia"),
        "000100",
    ),
    (
        "coins",
        (105, 151),
        (34, 1),
        (3, 2),
        ("bw", "ochre", "sepia", "slate", "selenium", "bw"),
        "000000",
    ),
    ("moon", (168, 242), (4, 14), (3, 2), ("bw", "sand", "", "", "sepia", ""), "000000"),
    ("brick", (168, 242), (4, 14), (3, 2), ("terracotta", "", "", "", "", "bw"), "000000"),
    ("grass", (168, 242), (4, 14), (3, 2), ("moss", "", "", "", "straw", ""), "000000"),
    ("gravel", (168, 242), (4, 14), (3, 2), ("", "sand", "", "slate", "", ""), "000000"),
    ("page", (132, 190), (60, 0), (2, 1), ("bw", "sepia"), "00"),
    ("text", (119, 171), (45, 0), (3, 1), ("bw", "cyanotype", "rose"), "000"),
)

LANDSCAPE_SCENES = ("mountains", "sea", "dunes", "forest", "clouds", "field", "lake", "city")


def _photo_specs() -> tuple[PhotoSpec, ...]:
    specs: list[PhotoSpec] = []
    for name, (cw, ch), (ox, oy), (cols, rows), grades, flips in _GRIDS:
        for r in range(rows):
            for c in range(cols):
                k = r * cols + c
                if not grades[k]:
                    continue
                box = (ox + c * cw, oy + r * ch, cw, ch)
                specs.append(PhotoSpec(name, box, grades[k], flip=flips[k] == "1"))
    n_fill = 120 - len(specs)
    for k in range(n_fill):
        specs.append(
            PhotoSpec(
                "landscape",
                None,
                "none",
                seed=1000 + k,
                scene=LANDSCAPE_SCENES[k % len(LANDSCAPE_SCENES)],
            )
        )
    return tuple(specs)


#: The files of the ``skimage.data`` images the kit's photos are cut from (in scikit-image's
#: ``data`` folder), read with OpenCV: the same pixels as ``skimage.data``'s loaders give,
#: without the image-reading libraries those import (imageio, Pillow and their plugins, some
#: 30 MB of a live process's memory).
SOURCE_FILES: dict[str, str] = {
    "astronaut": "astronaut.png",
    "brick": "brick.png",
    "camera": "camera.png",
    "chelsea": "chelsea.png",
    "coffee": "coffee.png",
    "coins": "coins.png",
    "grass": "grass.png",
    "gravel": "gravel.png",
    "hubble_deep_field": "hubble_deep_field.jpg",
    "immunohistochemistry": "ihc.png",
    "moon": "moon.png",
    "motorcycle": "motorcycle_left.png",
    "page": "page.png",
    "retina": "retina.jpg",
    "rocket": "rocket.jpg",
    "text": "text.png",
}


@functools.cache
def _source_rgb(name: str) -> np.ndarray:
    """A ``skimage.data`` image as (H, W, 3) uint8 RGB (read-only)."""
    img = _read_source_file(name)
    if img is None:  # not in the data folder: skimage's own loader (it may fetch it)
        from skimage import data

        loader = getattr(data, "stereo_motorcycle" if name == "motorcycle" else name)
        img = np.asarray(loader()[0] if name == "motorcycle" else loader())
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=2)
    out = np.ascontiguousarray(img[..., :3].astype(np.uint8))
    out.setflags(write=False)
    return out


def _read_source_file(name: str) -> np.ndarray | None:
    """The image file of ``SOURCE_FILES[name]`` as (H, W) or (H, W, 3+) RGB, or None when it
    is not there or cannot be read."""
    import importlib.util

    spec = importlib.util.find_spec("skimage")
    if name not in SOURCE_FILES or spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "data" / SOURCE_FILES[name]
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if path.suffix == ".png":
        raw = _without_png_chunk(raw, b"iCCP")  # page.png's makes libpng warn on stderr
    img = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_UNCHANGED)
    if img is None or img.dtype != np.uint8:
        return None
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA if img.shape[2] == 4 else cv2.COLOR_BGR2RGB)
    return np.asarray(img)


def _without_png_chunk(png: bytes, kind: bytes) -> bytes:
    """``png`` without its chunks of type ``kind`` (the bytes unchanged if they do not parse
    as PNG chunks)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return png
    out, at = [png[:8]], 8
    while at + 12 <= len(png):
        length = int.from_bytes(png[at : at + 4], "big")
        end = at + 12 + length
        if end > len(png):
            return png
        if png[at + 4 : at + 8] != kind:
            out.append(png[at:end])
        at = end
    return b"".join(out) if at == len(png) else png


# --------------------------------------------------------------------------------------------
# Procedural landscapes
# --------------------------------------------------------------------------------------------
def _noise(
    rng: np.random.Generator,
    shape_hw: tuple[int, int],
    octaves: int = 5,
    base: int = 3,
    persistence: float = 0.5,
) -> np.ndarray:
    """(H, W) float32 fractal noise in about [-1, 1], from upsampled random grids."""
    h, w = shape_hw
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for o in range(octaves):
        n = base * 2**o
        grid = rng.standard_normal((n + 1, n + 1)).astype(np.float32)
        out += amp * cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
        total += amp
        amp *= persistence
    return out / total


def _ridge(rng: np.random.Generator, w: int, base_y: float, rough: float) -> np.ndarray:
    """(W,) y of a hill or mountain line: fractal noise around ``base_y`` (pixels)."""
    line = _noise(rng, (1, w), octaves=6, base=2, persistence=0.55)[0]
    return np.asarray(base_y + rough * line, np.float32)


def _lerp(
    a: np.ndarray | tuple[float, ...], b: np.ndarray | tuple[float, ...], t: np.ndarray
) -> np.ndarray:
    a_ = np.asarray(a, np.float32)
    b_ = np.asarray(b, np.float32)
    return np.asarray(a_ + t[..., None] * (b_ - a_), np.float32)


_SKIES = (  # (zenith, horizon) RGB
    ((0.20, 0.42, 0.78), (0.78, 0.88, 0.96)),  # clear day
    ((0.16, 0.18, 0.45), (0.98, 0.62, 0.35)),  # sunset
    ((0.55, 0.62, 0.70), (0.86, 0.87, 0.86)),  # overcast
    ((0.02, 0.04, 0.14), (0.18, 0.22, 0.42)),  # night
    ((0.45, 0.60, 0.85), (0.98, 0.86, 0.70)),  # morning
    ((0.30, 0.12, 0.35), (0.98, 0.50, 0.40)),  # dusk
)
_GROUNDS = (  # (near, far) RGB
    ((0.20, 0.35, 0.12), (0.45, 0.60, 0.40)),  # green
    ((0.55, 0.42, 0.22), (0.80, 0.70, 0.52)),  # dry
    ((0.30, 0.28, 0.32), (0.60, 0.62, 0.70)),  # rock
    ((0.08, 0.16, 0.10), (0.30, 0.40, 0.42)),  # dark forest
    ((0.85, 0.88, 0.92), (0.70, 0.76, 0.86)),  # snow
)


def _sky(rng: np.random.Generator, h: int, w: int, horizon: float, sky: int) -> np.ndarray:
    zen, hor = _SKIES[sky]
    t = np.clip(np.arange(h, dtype=np.float32) / max(horizon, 1.0), 0, 1) ** 1.3
    img = np.repeat(_lerp(zen, hor, t)[:, None, :], w, axis=1)
    clouds = _noise(rng, (h, w), octaves=6, base=2)
    cover = np.clip((clouds - rng.uniform(0.0, 0.35)) * 2.5, 0, 1)[..., None]
    cloud_col = np.asarray(hor, np.float32) * 0.5 + 0.5
    if sky == 3:
        cloud_col = cloud_col * 0.35
    return img * (1 - 0.75 * cover) + cloud_col * 0.75 * cover


def _landscape(scene: str, seed: int) -> np.ndarray:
    """A procedural photo-like scene as (H, W, 3) float32 RGB in [0, 1]."""
    rng = np.random.default_rng(seed)
    w, h = LANDSCAPE_SIZE_WH
    ys = np.arange(h, dtype=np.float32)[:, None]
    xs = np.arange(w, dtype=np.float32)[None, :]
    sky_i = int(rng.integers(len(_SKIES)))
    ground_i = int(rng.integers(len(_GROUNDS)))
    horizon = h * rng.uniform(0.35, 0.6)
    img = _sky(rng, h, w, horizon, sky_i)
    near, far = _GROUNDS[ground_i]
    if sky_i != 3 and rng.random() < 0.5:  # a sun or moon disc with a glow
        cx, cy, r = rng.uniform(0.2, 0.8) * w, rng.uniform(0.15, 0.6) * horizon, rng.uniform(10, 26)
        d = np.hypot(xs - cx, ys - cy)
        glow = np.clip(1 - d / (r * 5), 0, 1) ** 2 * 0.5 + (d < r)
        img = img + np.clip(glow, 0, 1)[..., None] * (_c(1.0, 0.95, 0.8) - img)
    if scene in ("mountains", "lake"):
        layers = int(rng.integers(2, 5))
        for k in range(layers):
            t = (k + 1) / layers
            line = _ridge(rng, w, horizon - (layers - k) * h * 0.06, h * (0.16 - 0.03 * k))
            mask = ys > line[None, :]
            col = _lerp(far, near, np.array(t, np.float32))
            shade = 0.85 + 0.25 * _noise(rng, (h, w), octaves=4, base=4)[..., None]
            img = np.where(mask[..., None], col * shade, img)
            if ground_i != 4 and k == 0 and rng.random() < 0.6:  # snow caps
                cap = mask & (ys < line[None, :] + h * 0.04)
                img = np.where(cap[..., None], _c(0.93, 0.95, 0.97), img)
        if scene == "lake":
            water_y = int(horizon + h * 0.08)
            refl = img[water_y - 1 :: -1][: h - water_y]
            ripple = 0.9 + 0.1 * _noise(rng, refl.shape[:2], octaves=3, base=8)[..., None]
            img[water_y : water_y + refl.shape[0]] = refl * ripple * _c(0.8, 0.9, 1.0)
    elif scene == "sea":
        sea_top = _c(float(rng.uniform(0.1, 0.3)), 0.3, 0.55)
        t = np.clip((ys - horizon) / (h - horizon), 0, 1)
        col = _lerp(sea_top + 0.2, (0.02, 0.12, 0.30), t[:, 0])
        waves = 0.9 + 0.15 * np.sin(ys * 0.9 + 6 * _noise(rng, (h, w), octaves=3, base=6))
        img = np.where((ys > horizon)[..., None], col[:, None, :] * waves[..., None], img)
        if rng.random() < 0.6:  # a beach in front
            line = _ridge(rng, w, h * rng.uniform(0.78, 0.9), h * 0.04)
            sand = _c(0.86, 0.78, 0.60) * (0.9 + 0.1 * _noise(rng, (h, w))[..., None])
            img = np.where((ys > line[None, :])[..., None], sand, img)
    elif scene == "dunes":
        for k in range(4):
            line = _ridge(rng, w, horizon + k * h * 0.12, h * 0.08)
            shade = 0.75 + 0.3 * np.clip((ys - line[None, :]) / (h * 0.15), 0, 1)
            col = _c(0.93, 0.70, 0.42) * (0.8 + 0.07 * k)
            img = np.where((ys > line[None, :])[..., None], col * shade[..., None], img)
    elif scene == "forest":
        ground = _lerp(far, near, (ys[:, 0] / h))[:, None, :] * 0.6
        img = np.where((ys > horizon)[..., None], ground, img)
        tops = sorted(rng.uniform(-0.05, 0.45, int(rng.integers(25, 45))))
        for rel in tops:  # far trees first, so near ones cover them
            tx, ty = rng.uniform(0, w), horizon + rel * h
            th, tw = rng.uniform(0.15, 0.4) * h, rng.uniform(0.05, 0.10) * w
            phase = rng.uniform(0, 6)
            shade = 0.55 + 0.6 * rel
            col = np.asarray(near, np.float32) * shade * (0.9 + 0.2 * rng.random())
            # work in the tree's bounding box only
            ya, yb = max(0, int(ty - th)), min(h, int(ty + th * 0.08) + 1)
            xa, xb = max(0, int(tx - tw) - 1), min(w, int(tx + tw) + 2)
            if ya >= yb or xa >= xb:
                continue
            by, bx = ys[ya:yb], xs[:, xa:xb]
            u = np.clip((by - (ty - th)) / th, 0, 1)
            jag = 0.7 + 0.3 * np.abs(np.sin(by * 0.5 + phase))
            tree = (by < ty) & (by > ty - th) & (np.abs(bx - tx) < tw * u * jag)
            trunk = (by >= ty) & (by < ty + th * 0.08) & (np.abs(bx - tx) < tw * 0.12)
            box = img[ya:yb, xa:xb]
            box[tree] = col
            box[trunk] = _c(0.25, 0.17, 0.10) * shade
    elif scene == "field":
        t = np.clip((ys - horizon) / (h - horizon), 0, 1)
        rows = np.sin((xs - w / 2) / (1 + 12 * t) * 0.6 + rng.uniform(0, 6))
        col = _lerp(far, near, t[:, 0])[:, None, :] * (0.85 + 0.12 * rows[..., None])
        img = np.where((ys > horizon)[..., None], col, img)
    elif scene == "clouds":
        puff = _noise(rng, (h, w), octaves=6, base=3)
        light = np.clip((puff + 0.1) * 2.2, 0, 1)[..., None]
        img = img * (1 - 0.8 * light) + 0.8 * light * _c(0.97, 0.96, 0.94)
        line = _ridge(rng, w, h * rng.uniform(0.82, 0.92), h * 0.05)
        img = np.where((ys > line[None, :])[..., None], np.asarray(near, np.float32) * 0.45, img)
    elif scene == "city":
        x = 0.0
        while x < w:
            bw, bh = rng.uniform(0.06, 0.16) * w, rng.uniform(0.1, 0.45) * h
            level = float(rng.uniform(0.15, 0.45))
            box = (xs >= x) & (xs < x + bw) & (ys > horizon + h * 0.2 - bh)
            img = np.where(box[..., None], _c(level, level, level * 1.1), img)
            cells = rng.random((h // 8 + 1, w // 6 + 1)) < rng.uniform(0.15, 0.5)
            lit = (
                box
                & cells[ys.astype(int) // 8, xs.astype(int) // 6]
                & ((ys.astype(int) % 8) > 3)
                & ((xs.astype(int) % 6) > 2)
            )
            img = np.where(lit[..., None], _c(1.0, 0.85, 0.5), img)
            x += bw + rng.uniform(0, 4)
        img = np.where((ys > horizon + h * 0.2)[..., None], np.asarray(near, np.float32) * 0.5, img)
    else:
        raise ValueError(f"unknown landscape scene {scene!r}")
    grain = rng.normal(0, 0.018, (h, w, 1)).astype(np.float32)
    vignette = 1 - 0.25 * (((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2)[..., None]
    return np.clip((img + grain) * vignette, 0, 1).astype(np.float32)


@functools.lru_cache(maxsize=256)
def photo_rgb(spec: PhotoSpec) -> np.ndarray:
    """The photo as (H, W, 3) uint8 RGB at its source resolution (read-only)."""
    if spec.source == "landscape":
        img = _landscape(spec.scene, spec.seed)
    else:
        if spec.box is None:
            raise ValueError(f"photo from {spec.source!r} needs a crop box")
        x, y, w, h = spec.box
        src = _source_rgb(spec.source)
        if x < 0 or y < 0 or x + w > src.shape[1] or y + h > src.shape[0]:
            raise ValueError(f"crop {spec.box} outside {spec.source} {src.shape[1]}x{src.shape[0]}")
        img = src[y : y + h, x : x + w].astype(np.float32) / 255.0
    img = _grade(img, spec.grade)
    if spec.flip:
        img = img[:, ::-1]
    out = np.ascontiguousarray((img * 255.0 + 0.5).astype(np.uint8))
    out.setflags(write=False)
    return out


PHOTO_SPECS: tuple[PhotoSpec, ...] = _photo_specs()
"""The 120 Pick Pic photos, in card order (``pickpic-001`` is ``PHOTO_SPECS[0]``)."""
