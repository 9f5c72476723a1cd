"""A deck registered from photos of its cards, against the same deck from the clean art.

Issue 26, part 5: a player with the retail games and a webcam registers a deck by laying its
cards under the camera several at a time (``pictable deck register NAME --camera N``,
:class:`vision.identify.capture_many.LayoutCapture`). Here the cards are laid the same way on
rendered tables: 6 to 12 cards a layout in rows (gaps of 12-30 mm, each card turned a few
degrees), one layout a frame, drawn by the project's synthetic camera
(:func:`vision.synth.render_scene`) at a tier's camera, table, light, glare and sensor effects,
with no hands; each layout is a camera of its own (heights 600-900 mm on the normal tier: cards
about 55-100 px across). The session takes every frame as a still photo
(:meth:`LayoutCapture.take`, as ``--folder`` does) and numbers the cards it takes; only for
scoring, each card taken is then given the id of the card whose outline, in the layout's
truth, is round it. Cards the session missed are laid again in later layouts (as a player
who counts the cards would), at most :data:`RETRIES` times; a tenth of the cards are also
laid a second time (:data:`RELAID`) to count the duplicate check.

The deck registered from those faces and the clean-art decks then identify the identify
benchmark's ``features`` scenes (``pictable.bench.readers.identify``, pictures alone),
scored the same way: ``clean`` (the built-in deck, ``open_deck("pickpic")``) and
``clean-registered`` (the kit's faces registered as a user's deck: what registering clean
images gives, without the built-in deck's backs).

With ``--cards 1000`` the deck is the 120 Pick Pic cards and 880 made-up cards: quarters,
mirror images and colour shifts (hue, saturation, lightness) of the 120 Pick Pic photographs
(``vision.kit.photos``) printed on a plain card with a white frame and no codes, as retail
cards (:class:`MadeUpCards`); every one of the 1,000 is
registered from rendered layouts, and the scenes (Pick Pic cards only) are identified
against all 1,000 (the 880 are cards that could be named wrongly).

``thresholds`` measures what the checks' thresholds of :mod:`vision.identify.laid_cards`
are set from (sharpness of faces sharp and defocused, saturated share with and without
strong glare, the likeness of the same card in two layouts and of a card's likest other
card); ``sizes`` registers the deck with the camera at several heights (cards of several
sizes) and identifies with each deck.

Measured (2026-12-02), ``features`` scenes of seed 1, 40 scenes, 287 cards to name:

- 120 cards: registered from 13 rendered layouts (cards 69 px across, median), 287 right and
  0 wrong, as the clean art (built-in deck and the kit's faces registered: 287, 0): 0.00
  points; 20 of them placed more than 10% of their height off (the clean art's: 10); of 12
  cards laid again, 9 skipped as duplicates, none taken twice.
- 1,000 cards: 286 right, 0 wrong; the clean art registered, 281 right, 0 wrong (+1.74
  points); of 100 cards laid again 30 skipped and 62 taken twice (soft made-up art: see
  :data:`vision.identify.laid_cards.SAME_COS`); 377 of the made-up faces warned of as blurred
  (the art itself is soft).

    python -m pictable.bench.readers.register compare --cards 120 --scenes 40 --seed 1
    python -m pictable.bench.readers.register compare --cards 1000 --scenes 40 --seed 1
    python -m pictable.bench.readers.register thresholds
    python -m pictable.bench.readers.register sizes
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from vision.identify.capture_many import LayoutCapture
from vision.identify.deck import ReferenceDeck, build_deck, kit_faces, open_deck
from vision.synth import CardSpec, GlareSpec, SceneSpec, TableSpec, Truth, render_scene
from vision.synth.camera import Camera
from vision.synth.generators import random_glare
from vision.synth.textures import CARD_WH_MM, DeckCard, Face, TextureProvider, default_provider
from vision.synth.tiers import Tier, get_tier, sample_camera, sample_effects, sample_table

#: Cards a layout (inclusive).
PER_LAYOUT = (6, 12)
#: Gaps between neighbouring cards of a layout, mm.
GAP_MM = (12.0, 30.0)
#: Each card's own turn, degrees (the whole layout turns with the camera's yaw).
CARD_TURN_DEG = 6.0
#: Passes over the cards the session missed.
RETRIES = 3
#: Share of the cards laid a second time in a later layout (duplicates to skip).
RELAID = 0.1
#: The identification benchmark's scenes and tier.
SCENE_TIER = "normal"
SEED_STRIDE = 100_003


# ---- layouts -------------------------------------------------------------------------------


def layout_spec(
    rng: np.random.Generator,
    ids: Sequence[str],
    tier: str | Tier = "normal",
    *,
    provider: TextureProvider | None = None,
    camera: Camera | None = None,
    defocus_px: float | None = None,
    glare: GlareSpec | bool | None = True,
) -> SceneSpec:
    """A layout of ``ids`` face up in rows, in view of a camera of ``tier`` (or ``camera``),
    on a table of the tier, with its light and sensor effects (``defocus_px`` replaces its
    defocus), no hands. ``glare``: True draws each card's glare from the tier, False none,
    a ``GlareSpec`` puts that one on every card. Cards that do not fit the frame are left
    out of the layout (a camera too low for 12 cards): the truth says which were laid."""
    t = get_tier(tier)
    provider = provider or default_provider()
    sizes = {c.card_id: c.face_wh_mm for c in _deck_of(provider, ids)}
    for _ in range(40):
        cam = camera or sample_camera(rng, t)
        n = len(ids)
        cols = max(1, min(n, math.ceil(math.sqrt(n * 1.3))))
        rows = math.ceil(n / cols)
        gap = float(rng.uniform(*GAP_MM))
        wmax = max(s[0] for s in sizes.values())
        hmax = max(s[1] for s in sizes.values())
        # Rows along the frame's rows (cards laid facing the camera), turned a little.
        mid = np.array([(cam.size_wh[0] - 1) / 2, (cam.size_wh[1] - 1) / 2])
        centre, right = cam.to_table(np.array([mid, mid + np.array([50.0, 0.0])]))[:, :2]
        base = math.degrees(math.atan2(*(right - centre)[::-1])) + float(rng.uniform(-8, 8))
        a = math.radians(base)
        ex, ey = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        cards: list[CardSpec] = []
        fits = True
        for k, card_id in enumerate(ids):
            r, c = divmod(k, cols)
            off = (c - (cols - 1) / 2) * (wmax + gap) * ex + (r - (rows - 1) / 2) * (
                hmax + gap
            ) * ey
            p = centre[:2] + off + rng.uniform(-3, 3, 2)
            turn = base + float(rng.uniform(-CARD_TURN_DEG, CARD_TURN_DEG))
            g: GlareSpec | None
            if glare is True:
                g = random_glare(rng, t)
            elif glare is False or glare is None:
                g = None
            else:
                g = glare
            spec = CardSpec.flat(
                card_id, "front", (float(p[0]), float(p[1])), turn, glare=g,
                size_wh_mm=sizes[card_id],
            )  # fmt: skip
            cards.append(spec)
            if not _in_view(cam, spec):
                fits = False
        if fits or camera is not None:
            break
    effects = sample_effects(rng, t)
    if defocus_px is not None:
        effects = replace(effects, defocus_sigma_px=defocus_px, motion_blur_px=0.0)
    return SceneSpec(
        camera=cam,
        table=sample_table(rng),
        cards=tuple(c for c in cards if _in_view(cam, c)),
        effects=effects,
        tier=t.name,
    )


def _in_view(cam: Camera, card: CardSpec, inset_px: float = 12.0) -> bool:
    w, h = card.size_wh_mm
    o, ex, ey = (
        np.asarray(v, np.float64) for v in (card.pose.origin_mm, card.pose.ex, card.pose.ey)
    )
    pts = np.array([o, o + w * ex, o + w * ex + h * ey, o + h * ey])
    px = cam.project_f64(pts)
    W, H = cam.size_wh
    return bool(
        np.isfinite(px).all()
        and (px[:, 0] >= inset_px).all()
        and (px[:, 0] <= W - 1 - inset_px).all()
        and (px[:, 1] >= inset_px).all()
        and (px[:, 1] <= H - 1 - inset_px).all()
    )


def _deck_of(provider: TextureProvider, ids: Sequence[str]) -> list[DeckCard]:
    wanted = set(ids)
    games = {i.split("-")[0] for i in ids}
    out = [c for g in sorted(games) for c in provider.deck(g) if c.card_id in wanted]
    missing = wanted - {c.card_id for c in out}
    if missing:
        raise ValueError(f"cards not in {provider.name}'s decks: {sorted(missing)[:5]}")
    return out


# ---- made-up cards (the 1,000-card deck) ---------------------------------------------------


@dataclass
class MadeUpCards:
    """Card art for a deck of ``n`` cards (up to 1,080): the 120 Pick Pic cards (the kit's
    faces) and made-up retail-like cards ``madeup-0001``... to make up ``n``: a quarter of a
    Pick Pic photograph (the four quarters of each, then the four mirrored: no two share a
    part of a picture; crops that overlapped were, rightly, taken for the same card),
    enlarged to the card, with a colour shift (hue -40 to 40 degrees, saturation x 0.6-1.4,
    lightness x 0.8-1.2), printed on a white card (3 mm frame) with no codes; deterministic
    from the card's number. A :class:`vision.synth.TextureProvider` (game ``madeup``;
    ``pickpic`` through the kit)."""

    n: int = 1000
    name: str = "madeup"
    _kit: TextureProvider = field(default_factory=default_provider, repr=False)
    _cache: dict[tuple[str, float], np.ndarray] = field(default_factory=dict, repr=False)

    def ids(self) -> list[str]:
        base = [c.card_id for c in self._kit.deck("pickpic")]
        return base + [f"madeup-{k:04d}" for k in range(1, max(0, self.n - len(base)) + 1)]

    def deck(self, game: str) -> tuple[DeckCard, ...]:
        if game == "madeup":
            return tuple(
                DeckCard(i, "madeup", "photo") for i in self.ids() if i.startswith("madeup-")
            )
        return self._kit.deck(game)

    def card_face(self, card_id: str, face: Face, px_per_mm: float) -> np.ndarray:
        if not card_id.startswith("madeup-"):
            return self._kit.card_face(card_id, face, px_per_mm)
        key = (f"{card_id}/{face}", px_per_mm)
        if key not in self._cache:
            self._cache[key] = self._draw(int(card_id.split("-")[1]), face, px_per_mm)
            if len(self._cache) > 64:
                self._cache.pop(next(iter(self._cache)))
        return self._cache[key]

    def _draw(self, k: int, face: Face, ppm: float) -> np.ndarray:
        from vision.kit.photos import PHOTO_SPECS, photo_rgb

        w, h = round(CARD_WH_MM[0] * ppm), round(CARD_WH_MM[1] * ppm)
        card = np.full((h, w, 3), 245, np.uint8)
        if face == "back":
            card[:] = (60, 40, 120)
            return card
        # Card k: photograph (k - 1) % 120, its quarter v % 4, mirrored from the fifth on:
        # quarters do not overlap, and a mirror image is another picture to keypoints.
        photo = np.asarray(photo_rgb(PHOTO_SPECS[(k - 1) % len(PHOTO_SPECS)]))[..., ::-1]
        v = (k - 1) // len(PHOTO_SPECS)
        ph, pw = photo.shape[:2]
        qx, qy = (v % 4) % 2, (v % 4) // 2
        crop = np.ascontiguousarray(
            photo[qy * ph // 2 : (qy + 1) * ph // 2, qx * pw // 2 : (qx + 1) * pw // 2]
        )
        if v % 8 >= 4:
            crop = np.ascontiguousarray(crop[:, ::-1])
        rng = np.random.default_rng([k, 26])
        m = round(3.0 * ppm)
        crop = cv2.resize(crop, (w - 2 * m, h - 2 * m), interpolation=cv2.INTER_LINEAR)
        hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(-20, 20)) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.6, 1.4), 0, 255)
        hsv[..., 2] = np.clip(hsv[..., 2] * rng.uniform(0.8, 1.2), 0, 255)
        card[m : h - m, m : w - m] = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        return card


# ---- registering from layouts --------------------------------------------------------------


def _truth_of(truth: Truth, corners: np.ndarray) -> str | None:
    """The truth card whose outline's centre is within half its width of ``corners``'."""
    centre = np.asarray(corners, np.float64).mean(axis=0)
    best, best_d = None, np.inf
    for t in truth.cards:
        c = np.asarray(t.corners_px, np.float64)
        width = float(np.linalg.norm(c[1] - c[0]))
        d = float(np.linalg.norm(c.mean(axis=0) - centre))
        if d < 0.5 * width and d < best_d:
            best, best_d = t.card_id, d
    return best


def register_from_layouts(
    ids: Sequence[str],
    *,
    seed: int = 1,
    tier: str = "normal",
    provider: TextureProvider | None = None,
    height_mm: tuple[float, float] | None = None,
    relaid: float = RELAID,
    progress: bool = False,
) -> dict[str, Any]:
    """Registers ``ids`` from rendered layouts (see the module docstring). Returns
    ``faces`` (truth id -> face taken), ``layouts``, ``taken``, ``missed`` (never taken),
    ``laid_again`` (cards laid again after a miss), ``relaid`` and ``relaid_skipped`` (cards
    laid a second time, and how many were skipped as duplicates), ``taken_twice`` (a card
    taken again: a duplicate not seen), ``false_duplicates``
    (distinct cards skipped as duplicates of another), ``not_a_card`` (cards taken where no
    card lies), ``warnings`` (count by kind) and ``short_px`` (median card size)."""
    provider = provider or default_provider()
    rng = np.random.default_rng([seed, 5])
    session = LayoutCapture()
    faces: dict[str, np.ndarray] = {}
    by_number: dict[int, str] = {}
    order = [ids[int(i)] for i in rng.permutation(len(ids))]
    again = [order[int(i)] for i in rng.permutation(len(order))[: round(relaid * len(order))]]
    todo = list(order)
    stats: dict[str, Any] = {
        "layouts": 0, "laid_again": 0, "relaid": 0, "relaid_skipped": 0,
        "false_duplicates": 0, "not_a_card": 0, "taken_twice": 0,
    }  # fmt: skip
    warnings: dict[str, int] = {}
    sizes: list[float] = []
    t = get_tier(tier)
    if height_mm is not None:
        t = replace(t, height_mm=height_mm)
    passes = 0
    relay_pending = list(again)
    while (todo or relay_pending) and passes <= RETRIES:
        layouts: list[list[str]] = []
        k = 0
        while k < len(todo):
            n = int(rng.integers(PER_LAYOUT[0], PER_LAYOUT[1] + 1))
            layouts.append(todo[k : k + n])
            k += n
        if passes == 0 and relay_pending:  # the relaid cards: into the last layouts with room
            for card_id in relay_pending:
                room = [x for x in layouts[::-1][:3] if len(x) < PER_LAYOUT[1] and card_id not in x]
                if room:
                    room[0].append(card_id)
                else:
                    layouts.append([card_id])
            stats["relaid"] = len(relay_pending)
            relay_pending = []
        laid: set[str] = set()
        for cards in layouts:
            spec = layout_spec(rng, cards, t, provider=provider)
            laid |= {c.card_id for c in spec.cards}
            frame, truth = render_scene(spec, seed=int(rng.integers(1 << 30)), provider=provider)
            stats["layouts"] += 1
            result = session.take(frame)
            for card in result.taken:
                who = _truth_of(truth, card.corners_px)
                if who is None:
                    stats["not_a_card"] += 1
                    session.discard(card.number)
                    continue
                for w in card.check.warnings:
                    warnings[w] = warnings.get(w, 0) + 1
                sizes.append(card.check.short_px)
                by_number[card.number] = who
                if who in faces:
                    stats["taken_twice"] += 1
                faces.setdefault(who, card.face)
            for s in result.skipped:
                who = _truth_of(truth, s.corners_px)
                like = by_number.get(int(s.like[1:])) if s.like.startswith("#") else s.like
                if who is not None and who == like:
                    stats["relaid_skipped"] += 1
                elif who is not None:
                    stats["false_duplicates"] += 1
            if progress:
                print(
                    f"  layout {stats['layouts']}: {len(faces)}/{len(ids)} cards taken",
                    file=sys.stderr,
                    flush=True,
                )
        missing = [c for c in todo if c not in faces]
        if passes > 0 or missing:
            stats["laid_again"] += len([c for c in missing if c in laid]) if passes < RETRIES else 0
        todo = missing
        passes += 1
    return {
        **stats,
        "faces": faces,
        "cards": len(ids),
        "taken": len(faces),
        "missed": sorted(set(ids) - set(faces)),
        "warnings": warnings,
        "short_px": float(np.median(sizes)) if sizes else None,
    }


def _identify(deck: ReferenceDeck, scenes: int, seed: int) -> dict[str, Any]:
    from pictable.bench.readers.identify import bench_identify

    r = bench_identify(SCENE_TIER, scenes, seed, "features", deck=deck)
    keep = ("cards", "right", "wrong", "misplaced", "right_rate", "wrong_rate", "ms_median")
    return {k: r[k] for k in keep}


def compare(
    n_cards: int = 120,
    scenes: int = 40,
    seed: int = 1,
    *,
    register_seed: int = 1,
    tier: str = "normal",
    progress: bool = False,
) -> dict[str, Any]:
    """Registers ``n_cards`` from rendered layouts (120: the Pick Pic deck; more: with
    :class:`MadeUpCards`) and identifies the ``features`` scenes (``scenes``, ``seed``) with
    that deck and with the clean-art decks. Returns the registration's counts and, for
    ``registered``, ``clean`` and ``clean-registered``, the benchmark's counts, with
    ``points`` (the registered deck's right rate less the clean one's, in percentage
    points)."""
    t0 = time.perf_counter()
    provider: TextureProvider = default_provider() if n_cards <= 120 else MadeUpCards(n_cards)
    if isinstance(provider, MadeUpCards):
        ids = provider.ids()
    else:
        ids = [c.card_id for c in provider.deck("pickpic")][:n_cards]
    reg = register_from_layouts(
        ids, seed=register_seed, tier=tier, provider=provider, progress=progress
    )
    faces = reg.pop("faces")
    registered = build_deck("registered", {i: faces[i] for i in ids if i in faces})
    clean_faces = _clean_faces(ids, provider)
    decks: dict[str, ReferenceDeck] = {
        "registered": registered,
        "clean-registered": build_deck("clean-registered", clean_faces),
    }
    if n_cards == 120:
        decks["clean"] = open_deck("pickpic")
    out: dict[str, Any] = {
        "cards": n_cards, "scenes": scenes, "seed": seed, "register_seed": register_seed,
        "tier": tier, "registration": reg,
    }  # fmt: skip
    for name, deck in decks.items():
        if progress:
            print(f"  identifying with the {name} deck ({len(deck)} cards)", file=sys.stderr)
        out[name] = _identify(deck, scenes, seed)
    for name in ("clean", "clean-registered"):
        if name in out:
            out["registered"][f"points_vs_{name}"] = round(
                100 * (out["registered"]["right_rate"] - out[name]["right_rate"]), 2
            )
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def _clean_faces(ids: Sequence[str], provider: TextureProvider) -> dict[str, np.ndarray]:
    """The clean art of ``ids`` as a user would register it from scans (the kit's faces at
    the built-in deck's resolution; made-up cards drawn at the same)."""
    kit = kit_faces("pickpic")
    out = {}
    for i in ids:
        out[i] = kit[i] if i in kit else provider.card_face(i, "front", 480 / 88)
    return out


# ---- thresholds ----------------------------------------------------------------------------


def thresholds(layouts: int = 12, seed: int = 3) -> dict[str, Any]:
    """The figures :mod:`vision.identify.laid_cards`'s checks are set from, on layouts of
    10 Pick Pic cards at the normal tier: ``sharpness`` of the faces as rendered and
    defocused (sigma 1.5 and 2.5 px); ``glare``, the share of a face in saturated spots, on
    a dark cloth (so that every card is found) with the tier's light and no glare, with the
    exposure at the tier's highest (x 1.15) and no glare, with the tier's own glare at that
    exposure, and with a strong spot on every card (strength 1.0, 14-20 mm) at that exposure.
    Percentiles of each, and how many cards were found (``n``)."""
    provider = default_provider()
    ids = [c.card_id for c in provider.deck("pickpic")]
    rng = np.random.default_rng([seed, 9])
    sharp: dict[str, list[float]] = {"rendered": [], "defocus 1.5": [], "defocus 2.5": []}
    sat: dict[str, list[float]] = {
        "no glare": [], "no glare, x 1.15": [], "tier glare, x 1.15": [],
        "strong glare, x 1.15": [],
    }  # fmt: skip
    cloth = TableSpec("cloth", (70, 60, 50), 7)
    for k in range(layouts):
        cards = [ids[int(i)] for i in rng.permutation(len(ids))[:10]]
        base = layout_spec(rng, cards, "normal", glare=False)
        cam = base.camera
        bright = replace(base.effects, light_gain=1.15)
        strong = GlareSpec(
            (float(rng.uniform(20, 43)), float(rng.uniform(25, 63))),
            float(rng.uniform(14, 20)),
            1.0,
        )
        variants = {
            "rendered": base,
            "defocus 1.5": replace(base, effects=replace(base.effects, defocus_sigma_px=1.5)),
            "defocus 2.5": replace(base, effects=replace(base.effects, defocus_sigma_px=2.5)),
            "no glare": replace(base, table=cloth),
            "no glare, x 1.15": replace(base, table=cloth, effects=bright),
            "tier glare, x 1.15": replace(
                layout_spec(rng, cards, "normal", camera=cam, glare=True),
                table=cloth, effects=bright,
            ),
            "strong glare, x 1.15": replace(
                layout_spec(rng, cards, "normal", camera=cam, glare=strong),
                table=cloth, effects=bright,
            ),
        }  # fmt: skip
        for name, spec in variants.items():
            frame, truth = render_scene(spec, seed=k)
            glaring = {c.card_id for c in spec.cards if c.glare is not None}
            for card in LayoutCapture().take(frame).taken:
                who = _truth_of(truth, card.corners_px)
                if who is None:
                    continue
                if name in sharp:
                    sharp[name].append(card.check.sharpness)
                if name in sat and (name.startswith("no") or who in glaring):
                    sat[name].append(card.check.glare)
    return {
        "sharpness": {k: _dist(v) for k, v in sharp.items() if v},
        "glare": {k: _dist(v) for k, v in sat.items() if v},
    }


def duplicates(layouts: int = 12, seed: int = 4) -> dict[str, Any]:
    """What :func:`vision.identify.laid_cards.same_card` is set from: 120 Pick Pic cards
    laid twice (``layouts`` layouts of 10, each rendered a second time with another camera,
    table and light at the normal tier); for every card of the second sighting and each of
    the cards of the first likest by appearance (:data:`~vision.identify.laid_cards.
    SHORTLIST`), the appearance cosine and the keypoints' inliers, the same card's apart
    from the others'. Returns their percentiles and how many pairs each rule of thresholds
    (cosine, inliers) calls the same card."""
    from vision.identify import laid_cards as cm

    provider = default_provider()
    ids = [c.card_id for c in provider.deck("pickpic")]
    rng = np.random.default_rng([seed, 9])
    order = [ids[int(i)] for i in rng.permutation(len(ids))]
    sightings: list[dict[str, Any]] = [{}, {}]
    for k in range(layouts):
        cards = order[k * 10 : (k + 1) * 10]
        for store, s in zip(sightings, (k, 500 + k), strict=True):
            spec = layout_spec(rng, cards, "normal", provider=provider)
            frame, truth = render_scene(spec, seed=s)
            for card in LayoutCapture().take(frame).taken:
                who = _truth_of(truth, card.corners_px)
                if who is not None:
                    store.setdefault(who, card)
    first, second = sightings
    keys = list(first)
    looks = np.stack([cm.face_looks(first[k].face) for k in keys])
    same: list[tuple[float, int]] = []
    other: list[tuple[float, int]] = []
    for who, card in second.items():
        sims = cm.looks_likeness(cm.face_looks(card.face), looks)
        for i in np.argsort(-sims)[: cm.SHORTLIST]:
            n = cm.fit_inliers(card.keypoints, first[keys[int(i)]].keypoints)
            (same if keys[int(i)] == who else other).append((float(sims[int(i)]), n))
    missing = sum(1 for w in second if w in first) - len(same)
    rules = {}
    for c, m in ((2.0, 0), (0.96, 0), (0.96, 10), (0.96, 16)):
        for t in (20, 24, 28):
            name = f"inliers >= {t}" + (f" or (cos >= {c} and inliers >= {m})" if c <= 1 else "")
            rules[name] = {
                "same found": sum(1 for x, n in same if (x >= c and n >= m) or n >= t),
                "others called the same": sum(1 for x, n in other if (x >= c and n >= m) or n >= t),
            }
    return {
        "same card": {
            "cosine": _dist([x for x, _ in same]),
            "inliers": _dist([n for _, n in same]),
        },
        "other cards": {
            "cosine": _dist([x for x, _ in other]),
            "inliers": _dist([n for _, n in other]),
        },
        "same card not in the shortlist": missing,
        "rules": rules,
    }


def _dist(v: Sequence[float]) -> dict[str, float]:
    """Percentiles 0, 1, 5, 50, 95, 99, 100 of ``v`` and its size ``n``."""
    return {f"p{p}": round(float(np.percentile(v, p)), 4) for p in (0, 1, 5, 50, 95, 99, 100)} | {
        "n": len(v)
    }


def sizes(
    heights: Sequence[float] = (600.0, 900.0, 1200.0, 1500.0),
    scenes: int = 20,
    seed: int = 1,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """The Pick Pic deck registered with the camera at each height (mm; tilt and the rest of
    the normal tier's), and the ``features`` scenes identified with each deck: the cards'
    median short side (px), the registration's counts and the benchmark's."""
    provider = default_provider()
    ids = [c.card_id for c in provider.deck("pickpic")]
    out = []
    for h in heights:
        reg = register_from_layouts(ids, seed=1, provider=provider, height_mm=(h, h), relaid=0)
        faces = reg.pop("faces")
        deck = build_deck(f"h{h:g}", {i: faces[i] for i in ids if i in faces})
        row = {"height_mm": h, "short_px": reg["short_px"], "taken": reg["taken"],
               "warnings": reg["warnings"], **_identify(deck, scenes, seed)}  # fmt: skip
        if progress:
            print(f"  {row}", file=sys.stderr, flush=True)
        out.append(row)
    return out


# ---- command line and report ---------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``python -m pictable.bench.readers.register``: print the figures as JSON."""
    p = argparse.ArgumentParser(
        prog="python -m pictable.bench.readers.register",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("what", choices=("compare", "thresholds", "duplicates", "sizes"))
    p.add_argument("--cards", type=int, default=120, help="compare: 120 (Pick Pic) or more")
    p.add_argument("--scenes", type=int, default=40, help="features scenes identified")
    p.add_argument("--seed", type=int, default=1, help="the features scenes' seed")
    p.add_argument("--register-seed", type=int, default=1, help="the layouts' seed")
    p.add_argument("--tier", default="normal", choices=("easy", "normal", "hard"))
    p.add_argument("--layouts", type=int, default=12, help="thresholds: layouts rendered")
    p.add_argument(
        "--heights", default="600,900,1200,1500", help="sizes: camera heights, mm (comma-separated)"
    )
    args = p.parse_args(argv)
    from vision.identify.threads import single_thread

    single_thread()
    if args.what == "compare":
        out: Any = compare(
            args.cards, args.scenes, args.seed, register_seed=args.register_seed,
            tier=args.tier, progress=True,
        )  # fmt: skip
    elif args.what == "thresholds":
        out = thresholds(args.layouts)
    elif args.what == "duplicates":
        out = duplicates(args.layouts)
    else:
        heights = [float(h) for h in args.heights.split(",")]
        out = sizes(heights, scenes=args.scenes, seed=args.seed, progress=True)
    print(json.dumps(out, indent=1))
    return 0


#: The bar: a deck registered from photos identifies within this many percentage points of
#: the clean art's.
POINTS_MAX = 1.0
PROFILES: dict[str, dict[str, int]] = {
    "quick": {"cards": 120, "scenes": 20},
    "full": {"cards": 120, "scenes": 40},
}


def report(profile: str = "quick") -> dict[str, Any]:
    """The figure for ``pictable bench`` (``{"title", "summary", "markdown"}``): the deck
    registered from rendered layouts against the clean art (:func:`compare`)."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {list(PROFILES)}")
    n = PROFILES[profile]
    r = compare(n["cards"], n["scenes"], 1)
    reg, clean = r["registered"], r["clean"]
    points = reg["points_vs_clean"]
    summary = [
        {
            "figure": f"{n['cards']} cards registered from rendered layouts: cards identified "
            f"right, against the clean art's ({n['scenes']} features scenes)",
            "value": f"{100 * reg['right_rate']:.2f}% ({reg['right']}/{reg['cards']}, "
            f"{reg['wrong']} wrong) vs {100 * clean['right_rate']:.2f}% ({clean['right']}/"
            f"{clean['cards']}, {clean['wrong']} wrong): {points:+.2f} points",
            "target": f"within {POINTS_MAX:g} point",
            "met": abs(points) <= POINTS_MAX or points > 0,
        }
    ]
    md = [
        "| deck | right | wrong | cards |",
        "|---|---|---|---|",
        *(
            f"| {k} | {r[k]['right']} | {r[k]['wrong']} | {r[k]['cards']} |"
            for k in ("registered", "clean", "clean-registered")
            if k in r
        ),
    ]
    return {"title": "Registering a deck from the camera", "summary": summary,
            "markdown": "\n".join(md) + "\n"}  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
