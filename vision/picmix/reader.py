"""Verify a Picmix claim in one frame: the objective, the items showing on the player's cards,
and the verdict.

Stateless: ``verify_frame(frame)`` reads one (H, W, 3) uint8 BGR frame and returns a
``PicmixReading`` or a falsy ``PicmixFailure`` with its reason. Steps:

1. *Blobs*: ink on paper (``vision.picmix.ink``), geometry-free; items joined to a hand, an
   arm or a card's edge by the shadow it casts are split off by their ink's depth and colour.
2. *Items by their look*: each blob's crop goes through the item model
   (``vision.picmix.model``): the deck's item it shows (or "not an item") and the share of
   that item's printed area that shows.
3. *Objective*: by its printed code when one is readable (an ArUco marker of an objective
   front, ``vision.kit.card_for_marker``; its pose gives the card's outline, and the items
   inside it are the objective's, not the player's), else by reading its items: the group of
   3 or 4 items lying together whose ink is the least coloured and smallest (the kit prints
   objectives in black at 21 mm, player items in colour at 30 mm). When it cannot be read,
   items showing on the player's cards that no objective card has all of make the claim
   ``wrong`` whichever card it is (``_wrong_whichever``).
4. *Visibility rule* (``VISIBLE_MIN``): an item counts as showing when at least a quarter of
   its printed area shows. The model's estimate of that share has an error, so an item
   estimated inside ``UNSURE_BAND`` (or named with low confidence) is *unsure*. An item in
   doubt far from every item surely seen on the player's cards is not on them
   (``PLAYER_SPREAD_ITEMS``). A share in the band that the area measure at a player marker's
   scale puts well above it (``AREA_SHOWS``, a fingertip over part of the item) shows.
5. *Verdict*: ``wrong`` when an item outside the objective surely shows or an objective item
   surely does not; ``correct`` when the visible items are exactly the objective's and none is
   unsure; otherwise ``unsure``, naming the items in doubt. Never a confident answer that an
   unsure item could overturn.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, NamedTuple

import cv2
import numpy as np

from vision.picmix.area import area_share, card_px_from_items, card_px_from_markers
from vision.picmix.crops import blob_crops
from vision.picmix.ink import (
    MAX_SIDE_PX,
    Blob,
    InkMap,
    candidates,
    hand_in_view,
    ink_colour,
    ink_map,
    occluders,
    split_by_colour,
    split_by_core,
)
from vision.picmix.markers import dark_cores, read_marker, search_frame
from vision.picmix.model import ItemDeck, ItemModel, ItemScores, kit_deck, load_item_model
from vision.sources.guard import check_frame

VISIBLE_MIN = 0.25
"""An item shows when at least this share of its printed area is visible (not covered by
another card, a hand or anything else)."""
UNSURE_BAND = (0.12, 0.45)
"""Estimated visible shares in this range are too close to ``VISIBLE_MIN`` to call: the item
is unsure. Below it the blob is a sliver of a covered item; above it the item shows."""
NAME_MIN = 0.90
"""An item that shows must be named with at least this probability, else it is unsure."""
ITEM_MIN = 0.5
"""A blob is an item (not a marker, text, hand...) when P(not an item) is below this."""

Verdict = Literal["correct", "wrong", "unsure"]
Status = Literal["visible", "unsure", "hidden"]


@dataclass(frozen=True)
class ItemSighting:
    """One item seen in the frame.

    ``item``: the deck's item name; ``box_xywh``: its blob's bounding box (px);
    ``visible_share``: estimated share of its printed area that shows (0..1), the smaller of
    the look's and the area's estimates (the area's when both agree it surely shows,
    ``_shows_by_area``); ``look_share``: the look's (the model's) alone;
    ``confidence``: probability of the name; ``runner_up``: the next likeliest name;
    ``status``: ``visible``, ``unsure`` or ``hidden`` (a sliver under the rule);
    ``on``: ``player`` or ``objective`` (the card it lies on); ``coded``: a player face whose
    code is read prints this item where the blob lies (so it is on the player's cards).
    """

    item: str
    box_xywh: tuple[int, int, int, int]
    visible_share: float
    look_share: float
    confidence: float
    runner_up: str
    status: Status
    on: Literal["player", "objective"]
    coded: bool = False


@dataclass(frozen=True)
class PicmixReading:
    """What one frame shows about a claim.

    ``objective_card``: its card id (None when read from items of an unknown deck);
    ``objective_items``: sorted; ``objective_method``: ``code`` or ``items``;
    ``objective_quad_px``: (4, 2) corners of the objective card when known (tuple of (x, y));
    ``visible``: distinct items surely showing on the player's cards, sorted;
    ``unsure``: items in doubt (near the visibility threshold or named with low confidence);
    ``verdict``, ``missing``, ``extra``: against the objective; ``sightings``: every item
    blob; ``reasons``: why the verdict is ``unsure``, or why a claim whose objective items are
    not all known is surely ``wrong`` (empty otherwise). With the objective card not read at
    all (``_wrong_whichever``), ``objective_card`` is None and ``objective_items`` empty.
    """

    objective_card: str | None
    objective_items: tuple[str, ...]
    objective_method: Literal["code", "items"]
    objective_quad_px: tuple[tuple[float, float], ...] | None
    visible: tuple[str, ...]
    unsure: tuple[str, ...]
    verdict: Verdict
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    sightings: tuple[ItemSighting, ...]
    reasons: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """docs/formats.md section 3 keys (``objective``, ``visible``, ``verdict``, ``missing``,
        ``extra``) plus ``unsure``, ``reasons``, ``objective_method`` and ``items``."""
        return {
            "objective": {"card": self.objective_card, "items": list(self.objective_items)},
            "visible": list(self.visible),
            "verdict": self.verdict,
            "missing": list(self.missing),
            "extra": list(self.extra),
            "unsure": list(self.unsure),
            "reasons": list(self.reasons),
            "objective_method": self.objective_method,
            "items": [
                {
                    "item": s.item,
                    "on": s.on,
                    "status": s.status,
                    "visible_share": round(s.visible_share, 3),
                    "confidence": round(s.confidence, 4),
                    "runner_up": s.runner_up,
                    "box": list(s.box_xywh),
                }
                for s in self.sightings
            ],
        }


@dataclass(frozen=True)
class PicmixFailure:
    """A frame that cannot be verified, and why. Falsy.

    ``covered``: a hand, an arm or an object lies over the cards in view, and what cannot be
    read may be under it: the claim is then ``unsure`` (no camera could judge it), not
    judged by guessing."""

    reason: str
    sightings: tuple[ItemSighting, ...] = ()
    covered: bool = False

    def __bool__(self) -> bool:
        return False

    def to_json(self) -> dict[str, Any]:
        """``{"error": reason}``; with ``"verdict": "unsure"`` and ``"reasons"`` when covered."""
        out: dict[str, Any] = {"error": self.reason}
        if self.covered:
            out.update(verdict="unsure", reasons=[self.reason])
        return out


# --------------------------------------------------------------------------------------------
# Blobs -> sightings
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Blobs:
    """Blobs with their scores, parallel: ``blobs`` (N), ``scores`` (N rows)."""

    im: InkMap
    blobs: list[Blob]
    scores: ItemScores


def _score_blobs(frame: np.ndarray, model: ItemModel, deck: ItemDeck) -> _Blobs:
    """Candidate blobs and their scores; items stuck to a hand are split off by their ink's
    depth (``vision.picmix.ink.split_by_core``) and colour (``split_by_colour``) and scored
    too; a blob named in doubt is split by depth when that names one of its parts surely
    (``_split_doubtful``)."""
    im = ink_map(frame)
    blobs = candidates(im)
    scores = model.score(blob_crops(im, blobs), deck)
    k = len(deck.items)
    items = [b for b, p in zip(blobs, scores.probs, strict=True) if p[k] < ITEM_MIN]
    ab = ink_colour(frame, im, items)
    extra = split_by_core(frame, im)
    if ab is not None:
        extra += split_by_colour(frame, im, ab, int(im.stats.shape[0]) + len(extra))
    b = _Blobs(im, blobs, scores)
    if extra:
        b = _Blobs(im, blobs + extra, _joined(scores, model.score(blob_crops(im, extra), deck)))
    first = int(im.stats.shape[0]) + len(extra)
    return _split_doubtful(frame, b, len(blobs), model, deck, first)


def _joined(a: ItemScores, b: ItemScores) -> ItemScores:
    """The scores of ``a``'s blobs then ``b``'s."""
    return ItemScores(
        np.concatenate([a.probs, b.probs]),
        np.concatenate([a.visible, b.visible]),
        np.concatenate([a.emb, b.emb]),
    )


SPLIT_MAX_SHARE = 0.7
"""A blob named in doubt is split (``_split_doubtful``) only into several parts, or into one
part that leaves out at least the rest of its area: paper in a shadow joined to the item, not
only the item's own blurred rim."""


def _split_doubtful(
    frame: np.ndarray, b: _Blobs, n: int, model: ItemModel, deck: ItemDeck, first_label: int
) -> _Blobs:
    """``b`` with each of its first ``n`` blobs (the ink components) that is an item named in
    doubt replaced by its deep-ink parts (``split_by_core``), when they are several or leave
    out a good share of it (``SPLIT_MAX_SHARE``), and one of them is an item named surely
    and shown whole enough to count: an item joined to the shadow along a card's edge over
    it. Other blobs in doubt are left as they were (their pixels keep their label)."""
    k = len(deck.items)
    p = b.scores.probs[:n]
    doubtful = np.flatnonzero((p[:, k] < ITEM_MIN) & (p[:, :k].max(axis=1) < NAME_MIN))
    if len(doubtful) == 0:
        return b
    parts: dict[int, list[Blob]] = {}
    for i in doubtful:
        blob = b.blobs[int(i)]
        got = split_by_core(frame, b.im, [blob.label], first_label)
        first_label += len(got)
        if len(got) > 1 or (got and got[0].area_px <= SPLIT_MAX_SHARE * blob.area_px):
            parts[int(i)] = got
        else:
            _unsplit(b.im, blob, got)
    if not parts:
        return b
    flat = [g for got in parts.values() for g in got]
    s = model.score(blob_crops(b.im, flat), deck)
    sure = (s.probs[:, k] < ITEM_MIN) & (s.probs[:, :k].max(axis=1) >= NAME_MIN)
    sure &= s.visible >= UNSURE_BAND[1]
    keep = np.ones(len(b.blobs), bool)
    take = np.zeros(len(flat), bool)
    j = 0
    for i, got in parts.items():
        if sure[j : j + len(got)].any():
            keep[i] = False
            take[j : j + len(got)] = True
        else:
            _unsplit(b.im, b.blobs[i], got)
        j += len(got)
    blobs = [bl for bl, kp in zip(b.blobs, keep, strict=True) if kp]
    blobs += [g for g, t in zip(flat, take, strict=True) if t]
    scores = ItemScores(b.scores.probs[keep], b.scores.visible[keep], b.scores.emb[keep])
    return _Blobs(
        b.im, blobs, _joined(scores, ItemScores(s.probs[take], s.visible[take], s.emb[take]))
    )


def _unsplit(im: InkMap, blob: Blob, parts: list[Blob]) -> None:
    """Give the pixels of ``parts`` (split off ``blob``) back to ``blob``'s label."""
    for g in parts:
        x, y, w, h = g.box_xywh
        region = im.labels[y : y + h, x : x + w]
        region[region == g.label] = blob.label
        im.split_from.pop(g.label, None)


def _status(visible: float, conf: float) -> Status:
    """The visibility rule on an estimated share and a naming probability."""
    lo, hi = UNSURE_BAND
    if visible < lo:
        return "hidden"
    if visible < hi or conf < NAME_MIN:
        return "unsure"
    return "visible"


class _Named(NamedTuple):
    """A blob named (``_sightings``): ``first``/``second`` item indices, ``conf`` the name's
    probability (among the codes' items when a code prints one there), ``look`` the model's
    visible share, ``look_p`` the look's own probability of ``first``, ``bad`` rather not an
    item, ``coded`` the name one that a code prints there."""

    blob: Blob
    first: int
    second: int
    conf: float
    look: float
    look_p: float
    bad: bool
    coded: bool


AREA_SHOWS = 0.65
"""An item whose look puts its share in ``UNSURE_BAND`` (a fingertip over part of it makes the
model see less of it than shows) still surely shows when its area measure at a card marker's
scale reads at least this share, the look at least ``VISIBLE_MIN`` and the look itself names
it first (``_shows_by_area``)."""


def _shows_by_area(n: _Named, area: float) -> bool:
    """Whether the two measures of a blob's share agree it surely shows although the look's is
    in the band: area (marker scale) at least ``AREA_SHOWS``, the look above the rule, and the
    name the look's own likeliest (at least 0.5), not only the codes'."""
    return (
        area >= AREA_SHOWS
        and VISIBLE_MIN <= n.look < UNSURE_BAND[1]
        and n.look_p >= 0.5
        and n.conf >= NAME_MIN
        and not n.bad
    )


def _sightings(
    b: _Blobs,
    deck: ItemDeck,
    hints: list[set[int]] | None = None,
    markers: list[np.ndarray] | None = None,
) -> list[tuple[ItemSighting, Blob]]:
    """Item sightings of the blobs. ``hints[n]``: item indices that card codes print where
    blob n lies (empty: no code there); the name is then chosen among them, unless the look
    flatly contradicts them (the look's name is then kept). ``markers``: corners of the player
    cards' markers read, for the local scale of the area measure (``vision.picmix.area``)."""
    k = len(deck.items)
    named: list[_Named] = []
    for n, (blob, p, v) in enumerate(zip(b.blobs, b.scores.probs, b.scores.visible, strict=True)):
        p_bg = float(p[k])
        if p_bg >= ITEM_MIN and float(v) < UNSURE_BAND[1]:
            continue  # not an item (or a sliver the model cannot name)
        q = p[:k]
        order = [int(i) for i in np.argsort(-q)]
        conf = float(q[order[0]])
        cand = hints[n] if hints else set()
        if cand:
            idx = sorted(cand)
            sub = q[idx] / max(float(q[idx].sum()) + p_bg, 1e-12)
            best = idx[int(np.argmax(sub))]
            # unless the look flatly names another item: the blob then lies on a card whose
            # code was not read (a neighbour's code only says what its own face prints there)
            if not (float(q[best]) < 0.02 and conf >= 0.95):
                order = [best] + [i for i in order if i != best]
                conf = float(sub.max()) / max(float(sub.sum()), 1e-12)
        second = order[1] if k > 1 else order[0]
        named.append(
            _Named(
                blob,
                order[0],
                second,
                conf,
                float(v),
                float(q[order[0]]),
                p_bg >= ITEM_MIN,
                order[0] in cand,
            )
        )
    # the area measure: the whole item's area where the blob lies
    ratios = deck.area_ratios
    whole = [
        (n.blob.area_px, ratios[deck.items[n.first]])
        for n in named
        if not n.bad and n.conf >= NAME_MIN and n.look >= 0.85 and deck.items[n.first] in ratios
    ]
    from_items = card_px_from_items([a for a, _ in whole], [r for _, r in whole])
    out: list[tuple[ItemSighting, Blob]] = []
    for n in named:
        item = deck.items[n.first]
        vis = n.look
        if item in ratios:
            by_marker = card_px_from_markers(n.blob.centre_px, markers or [])
            card_px = by_marker or from_items
            if card_px is not None:
                area = area_share(n.blob, ratios[item], card_px)
                shows = by_marker is not None and _shows_by_area(n, area)
                vis = min(1.0, area) if shows else min(vis, area)
        status = "unsure" if n.bad else _status(vis, n.conf)
        out.append(
            (
                ItemSighting(
                    item=item,
                    box_xywh=n.blob.box_xywh,
                    visible_share=vis,
                    look_share=n.look,
                    confidence=n.conf,
                    runner_up=deck.items[n.second],
                    status=status,
                    on="player",
                    coded=n.coded,
                ),
                n.blob,
            )
        )
    return out


# --------------------------------------------------------------------------------------------
# The objective
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Marker:
    card: str
    face: str
    corners_px: np.ndarray  # (4, 2) float32, ArUco order
    searched: bool = False  # found by the whole-frame search (``_objective_markers``)


def _markers(frame: np.ndarray, b: _Blobs, deck: ItemDeck) -> list[_Marker]:
    """Card markers read from the blobs that are not items (``vision.picmix.markers``). Only
    the kit's cards carry them; other decks get none."""
    if deck.name != "picmix":
        return []
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    out: list[_Marker] = []
    for blob in b.blobs:
        m = read_marker(grey, b.im, blob)
        if m is not None:
            out.append(_Marker(m.card, m.face, m.corners_px))
    return out


def _objective_markers(
    frame: np.ndarray, markers: list[_Marker], deck: ItemDeck, b: _Blobs
) -> list[_Marker]:
    """The objective's markers when none was read from the blobs: a hand touching the card,
    an arm's shadow over it or the table beyond its edge joins a marker to a large blob that
    ``read_marker`` does not read. First the dark cores of the large blobs
    (``vision.picmix.markers.dark_cores``, a few ms), then a whole-frame ArUco search (20-100
    ms), so only on such frames."""
    if deck.name != "picmix" or any(
        m.face == "front" and m.card in deck.objectives for m in markers
    ):
        return []
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    im = b.im
    side = np.maximum(im.stats[:, 2], im.stats[:, 3])
    large = [int(i) for i in np.flatnonzero(side > MAX_SIDE_PX) if i > 0]
    for find in (lambda: dark_cores(grey, im, large), lambda: search_frame(grey)):
        found = [
            _Marker(m.card, m.face, m.corners_px, searched=True)
            for m in find()
            if m.face == "front" and m.card in deck.objectives
        ]
        if found:
            return found
    return []


def _hints(markers: list[_Marker], b: _Blobs, deck: ItemDeck) -> list[set[int]]:
    """Per blob, the items that the player faces whose markers were read print where the blob
    lies. A face has the same marker in both halves, so both readings of a marker (left-half
    or right-half one) are tried; a wrong one only adds a candidate that the look rules out."""
    hints: list[set[int]] = [set() for _ in b.blobs]
    if not markers or not b.blobs:
        return hints
    from vision.kit.codes import face_codes
    from vision.kit.render import picmix_item_layout

    index = {name: i for i, name in enumerate(deck.items)}
    centres = np.float32([blob.centre_px for blob in b.blobs])
    for m in markers:
        if m.card in deck.objectives:
            continue
        try:
            layout = picmix_item_layout(m.card)[m.face]  # type: ignore[index]
        except ValueError:
            continue
        for rect in face_codes(m.card, m.face).marker_rects:  # type: ignore[arg-type]
            src = np.float32(
                [[rect.x, rect.y], [rect.x1, rect.y], [rect.x1, rect.y1], [rect.x, rect.y1]]
            )
            hmat = cv2.getPerspectiveTransform(src, m.corners_px)
            for item, box in layout.values():
                if item not in index:
                    continue
                g = 0.12 * box.w  # a little slack round the box
                quad = np.float32(
                    [
                        [box.x - g, box.y - g],
                        [box.x1 + g, box.y - g],
                        [box.x1 + g, box.y1 + g],
                        [box.x - g, box.y1 + g],
                    ]
                )
                qpx = cv2.perspectiveTransform(quad[None], hmat)[0]
                for n, c in enumerate(centres):
                    if (
                        cv2.pointPolygonTest(
                            qpx.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False
                        )
                        >= 0
                    ):
                        hints[n].add(index[item])
    return hints


def _objective_quad(
    markers: list[_Marker], card: str, choose: Callable[[list[np.ndarray]], np.ndarray]
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


def _objective_by_items(
    frame: np.ndarray, items: list[tuple[ItemSighting, Blob]], im: InkMap
) -> list[int] | None:
    """Indices (into ``items``) of the objective's items read without a code: groups of items
    lying together (centres closer than 1.7 item sizes), of 3 or 4 items, with at least two
    items elsewhere (the player's); the group whose ink is least coloured, then smallest, is
    the objective. None when there is no such group."""
    n = len(items)
    if n < 3:
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
    if not cands:
        return None
    chroma = np.array([_chroma(frame, b, im) for _, b in items])
    med_size = float(np.median(size))

    def key(g: list[int]) -> tuple[float, float]:
        return (round(float(chroma[g].mean()), 1), float(size[g].mean()) / med_size)

    return min(cands, key=key)


# --------------------------------------------------------------------------------------------
# Verdict
# --------------------------------------------------------------------------------------------
UNNAMED = "?"
"""In the unsure set: an item whose name is in doubt (it could be any item)."""


def decide(
    objective: set[str], visible: set[str], unsure: set[str]
) -> tuple[Verdict, list[str], list[str], list[str]]:
    """(verdict, missing, extra, reasons) from the surely visible and the unsure items
    (``UNNAMED`` among them: an item in view whose name is in doubt).

    ``wrong`` needs a sure reason: a surely visible extra item, or an objective item that is
    neither visible nor unsure (nor possibly the unnamed one). With no unsure item left that
    could change the answer, equal sets are ``correct``; otherwise ``unsure``."""
    extra = sorted(visible - objective)
    doubt = unsure - visible
    wildcard = UNNAMED in doubt
    doubt.discard(UNNAMED)
    missing = sorted(objective - visible - doubt)
    reasons: list[str] = []
    if extra or (missing and not wildcard):
        return "wrong", sorted(objective - visible), extra, reasons
    if wildcard:
        reasons.append(
            "an item in view is not surely named"
            + (f" (maybe {', '.join(missing)})" if missing else "")
        )
    if doubt or wildcard:
        for item in sorted(doubt):
            if item in objective:
                reasons.append(f"{item}: objective item, not surely visible")
            else:
                reasons.append(f"{item}: other item, maybe visible")
        return "unsure", sorted(objective - visible), extra, reasons
    return "correct", [], [], reasons


OBJECTIVE_MAX_ITEMS = 4
"""An objective card shows 3 or 4 items (the rules)."""


def decide_in_doubt(
    doubt: tuple[frozenset[str], ...], visible: set[str], unsure: set[str]
) -> tuple[Verdict, list[str], list[str], list[str]]:
    """(verdict, missing, extra, reasons) against an objective read from ``len(doubt)``
    distinct items whose names are in doubt (``doubt[i]``: the names item i may have). An
    item of the card may have been missed (under a finger, or merged), so it has at least
    ``len(doubt)`` items and at most ``OBJECTIVE_MAX_ITEMS``. Only ``wrong`` (surely) or
    ``unsure``: more items surely show than the card can have; or, when all of its items are
    read, one that it cannot have; or fewer could show than it has."""
    n = len(doubt)
    if n >= OBJECTIVE_MAX_ITEMS:
        maybe = set().union(*doubt)
        extra = sorted(visible - maybe)
        if extra:
            return "wrong", [], extra, [f"{', '.join(extra)}: not on the objective card"]
    most = max(n, OBJECTIVE_MAX_ITEMS)
    if len(visible) > most:
        return (
            "wrong",
            [],
            [],
            [f"{len(visible)} items show, an objective card has {most} or fewer"],
        )
    could = visible | (unsure - {UNNAMED})
    if UNNAMED not in unsure and len(could) < n:
        return "wrong", [], [], [f"at most {len(could)} items show, the objective card has {n}"]
    names = ", ".join("/".join(sorted(d)) for d in doubt if len(d) > 1)
    return "unsure", [], [], [f"objective items not surely named ({names})"]


@dataclass(frozen=True, eq=False)
class FrameItems:
    """Everything item-like in one frame: ``seen`` (sighting, blob) pairs (sightings all
    ``on="player"`` until an objective claims them) and the card ``markers`` read."""

    seen: list[tuple[ItemSighting, Blob]]
    markers: list[_Marker]
    blobs: _Blobs


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


def decide_among(
    cands: tuple[tuple[str, tuple[str, ...]], ...], visible: set[str], unsure: set[str]
) -> tuple[Verdict, list[str], list[str], list[str]]:
    """(verdict, missing, extra, reasons) when the objective is one of the cards ``cands``
    ((card, items)): ``wrong`` or ``correct`` only when it is so whichever card it is."""
    got = [decide(set(items), visible, unsure) for _, items in cands]
    verdicts = {g[0] for g in got}
    if verdicts == {"wrong"}:
        extra = sorted(set.intersection(*(set(g[2]) for g in got)))
        missing = sorted(set.intersection(*(set(g[1]) for g in got)))
        return "wrong", missing, extra, []
    if verdicts == {"correct"}:
        return "correct", [], [], []
    cards = ", ".join(c for c, _ in cands)
    return "unsure", [], [], [f"objective card not surely read (one of {cards})"]


def read_items(
    frame: np.ndarray, deck: ItemDeck, model: ItemModel, *, use_codes: bool = True
) -> FrameItems:
    """Blobs, item sightings and card markers of ``frame`` ((H, W, 3) uint8 BGR).
    ``use_codes=False`` ignores every printed code (items and objective by their look only)."""
    check_frame(frame)
    b = _score_blobs(frame, model, deck)
    markers = _markers(frame, b, deck) if use_codes else []
    if use_codes:
        markers += _objective_markers(frame, markers, deck, b)
    player = [m.corners_px for m in markers if m.card not in deck.objectives]
    seen = _sightings(b, deck, _hints(markers, b, deck), player)
    return FrameItems(seen, markers, b)


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
    live = [i for i, s in enumerate(seen) if s[0].look_share >= UNSURE_BAND[1]]
    group = _objective_by_items(frame, [seen[i] for i in live], fi.blobs.im)
    if group is None:
        return PicmixFailure(
            "no objective card in view (no objective code read, and no group of 3 or 4 items "
            "apart from the player's cards)",
            tuple(s for s, _ in seen),
        )
    on = frozenset(live[g] for g in group)
    if deck.objectives:
        index = {id(blob): n for n, blob in enumerate(fi.blobs.blobs)}
        probs = np.stack([fi.blobs.scores.probs[index[id(seen[i][1])]] for i in sorted(on)])
        known = _known_objective(probs, deck)
        if known is None:
            # not one card surely: the cards the items may be (a claim is then judged
            # against each of them, ``decide_among``)
            doubt = _doubt(probs, deck, [seen[i][0].item for i in sorted(on)])
            cands = _plausible(doubt, deck.objectives)
            names = sorted({seen[i][0].item for i in on})
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
        index = {id(blob): n for n, blob in enumerate(fi.blobs.blobs)}
        probs = np.stack([fi.blobs.scores.probs[index[id(seen[i][1])]] for i in sorted(on)])
        doubt = _doubt(probs, deck, [seen[i][0].item for i in sorted(on)])
        return Objective(None, tuple(sorted(seen[i][0].item for i in on)), "items", None, on, doubt)
    return Objective(None, tuple(names), "items", None, on)


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


def _known_objective(probs: np.ndarray, deck: ItemDeck) -> tuple[str, tuple[str, ...]] | None:
    """The deck's objective card that the blobs ((n, K + 1) item probabilities) show best:
    every known objective of n items is matched to the blobs (best assignment); the best must
    be likely (``OBJECTIVE_MEAN_P``) and clearly ahead (``OBJECTIVE_MARGIN``). None else."""
    n = probs.shape[0]
    logp = np.log(np.maximum(probs[:, : len(deck.items)], 1e-9))
    col = {name: k for k, name in enumerate(deck.items)}
    scored: list[tuple[float, str]] = []
    for card, items in deck.objectives.items():
        if len(items) != n or any(i not in col for i in items):
            continue
        cols = [col[i] for i in items]
        best = max(
            sum(logp[r, c] for r, c in zip(range(n), perm, strict=True))
            for perm in itertools.permutations(cols)
        )
        scored.append((best, card))
    if not scored:
        return None
    scored.sort(reverse=True)
    top, card = scored[0]
    runner = scored[1][0] if len(scored) > 1 else -np.inf
    if top / n < np.log(OBJECTIVE_MEAN_P) or top - runner < np.log(OBJECTIVE_MARGIN):
        return None
    return card, tuple(sorted(deck.objectives[card]))


def player_items(
    fi: FrameItems,
    exclude: frozenset[int] = frozenset(),
    keep: Callable[[Blob], bool] | None = None,
) -> tuple[list[ItemSighting], set[str], set[str]]:
    """(sightings, visible, unsure) of the items not in ``exclude`` (the objective's) and, when
    ``keep`` is given, whose blob it keeps (a seat's zone). A sighting named with low
    confidence makes its runner-up unsure too."""
    sightings: list[ItemSighting] = []
    visible: set[str] = set()
    unsure: set[str] = set()
    for i, (s, blob) in enumerate(fi.seen):
        if i in exclude:
            sightings.append(_replace_on(s, "objective"))
            continue
        if keep is not None and not keep(blob):
            continue
        sightings.append(s)
        if s.status == "visible":
            visible.add(s.item)
        elif s.status == "unsure":
            unsure.add(s.item)
            if s.confidence < NAME_MIN:
                unsure.update((s.runner_up, UNNAMED))
    return sightings, visible, unsure


MAX_WORK_SIDE_PX = 1600
"""Frames larger than this (longer side) are read shrunk to it (items then have the sizes
the reader expects at webcam resolution)."""
MIN_WORK_SIDE_PX = 480


def verify_frame(
    frame: np.ndarray,
    deck: ItemDeck | None = None,
    *,
    model: ItemModel | None = None,
    use_codes: bool = True,
) -> PicmixReading | PicmixFailure:
    """Verify the claim shown in ``frame`` ((H, W, 3) uint8 BGR): the objective card and one
    player's cards. ``deck``: the items' deck (default: the printable kit's Picmix deck);
    ``model``: the item model (default: ``load_item_model()``); ``use_codes=False``: ignore
    printed codes (the objective and the items by their look alone, as with retail cards).

    Scale: items are looked for at 9-110 px (a webcam frame of the table); a photo taken
    closer, where nothing is found, is read again at half and a quarter of its size. Boxes
    and corners are always in ``frame``'s pixels."""
    check_frame(frame)
    model = model or load_item_model()
    deck = deck or kit_deck(model)
    side = max(frame.shape[:2])
    scale = min(1.0, MAX_WORK_SIDE_PX / side)
    result: PicmixReading | PicmixFailure | None = None
    while True:
        work = frame
        if scale < 1.0:
            work = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        got = _verify_at(work, deck, model, use_codes)
        got = _rescaled(got, 1.0 / scale) if scale < 1.0 else got
        if result is None:
            result = got  # the failure at full scale says most
        if isinstance(got, PicmixReading) or side * scale / 2 < MIN_WORK_SIDE_PX:
            return result if isinstance(got, PicmixFailure) else got
        scale /= 2


def _rescaled(r: PicmixReading | PicmixFailure, k: float) -> PicmixReading | PicmixFailure:
    """``r`` with its boxes and corners multiplied by ``k`` (back to the frame's pixels)."""

    def box(s: ItemSighting) -> ItemSighting:
        x, y, w, h = s.box_xywh
        return replace(s, box_xywh=(round(x * k), round(y * k), round(w * k), round(h * k)))

    sightings = tuple(box(s) for s in r.sightings)
    if isinstance(r, PicmixFailure):
        return replace(r, sightings=sightings)
    quad = r.objective_quad_px
    q = None if quad is None else tuple((x * k, y * k) for x, y in quad)
    return replace(r, sightings=sightings, objective_quad_px=q)


def _verify_at(  # one scale of verify_frame
    frame: np.ndarray, deck: ItemDeck, model: ItemModel, use_codes: bool
) -> PicmixReading | PicmixFailure:
    fi = read_items(frame, deck, model, use_codes=use_codes)
    obj = find_objective(frame, fi, deck)
    if isinstance(obj, PicmixFailure):
        wrong = _wrong_whichever(fi, deck)
        if wrong is not None:
            return wrong
        if occluders(frame, fi.blobs.im) or hand_in_view(frame):
            return replace(
                obj,
                reason="no objective card found (neither its code nor its items can be read); "
                "it may be under something in view, such as a hand or arm",
                covered=True,
            )
        return obj
    sightings, visible, unsure = player_items(fi, obj.indices, _near_player_items(fi, obj.indices))
    if not any(s.on == "player" and s.status != "hidden" for s in sightings):
        if occluders(frame, fi.blobs.im) or hand_in_view(frame):
            return PicmixFailure(
                "no player cards found (no item outside the objective card can be read); "
                "they may be under something in view, such as a hand or arm",
                tuple(sightings),
                covered=True,
            )
        return PicmixFailure(
            "no player cards in view (no item outside the objective card)", tuple(sightings)
        )
    if obj.candidates:
        verdict, missing, extra, reasons = decide_among(obj.candidates, visible, unsure)
    elif obj.doubt:
        verdict, missing, extra, reasons = decide_in_doubt(obj.doubt, visible, unsure)
    else:
        verdict, missing, extra, reasons = decide(set(obj.items), visible, unsure)
    # a hand may hide an objective item, never show one too many
    surely_extra = bool(extra) or any("an objective card has" in r for r in reasons)
    if verdict == "wrong" and not surely_extra and _covered(frame, fi, sightings):
        # an objective item not seen may lie under the hand over the cards
        verdict = "unsure"
        what = ", ".join(missing) or "an objective item"
        reasons = [f"a hand or object lies over the player's cards: {what} may be under it"]
    quad = obj.quad_px
    return PicmixReading(
        objective_card=obj.card,
        objective_items=obj.items,
        objective_method=obj.method,
        objective_quad_px=None if quad is None else tuple((float(x), float(y)) for x, y in quad),
        visible=tuple(sorted(visible)),
        unsure=tuple(sorted(unsure - visible - {UNNAMED})),
        verdict=verdict,
        missing=tuple(missing),
        extra=tuple(extra),
        sightings=tuple(sightings),
        reasons=tuple(reasons),
    )


def _wrong_whichever(fi: FrameItems, deck: ItemDeck) -> PicmixReading | None:
    """A claim whose objective card cannot be read, judged against every objective card of the
    kit's deck (all of them are known): ``wrong`` when the items surely showing whose names the
    codes of the player's faces confirm (``ItemSighting.coded``: printed where they lie, so
    not the objective's own) are on no objective card, more items than it has or one it lacks,
    so that an item of the claim surely shows that is not on the objective, whichever card it
    is. None otherwise (the claim cannot be judged)."""
    if deck.name != "picmix" or not deck.objectives:
        return None
    shows = {s.item for s, _ in fi.seen if s.status == "visible" and s.coded}
    cards = [set(items) for items in deck.objectives.values()]
    if not shows or any(shows <= items for items in cards):
        return None
    sightings, visible, unsure = player_items(fi, keep=_near_player_items(fi, frozenset()))
    return PicmixReading(
        objective_card=None,
        objective_items=(),
        objective_method="items",
        objective_quad_px=None,
        visible=tuple(sorted(visible)),
        unsure=tuple(sorted(unsure - visible - {UNNAMED})),
        verdict="wrong",
        missing=(),
        extra=tuple(sorted(set.intersection(*(shows - items for items in cards)))),
        sightings=tuple(sightings),
        reasons=(
            f"the objective card is not read, but {', '.join(sorted(shows))} show on the "
            "player's cards, and no objective card has them all",
        ),
    )


PLAYER_SPREAD_ITEMS = 14.0
"""A claim's 2 to 4 player cards lie together: their items are at most about 300 mm (10 item
sizes) apart. A sighting in doubt farther than this many item sizes from every item surely
seen on them is not on them (the edge of a hand, a card elsewhere)."""


def _near_player_items(fi: FrameItems, exclude: frozenset[int]) -> Callable[[Blob], bool]:
    """A ``keep`` for ``player_items``: the blobs of items surely visible, and the others
    within ``PLAYER_SPREAD_ITEMS`` item sizes of one of those (each measured by its own size,
    which follows the perspective); all blobs when none is surely visible."""
    sure = [
        blob for i, (s, blob) in enumerate(fi.seen) if i not in exclude and s.status == "visible"
    ]
    if not sure:
        return lambda blob: True
    ctr = np.float64([b.centre_px for b in sure])
    reach = PLAYER_SPREAD_ITEMS * np.float64([max(b.box_xywh[2:]) for b in sure])
    ids = {id(b) for b in sure}

    def keep(blob: Blob) -> bool:
        d = np.hypot(*(ctr - np.float64(blob.centre_px)).T)
        return id(blob) in ids or bool((d <= reach).any())

    return keep


def _covered(frame: np.ndarray, fi: FrameItems, sightings: list[ItemSighting]) -> bool:
    """Whether something that is not the table (``vision.picmix.ink.occluders``) lies over
    the player's cards: its box meets the items' box grown by 1.5 item sizes."""
    boxes = [s.box_xywh for s in sightings if s.on == "player" and s.status != "hidden"]
    occ = occluders(frame, fi.blobs.im)
    if not boxes or not occ:
        return False
    size = float(np.median([max(w, h) for _, _, w, h in boxes]))
    g = 1.5 * size
    x0 = min(x for x, _, _, _ in boxes) - g
    y0 = min(y for _, y, _, _ in boxes) - g
    x1 = max(x + w for x, _, w, _ in boxes) + g
    y1 = max(y + h for _, y, _, h in boxes) + g
    return any(ox < x1 and ox + ow > x0 and oy < y1 and oy + oh > y0 for ox, oy, ow, oh in occ)


def _replace_on(s: ItemSighting, on: Literal["player", "objective"]) -> ItemSighting:
    """``s`` on another card."""
    return replace(s, on=on)


def share_text(share: float) -> str:
    """``"62%"``: a visible share as text."""
    return f"{math.floor(share * 100 + 0.5)}%"
