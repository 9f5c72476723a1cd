"""Sprite textures: the planar things the renderer warps onto the frame.

A ``SpriteTex`` is a premultiplied BGRA texture covering ``size_mm`` of the object's own
plane, with an optional region map (which label each texel belongs to; 255 = none,
e.g. a baked-in shadow). Everything here is drawn in the object's own millimetres at a
texture resolution the renderer chooses (``px_per_mm``), and is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.materials import (
    TEXTURE_STREAM,
    canvas_texture,
    painted_stick,
    shape_highlight,
)
from vision.synth.spec import (
    BOARD_FRAME_MM,
    BOARD_MARKER_IDS,
    BOARD_MARKER_MM,
    CANVAS_WH_MM,
    KIT_LOOK,
    STICK_LW_MM,
    BoardLook,
    GlareSpec,
    HandSpec,
    ShapeSpec,
    StickSpec,
    StringSpec,
)
from vision.synth.textures import marker_cells, periodic_noise

NO_REGION = 255
SHIFT = 4  # sub-pixel bits for cv2 drawing
_ONE = 1 << SHIFT

SHAPE_BGR: dict[str, tuple[int, int, int]] = {
    "red": (45, 40, 200),
    "blue": (175, 95, 30),
    "yellow": (35, 200, 240),
    "green": (60, 150, 50),
}
SKIN_BGR: tuple[tuple[int, int, int], ...] = (
    (175, 195, 235),
    (140, 165, 215),
    (105, 140, 190),
    (75, 105, 150),
    (50, 70, 100),
)
WOOD_BGR = (125, 182, 222)
STRING_BGR = (38, 36, 40)
#: The kit look's canvas (off-white).
CANVAS_BGR = (228, 238, 242)


@dataclass(frozen=True, eq=False)
class SpriteTex:
    """A texture for one planar object.

    Attributes:
        bgra: (h, w, 4) uint8, premultiplied alpha (colour already multiplied by alpha).
        size_mm: (width, height) of the plane area the texture covers, mm.
        regions: (h, w) uint8 region index per texel (``NO_REGION`` = unlabelled), or
            ``None`` for "region 0 wherever alpha >= 0.5".
    """

    bgra: np.ndarray
    size_mm: tuple[float, float]
    regions: np.ndarray | None = None


def _pts(p: np.ndarray, ppm: float) -> np.ndarray:
    """(N, 2) mm -> fixed-point texel coordinates for cv2 drawing (texel centres at +0.5)."""
    return np.round((np.asarray(p) * ppm - 0.5) * _ONE).astype(np.int32)


def _premultiply(colour: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """(h, w, 3) float colour in 0..255, (h, w) alpha in 0..1 -> (h, w, 4) uint8 premultiplied."""
    out = np.empty((*alpha.shape, 4), np.uint8)
    out[..., :3] = np.clip(colour * alpha[..., None] + 0.5, 0, 255).astype(np.uint8)
    out[..., 3] = np.clip(alpha * 255 + 0.5, 0, 255).astype(np.uint8)
    return out


def _with_shadow(
    colour: np.ndarray,
    alpha: np.ndarray,
    shift_px: tuple[float, float],
    blur_px: float,
    strength: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Composite a soft drop shadow under an object: returns (premultiplied bgra, regions)."""
    m = np.array([[1, 0, shift_px[0]], [0, 1, shift_px[1]]], np.float32)
    moved: np.ndarray = cv2.warpAffine(alpha, m, (alpha.shape[1], alpha.shape[0]))
    if blur_px > 0:
        moved = cv2.GaussianBlur(moved, (0, 0), blur_px)
    sh = moved.astype(np.float32) * np.float32(strength)
    out_a = alpha + sh * (1.0 - alpha)
    bgra = np.empty((*alpha.shape, 4), np.uint8)
    bgra[..., :3] = np.clip(colour * alpha[..., None] + 0.5, 0, 255).astype(np.uint8)
    bgra[..., 3] = np.clip(out_a * 255 + 0.5, 0, 255).astype(np.uint8)
    regions = np.where(alpha >= 0.5, 0, NO_REGION).astype(np.uint8)
    return bgra, regions


def _local_shadow_shift(shadow_mm: tuple[float, float], angle_deg: float) -> tuple[float, float]:
    """A table-frame shadow offset expressed in an object's frame turned ``angle_deg``."""
    a = math.radians(angle_deg)
    x, y = shadow_mm
    return (x * math.cos(a) + y * math.sin(a), -x * math.sin(a) + y * math.cos(a))


# --------------------------------------------------------------------------- cards


def card_sprite(
    face_bgr: np.ndarray,
    size_wh_mm: tuple[float, float],
    *,
    split: str | None,
    corner_mm: float = 3.0,
) -> SpriteTex:
    """A card face with rounded corners. ``split`` ``"x"``/``"y"`` labels the two halves
    regions 0 and 1 (Picmix: left | right, or top | bottom); ``None``: one region."""
    h, w = face_bgr.shape[:2]
    ppm = w / size_wh_mm[0]
    alpha = np.zeros((h, w), np.uint8)
    r = corner_mm * ppm
    box = np.array([[r, r], [w - r, r], [w - r, h - r], [r, h - r]]) / ppm
    cv2.rectangle(alpha, (round(r), 0), (w - 1 - round(r), h - 1), 255, -1)
    cv2.rectangle(alpha, (0, round(r)), (w - 1, h - 1 - round(r)), 255, -1)
    for c in box:
        cx, cy = _pts(c[None], ppm)[0]
        cv2.circle(alpha, (int(cx), int(cy)), round(r * _ONE), 255, -1, cv2.LINE_AA, SHIFT)
    bgra = np.empty((h, w, 4), np.uint8)
    a = alpha.astype(np.float32) / 255.0
    bgra[..., :3] = np.clip(face_bgr * a[..., None] + 0.5, 0, 255).astype(np.uint8)
    bgra[..., 3] = alpha
    regions = np.where(alpha >= 128, 0, NO_REGION).astype(np.uint8)
    if split == "x":
        regions[:, w // 2 :][regions[:, w // 2 :] == 0] = 1
    elif split == "y":
        regions[h // 2 :][regions[h // 2 :] == 0] = 1
    return SpriteTex(bgra, size_wh_mm, regions)


def look_face(
    face_bgr: np.ndarray,
    paper_bgr: tuple[float, float, float],
    contrast: float,
    saturation: float,
) -> np.ndarray:
    """A card face as printed on another stock with another ink (``vision.synth.spec.CardLook``):
    its saturation scaled round each pixel's grey, its contrast against white paper scaled,
    then tinted by the paper. Ones give the face back unchanged (uint8 BGR in and out)."""
    if paper_bgr == (1.0, 1.0, 1.0) and contrast == 1.0 and saturation == 1.0:
        return face_bgr
    f = face_bgr.astype(np.float32)
    grey = f @ np.array([0.114, 0.587, 0.299], np.float32)
    f = grey[..., None] + saturation * (f - grey[..., None])
    f = 255.0 - contrast * (255.0 - f)
    f = f * np.asarray(paper_bgr, np.float32)[None, None, :]
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)


def sleeve_sprite(
    size_wh_mm: tuple[float, float],
    reach_mm: float,
    haze: float,
    sheen: float,
    sheen_deg: float,
    ppm: float,
    corner_mm: float = 3.0,
) -> SpriteTex:
    """A clear plastic sleeve over a card (unlabelled): a white haze of ``haze`` over the card
    and ``reach_mm`` beyond each edge, a brighter rim at the sleeve's edge, and a broad band
    of sheen (peak ``sheen``) across it at ``sheen_deg`` in the sleeve's own frame. The
    sprite covers ``size_wh_mm`` grown by ``reach_mm`` on every side."""
    w_mm, h_mm = size_wh_mm[0] + 2 * reach_mm, size_wh_mm[1] + 2 * reach_mm
    w, h = max(2, round(w_mm * ppm)), max(2, round(h_mm * ppm))
    inside = np.zeros((h, w), np.uint8)
    r = (corner_mm + reach_mm) * ppm
    cv2.rectangle(inside, (round(r), 0), (w - 1 - round(r), h - 1), 255, -1)
    cv2.rectangle(inside, (0, round(r)), (w - 1, h - 1 - round(r)), 255, -1)
    for cx, cy in ((r, r), (w - r, r), (w - r, h - r), (r, h - r)):
        cv2.circle(inside, (round(cx), round(cy)), round(r), 255, -1, cv2.LINE_AA)
    a = inside.astype(np.float32) / 255.0
    inner = cv2.erode(
        a,
        np.ones((3, 3), np.uint8),
        iterations=max(1, round(0.4 * ppm)),
        borderType=cv2.BORDER_CONSTANT,
        borderValue=0,
    )
    rim = a - inner
    alpha = a * haze + np.clip(rim, 0, 1) * 0.3
    if sheen > 0:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        t = math.radians(sheen_deg)
        d = (xx - w / 2) * math.cos(t) + (yy - h / 2) * math.sin(t)
        alpha = alpha + a * sheen * np.exp(-((d / (0.18 * max(w, h))) ** 2))
    alpha = np.clip(alpha, 0, 1).astype(np.float32)
    colour = np.full((h, w, 3), 255.0, np.float32)
    return SpriteTex(
        _premultiply(colour, alpha), (w_mm, h_mm), np.full((h, w), NO_REGION, np.uint8)
    )


def glare_sprite(glare: GlareSpec, size_wh_mm: tuple[float, float], ppm: float) -> SpriteTex:
    """A white elliptical highlight clipped to the card outline (unlabelled)."""
    w, h = round(size_wh_mm[0] * ppm), round(size_wh_mm[1] * ppm)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    u = (xx + 0.5) / ppm - glare.center_mm[0]
    v = (yy + 0.5) / ppm - glare.center_mm[1]
    a = math.radians(glare.angle_deg)
    pu = u * math.cos(a) + v * math.sin(a)
    pv = -u * math.sin(a) + v * math.cos(a)
    r2 = (pu / glare.radius_mm) ** 2 + (pv / (glare.radius_mm * glare.elongation)) ** 2
    alpha = glare.strength * np.exp(-1.5 * r2)
    inset = 1.0 * ppm
    alpha[: round(inset)] = 0
    alpha[-round(inset) :] = 0
    alpha[:, : round(inset)] = 0
    alpha[:, -round(inset) :] = 0
    colour = np.full((h, w, 3), 255.0, np.float32)
    return SpriteTex(
        _premultiply(colour, alpha.astype(np.float32)),
        size_wh_mm,
        np.full((h, w), NO_REGION, np.uint8),
    )


# --------------------------------------------------------------------------- markers


def marker_sprite(
    marker_id: int, size_mm: float, margin_mm: float, texels_per_cell: int
) -> tuple[SpriteTex, float]:
    """A marker on white paper. Texture resolution is a whole number of texels per cell,
    so the marker's edges fall on texel boundaries; the margin is rounded to whole
    texels too. Returns (sprite, the exact margin used, mm)."""
    cells = marker_cells(marker_id)
    ppm = texels_per_cell * 6 / size_mm
    margin_tx = max(1, round(margin_mm * ppm))
    side = 6 * texels_per_cell
    n = side + 2 * margin_tx
    img = np.full((n, n), 250, np.uint8)
    big = cv2.resize(cells, (side, side), interpolation=cv2.INTER_NEAREST)
    img[margin_tx : margin_tx + side, margin_tx : margin_tx + side] = np.where(big > 0, 250, 18)
    bgra = np.empty((n, n, 4), np.uint8)
    bgra[..., :3] = img[..., None]
    bgra[..., 3] = 255
    regions = np.zeros((n, n), np.uint8)
    margin = margin_tx / ppm
    return SpriteTex(bgra, (n / ppm, n / ppm), regions), margin


# --------------------------------------------------------------------------- board


def board_sprite(
    cells_per_mm_k: int,
    frame_bgr: tuple[int, int, int],
    seed: int,
    look: BoardLook = KIT_LOOK,
) -> SpriteTex:
    """The Picasso board: frame, off-white canvas, markers 4-7 (30 mm) at the canvas
    corners with their inner corner on the canvas corner, each on a white patch.

    ``cells_per_mm_k`` texels per 5 mm marker cell (resolution ``k / 5`` px/mm). Regions:
    0 canvas, 1 frame, 2..5 markers 4..7. ``look`` gives the frame's colour (when set) and
    grain, the canvas's tint and texture (its randomness from a stream of its own, so the
    kit look draws as before).
    """
    cell_mm = BOARD_MARKER_MM / 6
    ppm = cells_per_mm_k / cell_mm
    f = BOARD_FRAME_MM
    cw, ch = CANVAS_WH_MM
    w_mm, h_mm = cw + 2 * f, ch + 2 * f
    w, h = round(w_mm * ppm), round(h_mm * ppm)
    rng = np.random.default_rng(seed)
    grain = periodic_noise(rng, (h, w), (0.8 * ppm, 25.0 * ppm))
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(look.frame_bgr or frame_bgr, np.float32)
    img *= (1.0 + look.frame_grain * grain)[..., None]
    regions = np.ones((h, w), np.uint8)
    # Bevel: a lighter outer edge and a darker inner lip around the canvas.
    b = max(1, round(3 * ppm))
    img[:b] *= 1.25
    img[:, :b] *= 1.2
    img[-b:] *= 0.8
    img[:, -b:] *= 0.85

    def tx(mm: float) -> int:
        return round(mm * ppm)

    lip = tx(4.0)
    img[tx(f) - lip : tx(f + ch) + lip, tx(f) - lip : tx(f + cw) + lip] *= 0.7
    corners = [(0.0, 0.0), (cw, 0.0), (cw, ch), (0.0, ch)]
    outward = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    patch = 5.0
    for (cx, cy), (sx, sy) in zip(corners, outward, strict=True):
        x0 = f + cx + (sx * (BOARD_MARKER_MM + patch) if sx < 0 else -patch)
        y0 = f + cy + (sy * (BOARD_MARKER_MM + patch) if sy < 0 else -patch)
        s = BOARD_MARKER_MM + 2 * patch
        img[tx(y0) : tx(y0 + s), tx(x0) : tx(x0 + s)] = 248.0
    canvas_noise = periodic_noise(rng, (tx(ch), tx(cw)), (0.6 * ppm, 0.6 * ppm))
    canvas = (
        np.array(look.canvas_bgr or CANVAS_BGR, np.float32)
        * (1.0 + 0.012 * canvas_noise)[..., None]
    )
    if look.texture != "plain":
        surface = canvas_texture(
            look.texture, canvas.shape[:2], ppm, np.random.default_rng([seed, TEXTURE_STREAM])
        )
        canvas *= surface[..., None]
    img[tx(f) : tx(f + ch), tx(f) : tx(f + cw)] = canvas
    regions[tx(f) : tx(f + ch), tx(f) : tx(f + cw)] = 0
    side = 6 * cells_per_mm_k
    for k, ((cx, cy), (sx, sy)) in enumerate(zip(corners, outward, strict=True)):
        cells = marker_cells(BOARD_MARKER_IDS[k])
        big = cv2.resize(cells, (side, side), interpolation=cv2.INTER_NEAREST).astype(np.float32)
        x0 = tx(f + cx + (sx * BOARD_MARKER_MM if sx < 0 else 0.0))
        y0 = tx(f + cy + (sy * BOARD_MARKER_MM if sy < 0 else 0.0))
        img[y0 : y0 + side, x0 : x0 + side] = np.where(big > 0, 248.0, 18.0)[..., None]
        regions[y0 : y0 + side, x0 : x0 + side] = 2 + k
    bgra = np.empty((h, w, 4), np.uint8)
    bgra[..., :3] = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    bgra[..., 3] = 255
    return SpriteTex(bgra, (w / ppm, h / ppm), regions)


# --------------------------------------------------------------------------- Picasso pieces

_PIECE_MARGIN_MM = 4.0


def stick_sprite(
    stick: StickSpec,
    ppm: float,
    shadow_mm: tuple[float, float],
    seed: int,
    look: BoardLook = KIT_LOOK,
) -> SpriteTex:
    """A stick (with its drop shadow), centred in its texture: natural light wood in the
    kit look; any wood (grain along it) or a painted one (flat colour, a specular stripe
    on the side facing the light) in others."""
    length, width = STICK_LW_MM[stick.kind]
    m = _PIECE_MARGIN_MM
    w, h = round((length + 2 * m) * ppm), round((width + 2 * m) * ppm)
    rng = np.random.default_rng(seed)
    alpha = np.zeros((h, w), np.uint8)
    poly = np.array([[m, m], [m + length, m], [m + length, m + width], [m, m + width]])
    cv2.fillPoly(alpha, [_pts(poly, ppm)], 255, cv2.LINE_AA, SHIFT)
    a = alpha.astype(np.float32) / 255.0
    grain = periodic_noise(rng, (h, w), (0.25 * ppm, 12.0 * ppm))
    yy = (np.arange(h, dtype=np.float32) + 0.5) / ppm - m - width / 2
    edge = 1.0 - 0.28 * np.clip(np.abs(yy) / (width / 2), 0, 1) ** 4
    tone = 1.0 + 0.06 * rng.standard_normal()
    shift = _local_shadow_shift(shadow_mm, stick.angle_deg)
    if look.paint:
        colour = painted_stick(
            look.stick_bgr or WOOD_BGR,
            yy,
            width,
            grain,
            look.stick_grain,
            look.sheen,
            -1.0 if shift[1] >= 0 else 1.0,
        )
    else:
        colour = (
            np.array(look.stick_bgr or WOOD_BGR, np.float32)
            * tone
            * (1.0 + look.stick_grain * grain)[..., None]
            * edge[:, None, None]
        )
    bgra, regions = _with_shadow(
        colour,
        a,
        _scale(shift, ppm),
        0.9 * look.shadow_blur * ppm,
        0.55 * look.shadow_depth,
    )
    return SpriteTex(bgra, (w / ppm, h / ppm), regions)


def shape_sprite(
    shape: ShapeSpec,
    ppm: float,
    shadow_mm: tuple[float, float],
    seed: int,
    look: BoardLook = KIT_LOOK,
) -> SpriteTex:
    """A flat solid-colour shape (with its drop shadow), centred in its texture: its colour
    the look's for its colour name (the kit's ``SHAPE_BGR`` otherwise), with a broad
    highlight when the look has a sheen."""
    local = shape.local_polygon_mm()
    half = float(np.abs(local).max()) + _PIECE_MARGIN_MM
    n = round(2 * half * ppm)
    rng = np.random.default_rng(seed)
    alpha = np.zeros((n, n), np.uint8)
    cv2.fillPoly(alpha, [_pts(local + half, ppm)], 255, cv2.LINE_AA, SHIFT)
    a = alpha.astype(np.float32) / 255.0
    noise = periodic_noise(rng, (n, n), (2.0 * ppm, 2.0 * ppm))
    dist = cv2.distanceTransform((alpha > 127).astype(np.uint8), cv2.DIST_L2, 3) / ppm
    edge = 0.82 + 0.18 * np.clip(dist / 1.5, 0, 1)
    bgr = shape_bgr(shape.colour, look)
    colour = np.array(bgr, np.float32) * (1.0 + 0.03 * noise)[..., None] * edge[..., None]
    shift = _local_shadow_shift(shadow_mm, shape.angle_deg)
    if look.sheen > 0:
        # the highlight sits towards the light, away from the shadow
        norm = math.hypot(*shift) or 1.0
        c = (n / 2 - 8.0 * ppm * shift[0] / norm, n / 2 - 8.0 * ppm * shift[1] / norm)
        colour = shape_highlight(colour, ppm, c, 0.5 * look.sheen)
    bgra, regions = _with_shadow(
        colour, a, _scale(shift, ppm), 0.8 * look.shadow_blur * ppm, 0.5 * look.shadow_depth
    )
    return SpriteTex(bgra, (n / ppm, n / ppm), regions)


def shape_bgr(colour: str, look: BoardLook = KIT_LOOK) -> tuple[int, int, int]:
    """The BGR of a shape colour name: the look's palette's, else the kit's
    (``SHAPE_BGR``), else that of the looks' ``bright`` palette (a shape named orange on a
    board of the kit look)."""
    from vision.synth.looks import SHAPE_LOOKS

    for name, bgr in (*look.shape_bgr, *SHAPE_BGR.items(), *SHAPE_LOOKS["bright"]):
        if name == colour:
            return bgr
    raise KeyError(f"no colour named {colour!r}")


def string_sprite(
    string: StringSpec,
    ppm: float,
    shadow_mm: tuple[float, float],
    look: BoardLook = KIT_LOOK,
) -> tuple[SpriteTex, np.ndarray]:
    """The cord along its polyline (with a faint highlight and shadow): dark in the kit
    look, the look's colour and thickness (when set) otherwise.

    Returns (sprite, (2,) board-mm position of the texture's top-left corner)."""
    if look.string_mm is not None:
        string = StringSpec(string.points_mm, look.string_mm)
    pts = string.polyline_mm()
    m = _PIECE_MARGIN_MM + string.thickness_mm
    lo = pts.min(axis=0) - m
    hi = pts.max(axis=0) + m
    w, h = round((hi[0] - lo[0]) * ppm), round((hi[1] - lo[1]) * ppm)
    alpha = np.zeros((h, w), np.uint8)
    local = pts - lo
    thick = max(1, round(string.thickness_mm * ppm))
    cv2.polylines(alpha, [_pts(local, ppm)], False, 255, thick, cv2.LINE_AA, SHIFT)
    a = alpha.astype(np.float32) / 255.0
    hl = np.zeros((h, w), np.uint8)
    cv2.polylines(
        hl,
        [_pts(local - 0.25 * string.thickness_mm, ppm)],
        False,
        255,
        max(1, thick // 3),
        cv2.LINE_AA,
        SHIFT,
    )
    colour = np.empty((h, w, 3), np.float32)
    colour[:] = np.array(look.string_bgr or STRING_BGR, np.float32)
    colour += (hl.astype(np.float32) / 255.0 * 28.0)[..., None]
    bgra, regions = _with_shadow(
        colour,
        a,
        _scale(shadow_mm, ppm * 0.6),
        0.7 * look.shadow_blur * ppm,
        0.5 * look.shadow_depth,
    )
    return SpriteTex(bgra, (w / ppm, h / ppm), regions), lo


def _scale(v: tuple[float, float], k: float) -> tuple[float, float]:
    return (v[0] * k, v[1] * k)


# --------------------------------------------------------------------------- hands

#: Hand sprite local frame: the arm runs along u from its cut end (u = 0) to the
#: fingertips (u = HAND_LEN_MM); v across, the arm's centre line at HAND_WIDTH_MM / 2.
HAND_LEN_MM = 540.0
HAND_WIDTH_MM = 150.0


def hand_mask(gesture: str, ppm: float) -> np.ndarray:
    """(h, w) float32 coverage 0..1 of a hand and forearm (see ``HAND_LEN_MM``); cached."""
    key = (gesture, ppm)
    if key not in _HAND_MASKS:
        _HAND_MASKS[key] = _hand_mask(gesture, ppm)
    return _HAND_MASKS[key]


_HAND_MASKS: dict[tuple[str, float], np.ndarray] = {}


def _hand_mask(gesture: str, ppm: float) -> np.ndarray:
    L, W = HAND_LEN_MM, HAND_WIDTH_MM
    w, h = round(L * ppm), round(W * ppm)
    m = np.zeros((h, w), np.uint8)
    c = W / 2

    def cap(p: tuple[float, float], q: tuple[float, float], width_mm: float) -> None:
        cv2.line(
            m,
            tuple(_pts(np.array([p]), ppm)[0]),
            tuple(_pts(np.array([q]), ppm)[0]),
            255,
            max(1, round(width_mm * ppm)),
            cv2.LINE_AA,
            SHIFT,
        )

    # forearm widening towards the elbow, wrist, palm
    for k in range(6):
        u0 = k * (L - 170) / 6
        cap((u0, c), (u0 + (L - 170) / 6 + 5, c), 78 - 3 * k)
    palm_u = L - 105
    cv2.ellipse(
        m,
        tuple(_pts(np.array([[palm_u, c]]), ppm)[0]),
        (round(52 * ppm * _ONE), round(44 * ppm * _ONE)),
        0,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
        SHIFT,
    )
    spread = {"open": 1.0, "pinch": 0.35, "point": 0.8, "fist": 0.6}.get(gesture, 1.0)
    lengths = {
        "open": (88, 95, 92, 80),
        "pinch": (85, 90, 88, 78),
        "point": (95, 55, 50, 45),
        "fist": (58, 60, 58, 54),
    }.get(gesture, (88, 95, 92, 80))
    offsets = (-27, -9, 9, 26)
    for off, ln, wd in zip(offsets, lengths, (17, 18, 17, 15), strict=True):
        base = (palm_u + 20, c + off * 0.9)
        tip_v = c + off * spread * (1.25 if gesture == "open" else 1.0)
        cap(base, (palm_u - 10 + ln, tip_v), wd)
    # thumb
    cap((palm_u - 30, c + 34), (palm_u + 40, c + 36 + 18 * spread), 21)
    mask = m.astype(np.float32) / 255.0
    return cv2.GaussianBlur(mask, (0, 0), max(0.5, 0.6 * ppm))


def hand_sprite(hand: HandSpec, ppm: float, seed: int) -> SpriteTex:
    """A skin-toned hand with a sleeve on the forearm, shaded as a rounded body."""
    mask = hand_mask(hand.gesture, ppm)
    h, w = mask.shape
    rng = np.random.default_rng(seed)
    binary = (mask > 0.5).astype(np.uint8)
    dist = cv2.distanceTransform(binary, cv2.DIST_L2, 5) / ppm
    shade = 0.62 + 0.38 * np.clip(dist / 14.0, 0, 1) ** 0.6
    skin = np.array(SKIN_BGR[int(hand.skin) % len(SKIN_BGR)], np.float32)
    lo = (max(8, h // 4), max(8, w // 4))
    noise = cv2.resize(periodic_noise(rng, lo, (1.5 * ppm, 1.5 * ppm)), (w, h))
    colour = np.empty((h, w, 3), np.float32)
    colour[:] = skin
    sleeve_end = round((HAND_LEN_MM - 215 - 25 * rng.random()) * ppm)
    colour[:, :sleeve_end] = np.array(hand.sleeve_bgr, np.float32)
    folds = cv2.resize(periodic_noise(rng, lo, (1.0 * ppm, 2.5 * ppm)), (w, h))
    colour[:, :sleeve_end] *= (1.0 + 0.12 * folds[:, :sleeve_end])[..., None]
    colour *= (shade * (1.0 + 0.04 * noise))[..., None]
    bgra = _premultiply(colour, mask)
    regions = np.where(mask >= 0.5, 0, NO_REGION).astype(np.uint8)
    return SpriteTex(bgra, (w / ppm, h / ppm), regions)


def smear(tex: SpriteTex, length_px: int) -> SpriteTex:
    """Motion blur of a sprite along its u axis over ``length_px`` texels (the
    premultiplied texture blurs correctly; regions follow the blurred alpha)."""
    if length_px <= 1:
        return tex
    bgra = cv2.blur(tex.bgra, (int(length_px), 1))
    regions = np.where(bgra[..., 3] >= 128, 0, NO_REGION).astype(np.uint8)
    return SpriteTex(bgra, tex.size_mm, regions)


def hand_shadow_sprite(hand: HandSpec, ppm: float) -> SpriteTex:
    """The hand's soft shadow on the table (unlabelled): blurred silhouette, darker
    and sharper the lower the hand."""
    mask = hand_mask(hand.gesture, ppm)
    sigma_mm = 3.0 + 0.12 * hand.height_mm
    blurred = cv2.GaussianBlur(mask, (0, 0), sigma_mm * ppm)
    strength = float(np.clip(0.55 - 0.0015 * hand.height_mm, 0.2, 0.5))
    alpha = blurred * strength
    colour = np.zeros((*mask.shape, 3), np.float32)
    h, w = mask.shape
    return SpriteTex(
        _premultiply(colour, alpha), (w / ppm, h / ppm), np.full((h, w), NO_REGION, np.uint8)
    )
