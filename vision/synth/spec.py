"""Scene specifications: what lies where on the table, in table millimetres.

A ``SceneSpec`` is pure data (frozen dataclasses, no images); ``render_scene`` turns it
into a frame and its ``Truth``. Table frame: see ``vision.synth.camera`` (x right, y
towards the first seat, z into the table; heights are given as positive ``height_mm``).
Board frame: origin at the canvas top-left corner, x right, y down, mm.

Drawing order (bottom to top): table, markers, board, board pieces (list order, the
string last), cards (list order), hand shadows, held cards, hands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from vision.synth.camera import Camera
from vision.synth.textures import CARD_WH_MM, Face, TableKind

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]

#: Picasso canvas (width, height), mm.
CANVAS_WH_MM: Vec2 = (360.0, 260.0)
#: Width of the board's frame around the canvas, mm (holds the 30 mm markers 4-7).
BOARD_FRAME_MM = 45.0
#: Board marker ids at the canvas corners TL, TR, BR, BL, and their size, mm.
BOARD_MARKER_IDS: tuple[int, int, int, int] = (4, 5, 6, 7)
BOARD_MARKER_MM = 30.0
#: Play-area markers 0-3 (clockwise from top-left as the first seat sees them), mm.
PLAY_AREA_MARKER_IDS: tuple[int, int, int, int] = (0, 1, 2, 3)
PLAY_AREA_MARKER_MM = 40.0

StickKind = Literal["long_stick", "short_stick"]
ShapeKind = Literal["circle", "square", "triangle", "half_circle"]
#: Shape colour names: the kit's four, then those of the "bright" palette of board looks
#: (``vision.synth.looks``), which the truth reports all the same.
ShapeColour = Literal["red", "blue", "yellow", "green", "orange", "purple", "pink", "teal"]
BGR = tuple[int, int, int]
CanvasTexture = Literal["plain", "paper", "canvas"]
ShadowKind = Literal["soft", "hard"]
#: Stick sizes (length, width), mm.
STICK_LW_MM: dict[str, Vec2] = {"long_stick": (100.0, 8.0), "short_stick": (50.0, 8.0)}
#: Picasso cost of each piece kind (docs/formats.md: a + b + 2c + 3d).
PIECE_COST: dict[str, int] = {"long_stick": 1, "short_stick": 1, "shape": 2, "string": 3}


@dataclass(frozen=True)
class Pose:
    """Where a planar object lies: its local point (u, v) mm (u right, v down on the
    object's own image) is at table point ``origin_mm + u * ex + v * ey``.

    Attributes:
        origin_mm: (x, y, z) table point of the local origin (the object's top-left).
        ex, ey: unit table vectors of the local u and v axes.
    """

    origin_mm: Vec3
    ex: Vec3
    ey: Vec3

    @classmethod
    def flat(
        cls, center_mm: Vec2, angle_deg: float, size_wh_mm: Vec2, height_mm: float = 0.0
    ) -> Pose:
        """An object lying flat, centred on ``center_mm``, turned ``angle_deg`` (from the
        table x axis towards y: clockwise as seen from above), ``height_mm`` up."""
        a = math.radians(angle_deg)
        ex = np.array([math.cos(a), math.sin(a), 0.0])
        ey = np.array([-math.sin(a), math.cos(a), 0.0])
        c = np.array([center_mm[0], center_mm[1], -height_mm])
        o = c - ex * size_wh_mm[0] / 2 - ey * size_wh_mm[1] / 2
        return cls(_v3(o), _v3(ex), _v3(ey))

    @classmethod
    def of(cls, origin_mm: np.ndarray, ex: np.ndarray, ey: np.ndarray) -> Pose:
        """A pose from three (3,) arrays (origin, unit u axis, unit v axis)."""
        return cls(_v3(origin_mm), _v3(ex), _v3(ey))

    def apply(self, local_mm: np.ndarray) -> np.ndarray:
        """(N, 2) local mm -> (N, 3) float64 table mm."""
        loc = np.asarray(local_mm, np.float64).reshape(-1, 2)
        o, ex, ey = (np.asarray(v) for v in (self.origin_mm, self.ex, self.ey))
        return o[None, :] + loc[:, :1] * ex[None, :] + loc[:, 1:] * ey[None, :]


def _v3(v: np.ndarray) -> Vec3:
    return (float(v[0]), float(v[1]), float(v[2]))


@dataclass(frozen=True)
class GlareSpec:
    """A specular highlight on a glossy card, in the card's own mm (u right, v down), or a
    lamp's reflection over the Picasso board (``BoardSpec.glare``, in the sheet's mm).

    ``strength`` in [0, 1] is the peak blend towards white; the spot is an ellipse of
    half-axes ``radius_mm`` x ``radius_mm * elongation`` turned ``angle_deg``.
    """

    center_mm: Vec2
    radius_mm: float
    strength: float
    elongation: float = 1.0
    angle_deg: float = 0.0


@dataclass(frozen=True)
class CardSpec:
    """A card: which one, which face shows, and where (``pose`` of its face, which is
    ``size_wh_mm``: 63 x 88 portrait, 88 x 63 for landscape Picmix player faces).

    ``area`` names the Picmix player area the card belongs to (``None`` otherwise).
    """

    card_id: str
    face: Face
    pose: Pose
    glare: GlareSpec | None = None
    area: str | None = None
    size_wh_mm: Vec2 = CARD_WH_MM

    @classmethod
    def flat(
        cls,
        card_id: str,
        face: Face,
        center_mm: Vec2,
        angle_deg: float = 0.0,
        *,
        height_mm: float = 0.0,
        glare: GlareSpec | None = None,
        area: str | None = None,
        size_wh_mm: Vec2 = CARD_WH_MM,
    ) -> CardSpec:
        """A card lying on the table (``height_mm`` lifts it, e.g. 0.3 per card below)."""
        pose = Pose.flat(center_mm, angle_deg, size_wh_mm, height_mm)
        return cls(card_id, face, pose, glare, area, size_wh_mm)

    def center_mm(self) -> Vec2:
        """Table (x, y) of the face centre, mm."""
        c = self.pose.apply(np.array([[self.size_wh_mm[0] / 2, self.size_wh_mm[1] / 2]]))[0]
        return (float(c[0]), float(c[1]))

    def corners_local(self) -> np.ndarray:
        """(4, 2) float64 face corners TL, TR, BR, BL in the card's own mm."""
        w, h = self.size_wh_mm
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)


@dataclass(frozen=True)
class MarkerSpec:
    """An ArUco marker (DICT_4X4_50) printed on white paper with a ``margin_mm`` border."""

    marker_id: int
    size_mm: float
    center_mm: Vec2
    angle_deg: float = 0.0
    margin_mm: float = 6.0


@dataclass(frozen=True)
class StickSpec:
    """A stick on or beside the board, board mm."""

    kind: StickKind
    center_mm: Vec2
    angle_deg: float

    def endpoints_mm(self) -> np.ndarray:
        """(2, 2) float64 ends of the centre line, board mm."""
        length = STICK_LW_MM[self.kind][0]
        a = math.radians(self.angle_deg)
        d = np.array([math.cos(a), math.sin(a)]) * length / 2
        c = np.asarray(self.center_mm)
        return np.stack([c - d, c + d])

    def polygon_mm(self) -> np.ndarray:
        """(4, 2) float64 outline, board mm."""
        length, width = STICK_LW_MM[self.kind]
        return _rect(self.center_mm, self.angle_deg, (length, width))


@dataclass(frozen=True)
class ShapeSpec:
    """A flat coloured shape, board mm; ``center_mm`` is the centre of its bounding box
    in its own frame (circle/square/triangle: the centroid; half-circle: 1/2 up the
    radius from the straight edge)."""

    shape: ShapeKind
    colour: ShapeColour
    center_mm: Vec2
    angle_deg: float

    def local_polygon_mm(self) -> np.ndarray:
        """(N, 2) float64 outline around (0, 0) before rotation, mm."""
        if self.shape == "circle":
            t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
            return 20.0 * np.stack([np.cos(t), np.sin(t)], 1)
        if self.shape == "square":
            return np.array([[-17.5, -17.5], [17.5, -17.5], [17.5, 17.5], [-17.5, 17.5]])
        if self.shape == "triangle":
            r = 40.0 / math.sqrt(3.0)
            t = np.radians([-90.0, 30.0, 150.0])
            return r * np.stack([np.cos(t), np.sin(t)], 1)
        t = np.linspace(np.pi, 2 * np.pi, 25)
        arc = 20.0 * np.stack([np.cos(t), np.sin(t)], 1)
        return arc + np.array([0.0, 10.0])

    def polygon_mm(self) -> np.ndarray:
        """(N, 2) float64 outline, board mm."""
        return _turn(self.local_polygon_mm(), self.angle_deg) + np.asarray(self.center_mm)


@dataclass(frozen=True)
class StringSpec:
    """The string: a smooth polyline, board mm, ``thickness_mm`` thick."""

    points_mm: tuple[Vec2, ...]
    thickness_mm: float = 2.5

    def polyline_mm(self) -> np.ndarray:
        """(N, 2) float64 centre line, board mm."""
        return np.asarray(self.points_mm, np.float64)

    def length_mm(self) -> float:
        """Length of the centre line, mm."""
        p = self.polyline_mm()
        return float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum())


PieceSpec = StickSpec | ShapeSpec | StringSpec


def piece_kind(piece: PieceSpec) -> str:
    """``long_stick``, ``short_stick``, ``shape`` or ``string``."""
    if isinstance(piece, StickSpec):
        return piece.kind
    return "shape" if isinstance(piece, ShapeSpec) else "string"


def piece_outline_mm(piece: PieceSpec) -> np.ndarray:
    """(N, 2) float64 points that bound the piece, board mm (the string: its line)."""
    if isinstance(piece, StringSpec):
        return piece.polyline_mm()
    return piece.polygon_mm()


def on_canvas(piece: PieceSpec) -> bool:
    """True when the piece lies on the canvas (its centroid is inside the canvas)."""
    c = piece_outline_mm(piece).mean(axis=0)
    return bool(0.0 <= c[0] <= CANVAS_WH_MM[0] and 0.0 <= c[1] <= CANVAS_WH_MM[1])


@dataclass(frozen=True)
class TableSpec:
    """The table top: ``wood``, ``cloth`` or ``plain``, its base colour and texture seed."""

    kind: TableKind = "wood"
    colour_bgr: tuple[int, int, int] = (95, 140, 185)
    seed: int = 0


@dataclass(frozen=True)
class BoardLook:
    """How the Picasso kit and the room look on one board (issue 25): the reader must not
    depend on one look, so the synthetic camera can draw any.

    The default is the kit look the renderer always drew (KIT.md: light wood, a dark cord,
    the kit's four shape colours, an off-white canvas, neutral light, soft shadows), pixel
    for pixel. A ``None`` colour is the kit's, read from ``vision.synth.sprites`` when drawn
    (``WOOD_BGR``, ``STRING_BGR``, ``SHAPE_BGR``, the canvas's), so a test that patches
    those still sees its patch. The name fields say what the look is (reported per board by
    the benchmark); the other fields say how it is drawn. Everything is applied by the
    renderer: the string's thickness here overrides ``StringSpec.thickness_mm``, the table
    ``SceneSpec.table`` and the frame colour ``BoardSpec.frame_bgr`` when not ``None``.

    Attributes:
        string, string_bgr, string_mm: the string's colour name, colour and thickness, mm.
        wood, stick_bgr: the sticks' material name and base colour.
        paint: painted sticks (flat colour with a specular stripe) instead of wood grain.
        stick_grain: depth of the wood grain (relative lightness; painted: a faint trace).
        sheen: peak of the specular stripe on painted sticks (0..1 towards white); shapes
            get a broad highlight of half that (0: matt, as the kit).
        shapes, shape_bgr: the shape palette's name and its (colour name, BGR) pairs in the
            order of the kit's red, blue, yellow, green (empty: the kit's colours); the
            generator names each shape by this order, and the truth reports that name.
        canvas, canvas_bgr: the canvas tint's name and colour.
        texture: ``plain`` (the kit's faint noise), ``paper`` (mottling and fibres) or
            ``canvas`` (a woven cloth's threads).
        light, light_bgr: the light's temperature name and its white-balance multipliers
            per channel, applied to the whole scene before the camera (with the tier's).
        shadow, shadow_blur, shadow_depth: drop shadows ``soft`` or ``hard``: their blur and
            darkness as multiples of the kit look's.
        table: the table top (``None``: the scene's).
        frame_bgr, frame_grain: the board frame's colour (``None``: the board spec's) and
            the depth of its grain.
    """

    string: str = "kit"
    string_bgr: BGR | None = None
    string_mm: float | None = None
    wood: str = "kit"
    stick_bgr: BGR | None = None
    paint: bool = False
    stick_grain: float = 0.07
    sheen: float = 0.0
    shapes: str = "kit"
    shape_bgr: tuple[tuple[str, BGR], ...] = ()
    canvas: str = "kit"
    canvas_bgr: BGR | None = None
    texture: CanvasTexture = "plain"
    light: str = "neutral"
    light_bgr: Vec3 = (1.0, 1.0, 1.0)
    shadow: ShadowKind = "soft"
    shadow_blur: float = 1.0
    shadow_depth: float = 1.0
    table: TableSpec | None = None
    frame_bgr: BGR | None = None
    frame_grain: float = 0.06

    def names(self) -> dict[str, str]:
        """The look by part: ``string``, ``wood``, ``shapes``, ``canvas``, ``texture``,
        ``light`` and ``shadow`` names (what the benchmark groups failures by)."""
        return {
            "string": self.string,
            "wood": self.wood,
            "shapes": self.shapes,
            "canvas": self.canvas,
            "texture": self.texture,
            "light": self.light,
            "shadow": self.shadow,
        }

    def name(self) -> str:
        """The part names joined by ``/`` (string first)."""
        return "/".join(self.names().values())

    def shape_colour(self, index: int) -> str | None:
        """The colour name the palette puts at the kit colour ``index`` (0-3: red, blue,
        yellow, green), or ``None`` with the kit's palette."""
        return self.shape_bgr[index][0] if self.shape_bgr else None


#: The kit look: what the renderer drew before looks existed.
KIT_LOOK = BoardLook()


@dataclass(frozen=True)
class CardLook:
    """How the cards and the room look in a card scene (issue 26): printed cards differ
    from the kit's art (the paper's tint, the ink's strength), many players keep them in
    sleeves, and tables and lamps vary. The default is the look the renderer always drew,
    pixel for pixel.

    Attributes:
        paper, paper_bgr: the card stock's name and its tint, multipliers per channel of
            the printed face (white stock: ones).
        ink, ink_contrast, ink_saturation: the print's name, its contrast against the paper
            (1: as printed, less: faded) and its saturation (1: as printed).
        sleeve, sleeve_haze, sleeve_mm: ``none``, ``matt`` or ``glossy``; the sleeve's haze
            over the card (a blend towards white, 0-1) and how far it reaches past the
            card's edge, mm; a glossy sleeve also has a broad ``sleeve_sheen`` (0-1).
        light, light_bgr: the light's temperature name and its white-balance multipliers,
            applied to the whole scene before the camera (with the tier's).
        surface, table: the table's name and its top (``None``: the scene's).
    """

    paper: str = "kit"
    paper_bgr: Vec3 = (1.0, 1.0, 1.0)
    ink: str = "kit"
    ink_contrast: float = 1.0
    ink_saturation: float = 1.0
    sleeve: str = "none"
    sleeve_haze: float = 0.0
    sleeve_mm: float = 0.0
    sleeve_sheen: float = 0.0
    light: str = "neutral"
    light_bgr: Vec3 = (1.0, 1.0, 1.0)
    surface: str = "kit"
    table: TableSpec | None = None

    def names(self) -> dict[str, str]:
        """The look by part: ``table``, ``paper``, ``ink``, ``sleeve`` and ``light`` names
        (what the benchmark groups failures by)."""
        return {
            "table": self.surface,
            "paper": self.paper,
            "ink": self.ink,
            "sleeve": self.sleeve,
            "light": self.light,
        }

    def name(self) -> str:
        """The part names joined by ``/``."""
        return "/".join(self.names().values())

    def face_key(self) -> tuple[object, ...]:
        """What of the look a card face's texture depends on (its cache key)."""
        return (self.paper_bgr, self.ink_contrast, self.ink_saturation)


#: The kit's card look: what the renderer drew before card looks existed.
KIT_CARD_LOOK = CardLook()


@dataclass(frozen=True)
class BoardSpec:
    """The Picasso board: canvas centre on the table and turn; pieces in board mm
    (supply pieces lie outside the board, still given in board mm); ``look``: how the kit
    and the room look (default: the kit look); ``glare``: a lamp's reflection over the
    board and its pieces, in the mm of the whole sheet (frame included, origin at its
    top-left), or None."""

    center_mm: Vec2
    angle_deg: float = 0.0
    pieces: tuple[PieceSpec, ...] = ()
    frame_bgr: tuple[int, int, int] = (60, 85, 120)
    look: BoardLook = KIT_LOOK
    glare: GlareSpec | None = None

    def to_table(self, board_mm: np.ndarray) -> np.ndarray:
        """(N, 2) board mm -> (N, 2) float64 table mm."""
        p = np.asarray(board_mm, np.float64).reshape(-1, 2) - np.array(CANVAS_WH_MM) / 2
        return _turn(p, self.angle_deg) + np.asarray(self.center_mm)

    def canvas_corners_mm(self) -> np.ndarray:
        """(4, 2) float64 canvas corners TL, TR, BR, BL, table mm."""
        w, h = CANVAS_WH_MM
        return self.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))

    def pose(self) -> Pose:
        """Pose of the whole board sheet (frame included), local origin at its top-left."""
        f = BOARD_FRAME_MM
        return Pose.flat(
            self.center_mm, self.angle_deg, (CANVAS_WH_MM[0] + 2 * f, CANVAS_WH_MM[1] + 2 * f)
        )

    def counts(self) -> dict[str, int]:
        """Pieces on the canvas by kind (docs/formats.md ``build`` keys)."""
        out = {"long_stick": 0, "short_stick": 0, "shape": 0, "string": 0}
        for p in self.pieces:
            if on_canvas(p):
                out[piece_kind(p)] += 1
        return out

    def cost(self) -> int:
        """Picasso cost of what lies on the canvas: sticks 1, shapes 2, string 3."""
        return sum(PIECE_COST[k] * n for k, n in self.counts().items())


SkinTone = Literal[0, 1, 2, 3, 4]
HandGesture = Literal["open", "pinch", "point", "fist"]


@dataclass(frozen=True)
class HandSpec:
    """A hand and forearm reaching over the table.

    The fingertips are at ``tip_mm``; the arm comes from direction ``angle_deg`` (the
    direction the hand points, table frame, from x towards y); the hand floats
    ``height_mm`` above the table and casts a soft shadow. ``plane`` overrides the pose
    (a hand holding a card up): the hand then lies in that plane, fingertips at the
    local point ``tip_mm``, pointing along ``angle_deg`` in the plane's own frame.
    ``motion_mm`` smears the hand along its length by that travel during the exposure
    (motion blur); ``holding`` names the card it carries, for the truth.
    """

    tip_mm: Vec2
    angle_deg: float
    height_mm: float = 60.0
    skin: SkinTone = 1
    sleeve_bgr: tuple[int, int, int] = (90, 60, 50)
    gesture: HandGesture = "open"
    plane: Pose | None = None
    shadow: bool = True
    motion_mm: float = 0.0
    holding: str | None = None


@dataclass(frozen=True)
class ShadowBlob:
    """A soft environmental shadow (a person, a lamp arm) in image fractions:
    centre (x, y) / (W, H), radius / W, darkening in [0, 1]."""

    center_frac: Vec2
    radius_frac: float
    strength: float


@dataclass(frozen=True)
class EffectsSpec:
    """Light and sensor: everything after geometry.

    Attributes:
        light_gain: exposure multiplier (1 = as printed).
        gradient: (gx, gy) relative brightness change across the image width/height.
        vignette: darkening at the image corners, fraction.
        tint_bgr: white-balance multipliers per channel.
        shadows: soft environmental shadows.
        defocus_sigma_px: Gaussian blur, output pixels.
        motion_blur_px: length of a linear motion blur, output pixels (0: none).
        motion_angle_deg: its direction in the image.
        noise_sigma: sensor noise at mid-grey, 8-bit levels (shot + read noise).
        jpeg_quality: JPEG round trip quality 1-100, ``None`` for none.
    """

    light_gain: float = 1.0
    gradient: Vec2 = (0.0, 0.0)
    vignette: float = 0.0
    tint_bgr: Vec3 = (1.0, 1.0, 1.0)
    shadows: tuple[ShadowBlob, ...] = ()
    defocus_sigma_px: float = 0.0
    motion_blur_px: float = 0.0
    motion_angle_deg: float = 0.0
    noise_sigma: float = 0.0
    jpeg_quality: int | None = None


CLEAN = EffectsSpec()


@dataclass(frozen=True)
class PicmixArea:
    """A Picmix player's area: the player and the ids of the cards laid there."""

    player: str
    card_ids: tuple[str, ...]


@dataclass(frozen=True)
class SceneSpec:
    """Everything needed to render one frame."""

    camera: Camera
    table: TableSpec = field(default_factory=TableSpec)
    markers: tuple[MarkerSpec, ...] = ()
    cards: tuple[CardSpec, ...] = ()
    board: BoardSpec | None = None
    hands: tuple[HandSpec, ...] = ()
    held_cards: tuple[CardSpec, ...] = ()
    effects: EffectsSpec = CLEAN
    picmix_areas: tuple[PicmixArea, ...] = ()
    tier: str = "custom"
    card_look: CardLook = KIT_CARD_LOOK


def _turn(p: np.ndarray, angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(p, np.float64) @ r.T


def _rect(center: Vec2, angle_deg: float, size_wh: Vec2) -> np.ndarray:
    w, h = size_wh
    loc = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return _turn(loc, angle_deg) + np.asarray(center)
