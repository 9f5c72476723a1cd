"""Everything item-like in one frame (``read_items`` -> ``FrameItems``): the item sightings
(``vision.picmix.sightings``) and the card markers read, with the items that the codes of the
player faces read print where each blob lies (the names are then chosen among them).

Markers are read from the blobs that are not items (``vision.picmix.markers``); when no
objective marker is read that way, from the dark cores of large blobs, then by a whole-frame
search. Only the kit's cards carry them; other decks get none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from vision.picmix.ink import MAX_SIDE_PX, Blob
from vision.picmix.markers import card_reader_markers, dark_cores, read_marker, search_frame
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reading import ITEM_MIN, NAME_MIN, ItemSighting
from vision.picmix.sightings import ScoredBlobs, item_sightings, score_blobs
from vision.sources.guard import check_frame

#: How far ``read_items`` looks for the objective's code where its blobs read none.
SearchObjective = Literal["full", "fast", "none"]


@dataclass(frozen=True, eq=False)
class CardMarker:
    """A card's marker read: the ``card`` and ``face`` its code names, and where."""

    card: str
    face: str
    corners_px: np.ndarray  # (4, 2) float32, ArUco order
    searched: bool = False  # found by the whole-frame search (``_objective_markers``)


def _surely_items(b: ScoredBlobs, deck: ItemDeck) -> np.ndarray:
    """(N,) bool: the blobs the look names an item surely (not "not an item", and the name at
    least ``NAME_MIN``)."""
    k = len(deck.items)
    p = b.scores.probs
    if not len(p):
        return np.zeros(0, bool)
    return np.asarray((p[:, k] < ITEM_MIN) & (p[:, :k].max(axis=1) >= NAME_MIN), bool)


def _markers(
    frame: np.ndarray, b: ScoredBlobs, deck: ItemDeck, items: np.ndarray
) -> list[CardMarker]:
    """Card markers read from the blobs that are not surely items (``items``, from
    ``_surely_items``; ``vision.picmix.markers``: on a printed cloth, most of hundreds of
    blobs are not read). Only the kit's cards carry them; other decks get none."""
    if deck.name != "picmix":
        return []
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    out: list[CardMarker] = []
    for blob, item in zip(b.blobs, items, strict=True):
        if item:
            continue
        m = read_marker(grey, b.im, blob)
        if m is not None:
            out.append(CardMarker(m.card, m.face, m.corners_px))
    return out


def _objective_markers(
    frame: np.ndarray,
    markers: list[CardMarker],
    deck: ItemDeck,
    b: ScoredBlobs,
    card_reader: bool = True,
) -> list[CardMarker]:
    """The objective's markers when none was read from the blobs: a hand touching the card,
    an arm's shadow over it or the table beyond its edge joins a marker to a large blob that
    ``read_marker`` does not read, and a small blurred marker reads no cell right. First the
    dark cores of the large blobs (``vision.picmix.markers.dark_cores``, a few ms), then the
    card reader's codes (``card_reader_markers``, unless ``card_reader`` is False: 20-80
    ms), then a whole-frame ArUco search (20-100 ms), so only on such frames."""
    if deck.name != "picmix" or any(
        m.face == "front" and m.card in deck.objectives for m in markers
    ):
        return []
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    im = b.im
    side = np.maximum(im.stats[:, 2], im.stats[:, 3])
    large = [int(i) for i in np.flatnonzero(side > MAX_SIDE_PX) if i > 0]
    finders = [lambda: dark_cores(grey, im, large), lambda: search_frame(grey)]
    if card_reader:
        finders.insert(1, lambda: card_reader_markers(frame))
    for find in finders:
        found = [
            CardMarker(m.card, m.face, m.corners_px, searched=True)
            for m in find()
            if m.face == "front" and m.card in deck.objectives
        ]
        if found:
            return found
    return []


HALF_LOOK_MIN = 0.5
"""A marker read is taken to be in the half whose own item a blob there shows, by the look's
probability of that item at least this much, when only one of the two halves has one
(``_hints``)."""


def _item_quads(
    m: CardMarker, deck: ItemDeck
) -> list[tuple[str, list[tuple[str, str, np.ndarray]]]]:
    """Per reading of marker ``m`` (in the face's left or right half): that half's name and
    the (half, item, quad px) of the face's items, each box with a little slack. Empty when the
    card is no player card the kit knows."""
    from vision.kit.codes import face_codes
    from vision.kit.render import picmix_item_layout

    try:
        layout = picmix_item_layout(m.card)[m.face]  # type: ignore[index]
    except ValueError:
        return []
    rects = face_codes(m.card, m.face).marker_rects  # type: ignore[arg-type]
    out = []
    for rect, marker_half in zip(rects, ("left", "right"), strict=True):
        src = np.float32(
            [[rect.x, rect.y], [rect.x1, rect.y], [rect.x1, rect.y1], [rect.x, rect.y1]]
        )
        hmat = cv2.getPerspectiveTransform(src, m.corners_px)
        quads = []
        for half, (item, box) in layout.items():
            g = 0.12 * box.w  # a little slack round the box
            quad = np.float32(
                [
                    [box.x - g, box.y - g],
                    [box.x1 + g, box.y - g],
                    [box.x1 + g, box.y1 + g],
                    [box.x - g, box.y1 + g],
                ]
            )
            quads.append((half, item, cv2.perspectiveTransform(quad[None], hmat)[0]))
        out.append((marker_half, quads))
    return out


def _inside(quad: np.ndarray, centres: np.ndarray) -> list[int]:
    """Indices of the ``centres`` (N, 2) inside ``quad`` (4, 2)."""
    q = quad.reshape(-1, 1, 2)
    return [
        n
        for n, c in enumerate(centres)
        if cv2.pointPolygonTest(q, (float(c[0]), float(c[1])), False) >= 0
    ]


def _hints(
    markers: list[CardMarker], b: ScoredBlobs, deck: ItemDeck
) -> tuple[list[set[int]], list[set[int]]]:
    """(hints, own): per blob, the items that the player faces whose markers were read print
    where the blob lies, and of those, the items printed in the half of the marker read. A
    face has the same marker in both halves, so both readings of a marker (left-half or
    right-half one) are tried, unless the look settles it: only one reading has a blob at its
    own half's item that the look names that item (``HALF_LOOK_MIN``); a wrong reading puts
    the face beside the card, where the table's print would be taken for its items.
    The half a marker is seen in shows (its marker does); the other half may lie under
    another card, whose own item then shows where the face prints its item."""
    hints: list[set[int]] = [set() for _ in b.blobs]
    own: list[set[int]] = [set() for _ in b.blobs]
    if not markers or not b.blobs:
        return hints, own
    index = {name: i for i, name in enumerate(deck.items)}
    centres = np.float32([blob.centre_px for blob in b.blobs])
    probs = b.scores.probs
    for m in markers:
        if m.card in deck.objectives:
            continue
        readings = _item_quads(m, deck)
        seen = [
            any(
                item in index and float(probs[n, index[item]]) >= HALF_LOOK_MIN
                for half, item, quad in quads
                if half == marker_half
                for n in _inside(quad, centres)
            )
            for marker_half, quads in readings
        ]
        if sum(seen) == 1:
            readings = [r for r, ok in zip(readings, seen, strict=True) if ok]
        for marker_half, quads in readings:
            for half, item, quad in quads:
                if item not in index:
                    continue
                for n in _inside(quad, centres):
                    hints[n].add(index[item])
                    if half == marker_half:
                        own[n].add(index[item])
    return hints, own


@dataclass(frozen=True, eq=False)
class FrameItems:
    """Everything item-like in one frame: ``seen`` (sighting, blob) pairs (sightings all
    ``on="player"`` until an objective claims them) and the card ``markers`` read;
    ``printed``, the ``id()`` of the blobs lying where a player face whose marker is read
    prints an item; ``faint``, the items printed in a read marker's own half where a blob
    lies that is no item surely named (either reading of the marker, unless the look settles
    it: ``_hints``)."""

    seen: list[tuple[ItemSighting, Blob]]
    markers: list[CardMarker]
    blobs: ScoredBlobs
    printed: frozenset[int] = frozenset()
    faint: frozenset[str] = frozenset()


def read_items(
    frame: np.ndarray,
    deck: ItemDeck,
    model: ItemModel,
    *,
    use_codes: bool = True,
    search_objective: SearchObjective = "full",
) -> FrameItems:
    """Blobs, item sightings and card markers of ``frame`` ((H, W, 3) uint8 BGR).
    ``use_codes=False`` ignores every printed code (items and objective by their look only).
    ``search_objective``: how far the objective's code is looked for where its blobs read
    none (``_objective_markers``): ``"full"`` every way (a claim verified on its own);
    ``"fast"`` without the card reader (a live follower looking for the objective in every
    frame: on rendered live sessions the card reader took about 80 ms on each frame before
    the objective was shown, which halved the frames a core follows a second); ``"none"``
    not at all (a caller that knows where the objective lies)."""
    check_frame(frame)
    b = score_blobs(frame, model, deck)
    items = _surely_items(b, deck)
    markers = _markers(frame, b, deck, items) if use_codes else []
    if use_codes and search_objective != "none":
        markers += _objective_markers(frame, markers, deck, b, search_objective == "full")
    player = [m.corners_px for m in markers if m.card not in deck.objectives]
    hints, own = _hints(markers, b, deck)
    seen = item_sightings(b, deck, hints, player, own=own)
    printed = frozenset(id(blob) for blob, h in zip(b.blobs, hints, strict=True) if h)
    faint = frozenset(deck.items[i] for n, mine in enumerate(own) if not items[n] for i in mine)
    return FrameItems(seen, markers, b, printed, faint)
