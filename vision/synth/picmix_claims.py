"""Rendered Picmix claims with their truth, for the benchmark and the tests alike.

``claim_scene(tier, seed, i)`` is claim ``i`` of ``(tier, seed)``: a
``vision.synth.random_picmix_claim`` scene rendered with seed ``seed * SEED_STRIDE + i`` (the
scheme of ``pictable bench``), kept as PNG + truth JSON under
``cache/picmix-bench/<tier>-seed<seed>/`` (git-ignored), so a second use reads it back. The
rest reads a claim's truth (``Truth.to_json()``): its verdict (``truth_of``: the player's
``visible_items`` equal the objective's items, or not), whether a hand or arm puts its cards
beyond any camera's sight, and which item is printed at a point.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

SEED_STRIDE = 1_000_003


def _cache_root() -> Path:
    """``cache/picmix-bench`` in the repository's root folder."""
    return Path(__file__).resolve().parents[2] / "cache" / "picmix-bench"


def claim_scene(
    tier: str,
    seed: int,
    i: int,
    cache: Path | None = None,
    *,
    new_art: bool = False,
    looks: str | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Rendered claim ``i`` of ``(tier, seed)``: the frame (720, 1280, 3) uint8 BGR and the
    truth as JSON (``Truth.to_json()``), from ``cache`` when it is there. ``new_art``: the
    deck drawn with art the model never saw (``vision.picmix.newart``); ``looks``: the cards
    and the room in a look of that group (``vision.synth.card_looks``: ``dev``, ``held``;
    None or ``kit``: the kit look)."""
    name = f"{'newart-' if new_art else ''}{tier}-seed{seed}"
    if looks not in (None, "kit"):
        name += f"-{looks}"
    folder = (cache or _cache_root()) / name
    png, js = folder / f"{i:04d}.png", folder / f"{i:04d}.json"
    if png.is_file() and js.is_file():
        frame = cv2.imread(str(png), cv2.IMREAD_COLOR)
        if frame is not None:
            return frame, json.loads(js.read_text(encoding="utf-8"))
    from vision.synth import card_look, random_picmix_claim, render_scene

    provider = None
    if new_art:
        from vision.picmix.newart import NewArtTextures

        provider = NewArtTextures()
    s = seed * SEED_STRIDE + i
    look = card_look(s, looks)
    spec = random_picmix_claim(np.random.default_rng(s), tier, provider=provider, look=look)
    frame, truth = render_scene(spec, seed=s, provider=provider)
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(png), frame)
    js.write_text(json.dumps(truth.to_json()), encoding="utf-8")
    return frame, truth.to_json()


def render_claims(tier: str, n: int, seed: int, start: int = 0) -> None:
    """Render (or find) claims ``start..n-1`` of ``(tier, seed)`` into the cache."""
    for i in range(start, n):
        claim_scene(tier, seed, i)


def truth_of(truth: dict[str, Any]) -> tuple[set[str], set[str], str]:
    """(visible items, objective items, verdict) of a claim's truth."""
    area = truth["picmix_areas"][0]
    visible = set(area["visible_items"])
    objective = next(set(c["items"]) for c in truth["cards"] if c.get("items"))
    return visible, objective, "correct" if visible == objective else "wrong"


HAND_OVER_OBJECTIVE = 0.5
"""A claim's objective card counts as under a hand when the truth says at least this share
of it is covered by one (its code and most of its items are then out of sight)."""


def objective_under_hand(truth: dict[str, Any]) -> bool:
    """Whether a hand covers at least ``HAND_OVER_OBJECTIVE`` of the objective card."""
    obj = next((c for c in truth["cards"] if c.get("items")), None)
    return obj is not None and float(obj.get("hand_fraction", 0.0)) >= HAND_OVER_OBJECTIVE


CARD_UNDER_HAND = 0.25
"""A claim's card counts as under a hand when the truth says at least this share of it is."""


def cards_under_hand(truth: dict[str, Any]) -> bool:
    """Whether a hand covers at least ``CARD_UNDER_HAND`` of the objective card or of one of
    the player's cards."""
    area = set(truth["picmix_areas"][0]["card_ids"])
    return any(
        float(c.get("hand_fraction", 0.0)) >= CARD_UNDER_HAND
        for c in truth["cards"]
        if c["card_id"] in area or c.get("items")
    )


OBJECTIVE_SEEN_MIN = 0.25
"""With less than this share of the objective card in view (truth), neither its code (its two
markers sit at opposite corners) nor enough of its items can be seen."""


def objective_hidden(truth: dict[str, Any]) -> bool:
    """Whether less than ``OBJECTIVE_SEEN_MIN`` of the objective card is in view: no camera
    could read it."""
    obj = next((c for c in truth["cards"] if c.get("items")), None)
    return obj is not None and float(obj.get("visible_fraction", 1.0)) < OBJECTIVE_SEEN_MIN


PLAYER_SEEN_MIN = 0.3
"""With less than this share of each card half of the player's in view (truth), no item of
theirs can be seen (their cards lie under an arm): the claim shows nothing to judge."""


def player_items_hidden(truth: dict[str, Any]) -> bool:
    """Whether every card half of the claim's player has less than ``PLAYER_SEEN_MIN`` of it
    in view: no camera could see their cards' items."""
    halves = truth["picmix_areas"][0]["items"]
    return all(float(x["visible_fraction"]) < PLAYER_SEEN_MIN for x in halves)


def truth_item_at(
    truth: dict[str, Any], pt: tuple[float, float], deck_cards: dict[str, Any]
) -> tuple[str, str, float] | None:
    """(item, "player" | "objective", visible fraction) printed where point ``pt`` (px) lies
    on the topmost card of a claim's truth, or None (not on an item's box). Kit layout:
    player items in ``PICMIX_ITEM_BOXES``, objective items in the objective slots."""
    from vision.kit import geometry as g
    from vision.kit.render import _OBJECTIVE_SLOTS

    area = truth["picmix_areas"][0]
    visf = {(x["card_id"], x["half"]): x["visible_fraction"] for x in area["items"]}
    found = None
    for c in truth["cards"]:  # bottom first: the last card that holds the point is on top
        dc = deck_cards.get(c["card_id"])
        if dc is None:
            continue
        w, h = dc.face_wh_mm
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        hm = cv2.getPerspectiveTransform(src, np.float32(c["corners_px"]))
        q = cv2.perspectiveTransform(np.float32([[pt]]), np.linalg.inv(hm))[0, 0]
        if not (0 <= q[0] <= w and 0 <= q[1] <= h):
            continue
        found = None
        if dc.kind == "objective" and c["face"] == "front":
            slots = _OBJECTIVE_SLOTS[len(dc.items)]
            d = [float(np.hypot(q[0] - x, q[1] - y)) for x, y in slots]
            k = int(np.argmin(d))
            if d[k] < g.PICMIX_OBJECTIVE_ITEM_MM / 2:
                found = (dc.items[k], "objective", 1.0)
        elif dc.kind == "player":
            half = "left" if q[0] < w / 2 else "right"
            box = g.PICMIX_ITEM_BOXES[half]
            if box.x - 2 <= q[0] <= box.x1 + 2 and box.y - 2 <= q[1] <= box.y1 + 2:
                item = dc.face_items(c["face"])[0 if half == "left" else 1]
                found = (item, "player", float(visf.get((c["card_id"], half), 0.0)))
    return found
