"""Step 3 of the Picmix reader (``vision.picmix.reader``): the objective card
(``find_objective``).

By its printed code when one is readable (an ArUco marker of an objective front,
``vision.picmix.frame_items``; its pose gives the card's outline, and the items inside it are
the objective's, not the player's), else by reading its items: the group of 3 or 4 items lying
together whose ink is the least coloured and smallest (the kit prints objectives in black at
21 mm, player items in colour at 30 mm). Read from items whose names are not all sure, the
objective is the deck's known card they match best, or, when several match, the cards they
may be (``Objective.candidates``), or, with no known cards, the names each item may have
(``Objective.doubt``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import cv2
import numpy as np

from vision.picmix.frame_items import CardMarker, FrameItems
from vision.picmix.ink import Blob, InkMap
from vision.picmix.model import ItemDeck
from vision.picmix.reading import ITEM_MIN, NAME_MIN, UNSURE_BAND, ItemSighting, PicmixFailure

OBJECTIVE_MAX_ITEMS = 4
"""An objective card shows 3 or 4 items (the rules)."""


@dataclass(frozen=True, eq=False)
class Objective:
    """The objective found in a frame: ``card`` (None when unknown), ``items`` (sorted),
    ``method``, ``quad_px`` (4, 2) float32 or None, ``indices`` of ``FrameItems.seen`` that
    lie on it."""

    card: str | None
    items: tuple[str, ...]
    method: Literal["code", "items"]
    quad_px: np.ndarray | None
    indices: frozenset[int]
    doubt: tuple[frozenset[str], ...] = ()
    """Read from items not all surely named: per objective item, the names it may have
    (probability at least ``MAYBE_P``); empty when every name is sure."""
    candidates: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """With ``doubt`` and a deck that knows its objective cards: the (card, items) that the
    items in doubt may be (``_plausible``)."""


def find_objective(frame: np.ndarray, fi: FrameItems, deck: ItemDeck) -> Objective | PicmixFailure:
    """The objective card: by a code when one is read, else by its items."""
    seen = fi.seen

    def votes(quads: list[np.ndarray]) -> np.ndarray:
        counts = [sum(_inside(q, blob.centre_px) for _, blob in seen) for q in quads]
        return quads[int(np.argmax(counts))]

    codes = sorted({m.card for m in fi.markers if m.face == "front" and m.card in deck.objectives})
    if codes:
        card = codes[0]
        quad = _objective_quad(fi.markers, card, votes)
        on = frozenset(i for i, (_, blob) in enumerate(seen) if _inside(quad, blob.centre_px, 2.0))
        searched = all(m.searched for m in fi.markers if m.card == card)
        if not searched or (len(codes) == 1 and _agrees(seen, on, deck.objectives[card])):
            return Objective(card, tuple(sorted(deck.objectives[card])), "code", quad, on)
    # objective items are smaller than player items: judge them by the look alone
    index = {id(blob): n for n, blob in enumerate(fi.blobs.blobs)}
    p_bg = [float(fi.blobs.scores.probs[index[id(blob)], -1]) for _, blob in seen]
    live = [i for i, s in enumerate(seen) if _live(s[0], p_bg[i], deck)]
    # a matching deck that knows its cards may read one from 2 of its items (the others
    # under a hand, or merged with a printed code): the cards that have both are judged
    lenient = deck.matcher is not None and bool(deck.objectives)
    group = _objective_by_items(frame, [seen[i] for i in live], fi.blobs.im, lenient)
    if group is None:
        return PicmixFailure(
            "no objective card in view (no objective code read, and no group of 3 or 4 items "
            "apart from the player's cards)",
            tuple(s for s, _ in seen),
        )
    on = frozenset(live[g] for g in group)
    if deck.objectives:
        core = sorted(_same_size(on, seen) if lenient else on)
        probs = np.stack([fi.blobs.scores.probs[index[id(seen[i][1])]] for i in core])
        known = _known_objective(probs, deck)
        if known is None:
            # not one card surely: the cards the items may be (a claim is then judged
            # against each of them, ``decide_among``)
            doubt = _doubt(probs, deck, [seen[i][0].item for i in core])
            cands = _plausible(doubt, deck.objectives)
            names = sorted({seen[i][0].item for i in core})
            if not cands:
                return PicmixFailure(
                    f"objective card read from its items, but not surely (like {', '.join(names)})",
                    tuple(s for s, _ in seen),
                )
            return Objective(None, tuple(names), "items", None, on, doubt, tuple(cands))
        card_id, items = known
        return Objective(card_id, items, "items", None, on)
    names = sorted({seen[i][0].item for i in on})
    if len(names) != len(on) or any(seen[i][0].confidence < NAME_MIN for i in on):
        # the objective has len(on) distinct items, whose names are in doubt: a claim can
        # still be surely wrong (``decide_in_doubt``)
        probs = np.stack([fi.blobs.scores.probs[index[id(seen[i][1])]] for i in sorted(on)])
        doubt = _doubt(probs, deck, [seen[i][0].item for i in sorted(on)])
        return Objective(None, tuple(sorted(seen[i][0].item for i in on)), "items", None, on, doubt)
    return Objective(None, tuple(names), "items", None, on)


SIZE_SPREAD = 1.5
"""An objective card prints its items at one size: in a group read as an objective, a blob
more than this many times the group's median size (a printed code merged with an item) is
on the card but not one of its items (``_same_size``)."""


def _same_size(on: frozenset[int], seen: list[tuple[ItemSighting, Blob]]) -> frozenset[int]:
    """The members of an objective group whose size is within ``SIZE_SPREAD`` of the
    group's median (all of them when fewer would be left than 2)."""
    size = {i: max(seen[i][1].box_xywh[2:]) for i in on}
    med = float(np.median(list(size.values())))
    core = frozenset(i for i in on if size[i] <= SIZE_SPREAD * med)
    return core if len(core) >= 2 else on


def _live(s: ItemSighting, p_bg: float, deck: ItemDeck) -> bool:
    """Whether a sighting may be an objective item: its look shows most of an item. With a
    deck named by the matching model (``ItemDeck.matcher``), also when it is surely named
    (the item model's visible share is that of art it never saw, low for a few small black
    items), but never when it is rather "not an item" (``p_bg``; an item merged with a
    printed code)."""
    if deck.matcher is None:
        return s.look_share >= UNSURE_BAND[1]
    if p_bg >= ITEM_MIN:
        return False
    return s.look_share >= UNSURE_BAND[1] or (
        s.confidence >= NAME_MIN and s.look_share >= UNSURE_BAND[0]
    )


def _objective_quad(
    markers: list[CardMarker], card: str, choose: Callable[[list[np.ndarray]], np.ndarray]
) -> np.ndarray:
    """(4, 2) float32 corners (TL, TR, BR, BL) of objective ``card``'s face from its markers:
    each marker is either the top-left or the bottom-right one; with one marker, the card is
    taken on the side ``choose`` picks among the two possible outlines."""
    from vision.kit.codes import face_codes
    from vision.kit.geometry import face_size_wh_mm

    fc = face_codes(card, "front")
    wmm, hmm = face_size_wh_mm(card)
    outline = np.float32([[0, 0], [wmm, 0], [wmm, hmm], [0, hmm]])
    mine = [m for m in markers if m.card == card and m.face == "front"]

    def rect_pts(r: Any) -> np.ndarray:
        return np.float32([[r.x, r.y], [r.x1, r.y], [r.x1, r.y1], [r.x, r.y1]])

    best: tuple[float, np.ndarray] | None = None
    r0, r1 = (rect_pts(r) for r in fc.marker_rects)
    if len(mine) >= 2:
        a, b = mine[0].corners_px, mine[1].corners_px
        for src in (np.vstack([r0, r1]), np.vstack([r1, r0])):
            dst = np.vstack([a, b])
            hmat, _ = cv2.findHomography(src, dst)
            if hmat is None:
                continue
            err = float(np.abs(cv2.perspectiveTransform(src[None], hmat)[0] - dst).mean())
            quad = cv2.perspectiveTransform(outline[None], hmat)[0]
            if best is None or err < best[0]:
                best = (err, quad)
    if best is None:
        # one marker: both hypotheses; keep the one whose card lies more on paper
        m = mine[0].corners_px
        cands = []
        for r in (r0, r1):
            hmat = cv2.getPerspectiveTransform(r, m)
            cands.append(cv2.perspectiveTransform(outline[None], hmat)[0])
        best = (0.0, choose(cands))
    return best[1].astype(np.float32)


def _inside(quad: np.ndarray, pt: tuple[float, float], margin: float = 0.0) -> bool:
    """Whether point ``pt`` (px) lies in ``quad`` ((4, 2) px) or within ``margin`` px of it."""
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32), pt, True) >= -margin


def _chroma(frame: np.ndarray, blob: Blob, im: InkMap) -> float:
    """Mean HSV saturation (0..1) of the blob's pixels: low for black ink."""
    x, y, w, h = blob.box_xywh
    own = im.labels[y : y + h, x : x + w] == blob.label
    px = frame[y : y + h, x : x + w][own].astype(np.float32)
    if px.size == 0:
        return 0.0
    hi, lo = px.max(axis=1), px.min(axis=1)
    return float(((hi - lo) / np.maximum(hi, 1)).mean())


BLACK_CHROMA_MAX = 0.25
"""Ink this little coloured (mean HSV saturation) is black: objective cards print black items,
player sets coloured ones. A matching deck that knows its cards reads an objective from a
group of black items that the strict rule would not take (``_objective_by_items``)."""


GROUP_SIZE_MAX = 1.3
"""A group of items whose mean size is more than this times the median size of the items
elsewhere is not the objective's (``_objective_by_items``)."""


def _objective_by_items(
    frame: np.ndarray, items: list[tuple[ItemSighting, Blob]], im: InkMap, lenient: bool = False
) -> list[int] | None:
    """Indices (into ``items``) of the objective's items read without a code: groups of items
    lying together (centres closer than 1.7 item sizes), of 3 or 4 items, with at least two
    items elsewhere (the player's); the group whose ink is least coloured, then smallest, is
    the objective, never one whose items are larger than those elsewhere (``GROUP_SIZE_MAX``).
    None when there is no such group.

    ``lenient`` (a matching deck that knows its objective cards: the cards that the items
    seen may be are then judged): also groups of 2 to 4 black items (``BLACK_CHROMA_MAX``;
    the card's other items under a hand or merged with a printed code) with at least one item
    elsewhere (the player's others under an arm); of groups as little coloured, one of 3 or 4
    items comes first."""
    n = len(items)
    if n < (3 if lenient else 5):
        return None
    size = np.array([max(b.box_xywh[2], b.box_xywh[3]) for _, b in items], np.float64)
    ctr = np.array([b.centre_px for _, b in items], np.float64)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if np.linalg.norm(ctr[i] - ctr[j]) < 1.7 * max(size[i], size[j]):
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    # the objective lies apart from the player's cards, which show at least two items
    cands = [g for g in groups.values() if 3 <= len(g) <= 4 and n - len(g) >= 2]
    chroma = np.array([_chroma(frame, b, im) for _, b in items])
    if lenient:
        cands += [
            g
            for g in groups.values()
            if 2 <= len(g) <= 4
            and n - len(g) >= 1
            and float(chroma[g].mean()) <= BLACK_CHROMA_MAX
            and g not in cands
        ]
    # objective items are printed smaller than the player's (21 mm against 30 mm): a group
    # of items larger than those elsewhere is the player's cards
    cands = [
        g
        for g in cands
        if float(size[g].mean()) <= GROUP_SIZE_MAX * float(np.median(np.delete(size, g)))
    ]
    if not cands:
        return None
    med_size = float(np.median(size))

    def key(g: list[int]) -> tuple[float, int, float]:
        # least coloured first; of groups as little coloured, one of 3 or 4 before a pair
        pair = int(len(g) < 3)
        return (round(float(chroma[g].mean()), 1), pair, float(size[g].mean()) / med_size)

    return min(cands, key=key)


MAYBE_P = 0.005
"""A name with at least this probability is one an item in doubt may have."""


def _doubt(probs: np.ndarray, deck: ItemDeck, top: list[str]) -> tuple[frozenset[str], ...]:
    """Per objective item (rows of ``probs``, (n, K + 1)), the names it may have: those with
    probability at least ``MAYBE_P``, and its top name ``top[i]``."""
    k = len(deck.items)
    return tuple(
        frozenset(deck.items[j] for j in np.flatnonzero(p[:k] >= MAYBE_P)) | {name}
        for p, name in zip(probs, top, strict=True)
    )


def _plausible(
    doubt: tuple[frozenset[str], ...], objectives: dict[str, tuple[str, ...]]
) -> list[tuple[str, tuple[str, ...]]]:
    """The objective cards (card, sorted items) that the items in doubt may be: cards of
    ``len(doubt)`` to ``OBJECTIVE_MAX_ITEMS`` items (an item may have been missed) to whose
    distinct items the seen items can each be given one of their possible names."""
    n = len(doubt)
    out = []
    for card, items in sorted(objectives.items()):
        if not n <= len(items) <= OBJECTIVE_MAX_ITEMS:
            continue
        if any(
            all(name in d for name, d in zip(perm, doubt, strict=True))
            for perm in itertools.permutations(items, n)
        ):
            out.append((card, tuple(sorted(items))))
    return out


def _agrees(
    seen: list[tuple[ItemSighting, Blob]], on: frozenset[int], items: tuple[str, ...]
) -> bool:
    """Whether the items surely seen inside an objective card found by the whole-frame search
    are all printed on it (a marker read in a texture by chance must not set the objective)."""
    return all(seen[i][0].item in items for i in on if seen[i][0].status == "visible")


OBJECTIVE_MEAN_P = 0.3
"""Reading a known objective from its items: the geometric mean probability of its items
(in the best matching of blobs to items) must reach this, ..."""
OBJECTIVE_MARGIN = 20.0
"""... and be this many times the product of the next best objective's."""


UNSEEN_ITEM_P = 0.15
"""How often an objective card's item is not seen (merged with its printed code, under a
hand, too small): 13-15% of them on rendered claims of new art (development seeds 0-2, with
a deck registered from photos). A card of more items than the blobs read is that much less
likely for each item it needs unseen."""


def _known_objective(probs: np.ndarray, deck: ItemDeck) -> tuple[str, tuple[str, ...]] | None:
    """The deck's objective card that the blobs ((n, K + 1) item probabilities) show best:
    every known objective of n items is matched to the blobs (best assignment); the best must
    be likely (``OBJECTIVE_MEAN_P``) and clearly ahead (``OBJECTIVE_MARGIN``). None else.

    With a matching deck (``ItemDeck.matcher``) the cards of more items than blobs are
    matched too, the blobs to as many of their items (an item merged with a printed code or
    under a hand is not seen): the card is then known by the items seen, when no other card
    has them as likely, each item not seen counting at its odds (``UNSEEN_ITEM_P``)."""
    n = probs.shape[0]
    logp = np.log(np.maximum(probs[:, : len(deck.items)], 1e-9))
    col = {name: k for k, name in enumerate(deck.items)}
    most = OBJECTIVE_MAX_ITEMS if deck.matcher is not None else n
    scored: list[tuple[float, str]] = []
    for card, items in deck.objectives.items():
        if not n <= len(items) <= most or any(i not in col for i in items):
            continue
        cols = [col[i] for i in items]
        best = max(
            sum(logp[r, c] for r, c in zip(range(n), perm, strict=True))
            for perm in itertools.permutations(cols, n)
        )
        # each of its items not seen is itself an event of its odds
        best += (len(items) - n) * np.log(UNSEEN_ITEM_P)
        scored.append((best, card))
    if not scored:
        return None
    scored.sort(reverse=True)
    top, card = scored[0]
    runner = scored[1][0] if len(scored) > 1 else -np.inf
    if top / n < np.log(OBJECTIVE_MEAN_P) or top - runner < np.log(OBJECTIVE_MARGIN):
        return None
    return card, tuple(sorted(deck.objectives[card]))
