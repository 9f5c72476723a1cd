"""An independent card-table drawer: photos of cards lying on a table drawn with plain OpenCV
from KIT.md's numbers alone (not ``vision.synth``), to check that the card readers are not
fitted to the project's own renderer.

What is drawn, in table millimetres seen through a pinhole camera (1280 x 720, 65-75 degrees
across, 600-900 mm above the table, tilted up to 30 degrees, 40 on the hard tier, turned any
way), at twice the frame's size and shrunk (edges anti-aliased, truth measured there):

- a table of one of ``TABLES`` (planks of wood with grain and seams, felt, laminate, a white
  table, a checked cloth, dark slate), its colour and scale random;
- on 60% of the scenes the play-area markers 0-3 (``DICT_4X4_50``, 40 mm, on white paper)
  near the frame's corners;
- 1 to 12 cards of 63 x 88 (Pick Pic, Pic Flip), strewn at any angle or laid in rows with
  gaps of -4 to 10 mm, each later card hiding at most ``OVERLAP_MAX`` of any earlier one; each
  card a little lighter or darker, with a drop shadow on whatever lies under it;
- hands (``_hand``): a skin-coloured arm (some in a sleeve) from beyond the frame's edge, a
  palm and fingers (flat, or pointing) partly over a card, with a soft shadow; one on 30% of
  the normal scenes, one or two on every hard one;
- the camera: uneven light (gradient, vignette, exposure, colour tint), soft shadow blobs,
  defocus and motion blur, sensor noise, sometimes a webcam's sharpening, JPEG; the hard tier
  adds glare spots (stronger on the glossy cards), more blur and noise, JPEG 40-80.

The truth (``CardScene.cards``, ``DrawnCard``) has what ``pictable.bench.readers.identify``
scores: each card's id, the face showing, its corners (TL, TR, BR, BL of that face as
printed) in frame pixels (pixel centres at integers) and table mm, and ``visible_fraction``
measured on the drawn label buffer (cards laid later, hands and the frame's edge all take
their share), with ``hand_fraction`` and ``in_frame_fraction``.

Looks (``CARD_LOOKS``, issue 26): with ``looks="dev"`` or ``"held"`` a scene draws its table,
card stock, ink, sleeves (matt or glossy plastic, 1-2 mm past the card) and lamp from that
group's names, from a stream of its own; development looks are the only ones to tune on,
held-back looks are never tuned on. Without a group, scenes draw as they always did.

Scene kinds (``SCENE_KINDS``) as ``vision.identify.scenes``: ``codes`` (Pick Pic cards, 1 in
4 face down), ``features`` (all face up), ``unknown`` (face up, each swapped for a Pic Flip
card with probability 1/2). Picmix claims are drawn the same way by
``pictable.bench.drawers.picmix_claims``.

The cards' faces are the kit's own art, handed in (``Art``): the benchmark passes
``vision.kit.render_face`` (the images ``pictable kit export`` writes); ``Art.from_export``
reads an exported folder. The drawing is this module's alone (the drawers import neither
``vision.synth`` nor ``vision.kit``: tests/test_architecture.py).

    .venv/bin/python -m pictable.bench.drawers.cards --kit EXPORT_DIR --kind codes --n 4 --out DIR
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from pictable.bench.drawers.card_room import (
    CARD_LOOKS,
    LAMPS,
    TABLES,
    print_face,
    scene_look,
    table_image,
)

#: KIT.md: the webcam, the cards, the play-area markers (mm unless named otherwise).
FRAME_WH = (1280, 720)
HFOV_DEG = (65.0, 75.0)
HEIGHT_MM = (600.0, 900.0)
CARD_WH_MM = (63.0, 88.0)
PICMIX_PLAYER_WH_MM = (88.0, 63.0)
PLAY_MARKER_MM = 40.0
PLAY_MARKER_IDS = (0, 1, 2, 3)
#: Most of any card that cards laid later may hide (the issue: "overlapping up to ~40%").
OVERLAP_MAX = 0.4
#: The drawing's resolution: twice the frame's (truth is measured there), faces at 6 px/mm.
SS = 2
FACE_PX_PER_MM = 6.0
SCENE_KINDS = ("codes", "features", "unknown")
TIERS = ("normal", "hard")
#: Scene ``i`` of a run with seed ``s`` is drawn from seed ``s * SEED_STRIDE + i`` (as the
#: project's scenes).
SEED_STRIDE = 100_003
#: Random streams: ``default_rng([seed, STREAM])`` (the Picasso drawer uses seed alone, 25-27
#: and 40).
CARDS_STREAM = 51
#: Labels of the drawing's label buffer below the cards' (card k: 2k+1 its left half as
#: printed, 2k+2 its right half).
HAND, MARKER = -1, -2


@dataclass(frozen=True)
class Tier:
    """What a tier draws from (ranges low, high)."""

    tilt_max_deg: float
    defocus_px: tuple[float, float]
    motion_p: float
    motion_px: tuple[float, float]
    noise: tuple[float, float]
    jpeg: tuple[int, int]
    exposure: tuple[float, float]
    gradient: float
    vignette: tuple[float, float]
    glare_p: float
    hand_p: float
    hands: tuple[int, int]


TIER_SPECS = {
    "normal": Tier(30, (0.3, 0.8), 0.3, (0.5, 2.0), (1.5, 4.0), (80, 95), (0.8, 1.15), 0.15,
                   (0.0, 0.25), 0.0, 0.3, (1, 1)),
    "hard": Tier(40, (0.7, 1.6), 0.5, (2.0, 8.0), (3.0, 8.0), (40, 80), (0.6, 1.3), 0.35,
                 (0.1, 0.5), 0.8, 1.0, (1, 2)),
}  # fmt: skip


# ---- the cards' art ------------------------------------------------------------------------


@dataclass(frozen=True)
class Art:
    """Where the cards come from: ``face(card_id, side, px_per_mm)`` an (H, W, 3) uint8 BGR
    image of that face (``vision.kit.render_face``), ``ids(game)`` a deck's card ids,
    ``items(card_id, side)`` the Picmix items a face shows (a player card's (left, right),
    an objective's front its 3 or 4; () otherwise)."""

    face: Callable[[str, str, float], NDArray[np.uint8]]
    ids: Callable[[str], Sequence[str]]
    items: Callable[[str, str], tuple[str, ...]] = lambda card_id, side: ()

    @classmethod
    def from_export(cls, folders: Sequence[str | Path]) -> Art:
        """The art of ``pictable kit export`` folders (one per game: ``manifest.json`` and
        ``<card-id>_<side>.png``), resized to the resolution asked."""
        entries: dict[str, tuple[Path, float, dict[str, Any]]] = {}
        decks: dict[str, list[str]] = {}
        for folder in map(Path, folders):
            man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
            for c in man["cards"]:
                entries[c["id"]] = (folder, float(man["px_per_mm"]), c)
                decks.setdefault(man["game"], []).append(c["id"])
        cache: dict[tuple[str, str, float], NDArray[np.uint8]] = {}

        def face(card_id: str, side: str, px_per_mm: float) -> NDArray[np.uint8]:
            key = (card_id, side, px_per_mm)
            if key not in cache:
                folder, _, c = entries[card_id]
                img = cv2.imread(str(folder / c["faces"][side]["file"]), cv2.IMREAD_COLOR)
                if img is None:
                    raise OSError(f"cannot read the {side} of {card_id} in {folder}")
                w, h = (round(v * px_per_mm) for v in c["size_mm"])
                cache[key] = np.asarray(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA))
            return cache[key]

        def items(card_id: str, side: str) -> tuple[str, ...]:
            c = entries[card_id][2]
            two = c["faces"][side].get("items")
            if two:
                return (two["left"], two["right"])
            return tuple(c.get("items", ())) if side == "front" else ()

        return cls(face, lambda game: tuple(decks[game]), items)


def _face(art: Art, card_id: str, side: str) -> NDArray[np.float32]:
    """The face at ``FACE_PX_PER_MM`` as float32, checked against KIT.md's card size."""
    img = np.asarray(art.face(card_id, side, FACE_PX_PER_MM))
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise ValueError(f"face of {card_id} must be (H, W, 3) uint8, got {img.shape} {img.dtype}")
    size = (img.shape[1] / FACE_PX_PER_MM, img.shape[0] / FACE_PX_PER_MM)
    if not any(np.allclose(size, s, atol=0.5) for s in (CARD_WH_MM, PICMIX_PLAYER_WH_MM)):
        raise ValueError(f"face of {card_id} is {size} mm, not a KIT.md card")
    return img.astype(np.float32)


# ---- the truth -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DrawnCard:
    """A drawn card: ``corners_px`` (4, 2) float32 frame pixels and ``corners_mm`` (4, 2)
    float32 table mm of the face showing (TL, TR, BR, BL as printed); fractions of its whole
    area measured on the drawing; ``halves`` (left, right as printed: (half, item, visible
    fraction of that half)) for Picmix player cards, ``items`` an objective's face up."""

    card_id: str
    face: str
    corners_px: NDArray[np.float32]
    corners_mm: NDArray[np.float32]
    visible_fraction: float
    in_frame_fraction: float
    hand_fraction: float
    halves: tuple[tuple[str, str, float], ...] = ()
    items: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class CardScene:
    """A drawn photo ((720, 1280, 3) uint8 BGR) and its truth; ``cards`` bottom first;
    ``look``: the table, camera and effects drawn (for reading failures)."""

    frame: NDArray[np.uint8]
    cards: tuple[DrawnCard, ...]
    kind: str
    tier: str
    seed: int
    hands: tuple[dict[str, Any], ...]
    markers: tuple[int, ...]
    look: dict[str, Any] = field(default_factory=dict)
    area: tuple[str, ...] = ()  # Picmix: the player's cards

    def truth_json(self) -> dict[str, Any]:
        """Plain JSON of the truth (cards, hands, markers, look)."""
        cards = [
            dict(vars(c), corners_px=c.corners_px.tolist(), corners_mm=c.corners_mm.tolist())
            for c in self.cards
        ]
        keep = ("kind", "tier", "seed", "hands", "markers", "look")
        return {**{k: getattr(self, k) for k in keep}, "cards": cards}


# ---- the camera ----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Camera:
    """A pinhole camera over the table: ``hm`` (3, 3) table mm -> frame px (pixel centres
    at integers); ``ss`` the same to the drawing's pixels."""

    hm: NDArray[np.float64]
    height_mm: float
    tilt_deg: float
    hfov_deg: float

    @property
    def ss(self) -> NDArray[np.float64]:
        up = np.array([[SS, 0, (SS - 1) / 2], [0, SS, (SS - 1) / 2], [0, 0, 1]], np.float64)
        return up @ self.hm

    def px(self, mm: NDArray[np.float64], ss: bool = False) -> NDArray[np.float64]:
        """(N, 2) table mm -> (N, 2) frame pixels (or the drawing's, ``ss``)."""
        m = self.ss if ss else self.hm
        pts = np.asarray(mm, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, m), np.float64).reshape(-1, 2)

    def mm(self, px: NDArray[np.float64]) -> NDArray[np.float64]:
        """(N, 2) frame pixels -> (N, 2) table mm."""
        pts = np.asarray(px, np.float64).reshape(-1, 1, 2)
        inv = np.linalg.inv(self.hm)
        return np.asarray(cv2.perspectiveTransform(pts, inv), np.float64).reshape(-1, 2)

    def ppm(self, at_mm: NDArray[np.float64]) -> float:
        """Frame pixels per mm at table point ``at_mm`` (the mean stretch)."""
        p = np.asarray(at_mm, np.float64).reshape(2)
        q = self.px(p + np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
        return math.sqrt(abs(_cross(q[1] - q[0], q[2] - q[0])))


def _camera(rng: np.random.Generator, tier: Tier) -> Camera:
    """A camera looking at the table's origin: height ``HEIGHT_MM``, tilted from the
    vertical up to the tier's most (the frame's top farther), turned any way about the
    vertical, rolled up to 3 degrees, its principal point a few pixels off centre."""
    w, h = FRAME_WH
    hfov = rng.uniform(*HFOV_DEG)
    f = (w / 2) / math.tan(math.radians(hfov / 2))
    cx, cy = w / 2 - 0.5 + rng.uniform(-12, 12), h / 2 - 0.5 + rng.uniform(-8, 8)
    k = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]])
    height = rng.uniform(*HEIGHT_MM)
    tilt = rng.uniform(0, 1) * tier.tilt_max_deg
    yaw, roll = rng.uniform(0, 360), rng.uniform(-3, 3)

    def rot(axis: int, deg: float) -> NDArray[np.float64]:
        v = np.zeros(3)
        v[axis] = math.radians(deg)
        return np.asarray(cv2.Rodrigues(v)[0], np.float64)

    # world: x right, y down the table, z into it; the camera's z looks into the table
    r_wc = rot(2, yaw) @ rot(0, tilt) @ rot(2, roll)
    axis = r_wc[:, 2]
    centre = -(height / axis[2]) * axis
    r = r_wc.T
    hm = k @ np.column_stack([r[:, 0], r[:, 1], -r @ centre])
    return Camera(hm / hm[2, 2], float(height), float(tilt), float(hfov))


def _cross(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def _in_frame(px: NDArray[np.float64], margin: float) -> bool:
    w, h = FRAME_WH
    return bool(
        (px >= margin).all()
        and (px[:, 0] <= w - 1 - margin).all()
        and (px[:, 1] <= h - 1 - margin).all()
    )


def _rect_mm(
    centre: NDArray[np.float64], angle_deg: float, size_wh: tuple[float, float]
) -> NDArray[np.float64]:
    """(4, 2) corners TL, TR, BR, BL of a ``size_wh`` rectangle turned by ``angle_deg``."""
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    w, h = size_wh
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.asarray(local @ rot.T + centre, np.float64)


def _overlap(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area)


# ---- the table -----------------------------------------------------------------------------


def _table(rng: np.random.Generator, cam: Camera, kind: str) -> NDArray[np.float32]:
    """The table under the whole frame ((H, W, 3) float32 BGR at the frame's size)."""
    w, h = FRAME_WH
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    mm = cam.mm(np.stack([xx.ravel(), yy.ravel()], 1))
    x = np.clip(mm[:, 0], -3000, 3000).reshape(h, w).astype(np.float32)
    y = np.clip(mm[:, 1], -3000, 3000).reshape(h, w).astype(np.float32)
    return table_image(rng, x, y, kind)


# ---- the drawing ---------------------------------------------------------------------------


class _Drawing:
    """The photo drawn at ``SS`` times the frame's size: its float32 BGR image, its label
    buffer, and each card's whole footprint (to measure what hides it)."""

    def __init__(
        self, cam: Camera, table: NDArray[np.float32], light_dir: NDArray[np.float64]
    ) -> None:
        w, h = FRAME_WH
        self.cam = cam
        self.img = np.asarray(
            cv2.resize(table, (w * SS, h * SS), interpolation=cv2.INTER_LINEAR), np.float32
        )
        self.labels = np.zeros((h * SS, w * SS), np.int16)
        self.light = light_dir  # unit (2,): where shadows fall, in table mm
        self.full: list[tuple[int, int, NDArray[np.bool_], float]] = []  # x0, y0, mask, area

    def _roi(self, pts: NDArray[np.float64], pad: float) -> tuple[int, int, int, int]:
        h, w = self.labels.shape
        x0 = max(math.floor(pts[:, 0].min() - pad), 0)
        y0 = max(math.floor(pts[:, 1].min() - pad), 0)
        x1 = min(math.ceil(pts[:, 0].max() + pad) + 1, w)
        y1 = min(math.ceil(pts[:, 1].max() + pad) + 1, h)
        return x0, y0, x1, y1

    def flat(
        self,
        image: NDArray[np.float32],
        corners_mm: NDArray[np.float64],
        label: int,
        shadow: tuple[float, float, float] | None = None,
    ) -> None:
        """Lay ``image`` (a face or a marker's paper, (h, w, 3) float32 at ``FACE_PX_PER_MM``)
        flat with its corners TL, TR, BR, BL at ``corners_mm``; ``shadow`` (offset mm, blur
        mm, depth) drops a shadow first; pixels mostly covered take ``label`` (a card's
        ``2k+1``: its right half as printed takes ``2k+2``)."""
        ih, iw = image.shape[:2]
        src = np.array(
            [[-0.5, -0.5], [iw - 0.5, -0.5], [iw - 0.5, ih - 0.5], [-0.5, ih - 0.5]], np.float32
        )
        dst = self.cam.px(corners_mm, ss=True)
        ppm = self.cam.ppm(corners_mm.mean(0)) * SS
        pad = 3.0
        if shadow is not None:
            pad += (shadow[0] + 3 * shadow[1]) * ppm
        x0, y0, x1, y1 = self._roi(dst, pad)
        if x1 <= x0 or y1 <= y0:
            return
        hm = cv2.getPerspectiveTransform(src, (dst - [x0, y0]).astype(np.float32))
        size = (x1 - x0, y1 - y0)
        ones = np.ones((ih, iw), np.float32)
        if shadow is not None:
            off, blur, depth = shadow
            shift = self.cam.px(corners_mm + self.light * off, ss=True) - dst
            move = np.array([[1, 0, shift[:, 0].mean()], [0, 1, shift[:, 1].mean()], [0, 0, 1]])
            sh = cv2.warpPerspective(ones, move @ hm, size, flags=cv2.INTER_LINEAR)
            sh = cv2.GaussianBlur(sh, (0, 0), max(blur * ppm, 0.5))
            self.img[y0:y1, x0:x1] *= (1 - depth * sh)[:, :, None]
        shrink = FACE_PX_PER_MM / max(ppm, 1e-6)
        if shrink > 1:  # anti-alias before shrinking
            image = np.asarray(cv2.GaussianBlur(image, (0, 0), 0.45 * shrink), np.float32)
        warped = cv2.warpPerspective(
            image, hm, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        alpha = cv2.warpPerspective(
            ones, hm, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        # premultiplied: the warp mixed the border's zeros into the edge as alpha did
        self.img[y0:y1, x0:x1] = self.img[y0:y1, x0:x1] * (1 - alpha)[:, :, None] + warped
        mask = alpha >= 0.5
        if label > 0:
            right = np.zeros((ih, iw), np.float32)
            right[:, iw // 2 :] = 1
            half = cv2.warpPerspective(right, hm, size, flags=cv2.INTER_NEAREST) > 0.5
            roi = self.labels[y0:y1, x0:x1]
            roi[mask] = label
            roi[mask & half] = label + 1
            area = 0.5 * abs(_cross(dst[2] - dst[0], dst[3] - dst[1]))
            self.full.append((x0, y0, mask, area))
        else:
            self.labels[y0:y1, x0:x1][mask] = label

    def veil(
        self, corners_mm: NDArray[np.float64], reach_mm: float, haze: float, sheen: float
    ) -> None:
        """A clear sleeve over the card at ``corners_mm``: ``reach_mm`` past its edges, a
        white haze of ``haze`` over it, a brighter rim, and on glossy sleeves a broad band of
        ``sheen`` across it (the same way on the table for every card: one lamp)."""
        centre = corners_mm.mean(0)
        grown = centre + (corners_mm - centre) * (
            1 + 2 * reach_mm / np.linalg.norm(corners_mm[2] - corners_mm[0])
        )
        dst = self.cam.px(grown, ss=True)
        x0, y0, x1, y1 = self._roi(dst, 4.0)
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round((dst - [x0, y0]) * 4).astype(np.int32), 255,
                           cv2.LINE_AA, 2)  # fmt: skip
        a = mask.astype(np.float32) / 255
        ppm = self.cam.ppm(centre) * SS
        rim = a - cv2.erode(a, np.ones((3, 3), np.uint8), iterations=max(1, round(0.3 * ppm)))
        alpha = haze * a + 0.3 * np.clip(rim, 0, 1)
        if sheen > 0:
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            c = dst.mean(0)
            along = (xx - c[0]) * 0.8 + (yy - c[1]) * 0.6
            width = 0.2 * float(np.linalg.norm(dst[2] - dst[0]))
            alpha = alpha + sheen * a * np.exp(-((along / width) ** 2))
        alpha = np.clip(alpha, 0, 1)[:, :, None]
        self.img[y0:y1, x0:x1] = self.img[y0:y1, x0:x1] * (1 - alpha) + 255.0 * alpha

    def shape(
        self,
        polys_mm: list[NDArray[np.float64]],
        colour: NDArray[np.float32],
        shade: float,
        label: int,
    ) -> NDArray[np.float32]:
        """Fill the table polygons ``polys_mm`` with ``colour`` (BGR), rounded by ``shade``
        (darker towards the edges); pixels take ``label``. Returns the coverage (H, W)."""
        mask = np.zeros(self.labels.shape, np.uint8)
        for p in polys_mm:
            pts = np.round(self.cam.px(p, ss=True) * 4).astype(np.int32)
            cv2.fillPoly(mask, [pts], 255, cv2.LINE_8, 2)
        x, y, bw, bh = cv2.boundingRect(mask)
        h, w = mask.shape
        x0, y0, x1, y1 = max(x - 4, 0), max(y - 4, 0), min(x + bw + 4, w), min(y + bh + 4, h)
        cover = np.zeros(mask.shape, np.float32)
        if x1 <= x0 or y1 <= y0:
            return cover
        roi = cv2.GaussianBlur(mask[y0:y1, x0:x1].astype(np.float32) / 255, (0, 0), 0.8)
        small = cv2.resize(roi, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        body = cv2.resize(
            cv2.GaussianBlur(small, (0, 0), 3.0), roi.shape[::-1], interpolation=cv2.INTER_LINEAR
        )
        tone = (1 - shade) + shade * np.clip(body * 1.6, 0, 1)
        img = self.img[y0:y1, x0:x1]
        self.img[y0:y1, x0:x1] = img * (1 - roi)[:, :, None] + (roi * tone)[:, :, None] * colour
        self.labels[y0:y1, x0:x1][roi >= 0.5] = label
        cover[y0:y1, x0:x1] = roi
        return cover

    def darken(
        self, polys_mm: list[NDArray[np.float64]], offset_mm: float, blur_mm: float, depth: float
    ) -> None:
        """A soft shadow of the polygons, moved ``offset_mm`` along the light."""
        mask = np.zeros(self.labels.shape, np.uint8)
        for p in polys_mm:
            pts = self.cam.px(p + self.light * offset_mm, ss=True)
            cv2.fillPoly(mask, [np.round(pts * 4).astype(np.int32)], 255, cv2.LINE_8, 2)
        at = np.concatenate(polys_mm).mean(0)
        sigma = max(blur_mm * self.cam.ppm(at) * SS, 1.0)
        small = cv2.resize(
            mask.astype(np.float32) / 255, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA
        )
        small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
        sh = cv2.resize(small, mask.shape[::-1], interpolation=cv2.INTER_LINEAR)
        self.img *= (1 - depth * sh)[:, :, None]

    def fractions(self, k: int) -> tuple[float, float, float, tuple[float, float]]:
        """Card ``k``'s (visible, in frame, under hands, (left half, right half) visible)
        fractions of its whole area."""
        x0, y0, mask, area = self.full[k]
        roi = self.labels[y0 : y0 + mask.shape[0], x0 : x0 + mask.shape[1]]
        left = float(np.count_nonzero(roi == 2 * k + 1))
        right = float(np.count_nonzero(roi == 2 * k + 2))
        hand = float(np.count_nonzero(mask & (roi == HAND)))
        a = max(area, 1e-6)
        halves = (min(1.0, left / (a / 2)), min(1.0, right / (a / 2)))
        return min(1.0, (left + right) / a), min(1.0, np.count_nonzero(mask) / a), hand / a, halves


# ---- markers, hands ------------------------------------------------------------------------


def _markers(
    rng: np.random.Generator, cam: Camera, d: _Drawing
) -> tuple[list[int], list[NDArray[np.float64]]]:
    """The play-area markers 0-3 on white paper near the frame's corners (TL, TR, BR, BL as
    the camera sees them), turned alike; those that do not fit whole are left out. Returns
    the ids drawn and their papers' corners (mm), for the cards to keep off."""
    w, h = FRAME_WH
    aruco = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    border = rng.uniform(5, 10)
    side = PLAY_MARKER_MM + 2 * border
    angle = math.degrees(
        math.atan2(*(cam.mm(np.array([[w, h / 2]])) - cam.mm(np.array([[0, h / 2]])))[0][::-1])
    )
    angle += rng.uniform(-8, 8)
    paper = rng.uniform(232, 250)
    ids, papers = [], []
    for mid, (fx, fy) in zip(PLAY_MARKER_IDS, [(0, 0), (1, 0), (1, 1), (0, 1)], strict=True):
        inset = rng.uniform(45, 110, 2)
        at = np.array(
            [[fx * (w - 1) + (1 - 2 * fx) * inset[0], fy * (h - 1) + (1 - 2 * fy) * inset[1]]]
        )
        quad = _rect_mm(cam.mm(at)[0], angle, (side, side))
        if not _in_frame(cam.px(quad), 2):
            continue
        n = round(PLAY_MARKER_MM * FACE_PX_PER_MM)
        b = round(border * FACE_PX_PER_MM)
        img = np.full((n + 2 * b, n + 2 * b, 3), paper, np.float32)
        m = cv2.aruco.generateImageMarker(aruco, mid, n).astype(np.float32)
        img[b : b + n, b : b + n] = (25 + m * (paper - 25) / 255)[:, :, None]
        d.flat(img, quad, MARKER, shadow=(0.4, 0.6, 0.2))
        ids.append(mid)
        papers.append(quad)
    return ids, papers


SKIN_BGR = ((150, 172, 228), (120, 150, 210), (90, 125, 180), (65, 90, 140), (45, 58, 95))


def _capsule(a: NDArray[np.float64], b: NDArray[np.float64], r: float) -> NDArray[np.float64]:
    """(N, 2) the outline of a stroke of radius ``r`` from ``a`` to ``b`` (mm)."""
    d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
    ang = math.atan2(d[1], d[0])
    t1 = np.linspace(ang + math.pi / 2, ang - math.pi / 2, 9)
    t2 = np.linspace(ang - math.pi / 2, ang - 3 * math.pi / 2, 9)
    return np.concatenate(
        [
            b + r * np.stack([np.cos(t1), np.sin(t1)], 1),
            a + r * np.stack([np.cos(t2), np.sin(t2)], 1),
        ]
    )


def _reach(cam: Camera, tip: NDArray[np.float64], dvec: NDArray[np.float64]) -> float | None:
    """How far back (mm) from ``tip`` along ``-dvec`` the arm must go to leave the frame
    well behind, or None when it would first pass behind the camera."""
    depth_tip = float(cam.hm[2, :2] @ tip + cam.hm[2, 2])
    for reach in np.arange(100.0, 4000.0, 50.0):
        p = tip - dvec * reach
        if float(cam.hm[2, :2] @ p + cam.hm[2, 2]) < 0.25 * depth_tip:
            return None
        if not _in_frame(cam.px(p[None]), -60):
            return float(reach) + 150.0
    return None


def _hand(
    rng: np.random.Generator, cam: Camera, d: _Drawing, over: NDArray[np.float64] | None
) -> dict[str, Any]:
    """A hand and arm: the fingertips over ``over`` (a card's corners, mm; the hand then
    covers part of it) or anywhere in view, the arm from beyond the frame's edge (the bottom
    most often), a flat hand or a pointing one, in skin (the arm in a sleeve on half of
    them), with a soft shadow. Returns its truth (fingertip mm, pose)."""
    w, h = FRAME_WH
    if over is not None:
        tip = over.mean(0) + rng.uniform(-1, 1, 2) * np.array([25.0, 35.0])
    else:
        tip = cam.mm(np.array([[rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h]]))[0]
    edge = int(rng.choice(4, p=[0.5, 0.2, 0.2, 0.1]))  # bottom, left, right, top
    along = rng.uniform(0.1, 0.9)
    tip_px = cam.px(tip[None])[0]
    reach = None
    for e in (edge, 0):  # the bottom edge (the near side) can always be reached
        out = [(along * w, h), (0, along * h), (w, along * h), (along * w, 0)][e]
        # towards that edge, followed on the table (beyond the frame it may pass the horizon)
        aim = cam.mm(np.array([tip_px + 0.5 * (np.array(out) - tip_px)]))[0] - tip
        dvec = -aim / max(float(np.linalg.norm(aim)), 1e-6)  # from the arm's end to the tip
        reach = _reach(cam, tip, dvec)
        if reach is not None:
            break
    nvec = np.array([-dvec[1], dvec[0]])
    side = 1 if rng.random() < 0.5 else -1  # left or right hand
    pointing = bool(rng.random() < 0.35)
    finger = rng.uniform(60, 78)
    palm_len, palm_w = rng.uniform(90, 105), rng.uniform(78, 90)
    base = tip - dvec * finger
    palm_c = base - dvec * palm_len / 2
    t = np.linspace(0, 2 * math.pi, 40, endpoint=False)
    palm = (
        palm_c + np.outer(np.cos(t) * palm_len / 2, dvec) + np.outer(np.sin(t) * palm_w / 2, nvec)
    )
    polys = [palm]
    for i, (off, scale) in enumerate(zip((-27, -9, 9, 27), (0.8, 1.0, 0.95, 0.72), strict=True)):
        length = finger * scale if not pointing or i == 1 + (side < 0) else 22.0
        start = base + nvec * off * side + dvec * 6
        polys.append(_capsule(start, start + dvec * length, rng.uniform(7.5, 9.5)))
    thumb_dir = dvec * math.cos(0.8) + nvec * side * math.sin(0.8) * -1
    t0 = palm_c - nvec * side * palm_w * 0.42
    polys.append(_capsule(t0, t0 + thumb_dir * rng.uniform(45, 60), 10.5))
    wrist = palm_c - dvec * palm_len * 0.45
    entry = tip - dvec * (reach or 900.0)
    aw, ew = rng.uniform(30, 36), rng.uniform(40, 50)
    arm = np.array([entry + nvec * ew, wrist + nvec * aw, wrist - nvec * aw, entry - nvec * ew])
    polys.append(arm)
    d.darken(polys, rng.uniform(25, 60), rng.uniform(8, 15), rng.uniform(0.25, 0.5))
    skin = np.array(SKIN_BGR[int(rng.integers(len(SKIN_BGR)))], np.float32) * rng.uniform(
        0.9, 1.08, 3
    ).astype(np.float32)
    d.shape(polys, skin, 0.3, HAND)
    sleeve = rng.random() < 0.5
    if sleeve:
        cuff = wrist - dvec * rng.uniform(30, 120)
        cloth = rng.uniform(20, 230, 3).astype(np.float32)
        ew2 = ew + 6
        d.shape(
            [
                np.array(
                    [
                        entry + nvec * ew2,
                        cuff + nvec * (aw + 8),
                        cuff - nvec * (aw + 8),
                        entry - nvec * ew2,
                    ]
                )
            ],
            cloth,
            0.35,
            HAND,
        )
    return {
        "tip_mm": [round(float(v), 1) for v in tip],
        "pointing": pointing,
        "sleeve": bool(sleeve),
    }


# ---- the camera's picture ------------------------------------------------------------------


def _motion(img: NDArray[np.float32], length: float, angle: float) -> NDArray[np.float32]:
    size = math.ceil(length) | 1
    kernel = np.zeros((size, size), np.float32)
    c = (size - 1) / 2
    dx, dy = math.cos(angle) * (length - 1) / 2, math.sin(angle) * (length - 1) / 2
    pts = [
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
    ]
    cv2.line(kernel, pts[0], pts[1], 1.0, 1, cv2.LINE_AA, 4)
    return np.asarray(cv2.filter2D(img, -1, kernel / max(float(kernel.sum()), 1e-6)), np.float32)


def _photograph(
    d: _Drawing, rng: np.random.Generator, tier: Tier, look: dict[str, Any]
) -> NDArray[np.uint8]:
    """The drawing as the webcam gives it: shrunk to 1280 x 720, uneven light (exposure,
    gradient, vignette, tint, soft shadow blobs), glare on the hard tier, defocus and motion
    blur, noise, sometimes sharpening, JPEG. Records what it drew in ``look``."""
    w, h = FRAME_WH
    img = np.asarray(cv2.resize(d.img, (w, h), interpolation=cv2.INTER_AREA), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2) * tier.gradient
    light = (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)) * rng.uniform(*tier.exposure)
    vig = rng.uniform(*tier.vignette)
    light *= 1 - vig * (((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (w / 2)) ** 2) / 2
    blobs = int(rng.integers(0, 2)) + (tier.glare_p > 0)
    for _ in range(blobs):  # a lamp's shadow of someone's head or arm
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        ax = (int(rng.uniform(120, 450)), int(rng.uniform(80, 300)))
        m = np.zeros((h, w), np.float32)
        cv2.ellipse(m, c, ax, rng.uniform(0, 180), 0, 360, 1.0, -1)
        light *= 1 - rng.uniform(0.1, 0.35) * cv2.GaussianBlur(m, (0, 0), rng.uniform(20, 60))
    tint = rng.uniform(0.94, 1.06, 3).astype(np.float32)
    tint *= np.asarray(LAMPS[look.get("light", "neutral")], np.float32)
    img = img * light[:, :, None] * tint
    glare = 0
    if rng.random() < tier.glare_p:
        cards = cv2.resize((d.labels > 0).astype(np.float32), (w, h), interpolation=cv2.INTER_AREA)
        for _ in range(int(rng.integers(1, 3))):
            gx0, gy0 = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
            r, peak = rng.uniform(25, 110), rng.uniform(60, 200)
            spot = peak * np.exp(-((xx - gx0) ** 2 + (yy - gy0) ** 2) / (2 * r * r))
            img += (spot * (0.35 + 0.65 * cards))[:, :, None]
            glare += 1
    defocus = rng.uniform(*tier.defocus_px)
    img = np.asarray(cv2.GaussianBlur(img, (0, 0), defocus), np.float32)
    motion = 0.0
    if rng.random() < tier.motion_p:
        motion = float(rng.uniform(*tier.motion_px))
        img = _motion(img, motion, rng.uniform(0, math.pi))
    sigma = rng.uniform(*tier.noise)
    img += rng.normal(0, sigma, img.shape).astype(np.float32)
    img += rng.normal(0, sigma * 0.5, (h, w, 1)).astype(np.float32)
    sharpen = rng.random() < 0.4
    if sharpen:
        amount = rng.uniform(0.3, 0.8)
        img = img + amount * (img - cv2.GaussianBlur(img, (0, 0), 1.0))
    frame = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(tier.jpeg[0], tier.jpeg[1] + 1))
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError("cannot encode JPEG")
    look.update(
        glare=glare,
        defocus_px=round(float(defocus), 2),
        motion_px=round(motion, 1),
        noise=round(float(sigma), 1),
        sharpened=bool(sharpen),
        jpeg=quality,
        shadow_blobs=blobs,
    )
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)


# ---- scenes --------------------------------------------------------------------------------


def _lay(
    rng: np.random.Generator,
    cam: Camera,
    sizes: list[tuple[float, float]],
    keep_off: list[NDArray[np.float64]],
) -> list[NDArray[np.float64] | None]:
    """Corners (mm) for cards of ``sizes`` in laying order (None: no room found): strewn at
    any angle, or on a third of the tables in rows (gaps -4 to 10 mm, turned alike) as far
    as the rows fit; every card wholly in view, off the ``keep_off`` papers, and no card
    hidden over ``OVERLAP_MAX`` by those laid after it."""
    w, h = FRAME_WH
    grid: list[NDArray[np.float64]] = []
    grid_angle = rng.uniform(0, 360)
    if rng.random() < 0.35:
        gap, row_gap = rng.uniform(-4, 10), rng.uniform(2, 25)
        cols = int(rng.integers(2, 7))
        a = math.radians(grid_angle)
        ax, ay = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        origin = cam.mm(np.array([[rng.uniform(0.2, 0.45) * w, rng.uniform(0.2, 0.45) * h]]))[0]
        cw, ch = CARD_WH_MM
        grid = [
            origin + ax * (i % cols) * (cw + gap) + ay * (i // cols) * (ch + row_gap)
            for i in range(len(sizes))
        ]
    placed: list[tuple[NDArray[np.float64], float]] = []  # (corners, hidden so far)
    out: list[NDArray[np.float64] | None] = []
    for i, size in enumerate(sizes):
        quad = None
        for attempt in range(80):
            if grid and attempt < 3:
                centre = grid[i] + rng.normal(0, 1.0, 2)
                angle = grid_angle + rng.uniform(-4, 4)
            else:
                centre = cam.mm(np.array([[rng.uniform(40, w - 40), rng.uniform(40, h - 40)]]))[0]
                angle = rng.uniform(0, 360)
            q = _rect_mm(centre, angle, size)
            if not _in_frame(cam.px(q), 6) or any(_overlap(q, p) > 0 for p in keep_off):
                continue
            hides = [_overlap(q, p) for p, _ in placed]
            if any(
                hid + dh > OVERLAP_MAX * size[0] * size[1]
                for (_, hid), dh in zip(placed, hides, strict=True)
            ):
                continue
            placed = [(p, hid + dh) for (p, hid), dh in zip(placed, hides, strict=True)]
            placed.append((q, 0.0))
            quad = q
            break
        out.append(quad)
    return out


def _finish(rng: np.random.Generator, face: NDArray[np.float32]) -> NDArray[np.float32]:
    """The printed card under the room's light: a little lighter or darker, a faint ramp."""
    h, w = face.shape[:2]
    ramp = np.linspace(-1, 1, w, dtype=np.float32)[None, :] * np.float32(rng.uniform(-0.04, 0.04))
    ramp = ramp + np.linspace(-1, 1, h, dtype=np.float32)[:, None] * np.float32(
        rng.uniform(-0.04, 0.04)
    )
    return np.asarray(face * (np.float32(rng.uniform(0.92, 1.03)) + ramp)[:, :, None], np.float32)


class _Scene:
    """A scene being drawn: the camera, table, markers; cards laid one by one."""

    def __init__(
        self,
        rng: np.random.Generator,
        tier: str,
        table: str | None,
        markers: bool | None,
        look: dict[str, Any] | None = None,
    ) -> None:
        if tier not in TIER_SPECS:
            raise ValueError(f"tier {tier!r}: one of {TIERS}")
        self.rng, self.tier = rng, TIER_SPECS[tier]
        self.look = look or scene_look(0, None)
        self.cam = _camera(rng, self.tier)
        drawn = str(rng.choice(TABLES, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1]))
        self.table = table or self.look["table"] or drawn
        # a look's table is drawn from the look's stream: its kind draws more or fewer numbers,
        # and the cards of a seed stay the same under every look of a group
        trng = rng if self.look["table"] is None else np.random.default_rng(self.look["table_seed"])
        if self.table not in TABLES:
            raise ValueError(f"table {table!r}: one of {TABLES}")
        a = rng.uniform(0, 2 * math.pi)
        self.d = _Drawing(
            self.cam, _table(trng, self.cam, self.table), np.array([math.cos(a), math.sin(a)])
        )
        show = bool(rng.random() < 0.6) if markers is None else markers
        self.marker_ids, self.papers = _markers(rng, self.cam, self.d) if show else ([], [])
        self.laid: list[tuple[str, str, NDArray[np.float64]]] = []

    def lay(
        self, card_id: str, side: str, face: NDArray[np.float32], quad: NDArray[np.float64]
    ) -> None:
        r = self.rng
        shadow = (r.uniform(0.5, 1.5), r.uniform(0.5, 1.2), r.uniform(0.2, 0.45))
        self.d.flat(_finish(r, print_face(face, self.look)), quad, 2 * len(self.laid) + 1, shadow)
        if self.look["sleeve"] != "none":
            self.d.veil(quad, self.look["reach"], self.look["haze"], self.look["sheen"])
        self.laid.append((card_id, side, quad))

    def finish(
        self, n_hands: int | None, targets: list[int] | None = None
    ) -> tuple[NDArray[np.uint8], list[dict[str, Any]], dict[str, Any]]:
        """Hands (over one of ``targets``, default any card laid, most of the time), then
        the camera: (frame, hands' truth, look)."""
        r, t = self.rng, self.tier
        if n_hands is None:
            n_hands = int(r.integers(t.hands[0], t.hands[1] + 1)) if r.random() < t.hand_p else 0
        pool = list(range(len(self.laid))) if targets is None else targets
        hands = []
        for _ in range(n_hands):
            over = self.laid[int(r.choice(pool))][2] if pool and r.random() < 0.85 else None
            hands.append(_hand(r, self.cam, self.d, over))
        look: dict[str, Any] = {
            "table": self.table,
            **{k: self.look[k] for k in ("paper", "ink", "sleeve", "light")},
            "height_mm": round(self.cam.height_mm),
            "tilt_deg": round(self.cam.tilt_deg, 1),
            "hfov_deg": round(self.cam.hfov_deg, 1),
        }
        return _photograph(self.d, r, t, look), hands, look

    def truth(
        self, items: Callable[[str, str], tuple[str, ...]] | None = None
    ) -> tuple[DrawnCard, ...]:
        out = []
        for k, (card_id, side, quad) in enumerate(self.laid):
            vis, inf, hand, halves = self.d.fractions(k)
            two = items(card_id, side) if items else ()
            out.append(
                DrawnCard(
                    card_id,
                    side,
                    self.cam.px(quad).astype(np.float32),
                    quad.astype(np.float32),
                    round(vis, 4),
                    round(inf, 4),
                    round(hand, 4),
                    tuple(
                        (n, it, round(v, 4))
                        for n, it, v in zip(("left", "right"), two, halves, strict=False)
                    )
                    if len(two) == 2
                    else (),
                    two if len(two) > 2 else (),
                )
            )
        return tuple(out)


def draw_card_scene(
    seed: int,
    kind: str,
    tier: str,
    art: Art,
    *,
    n_cards: int | None = None,
    n_hands: int | None = None,
    table: str | None = None,
    markers: bool | None = None,
    looks: str | None = None,
) -> CardScene:
    """One photo of ``kind`` (``SCENE_KINDS``) and ``tier`` (``TIERS``) drawn from ``seed``
    (module docstring): 1 to 12 cards (or ``n_cards``), the tier's hands (or ``n_hands``),
    a random table (or ``table`` of ``TABLES``), markers on 60% of scenes (or as
    ``markers`` says), in a look of the group ``looks`` (``CARD_LOOKS``; None: the default
    look). Cards that find no room are left out of the photo and the truth."""
    if kind not in SCENE_KINDS:
        raise ValueError(f"kind {kind!r}: one of {SCENE_KINDS}")
    rng = np.random.default_rng([seed, CARDS_STREAM])
    s = _Scene(rng, tier, table, markers, scene_look(seed, looks))
    n = int(rng.integers(1, 13)) if n_cards is None else n_cards
    deck = list(art.ids("pickpic"))
    foreign = list(art.ids("picflip")) if kind == "unknown" else []
    pick, fpick = rng.permutation(len(deck))[:n], rng.permutation(max(len(foreign), 1))
    chosen = []
    for j, i in enumerate(pick):
        down, swap = rng.random() < 0.25, rng.random() < 0.5
        card = foreign[int(fpick[j % len(fpick)])] if kind == "unknown" and swap else deck[int(i)]
        chosen.append((card, "back" if kind == "codes" and down else "front"))
    faces = [_face(art, c, side) for c, side in chosen]
    quads = _lay(
        rng,
        s.cam,
        [(f.shape[1] / FACE_PX_PER_MM, f.shape[0] / FACE_PX_PER_MM) for f in faces],
        s.papers,
    )
    for (card, side), face, quad in zip(chosen, faces, quads, strict=True):
        if quad is not None:
            s.lay(card, side, face, quad)
    frame, hands, look = s.finish(n_hands)
    return CardScene(frame, s.truth(), kind, tier, seed, tuple(hands), tuple(s.marker_ids), look)


def card_scenes(
    kind: str, tier: str, n: int, seed: int, art: Art, looks: str | None = None
) -> Iterator[tuple[int, NDArray[np.uint8], CardScene]]:
    """Scenes ``0 .. n-1`` of a run (scene ``i`` from ``seed * SEED_STRIDE + i``) in looks of
    the group ``looks``, as ``vision.identify.scenes.scenes`` gives them: (index, frame,
    truth)."""
    for i in range(n):
        scene = draw_card_scene(seed * SEED_STRIDE + i, kind, tier, art, looks=looks)
        yield i, scene.frame, scene


def main(argv: list[str] | None = None) -> int:
    """Write scenes (PNG) and their truth (JSON) drawn with the art of exported kits."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--kit",
        type=Path,
        action="append",
        required=True,
        help="a `pictable kit export` folder (pickpic, picflip, picmix; repeat)",
    )
    ap.add_argument("--kind", choices=(*SCENE_KINDS, "claim"), default="codes")
    ap.add_argument("--tier", choices=TIERS, default="normal")
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--looks", choices=sorted(CARD_LOOKS), default=None,
        help="draw looks of this group (dev: to tune on; held: held back); default: any table, "
        "the kit's print, bare cards",
    )  # fmt: skip
    args = ap.parse_args(argv)
    art = Art.from_export(args.kit)
    args.out.mkdir(parents=True, exist_ok=True)
    for i in range(args.n):
        if args.kind == "claim":
            from pictable.bench.drawers.picmix_claims import claim_scene

            frame, truth = claim_scene(args.tier, args.seed, i, art, args.looks)
        else:
            scene = draw_card_scene(
                args.seed * SEED_STRIDE + i, args.kind, args.tier, art, looks=args.looks
            )
            frame, truth = scene.frame, scene.truth_json()
        cv2.imwrite(str(args.out / f"{args.kind}_{i:03d}.png"), frame)
        (args.out / f"{args.kind}_{i:03d}.json").write_text(json.dumps(truth), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
