"""Picmix as data: the 16 items, the six player sets, the 25 objectives, and the solver that
proves each objective can be shown with one set.

A player set is 4 double-sided landscape cards; each face shows two items, one per half
(``left``, ``right``); the 16 items each appear exactly once in a set. All six sets have the
same layout (``PLAYER_LAYOUT``) and differ only in colour (``SET_COLOURS``).

The layout model (KIT.md: a card laid over half of another hides that half's item)
----------------------------------------------------------------------------------
A player uses some of their cards, each with one face up, and may lay a card over one half of
another card, hiding that half's item. Cards not used are set aside. So in a layout of ``k``
used cards:

- every used card shows one face, and that face shows 1 or 2 of its items: a card with both
  halves hidden shows nothing and might as well be set aside (it is then "not used");
- the topmost card of a pile has nothing over it and shows both of its items, so at least one
  used card shows 2 items;
- any such choice can be laid out: put the cards that show one item in a chain, each laid over
  the hidden half of the previous one, and a card showing both items over the last hidden half
  (other cards showing both lie apart).

What the players see is the union of the shown halves' items. An objective (3 or 4 distinct
items) is met when that union equals the objective exactly: no item missing, no other item
showing. ``solve_objective`` searches every choice (per card: unused, or one face with its left,
right or both halves shown) and returns a ``Solution`` with the fewest cards, or ``None``.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from vision.kit.geometry import FACES, Face, Half

ITEMS: tuple[str, ...] = (
    "sun",
    "star",
    "heart",
    "fish",
    "key",
    "tree",
    "moon",
    "house",
    "bell",
    "umbrella",
    "drop",
    "lightning",
    "cloud",
    "apple",
    "crown",
    "flower",
)
"""The 16 Picmix items; each is also the name of its pictogram (``vision.kit.pictograms``)."""

SET_COLOURS: tuple[str, ...] = ("red", "blue", "green", "purple", "orange", "teal")
"""Player set colours (names of ``vision.kit.pictograms.pen.COLOURS``), in card-id order."""

CARDS_PER_SET = 4


@dataclass(frozen=True)
class PicmixFace:
    """The two items of one face of a player card, by half."""

    left: str
    right: str

    def item(self, half: Half) -> str:
        return self.left if half == "left" else self.right

    @property
    def items(self) -> tuple[str, str]:
        return (self.left, self.right)


PLAYER_LAYOUT: tuple[tuple[PicmixFace, PicmixFace], ...] = (
    (PicmixFace("sun", "fish"), PicmixFace("key", "moon")),
    (PicmixFace("star", "tree"), PicmixFace("heart", "bell")),
    (PicmixFace("house", "drop"), PicmixFace("umbrella", "crown")),
    (PicmixFace("cloud", "apple"), PicmixFace("lightning", "flower")),
)
"""Card n (1-based, ``PLAYER_LAYOUT[n - 1]``) of every set: (front, back) faces."""

OBJECTIVES: tuple[tuple[str, ...], ...] = (
    ("flower", "lightning", "moon"),
    ("crown", "fish", "sun", "umbrella"),
    ("house", "star", "tree"),
    ("apple", "bell", "heart", "key"),
    ("apple", "cloud", "drop"),
    ("bell", "crown", "heart", "umbrella"),
    ("fish", "flower", "sun"),
    ("drop", "moon", "star", "tree"),
    ("key", "lightning", "moon"),
    ("bell", "cloud", "heart", "house"),
    ("flower", "lightning", "star"),
    ("drop", "house", "sun", "tree"),
    ("apple", "cloud", "crown"),
    ("crown", "key", "moon", "umbrella"),
    ("bell", "fish", "sun"),
    ("apple", "drop", "house", "key"),
    ("cloud", "star", "tree"),
    ("flower", "heart", "lightning", "umbrella"),
    ("fish", "flower", "lightning"),
    ("apple", "key", "moon", "star"),
    ("bell", "drop", "heart"),
    ("cloud", "fish", "sun", "tree"),
    ("crown", "tree", "umbrella"),
    ("drop", "fish", "house", "star"),
    ("bell", "cloud", "key", "moon"),
)
"""The 25 objective cards (``picmix-obj-01`` is ``OBJECTIVES[0]``), items sorted. Made by
``generate_objectives()``; every one is solvable with one set (tests check this)."""


def player_card_id(colour: str, n: int) -> str:
    """The id of card ``n`` (1..4) of the ``colour`` set: ``picmix-<colour>-<n>``."""
    return f"picmix-{colour}-{n}"


def objective_card_id(n: int) -> str:
    """The id of objective ``n`` (1..25): ``picmix-obj-NN``."""
    return f"picmix-obj-{n:02d}"


def player_set_ids(colour: str) -> tuple[str, ...]:
    if colour not in SET_COLOURS:
        raise ValueError(f"unknown Picmix set colour {colour!r}; known: {', '.join(SET_COLOURS)}")
    return tuple(player_card_id(colour, n) for n in range(1, CARDS_PER_SET + 1))


def player_card_faces(card_id: str) -> tuple[PicmixFace, PicmixFace]:
    """(front, back) of Picmix player card ``card_id``; ``ValueError`` for any other id."""
    parts = card_id.split("-")
    if (
        len(parts) != 3
        or parts[0] != "picmix"
        or parts[1] not in SET_COLOURS
        or parts[2] not in {str(n) for n in range(1, CARDS_PER_SET + 1)}
    ):
        raise ValueError(f"not a Picmix player card: {card_id!r}")
    return PLAYER_LAYOUT[int(parts[2]) - 1]


def player_item_at(card_id: str, face: Face, half: Half) -> str:
    """The item shown on ``half`` of ``face`` of player card ``card_id``."""
    front, back = player_card_faces(card_id)
    return (front if face == "front" else back).item(half)


# --------------------------------------------------------------------------------------------
# The solver
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """One used card: which face is up and which halves stay visible."""

    card: str
    face: Face
    shown: tuple[Half, ...]  # ("left",), ("right",) or ("left", "right")
    items: tuple[str, ...]  # the items of the shown halves, in the same order


@dataclass(frozen=True)
class Solution:
    """A layout meeting an objective.

    ``placements`` are in laying order, bottom first: every card that shows one item is
    covered on its other half by the card laid after it; the cards showing both items come
    last (the first of them covers the previous card's hidden half, the others lie apart).
    """

    placements: tuple[Placement, ...]
    visible: frozenset[str]

    @property
    def cards_used(self) -> int:
        return len(self.placements)

    def describe(self) -> str:
        """A one-line, human-readable account of the layout."""
        steps = []
        for i, p in enumerate(self.placements):
            if len(p.shown) == 1:
                hidden = "right" if p.shown[0] == "left" else "left"
                steps.append(
                    f"{p.card} {p.face} up showing {p.items[0]} "
                    f"(its {hidden} half covered by the next card)"
                )
            else:
                where = "on top" if i > 0 and len(self.placements[i - 1].shown) == 1 else "apart"
                steps.append(f"{p.card} {p.face} up {where} showing {' and '.join(p.items)}")
        return "; ".join(steps)


def _options(
    faces: tuple[PicmixFace, PicmixFace], target: frozenset[str]
) -> list[tuple[Face, tuple[Half, ...], tuple[str, ...]]]:
    """Ways one card may take part without showing an item outside ``target``."""
    out: list[tuple[Face, tuple[Half, ...], tuple[str, ...]]] = []
    for face, f in zip(FACES, faces, strict=True):
        for shown in (("left", "right"), ("left",), ("right",)):
            items = tuple(f.item(h) for h in shown)
            if all(i in target for i in items):
                out.append((face, shown, items))
    return out


def solve_objective(items: Iterable[str], player_set: str | Sequence[str]) -> Solution | None:
    """A layout of ``player_set`` showing exactly ``items``, with the fewest cards, or None.

    ``items``: the objective's item names. ``player_set``: a set colour (``"red"``...) or the
    ids of the player's cards (any Picmix player cards). The model is the module docstring's:
    each used card shows one face with 1 or 2 of its items visible, at least one card shows 2,
    and the union of visible items equals ``items``. Exhaustive: per card 7 choices (unused, or
    a face with left, right or both halves shown), pruned to choices showing only wanted items.
    """
    target = frozenset(items)
    card_ids = player_set_ids(player_set) if isinstance(player_set, str) else tuple(player_set)
    if not target:
        return None
    per_card = [(cid, _options(player_card_faces(cid), target)) for cid in card_ids]
    best: Solution | None = None
    for choice in itertools.product(*[[None, *opts] for _, opts in per_card]):
        used = [(cid, c) for (cid, _), c in zip(per_card, choice, strict=True) if c is not None]
        if not used or not any(len(c[1]) == 2 for _, c in used):
            continue
        visible = frozenset(i for _, c in used for i in c[2])
        if visible != target:
            continue
        if best is not None and len(used) >= best.cards_used:
            continue
        singles = [Placement(cid, c[0], c[1], c[2]) for cid, c in used if len(c[1]) == 1]
        doubles = [Placement(cid, c[0], c[1], c[2]) for cid, c in used if len(c[1]) == 2]
        best = Solution(tuple(singles + doubles), visible)
    return best


# --------------------------------------------------------------------------------------------
# Objective generation (how OBJECTIVES was made)
# --------------------------------------------------------------------------------------------
def _too_close(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """One contains the other, or both have 4 items and differ by one. (Two 3-item objectives
    may share a pair: each holds a whole face, and a set has only 8 faces.)"""
    common = len(set(a) & set(b))
    return common == min(len(a), len(b)) or (len(a) == len(b) == 4 and common == 3)


def generate_objectives(
    seed: int = 7, n_three: int = 12, n_four: int = 13
) -> tuple[tuple[str, ...], ...]:
    """Pick ``n_three`` 3-item and ``n_four`` 4-item objectives, all solvable with one set.

    Deterministic for a seed. Candidates are all solvable item combinations in a seeded random
    order; each step takes the candidate whose items have been used least so far, skipping any
    too close to one already taken (``_too_close``); among equals it prefers, for 4-item
    objectives, layouts needing 2 and 3 cards in turn, so the deck stays varied.
    """
    rng = random.Random(seed)
    pool: dict[int, list[tuple[tuple[str, ...], int]]] = {3: [], 4: []}
    for size in (3, 4):
        for combo in itertools.combinations(sorted(ITEMS), size):
            sol = solve_objective(combo, SET_COLOURS[0])
            if sol is not None:
                pool[size].append((combo, sol.cards_used))
        rng.shuffle(pool[size])
    uses: Counter[str] = Counter()
    chosen: list[tuple[str, ...]] = []
    plan = [3, 4] * min(n_three, n_four) + [3] * (n_three - n_four) + [4] * (n_four - n_three)
    for k, size in enumerate(plan):
        want_cards = 2 + (k // 2) % 2 if size == 4 else 2
        best: tuple[str, ...] | None = None
        best_key: tuple[int, int] | None = None
        for combo, cards in pool[size]:
            if any(_too_close(combo, c) for c in chosen):
                continue
            key = (sum(uses[i] for i in combo), 0 if cards == want_cards else 1)
            if best_key is None or key < best_key:
                best, best_key = combo, key
        if best is None:
            raise ValueError("not enough varied solvable objectives")
        chosen.append(best)
        uses.update(best)
    return tuple(chosen)
