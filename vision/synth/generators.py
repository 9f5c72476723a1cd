"""Random scene generators: specs drawn from a numpy ``Generator`` and a difficulty tier.

Every generator is a pure function of the generator's state, so a fixed seed gives the
same spec (and, through ``render_scene``, the same frame) every time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import cast

import cv2
import numpy as np

from vision.synth.camera import Camera
from vision.synth.spec import (
    BOARD_FRAME_MM,
    CANVAS_WH_MM,
    KIT_CARD_LOOK,
    PLAY_AREA_MARKER_IDS,
    PLAY_AREA_MARKER_MM,
    STICK_LW_MM,
    BoardLook,
    BoardSpec,
    CardLook,
    CardSpec,
    GlareSpec,
    HandGesture,
    HandSpec,
    MarkerSpec,
    PicmixArea,
    PieceSpec,
    SceneSpec,
    ShapeColour,
    ShapeKind,
    ShapeSpec,
    SkinTone,
    StickKind,
    StickSpec,
    StringSpec,
)
from vision.synth.textures import CARD_WH_MM, DeckCard, Face, TextureProvider, default_provider
from vision.synth.tiers import Tier, get_tier, sample_camera, sample_effects, sample_table

GESTURES: tuple[HandGesture, ...] = ("open", "pinch", "point", "fist")
SLEEVES: tuple[tuple[int, int, int], ...] = (
    (90, 60, 50),
    (40, 40, 40),
    (150, 150, 150),
    (50, 50, 140),
    (120, 80, 30),
    (200, 200, 205),
)
SHAPES: tuple[ShapeKind, ...] = ("circle", "square", "triangle", "half_circle")
COLOURS: tuple[ShapeColour, ...] = ("red", "blue", "yellow", "green")


# --------------------------------------------------------------------------- helpers


def _inside(poly: np.ndarray, pts: np.ndarray, margin: float = 0.0) -> bool:
    """True when every point is inside ``poly`` by at least ``margin`` (same units)."""
    c = poly.astype(np.float32)
    return all(cv2.pointPolygonTest(c, (float(p[0]), float(p[1])), True) >= margin for p in pts)


def _card_poly(
    center: tuple[float, float], angle: float, size: tuple[float, float] = CARD_WH_MM
) -> np.ndarray:
    w, h = size
    a = math.radians(angle)
    ex, ey = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    c = np.asarray(center)
    return np.stack(
        [c + sx * ex * w / 2 + sy * ey * h / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    )


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(max(area, 0.0))


def _sample_in(rng: np.random.Generator, poly: np.ndarray, margin: float) -> np.ndarray | None:
    lo, hi = poly.min(0), poly.max(0)
    for _ in range(200):
        p = rng.uniform(lo, hi)
        if _inside(poly, p[None], margin):
            return p
    return None


def random_hand(
    rng: np.random.Generator,
    camera: Camera,
    tip_mm: tuple[float, float] | None = None,
    *,
    height_mm: tuple[float, float] = (30.0, 120.0),
) -> HandSpec:
    """A hand reaching from one side of the table to ``tip_mm`` (random in view if None)."""
    fp = camera.footprint_mm(inset_px=40)
    if tip_mm is None:
        p = _sample_in(rng, fp, 0.0)
        tip = (float(p[0]), float(p[1])) if p is not None else camera.target_mm
    else:
        tip = tip_mm
    centre = fp.mean(0)
    side = float(rng.uniform(0, 360))
    seat = centre + 900.0 * np.array([math.cos(math.radians(side)), math.sin(math.radians(side))])
    angle = math.degrees(math.atan2(tip[1] - seat[1], tip[0] - seat[0])) + float(
        rng.uniform(-15, 15)
    )
    return HandSpec(
        tip_mm=tip,
        angle_deg=angle,
        height_mm=float(rng.uniform(*height_mm)),
        skin=cast(SkinTone, int(rng.integers(0, 5))),
        sleeve_bgr=SLEEVES[int(rng.integers(len(SLEEVES)))],
        gesture=GESTURES[int(rng.integers(4))],
    )


def random_glare(rng: np.random.Generator, tier: Tier) -> GlareSpec | None:
    """A glare spot with the tier's probability, else None."""
    if rng.random() >= tier.glare_p:
        return None
    return GlareSpec(
        center_mm=(float(rng.uniform(10, 53)), float(rng.uniform(10, 78))),
        radius_mm=float(rng.uniform(6, 20)),
        strength=float(rng.uniform(*tier.glare_strength)),
        elongation=float(rng.uniform(1.0, 3.0)),
        angle_deg=float(rng.uniform(0, 180)),
    )


def play_area_markers(camera: Camera, inset_px: float = 45.0) -> tuple[MarkerSpec, ...]:
    """Markers 0-3 (40 mm) at the corners of the largest axis-aligned table rectangle
    around the camera target that the frame shows, clockwise from the top-left."""
    fp = camera.footprint_mm(inset_px=inset_px)
    cx, cy = camera.target_mm
    half = PLAY_AREA_MARKER_MM / 2 + 6
    best = (0.0, 0.0)
    for w in np.linspace(1400, 200, 49):
        for aspect in (0.55, 0.65, 0.75):
            h = w * aspect
            pts = np.array(
                [
                    [cx - w / 2, cy - h / 2],
                    [cx + w / 2, cy - h / 2],
                    [cx + w / 2, cy + h / 2],
                    [cx - w / 2, cy + h / 2],
                ]
            )
            corners = np.concatenate(
                [pts + np.array([sx, sy]) * half for sx in (-1, 1) for sy in (-1, 1)]
            )
            if _inside(fp, corners) and w * h > best[0] * best[1]:
                best = (w, h)
    w, h = best
    if w <= 0:
        return ()
    pos = [
        (cx - w / 2, cy - h / 2),
        (cx + w / 2, cy - h / 2),
        (cx + w / 2, cy + h / 2),
        (cx - w / 2, cy + h / 2),
    ]
    return tuple(
        MarkerSpec(i, PLAY_AREA_MARKER_MM, p)
        for i, p in zip(PLAY_AREA_MARKER_IDS, pos, strict=True)
    )


# --------------------------------------------------------------------------- cards


def random_cards_scene(
    rng: np.random.Generator,
    tier: str | Tier = "normal",
    n_cards: int = 8,
    deck: str = "pickpic",
    *,
    markers: bool = True,
    face: str | None = None,
    n_hands: int | None = None,
    provider: TextureProvider | None = None,
    look: CardLook | None = None,
) -> SceneSpec:
    """Cards lying anywhere in view, turned, overlapping (up to the tier's share hidden),
    face up or down, optionally with the play-area markers 0-3 and hands.

    Args:
        rng: the randomness.
        tier: ``easy``, ``normal``, ``hard`` or a ``Tier``.
        n_cards: cards wanted (fewer if they do not fit).
        deck: the game whose deck to draw from.
        markers: add play-area markers 0-3.
        face: ``"front"``/``"back"`` for all cards, None for mostly front (1 in 4 back).
        n_hands: hands over the scene; None draws from the tier.
        provider: card art (for the deck's ids).
        look: how the cards and the room look (``vision.synth.card_looks``); None: the kit
            look. It draws nothing from ``rng``: a seed lays the same cards under every look.
    """
    t = get_tier(tier)
    provider = provider or default_provider()
    camera = sample_camera(rng, t, (float(rng.uniform(-60, 60)), float(rng.uniform(-40, 40))))
    infos = {c.card_id: c for c in provider.deck(deck)}
    ids = list(infos)
    chosen = [ids[int(i)] for i in rng.permutation(len(ids))[: min(n_cards, len(ids))]]
    mks = play_area_markers(camera) if markers else ()
    mpoly = [_square(m.center_mm, m.size_mm + 14) for m in mks]
    fp = camera.footprint_mm(inset_px=25)
    placed: list[tuple[np.ndarray, float]] = []  # (polygon, hidden area so far)
    cards: list[CardSpec] = []
    card_area = CARD_WH_MM[0] * CARD_WH_MM[1]
    for card_id in chosen:
        for _ in range(80):
            p = _sample_in(rng, fp, 30.0)
            if p is None:
                break
            angle = float(rng.uniform(-t.card_turn_deg, t.card_turn_deg))
            size = infos[card_id].face_wh_mm
            poly = _card_poly((float(p[0]), float(p[1])), angle, size)
            if not _inside(fp, poly, 2.0):
                continue
            if any(_overlap(poly, m) > 0 for m in mpoly):
                continue
            hides = [_overlap(poly, q) for q, _ in placed]
            if any(
                hidden + h > t.overlap_max * card_area + 1e-6
                for (_, hidden), h in zip(placed, hides, strict=True)
            ):
                continue
            placed = [(q, hidden + h) for (q, hidden), h in zip(placed, hides, strict=True)]
            placed.append((poly, 0.0))
            f: Face = cast(Face, face) if face else ("back" if rng.random() < 0.25 else "front")
            cards.append(
                CardSpec.flat(
                    card_id,
                    f,
                    (float(p[0]), float(p[1])),
                    angle,
                    height_mm=0.3 * len(cards) / max(1, len(chosen)),
                    glare=random_glare(rng, t),
                    size_wh_mm=size,
                )
            )
            break
    nh = int(rng.integers(t.hands[0], t.hands[1] + 1)) if n_hands is None else n_hands
    hands = tuple(random_hand(rng, camera) for _ in range(nh))
    return SceneSpec(
        camera=camera,
        table=sample_table(rng),
        markers=mks,
        cards=tuple(cards),
        hands=hands,
        effects=sample_effects(rng, t),
        tier=t.name,
        card_look=look or KIT_CARD_LOOK,
    )


def _square(center: tuple[float, float], side: float) -> np.ndarray:
    c = np.asarray(center)
    return c + side / 2 * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)


# --------------------------------------------------------------------------- Picasso


def _seg_dist(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> float:
    """Smallest distance between segments p0p1 and q0q1 (0 if they cross)."""
    if _seg_cross(p0, p1, q0, q1):
        return 0.0

    def pt_seg(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
        d = b - a
        t = float(np.clip(np.dot(p - a, d) / max(np.dot(d, d), 1e-12), 0, 1))
        return float(np.linalg.norm(p - (a + t * d)))

    return min(pt_seg(p0, q0, q1), pt_seg(p1, q0, q1), pt_seg(q0, p0, p1), pt_seg(q1, p0, p1))


def _seg_cross(p0: np.ndarray, p1: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> bool:
    """True when the segments cross properly (interiors intersect at one point)."""

    def orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
        return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    d1, d2 = orient(q0, q1, p0), orient(q0, q1, p1)
    d3, d4 = orient(p0, p1, q0), orient(p0, p1, q1)
    return d1 * d2 < 0 and d3 * d4 < 0


def count_crossings(sticks: Sequence[StickSpec]) -> int:
    """Pairs of sticks whose centre lines cross."""
    n = 0
    for i in range(len(sticks)):
        a = sticks[i].endpoints_mm()
        for j in range(i + 1, len(sticks)):
            b = sticks[j].endpoints_mm()
            n += _seg_cross(a[0], a[1], b[0], b[1])
    return n


def _in_canvas(poly: np.ndarray, margin: float = 6.0) -> bool:
    w, h = CANVAS_WH_MM
    return bool(
        np.all(poly[:, 0] >= margin)
        and np.all(poly[:, 0] <= w - margin)
        and np.all(poly[:, 1] >= margin)
        and np.all(poly[:, 1] <= h - margin)
    )


def _angle_diff(a: float, b: float) -> float:
    d = abs((a - b) % 180.0)
    return min(d, 180.0 - d)


def random_sticks(
    rng: np.random.Generator, n_long: int, n_short: int, min_crossings: int
) -> list[StickSpec]:
    """Sticks on the canvas that cross each other, touch end to end, or lie free; at
    least ``min_crossings`` crossings when the number of sticks allows it."""
    long_kind: StickKind = "long_stick"
    short_kind: StickKind = "short_stick"
    kinds: list[StickKind] = [long_kind] * n_long + [short_kind] * n_short
    want = min(min_crossings, max(0, len(kinds) - 1))
    best: list[StickSpec] = []
    for _attempt in range(40):
        order = [kinds[int(i)] for i in rng.permutation(len(kinds))]
        sticks: list[StickSpec] = []
        for kind in order:
            length = STICK_LW_MM[kind][0]
            for _ in range(60):
                mode = (
                    "free"
                    if not sticks
                    else str(rng.choice(["cross", "touch", "free"], p=[0.5, 0.3, 0.2]))
                )
                partner = -1
                if mode == "free":
                    c = rng.uniform([20, 20], [CANVAS_WH_MM[0] - 20, CANVAS_WH_MM[1] - 20])
                    angle = float(rng.uniform(0, 180))
                else:
                    partner = int(rng.integers(len(sticks)))
                    s = sticks[partner]
                    e = s.endpoints_mm()
                    if mode == "cross":
                        p = e[0] + (e[1] - e[0]) * rng.uniform(0.2, 0.8)
                        angle = s.angle_deg + float(rng.uniform(35, 145))
                        d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
                        c = p - d * length * (rng.uniform(0.2, 0.8) - 0.5)
                    else:
                        end = e[int(rng.integers(2))]
                        angle = s.angle_deg + float(rng.uniform(40, 320))
                        d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
                        c = end + d * length / 2
                cand = StickSpec(kind, (float(c[0]), float(c[1])), float(angle % 360))
                if not _in_canvas(cand.polygon_mm()):
                    continue
                ce = cand.endpoints_mm()
                ok = True
                for k, s in enumerate(sticks):
                    se = s.endpoints_mm()
                    if _seg_cross(ce[0], ce[1], se[0], se[1]):
                        ok = _angle_diff(cand.angle_deg, s.angle_deg) >= 30
                    elif k == partner and mode == "touch":
                        ok = _angle_diff(cand.angle_deg, s.angle_deg) >= 25
                    else:
                        ok = _seg_dist(ce[0], ce[1], se[0], se[1]) >= 10.0
                    if not ok:
                        break
                if ok:
                    sticks.append(cand)
                    break
        if len(sticks) == len(kinds) and count_crossings(sticks) >= want:
            return sticks
        if len(sticks) > len(best):
            best = sticks
    return best


def _support(poly: np.ndarray, direction: np.ndarray) -> float:
    return float((poly @ direction).max())


def _shape_clear(poly: np.ndarray, obstacles: Sequence[np.ndarray], tol_mm2: float = 12.0) -> bool:
    return all(_overlap(poly, o) <= tol_mm2 for o in obstacles)


def random_shapes(rng: np.random.Generator, n: int, sticks: Sequence[StickSpec]) -> list[ShapeSpec]:
    """Shapes on the canvas, clear of each other and of the sticks, half of them
    touching a stick."""
    obstacles = [s.polygon_mm() for s in sticks]
    shapes: list[ShapeSpec] = []
    for _ in range(n):
        for _try in range(80):
            kind = SHAPES[int(rng.integers(4))]
            colour = COLOURS[int(rng.integers(4))]
            angle = float(rng.uniform(0, 360))
            proto = ShapeSpec(kind, colour, (0.0, 0.0), angle)
            local = proto.polygon_mm()
            if sticks and rng.random() < 0.5:
                s = sticks[int(rng.integers(len(sticks)))]
                e = s.endpoints_mm()
                p = e[0] + (e[1] - e[0]) * rng.uniform(0.15, 0.85)
                a = math.radians(s.angle_deg)
                normal = np.array([-math.sin(a), math.cos(a)]) * (1 if rng.random() < 0.5 else -1)
                c = p + normal * (STICK_LW_MM[s.kind][1] / 2 + _support(local, -normal) + 0.2)
            else:
                c = rng.uniform([25, 25], [CANVAS_WH_MM[0] - 25, CANVAS_WH_MM[1] - 25])
            cand = replace(proto, center_mm=(float(c[0]), float(c[1])))
            poly = cand.polygon_mm()
            if _in_canvas(poly) and _shape_clear(poly, obstacles):
                shapes.append(cand)
                obstacles.append(poly)
                break
    return shapes


def random_string(
    rng: np.random.Generator,
    length_mm: float = 600.0,
    *,
    inside: tuple[float, float, float, float] | None = None,
    thickness_mm: float = 2.5,
) -> StringSpec:
    """A string in free smooth curves, kept inside the box (x0, y0, x1, y1) (board mm;
    default: the canvas less 10 mm)."""
    x0, y0, x1, y1 = inside or (10.0, 10.0, CANVAS_WH_MM[0] - 10, CANVAS_WH_MM[1] - 10)
    step = 2.5
    n = int(length_mm / step)
    for _attempt in range(60):
        p = rng.uniform([x0 + 40, y0 + 40], [x1 - 40, y1 - 40])
        heading = float(rng.uniform(0, 2 * math.pi))
        freqs = rng.uniform(0.004, 0.03, 3)
        phases = rng.uniform(0, 2 * math.pi, 3)
        amps = rng.uniform(-0.03, 0.03, 3)
        pts = [p.copy()]
        ok = True
        for i in range(n):
            s = i * step
            kappa = float(np.sum(amps * np.sin(freqs * s * 2 * math.pi / 10 + phases)))
            # steer back towards the middle near the edges
            margin = min(p[0] - x0, x1 - p[0], p[1] - y0, y1 - p[1])
            if margin < 30:
                to_c = math.atan2((y0 + y1) / 2 - p[1], (x0 + x1) / 2 - p[0])
                diff = (to_c - heading + math.pi) % (2 * math.pi) - math.pi
                kappa += 0.05 * diff * (30 - margin) / 30
            kappa = float(np.clip(kappa, -1 / 18, 1 / 18))
            heading += kappa * step
            p = p + step * np.array([math.cos(heading), math.sin(heading)])
            if not (x0 <= p[0] <= x1 and y0 <= p[1] <= y1):
                ok = False
                break
            pts.append(p.copy())
        if ok:
            return StringSpec(tuple((float(a), float(b)) for a, b in pts), thickness_mm)
    # a plain loop as the last resort
    t = np.linspace(0, 2 * math.pi, n)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = length_mm / (2 * math.pi)
    return StringSpec(
        tuple((float(cx + r * math.cos(a)), float(cy + 0.7 * r * math.sin(a))) for a in t),
        thickness_mm,
    )


def _coil(rng: np.random.Generator, centre: np.ndarray, length_mm: float = 600.0) -> StringSpec:
    """The string lying coiled in the supply."""
    pts = []
    s, r, a = 0.0, 12.0, float(rng.uniform(0, 2 * math.pi))
    while s < length_mm:
        pts.append((float(centre[0] + r * math.cos(a)), float(centre[1] + 0.8 * r * math.sin(a))))
        a += 2.5 / r
        r += 0.12
        s += 2.5
    return StringSpec(tuple(pts), 2.5)


def picasso_board_with(
    rng: np.random.Generator,
    pieces: Sequence[PieceSpec],
    *,
    look: BoardLook | None = None,
    tier: str | Tier = "normal",
) -> SceneSpec:
    """The Picasso board of a scene of ``tier`` drawn from ``rng`` (camera, table, board
    pose, ``look``), with exactly ``pieces`` on it: no supply beside it, no hand."""
    spec = random_picasso_board(
        rng, tier, n_sticks=0, n_shapes=0, string=False, supply=False, n_hands=0, look=look
    )
    assert spec.board is not None
    return replace(spec, board=replace(spec.board, pieces=tuple(pieces)))


def random_picasso_board(
    rng: np.random.Generator,
    tier: str | Tier = "normal",
    *,
    n_sticks: int | None = None,
    n_shapes: int | None = None,
    string: bool | None = None,
    supply: bool = True,
    n_hands: int | None = None,
    look: BoardLook | None = None,
    glare: bool = True,
) -> SceneSpec:
    """The Picasso board with a random build: sticks crossing and touching, shapes
    touching sticks, the string on top in free curves, unused pieces in the supply
    beside the board (those that fall in view).

    Args:
        n_sticks: sticks on the canvas (<= 10: 5 long and 5 short at most); None draws
            from the tier.
        n_shapes: shapes on the canvas; None draws from the tier.
        string: the string on the canvas; None draws with the tier's probability.
        supply: lay unused pieces beside the board.
        n_hands: hands over the scene; None draws from the tier.
        look: how the kit and the room look (``vision.synth.looks.random_board_look``, drawn
            from a generator of its own); None: the kit look. It draws nothing from ``rng``:
            a seed lays the same pieces under every look, and without one the scene is
            exactly what it always was. The shapes take their colour names from the look's
            palette (the kit's red, blue, yellow, green in that order).
        glare: a lamp's reflection over the board with the tier's probability (the hard
            tier's half of its boards); False: none, the board as drawn before the hard tier
            had glare (every other draw is the same either way).
    """
    t = get_tier(tier)
    ns = int(rng.integers(t.sticks[0], t.sticks[1] + 1)) if n_sticks is None else n_sticks
    ns = int(np.clip(ns, 0, 10))
    n_long = int(rng.integers(max(0, ns - 5), min(5, ns) + 1))
    n_short = ns - n_long
    sticks = random_sticks(rng, n_long, n_short, t.min_crossings)
    nsh = int(rng.integers(t.shapes[0], t.shapes[1] + 1)) if n_shapes is None else n_shapes
    shapes = random_shapes(rng, nsh, sticks)
    use_string = bool(rng.random() < t.string_p) if string is None else string
    pieces: list[PieceSpec] = [*sticks, *shapes]
    if use_string:
        pieces.append(random_string(rng))
    board = BoardSpec(
        center_mm=(float(rng.uniform(-30, 30)), float(rng.uniform(-20, 20))),
        angle_deg=float(rng.uniform(-8, 8)) if t.name != "hard" else float(rng.uniform(-30, 30)),
        frame_bgr=((60, 85, 120), (40, 40, 40), (200, 200, 200), (110, 80, 50))[
            int(rng.integers(4))
        ],
    )
    camera = sample_camera(
        rng, t, board.center_mm, height_mm=(max(t.height_mm[0], 620.0), t.height_mm[1])
    )
    if supply:
        pieces.extend(_supply(rng, board, camera, 5 - n_long, 5 - n_short, not use_string))
    if look is not None:
        pieces = [_recolour(p, look) for p in pieces]
        board = replace(board, look=look)
    board = replace(board, pieces=tuple(pieces))
    nh = int(rng.integers(t.hands[0], t.hands[1] + 1)) if n_hands is None else n_hands
    hands = tuple(random_hand(rng, camera) for _ in range(nh))
    table = sample_table(rng)
    effects = sample_effects(rng, t)
    if glare and t.board_glare_p > 0:
        # drawn last, so that every draw before it (pieces, camera, hands, effects) is what
        # it was before boards had glare
        board = replace(board, glare=random_board_glare(rng, t))
    return SceneSpec(
        camera=camera,
        table=table,
        board=board,
        hands=hands,
        effects=effects,
        tier=t.name,
    )


def random_board_glare(rng: np.random.Generator, tier: Tier) -> GlareSpec | None:
    """A lamp's reflection over the Picasso board with the tier's probability, else None:
    a broad soft spot (half-axes 50-140 mm, up to twice as long one way) centred anywhere
    over the canvas or just off it, blending the board and its pieces towards white by
    the tier's peak at its middle (in the mm of the whole sheet, frame included)."""
    if rng.random() >= tier.board_glare_p:
        return None
    f = BOARD_FRAME_MM
    return GlareSpec(
        center_mm=(
            float(rng.uniform(f - 30, f + CANVAS_WH_MM[0] + 30)),
            float(rng.uniform(f - 30, f + CANVAS_WH_MM[1] + 30)),
        ),
        radius_mm=float(rng.uniform(50, 140)),
        strength=float(rng.uniform(*tier.board_glare_strength)),
        elongation=float(rng.uniform(1.0, 2.0)),
        angle_deg=float(rng.uniform(0, 180)),
    )


def _recolour(piece: PieceSpec, look: BoardLook) -> PieceSpec:
    """A shape named by ``look``'s palette (the same index as its kit colour); other
    pieces as they are."""
    if not isinstance(piece, ShapeSpec):
        return piece
    name = look.shape_colour(COLOURS.index(piece.colour)) if piece.colour in COLOURS else None
    return piece if name is None else replace(piece, colour=cast(ShapeColour, name))


def _supply(
    rng: np.random.Generator,
    board: BoardSpec,
    camera: Camera,
    n_long: int,
    n_short: int,
    with_string: bool,
) -> list[PieceSpec]:
    """Unused pieces loosely lying left or right of the board, kept if in view."""
    fp = camera.footprint_mm(inset_px=20)
    side = 1 if rng.random() < 0.5 else -1
    x_lo = CANVAS_WH_MM[0] + 70 if side > 0 else -190
    out: list[PieceSpec] = []
    occupied: list[np.ndarray] = []

    def fits(piece: StickSpec | ShapeSpec | StringSpec, outline: np.ndarray) -> bool:
        if not _inside(fp, board.to_table(outline), 5.0):
            return False
        hull = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        return all(_overlap(hull, o) <= 0 for o in occupied)

    supply: tuple[tuple[StickKind, int], ...] = (("long_stick", n_long), ("short_stick", n_short))
    for kind, n in supply:
        for _ in range(n):
            for _try in range(20):
                c = (
                    float(rng.uniform(x_lo, x_lo + 120)),
                    float(rng.uniform(-20, CANVAS_WH_MM[1] + 20)),
                )
                st = StickSpec(kind, c, float(rng.uniform(60, 120)))
                if fits(st, st.polygon_mm()):
                    out.append(st)
                    occupied.append(st.polygon_mm())
                    break
    for _ in range(int(rng.integers(1, 4))):
        for _try in range(20):
            sh = ShapeSpec(
                SHAPES[int(rng.integers(4))],
                COLOURS[int(rng.integers(4))],
                (float(rng.uniform(x_lo, x_lo + 120)), float(rng.uniform(0, CANVAS_WH_MM[1]))),
                float(rng.uniform(0, 360)),
            )
            if fits(sh, sh.polygon_mm()):
                out.append(sh)
                occupied.append(sh.polygon_mm())
                break
    if with_string:
        for _try in range(20):
            coil = _coil(
                rng,
                np.array(
                    [rng.uniform(x_lo + 20, x_lo + 100), rng.uniform(30, CANVAS_WH_MM[1] - 30)]
                ),
            )
            line = coil.polyline_mm()
            if fits(coil, line):
                out.append(coil)
                break
    return out


# --------------------------------------------------------------------------- Picmix


def picmix_chain_visible(cards: Sequence[tuple[DeckCard, Face, bool]]) -> list[str]:
    """Items showing when player cards lie in a row, each over half of the one before:
    (card, face, turned 180 deg) for each, first card at the bottom. All but the last
    card show only their first half; the last shows both."""
    out: list[str] = []
    for i, (card, face, turned) in enumerate(cards):
        pair = card.face_items(face)
        if pair is None:
            raise ValueError(f"{card.card_id} is not a Picmix player card")
        left, right = (pair[1], pair[0]) if turned else pair
        out.append(left)
        if i == len(cards) - 1:
            out.append(right)
    return out


def picmix_row_chain(
    row: Sequence[CardSpec], deck: dict[str, DeckCard]
) -> list[tuple[DeckCard, Face, bool]]:
    """The (card, face, turned) chain of Picmix cards laid in a row, bottom card first,
    each over half of the one before: a card is turned when its x axis points back
    along the row."""
    if len(row) < 2:
        return [(deck[c.card_id], c.face, False) for c in row]
    a = np.asarray(row[0].center_mm())
    b = np.asarray(row[-1].center_mm())
    along = (b - a) / max(1e-9, float(np.linalg.norm(b - a)))
    out = []
    for c in row:
        info = deck[c.card_id]
        axis = np.asarray(c.pose.ex[:2] if info.half_axis == "x" else c.pose.ey[:2])
        out.append((info, c.face, bool(float(axis @ along) < 0)))
    return out


def _chains(player_cards: Sequence[DeckCard], k: int) -> list[list[tuple[DeckCard, Face, bool]]]:
    from itertools import permutations, product

    out: list[list[tuple[DeckCard, Face, bool]]] = []
    sides: tuple[Face, Face] = ("front", "back")
    for order in permutations(range(len(player_cards)), k):
        for faces in product(sides, repeat=k):
            for turns in product((False, True), repeat=k):
                out.append(
                    [(player_cards[o], f, tt) for o, f, tt in zip(order, faces, turns, strict=True)]
                )
    return out


def random_picmix_claim(
    rng: np.random.Generator,
    tier: str | Tier = "normal",
    *,
    n_cards: int | None = None,
    correct: bool | None = None,
    player: str = "A",
    n_hands: int | None = None,
    provider: TextureProvider | None = None,
    look: CardLook | None = None,
) -> SceneSpec:
    """A Picmix claim: the revealed objective card by the pile and one player's cards in
    a row, each laid over half of the previous one (hiding that half's item).

    Args:
        n_cards: player cards in the row (2-4); None draws from the tier.
        correct: the row shows exactly the objective's items (True), or not (False);
            None: 50/50.
        player: the area's player name.
        n_hands: hands over the scene; None draws from the tier (at most one here).
        look: how the cards and the room look (``vision.synth.card_looks``); None: the kit
            look. It draws nothing from ``rng``.
    """
    t = get_tier(tier)
    provider = provider or default_provider()
    deck = provider.deck("picmix")
    objectives = [c for c in deck if c.kind == "objective"]
    by_colour: dict[str, list[DeckCard]] = {}
    for c in deck:
        if c.kind == "player":
            by_colour.setdefault(c.set_colour, []).append(c)
    if not objectives or not by_colour:
        raise ValueError(f"the {provider.name} Picmix deck has no objective or player cards")
    colour = sorted(by_colour)[int(rng.integers(len(by_colour)))]
    pcards = by_colour[colour]
    want_correct = bool(rng.random() < 0.5) if correct is None else correct
    k = int(rng.integers(t.picmix_cards[0], t.picmix_cards[1] + 1)) if n_cards is None else n_cards
    k = int(np.clip(k, 1, len(pcards)))
    chain: list[tuple[DeckCard, Face, bool]] | None = None
    objective: DeckCard | None = None
    if want_correct:
        for oi in rng.permutation(len(objectives)):
            obj = objectives[int(oi)]
            kk = len(obj.items) - 1
            options = [
                c
                for c in _chains(pcards, kk)
                if sorted(picmix_chain_visible(c)) == sorted(obj.items)
            ]
            if options:
                chain, objective = options[int(rng.integers(len(options)))], obj
                break
    if chain is None or objective is None:
        options = _chains(pcards, k)
        chain = options[int(rng.integers(len(options)))]
        shown = sorted(picmix_chain_visible(chain))
        wrong = [o for o in objectives if sorted(o.items) != shown]
        objective = wrong[int(rng.integers(len(wrong)))] if wrong else objectives[0]
    camera = sample_camera(rng, t, (0.0, 40.0))
    fp = camera.footprint_mm(inset_px=30)
    # the player's row in the lower half of the view, the objective above it
    lo, hi = fp.min(0), fp.max(0)
    row_angle = float(rng.uniform(-10, 10))
    cards: list[CardSpec] = []
    half_axis = chain[0][0].half_axis
    face_w, face_h = chain[0][0].face_wh_mm
    step = face_w / 2 if half_axis == "x" else face_h / 2
    n = len(chain)
    a = math.radians(row_angle)
    along = (
        np.array([math.cos(a), math.sin(a)])
        if half_axis == "x"
        else np.array([-math.sin(a), math.cos(a)])
    )
    start = (
        np.array([rng.uniform(-60, 60), camera.target_mm[1] + rng.uniform(60, 110)])
        - along * step * (n - 1) / 2
    )
    for i, (card, face, turned) in enumerate(chain):
        pos = start + along * (step * i + rng.uniform(-1.0, 1.0))
        cards.append(
            CardSpec.flat(
                card.card_id,
                face,
                (float(pos[0]), float(pos[1])),
                row_angle + (180.0 if turned else 0.0) + float(rng.uniform(-2, 2)),
                height_mm=0.3 * i,
                area=player,
                glare=random_glare(rng, t),
                size_wh_mm=card.face_wh_mm,
            )
        )
    obj_c = np.array([rng.uniform(-80, 80), camera.target_mm[1] - rng.uniform(90, 140)])
    obj_c = np.clip(obj_c, lo + 60, hi - 60)
    pile = [c for c in objectives if c.card_id != objective.card_id]
    table_cards = [
        CardSpec.flat(
            pile[0].card_id,
            "back",
            (float(obj_c[0] - 85), float(obj_c[1])),
            float(rng.uniform(-8, 8)),
        ),
        CardSpec.flat(
            objective.card_id,
            "front",
            (float(obj_c[0]), float(obj_c[1])),
            float(rng.uniform(-12, 12)),
        ),
    ]
    nh = min(1, int(rng.integers(t.hands[0], t.hands[1] + 1))) if n_hands is None else n_hands
    hands = tuple(random_hand(rng, camera) for _ in range(nh))
    area = PicmixArea(player, tuple(c.card_id for c in cards))
    return SceneSpec(
        camera=camera,
        table=sample_table(rng),
        cards=tuple(table_cards + cards),
        hands=hands,
        effects=sample_effects(rng, t),
        picmix_areas=(area,),
        tier=t.name,
        card_look=look or KIT_CARD_LOOK,
    )
