"""A Picmix deck drawn with art the item model has never seen, to measure decks registered
from photos (``vision.picmix.decks``) honestly.

The item model was trained on the kit's 83 pictograms (``vision.kit.pictograms``). Here each
of the kit's 16 Picmix items is replaced by a new, plain geometric drawing that is none of
them (a ring, a cross, a gear...), in the same places, colours and sizes on the same cards:
``NewArtTextures`` is a card-art provider for the synthetic camera (``vision.synth``) whose
deck is the kit's with the items renamed. Codes stay printed on the faces, but a registered
deck never reads them, so items and objectives are known by their look alone.

Benchmark and test material; nothing here runs when a claim is verified.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from vision.kit.raster import draw_silhouette

NEW_ITEMS: tuple[str, ...] = (
    "ring", "cross", "triangle", "hexagon", "arrow", "diamond", "hourglass", "chevron",
    "pacman", "ell", "tee", "zigzag", "frame", "halfdisc", "gear", "trefoil",
)  # fmt: skip
"""The new items, one for each kit item in ``vision.kit.picmix.ITEMS`` order."""

_Pts = list[tuple[float, float]]


def _circle(cx: float, cy: float, r: float, a0: float = 0.0, a1: float = 360.0) -> _Pts:
    n = max(8, int(abs(a1 - a0) / 6))
    return [
        (cx + r * math.cos(math.radians(a)), cy + r * math.sin(math.radians(a)))
        for a in np.linspace(a0, a1, n)
    ]


def _shape(name: str) -> tuple[list[_Pts], list[_Pts], list[tuple[_Pts, float]]]:
    """(filled polygons, holes, thick polylines (points, width)) in a unit square."""
    fill: list[_Pts] = []
    holes: list[_Pts] = []
    lines: list[tuple[_Pts, float]] = []
    if name == "ring":
        fill, holes = [_circle(0.5, 0.5, 0.45)], [_circle(0.5, 0.5, 0.24)]
    elif name == "cross":
        a, b = 0.36, 0.64
        fill = [
            [
                (a, 0.06),
                (b, 0.06),
                (b, a),
                (0.94, a),
                (0.94, b),
                (b, b),
                (b, 0.94),
                (a, 0.94),
                (a, b),
                (0.06, b),
                (0.06, a),
                (a, a),
            ]
        ]
    elif name == "triangle":
        fill = [[(0.5, 0.08), (0.94, 0.88), (0.06, 0.88)]]
    elif name == "hexagon":
        fill = [[(0.5 + 0.46 * math.cos(k * math.pi / 3), 0.5 + 0.46 * math.sin(k * math.pi / 3))
                 for k in range(6)]]  # fmt: skip
    elif name == "arrow":
        fill = [[(0.06, 0.38), (0.52, 0.38), (0.52, 0.12), (0.94, 0.5), (0.52, 0.88),
                 (0.52, 0.62), (0.06, 0.62)]]  # fmt: skip
    elif name == "diamond":
        fill = [[(0.5, 0.04), (0.82, 0.5), (0.5, 0.96), (0.18, 0.5)]]
    elif name == "hourglass":
        fill = [[(0.14, 0.06), (0.86, 0.06), (0.58, 0.5), (0.86, 0.94), (0.14, 0.94),
                 (0.42, 0.5)]]  # fmt: skip
    elif name == "chevron":
        fill = [[(0.06, 0.2), (0.5, 0.58), (0.94, 0.2), (0.94, 0.46), (0.5, 0.86),
                 (0.06, 0.46)]]  # fmt: skip
    elif name == "pacman":
        fill = [[(0.5, 0.5), *_circle(0.5, 0.5, 0.46, 35, 325)]]
    elif name == "ell":
        fill = [[(0.18, 0.06), (0.46, 0.06), (0.46, 0.66), (0.86, 0.66), (0.86, 0.94),
                 (0.18, 0.94)]]  # fmt: skip
    elif name == "tee":
        fill = [[(0.06, 0.08), (0.94, 0.08), (0.94, 0.36), (0.64, 0.36), (0.64, 0.94),
                 (0.36, 0.94), (0.36, 0.36), (0.06, 0.36)]]  # fmt: skip
    elif name == "zigzag":
        lines = [([(0.08, 0.78), (0.3, 0.22), (0.5, 0.78), (0.7, 0.22), (0.92, 0.78)], 0.16)]
    elif name == "frame":
        fill = [[(0.08, 0.08), (0.92, 0.08), (0.92, 0.92), (0.08, 0.92)]]
        holes = [[(0.32, 0.32), (0.68, 0.32), (0.68, 0.68), (0.32, 0.68)]]
    elif name == "halfdisc":
        fill = [_circle(0.5, 0.72, 0.46, 180, 360)]
    elif name == "gear":
        fill = [_circle(0.5, 0.5, 0.32)]
        for k in range(8):
            a = k * math.pi / 4
            u, v = (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))
            fill.append(
                [
                    (0.5 + u[0] * r + v[0] * s, 0.5 + u[1] * r + v[1] * s)
                    for r, s in ((0.2, -0.07), (0.47, -0.07), (0.47, 0.07), (0.2, 0.07))
                ]
            )
        holes = [_circle(0.5, 0.5, 0.12)]
    elif name == "trefoil":
        fill = [_circle(0.5, 0.3, 0.22), _circle(0.28, 0.6, 0.22), _circle(0.72, 0.6, 0.22)]
        fill.append([(0.44, 0.55), (0.56, 0.55), (0.62, 0.95), (0.38, 0.95)])
    else:
        raise ValueError(f"unknown new item {name!r}; expected one of {NEW_ITEMS}")
    return fill, holes, lines


def draw_item(
    img: np.ndarray,
    name: str,
    box_xys_px: tuple[float, float, float],
    fill_bgr: tuple[int, int, int],
    outline_bgr: tuple[int, int, int],
) -> None:
    """Draw new item ``name`` into ``img`` ((H, W, 3) uint8 BGR, in place) in the square
    ``box_xys_px`` (x, y, side), filled with ``fill_bgr`` and outlined with ``outline_bgr``."""
    s = box_xys_px[2]
    k = 4  # drawn at 4x and shrunk: smooth edges
    side = max(4, round(s * k))
    mask = np.zeros((side, side), np.uint8)
    fill, holes, lines = _shape(name)

    def px(pts: _Pts) -> np.ndarray:
        return np.int32([[p[0] * (side - 1), p[1] * (side - 1)] for p in pts])

    for poly in fill:
        cv2.fillPoly(mask, [px(poly)], 255)
    for pts, width in lines:
        cv2.polylines(mask, [px(pts)], False, 255, max(1, round(width * side)), cv2.LINE_8)
    for poly in holes:
        cv2.fillPoly(mask, [px(poly)], 0)
    draw_silhouette(img, mask, box_xys_px, fill_bgr, outline_bgr)


def renamed() -> dict[str, str]:
    """Kit item -> new item."""
    from vision.kit.picmix import ITEMS

    return dict(zip(ITEMS, NEW_ITEMS, strict=True))


def _ink_colours(patch: np.ndarray) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(paper, ink) BGR of an item box of the kit's face: the border's median, and the median
    of the pixels clearly unlike it (the old pictogram's fill)."""
    px = patch.reshape(-1, 3).astype(np.int16)
    border = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]]).astype(np.int16)
    paper = np.median(border, axis=0)
    far = np.abs(px - paper).max(axis=1) > 60
    ink = np.median(px[far], axis=0) if far.any() else np.array([40, 40, 40])
    return (
        tuple(int(v) for v in paper),  # type: ignore[return-value]
        tuple(int(v) for v in ink),
    )


class NewArtTextures:
    """Card art (``vision.synth.textures.TextureProvider``): the kit's Picmix deck with every
    item redrawn as a ``NEW_ITEMS`` drawing and renamed; other games' cards are the kit's."""

    name = "newart"

    def __init__(self, base: Any | None = None) -> None:
        from vision.synth.textures import KitTextures

        if base is None:
            import vision.kit

            base = KitTextures(vision.kit)
        self._base = base
        self._names = renamed()
        self._deck: tuple[Any, ...] | None = None

    def deck(self, game: str) -> tuple[Any, ...]:
        """The kit's Picmix deck with its items renamed (other games: the kit's decks)."""
        from dataclasses import replace

        if game != "picmix":
            return tuple(self._base.deck(game))
        if self._deck is None:
            n = self._names
            out = []
            for c in self._base.deck("picmix"):
                halves = c.halves
                if halves is not None:
                    halves = tuple((n[a], n[b]) for a, b in halves)
                out.append(replace(c, items=tuple(n[i] for i in c.items), halves=halves))
            self._deck = tuple(out)
        return self._deck

    def card_face(self, card_id: str, face: str, px_per_mm: float) -> np.ndarray:
        """The kit's face of ``card_id`` with its items redrawn (same places, colours)."""
        from vision.kit import geometry as g
        from vision.kit.codes import face_codes
        from vision.kit.render import _OBJECTIVE_SLOTS, picmix_item_layout

        img = np.array(self._base.card_face(card_id, face, px_per_mm), np.uint8)
        card = {c.card_id: c for c in self._base.deck("picmix")}.get(card_id)
        if card is None:
            return img
        ppm = px_per_mm
        if card.kind == "player":
            for item, box in picmix_item_layout(card_id)[face].values():  # type: ignore[index]
                x0, y0 = round(box.x * ppm), round(box.y * ppm)
                x1, y1 = round(box.x1 * ppm), round(box.y1 * ppm)
                paper, ink = _ink_colours(img[y0:y1, x0:x1])
                img[y0:y1, x0:x1] = paper
                dark = tuple(int(v * 0.45) for v in ink)
                s = 0.92 * box.w * ppm
                cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                draw_item(img, self._names[item], (cx - s / 2, cy - s / 2, s), ink, dark)  # type: ignore[arg-type]
        elif card.kind == "objective" and face == "front":
            orig = img.copy()
            s_mm = g.PICMIX_OBJECTIVE_ITEM_MM
            slots = _OBJECTIVE_SLOTS[len(card.items)]
            for cx, cy in slots:
                x0, y0 = round((cx - s_mm / 2) * ppm), round((cy - s_mm / 2) * ppm)
                x1, y1 = round((cx + s_mm / 2) * ppm), round((cy + s_mm / 2) * ppm)
                paper, _ = _ink_colours(img[y0:y1, x0:x1])
                img[y0:y1, x0:x1] = paper
            for item, (cx, cy) in zip(card.items, slots, strict=True):
                s = 0.78 * s_mm * ppm  # clear of the markers that the 4-item layout nears
                black = (40, 40, 40)
                box = (cx * ppm - s / 2, cy * ppm - s / 2, s)
                draw_item(img, self._names[item], box, black, (20, 20, 20))
            for r in face_codes(card_id, "front").marker_rects:  # the codes stay printed
                x0, y0 = round(r.x * ppm) - 1, round(r.y * ppm) - 1
                x1, y1 = round(r.x1 * ppm) + 1, round(r.y1 * ppm) + 1
                img[y0:y1, x0:x1] = orig[y0:y1, x0:x1]
        return img


def face_photo(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A photo of one face ((H, W, 3) uint8 BGR) as a user takes it for registration: the
    face slightly askew on a darker cloth, a little blurred, JPEG-compressed."""
    h, w = face.shape[:2]
    bg = np.empty((h + 160, w + 200, 3), np.uint8)
    bg[:] = rng.integers(40, 110, 3)
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = src + np.float32([100, 80]) + rng.uniform(-15, 15, (4, 2)).astype(np.float32)
    hm = cv2.getPerspectiveTransform(src, dst)
    cv2.warpPerspective(
        face, hm, (bg.shape[1], bg.shape[0]), dst=bg, borderMode=cv2.BORDER_TRANSPARENT
    )
    bg = cv2.GaussianBlur(bg, (0, 0), 0.7)
    ok, enc = cv2.imencode(".jpg", bg, [cv2.IMWRITE_JPEG_QUALITY, 88])
    if not ok:
        raise ValueError("cannot encode the photo as JPEG")
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def register_photos(
    provider: NewArtTextures,
    colour: str,
    seed: int = 0,
    px_per_mm: float = 4.0,
    *,
    objectives: bool = False,
) -> list[tuple[str, np.ndarray]]:
    """Photos of the 8 faces of one colour set of ``provider``'s deck, named
    ``LEFT+RIGHT.jpg`` as ``pictable deck register picmix`` expects; with ``objectives``,
    also one of each objective card's front, named by its items (``A+B+C.jpg``)."""
    rng = np.random.default_rng(seed)
    out = []
    for c in provider.deck("picmix"):
        if c.kind == "objective" and objectives:
            img = provider.card_face(c.card_id, "front", px_per_mm)
            out.append(("+".join(c.items) + ".jpg", face_photo(img, rng)))
        if c.kind != "player" or c.set_colour != colour:
            continue
        for face in ("front", "back"):
            left, right = c.face_items(face)
            img = provider.card_face(c.card_id, face, px_per_mm)
            out.append((f"{left}+{right}.jpg", face_photo(img, rng)))
    if not any(name.count("+") == 1 for name, _ in out):
        raise ValueError(f"no player set {colour!r} in the deck")
    return out
