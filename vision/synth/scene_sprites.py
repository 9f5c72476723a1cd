"""A scene spec turned into sprites: the textures (cached across frames) and the planes they
lie in, static ones bottom to top, then hands and held cards, with the label ids of every
object of the truth (``SceneBuilder.build``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.synth import sprites as sp
from vision.synth.compositor import Compositor, Placed
from vision.synth.spec import (
    BOARD_FRAME_MM,
    BOARD_MARKER_MM,
    CANVAS_WH_MM,
    KIT_CARD_LOOK,
    KIT_LOOK,
    BoardLook,
    CardLook,
    CardSpec,
    HandSpec,
    MarkerSpec,
    PieceSpec,
    Pose,
    SceneSpec,
    ShapeSpec,
    StickSpec,
    StringSpec,
    piece_kind,
)
from vision.synth.textures import (
    TABLE_TILE_MM,
    TEXTURES,
    DeckCard,
    TextureProvider,
    table_tile,
)

#: Direction and length of drop shadows on the table per mm of height (table frame).
SHADOW_DIR = (0.30, 0.42)
_MAX_LABELS = 32000


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
        if spec.card_look.table is not None:
            t = spec.card_look.table
        if spec.board is not None and spec.board.look.table is not None:
            t = spec.board.look.table

        def make() -> sp.SpriteTex:
            tile = table_tile(t.kind, t.colour_bgr, t.seed)
            bgra = cv2.cvtColor(tile, cv2.COLOR_BGR2BGRA)
            return sp.SpriteTex(bgra, (TABLE_TILE_MM, TABLE_TILE_MM))

        tex = TEXTURES.get(("table-bgra", t), make)
        pose = Pose((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0))
        return Placed(tex, pose, wrap=True)

    def card(
        self,
        card: CardSpec,
        labels_out: list[tuple[int, ...]],
        reg: Registry,
        *,
        held: bool,
        look: CardLook = KIT_CARD_LOOK,
    ) -> list[Placed]:
        """A card's sprites: its shadow (flat cards), its face as ``look`` prints it, its
        glare, and the sleeve of ``look`` over it."""
        size = card.size_wh_mm
        scale = self.comp.scale_2x(card.pose, size)
        ppm = _ppm_level(scale * 1.2, 2.0, 16.0)
        info = self.deck_card(card.card_id)
        split = info.half_axis if info is not None and info.halves is not None else None

        def make() -> sp.SpriteTex:
            face = self.provider.card_face(card.card_id, card.face, ppm)
            face = sp.look_face(face, look.paper_bgr, look.ink_contrast, look.ink_saturation)
            h, w = face.shape[:2]
            if abs(w / h - size[0] / size[1]) > 0.03:
                raise ValueError(
                    f"card {card.card_id!r}: the {self.provider.name} face is {w}x{h} px but the "
                    f"spec says {size[0]:g}x{size[1]:g} mm (set CardSpec.size_wh_mm)"
                )
            return sp.card_sprite(face, size, split=split)

        key = ("card", self.provider.name, card.card_id, card.face, ppm, size)
        if look.face_key() != KIT_CARD_LOOK.face_key():
            key = (*key, look.face_key())
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
        if look.sleeve_haze > 0 or look.sleeve_sheen > 0:
            out.append(self._sleeve(card.pose, size, min(ppm, 4.0), look))
        return out

    def _sleeve(self, pose: Pose, size: tuple[float, float], ppm: float, look: CardLook) -> Placed:
        """The sleeve of ``look`` over a card lying at ``pose``: its sheen falls the same way
        on the table for every card (one lamp), so its angle in the card's frame is the
        table's direction less the card's turn."""
        turn = math.degrees(math.atan2(pose.ex[1], pose.ex[0]))
        deg = float(round((35.0 - turn) / 15.0) * 15.0) % 360.0
        tex = TEXTURES.get(
            ("sleeve", size, look.sleeve_mm, look.sleeve_haze, look.sleeve_sheen, deg, ppm),
            lambda: sp.sleeve_sprite(
                size, look.sleeve_mm, look.sleeve_haze, look.sleeve_sheen, deg, ppm
            ),
        )
        r = look.sleeve_mm
        o = np.asarray(pose.origin_mm) - r * np.asarray(pose.ex) - r * np.asarray(pose.ey)
        return Placed(tex, Pose(tuple(o), pose.ex, pose.ey))

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
        look = b.look
        tex = TEXTURES.get(
            ("board", k, b.frame_bgr, self.seed % 7, _board_key(look)),
            lambda: sp.board_sprite(k, b.frame_bgr, self.seed % 7, look),
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
            out.append(self.piece(piece, labels, b.angle_deg, b.to_table, i, look))
        for piece, labels in strings:
            out.append(self.piece(piece, labels, b.angle_deg, b.to_table, 0, look))
        if b.glare is not None:
            # a lamp's reflection: over the canvas, the frame and every piece alike (a broad
            # spot needs no detail: 1 px/mm)
            g = b.glare
            gtex = TEXTURES.get(("board-glare", g, size), lambda: sp.glare_sprite(g, size, 1.0))
            out.append(Placed(gtex, pose))
        return out, board_labels, piece_labels

    def piece(
        self,
        piece: PieceSpec,
        labels: tuple[int, ...],
        board_angle: float,
        to_table: object,
        index: int,
        look: BoardLook = KIT_LOOK,
    ) -> Placed:
        """One piece's sprite placed on the board, drawn in ``look``."""
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
                ("string", piece, ppm, shadow_b, _string_key(look)),
                lambda: sp.string_sprite(piece, ppm, shadow_b, look),
            )
            corner = to_table(lo[None])[0]
            pose = Pose.flat((0.0, 0.0), board_angle, (0.0, 0.0))
            return Placed(
                tex, Pose((float(corner[0]), float(corner[1]), 0.0), pose.ex, pose.ey), labels
            )
        if isinstance(piece, StickSpec):
            seed = self.seed * 1000 + index
            tex = TEXTURES.get(
                ("stick", piece, 8.0, shadow_b, seed, _stick_key(look)),
                lambda: sp.stick_sprite(piece, 8.0, shadow_b, seed, look),
            )
        elif isinstance(piece, ShapeSpec):
            seed = self.seed * 1000 + index
            tex = TEXTURES.get(
                ("shape", piece, 8.0, shadow_b, seed, _shape_key(look)),
                lambda: sp.shape_sprite(piece, 8.0, shadow_b, seed, look),
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
            static.extend(self.card(c, card_labels, reg, held=False, look=spec.card_look))
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
            dynamic.extend(self.card(c, held_labels, reg, held=True, look=spec.card_look))
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


def _board_key(look: BoardLook) -> tuple[object, ...]:
    """What of ``look`` the board's texture depends on (its cache key)."""
    return (look.frame_bgr, look.frame_grain, look.canvas_bgr, look.texture)


def _shadow_key(look: BoardLook) -> tuple[float, float]:
    """The look's drop shadows (part of every piece's cache key)."""
    return (look.shadow_blur, look.shadow_depth)


def _string_key(look: BoardLook) -> tuple[object, ...]:
    """What of ``look`` a string's texture depends on (its cache key)."""
    return (look.string_bgr, look.string_mm, *_shadow_key(look))


def _stick_key(look: BoardLook) -> tuple[object, ...]:
    """What of ``look`` a stick's texture depends on (its cache key)."""
    return (look.stick_bgr, look.paint, look.stick_grain, look.sheen, *_shadow_key(look))


def _shape_key(look: BoardLook) -> tuple[object, ...]:
    """What of ``look`` a shape's texture depends on (its cache key)."""
    return (look.shape_bgr, look.sheen, *_shadow_key(look))


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
