"""Short frame sequences of whole game turns, with the events that happened.

Each sequence is scripted as timed beats (a hand reaches in, lays a piece, withdraws;
a card is held up to the camera; ...). The script yields, at any time ``t``, the scene
spec of that moment, and the docs/formats.md event log (``start`` first, every event with
``t`` in seconds) that a perfect tracker would emit: an event is stamped at the moment
its evidence is complete and unoccluded (a piece's ``build`` when the placing hand has
left the board, a ``draw`` when the shown card is held still, ...).

Kinds:

- ``picasso_turn``: the builder shows the drawn card to the camera, builds piece by
  piece with a hand moving in (one ``build`` per placed piece), the build settles, the
  card is shown again and handed to the guesser's seat (``guess``).
- ``picmix_claim``: the objective is revealed (``reveal``), the player lays 2-4 cards in
  a row, each over half of the previous one, and taps the objective (``claim``).
- ``pickpic_round``: every player reveals a photo (``reveal``), then cards are given
  face down next to the other players' photos (``give``); with ``n_gives=None`` the
  rounds go on with the random cards (``random``) and the rankings (``rank``), for
  ``n_rounds`` rounds of ``n_players`` (3-5) players (``vision.synth.games``).
- ``pickpic_session``: the same with whole rounds (two by default, four players).
- ``picflip_game``: a whole Pic Flip game of ``n_players`` players with a few cards each
  (``lead``, ``describe``, ``play``, ``reject``; ``vision.synth.games``).

Each true event also says what its change is (``Watch``: the cards laid, the card held up,
the pieces on the board, from the moment the card is let go or the objective tapped), and
the render records its **settle frame** (``SequenceRender.settle_frames``): the first frame
from then on where every one of those cards or pieces lies still (as in the next frame) with
no hand or arm over it (a card held up: still in the hand). Spoken and voted events
(``describe``, ``reject``) have none. A follower's delay is measured from it.

Rendering caches the static layer and only redraws what moves: a 1280x720 frame takes
a few tens of milliseconds. ``size_wh`` renders the same scene at another size of the same
shape (1920x1080: the same camera with its focal length and centre scaled).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

import numpy as np

from vision.synth.camera import Camera
from vision.synth.effects import NoiseBank, apply_effects, scene_effects
from vision.synth.generators import (
    SLEEVES,
    picmix_chain_visible,
    picmix_row_chain,
    random_picasso_board,
    random_picmix_claim,
)
from vision.synth.render import FrameRenderer
from vision.synth.spec import (
    PIECE_COST,
    BoardSpec,
    CardSpec,
    HandGesture,
    HandSpec,
    PieceSpec,
    Pose,
    SceneSpec,
    SkinTone,
    StringSpec,
    on_canvas,
    piece_kind,
)
from vision.synth.textures import CARD_WH_MM, TextureProvider, default_provider
from vision.synth.tiers import get_tier, sample_camera, sample_effects, sample_table
from vision.synth.truth import Truth

SequenceKind = Literal[
    "picasso_turn", "picmix_claim", "pickpic_round", "pickpic_session", "picflip_game"
]
SEQUENCE_KINDS: tuple[str, ...] = (
    "picasso_turn",
    "picmix_claim",
    "pickpic_round",
    "pickpic_session",
    "picflip_game",
)

Vec2 = tuple[float, float]


@dataclass(frozen=True, eq=False)
class SequenceFrame:
    """One frame of a sequence: index, time (s), (H, W, 3) uint8 BGR image, truth."""

    index: int
    t: float
    frame: np.ndarray
    truth: Truth


# --------------------------------------------------------------------------- script


@dataclass(frozen=True)
class Beat:
    """A stretch of time: ``scene(u)`` gives the spec at progress u in [0, 1]."""

    duration: float
    scene: Callable[[float], SceneSpec]


@dataclass(frozen=True)
class Watch:
    """What a true event's change is, for its settle frame: from ``since_s`` (the card let
    go, the piece placed, the objective tapped) the first frame where every card of
    ``cards`` lies still, not held, with no hand or arm over any of it (``hand_fraction``
    0), ``held`` (a card held up to the camera) is still in the hand that holds it, and,
    with ``board``, no hand is over any piece on the canvas."""

    since_s: float
    cards: tuple[str, ...] = ()
    held: str | None = None
    board: bool = False


def _const(spec: SceneSpec) -> Callable[[], SceneSpec]:
    """A scene source that always gives ``spec``."""
    return lambda: spec


def _const_u(spec: SceneSpec) -> Callable[[float], SceneSpec]:
    """A beat that shows ``spec`` throughout."""
    return lambda u: spec


def _ease(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def _lerp(a: Vec2, b: Vec2, u: float) -> Vec2:
    return (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u)


class Script:
    """Beats and events along a timeline."""

    def __init__(self) -> None:
        self.beats: list[tuple[float, Beat]] = []
        self.events: list[dict[str, Any]] = []
        #: per event, what its change is (None: nothing a camera sees settle)
        self.watches: list[Watch | None] = []
        self.t = 0.0

    def add(self, duration: float, scene: Callable[[float], SceneSpec]) -> float:
        """Append a beat; returns its end time."""
        self.beats.append((self.t, Beat(duration, scene)))
        self.t += duration
        return self.t

    def event(
        self, obj: dict[str, Any], t: float | None = None, *, watch: Watch | None = None
    ) -> None:
        """Record an event at time ``t`` (default: now); ``watch``: what its change is."""
        self.events.append({**obj, "t": round(self.t if t is None else t, 3)})
        self.watches.append(watch)

    def scene_at(self, t: float) -> SceneSpec:
        """The scene at time ``t`` (clamped to the script)."""
        for start, beat in self.beats:
            if t < start + beat.duration or (start, beat) == self.beats[-1]:
                u = (t - start) / beat.duration if beat.duration > 0 else 1.0
                return beat.scene(min(1.0, max(0.0, u)))
        raise ValueError("empty script")


class Hands:
    """Makes hands of one player: reaching from the player's seat to a table point."""

    def __init__(self, rng: np.random.Generator, seat_mm: Vec2) -> None:
        self.seat = seat_mm
        self.skin = int(rng.integers(0, 5))
        self.sleeve = SLEEVES[int(rng.integers(len(SLEEVES)))]

    def at(
        self,
        tip: Vec2,
        height: float,
        *,
        speed_mm_s: float = 0.0,
        gesture: str = "pinch",
        holding: str | None = None,
    ) -> HandSpec:
        """A hand with fingertips at ``tip``, arm pointing from the seat."""
        angle = math.degrees(math.atan2(tip[1] - self.seat[1], tip[0] - self.seat[0]))
        # travel during a ~1/30 s webcam exposure, in a few steps (each one texture)
        blur = 0.0 if speed_mm_s < 300 else (12.0 if speed_mm_s < 900 else 28.0)
        return HandSpec(
            tip_mm=tip,
            angle_deg=angle,
            height_mm=height,
            skin=cast(SkinTone, self.skin),
            sleeve_bgr=self.sleeve,
            gesture=cast(HandGesture, gesture),
            motion_mm=blur,
            holding=holding,
        )

    def away(self, towards: Vec2) -> Vec2:
        """A point out of view on the way from ``towards`` back to the seat."""
        d = np.array(self.seat) - np.array(towards)
        d /= max(1e-6, float(np.linalg.norm(d)))
        p = np.array(towards) + d * 1100.0
        return (float(p[0]), float(p[1]))


def _reach(
    script: Script,
    base: Callable[[], SceneSpec],
    hands: Hands,
    target: Vec2,
    *,
    duration: float = 0.6,
    carry: CardSpec | None = None,
    gesture: str = "pinch",
    start: Vec2 | None = None,
    end_height: float = 20.0,
) -> None:
    """A hand moves from out of view to ``target`` (optionally carrying a card flat)."""
    a = start or hands.away(target)
    dist = math.dist(a, target)

    def scene(u: float) -> SceneSpec:
        e = _ease(u)
        tip = _lerp(a, target, e)
        h = end_height + (110.0 - end_height) * (1 - e) ** 2
        speed = dist * 6 * u * (1 - u) / duration
        spec = base()
        hand = hands.at(
            tip, h, speed_mm_s=speed, gesture=gesture, holding=carry.card_id if carry else None
        )
        held: tuple[CardSpec, ...] = ()
        if carry is not None:
            held = (_carried(carry, tip, h, hand.angle_deg),)
        return replace(spec, hands=(*spec.hands, hand), held_cards=(*spec.held_cards, *held))

    script.add(duration, scene)


def _withdraw(
    script: Script,
    base: Callable[[], SceneSpec],
    hands: Hands,
    origin: Vec2,
    *,
    duration: float = 0.5,
    gesture: str = "open",
) -> None:
    b = hands.away(origin)
    dist = math.dist(origin, b)

    def scene(u: float) -> SceneSpec:
        e = _ease(u)
        tip = _lerp(origin, b, e)
        speed = dist * 6 * u * (1 - u) / duration
        spec = base()
        hand = hands.at(tip, 20.0 + 90.0 * e, speed_mm_s=speed, gesture=gesture)
        return replace(spec, hands=(*spec.hands, hand))

    script.add(duration, scene)


def _lay(
    script: Script,
    before: SceneSpec,
    after: SceneSpec,
    hands: Hands,
    card: CardSpec,
    target: Vec2,
    *,
    reach_s: float,
    withdraw_s: float = 0.5,
    end_height: float = 10.0,
) -> None:
    """A hand carries ``card`` flat from out of view to ``target`` over the scene
    ``before``, lets go and withdraws over ``after`` (the scene with the card laid)."""
    _reach(
        script,
        _const(before),
        hands,
        target,
        duration=reach_s,
        carry=card,
        end_height=end_height,
    )
    _withdraw(script, _const(after), hands, target, duration=withdraw_s)


def _carry_away(
    script: Script,
    after: SceneSpec,
    hands: Hands,
    card: CardSpec,
    origin: Vec2,
    *,
    height: float,
    duration: float = 0.45,
) -> None:
    """A hand whose fingertips are ``height`` mm over ``origin`` carries ``card`` flat out
    of view (rising as it goes) over the scene ``after``."""

    def scene(u: float) -> SceneSpec:
        b = hands.away(origin)
        e = u * u * (3 - 2 * u)
        tip = (origin[0] + (b[0] - origin[0]) * e, origin[1] + (b[1] - origin[1]) * e)
        h = height + 90.0 * e
        hand = hands.at(tip, h, speed_mm_s=600.0 * math.sin(math.pi * u), holding=card.card_id)
        return replace(after, hands=(hand,), held_cards=(_carried(card, tip, h, hand.angle_deg),))

    script.add(duration, scene)


def _carried(card: CardSpec, tip: Vec2, height: float, angle_deg: float) -> CardSpec:
    """A card carried flat under the fingertips, a little below the hand."""
    a = math.radians(angle_deg)
    c = (tip[0] - 25 * math.cos(a), tip[1] - 25 * math.sin(a))
    pose = Pose.flat(c, angle_deg + 90.0, card.size_wh_mm, max(0.5, height - 12.0))
    return replace(card, pose=pose)


def _held_up_pose(camera: Camera, centre: Vec2, height_mm: float, tilt_deg: float = 10.0) -> Pose:
    """A card held up facing the camera (upright in the image), slightly tilted back."""
    r_cw = camera.R.T
    ex = r_cw[:, 0]
    ey = r_cw[:, 1]
    # lean the card back a little so it is not exactly fronto-parallel
    a = math.radians(tilt_deg)
    ez = r_cw[:, 2]
    ey = math.cos(a) * ey + math.sin(a) * ez
    c = np.array([centre[0], centre[1], -height_mm])
    o = c - ex * CARD_WH_MM[0] / 2 - ey * CARD_WH_MM[1] / 2
    return Pose.of(o, ex, ey)


def _show_card(
    script: Script,
    base: Callable[[], SceneSpec],
    hands: Hands,
    camera: Camera,
    card_id: str,
    *,
    rise: float = 0.7,
    hold: float = 1.0,
    down: float = 0.5,
    on_hold: Callable[[float], None],
) -> None:
    """The card is raised towards the camera, held still, and lowered out of view."""
    target = camera.target_mm
    low = hands.away(target)
    high_h = 0.45 * camera.height_mm

    def at(pos: Vec2, h: float) -> SceneSpec:
        pose = _held_up_pose(camera, pos, h)
        card = CardSpec(card_id, "front", pose)
        hand = replace(
            hands.at(
                (CARD_WH_MM[0] / 2, CARD_WH_MM[1] - 28.0), h, gesture="pinch", holding=card_id
            ),
            plane=pose,
            angle_deg=-90.0,
            shadow=False,
        )
        spec = base()
        return replace(spec, hands=(*spec.hands, hand), held_cards=(*spec.held_cards, card))

    def rising(u: float) -> SceneSpec:
        e = _ease(u)
        return at(_lerp(low, target, e), 40.0 + (high_h - 40.0) * e)

    def lowering(u: float) -> SceneSpec:
        e = _ease(u)
        return at(_lerp(target, low, e), high_h - (high_h - 40.0) * e)

    script.add(rise, rising)
    on_hold(script.t)
    script.add(hold, lambda u: at(target, high_h))
    script.add(down, lowering)


def _seats(camera: Camera, n: int) -> list[Vec2]:
    """Seat positions (out of view), clockwise from the first seat (bottom of the view)."""
    tx, ty = camera.target_mm
    dirs = [(0.0, 1.0), (-1.0, 0.0), (0.0, -1.0), (1.0, 0.0), (-0.7, 0.7), (0.7, 0.7)]
    order = {2: [0, 2], 3: [0, 1, 3], 4: [0, 1, 2, 3], 5: [0, 4, 1, 2, 3], 6: [0, 4, 1, 2, 3, 5]}[n]
    return [(tx + 900 * dirs[i][0], ty + 700 * dirs[i][1]) for i in order]


def _spot(camera: Camera, seat: Vec2, inset_mm: float = 80.0) -> Vec2:
    """A table point in view, between the view centre and ``seat``."""
    fp = camera.footprint_mm(inset_px=40)
    c = np.array(camera.target_mm)
    d = np.array(seat) - c
    d /= max(1e-6, float(np.linalg.norm(d)))
    best = c
    for r in np.arange(0.0, 1200.0, 10.0):
        p = c + d * r
        import cv2

        if cv2.pointPolygonTest(fp.astype(np.float32), (float(p[0]), float(p[1])), True) < inset_mm:
            break
        best = p
    return (float(best[0]), float(best[1]))


# --------------------------------------------------------------------------- kinds


def _picasso_turn(
    rng: np.random.Generator, tier: str, provider: TextureProvider
) -> tuple[Script, Camera, SceneSpec]:
    players = ["A", "B", "C"]
    full = random_picasso_board(rng, tier, supply=False, n_hands=0)
    camera = full.camera
    board0 = full.board if full.board is not None else BoardSpec((0.0, 0.0))
    # a legal turn: keep the build's cost within 10 (the string, if any, comes last)
    build: list[PieceSpec] = []
    cost = 0
    strings = [p for p in board0.pieces if on_canvas(p) and isinstance(p, StringSpec)]
    budget = 10 - (PIECE_COST["string"] if strings else 0)
    for p in board0.pieces:
        c = PIECE_COST[piece_kind(p)]
        if on_canvas(p) and not isinstance(p, StringSpec) and cost + c <= budget:
            build.append(p)
            cost += c
    build.extend(strings[:1])
    deck = provider.deck("picasso")
    card_id = deck[int(rng.integers(len(deck)))].card_id
    seats = _seats(camera, len(players))
    builder = Hands(rng, seats[0])
    base_spec = replace(full, board=replace(board0, pieces=()), hands=(), held_cards=(), cards=())

    def with_pieces(pieces: tuple[PieceSpec, ...]) -> SceneSpec:
        return replace(base_spec, board=replace(board0, pieces=pieces))

    script = Script()
    script.event({"type": "start", "game": "picasso", "players": players}, 0.0)
    empty = with_pieces(())
    script.add(0.4, lambda u: empty)
    shown = Watch(script.t, held=card_id)
    _show_card(
        script,
        lambda: empty,
        builder,
        camera,
        card_id,
        on_hold=lambda t: script.event(
            {"type": "draw", "player": players[0], "card": card_id}, t, watch=shown
        ),
    )
    placed: tuple[PieceSpec, ...] = ()
    for piece in build:
        a = board0.to_table(piece_anchor(piece)[None])[0]
        target = (float(a[0]), float(a[1]))
        before = with_pieces(placed)
        _reach(script, _const(before), builder, target, duration=0.55)
        placed = (*placed, piece)
        after = with_pieces(placed)
        hand = builder.at(target, 20.0, gesture="pinch")
        placed_at = Watch(script.t, board=True)
        script.add(0.15, _const_u(replace(after, hands=(hand,))))
        _withdraw(script, _const(after), builder, target, duration=0.45)
        script.event(
            {"type": "build", "pieces": after.board.counts() if after.board else {}},
            watch=placed_at,
        )
    settled = with_pieces(placed)
    script.add(0.8, lambda u: settled)
    _show_card(
        script,
        lambda: settled,
        builder,
        camera,
        card_id,
        hold=0.8,
        down=0.01,
        on_hold=lambda t: None,
    )
    # the card goes to the guesser's place, face down
    spot = _spot(camera, seats[1])
    handed = CardSpec.flat(card_id, "back", spot, float(rng.uniform(60, 120)))
    _reach(
        script,
        lambda: settled,
        builder,
        spot,
        duration=0.8,
        carry=handed,
        start=camera.target_mm,
        end_height=14.0,
    )
    with_card = replace(settled, cards=(handed,))
    handed_at = Watch(script.t, cards=(card_id,))
    _withdraw(script, lambda: with_card, builder, spot, duration=0.5)
    script.event({"type": "guess", "player": players[1]}, watch=handed_at)
    script.add(0.4, lambda u: with_card)
    return script, camera, full


def piece_anchor(piece: PieceSpec) -> np.ndarray:
    """(2,) board mm where a hand lays the piece: its centre (the string's middle point)."""
    if isinstance(piece, StringSpec):
        line = piece.polyline_mm()
        return line[len(line) // 2]
    return np.asarray(piece.center_mm, np.float64)


def _picmix_claim(
    rng: np.random.Generator, tier: str, provider: TextureProvider
) -> tuple[Script, Camera, SceneSpec]:
    players = ["A", "B"]
    full = random_picmix_claim(
        rng, tier, correct=bool(rng.random() < 0.6), player=players[0], n_hands=0, provider=provider
    )
    camera = full.camera
    area = full.picmix_areas[0]
    row = [c for c in full.cards if c.card_id in area.card_ids]
    others = [c for c in full.cards if c.card_id not in area.card_ids]
    objective = next(c for c in others if c.face == "front")
    pile = [c for c in others if c is not objective]
    deck = {c.card_id: c for c in provider.deck("picmix")}
    seats = _seats(camera, len(players))
    player = Hands(rng, seats[0])
    base_spec = replace(full, cards=tuple(pile), hands=(), held_cards=())
    script = Script()
    script.event({"type": "start", "game": "picmix", "players": players}, 0.0)
    script.add(0.4, lambda u: base_spec)
    obj_target = (objective.pose.origin_mm[0], objective.pose.origin_mm[1])
    obj_centre = _card_centre(objective)
    carried = replace(objective, face="back")
    del obj_target
    on_table = replace(base_spec, cards=(*pile, objective))
    _lay(script, base_spec, on_table, player, carried, obj_centre, reach_s=0.7, end_height=12.0)
    script.event(
        {"type": "reveal", "card": objective.card_id, "items": list(deck[objective.card_id].items)},
        watch=Watch(script.t - 0.5, cards=(objective.card_id,)),
    )
    laid: list[CardSpec] = []
    for card in row:
        centre = _card_centre(card)
        now = replace(on_table, cards=(*pile, objective, *laid))
        laid.append(card)
        after = replace(on_table, cards=(*pile, objective, *laid), picmix_areas=full.picmix_areas)
        _lay(
            script, now, after, player, card, centre, reach_s=0.6, withdraw_s=0.45, end_height=12.0
        )
    final = replace(on_table, cards=(*pile, objective, *laid), picmix_areas=full.picmix_areas)
    script.add(0.3, lambda u: final)
    _reach(
        script, lambda: final, player, obj_centre, duration=0.5, gesture="point", end_height=10.0
    )
    visible = sorted(set(picmix_chain_visible(picmix_row_chain(row, deck))))
    script.event(
        {"type": "claim", "player": players[0], "visible": visible},
        watch=Watch(script.t, cards=(objective.card_id, *(c.card_id for c in row))),
    )
    script.add(0.3, lambda u: replace(final, hands=(player.at(obj_centre, 8.0, gesture="point"),)))
    _withdraw(script, lambda: final, player, obj_centre, duration=0.5)
    script.add(0.3, lambda u: final)
    return script, camera, full


def _card_centre(card: CardSpec) -> Vec2:
    return card.center_mm()


def _pickpic_round(
    rng: np.random.Generator,
    tier: str,
    provider: TextureProvider,
    n_players: int = 4,
    n_gives: int | None = None,
) -> tuple[Script, Camera, SceneSpec]:
    t = get_tier(tier)
    players = ["A", "B", "C", "D", "E"][:n_players]
    camera = sample_camera(
        rng, t, (0.0, 0.0), height_mm=(max(t.height_mm[0], 700.0), max(t.height_mm[1], 900.0))
    )
    base_spec = SceneSpec(
        camera=camera, table=sample_table(rng), effects=sample_effects(rng, t), tier=t.name
    )
    deck = [c.card_id for c in provider.deck("pickpic")]
    order = [deck[int(i)] for i in rng.permutation(len(deck))]
    seats = _seats(camera, n_players)
    hands = [Hands(rng, s) for s in seats]
    spots = [_spot(camera, s, inset_mm=70.0) for s in seats]
    script = Script()
    script.event({"type": "start", "game": "pickpic", "players": players}, 0.0)
    cards: list[CardSpec] = []
    script.add(0.3, lambda u: base_spec)
    for i, p in enumerate(players):
        ang = (
            math.degrees(
                math.atan2(seats[i][1] - camera.target_mm[1], seats[i][0] - camera.target_mm[0])
            )
            - 90
        )
        card = CardSpec.flat(order.pop(), "front", spots[i], ang + float(rng.uniform(-6, 6)))
        now = replace(base_spec, cards=tuple(cards))
        cards.append(card)
        after = replace(base_spec, cards=tuple(cards))
        _lay(script, now, after, hands[i], card, spots[i], reach_s=0.55, withdraw_s=0.4)
        script.event(
            {"type": "reveal", "player": p, "card": card.card_id},
            watch=Watch(script.t - 0.4, cards=(card.card_id,)),
        )
    gives = [(i, (i + k) % n_players) for k in range(1, n_players) for i in range(n_players)]
    if n_gives is not None:
        gives = gives[:n_gives]
    received = [0] * n_players
    for giver, to in gives:
        spot = np.array(spots[to])
        towards = np.array(camera.target_mm) - spot
        towards /= max(1e-6, float(np.linalg.norm(towards)))
        side = np.array([-towards[1], towards[0]])
        place = (
            spot
            + side * 80.0
            + towards * 0.0
            + side * 2.0 * received[to]
            + towards * 3.0 * received[to]
        )
        received[to] += 1
        ang = math.degrees(math.atan2(-towards[1], -towards[0])) - 90
        card = CardSpec.flat(
            order.pop(),
            "back",
            (float(place[0]), float(place[1])),
            ang + float(rng.uniform(-8, 8)),
            height_mm=0.3 * received[to],
        )
        now = replace(base_spec, cards=tuple(cards))
        cards.append(card)
        after = replace(base_spec, cards=tuple(cards))
        target = (float(place[0]), float(place[1]))
        _lay(script, now, after, hands[giver], card, target, reach_s=0.6, withdraw_s=0.4)
        script.event(
            {"type": "give", "from": players[giver], "to": players[to], "card": card.card_id},
            watch=Watch(script.t - 0.4, cards=(card.card_id,)),
        )
    final = replace(base_spec, cards=tuple(cards))
    script.add(0.3, lambda u: final)
    return script, camera, final


# --------------------------------------------------------------------------- public


class SequenceRender:
    """A rendered-on-demand sequence: ``events`` now, frames by iterating.

    Attributes:
        kind: the sequence kind.
        fps: frames per second.
        duration_s: length of the sequence, seconds.
        events: docs/formats.md events (dicts, ``start`` first, each with ``t``).
        watches: per event, what its change is (``Watch``; None for ``start`` and for what
            no camera sees settle: ``describe``, ``reject``).
        settle_frames: per event, the index of its settle frame (module docstring), filled
            in as the frames are rendered: complete once every frame has been; None for an
            event without a watch, or one that never settles in the frames.
        size_wh: the frames' size (width, height), px.
    """

    def __init__(
        self,
        kind: str,
        script: Script,
        camera: Camera,
        effects_spec: SceneSpec,
        fps: float,
        seed: int,
        provider: TextureProvider,
        size_wh: tuple[int, int] | None = None,
    ) -> None:
        self.kind = kind
        self.fps = float(fps)
        self.duration_s = script.t
        self.events = list(script.events)
        self.watches: list[Watch | None] = list(script.watches)
        if len(self.watches) != len(self.events):
            raise ValueError("every event of a script needs its watch (or None)")
        self.settle_frames: list[int | None] = [None] * len(self.events)
        self._script = script
        self._scene_camera = camera
        self._camera = camera if size_wh is None else scaled_camera(camera, size_wh)
        self.size_wh = self._camera.size_wh
        self._effects = effects_spec.effects
        self._seed = seed
        self._provider = provider

    @property
    def settle_times(self) -> list[float | None]:
        """Per event, the time (s) of its settle frame (``settle_frames``), or None."""
        return [None if i is None else round(i / self.fps, 6) for i in self.settle_frames]

    @property
    def n_frames(self) -> int:
        """Number of frames: one every 1/fps seconds from t = 0 to the end."""
        return math.floor(self.duration_s * self.fps + 1e-9) + 1

    def __len__(self) -> int:
        return self.n_frames

    def __iter__(self) -> Iterator[SequenceFrame]:
        renderer = FrameRenderer(self._camera, self._provider, self._seed)
        rng = np.random.default_rng([self._seed, 11])
        w, h = self._camera.size_wh
        bank = NoiseBank(rng, (h, w, 3)) if self._effects.noise_sigma > 0 else None
        clock = SettleClock(self.watches)
        self.settle_frames = clock.frames
        scaled = self._camera is not self._scene_camera
        for i in range(self.n_frames):
            t = i / self.fps
            spec = self._script.scene_at(t)
            if scaled:
                spec = replace(spec, camera=self._camera)
            clean, truth = renderer.render_clean(spec)
            frame = apply_effects(clean, scene_effects(spec), rng, noise=bank)
            clock.feed(i, t, truth)
            if i == self.n_frames - 1:
                clock.close()
            yield SequenceFrame(i, round(t, 6), frame, truth)


class SettleClock:
    """Finds each event's settle frame from the frames' truth, frame by frame (the module
    docstring): a frame where the event's cards and pieces are at rest and clear counts once
    the next frame shows them in the same place (or it is the last frame). ``frames``: per
    watch, the settle frame's index, or None (no watch, or not settled yet)."""

    def __init__(self, watches: list[Watch | None]) -> None:
        self.watches = watches
        self.frames: list[int | None] = [None] * len(watches)
        self._candidates: dict[int, tuple[int, list[np.ndarray]]] = {}

    def feed(self, index: int, t: float, truth: Truth) -> None:
        """Frame ``index`` at ``t`` seconds, with its truth."""
        for k, w in enumerate(self.watches):
            if w is None or self.frames[k] is not None or t < w.since_s - 1e-6:
                continue
            now = _at_rest(w, truth)
            cand = self._candidates.pop(k, None)
            if cand is not None and now is not None and _same_places(cand[1], now):
                self.frames[k] = cand[0]
                continue
            if now is not None:
                self._candidates[k] = (index, now)

    def close(self) -> None:
        """The last frame was fed: a frame at rest then is its event's settle frame."""
        for k, (index, _) in self._candidates.items():
            self.frames[k] = index
        self._candidates = {}


def _at_rest(w: Watch, truth: Truth) -> list[np.ndarray] | None:
    """The places (corners and piece outlines, px) of what ``w`` watches, when all of it is
    in this frame and clear of hands (a card held up: in its hand); None otherwise."""
    places: list[np.ndarray] = []
    by_id = {c.card_id: c for c in reversed(truth.cards)}
    for card_id in w.cards:
        c = by_id.get(card_id)
        if c is None or c.held or c.hand_fraction > 0.0 or c.in_frame_fraction <= 0.0:
            return None
        places.append(np.asarray(c.corners_px, np.float64))
    if w.held is not None:
        held = [c for c in truth.cards if c.card_id == w.held and c.held]
        if not held or held[0].in_frame_fraction <= 0.0:
            return None
        places.append(np.asarray(held[0].corners_px, np.float64))
    if w.board:
        if truth.board is None:
            return None
        for piece in truth.board.pieces:
            if not piece.on_canvas:
                continue
            if piece.hand_fraction > 0.0:
                return None
            places.append(np.asarray(piece.polygon_px, np.float64))
            places.append(np.asarray(piece.polyline_px, np.float64))
    return places


def _same_places(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    """Whether two frames show the watched things in the same place (within 0.05 px)."""
    return len(a) == len(b) and all(
        x.shape == y.shape and bool(np.allclose(x, y, atol=0.05)) for x, y in zip(a, b, strict=True)
    )


def scaled_camera(camera: Camera, size_wh: tuple[int, int]) -> Camera:
    """``camera`` giving frames of ``size_wh`` (width, height) px of the same view: its
    focal length and principal point scaled; the same shape (a 16:9 camera stays 16:9)."""
    w0, h0 = camera.size_wh
    w, h = int(size_wh[0]), int(size_wh[1])
    if w <= 0 or h <= 0 or abs(w * h0 - h * w0) > max(w0, h0):
        raise ValueError(f"size_wh must keep the camera's shape {w0}x{h0}, got {w}x{h}")
    if (w, h) == (w0, h0):
        return camera
    sx, sy = w / w0, h / h0
    k = np.array(camera.K, np.float64)
    k[0, 0] *= sx
    k[1, 1] *= sy
    # pixel centres at integers: the centre of pixel (0, 0) is at 0.5 px of the image's edge
    k[0, 2] = (k[0, 2] + 0.5) * sx - 0.5
    k[1, 2] = (k[1, 2] + 0.5) * sy - 0.5
    return replace(camera, K=k, size_wh=(w, h))


def render_sequence(
    kind: str,
    seed: int,
    tier: str = "normal",
    fps: float = 10.0,
    *,
    provider: TextureProvider | None = None,
    n_gives: int | None = 4,
    n_players: int | None = None,
    n_rounds: int | None = None,
    out_of_turn: float = 0.0,
    size_wh: tuple[int, int] | None = None,
) -> SequenceRender:
    """A short sequence of a whole game turn with the events that happened.

    Args:
        kind: ``picasso_turn``, ``picmix_claim`` or ``pickpic_round``.
        seed: everything (layout, camera, noise) follows from it.
        tier: ``easy``, ``normal`` or ``hard``.
        fps: frames per second.
        provider: card art; ``default_provider()`` when None.
        n_gives: ``pickpic_round`` only: how many ``give``s of the first round to show
            (None: whole rounds, with random cards and rankings).
        n_players: ``pickpic_round`` (default 4) and ``picflip_game`` (default 3).
        n_rounds: ``pickpic_round`` with ``n_gives=None`` (default 1) and
            ``pickpic_session`` (default 2): rounds in the session.
        out_of_turn: Pick Pic: share of the gives made before the assistant calls them.
        size_wh: the frames' size (None: the camera's, 1280x720); another size of the same
            shape renders the same scene through the same lens (``scaled_camera``).

    Returns:
        a ``SequenceRender``: ``.events`` (list of dicts) and, by iterating,
        ``SequenceFrame``s with per-frame truth.
    """
    if kind not in SEQUENCE_KINDS:
        raise ValueError(f"unknown sequence kind {kind!r}; expected one of {list(SEQUENCE_KINDS)}")
    if fps <= 0:
        raise ValueError(f"fps must be > 0, got {fps}")
    provider = provider or default_provider()
    rng = np.random.default_rng([int(seed), 3])
    get_tier(tier)
    if kind == "picasso_turn":
        script, camera, spec = _picasso_turn(rng, tier, provider)
    elif kind == "picmix_claim":
        script, camera, spec = _picmix_claim(rng, tier, provider)
    elif kind == "picflip_game":
        from vision.synth.games import picflip_game

        script, camera, spec = picflip_game(rng, tier, provider, n_players=n_players or 3)
    elif kind == "pickpic_session":
        from vision.synth.games import pickpic_session

        script, camera, spec = pickpic_session(
            rng,
            tier,
            provider,
            n_players=n_players or 4,
            n_rounds=2 if n_rounds is None else n_rounds,
            out_of_turn=out_of_turn,
        )
    elif n_gives is not None and n_players is None:
        # the short round this kind always gave (kept bit for bit for existing users)
        script, camera, spec = _pickpic_round(rng, tier, provider, n_gives=n_gives)
    else:
        from vision.synth.games import pickpic_session

        script, camera, spec = pickpic_session(
            rng,
            tier,
            provider,
            n_players=n_players or 4,
            n_rounds=1 if n_rounds is None else n_rounds,
            n_gives=n_gives,
            out_of_turn=out_of_turn,
        )
    return SequenceRender(kind, script, camera, spec, fps, int(seed), provider, size_wh)


def piece_counts(pieces: tuple[PieceSpec, ...]) -> dict[str, int]:
    """Pieces on the canvas by kind."""
    out = {"long_stick": 0, "short_stick": 0, "shape": 0, "string": 0}
    for p in pieces:
        if on_canvas(p):
            out[piece_kind(p)] += 1
    return out
