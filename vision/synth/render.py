"""The renderer: warps planar sprites onto the frame through the exact camera model.

For every supersampled output pixel the camera gives its undistorted normalised
coordinates (``Camera.normalized_grid``); each sprite's plane maps those to texture
coordinates by one homography, and ``cv2.remap`` samples the texture. Lens distortion
is therefore exact per pixel, not approximated per corner. Frames are rendered at 2x and
area-averaged down (anti-aliasing), and two label buffers record which object is on top
of every sample (with and without hands), from which the truth's fractions are counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.synth import sprites as sp
from vision.synth.camera import SS, Camera
from vision.synth.effects import apply_effects
from vision.synth.spec import (
    BOARD_FRAME_MM,
    BOARD_MARKER_IDS,
    BOARD_MARKER_MM,
    CANVAS_WH_MM,
    CardSpec,
    HandSpec,
    MarkerSpec,
    PieceSpec,
    Pose,
    SceneSpec,
    ShapeSpec,
    StickSpec,
    StringSpec,
    on_canvas,
    piece_kind,
)
from vision.synth.textures import (
    TABLE_TILE_MM,
    TEXTURES,
    DeckCard,
    TextureProvider,
    default_provider,
    table_tile,
)
from vision.synth.truth import (
    PICMIX_VISIBLE_MIN,
    BoardTruth,
    CameraTruth,
    CardTruth,
    HalfTruth,
    HandTruth,
    MarkerTruth,
    PicmixAreaTruth,
    PicmixItemTruth,
    PieceTruth,
    Truth,
)

#: Direction and length of drop shadows on the table per mm of height (table frame).
SHADOW_DIR = (0.30, 0.42)
_MAX_LABELS = 32000


@dataclass(eq=False)
class Placed:
    """A sprite ready to draw: texture, where its plane lies, labels per region."""

    tex: sp.SpriteTex
    pose: Pose
    labels: tuple[int, ...] = ()
    hand: bool = False
    wrap: bool = False


@dataclass(eq=False)
class Layers:
    """Supersampled buffers: colour (H2, W2, 3) uint8 and label ids (H2, W2) int16, with
    hands (``label_all``) and without them (``label_nohand``)."""

    color: np.ndarray
    label_all: np.ndarray
    label_nohand: np.ndarray


@dataclass(eq=False)
class Counts:
    """Per-label sample counts: on top (all), on top ignoring hands, hidden by a hand,
    and drawn (the object's own unoccluded in-frame samples)."""

    all: np.ndarray
    nohand: np.ndarray
    hand_cover: np.ndarray
    drawn: np.ndarray

    @classmethod
    def zeros(cls, n: int) -> Counts:
        z = np.zeros(n, np.int64)
        return cls(z.copy(), z.copy(), z.copy(), z.copy())

    def copy(self) -> Counts:
        return Counts(
            self.all.copy(), self.nohand.copy(), self.hand_cover.copy(), self.drawn.copy()
        )


class Compositor:
    """Draws ``Placed`` sprites into ``Layers`` for one camera."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self.grid = camera.normalized_grid()
        self.coarse, self.step = camera.coarse_grid()
        self.h2, self.w2 = self.grid.shape[:2]
        self.R = camera.R
        self.t = camera.tvec.reshape(3)

    def new_layers(self) -> Layers:
        return Layers(
            np.zeros((self.h2, self.w2, 3), np.uint8),
            np.zeros((self.h2, self.w2), np.int16),
            np.zeros((self.h2, self.w2), np.int16),
        )

    # ---- geometry

    def plane_homography(self, pose: Pose) -> np.ndarray:
        """(3, 3) map from plane mm (u, v, 1) to normalised camera coordinates."""
        ex, ey, o = (np.asarray(v, np.float64) for v in (pose.ex, pose.ey, pose.origin_mm))
        return np.stack([self.R @ ex, self.R @ ey, self.R @ o + self.t], axis=1)

    def scale_2x(self, pose: Pose, size_mm: tuple[float, float]) -> float:
        """Largest supersampled pixels per mm over the sprite (ignoring distortion)."""
        w, h = size_mm
        loc = np.array([[0, 0], [w, 0], [w, h], [0, h], [w / 2, h / 2]], np.float64)
        g = self.plane_homography(pose)
        p = np.concatenate([loc, np.ones((5, 1))], 1) @ g.T
        z = p[:, 2]
        if np.any(z <= 1e-6):
            z = np.maximum(z, 1e-6)
        best = 0.0
        for col in (0, 1):
            d = (g[:2, col][None, :] - p[:, :2] / z[:, None] * g[2, col]) / z[:, None]
            best = max(best, float(np.linalg.norm(d, axis=1).max()))
        return best * float(self.camera.K[0, 0]) * SS

    def bbox(self, placed: Placed) -> tuple[int, int, int, int] | None:
        """Supersampled pixel box (x0, y0, x1, y1) that holds the sprite, or None."""
        if placed.wrap:
            return (0, 0, self.w2, self.h2)
        w, h = placed.tex.size_mm
        n = 12
        a = np.linspace(0, 1, n, endpoint=False)
        loc = np.concatenate(
            [
                np.stack([a * w, np.zeros(n)], 1),
                np.stack([np.full(n, w), a * h], 1),
                np.stack([w - a * w, np.full(n, h)], 1),
                np.stack([np.zeros(n), h - a * h], 1),
            ]
        )
        g = self.plane_homography(placed.pose)
        p = np.concatenate([loc, np.ones((len(loc), 1))], 1) @ g.T
        front = p[:, 2] > 1e-6
        if not np.any(front):
            return None
        if not np.all(front):
            return (0, 0, self.w2, self.h2)
        xy = p[:, :2] / p[:, 2:]
        lo, hi = xy.min(0), xy.max(0)
        c = self.coarse
        inside = (
            (c[..., 0] >= lo[0])
            & (c[..., 0] <= hi[0])
            & (c[..., 1] >= lo[1])
            & (c[..., 1] <= hi[1])
        )
        # coarse samples falling inside may be none while the box is thinner than a cell
        rows = np.flatnonzero(inside.any(1))
        cols = np.flatnonzero(inside.any(0))
        if len(rows) == 0:
            # find the nearest coarse cell to the box centre
            mid = (lo + hi) / 2
            d = np.abs(c[..., 0] - mid[0]) + np.abs(c[..., 1] - mid[1])
            r, k = np.unravel_index(int(np.argmin(d)), d.shape)
            rows, cols = np.array([r]), np.array([k])
        s = self.step
        x0 = int((cols[0] - 2 + 0.5) * s) - 1
        x1 = int((cols[-1] + 0.5) * s) + 2
        y0 = int((rows[0] - 2 + 0.5) * s) - 1
        y1 = int((rows[-1] + 0.5) * s) + 2
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.w2, x1), min(self.h2, y1)
        if x1 <= x0 or y1 <= y0:
            return None
        return (x0, y0, x1, y1)

    # ---- drawing

    def draw(
        self,
        layers: Layers,
        placed: Placed,
        window: tuple[int, int, int, int] | None = None,
        drawn: np.ndarray | None = None,
        origin: tuple[int, int] = (0, 0),
    ) -> None:
        """Composite one sprite over ``layers`` within ``window`` (full-frame
        supersampled box). ``layers`` may be a crop whose top-left is ``origin``.
        ``drawn`` (per-label counts) is increased by the sprite's own samples."""
        box = self.bbox(placed)
        if box is None:
            return
        if window is not None:
            box = (
                max(box[0], window[0]),
                max(box[1], window[1]),
                min(box[2], window[2]),
                min(box[3], window[3]),
            )
            if box[2] <= box[0] or box[3] <= box[1]:
                return
        x0, y0, x1, y1 = box
        tex = placed.tex
        th, tw = tex.bgra.shape[:2]
        sx, sy = tw / tex.size_mm[0], th / tex.size_mm[1]
        to_tex = np.array([[sx, 0, -0.5], [0, sy, -0.5], [0, 0, 1]])
        m = to_tex @ np.linalg.inv(self.plane_homography(placed.pose))
        m = m / np.abs(m).max()
        g = self.grid[y0:y1, x0:x1]
        mf = m.astype(np.float32)
        corners = g[[0, 0, -1, -1], [0, -1, 0, -1]]
        den_c = mf[2, 0] * corners[:, 0] + mf[2, 1] * corners[:, 1] + mf[2, 2]
        if np.all(den_c > 0) and _flat(placed.pose):
            # the plane is in front of the camera over the whole box: one C++ call
            uv = cv2.perspectiveTransform(g.reshape(-1, 1, 2), m).reshape(g.shape)
            mx = np.ascontiguousarray(uv[..., 0])
            my = np.ascontiguousarray(uv[..., 1])
        else:
            xn, yn = g[..., 0], g[..., 1]
            den = mf[2, 0] * xn + mf[2, 1] * yn + mf[2, 2]
            bad = den <= 0
            den = np.where(bad, np.float32(1.0), den)
            mx = (mf[0, 0] * xn + mf[0, 1] * yn + mf[0, 2]) / den
            my = (mf[1, 0] * xn + mf[1, 1] * yn + mf[1, 2]) / den
            if np.any(bad):
                mx[bad] = -1e4
                my[bad] = -1e4
        ox, oy = origin
        sl = (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox))
        if placed.wrap:
            mx = np.mod(mx + 0.5, np.float32(tw)) - 0.5
            my = np.mod(my + 0.5, np.float32(th)) - 0.5
            src = cv2.remap(tex.bgra[..., :3], mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
            layers.color[sl] = src
            layers.label_all[sl] = 0
            layers.label_nohand[sl] = 0
            return
        samp = cv2.remap(
            tex.bgra, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
        )
        alpha = samp[..., 3]
        if not alpha.any():
            return
        dst = layers.color[sl]
        inv = cv2.merge([255 - alpha] * 3)
        dst[...] = cv2.add(cv2.multiply(dst, inv, scale=1 / 255), samp[..., :3])
        if not placed.labels:
            return
        mask = alpha >= 128
        if tex.regions is not None:
            reg = cv2.remap(
                tex.regions,
                mx,
                my,
                cv2.INTER_NEAREST,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=sp.NO_REGION,
            )
            mask &= reg != sp.NO_REGION
            lut = np.zeros(256, np.int16)
            lut[: len(placed.labels)] = placed.labels
            lab = lut[reg]
        else:
            lab = np.full(alpha.shape, placed.labels[0], np.int16)
        layers.label_all[sl][mask] = lab[mask]
        if not placed.hand:
            layers.label_nohand[sl][mask] = lab[mask]
        if drawn is not None:
            drawn += np.bincount(lab[mask].ravel(), minlength=len(drawn))[: len(drawn)]


def _flat(pose: Pose) -> bool:
    """True for a plane parallel to the table (then no ray meets it from behind)."""
    return abs(pose.ex[2]) < 1e-9 and abs(pose.ey[2]) < 1e-9


def count_labels(
    label_all: np.ndarray, label_nohand: np.ndarray, is_hand: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(all, nohand, hand_cover) per-label counts of a pair of (H, W) int16 label buffers."""
    la = label_all.view(np.uint16)
    ln = label_nohand.view(np.uint16)
    c_all = _hist(la, n)
    c_no = _hist(ln, n)
    hands = np.flatnonzero(is_hand[:n])
    c_hand = np.zeros(n, np.int64)
    if len(hands) and c_all[hands].any():
        mask = np.zeros(la.shape, np.uint8)
        for h in hands:
            mask |= (la == h).view(np.uint8)
        c_hand = _hist(ln, n, mask)
    return c_all, c_no, c_hand


def _hist(labels: np.ndarray, n: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Exact per-label counts of a (H, W) uint16 label image (labels < n)."""
    if labels.size == 0:
        return np.zeros(n, np.int64)
    h = cv2.calcHist([np.ascontiguousarray(labels)], [0], mask, [n], [0, n])
    return np.rint(h.ravel()).astype(np.int64)


# --------------------------------------------------------------------------- scene -> sprites


@dataclass(eq=False)
class Registry:
    """Label ids handed out to objects, and what each object is."""

    n: int = 1  # label 0 is the table
    hand_labels: list[int] = field(default_factory=list)

    def take(self, k: int = 1) -> tuple[int, ...]:
        ids = tuple(range(self.n, self.n + k))
        self.n += k
        if self.n > _MAX_LABELS:
            raise ValueError(f"too many objects in one scene ({self.n} labels)")
        return ids

    def is_hand(self) -> np.ndarray:
        out = np.zeros(_MAX_LABELS + 1, bool)
        out[self.hand_labels] = True
        return out


@dataclass(eq=False)
class SceneSprites:
    """A scene turned into sprites: static ones (bottom to top) then dynamic ones
    (hands, held cards), with label ids per truth object."""

    static: list[Placed]
    dynamic: list[Placed]
    registry: Registry
    card_labels: list[tuple[int, ...]]
    held_labels: list[tuple[int, ...]]
    marker_labels: list[tuple[int, ...]]
    marker_margins: list[float]
    board_labels: tuple[int, ...]
    piece_labels: list[tuple[int, ...]]
    hand_labels: list[tuple[int, ...]]


def _ppm_level(scale: float, lo: float = 1.0, hi: float = 16.0) -> float:
    """Texture resolution for a given output scale: the next power of two."""
    return float(min(hi, max(lo, 2.0 ** math.ceil(math.log2(max(scale, 1e-3))))))


class SceneBuilder:
    """Turns specs into sprites, caching textures across frames."""

    def __init__(self, compositor: Compositor, provider: TextureProvider, seed: int) -> None:
        self.comp = compositor
        self.provider = provider
        self.seed = seed
        self._decks: dict[str, dict[str, DeckCard]] = {}

    def deck_card(self, card_id: str) -> DeckCard | None:
        if not self._decks:
            for game in ("pickpic", "picflip", "picasso", "picmix"):
                self._decks[game] = {c.card_id: c for c in self.provider.deck(game)}
        for d in self._decks.values():
            if card_id in d:
                return d[card_id]
        return None

    def table(self, spec: SceneSpec) -> Placed:
        t = spec.table

        def make() -> sp.SpriteTex:
            tile = table_tile(t.kind, t.colour_bgr, t.seed)
            bgra = cv2.cvtColor(tile, cv2.COLOR_BGR2BGRA)
            return sp.SpriteTex(bgra, (TABLE_TILE_MM, TABLE_TILE_MM))

        tex = TEXTURES.get(("table-bgra", t), make)
        pose = Pose((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
        return Placed(tex, pose, wrap=True)

    def card(
        self, card: CardSpec, labels_out: list[tuple[int, ...]], reg: Registry, *, held: bool
    ) -> list[Placed]:
        size = card.size_wh_mm
        scale = self.comp.scale_2x(card.pose, size)
        ppm = _ppm_level(scale * 1.2, 2.0, 16.0)
        info = self.deck_card(card.card_id)
        split = info.half_axis if info is not None and info.halves is not None else None

        def make() -> sp.SpriteTex:
            face = self.provider.card_face(card.card_id, card.face, ppm)
            h, w = face.shape[:2]
            if abs(w / h - size[0] / size[1]) > 0.03:
                raise ValueError(
                    f"card {card.card_id!r}: the {self.provider.name} face is {w}x{h} px but the "
                    f"spec says {size[0]:g}x{size[1]:g} mm (set CardSpec.size_wh_mm)"
                )
            return sp.card_sprite(face, size, split=split)

        key = ("card", self.provider.name, card.card_id, card.face, ppm, size)
        tex = TEXTURES.get(key, make)
        labels = reg.take(2 if split else 1)
        labels_out.append(labels)
        out = [Placed(tex, card.pose, labels)]
        # a thin shadow of the card's edge on what lies below (flat cards only)
        if not held:
            sh = TEXTURES.get(("card-shadow", ppm, size), lambda: _card_shadow(ppm, size))
            o = np.asarray(card.pose.origin_mm) + np.array([0.5, 0.7, 0.0])
            out.insert(0, Placed(sh, Pose(tuple(o), card.pose.ex, card.pose.ey)))
        if card.glare is not None:
            g = card.glare
            gppm = min(ppm, 4.0)
            gtex = TEXTURES.get(("glare", g, gppm, size), lambda: sp.glare_sprite(g, size, gppm))
            out.append(Placed(gtex, card.pose))
        return out

    def marker(self, m: MarkerSpec, reg: Registry) -> tuple[Placed, tuple[int, ...], float]:
        pose0 = Pose.flat(m.center_mm, m.angle_deg, (m.size_mm, m.size_mm))
        scale = self.comp.scale_2x(pose0, (m.size_mm, m.size_mm))
        k = max(2, math.ceil(scale * m.size_mm / 6 * 1.2))
        tex, margin = TEXTURES.get(
            ("marker", m.marker_id, m.size_mm, m.margin_mm, k),
            lambda: sp.marker_sprite(m.marker_id, m.size_mm, m.margin_mm, k),
        )
        # label only the black-bordered square, not the paper margin
        n = tex.bgra.shape[0]
        mt = round(margin * n / tex.size_mm[0])
        regions = np.full((n, n), sp.NO_REGION, np.uint8)
        regions[mt : n - mt, mt : n - mt] = 0
        tex = sp.SpriteTex(tex.bgra, tex.size_mm, regions)
        side = tex.size_mm[0]
        pose = Pose.flat(m.center_mm, m.angle_deg, (side, side))
        labels = reg.take(1)
        return Placed(tex, pose, labels), labels, margin

    def board(
        self, spec: SceneSpec, reg: Registry
    ) -> tuple[list[Placed], tuple[int, ...], list[tuple[int, ...]]]:
        b = spec.board
        if b is None:
            return [], (), []
        pose = b.pose()
        f = BOARD_FRAME_MM
        size = (CANVAS_WH_MM[0] + 2 * f, CANVAS_WH_MM[1] + 2 * f)
        scale = self.comp.scale_2x(pose, size)
        cell = BOARD_MARKER_MM / 6
        k = max(2, math.ceil(scale * cell * 1.2))
        tex = TEXTURES.get(
            ("board", k, b.frame_bgr, self.seed % 7),
            lambda: sp.board_sprite(k, b.frame_bgr, self.seed % 7),
        )
        board_labels = reg.take(6)  # canvas, frame, markers 4..7
        out = [Placed(tex, pose, board_labels)]
        piece_labels: list[tuple[int, ...]] = []
        strings: list[tuple[PieceSpec, tuple[int, ...]]] = []
        for i, piece in enumerate(b.pieces):
            labels = reg.take(1)
            piece_labels.append(labels)
            if isinstance(piece, StringSpec):
                strings.append((piece, labels))
                continue
            out.append(self.piece(piece, labels, b.angle_deg, b.to_table, i))
        for piece, labels in strings:
            out.append(self.piece(piece, labels, b.angle_deg, b.to_table, 0))
        return out, board_labels, piece_labels

    def piece(
        self,
        piece: PieceSpec,
        labels: tuple[int, ...],
        board_angle: float,
        to_table: object,
        index: int,
    ) -> Placed:
        height = {"long_stick": 3.0, "short_stick": 3.0, "shape": 2.0, "string": 1.5}[
            piece_kind(piece)
        ]
        shadow = (SHADOW_DIR[0] * height, SHADOW_DIR[1] * height)
        # express the table-frame shadow offset in the board frame
        a = math.radians(board_angle)
        shadow_b = (
            shadow[0] * math.cos(a) + shadow[1] * math.sin(a),
            -shadow[0] * math.sin(a) + shadow[1] * math.cos(a),
        )
        if not callable(to_table):
            raise TypeError("to_table must be callable")
        if isinstance(piece, StringSpec):
            ppm = 4.0
            tex, lo = TEXTURES.get(
                ("string", piece, ppm, shadow_b), lambda: sp.string_sprite(piece, ppm, shadow_b)
            )
            corner = to_table(lo[None])[0]
            pose = Pose.flat((0.0, 0.0), board_angle, (0.0, 0.0))
            return Placed(
                tex, Pose((float(corner[0]), float(corner[1]), 0.0), pose.ex, pose.ey), labels
            )
        if isinstance(piece, StickSpec):
            seed = self.seed * 1000 + index
            tex = TEXTURES.get(
                ("stick", piece, 8.0, shadow_b, seed),
                lambda: sp.stick_sprite(piece, 8.0, shadow_b, seed),
            )
        elif isinstance(piece, ShapeSpec):
            seed = self.seed * 1000 + index
            tex = TEXTURES.get(
                ("shape", piece, 8.0, shadow_b, seed),
                lambda: sp.shape_sprite(piece, 8.0, shadow_b, seed),
            )
        else:
            raise TypeError(f"unknown piece {piece!r}")
        centre = to_table(np.asarray(piece.center_mm)[None])[0]
        pose = Pose.flat(
            (float(centre[0]), float(centre[1])), board_angle + piece.angle_deg, tex.size_mm, 0.0
        )
        return Placed(tex, pose, labels)

    def hand(
        self, hand: HandSpec, index: int, reg: Registry
    ) -> tuple[list[Placed], tuple[int, ...]]:
        L, W = sp.HAND_LEN_MM, sp.HAND_WIDTH_MM
        pose, shadow_pose = hand_poses(hand)
        scale = self.comp.scale_2x(pose, (L, W))
        ppm = _ppm_level(scale, 1.0, 4.0)
        seed = self.seed * 31 + index
        base_key = ("hand", hand.skin, hand.sleeve_bgr, hand.gesture, ppm, seed)
        tex = TEXTURES.get(base_key, lambda: sp.hand_sprite(hand, ppm, seed))
        smear_px = round(hand.motion_mm * ppm)
        if smear_px > 1:
            base = tex
            tex = TEXTURES.get((*base_key, "smear", smear_px), lambda: sp.smear(base, smear_px))
        labels = reg.take(1)
        reg.hand_labels.extend(labels)
        out: list[Placed] = []
        if hand.shadow and shadow_pose is not None:
            sppm = 1.0  # a soft shadow needs no detail
            bucket = replace(hand, height_mm=float(round(hand.height_mm / 10.0) * 10.0))
            stex = TEXTURES.get(
                ("hand-shadow", hand.gesture, bucket.height_mm, sppm),
                lambda: sp.hand_shadow_sprite(bucket, sppm),
            )
            out.append(Placed(stex, shadow_pose))
        out.append(Placed(tex, pose, labels, hand=True))
        return out, labels

    def build(self, spec: SceneSpec) -> SceneSprites:
        reg = Registry()
        static: list[Placed] = [self.table(spec)]
        marker_labels: list[tuple[int, ...]] = []
        margins: list[float] = []
        for m in spec.markers:
            placed, labels, margin = self.marker(m, reg)
            static.append(placed)
            marker_labels.append(labels)
            margins.append(margin)
        board_sprites, board_labels, piece_labels = self.board(spec, reg)
        static.extend(board_sprites)
        card_labels: list[tuple[int, ...]] = []
        for c in spec.cards:
            static.extend(self.card(c, card_labels, reg, held=False))
        dynamic: list[Placed] = []
        hand_labels: list[tuple[int, ...]] = []
        shadows: list[Placed] = []
        bodies: list[Placed] = []
        for i, h in enumerate(spec.hands):
            hand_sprites, labels = self.hand(h, i, reg)
            hand_labels.append(labels)
            for p in hand_sprites:
                (bodies if p.hand else shadows).append(p)
        held_labels: list[tuple[int, ...]] = []
        # hand shadows, then held cards, then hands: fingers hold a card from the front
        dynamic.extend(shadows)
        for c in spec.held_cards:
            dynamic.extend(self.card(c, held_labels, reg, held=True))
        dynamic.extend(bodies)
        return SceneSprites(
            static,
            dynamic,
            reg,
            card_labels,
            held_labels,
            marker_labels,
            margins,
            board_labels,
            piece_labels,
            hand_labels,
        )


def _card_shadow(ppm: float, size: tuple[float, float]) -> sp.SpriteTex:
    face = np.zeros((round(size[1] * ppm), round(size[0] * ppm), 3), np.uint8)
    tex = sp.card_sprite(face, size, split=None)
    a = tex.bgra[..., 3].astype(np.float32) / 255.0
    a = cv2.GaussianBlur(a, (0, 0), max(0.5, 0.6 * ppm)) * 0.35
    bgra = np.zeros_like(tex.bgra)
    bgra[..., 3] = np.clip(a * 255 + 0.5, 0, 255).astype(np.uint8)
    return sp.SpriteTex(bgra, size, np.full(a.shape, sp.NO_REGION, np.uint8))


def hand_poses(hand: HandSpec) -> tuple[Pose, Pose | None]:
    """Pose of the hand sprite and of its shadow on the table (None for a hand in an
    explicit plane)."""
    L, W = sp.HAND_LEN_MM, sp.HAND_WIDTH_MM
    a = math.radians(hand.angle_deg)
    if hand.plane is not None:
        pl = hand.plane
        pex, pey = np.asarray(pl.ex), np.asarray(pl.ey)
        ex = math.cos(a) * pex + math.sin(a) * pey
        ey = -math.sin(a) * pex + math.cos(a) * pey
        tip = np.asarray(pl.origin_mm) + hand.tip_mm[0] * pex + hand.tip_mm[1] * pey
        o = tip - L * ex - (W / 2) * ey
        return Pose.of(o, ex, ey), None
    ex = np.array([math.cos(a), math.sin(a), 0.0])
    ey = np.array([-math.sin(a), math.cos(a), 0.0])
    tip = np.array([hand.tip_mm[0], hand.tip_mm[1], -hand.height_mm])
    o = tip - L * ex - (W / 2) * ey
    pose = Pose.of(o, ex, ey)
    so = o + np.array(
        [SHADOW_DIR[0] * hand.height_mm, SHADOW_DIR[1] * hand.height_mm, hand.height_mm]
    )
    shadow = Pose.of(so, np.asarray(pose.ex), np.asarray(pose.ey))
    return pose, shadow


# --------------------------------------------------------------------------- frames


@dataclass(eq=False)
class StaticLayer:
    """A cached render of the static sprites: supersampled layers, the clean 1x frame,
    and the label counts."""

    layers: Layers
    frame: np.ndarray
    counts: Counts


def render_static(
    comp: Compositor, sprites: Sequence[Placed], n_labels: int, is_hand: np.ndarray
) -> StaticLayer:
    """Draw ``sprites`` bottom to top over the whole frame."""
    layers = comp.new_layers()
    drawn = np.zeros(n_labels, np.int64)
    for p in sprites:
        comp.draw(layers, p, drawn=drawn)
    c_all, c_no, c_hand = count_labels(layers.label_all, layers.label_nohand, is_hand, n_labels)
    frame = cv2.resize(layers.color, (comp.w2 // SS, comp.h2 // SS), interpolation=cv2.INTER_AREA)
    return StaticLayer(layers, frame, Counts(c_all, c_no, c_hand, drawn))


def render_over(
    comp: Compositor,
    static: StaticLayer,
    sprites: Sequence[Placed],
    n_labels: int,
    is_hand: np.ndarray,
) -> tuple[np.ndarray, Counts]:
    """Draw ``sprites`` over a cached static layer, touching only their bounding box.

    Returns (clean 1x frame (H, W, 3) uint8, counts)."""
    frame = static.frame.copy()
    counts = static.counts.copy()
    if len(counts.all) > n_labels:
        # The static layer was drawn when the scene had more labels (a card held or carried
        # then, gone now): those were dynamic, so the static layer holds none of them.
        counts = Counts(
            *(
                c[:n_labels].copy()
                for c in (counts.all, counts.nohand, counts.hand_cover, counts.drawn)
            )
        )
    if len(counts.all) < n_labels:
        pad = n_labels - len(counts.all)
        counts = Counts(
            *(
                np.concatenate([c, np.zeros(pad, np.int64)])
                for c in (counts.all, counts.nohand, counts.hand_cover, counts.drawn)
            )
        )
    boxes = [b for b in (comp.bbox(p) for p in sprites) if b is not None]
    if not boxes:
        return frame, counts
    x0 = min(b[0] for b in boxes) // SS * SS
    y0 = min(b[1] for b in boxes) // SS * SS
    x1 = min(comp.w2, -(-max(b[2] for b in boxes) // SS) * SS)
    y1 = min(comp.h2, -(-max(b[3] for b in boxes) // SS) * SS)
    sl = (slice(y0, y1), slice(x0, x1))
    src = static.layers
    old = count_labels(src.label_all[sl], src.label_nohand[sl], is_hand, n_labels)
    crop = Layers(src.color[sl].copy(), src.label_all[sl].copy(), src.label_nohand[sl].copy())
    for p in sprites:
        comp.draw(crop, p, window=(x0, y0, x1, y1), drawn=counts.drawn, origin=(x0, y0))
    new = count_labels(crop.label_all, crop.label_nohand, is_hand, n_labels)
    counts.all += new[0] - old[0]
    counts.nohand += new[1] - old[1]
    counts.hand_cover += new[2] - old[2]
    small = cv2.resize(crop.color, ((x1 - x0) // SS, (y1 - y0) // SS), interpolation=cv2.INTER_AREA)
    frame[y0 // SS : y1 // SS, x0 // SS : x1 // SS] = small
    return frame, counts


# --------------------------------------------------------------------------- truth


def _poly_area_px(camera: Camera, pts3: np.ndarray) -> float:
    px = camera.project_f64(pts3).astype(np.float32)
    return float(abs(cv2.contourArea(px)))


def _dense_rect(pose: Pose, size: tuple[float, float], n: int = 8) -> np.ndarray:
    w, h = size
    a = np.linspace(0, 1, n, endpoint=False)
    loc = np.concatenate(
        [
            np.stack([a * w, np.zeros(n)], 1),
            np.stack([np.full(n, w), a * h], 1),
            np.stack([w - a * w, np.full(n, h)], 1),
            np.stack([np.zeros(n), h - a * h], 1),
        ]
    )
    return pose.apply(loc)


def _fractions(
    camera: Camera, counts: Counts, labels: tuple[int, ...], outline3: np.ndarray
) -> tuple[float, float, float, float]:
    """(visible, in_frame, hand, area in supersampled px) for an object's labels."""
    drawn = float(sum(counts.drawn[i] for i in labels))
    w, h = camera.size_wh
    px = camera.project_f64(outline3)
    inside = bool(
        np.all(
            (px[:, 0] >= -0.5) & (px[:, 0] <= w - 0.5) & (px[:, 1] >= -0.5) & (px[:, 1] <= h - 0.5)
        )
    )
    area = drawn if inside and drawn > 0 else max(drawn, _poly_area_px(camera, outline3) * SS * SS)
    if area <= 0:
        return 0.0, 0.0, 0.0, 0.0
    vis = float(sum(counts.all[i] for i in labels)) / area
    hand = float(sum(counts.hand_cover[i] for i in labels)) / area
    return min(1.0, vis), min(1.0, drawn / area), min(1.0, hand), area


def _r(x: float) -> float:
    return round(float(x), 5)


def build_truth(
    spec: SceneSpec, ss: SceneSprites, counts: Counts, builder: SceneBuilder, seed: int
) -> Truth:
    """Assemble the ``Truth`` of a rendered scene from its spec and label counts."""
    cam = spec.camera
    cam_t = CameraTruth(
        K=cam.K.copy(),
        dist=cam.dist.copy(),
        rvec=cam.rvec.copy(),
        tvec=cam.tvec.copy(),
        image_size_wh=cam.size_wh,
        height_mm=cam.height_mm,
        tilt_deg=cam.tilt_deg,
        yaw_deg=cam.yaw_deg,
        roll_deg=cam.roll_deg,
        hfov_deg=cam.hfov_deg,
        target_mm=cam.target_mm,
    )
    cards: list[CardTruth] = []
    for c, labels, held in [
        *((c, lab, False) for c, lab in zip(spec.cards, ss.card_labels, strict=True)),
        *((c, lab, True) for c, lab in zip(spec.held_cards, ss.held_labels, strict=True)),
    ]:
        corners3 = c.pose.apply(c.corners_local())
        vis, inf, hand, area = _fractions(cam, counts, labels, _dense_rect(c.pose, c.size_wh_mm))
        halves: tuple[HalfTruth, ...] = ()
        info = builder.deck_card(c.card_id)
        items = info.face_items(c.face) if info is not None else None
        if items is not None and len(labels) == 2 and area > 0:
            halves = tuple(
                HalfTruth(name, item, _r(min(1.0, counts.all[lab] / (area / 2))))
                for name, item, lab in zip(
                    ("left", "right") if info and info.half_axis == "x" else ("top", "bottom"),
                    items,
                    labels,
                    strict=True,
                )
            )
        cards.append(
            CardTruth(
                card_id=c.card_id,
                face=c.face,
                corners_px=cam.project(corners3),
                corners_mm=corners3[:, :2].astype(np.float32),
                heights_mm=(-corners3[:, 2]).astype(np.float32),
                visible_fraction=_r(vis),
                in_frame_fraction=_r(inf),
                hand_fraction=_r(hand),
                held=held,
                area=c.area,
                halves=halves,
                items=info.items if info is not None and c.face == "front" else (),
            )
        )
    markers: list[MarkerTruth] = []
    for m, labels, margin in zip(spec.markers, ss.marker_labels, ss.marker_margins, strict=True):
        side = m.size_mm + 2 * margin
        pose = Pose.flat(m.center_mm, m.angle_deg, (side, side))
        loc = np.array(
            [
                [margin, margin],
                [margin + m.size_mm, margin],
                [margin + m.size_mm, margin + m.size_mm],
                [margin, margin + m.size_mm],
            ]
        )
        c3 = pose.apply(loc)
        inner = Pose.flat(m.center_mm, m.angle_deg, (m.size_mm, m.size_mm))
        vis, _, hand, _ = _fractions(
            cam, counts, labels, _dense_rect(inner, (m.size_mm, m.size_mm))
        )
        markers.append(
            MarkerTruth(
                m.marker_id,
                m.size_mm,
                cam.project(c3),
                c3[:, :2].astype(np.float32),
                _r(vis),
                _r(hand),
                False,
            )
        )
    board_t: BoardTruth | None = None
    b = spec.board
    if b is not None:
        cw, ch = CANVAS_WH_MM
        s = BOARD_MARKER_MM
        corners_b = [(0.0, 0.0), (cw, 0.0), (cw, ch), (0.0, ch)]
        outward = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
        for k, ((cx, cy), (sx, sy)) in enumerate(zip(corners_b, outward, strict=True)):
            x0 = cx - s if sx < 0 else cx
            y0 = cy - s if sy < 0 else cy
            sq = np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]])
            t2 = b.to_table(sq)
            t3 = np.concatenate([t2, np.zeros((4, 1))], 1)
            lab = (ss.board_labels[2 + k],)
            dense = np.concatenate([t3, (t3 + np.roll(t3, -1, 0)) / 2])
            vis, _, hand, _ = _fractions(cam, counts, lab, dense[[0, 4, 1, 5, 2, 6, 3, 7]])
            markers.append(
                MarkerTruth(
                    BOARD_MARKER_IDS[k],
                    s,
                    cam.project(t3),
                    t2.astype(np.float32),
                    _r(vis),
                    _r(hand),
                    True,
                )
            )
        canvas_mm = b.canvas_corners_mm()
        canvas3 = np.concatenate([canvas_mm, np.zeros((4, 1))], 1)
        dense = np.concatenate(
            [
                canvas3 + (np.roll(canvas3, -1, 0) - canvas3) * t
                for t in np.linspace(0, 1, 8, endpoint=False)
            ]
        )
        order = np.argsort(np.tile(np.arange(4), 8) * 8 + np.repeat(np.arange(8), 4), kind="stable")
        vis, _, hand, _ = _fractions(cam, counts, (ss.board_labels[0],), dense[order])
        pieces: list[PieceTruth] = []
        for piece, labels in zip(b.pieces, ss.piece_labels, strict=True):
            pieces.append(_piece_truth(cam, b.to_table, piece, labels, counts))
        board_t = BoardTruth(
            canvas_corners_px=cam.project(canvas3),
            canvas_corners_mm=canvas_mm.astype(np.float32),
            center_mm=(float(b.center_mm[0]), float(b.center_mm[1])),
            angle_deg=float(b.angle_deg),
            canvas_visible_fraction=_r(vis),
            canvas_hand_fraction=_r(hand),
            pieces=tuple(pieces),
            counts=b.counts(),
            cost=b.cost(),
        )
    areas: list[PicmixAreaTruth] = []
    for a in spec.picmix_areas:
        area_items: list[PicmixItemTruth] = []
        for ct in cards:
            if ct.card_id in a.card_ids and not ct.held:
                area_items.extend(
                    PicmixItemTruth(h.item, ct.card_id, h.half, h.visible_fraction)
                    for h in ct.halves
                )
        visible = tuple(
            sorted({i.item for i in area_items if i.visible_fraction >= PICMIX_VISIBLE_MIN})
        )
        areas.append(PicmixAreaTruth(a.player, a.card_ids, tuple(area_items), visible))
    hands: list[HandTruth] = []
    total = float(cam.size_wh[0] * cam.size_wh[1] * SS * SS)
    for h, labels in zip(spec.hands, ss.hand_labels, strict=True):
        frac = float(sum(counts.all[lab] for lab in labels)) / total
        hands.append(
            HandTruth(
                (float(h.tip_mm[0]), float(h.tip_mm[1])),
                float(h.angle_deg),
                float(h.height_mm),
                _r(frac),
                h.holding,
            )
        )
    e = spec.effects
    effects = {
        "light_gain": e.light_gain,
        "gradient": list(e.gradient),
        "vignette": e.vignette,
        "tint_bgr": list(e.tint_bgr),
        "shadows": len(e.shadows),
        "defocus_sigma_px": e.defocus_sigma_px,
        "motion_blur_px": e.motion_blur_px,
        "motion_angle_deg": e.motion_angle_deg,
        "noise_sigma": e.noise_sigma,
        "jpeg_quality": e.jpeg_quality,
        "glare_cards": [c.card_id for c in (*spec.cards, *spec.held_cards) if c.glare is not None],
    }
    return Truth(
        image_size_wh=cam.size_wh,
        tier=spec.tier,
        seed=int(seed),
        provider=builder.provider.name,
        camera=cam_t,
        cards=tuple(cards),
        markers=tuple(markers),
        board=board_t,
        picmix_areas=tuple(areas),
        hands=tuple(hands),
        effects=effects,
    )


def _piece_truth(
    cam: Camera, to_table: object, piece: PieceSpec, labels: tuple[int, ...], counts: Counts
) -> PieceTruth:
    if not callable(to_table):
        raise TypeError("to_table must be callable")
    empty = np.zeros((0, 2), np.float32)

    def px(board_pts: np.ndarray) -> np.ndarray:
        if len(board_pts) == 0:
            return empty
        return cam.project(to_table(board_pts))

    ends = poly = line = np.zeros((0, 2))
    length = 0.0
    shape = colour = None
    if isinstance(piece, StickSpec):
        ends, poly = piece.endpoints_mm(), piece.polygon_mm()
        length = float(np.linalg.norm(ends[1] - ends[0]))
    elif isinstance(piece, ShapeSpec):
        poly = piece.polygon_mm()
        shape, colour = piece.shape, piece.colour
    elif isinstance(piece, StringSpec):
        line = piece.polyline_mm()
        length = piece.length_mm()
    drawn = float(sum(counts.drawn[i] for i in labels))
    vis = float(sum(counts.all[i] for i in labels)) / drawn if drawn > 0 else 0.0
    hand = float(sum(counts.hand_cover[i] for i in labels)) / drawn if drawn > 0 else 0.0
    return PieceTruth(
        kind=piece_kind(piece),
        shape=shape,
        colour=colour,
        on_canvas=on_canvas(piece),
        endpoints_mm=ends.astype(np.float32),
        polygon_mm=poly.astype(np.float32),
        polyline_mm=line.astype(np.float32),
        endpoints_px=px(ends),
        polygon_px=px(poly),
        polyline_px=px(line),
        length_mm=_r(length),
        visible_fraction=_r(min(1.0, vis)),
        hand_fraction=_r(min(1.0, hand)),
    )


# --------------------------------------------------------------------------- public


def render_scene(
    spec: SceneSpec, seed: int, provider: TextureProvider | None = None
) -> tuple[np.ndarray, Truth]:
    """Render one frame of ``spec`` and its ground truth.

    Args:
        spec: the scene (camera, table, objects, effects).
        seed: seeds the sensor noise and the procedural textures; the same spec and seed
            give the same frame bit for bit.
        provider: card art; ``default_provider()`` when None.

    Returns:
        (frame (H, W, 3) uint8 BGR, Truth).
    """
    provider = provider or default_provider()
    comp = Compositor(spec.camera)
    builder = SceneBuilder(comp, provider, seed)
    ss = builder.build(spec)
    n = ss.registry.n
    is_hand = ss.registry.is_hand()
    static = render_static(comp, ss.static, n, is_hand)
    clean, counts = render_over(comp, static, ss.dynamic, n, is_hand)
    rng = np.random.default_rng([int(seed), 7])
    frame = apply_effects(clean, spec.effects, rng)
    return frame, build_truth(spec, ss, counts, builder, seed)


def extend_static(
    comp: Compositor,
    static: StaticLayer,
    sprites: Sequence[Placed],
    n_labels: int,
    is_hand: np.ndarray,
) -> StaticLayer:
    """Draw more sprites on top of a cached static layer (in place, within their box)."""
    if len(static.counts.all) < n_labels:
        pad = n_labels - len(static.counts.all)
        static.counts = Counts(
            *(
                np.concatenate([c, np.zeros(pad, np.int64)])
                for c in (
                    static.counts.all,
                    static.counts.nohand,
                    static.counts.hand_cover,
                    static.counts.drawn,
                )
            )
        )
    boxes = [b for b in (comp.bbox(p) for p in sprites) if b is not None]
    if not boxes:
        return static
    x0 = min(b[0] for b in boxes) // SS * SS
    y0 = min(b[1] for b in boxes) // SS * SS
    x1 = min(comp.w2, -(-max(b[2] for b in boxes) // SS) * SS)
    y1 = min(comp.h2, -(-max(b[3] for b in boxes) // SS) * SS)
    sl = (slice(y0, y1), slice(x0, x1))
    lay = static.layers
    old = count_labels(lay.label_all[sl], lay.label_nohand[sl], is_hand, n_labels)
    view = Layers(lay.color[sl], lay.label_all[sl], lay.label_nohand[sl])
    for p in sprites:
        comp.draw(view, p, window=(x0, y0, x1, y1), drawn=static.counts.drawn, origin=(x0, y0))
    new = count_labels(view.label_all, view.label_nohand, is_hand, n_labels)
    static.counts.all += new[0] - old[0]
    static.counts.nohand += new[1] - old[1]
    static.counts.hand_cover += new[2] - old[2]
    static.frame[y0 // SS : y1 // SS, x0 // SS : x1 // SS] = cv2.resize(
        view.color, ((x1 - x0) // SS, (y1 - y0) // SS), interpolation=cv2.INTER_AREA
    )
    return static


def sprite_key(p: Placed) -> tuple[object, ...]:
    """Identity of a placed sprite across frames (textures are cached objects)."""
    return (id(p.tex), p.pose, p.labels, p.hand, p.wrap)


class FrameRenderer:
    """Renders many frames of one camera, caching the static layer between frames.

    Static sprites that extend the cached list are drawn incrementally; any other change
    re-renders the static layer. Hands and held cards are drawn per frame over it.
    """

    def __init__(self, camera: Camera, provider: TextureProvider, seed: int) -> None:
        self.comp = Compositor(camera)
        self.builder = SceneBuilder(self.comp, provider, seed)
        self.seed = seed
        self._static: StaticLayer | None = None
        self._keys: list[tuple[object, ...]] = []

    def render_clean(self, spec: SceneSpec) -> tuple[np.ndarray, Truth]:
        """The clean frame (no light or sensor effects) and its truth."""
        if spec.camera is not self.comp.camera:
            raise ValueError("FrameRenderer renders one camera; build another for a new camera")
        ss = self.builder.build(spec)
        n = ss.registry.n
        is_hand = ss.registry.is_hand()
        keys = [sprite_key(p) for p in ss.static]
        if self._static is not None and keys[: len(self._keys)] == self._keys:
            if len(keys) > len(self._keys):
                self._static = extend_static(
                    self.comp, self._static, ss.static[len(self._keys) :], n, is_hand
                )
        else:
            self._static = render_static(self.comp, ss.static, n, is_hand)
        self._keys = keys
        clean, counts = render_over(self.comp, self._static, ss.dynamic, n, is_hand)
        return clean, build_truth(spec, ss, counts, self.builder, self.seed)
