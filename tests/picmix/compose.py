"""Claim photos composed by the tests from the faces ``pictable kit export picmix`` writes.

Deliberately independent of ``vision.synth`` (and of the model's training composer): the face
PNGs are warped onto a plain table with OpenCV, laid in Picmix chains (each card over the
hidden half of the one before, turned by a half turn when its right half is the one to show),
and the truth (which items show, and how much of each) is measured on label masks warped the
same way.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

FACE_W_MM, FACE_H_MM = 88.0, 63.0
OBJ_W_MM, OBJ_H_MM = 63.0, 88.0


@dataclass(frozen=True)
class Laid:
    """A card on the table: ``face`` up, centre (x, y) mm, turned ``angle_deg``."""

    card: str
    face: str
    centre_mm: tuple[float, float]
    angle_deg: float


@dataclass
class Composed:
    """A composed photo: ``image`` (H, W, 3) uint8 BGR, ``shares`` item -> visible share of
    its printed area (player cards only), ``objective`` items."""

    image: np.ndarray
    shares: dict[str, float]
    objective: list[str]
    laid: list[Laid] = field(default_factory=list)

    def visible(self, rule: float = 0.25) -> set[str]:
        return {k for k, v in self.shares.items() if v >= rule}


class Faces:
    """The exported faces and manifest in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        self.px_per_mm = float(self.manifest["px_per_mm"])
        self.cards = {c["id"]: c for c in self.manifest["cards"]}
        self._img: dict[tuple[str, str], np.ndarray] = {}

    def image(self, card: str, face: str) -> np.ndarray:
        key = (card, face)
        if key not in self._img:
            path = self.folder / self.cards[card]["faces"][face]["file"]
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            assert img is not None, path
            self._img[key] = img
        return self._img[key]

    def item_masks(self, card: str, face: str) -> dict[str, np.ndarray]:
        """item -> (H, W) bool of its printed pixels on the face (inside its item box)."""
        img = self.image(card, face)
        fe = self.cards[card]["faces"][face]
        out = {}
        for half, item in fe["items"].items():
            x, y, w, h = (v * self.px_per_mm for v in fe["item_boxes_mm"][half])
            x0, y0, x1, y1 = int(x), int(y), math.ceil(x + w), math.ceil(y + h)
            box = img[y0:y1, x0:x1].astype(np.int16)
            paper = np.median(np.concatenate([box[0], box[-1], box[:, 0], box[:, -1]]), axis=0)
            ink = np.abs(box - paper).max(axis=2) > 45
            m = np.zeros(img.shape[:2], bool)
            m[y0:y1, x0:x1] = ink
            out[item] = m
        return out


def _homography(
    src_wh_px: tuple[int, int], size_mm: tuple[float, float], laid: Laid, table_h: np.ndarray
) -> np.ndarray:
    """Face pixels -> photo pixels: face px -> card mm -> table mm (turn, shift) -> photo."""
    w, h = src_wh_px
    sw, sh = size_mm
    to_mm = np.array([[sw / w, 0, -sw / 2], [0, sh / h, -sh / 2], [0, 0, 1]])
    a = math.radians(laid.angle_deg)
    rot = np.array(
        [
            [math.cos(a), -math.sin(a), laid.centre_mm[0]],
            [math.sin(a), math.cos(a), laid.centre_mm[1]],
            [0, 0, 1],
        ]
    )
    return table_h @ rot @ to_mm


def table_view(
    size_wh: tuple[int, int] = (1280, 720),
    px_per_mm: float = 1.2,
    tilt: float = 0.0,
    turn_deg: float = 0.0,
) -> np.ndarray:
    """Table mm (origin at the photo centre) -> photo px: a scale, a turn, and a keystone
    ``tilt`` (0: straight down, 0.3: strong)."""
    w, h = size_wh
    a = math.radians(turn_deg)
    m = np.array(
        [
            [px_per_mm * math.cos(a), -px_per_mm * math.sin(a), w / 2],
            [px_per_mm * math.sin(a), px_per_mm * math.cos(a), h / 2],
            [0, 0, 1],
        ]
    )
    keystone = np.array([[1, 0, 0], [0, 1, 0], [0, tilt / 1000.0, 1]])
    return m @ keystone


def compose(
    faces: Faces,
    objective: str | None,
    laid: list[Laid],
    *,
    objective_at: tuple[float, float] = (-150.0, -160.0),
    objective_angle: float = 8.0,
    view: np.ndarray | None = None,
    table_bgr: tuple[int, int, int] = (70, 110, 150),
    blur: float = 0.6,
    noise: float = 2.5,
    seed: int = 0,
    size_wh: tuple[int, int] = (1280, 720),
) -> Composed:
    """A photo of ``objective`` (a card id, face up; None for none) and the ``laid`` player
    cards, in that order from the bottom, with the truth of what shows."""
    rng = np.random.default_rng(seed)
    w, h = size_wh
    view = table_view(size_wh) if view is None else view
    img = np.empty((h, w, 3), np.float32)
    img[:] = table_bgr
    img += rng.normal(0, 6, (h, w, 1)).astype(np.float32)
    labels = np.zeros((h, w), np.int32)
    names: list[str] = []
    full: list[int] = []
    order: list[tuple[str, str, Laid, tuple[float, float]]] = []
    if objective is not None:
        order.append(
            (
                objective,
                "front",
                Laid(objective, "front", objective_at, objective_angle),
                (OBJ_W_MM, OBJ_H_MM),
            )
        )
    order += [(c.card, c.face, c, (FACE_W_MM, FACE_H_MM)) for c in laid]
    for card, face, pose, size_mm in order:
        src = faces.image(card, face)
        sh, sw = src.shape[:2]
        hm = _homography((sw, sh), size_mm, pose, view)
        warped = cv2.warpPerspective(src, hm, (w, h), flags=cv2.INTER_AREA)
        cover = cv2.warpPerspective(
            np.full((sh, sw), 255, np.uint8), hm, (w, h), flags=cv2.INTER_AREA
        )
        a = cover.astype(np.float32)[..., None] / 255.0
        img = img * (1 - a) + warped.astype(np.float32) * a
        lab = np.zeros((sh, sw), np.int32)
        if card in faces.cards and faces.cards[card]["kind"] == "player":
            for item, m in faces.item_masks(card, face).items():
                names.append(item)
                lab[m] = len(names)
        wl = cv2.warpPerspective(lab, hm, (w, h), flags=cv2.INTER_NEAREST)
        for k in range(len(full), len(names)):
            full.append(int((wl == k + 1).sum()))
        inside = cover > 127
        labels[inside] = wl[inside]
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    img += rng.normal(0, noise, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    vis = np.bincount(labels.ravel(), minlength=len(names) + 1)[1:]
    shares: dict[str, float] = {}
    for k, item in enumerate(names):
        shares[item] = max(shares.get(item, 0.0), float(vis[k]) / max(1, full[k]))
    obj_items = list(faces.cards[objective]["items"]) if objective is not None else []
    return Composed(out, shares, sorted(obj_items), list(laid))


def chain(
    steps: list[tuple[str, str, str | None]],
    start_mm: tuple[float, float] = (-80.0, 60.0),
    angle_deg: float = 0.0,
    shift_mm: float = 0.0,
) -> list[Laid]:
    """A Picmix chain: ``steps`` (card, face, shown half or None for both), bottom first. Each
    card showing one half lies over the next card's position so that the next card covers its
    other half: it is turned by 180 degrees when the half to show is its right one. The last
    card (showing both) covers the previous card's hidden half. ``shift_mm`` moves every card
    after the first further along the chain (uncovering part of the hidden halves)."""
    a = math.radians(angle_deg)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-u[1], u[0]])
    out = []
    k = 0
    apart = 0
    ended = False  # the row ends with its first card showing both items
    for card, face, shown in steps:
        if shown is None and ended:
            # a further card showing both items lies apart, beside the row
            apart += 1
            c = np.asarray(start_mm) + v * (FACE_H_MM + 15.0) * apart
            out.append(Laid(card, face, (float(c[0]), float(c[1])), angle_deg))
            continue
        c = np.asarray(start_mm) + u * (FACE_W_MM / 2 * k + (shift_mm if k else 0.0))
        turn = 180.0 if shown == "right" else 0.0
        out.append(Laid(card, face, (float(c[0]), float(c[1])), angle_deg + turn))
        k += 1
        ended = shown is None
    return out
