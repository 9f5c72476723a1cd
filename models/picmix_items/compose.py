"""Training scenes for the Picmix item model, composed with numpy and OpenCV.

Independent of ``vision.synth`` on purpose (the model must not learn one renderer's habits):
card faces are the printable kit's own faces (``vision.kit.render_face``) and faces drawn
here with any of the kit's 83 pictograms (so that the embedding generalises to art it has not
seen), laid at random sizes, turns and perspective over random tables, overlapping each other
(often cutting an item at a chosen depth), with hand-like shapes and light and sensor effects.

Each scene carries per-pixel item labels, so every ink blob that the run-time proposal step
(``vision.picmix.ink``) finds gets its truth: which pictogram it is (or background) and what
share of that item's printed area shows. Training time only; nothing here runs in pictable.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.kit import geometry as g
from vision.kit import render_face
from vision.kit.picmix import ITEMS, player_card_faces
from vision.kit.pictograms import GLYPH_NAMES, draw_pictogram
from vision.kit.pictograms.pen import COLOURS
from vision.kit.render import _OBJECTIVE_SLOTS  # the kit's objective layout (training only)
from vision.picmix.crops import blob_crops
from vision.picmix.ink import candidates, ink_map

FACE_PPM = 4.0
"""Resolution (px/mm) at which faces are drawn before they are shrunk and warped."""
SCENE_WH = (448, 384)
SET_COLOURS = ("red", "blue", "green", "purple", "orange", "teal")
INK_COLOURS = (
    "red", "orange", "green", "teal", "blue", "navy", "purple", "pink", "brown", "black",
    "grey", "leaf",
)  # fmt: skip
SKIN = ((150, 180, 225), (120, 155, 205), (95, 125, 175), (65, 90, 135), (45, 60, 95))


@dataclass
class Face:
    """A card face: image (H, W, 3) uint8 BGR, labels (H, W) int16 (item k+1 at its printed
    pixels, 0 elsewhere) and the glyph name of each item."""

    image: np.ndarray
    labels: np.ndarray
    glyphs: list[str]


SPRITE_PX = 160


@functools.lru_cache(maxsize=4096)
def _sprite(name: str, colour: str | None, mono: bool) -> tuple[np.ndarray, np.ndarray]:
    """The pictogram drawn once at ``SPRITE_PX``: (BGR on white, coverage 0..1 float32)."""
    img = np.full((SPRITE_PX, SPRITE_PX, 3), 255, np.uint8)
    draw_pictogram(img, name, (0, 0, SPRITE_PX), colour=colour, mono=mono)
    m = glyph_mask(name, (0, 0, SPRITE_PX), (SPRITE_PX, SPRITE_PX))
    return img, m.astype(np.float32)


def paste_glyph(
    img: np.ndarray,
    labels: np.ndarray,
    label: int,
    name: str,
    box: tuple[float, float, float],
    colour: str | None,
    mono: bool,
) -> None:
    """Draw pictogram ``name`` into ``img`` at ``box`` (x0, y0, size px) from its cached sprite
    and mark its pixels ``label`` in ``labels``."""
    sprite, cov = _sprite(name, colour, mono)
    x0, y0, size = box
    n = max(2, round(size))
    xi, yi = round(x0), round(y0)
    h, w = img.shape[:2]
    xa, ya, xb, yb = max(0, xi), max(0, yi), min(w, xi + n), min(h, yi + n)
    if xa >= xb or ya >= yb:
        return
    sp = cv2.resize(sprite, (n, n), interpolation=cv2.INTER_AREA)[
        ya - yi : yb - yi, xa - xi : xb - xi
    ]
    cv = cv2.resize(cov, (n, n), interpolation=cv2.INTER_AREA)[ya - yi : yb - yi, xa - xi : xb - xi]
    region = img[ya:yb, xa:xb].astype(np.float32)
    # the sprite is drawn on white: multiply keeps the paper tint under light ink
    out = region * (sp.astype(np.float32) / 255.0)
    img[ya:yb, xa:xb] = np.clip(out, 0, 255).astype(np.uint8)
    labels[ya:yb, xa:xb][cv > 0.5] = label


def glyph_mask(
    name: str, box_px: tuple[float, float, float], shape_hw: tuple[int, int]
) -> np.ndarray:
    """(H, W) bool: every pixel the pictogram touches (outline and white details included)."""
    a = np.zeros((*shape_hw, 3), np.uint8)
    b = np.full((*shape_hw, 3), 255, np.uint8)
    draw_pictogram(a, name, box_px, colour="black", mono=True)
    draw_pictogram(b, name, box_px, colour="black", mono=True)
    return (a.max(axis=2) > 40) | (b.min(axis=2) < 215)


@functools.lru_cache(maxsize=256)
def _kit_face(card_id: str, face: str) -> Face:
    img = render_face(card_id, face, FACE_PPM)  # type: ignore[arg-type]
    h, w = img.shape[:2]
    labels = np.zeros((h, w), np.int16)
    glyphs: list[str] = []
    if card_id.startswith("picmix-obj") and face == "front":
        from vision.kit import get_card

        items = get_card(card_id).items
        s = g.PICMIX_OBJECTIVE_ITEM_MM
        for k, (item, (cx, cy)) in enumerate(zip(items, _OBJECTIVE_SLOTS[len(items)], strict=True)):
            box = ((cx - s / 2) * FACE_PPM, (cy - s / 2) * FACE_PPM, s * FACE_PPM)
            labels[glyph_mask(item, box, (h, w))] = k + 1
            glyphs.append(item)
    elif card_id.startswith("picmix-") and not card_id.startswith("picmix-obj"):
        pair = player_card_faces(card_id)[0 if face == "front" else 1]
        for k, half in enumerate(g.HALVES):
            b = g.PICMIX_ITEM_BOXES[half]
            box = (b.x * FACE_PPM, b.y * FACE_PPM, b.w * FACE_PPM)
            labels[glyph_mask(pair.item(half), box, (h, w))] = k + 1
            glyphs.append(pair.item(half))
    return Face(img, labels, glyphs)


def _marker_bits(rng: np.random.Generator) -> np.ndarray:
    bits = np.ones((6, 6), np.uint8)
    bits[1:5, 1:5] = rng.integers(0, 2, (4, 4))
    return bits


def _paint_marker(img: np.ndarray, x: float, y: float, s: float, rng: np.random.Generator) -> None:
    bits = _marker_bits(rng)
    cell = s / 6
    for r in range(6):
        for c in range(6):
            if bits[r, c]:
                cv2.rectangle(
                    img,
                    (int(x + c * cell), int(y + r * cell)),
                    (int(x + (c + 1) * cell) - 1, int(y + (r + 1) * cell) - 1),
                    (20, 20, 20),
                    -1,
                )


def pick_glyph(rng: np.random.Generator) -> str:
    """Half the time one of the 16 Picmix items, else any of the 83 pictograms."""
    if rng.random() < 0.5:
        return ITEMS[int(rng.integers(len(ITEMS)))]
    return GLYPH_NAMES[int(rng.integers(len(GLYPH_NAMES)))]


def generic_face(rng: np.random.Generator, portrait: bool = False) -> Face:
    """A face drawn here: 2 items on a landscape card (Picmix-like, free layout), or 3-4 small
    dark items on a portrait card (objective-like)."""
    wmm, hmm = (63.0, 88.0) if portrait else (88.0, 63.0)
    w, h = round(wmm * FACE_PPM), round(hmm * FACE_PPM)
    colour = np.array(COLOURS[SET_COLOURS[int(rng.integers(6))]], np.float32)
    tint = rng.uniform(0.0, 0.2) if rng.random() < 0.7 else 0.0
    paper = 255 - tint * (255 - colour)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = 255
    m = round(3 * FACE_PPM)
    img[m : h - m, m : w - m] = paper.astype(np.uint8)
    labels = np.zeros((h, w), np.int16)
    glyphs: list[str] = []
    mono = rng.random() < 0.75
    ink: str = INK_COLOURS[int(rng.integers(len(INK_COLOURS)))]
    if portrait:
        n = int(rng.integers(3, 5))
        s = rng.uniform(17, 25) * FACE_PPM
        slots = _OBJECTIVE_SLOTS[n]
        ink = "black" if rng.random() < 0.7 else ink
        for k, (cx, cy) in enumerate(slots):
            name = pick_glyph(rng)
            cx += rng.uniform(-1.5, 1.5)
            cy += rng.uniform(-1.5, 1.5)
            box = (cx * FACE_PPM - s / 2, cy * FACE_PPM - s / 2, s)
            paste_glyph(img, labels, k + 1, name, box, ink if mono else None, mono)
            glyphs.append(name)
        if rng.random() < 0.7:
            _paint_marker(img, m, m, 20 * FACE_PPM, rng)
        if rng.random() < 0.7:
            _paint_marker(img, w - m - 20 * FACE_PPM, h - m - 20 * FACE_PPM, 20 * FACE_PPM, rng)
    else:
        if rng.random() < 0.6:
            x = w / 2 + rng.uniform(-2, 2) * FACE_PPM
            cv2.line(img, (int(x), m), (int(x), h - m), tuple(int(c * 0.8) for c in colour), 2)
        s = rng.uniform(25, 36) * FACE_PPM
        for k, half in enumerate(("left", "right")):
            name = pick_glyph(rng)
            cx = (22 if half == "left" else 66) * FACE_PPM + rng.uniform(-5, 5) * FACE_PPM
            cy = h / 2 + rng.uniform(-8, 8) * FACE_PPM
            box = (cx - s / 2, cy - s / 2, s)
            col = ink if rng.random() < 0.8 else INK_COLOURS[int(rng.integers(len(INK_COLOURS)))]
            paste_glyph(img, labels, k + 1, name, box, col if mono else None, mono)
            glyphs.append(name)
        if rng.random() < 0.6:
            ms = rng.uniform(16, 22) * FACE_PPM
            _paint_marker(img, m, m, ms, rng)
            _paint_marker(img, w - m - ms, h - m - ms, ms, rng)
            labels[m : m + int(ms) + 8, m : m + int(ms) + 8] = 0
            labels[h - m - int(ms) - 8 : h - m, w - m - int(ms) - 8 : w - m] = 0
    if rng.random() < 0.5:
        cv2.putText(
            img, "ab 1A", (int(w * 0.4), h - m - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (90, 90, 90), 1
        )
    return Face(img, labels, glyphs)


def random_face(rng: np.random.Generator) -> Face:
    """A face for a scene: kit player faces, generic faces, objectives, or distractors."""
    u = rng.random()
    if u < 0.35:
        colour = SET_COLOURS[int(rng.integers(6))]
        return _kit_face(
            f"picmix-{colour}-{int(rng.integers(1, 5))}", "front" if rng.random() < 0.5 else "back"
        )
    if u < 0.72:
        return generic_face(rng)
    if u < 0.82:
        return _kit_face(f"picmix-obj-{int(rng.integers(1, 26)):02d}", "front")
    if u < 0.88:
        return generic_face(rng, portrait=True)
    if u < 0.94:
        return _kit_face(f"picmix-obj-{int(rng.integers(1, 26)):02d}", "back")
    return _kit_face(f"pickpic-{int(rng.integers(1, 21)):03d}", "front")


# --------------------------------------------------------------------------------------------
# Tables, hands and effects
# --------------------------------------------------------------------------------------------
def table(rng: np.random.Generator, wh: tuple[int, int]) -> np.ndarray:
    """A table top: plain, light, wood-like grain, cloth noise or a photo, (H, W, 3) uint8."""
    w, h = wh
    kind = rng.integers(5)
    base = rng.uniform(30, 235, 3)
    if kind == 1:  # light, near-grey: the hard case for paper
        base = np.full(3, rng.uniform(170, 240)) + rng.uniform(-12, 12, 3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == 2:  # wood grain
        a = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        t = xx * math.cos(a) + yy * math.sin(a)
        n = cv2.resize(rng.normal(0, 1, (8, 64)).astype(np.float32), (w * 2, h * 2))
        grain = np.sin(t * rng.uniform(0.05, 0.3) + 3 * n[:h, :w]) * rng.uniform(8, 30)
        img = img + grain[..., None] * np.array([0.6, 0.8, 1.0], np.float32)
        base = np.array([rng.uniform(40, 140), rng.uniform(70, 170), rng.uniform(110, 220)])
        img = img - img.mean(axis=(0, 1)) + base
    elif kind == 3:
        n = rng.normal(0, rng.uniform(3, 15), (h, w, 1)).astype(np.float32)
        img = img + cv2.GaussianBlur(n, (0, 0), rng.uniform(0.5, 2))[..., None]
    elif kind == 4:
        photo = _kit_face(f"pickpic-{int(rng.integers(1, 21)):03d}", "front").image
        ph, pw = photo.shape[:2]
        photo = photo[ph // 4 : 3 * ph // 4, pw // 4 : 3 * pw // 4]
        img = cv2.resize(photo, (w, h)).astype(np.float32) * rng.uniform(0.5, 1.0)
    return np.clip(img, 0, 255).astype(np.uint8)


def hand(rng: np.random.Generator, img: np.ndarray, labels: np.ndarray, size: float) -> None:
    """Paint a hand-like shape (palm, fingers, forearm in a sleeve) over ``img``; the pixels it
    covers lose their item labels."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    skin = np.zeros((h, w), np.uint8)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    a = rng.uniform(0, 2 * math.pi)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-u[1], u[0]])
    palm = size * rng.uniform(0.35, 0.5)
    c = np.array([cx, cy])
    cv2.ellipse(
        skin, (int(cx), int(cy)), (int(palm), int(palm * 0.8)), math.degrees(a), 0, 360, 1, -1
    )
    for k in range(int(rng.integers(1, 5))):
        off = (k - 1.5) * palm * 0.45
        base = c + u * palm * 0.7 + v * off
        tip = base + u * palm * rng.uniform(0.6, 1.2) + v * rng.uniform(-5, 5)
        cv2.line(
            skin,
            tuple(int(x) for x in base),
            tuple(int(x) for x in tip),
            1,
            max(2, int(palm * 0.28)),
        )
    arm_end = c - u * size * 4
    cv2.line(
        mask,
        tuple(int(x) for x in c - u * palm * 0.6),
        tuple(int(x) for x in arm_end),
        1,
        int(palm * 1.1),
    )
    mask = np.maximum(mask, skin)
    skin_col = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32) * rng.uniform(0.8, 1.15)
    sleeve = rng.uniform(20, 230, 3)
    col = np.where(skin[..., None] > 0, skin_col, sleeve).astype(np.float32)
    shade = cv2.GaussianBlur(
        rng.normal(1, 0.08, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (0, 0), 1
    )
    col *= cv2.resize(shade, (w, h))[..., None]
    shadow = cv2.GaussianBlur(mask.astype(np.float32), (0, 0), size * 0.15)
    off = (int(rng.uniform(-8, 8)), int(rng.uniform(-8, 8)))
    shadow = np.roll(shadow, off, axis=(0, 1))
    base = img.astype(np.float32) * (1 - 0.45 * shadow[..., None])
    out = np.where(mask[..., None] > 0, col, base)
    img[:] = np.clip(out, 0, 255).astype(np.uint8)
    labels[mask > 0] = 0


def effects(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Light (gain, gradient, vignette, white balance, glare, soft shadow) and sensor (defocus,
    motion blur, noise, JPEG) effects."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gain = rng.uniform(0.5, 1.25)
    grad = 1 + rng.uniform(-0.4, 0.4) * (xx / w - 0.5) + rng.uniform(-0.4, 0.4) * (yy / h - 0.5)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4)
    vig = 1 - rng.uniform(0, 0.4) * r2
    light = gain * grad * vig
    if rng.random() < 0.3:
        sx, sy, sr = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(30, 150)
        light *= 1 - rng.uniform(0.1, 0.35) * np.exp(
            -((xx - sx) ** 2 + (yy - sy) ** 2) / (2 * sr * sr)
        )
    f *= light[..., None] * rng.uniform(0.9, 1.1, 3).astype(np.float32)
    if rng.random() < 0.3:
        gx, gy, gr = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(8, 50)
        glare = np.exp(-((xx - gx) ** 2 + ((yy - gy) * rng.uniform(0.4, 1)) ** 2) / (2 * gr * gr))
        f = f + (255 * 1.05 - f) * glare[..., None] * rng.uniform(0.3, 0.9)
    s = rng.uniform(0, 0.9) if rng.random() < 0.75 else rng.uniform(0.9, 1.4)
    if s > 0.15:
        f = cv2.GaussianBlur(f, (0, 0), s)
    if rng.random() < 0.25:
        n = int(rng.integers(2, 6))
        k = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (n, n))
        f = cv2.filter2D(f, -1, k / max(k.sum(), 1e-6))
    sigma = rng.uniform(0.5, 4) if rng.random() < 0.7 else rng.uniform(4, 8)
    f = f + rng.normal(0, 1, f.shape).astype(np.float32) * sigma * np.sqrt(
        np.clip(f, 0, 255) / 128 + 0.2
    )
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.85:
        q = int(rng.integers(70, 96)) if rng.random() < 0.7 else int(rng.integers(40, 70))
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# --------------------------------------------------------------------------------------------
# Scenes
# --------------------------------------------------------------------------------------------
@dataclass
class Scene:
    """A composed scene: ``image`` (H, W, 3) uint8 BGR, ``labels`` (H, W) int32 item index + 1
    per visible printed pixel, ``glyphs[i]`` the pictogram of item i, ``full_px[i]`` and
    ``visible_px[i]`` its printed and visible area in px."""

    image: np.ndarray
    labels: np.ndarray
    glyphs: list[str]
    full_px: np.ndarray
    visible_px: np.ndarray


def _homography(
    rng: np.random.Generator,
    face_wh: tuple[int, int],
    centre: np.ndarray,
    long_px: float,
    angle: float,
) -> np.ndarray:
    """Face pixels -> scene pixels: scale to ``long_px`` on the long side, turn by ``angle``,
    a mild perspective (tilts up to about 40 degrees), centred at ``centre``."""
    fw, fh = face_wh
    s = long_px / max(fw, fh)
    src = np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]])
    local = (src - np.float32([fw / 2, fh / 2])) * s
    squash = rng.uniform(0.7, 1.0)
    sa = rng.uniform(0, math.pi)
    rs = np.array([[math.cos(sa), -math.sin(sa)], [math.sin(sa), math.cos(sa)]], np.float32)
    local = local @ rs.T
    local = local * np.float32([1.0, squash])
    local = local @ rs
    keyst = rng.uniform(-0.12, 0.12)
    local = local * (1 + keyst * local[:, 1:2] / max(1.0, long_px))
    ca, sn = math.cos(angle), math.sin(angle)
    rot = np.array([[ca, -sn], [sn, ca]], np.float32)
    dst = local @ rot.T + centre.astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def compose_scene(rng: np.random.Generator, wh: tuple[int, int] = SCENE_WH) -> Scene:
    """One clean scene (no light or sensor effects: ``effects`` adds them) of 2-6 cards, most
    cutting one earlier item at a random depth."""
    w, h = wh
    img = table(rng, wh)
    labels = np.zeros((h, w), np.int32)
    glyphs: list[str] = []
    full: list[int] = []
    long_px = float(np.exp(rng.uniform(math.log(60), math.log(250))))
    n_cards = int(rng.integers(2, 7))
    item_centres: list[tuple[np.ndarray, float]] = []
    for _ in range(n_cards):
        face = random_face(rng)
        fh, fw = face.image.shape[:2]
        angle = rng.uniform(0, 2 * math.pi)
        lp = long_px * rng.uniform(0.92, 1.08)
        if item_centres and rng.random() < 0.75:
            p, isz = item_centres[int(rng.integers(len(item_centres)))]
            u = np.array([math.cos(angle), math.sin(angle)])
            v = np.array([-u[1], u[0]])
            half_w = lp / 2 if fw >= fh else lp * fw / fh / 2
            cut = rng.uniform(-0.75, 0.75) * isz
            centre = p + u * (half_w + cut) + v * rng.uniform(-0.3, 0.3) * lp * 0.7
        else:
            centre = rng.uniform([0.15 * w, 0.15 * h], [0.85 * w, 0.85 * h])
        H = _homography(rng, (fw, fh), centre, lp, angle)
        # shrink the face near its final size first (area averaging), then warp
        scale = lp / max(fw, fh)
        if scale < 0.8:
            k = max(scale * 1.25, 0.05)
            small = cv2.resize(face.image, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
            slab = cv2.resize(
                face.labels, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_NEAREST
            )
            S = np.array([[1 / k, 0, 0], [0, 1 / k, 0], [0, 0, 1]])
            Hs = H @ S
        else:
            small, slab, Hs = face.image, face.labels, H
        warped = cv2.warpPerspective(small, Hs, (w, h), flags=cv2.INTER_LINEAR)
        cover = cv2.warpPerspective(
            np.full(small.shape[:2], 255, np.uint8), Hs, (w, h), flags=cv2.INTER_LINEAR
        )
        wl = cv2.warpPerspective(slab, Hs, (w, h), flags=cv2.INTER_NEAREST)
        alpha = cover.astype(np.float32)[..., None] / 255
        img = (img * (1 - alpha) + warped * alpha).astype(np.uint8)
        inside = cover > 127
        base = len(glyphs)
        new = np.where(wl > 0, wl.astype(np.int32) + base, 0)
        labels[inside] = new[inside]
        for k, name in enumerate(face.glyphs):
            area = int((wl == k + 1).sum())
            glyphs.append(name)
            full.append(area)
            if area > 0:
                ys, xs = np.nonzero(wl == k + 1)
                item_centres.append((np.array([xs.mean(), ys.mean()]), math.sqrt(area) * 1.3))
    if rng.random() < 0.2:
        hand(rng, img, labels, long_px * rng.uniform(0.6, 1.0))
    vis = np.bincount(labels.ravel(), minlength=len(glyphs) + 1)[1:]
    return Scene(img, labels, glyphs, np.asarray(full, np.int64), vis.astype(np.int64))


@dataclass
class Samples:
    """Crops (N, 2, 32, 32) float32, class index (N,) int64 (-1: background), visible share
    (N,) float32 of the item the blob shows (0 for background), and the item's px size."""

    crops: np.ndarray
    cls: np.ndarray
    visible: np.ndarray


def scene_samples(
    scene: Scene, glyph_index: dict[str, int], image: np.ndarray | None = None
) -> Samples:
    """Run the proposal step on ``scene`` (or on ``image``, the scene with effects) and label
    every blob."""
    im = ink_map(scene.image if image is None else image)
    blobs = candidates(im)
    crops = blob_crops(im, blobs)
    cls = np.full(len(blobs), -1, np.int64)
    visible = np.zeros(len(blobs), np.float32)
    for k, b in enumerate(blobs):
        x, y, bw, bh = b.box_xywh
        own = im.labels[y : y + bh, x : x + bw] == b.label
        lab = scene.labels[y : y + bh, x : x + bw][own]
        if lab.size == 0:
            continue
        counts = np.bincount(lab, minlength=len(scene.glyphs) + 1)
        counts[0] = 0
        d = int(np.argmax(counts))
        if d == 0 or counts[d] < 0.35 * lab.size:
            continue
        item = d - 1
        full = max(1, int(scene.full_px[item]))
        # the share of the item this blob shows: the item's visible pixels in the blob's box
        # (an item broken into several blobs gives each its part)
        in_box = int((scene.labels[y : y + bh, x : x + bw] == d).sum())
        share = min(1.0, in_box / full)
        if share < 0.02:
            continue
        cls[k] = glyph_index[scene.glyphs[item]]
        visible[k] = share
    return Samples(crops, cls, visible)
