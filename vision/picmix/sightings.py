"""Steps 1, 2 and 4 of the Picmix reader (``vision.picmix.reader``): blobs, items by their
look, and the visibility rule.

``score_blobs`` finds the ink blobs of a frame (``vision.picmix.ink``) and scores each with the
item model (``vision.picmix.model``): the deck's item it shows (or "not an item") and the share
of that item's printed area that shows. Items joined to a hand, an arm or a card's edge by the
shadow it casts are split off by their ink's depth and colour, and a blob named in doubt by
its depth when that names one of its parts surely. ``item_sightings`` names the blobs (among
the items that card codes print there, when read) and applies the visibility rule
(``VISIBLE_MIN``, ``UNSURE_BAND``; the look's share checked by the area at a player marker's
scale, ``AREA_SHOWS``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from vision.picmix.area import area_share, card_px_from_items, card_px_from_markers
from vision.picmix.crops import blob_crops
from vision.picmix.ink import (
    Blob,
    InkMap,
    candidates,
    ink_colour,
    ink_map,
    split_by_colour,
    split_by_core,
)
from vision.picmix.model import ItemDeck, ItemModel, ItemScores
from vision.picmix.reading import (
    ITEM_MIN,
    NAME_MIN,
    UNSURE_BAND,
    VISIBLE_MIN,
    ItemSighting,
    Status,
)


@dataclass(frozen=True, eq=False)
class ScoredBlobs:
    """Blobs with their scores, parallel: ``blobs`` (N), ``scores`` (N rows)."""

    im: InkMap
    blobs: list[Blob]
    scores: ItemScores


def score_blobs(frame: np.ndarray, model: ItemModel, deck: ItemDeck) -> ScoredBlobs:
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
    b = ScoredBlobs(im, blobs, scores)
    if extra:
        b = ScoredBlobs(
            im, blobs + extra, _joined(scores, model.score(blob_crops(im, extra), deck))
        )
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
    frame: np.ndarray, b: ScoredBlobs, n: int, model: ItemModel, deck: ItemDeck, first_label: int
) -> ScoredBlobs:
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
    return ScoredBlobs(
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
    """A blob named (``item_sightings``): ``first``/``second`` item indices, ``conf`` the name's
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


def _measures_at_odds(n: _Named, area: float) -> bool:
    """Whether the two measures of a surely named blob's share flatly disagree: its area (at
    a card marker's scale, or at the other items') says it all shows (at least
    ``AREA_SHOWS``) where the look says it is hidden (under ``UNSURE_BAND``). The look was
    trained on the kit's art, and a registered deck's art it never saw (a thick frame read
    as a sliver) can fool it, where the area is measured on the deck's own photos. Neither
    is taken: the item is ``unsure``, never hidden on the look's word alone."""
    return area >= AREA_SHOWS and n.look < UNSURE_BAND[0] and n.conf >= NAME_MIN and not n.bad


HINT_AGREE = 0.25
"""A name the codes give a blob from a marker in the face's *other* half is sure only when the
look gives it at least this share of what it gives the item it prefers, when that item is not
among the codes' names; else the name is in doubt between the two. A face's code names what
is printed on it, not what lies on top: another card laid over that half, whose code was not
read, shows its own item there. (A marker's own half shows, as its marker does.) On the
development claims that chose it, the ratio was 0.0004-0.13 where the code's name was wrong,
and as low where the look was wrong: no share tells them apart, so they are asked about."""


def item_sightings(
    b: ScoredBlobs,
    deck: ItemDeck,
    hints: list[set[int]] | None = None,
    markers: list[np.ndarray] | None = None,
    *,
    own: list[set[int]] | None = None,
) -> list[tuple[ItemSighting, Blob]]:
    """Item sightings of the blobs. ``hints[n]``: item indices that card codes print where
    blob n lies (empty: no code there); the name is then chosen among them, unless the look
    flatly contradicts them (the look's name is then kept), or names another item far more
    than a name printed in the other half of a face (``HINT_AGREE``: then in doubt).
    ``own[n]``: of ``hints[n]``, the items printed in the half of the marker read.
    ``markers``: corners of the player cards' markers read, for the local scale of the area
    measure (``vision.picmix.area``)."""
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
                look_best = order[0]
                order = [best] + [i for i in order if i != best]
                conf = float(sub.max()) / max(float(sub.sum()), 1e-12)
                mine = own[n] if own else set()
                if (
                    best not in mine
                    and look_best not in cand
                    and float(q[best]) < HINT_AGREE * float(q[look_best])
                ):
                    # named by the code of a marker in the face's other half, and the look
                    # names an item the codes do not print here far more: a card laid over
                    # this half shows its own item (its code not read), or the look is
                    # wrong. The two disagree: the name is in doubt
                    order = [best, look_best] + [i for i in order if i not in (best, look_best)]
                    conf = float(q[best]) / (float(q[best]) + float(q[look_best]))
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
        at_odds = False
        if item in ratios:
            by_marker = card_px_from_markers(n.blob.centre_px, markers or [])
            card_px = by_marker or from_items
            if card_px is not None:
                area = area_share(n.blob, ratios[item], card_px)
                shows = by_marker is not None and _shows_by_area(n, area)
                vis = min(1.0, area) if shows else min(vis, area)
                at_odds = _measures_at_odds(n, area)
        status = "unsure" if n.bad or at_odds else _status(vis, n.conf)
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
