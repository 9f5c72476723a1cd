"""Picmix claims drawn by the independent card drawer (``pictable.bench.drawers.cards``:
plain OpenCV from KIT.md, not ``vision.synth``), for ``pictable.bench.readers.picmix``.

A claim (``draw_claim``): one player set's 2 to 4 cards in a row across the lower part of
the view, each laid over the half of the one before (KIT.md: a card laid over half of
another hides that half's item), some turned half round, any face up; the objective card
face up above them with a card of the objective pile face down beside it; the table,
markers, hands and camera of the card drawer's tiers. On half the claims the row shows
exactly the objective's items. The truth (``claim_truth``) is measured on the drawing: each
card half's visible share, the items that show (at least ``ITEM_SHOWS_MIN`` of their
half), in the keys the Picmix benchmark reads.

    .venv/bin/python -m pictable.bench.drawers.cards --kit EXPORT_DIR --kind claim --n 4 --out DIR
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pictable.bench.drawers.card_room import scene_look
from pictable.bench.drawers.cards import (
    CARD_WH_MM,
    FRAME_WH,
    PICMIX_PLAYER_WH_MM,
    Art,
    CardScene,
    _face,
    _in_frame,
    _overlap,
    _rect_mm,
    _Scene,
)

#: Claim ``i`` of a run with seed ``s`` is drawn from ``s * SEED_STRIDE + i`` (as the
#: project's claims), from the stream ``default_rng([seed, CLAIM_STREAM])``.
SEED_STRIDE = 1_000_003
CLAIM_STREAM = 52
#: An item shows when at least this share of its card half does (KIT.md: a card laid over
#: half of another hides that half's item).
ITEM_SHOWS_MIN = 0.5


def _chains(
    art: Art, cards: Sequence[str], k: int
) -> list[tuple[tuple[tuple[str, str, bool], ...], frozenset[str]]]:
    """Every row of ``k`` of ``cards`` (card, side up, turned half round), each laid over
    the half of the one before that lies ahead along the row, with the items it shows: one
    of each card's but the last's (the left as printed, the right when turned), both of the
    last's."""
    faces = {(c, s): art.items(c, s) for c in cards for s in ("front", "back")}
    out = []
    for row in itertools.permutations(cards, k):
        for sides in itertools.product(("front", "back"), repeat=k):
            for turned in itertools.product((False, True), repeat=k):
                shown = {
                    faces[c, s][1 if t else 0]
                    for c, s, t in zip(row[:-1], sides, turned, strict=False)
                }
                shown |= set(faces[row[-1], sides[-1]])
                out.append((tuple(zip(row, sides, turned, strict=True)), frozenset(shown)))
    return out


def draw_claim(
    seed: int,
    tier: str,
    art: Art,
    *,
    correct: bool | None = None,
    n_hands: int | None = None,
    looks: str | None = None,
) -> CardScene:
    """A Picmix claim drawn from ``seed``: one player set's 2-4 cards in a row across the
    lower part of the view (each laid over the half of the one before, some turned half
    round), the objective card face up above them with a card of the pile face down beside
    it, markers on 60% of the scenes, the tier's hands (or ``n_hands``) over the cards. The
    row shows exactly the objective's items on half the claims (or as ``correct`` says),
    in a look of the group ``looks`` (``card_room.CARD_LOOKS``; None: the default look).
    ``CardScene.area`` holds the row's cards; ``claim_truth`` the truth as the Picmix
    benchmark reads it."""
    rng = np.random.default_rng([seed, CLAIM_STREAM])
    s = _Scene(rng, tier, None, None, scene_look(seed, looks))
    ids = list(art.ids("picmix"))
    players = [c for c in ids if art.items(c, "back")]
    objectives = [c for c in ids if c not in players and len(art.items(c, "front")) >= 3]
    colours = sorted({c.rsplit("-", 1)[0] for c in players})
    colour = colours[int(rng.integers(len(colours)))]
    mine = [c for c in players if c.rsplit("-", 1)[0] == colour]
    want = bool(rng.random() < 0.5) if correct is None else correct
    chain = objective = None
    if want:
        for oi in rng.permutation(len(objectives)):
            items = frozenset(art.items(objectives[int(oi)], "front"))
            options = [ch for ch, shown in _chains(art, mine, len(items) - 1) if shown == items]
            if options:
                chain, objective = options[int(rng.integers(len(options)))], objectives[int(oi)]
                break
    if chain is None or objective is None:
        options_k = _chains(art, mine, int(rng.integers(2, 5)))
        chain, shown = options_k[int(rng.integers(len(options_k)))]
        others = [o for o in objectives if frozenset(art.items(o, "front")) != shown]
        objective = others[int(rng.integers(len(others)))]
    pile = [o for o in objectives if o != objective][int(rng.integers(len(objectives) - 1))]
    w, h = FRAME_WH
    cam = s.cam
    step = PICMIX_PLAYER_WH_MM[0] / 2
    layout = None
    for _ in range(80):
        c = cam.mm(np.array([[rng.uniform(0.3, 0.7) * w, rng.uniform(0.55, 0.75) * h]]))[0]
        ahead = cam.mm(cam.px(c[None]) + np.array([[1.0, 0.0]]))[0] - c
        angle = math.degrees(math.atan2(ahead[1], ahead[0])) + rng.uniform(-20, 20)
        along = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
        k = len(chain)
        row = [
            _rect_mm(
                c + along * (step * (i - (k - 1) / 2) + rng.uniform(-1, 1)),
                angle + 180 * t + rng.uniform(-2, 2),
                PICMIX_PLAYER_WH_MM,
            )
            for i, (_, _, t) in enumerate(chain)
        ]
        oc = cam.mm(np.array([[rng.uniform(0.3, 0.7) * w, rng.uniform(0.15, 0.35) * h]]))[0]
        obj = _rect_mm(oc, angle + rng.uniform(-12, 12), CARD_WH_MM)
        side = 1 if rng.random() < 0.5 else -1
        pq = _rect_mm(
            oc + side * along * rng.uniform(80, 95), angle + rng.uniform(-8, 8), CARD_WH_MM
        )
        quads = [pq, obj, *row]
        if not all(_in_frame(cam.px(q), 6) for q in quads):
            continue
        if any(_overlap(q, p) > 0 for q in quads for p in s.papers):
            continue
        if any(
            _overlap(a, b) > 0
            for a in (pq, obj)
            for b in [*row, *(x for x in (pq, obj) if x is not a)]
        ):
            continue
        layout = quads
        break
    if layout is None:
        return draw_claim(seed + 7_919, tier, art, correct=correct, n_hands=n_hands)
    s.lay(pile, "back", _face(art, pile, "back"), layout[0])
    s.lay(objective, "front", _face(art, objective, "front"), layout[1])
    for (card, side_up, _), quad in zip(chain, layout[2:], strict=True):
        s.lay(card, side_up, _face(art, card, side_up), quad)
    frame, hands, look = s.finish(n_hands, targets=list(range(1, len(s.laid))))
    look["correct"] = want
    area = tuple(card for card, _, _ in chain)
    return CardScene(
        frame,
        s.truth(art.items),
        "claim",
        tier,
        seed,
        tuple(hands),
        tuple(s.marker_ids),
        look,
        area,
    )


def claim_truth(scene: CardScene) -> dict[str, Any]:
    """A claim's truth as ``pictable.bench.readers.picmix`` reads it (the project's
    ``Truth.to_json()`` keys it uses): ``cards`` (``items`` on the objective face up,
    fractions), ``picmix_areas`` (the player's cards, each half's item and visible
    fraction, the items that show: at least ``ITEM_SHOWS_MIN`` of their half), ``hands``."""
    out = scene.truth_json()
    halves = [(c.card_id, *h) for c in scene.cards if c.card_id in scene.area for h in c.halves]
    items = [
        {"item": item, "card_id": card, "half": half, "visible_fraction": v}
        for card, half, item, v in halves
    ]
    out["picmix_areas"] = [
        {
            "player": "A",
            "card_ids": list(scene.area),
            "items": items,
            "visible_items": sorted({it for _, _, it, v in halves if v >= ITEM_SHOWS_MIN}),
        }
    ]
    return out


def claim_scene(
    tier: str, seed: int, i: int, art: Art, looks: str | None = None
) -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """Claim ``i`` of a run (drawn from ``seed * SEED_STRIDE + i``) in a look of the group
    ``looks``: (frame, truth JSON), as ``vision.synth.picmix_claims.claim_scene`` gives
    them."""
    scene = draw_claim(seed * SEED_STRIDE + i, tier, art, looks=looks)
    return scene.frame, claim_truth(scene)
