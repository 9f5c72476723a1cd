"""Whole Pick Pic and Pic Flip sessions for the synthetic camera (scripts of timed beats).

Used by ``vision.synth.sequences.render_sequence`` (kinds ``pickpic_round`` and
``picflip_game``); the helpers (``Script``, ``Hands``, reaching and withdrawing hands) live
there. Every event is stamped when its evidence is complete and unoccluded (the hand that
laid the card has left it), and watches the cards it is about from the moment the last of
them is let go (``sequences.Watch``: the render finds its settle frame); ``describe`` (spoken)
and ``reject`` (voted) watch nothing.

Seats are spread evenly round the table, the first at the bottom of the view, the others
clockwise as seen from above (docs/formats.md 1); the camera's yaw turns them in the image.
The camera is the tier's, drawn again while the cards at the far places would look
narrower than ``MIN_CARD_PX`` (the tier's card sizes).

Pick Pic (one session, ``n_rounds`` rounds):

- **reveal**: in seating order each player lays a photo face up in front of them, near the
  edge of the view on their side.
- **give**: in the order the assistant calls them (``engine.pickpic.give_calls``) the
  players lay cards face down beside the receiver's photo, fanned so that each covers about
  two thirds of the one below.
- **random**: each player adds a face-down card to their own stack.
- **rank**: one player after the other picks up their stack and lays it face up, closest
  first, at increasing distance from their photo (at least ``RANK_GAP_MM`` further each
  time, in free table space); once the row is complete and the hand gone, ``rank``. The row
  is evaluated (``EVALUATE_S``), then it and the photo are cleared away, which frees the
  table for the next player.

Pic Flip (one game; ``hands`` option of 3-5 cards each so that a game ends): a lead, each
described (``describe`` with a phrase), then plays laid on the pile in the middle by the
players' hands from their side, turned and shifted so that each covers most of the one
below; some plays are rejected (``reject``) and the card is taken back. The game ends when a
player lays their last card.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from engine.pickpic import give_calls
from vision.synth.camera import Camera
from vision.synth.spec import CardSpec, SceneSpec
from vision.synth.textures import CARD_WH_MM, TextureProvider
from vision.synth.tiers import get_tier, sample_camera, sample_effects, sample_table

Vec2 = tuple[float, float]

PLAYERS = ["A", "B", "C", "D", "E", "F"]
RANK_GAP_MM = 45.0
"""Each card of a ranking row lies at least this much further from the photo than the last."""
PAUSE_S = 0.3
"""Stillness after each laid card before the next hand comes in."""
EVALUATE_S = 1.2
"""A ranking row stays this long after it is complete: the row is evaluated, card by card."""
PHRASES = ("red", "it has wheels", "salty", "round", "in the sky", "noisy", "soft", "old")


def seat_positions(camera: Camera, n: int) -> list[Vec2]:
    """Seats (out of view) spread evenly round the table, the first at the bottom of the view
    (towards +y) and the others clockwise as seen from above (increasing angle, y down)."""
    tx, ty = camera.target_mm
    out = []
    for i in range(n):
        a = math.radians(90.0 + 360.0 * i / n)
        out.append((tx + 900.0 * math.cos(a), ty + 700.0 * math.sin(a)))
    return out


def _facing(camera: Camera, seat: Vec2) -> float:
    """The angle (deg) of a card lying upright for the player at ``seat``."""
    tx, ty = camera.target_mm
    return math.degrees(math.atan2(seat[1] - ty, seat[0] - tx)) - 90.0


def _rect(center: Vec2, angle_deg: float, grow_mm: float = 0.0) -> np.ndarray:
    w, h = CARD_WH_MM[0] + 2 * grow_mm, CARD_WH_MM[1] + 2 * grow_mm
    a = math.radians(angle_deg)
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    loc = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return loc @ r.T + np.asarray(center)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two convex quadrilaterals (4, 2) overlap (separating axis test)."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


def _in_view(camera: Camera, quad: np.ndarray, inset_px: float = 30.0) -> bool:
    fp = camera.footprint_mm(inset_px=inset_px).astype(np.float32)
    return all(cv2.pointPolygonTest(fp, (float(x), float(y)), False) > 0 for x, y in quad)


def _edge_spot(camera: Camera, seat: Vec2, inset_px: float = 40.0) -> Vec2:
    """The furthest point from the view centre towards ``seat`` where a card facing the seat
    still lies wholly in view."""
    c = np.array(camera.target_mm)
    d = np.array(seat) - c
    d /= max(1e-6, float(np.linalg.norm(d)))
    ang = _facing(camera, seat)
    best = c
    for r in np.arange(0.0, 1200.0, 10.0):
        p = c + d * r
        if not _in_view(camera, _rect((float(p[0]), float(p[1])), ang, 6.0), inset_px):
            break
        best = p
    return (float(best[0]), float(best[1]))


#: the narrowest a card may look (px) at the places where a session lays cards, by tier:
#: the tiers' cards are about 70-100 px wide on normal (docs/synth.md); a camera so high
#: and tilted that the far places fall under this is drawn again
MIN_CARD_PX = {"easy": 65.0, "normal": 60.0, "hard": 45.0}


def _session_camera(rng: np.random.Generator, tier: str, n_players: int) -> Camera:
    """A camera of ``tier`` over the table centre whose cards look wide enough all round."""
    t = get_tier(tier)
    least = MIN_CARD_PX.get(t.name, 0.0)
    camera = sample_camera(rng, t, (0.0, 0.0))
    for _ in range(50):
        seats = seat_positions(camera, n_players)
        spots = [_edge_spot(camera, s) for s in seats]
        widths = [CARD_WH_MM[0] / camera.mm_per_px(p) for p in spots]
        if min(widths) >= least:
            break
        camera = sample_camera(rng, t, (0.0, 0.0))
    return camera


def _scene_cards(base: SceneSpec, cards: list[CardSpec]) -> SceneSpec:
    return replace(base, cards=tuple(cards))


# --------------------------------------------------------------------------- Pick Pic


def pickpic_session(
    rng: np.random.Generator,
    tier: str,
    provider: TextureProvider,
    *,
    n_players: int = 4,
    n_rounds: int = 1,
    n_gives: int | None = None,
    out_of_turn: float = 0.0,
) -> tuple[Any, Camera, SceneSpec]:
    """A Pick Pic session script (see the module docstring). ``n_gives`` stops the first
    round after that many gives (no random cards, no rankings). ``out_of_turn``: the share
    of gives made before their call (swapped with a later call to another receiver), as
    when players do not wait for the assistant."""
    from vision.synth.sequences import Hands, Script, Watch, _carry_away, _const, _lay, _reach

    if not 3 <= n_players <= 5:
        raise ValueError(f"Pick Pic is for 3 to 5 players, got {n_players}")
    if n_rounds < 1:
        raise ValueError(f"n_rounds must be >= 1, got {n_rounds}")
    t = get_tier(tier)
    players = PLAYERS[:n_players]
    camera = _session_camera(rng, tier, n_players)
    base = SceneSpec(
        camera=camera, table=sample_table(rng), effects=sample_effects(rng, t), tier=t.name
    )
    deck = [c.card_id for c in provider.deck("pickpic")]
    order = [deck[int(i)] for i in rng.permutation(len(deck))]
    seats = seat_positions(camera, n_players)
    hands = [Hands(rng, s) for s in seats]
    facing = [_facing(camera, s) for s in seats]
    spots = [_edge_spot(camera, s) for s in seats]
    script = Script()
    script.event({"type": "start", "game": "pickpic", "players": players}, 0.0)
    script.add(0.3, lambda u: base)
    table: list[CardSpec] = []
    let_go = [0.0]  # when the last card laid was let go (s)

    def lay(who: int, card: CardSpec, *, pause: float = PAUSE_S) -> None:
        """``who``'s hand brings ``card`` in and lays it; the table then stays still."""
        before = _scene_cards(base, table)
        table.append(card)
        after = _scene_cards(base, table)
        _lay(
            script, before, after, hands[who], card, card.center_mm(), reach_s=0.55, withdraw_s=0.4
        )
        let_go[0] = script.t - 0.4
        script.add(pause, lambda u: after)

    def laid(*cards: CardSpec) -> Watch:
        return Watch(let_go[0], cards=tuple(c.card_id for c in cards))

    def pick_up(who: int, cards: list[CardSpec]) -> None:
        """``who``'s hand takes ``cards`` off the table (carrying the top one away)."""
        centre = tuple(np.mean([c.center_mm() for c in cards], axis=0))
        target = (float(centre[0]), float(centre[1]))
        before = _scene_cards(base, table)
        _reach(
            script,
            _const(before),
            hands[who],
            target,
            duration=0.5,
            gesture="open",
            end_height=12.0,
        )
        for c in cards:
            table.remove(c)
        after = _scene_cards(base, table)
        carried = replace(cards[-1], face="back")
        _carry_away(script, after, hands[who], carried, target, height=12.0)
        script.add(PAUSE_S, lambda u: after)

    for rnd in range(n_rounds):
        # reveal, in seating order
        refs: list[CardSpec] = []
        for i, p in enumerate(players):
            ref = CardSpec.flat(
                order.pop(), "front", spots[i], facing[i] + float(rng.uniform(-6, 6))
            )
            lay(i, ref)
            refs.append(ref)
            script.event(
                {"type": "reveal", "player": p, "card": ref.card_id},
                script.t - PAUSE_S,
                watch=laid(ref),
            )
        # give, in the called order; each stack fans out to the receiver's left
        stacks: list[list[CardSpec]] = [[] for _ in players]
        calls = give_calls(players)
        if n_gives is not None and rnd == 0:
            calls = calls[:n_gives]
        if out_of_turn > 0:
            calls = _out_of_turn(calls, out_of_turn, rng)
        fans = [
            _stack_fan(camera, spots[i], facing[i], len(calls) // n_players + 1)
            for i in range(n_players)
        ]

        def stack_card(
            to: int,
            card_id: str,
            stacks: list[list[CardSpec]] = stacks,
            fans: list[tuple[float, float]] = fans,
        ) -> CardSpec:
            k = len(stacks[to])
            p = _fan_place(spots[to], facing[to], fans[to], k)
            return CardSpec.flat(
                card_id,
                "back",
                (float(p[0]), float(p[1])),
                facing[to] + float(rng.uniform(-7, 7)),
                height_mm=0.3 * (k + 1),
            )

        for giver_name, to_name in calls:
            g, r = players.index(giver_name), players.index(to_name)
            card = stack_card(r, order.pop())
            lay(g, card)
            stacks[r].append(card)
            script.event(
                {"type": "give", "from": giver_name, "to": to_name, "card": card.card_id},
                script.t - PAUSE_S,
                watch=laid(card),
            )
        if n_gives is not None and rnd == 0:
            break
        # random cards: each player adds one to their own stack
        randoms: list[str] = []
        for i, p in enumerate(players):
            card = stack_card(i, order.pop())
            lay(i, card)
            stacks[i].append(card)
            randoms.append(card.card_id)
            script.event(
                {"type": "random", "to": p, "card": card.card_id},
                script.t - PAUSE_S,
                watch=laid(card),
            )
        # rankings, one player after the other
        for i, p in enumerate(players):
            ranking = [stacks[i][int(k)] for k in rng.permutation(len(stacks[i]))]
            pick_up(i, stacks[i])
            places = _rank_places(camera, refs[i], facing[i], len(ranking), table, rng)
            row: list[CardSpec] = []
            for card, (pos, ang) in zip(ranking, places, strict=True):
                face_up = CardSpec.flat(card.card_id, "front", pos, ang)
                lay(i, face_up, pause=0.1)
                row.append(face_up)
            script.add(PAUSE_S, _const_scene(_scene_cards(base, table)))
            script.event(
                {"type": "rank", "player": p, "order": [c.card_id for c in ranking]},
                script.t - PAUSE_S,
                watch=laid(*row),
            )
            # the row is evaluated (players point at cards, claim theirs) before it goes
            script.add(EVALUATE_S, _const_scene(_scene_cards(base, table)))
            pick_up(i, [refs[i], *row])
    final = _scene_cards(base, table)
    script.add(0.3, lambda u: final)
    return script, camera, final


def _out_of_turn(
    calls: list[tuple[str, str]], share: float, rng: np.random.Generator
) -> list[tuple[str, str]]:
    """``calls`` with about ``share`` of them made early: each swapped with a later call to
    another receiver."""
    calls = list(calls)
    for k in range(len(calls)):
        if rng.random() >= share:
            continue
        later = [j for j in range(k + 1, len(calls)) if calls[j][1] != calls[k][1]]
        if later:
            j = later[int(rng.integers(len(later)))]
            calls[k], calls[j] = calls[j], calls[k]
    return calls


def _const_scene(spec: SceneSpec) -> Callable[[float], SceneSpec]:
    return lambda u: spec


def _fan_place(spot: Vec2, facing_deg: float, fan: tuple[float, float], k: int) -> np.ndarray:
    """(2,) table mm of the ``k``-th card of a fanned stack beside the photo at ``spot``:
    ``fan`` is (side +1/-1, how far in towards the table centre, mm)."""
    side, inward = fan
    a = math.radians(facing_deg)
    ex = np.array([math.cos(a), math.sin(a)])
    ey = np.array([-math.sin(a), math.cos(a)])  # towards the player
    return np.array(spot) + side * ex * (80.0 + 21.0 * k) + ey * (3.0 * k - inward)


def _stack_fan(camera: Camera, spot: Vec2, facing_deg: float, n_cards: int) -> tuple[float, float]:
    """Where a fanned stack of ``n_cards`` beside the photo stays wholly in view: a side
    (+1 or -1) and a shift in towards the table centre (mm, the least that fits)."""
    for inward in np.arange(0.0, 400.0, 15.0):
        for side in (1.0, -1.0):
            fan = (side, float(inward))
            quads = [
                _rect(tuple(_fan_place(spot, facing_deg, fan, k)), facing_deg, 8.0)
                for k in range(n_cards)
            ]
            if all(_in_view(camera, q, 20.0) for q in quads):
                return fan
    return (1.0, 0.0)


def _rank_places(
    camera: Camera,
    ref: CardSpec,
    facing_deg: float,
    n: int,
    table: list[CardSpec],
    rng: np.random.Generator,
) -> list[tuple[Vec2, float]]:
    """Places (centre, angle) for a ranking row of ``n`` cards: each free, in view, at least
    ``RANK_GAP_MM`` further from the photo than the last (the nearest such place)."""
    fp = camera.footprint_mm(inset_px=30.0)
    lo, hi = fp.min(axis=0), fp.max(axis=0)
    xs, ys = np.meshgrid(np.arange(lo[0], hi[0], 15.0), np.arange(lo[1], hi[1], 15.0))
    cand = np.stack([xs.ravel(), ys.ravel()], 1)
    rc = np.array(ref.center_mm())
    dist = np.linalg.norm(cand - rc, axis=1)
    idx = np.argsort(dist)
    taken = [_rect(c.center_mm(), _angle_of(c), 5.0) for c in table]
    out: list[tuple[Vec2, float]] = []
    last = 0.0
    for _ in range(n):
        placed = False
        for j in idx:
            if dist[j] < last + RANK_GAP_MM:
                continue
            ang = facing_deg + float(rng.uniform(-8, 8))
            pos = (float(cand[j, 0]), float(cand[j, 1]))
            quad = _rect(pos, ang, 5.0)
            if any(_overlap(quad, q) for q in taken) or not _in_view(camera, quad[:, :], 30.0):
                continue
            taken.append(quad)
            out.append((pos, ang))
            last = float(dist[j])
            placed = True
            break
        if not placed:
            raise ValueError("no free table space for the ranking row")
    return out


def _angle_of(card: CardSpec) -> float:
    ex = card.pose.ex
    return math.degrees(math.atan2(ex[1], ex[0]))


# --------------------------------------------------------------------------- Pic Flip


def picflip_game(
    rng: np.random.Generator,
    tier: str,
    provider: TextureProvider,
    *,
    n_players: int = 3,
    reject_share: float = 0.2,
) -> tuple[Any, Camera, SceneSpec]:
    """A whole Pic Flip game with 3-5 cards per player (the ``hands`` option)."""
    from vision.synth.sequences import Hands, Script, Watch, _carry_away, _const, _lay, _reach

    if not 2 <= n_players <= 6:
        raise ValueError(f"Pic Flip is for 2 to 6 players, got {n_players}")
    t = get_tier(tier)
    players = PLAYERS[:n_players]
    camera = _session_camera(rng, tier, n_players)
    base = SceneSpec(
        camera=camera, table=sample_table(rng), effects=sample_effects(rng, t), tier=t.name
    )
    deck = [c.card_id for c in provider.deck("picflip") if "cover" not in c.card_id]
    order = [deck[int(i)] for i in rng.permutation(len(deck))]
    left = {p: int(rng.integers(3, 6)) for p in players}
    decks = {p: [order.pop() for _ in range(left[p])] for p in players}
    seats = seat_positions(camera, n_players)
    hands = [Hands(rng, s) for s in seats]
    script = Script()
    script.event({"type": "start", "game": "picflip", "players": players, "hands": dict(left)}, 0.0)
    script.add(0.3, lambda u: base)
    pile: list[CardSpec] = []
    centre = camera.target_mm
    let_go = [0.0]  # when the last card laid was let go (s)

    def lay(who: int, card_id: str) -> CardSpec:
        off = rng.normal(0.0, 9.0, 2)
        pos = (centre[0] + float(off[0]), centre[1] + float(off[1]))
        ang = _facing(camera, seats[who]) + float(rng.uniform(-30, 30))
        card = CardSpec.flat(card_id, "front", pos, ang, height_mm=0.3 * (len(pile) + 1))
        before = _scene_cards(base, pile)
        pile.append(card)
        after = _scene_cards(base, pile)
        _lay(script, before, after, hands[who], card, pos, reach_s=0.5, withdraw_s=0.35)
        let_go[0] = script.t - 0.35
        script.add(PAUSE_S, lambda u: after)
        return card

    def countdown() -> None:
        still = _scene_cards(base, pile)
        script.add(float(rng.uniform(1.5, 2.5)), lambda u: still)

    first = int(rng.integers(n_players))
    card = lay(first, decks[players[first]].pop())
    left[players[first]] -= 1
    script.event(
        {"type": "lead", "player": players[first], "card": card.card_id},
        script.t - PAUSE_S,
        watch=Watch(let_go[0], cards=(card.card_id,)),
    )
    top = first
    while True:
        script.event(
            {
                "type": "describe",
                "player": players[top],
                "phrase": PHRASES[int(rng.integers(len(PHRASES)))],
            },
            script.t,
        )
        countdown()
        while True:
            able = [i for i, p in enumerate(players) if left[p] > 0]
            who = able[int(rng.integers(len(able)))]
            card = lay(who, decks[players[who]].pop())
            left[players[who]] -= 1
            script.event(
                {"type": "play", "player": players[who], "card": card.card_id},
                script.t - PAUSE_S,
                watch=Watch(let_go[0], cards=(card.card_id,)),
            )
            if rng.random() >= reject_share:
                break
            # the table rules it no match: the card goes back to its player's deck
            script.add(0.4, _const_scene(_scene_cards(base, pile)))
            script.event({"type": "reject"}, script.t)
            left[players[who]] += 1
            decks[players[who]].insert(0, card.card_id)
            pile.pop()
            before = _scene_cards(base, [*pile, card])
            _reach(
                script,
                _const(before),
                hands[who],
                card.center_mm(),
                duration=0.5,
                gesture="pinch",
                end_height=10.0,
            )
            after = _scene_cards(base, pile)
            _carry_away(script, after, hands[who], card, card.center_mm(), height=10.0)
            countdown()
        top = who
        if left[players[who]] == 0:
            break
    final = _scene_cards(base, pile)
    script.add(0.6, lambda u: final)
    return script, camera, final
