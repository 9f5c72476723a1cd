"""Reference decks: what a card looks like, for identification by its picture.

A deck holds, for every card, its reference image (the face, normalised so its long side is
:data:`REFERENCE_LONG_PX`), the whole-card appearance cells (:mod:`vision.identify.appearance`)
and its local features (:mod:`vision.identify.local`). Decks are built from images
(:func:`build_deck`) or, for the printable edition, from the kit's own card faces
(:func:`builtin_deck`: ``pickpic``, ``picflip``, ``picasso``, ``picmix``; fronts only).

On disk (a *deck folder*, ``<decks>/<NAME>/``; see :func:`decks_dir` for ``<decks>``):

- ``deck.json``: ``{"format": "pictable-deck", "version": 1, "name", "cards": [{"id",
  "image", "size_wh", "turned", "keypoints"}], "aspect", "border", "descriptor": {"grid_wh",
  "colour_weight", "min_l_spread"}, "local": {"kind": "orb", "reference_long_px", "table"}}``
  (``table``: :func:`table_recipe`, only with stored table keypoints).
  ``turned``: the face is landscape and was turned a quarter clockwise for its appearance
  cells; ``aspect``: the cards' short / long side (median); ``border``: the share of a
  portrait card's width and height taken by a plain frame round the picture (median;
  0 when the cards have none).
- ``deck.npz``: ``cells`` (N, 25, 18, 3) float32 Lab; ``kp_xy`` (K, 2) float32 reference
  pixels; ``kp_desc`` (K, 32) uint8 ORB descriptors; ``kp_card`` (K,) int32, the card index of
  each keypoint; optionally (decks written since the search over whole frames) the cards'
  keypoints at table size, ``search_xy``, ``search_desc``, ``search_angle``,
  ``search_size``, ``search_card``, ``search_table`` (:func:`_search_arrays`), used when
  ``deck.json``'s ``local.table`` is this pictable's :func:`table_recipe` (else found again
  from the images on first use: a deck without them reads as before).
- ``images/<n>.png``: the normalised reference images (so a deck can be rebuilt when the
  format changes: ``pictable deck register`` again from them).
- ``arrays/<name>.npy`` (decks written since opening a deck stopped building its indexes):
  every array the reader uses, uncompressed, opened memory-mapped (:func:`load_deck_folder`
  reads no array whole and builds nothing): ``deck.npz``'s arrays, the two keypoint indexes
  (``frame.*``: :attr:`ReferenceDeck.frame_index`, ``table.*``:
  :attr:`ReferenceDeck.table_index`; :mod:`vision.identify.index_arrays`) and, for a
  built-in deck, its backs (``back_cells``, ``back.*``). Listed in ``deck.json``'s
  ``arrays``: ``{"recipe": arrays_recipe(), "builtin", "names": [...], "values": {name:
  whole number}, "npz_crc": {member: CRC-32}}``; used only when the recipe is this
  pictable's, the deck is read as built-in or not as it was saved (a built-in deck's frame
  index holds its back), and the CRC-32s are those of ``deck.npz``'s members (a
  ``deck.npz`` written again otherwise is never read with stale indexes); else ``deck.npz``
  is read as before. An older pictable reads ``deck.npz`` and ignores the rest.
  :func:`open_deck` converts a deck saved without them, once (``log`` says so).

A folder of another format version is refused with a message saying which versions this
pictable reads; nothing is guessed. Card ids are non-empty strings (for images, the file
name without its extension, unless given).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, local
from vision.identify.index_arrays import index_arrays, restored_index
from vision.identify.printed_codes import code_labels

DECK_FORMAT = "pictable-deck"
DECK_VERSION = 1
#: A built-in deck's backs (``ReferenceDeck.back_descriptors``): how many cards' backs are
#: rendered, and the least cosine every two of them need to count as one design (on the
#: Pick Pic kit 0.77-0.91; no back is within 0.46 of a front).
BACK_SAMPLE = 8
#: Cards whose backs' keypoints stand for the back in the search over a whole frame (with
#: one, 10 of 25 face-down cards on 10 rendered tables were placed, with three 19).
BACK_KEYPOINT_CARDS = 3
BACK_ALIKE = 0.7
#: The environment variable naming the decks folder.
DECKS_ENV = "PICTABLE_DECKS"
#: Reference images are stored with their long side this many pixels.
REFERENCE_LONG_PX = 480
#: Keypoints are found on the reference image at up to this long side.
KEYPOINT_LONG_PX = 1024
#: Names of the built-in decks (the printable edition's games).
BUILTIN_DECKS: tuple[str, ...] = ("pickpic", "picflip", "picasso", "picmix")
#: Folder (inside the decks folder) where built-in decks are cached once built.
BUILTIN_CACHE = "_builtin"
#: The folder (inside a deck folder) of the arrays opened memory-mapped (module docstring).
ARRAYS_DIR = "arrays"
#: How those arrays are laid out: change it when what they hold or how they are read changes
#: (``local.KeypointIndex``'s fields are stored whatever they are; a change of what they
#: mean, with the same names, needs this number changed, or stale indexes would be read).
ARRAYS_FORMAT = 1
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_MAX_JSON_BYTES = 8 << 20

log = logging.getLogger("pictable.decks")


class DeckError(ValueError):
    """A deck that cannot be used: missing, unreadable, of another format version, or a bad
    name or image. The message says which and what to do."""


@dataclass(frozen=True)
class DeckCard:
    """One card of a deck: ``id``; ``size_wh`` of its stored reference image (px);
    ``turned``: landscape, turned a quarter clockwise for its appearance cells."""

    id: str
    size_wh: tuple[int, int]
    turned: bool


@dataclass(frozen=True, eq=False)
class ReferenceDeck:
    """A deck ready for matching (see the module docstring for the arrays).

    ``cells`` (N, 25, 18, 3) float32 Lab of each card, portrait; ``kp_xy`` (K, 2) float32,
    ``kp_desc`` (K, 32) uint8, ``kp_card`` (K,) int32: every card's ORB keypoints;
    ``aspect``: short / long side; ``border``: (x, y) share of a portrait card's width and
    height that is a plain frame; ``images``: the reference images (H, W, 3) uint8 BGR when
    kept in memory (None for a deck read from disk until :meth:`image` reads one).
    """

    name: str
    cards: tuple[DeckCard, ...]
    cells: NDArray[np.float32]
    kp_xy: NDArray[np.float32]
    kp_desc: NDArray[np.uint8]
    kp_card: NDArray[np.int32]
    aspect: float
    border: tuple[float, float]
    builtin: bool = False
    folder: Path | None = None
    #: The reference images (H, W, 3) uint8 BGR of a deck built in memory (None when read
    #: from a folder: its images are read from there when needed).
    images: tuple[NDArray[np.uint8], ...] | None = None
    _table_kp: dict[int, local.Keypoints] = field(default_factory=dict, repr=False)
    _search_kp: dict[int, local.Keypoints] = field(default_factory=dict, repr=False)
    _grey: dict[int, NDArray[np.uint8] | None] = field(default_factory=dict, repr=False)
    _on_codes: dict[int, NDArray[np.int8]] = field(default_factory=dict, repr=False)
    #: The arrays read from ``arrays/`` (module docstring), memory-mapped, by name; among
    #: them what :attr:`frame_index`, :attr:`table_index`, :attr:`back_cells` and
    #: :attr:`back_keypoints` are made of, instead of being built (empty: built on first use).
    _stored: Mapping[str, NDArray[Any]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.cards)

    @cached_property
    def ids(self) -> tuple[str, ...]:
        """The cards' ids, in the deck's order (worked out once: read in every step)."""
        return tuple(c.id for c in self.cards)

    @cached_property
    def mean_descriptor(self) -> NDArray[np.float32]:
        """(D,) float32: the deck's mean appearance descriptor (both ways up), what every card
        shares (a frame, printed codes in the same corners, a logo). Matching is done on
        descriptors with it taken away (:meth:`centred`), so that what cards share does not
        make any card-like thing look like them. Zero for decks of fewer than 8 cards (too
        few to tell what they share from what they are)."""
        if len(self.cards) < 8:
            return np.zeros(appearance.DESCRIPTOR_DIM, np.float32)
        both = np.concatenate([self.cells, appearance.turned(self.cells)])
        return np.asarray(appearance.describe(both).mean(axis=0), np.float32)

    def centred(self, descriptors: NDArray[np.float32]) -> NDArray[np.float32]:
        """(k, D) unit descriptors with the deck's mean taken away, renormalised."""
        d = np.asarray(descriptors, np.float32) - self.mean_descriptor
        return np.asarray(
            d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-6), np.float32
        )

    @cached_property
    def descriptors(self) -> NDArray[np.float32]:
        """(2N, D) float32 centred unit descriptors (:meth:`centred`): every card upright, then
        every card turned half round (row ``N + i`` is card ``i`` upside down)."""
        if len(self.cards) == 0:
            return np.zeros((0, appearance.DESCRIPTOR_DIM), np.float32)
        both = np.concatenate([self.cells, appearance.turned(self.cells)])
        return self.centred(appearance.describe(both))

    @cached_property
    def back_descriptors(self) -> NDArray[np.float32]:
        """(M, D) float32 centred unit descriptors (:meth:`centred`) of the card backs of a
        built-in deck, upright and turned half round: what an outline of a card lying face
        down looks like (it is then not worth a keypoint check). Rendered from the kit for
        :data:`BACK_SAMPLE` of its cards on first use; (0, D) for a registered deck (its
        backs are not known) and for a deck whose backs are not one design its cards share
        (every two of the sample alike by :data:`BACK_ALIKE`, none like a card's front)."""
        empty = np.zeros((0, appearance.DESCRIPTOR_DIM), np.float32)
        cells = self.back_cells
        if not len(cells):
            return empty
        backs = self.centred(appearance.describe(cells))
        if (backs @ backs.T).min() < BACK_ALIKE:
            return empty
        if (backs @ self.descriptors.T).max() >= BACK_ALIKE:
            return empty
        return np.concatenate([backs, self.centred(appearance.describe(appearance.turned(cells)))])

    @cached_property
    def back_cells(self) -> NDArray[np.float32]:
        """(M, 25, 18, 3) float32 Lab cells (portrait) of the backs of :data:`BACK_SAMPLE`
        cards spread over a built-in deck, what :attr:`back_descriptors` is made of: read
        from its folder when stored there, else rendered from the kit on first use; (0, 25,
        18, 3) for a registered deck and a deck of fewer than 8 cards."""
        stored = self._stored.get("back_cells")
        if stored is not None:
            return np.asarray(stored, np.float32)
        if not self.builtin or len(self.cards) < 8:
            return np.zeros((0, *_cells_shape()), np.float32)
        from vision.kit import render_face

        step = max(1, len(self.cards) // BACK_SAMPLE)
        sample = [c.id for c in self.cards[::step][:BACK_SAMPLE]]
        faces = [appearance.portrait(render_face(c, "back", 4.0)) for c in sample]
        return np.stack([appearance.face_cells(f) for f in faces]).astype(np.float32)

    @cached_property
    def distinct_cells(self) -> NDArray[np.bool_]:
        """(gh, gw) bool: the cells where the deck's cards differ (lightness spread over the
        deck, both ways up, above a quarter of its median): cell-by-cell agreement is counted
        there only. All cells for decks of fewer than 8 cards."""
        gw, gh = appearance.GRID_WH
        if len(self.cards) < 8:
            return np.ones((gh, gw), bool)
        both = np.concatenate([self.cells, appearance.turned(self.cells)])
        spread = both[..., 0].std(axis=0) + 0.5 * both[..., 1:].std(axis=0).sum(axis=-1)
        return np.asarray(spread > 0.25 * np.median(spread), bool)

    @cached_property
    def _kp_slices(self) -> list[slice]:
        order = np.asarray(self.kp_card)
        starts = np.searchsorted(order, np.arange(len(self.cards)), side="left")
        ends = np.searchsorted(order, np.arange(len(self.cards)), side="right")
        return [slice(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]

    def keypoints(self, index: int) -> local.Keypoints:
        """Card ``index``'s keypoints (in its reference image's pixels)."""
        s = self._kp_slices[index]
        return local.Keypoints(self.kp_xy[s], self.kp_desc[s])

    def reference_grey(self, index: int) -> NDArray[np.uint8] | None:
        """Card ``index``'s stored reference image in grey (H, W) uint8 (read-only: shared
        between calls), or None when the deck keeps no images."""
        if index not in self._grey:  # made once: a batch of photos refines on it each time
            # Converted as the deck's images are when it is built (imread's own grey rounds a
            # level apart here and there: an opened deck would place cards a little apart).
            colour = self.image(index)
            img = None if colour is None else cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
            if img is not None:
                img = np.asarray(img, np.uint8)
                img.setflags(write=False)
            self._grey[index] = img
        return self._grey[index]

    def image(self, index: int) -> NDArray[np.uint8] | None:
        """Card ``index``'s reference image (H, W, 3) uint8 BGR, or None when the deck keeps
        none."""
        if self.images is not None:
            return self.images[index]
        if self.folder is not None:
            read = cv2.imread(str(self.folder / "images" / f"{index:04d}.png"), cv2.IMREAD_COLOR)
            return None if read is None else np.asarray(read, np.uint8)
        return None

    def table_keypoints(self, index: int) -> local.Keypoints:
        """Card ``index``'s keypoints at table distance (its portrait face resized to
        ``local.VERIFY_CARD_WH``: ``local.table_keypoints``),
        computed on first use and kept; none when the deck keeps no images."""
        kp = self._table_kp.get(index)
        if kp is None:
            image = self.image(index)
            if image is None:
                kp = local.Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
            else:
                kp = local.table_keypoints(appearance.portrait(image))
            self._table_kp[index] = kp
        return kp

    def code_keypoints(self, index: int) -> NDArray[np.int8]:
        """(k,) int8 over card ``index``'s :meth:`table_keypoints`: the printed code each lies
        on (:func:`vision.identify.printed_codes.code_labels`: 1 and 2 its markers, 3 its QR
        code, 0 none). All 0 for a registered deck: where its cards' codes are, if they have
        any, is not known."""
        on = self._on_codes.get(index)
        if on is None:
            xy = self.table_keypoints(index).xy
            card = self.cards[index]
            on = code_labels(card.id, card.turned, xy) if self.builtin else None
            on = np.zeros(len(xy), np.int8) if on is None else on
            self._on_codes[index] = on
        return on

    def search_keypoints(self, index: int) -> local.Keypoints:
        """Card ``index``'s keypoints for the search over a whole frame: its
        :meth:`table_keypoints` and those of its face at the smaller sizes of
        ``local.FRAME_SEARCH_SCALES``, all in ``local.VERIFY_CARD_WH`` pixels."""
        kp = self._search_kp.get(index)
        if kp is None:
            parts = [self.table_keypoints(index)]
            image = self.image(index) if len(parts[0]) else None
            if image is not None:
                face = appearance.portrait(image)
                parts += [local.table_keypoints(face, s) for s in local.FRAME_SEARCH_SCALES[1:]]
            kp = _joined(parts)
            self._search_kp[index] = kp
        return kp

    @cached_property
    def table_index(self) -> local.KeypointIndex:
        """Every card's :meth:`table_keypoints` in one index (:class:`local.KeypointIndex`):
        built on first use (every card's keypoints computed then) and kept; keyed for windows
        (:data:`local.WINDOW_INDEX_TABLES`, :data:`local.WINDOW_INDEX_KEY_BITS`); read
        from the deck's folder when stored there (:mod:`vision.identify.index_arrays`)."""
        if any(k.startswith("table.") for k in self._stored):
            return restored_index(self._stored, "table.")
        cards = [self.table_keypoints(i) for i in range(len(self.cards))]
        return local.KeypointIndex(cards, local.WINDOW_INDEX_TABLES, local.WINDOW_INDEX_KEY_BITS)

    @cached_property
    def frame_index(self) -> local.KeypointIndex:
        """Every card's :meth:`search_keypoints` in one index (:class:`local.KeypointIndex`),
        for the search over a whole frame, and after them, as one more card (index
        ``len(deck)``), the card back's (:attr:`back_keypoints`) when it is known: read from
        the deck's folder when stored there (:mod:`vision.identify.index_arrays`), else built
        on first use; kept."""
        if any(k.startswith("frame.") for k in self._stored):
            return restored_index(self._stored, "frame.")
        cards = [self.search_keypoints(i) for i in range(len(self.cards))]
        back = self.back_keypoints
        return local.KeypointIndex(cards + ([back] if back is not None else []))

    @cached_property
    def back_keypoints(self) -> local.Keypoints | None:
        """The keypoints of the card back for the search over a whole frame (as
        :meth:`search_keypoints`, at each size; face-down cards are then placed as the back,
        not checked as faces): those of the backs of :data:`BACK_KEYPOINT_CARDS` cards
        spread over the deck (their shared design, and each its own codes); None when the
        back is not known (:attr:`back_descriptors`). Read from the deck's folder when
        stored there."""
        if not len(self.back_descriptors):
            return None
        if "back.xy" in self._stored:
            xy, desc, angle, size = (self._stored[f"back.{k}"] for k in _KEYPOINT_FIELDS)
            return local.Keypoints(xy, desc, angle, size)
        from vision.kit import render_face

        step = max(1, len(self.cards) // BACK_KEYPOINT_CARDS)
        parts = []
        for card in self.cards[::step][:BACK_KEYPOINT_CARDS]:
            face = appearance.portrait(render_face(card.id, "back", 4.0))
            parts += [local.table_keypoints(face, s) for s in local.FRAME_SEARCH_SCALES]
        return _joined(parts)

    @property
    def frame_back(self) -> int | None:
        """The card back's index in :attr:`frame_index` (after the cards), None when the back
        is not known."""
        return None if self.back_keypoints is None else len(self.cards)

    def outline(self, index: int) -> NDArray[np.float64]:
        """(4, 2) corners TL, TR, BR, BL of card ``index``'s reference image, its pixels (the
        image's outer corners, pixel centres at integers)."""
        w, h = self.cards[index].size_wh
        return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) - 0.5


def _joined(parts: list[local.Keypoints]) -> local.Keypoints:
    """One :class:`local.Keypoints` of several (angle and size NaN where one has none)."""
    return local.Keypoints(
        np.concatenate([p.xy for p in parts]),
        np.concatenate([p.desc for p in parts]),
        np.concatenate([_values(p.angle, len(p)) for p in parts]),
        np.concatenate([_values(p.size, len(p)) for p in parts]),
    )


def _values(values: NDArray[np.float32] | None, n: int) -> NDArray[np.float32]:
    """``values``, or (n,) NaN when not known."""
    return np.full(n, np.nan, np.float32) if values is None else values


# ---- building ------------------------------------------------------------------------------


def normalise_image(image: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A reference image as stored: (H, W, 3) uint8 BGR, long side
    :data:`REFERENCE_LONG_PX` (area-shrunk, or enlarged linearly)."""
    img = _bgr(image, "reference image")
    h, w = img.shape[:2]
    scale = REFERENCE_LONG_PX / max(h, w)
    size = (max(8, round(w * scale)), max(8, round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return np.ascontiguousarray(cv2.resize(img, size, interpolation=interp))


def _bgr(image: object, what: str) -> NDArray[np.uint8]:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise DeckError(f"{what} must be a uint8 image array, got {type(image).__name__}")
    if image.ndim == 2:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8)
    if image.ndim == 3 and image.shape[2] == 4:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGRA2BGR), np.uint8)
    if image.ndim == 3 and image.shape[2] == 3 and image.shape[0] >= 8 and image.shape[1] >= 8:
        return image
    raise DeckError(f"{what} must be (H, W, 3) uint8 BGR of at least 8 x 8, got {image.shape}")


def plain_border(image: NDArray[np.uint8]) -> tuple[float, float]:
    """The share (x, y) of a portrait reference's width and height taken by a plain frame
    round its picture: the widest outer ring (up to 12% of the width) whose colour is even
    (Lab lightness spread under 4, colour under 3), skipping the outermost 1.5% (a printed
    outline or a cutting edge). (0, 0) when there is none."""
    img = appearance.portrait(image)
    lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    h, w = lab.shape[:2]
    skip = max(1, round(0.015 * w))
    best = 0
    for m in range(skip + 1, max(skip + 2, round(0.12 * w))):
        ring = np.concatenate(
            [
                lab[skip:m, skip : w - skip].reshape(-1, 3),
                lab[h - m : h - skip, skip : w - skip].reshape(-1, 3),
                lab[m : h - m, skip:m].reshape(-1, 3),
                lab[m : h - m, w - m : w - skip].reshape(-1, 3),
            ]
        )
        sd = ring.std(axis=0)
        if sd[0] < 4.0 and sd[1] < 3.0 and sd[2] < 3.0:
            best = m
        else:
            break
    if best <= skip + 1:
        return (0.0, 0.0)
    return (best / w, best / h)


def card_id_of(path: str | os.PathLike[str]) -> str:
    """The card id an image file gives: its name without the extension."""
    stem = Path(path).stem.strip()
    if not stem:
        raise DeckError(f"{path}: cannot make a card id from this file name")
    return stem


def build_deck(
    name: str, images: Mapping[str, NDArray[np.uint8]], *, builtin: bool = False
) -> ReferenceDeck:
    """A deck from card id -> face image ((H, W, 3) uint8 BGR, the card's face and nothing
    else), in the mapping's order. Raises :class:`DeckError` for an empty id or a bad
    image."""
    cards: list[DeckCard] = []
    cells = []
    xy, desc, owner = [], [], []
    borders = []
    aspects = []
    refs = []
    for i, (card_id, image) in enumerate(images.items()):
        if not isinstance(card_id, str) or not card_id.strip():
            raise DeckError(f"card ids must be non-empty strings, got {card_id!r}")
        ref = normalise_image(image)
        refs.append(ref)
        h, w = ref.shape[:2]
        cards.append(DeckCard(card_id, (w, h), w > h))
        cells.append(appearance.face_cells(ref))
        kp = _keypoints(_bgr(image, f"image of card {card_id!r}"), (w, h))
        xy.append(kp.xy)
        desc.append(kp.desc)
        owner.append(np.full(len(kp), i, np.int32))
        borders.append(plain_border(ref))
        aspects.append(min(w, h) / max(w, h))
    n = len(cards)
    return ReferenceDeck(
        name=name,
        cards=tuple(cards),
        cells=np.asarray(cells, np.float32).reshape(n, *_cells_shape()),
        kp_xy=np.concatenate(xy).astype(np.float32) if xy else np.zeros((0, 2), np.float32),
        kp_desc=np.concatenate(desc).astype(np.uint8) if desc else np.zeros((0, 32), np.uint8),
        kp_card=np.concatenate(owner).astype(np.int32) if owner else np.zeros(0, np.int32),
        aspect=float(np.median(aspects)) if aspects else 63 / 88,
        border=(
            (float(np.median([b[0] for b in borders])), float(np.median([b[1] for b in borders])))
            if borders
            else (0.0, 0.0)
        ),
        builtin=builtin,
        images=tuple(refs),
    )


def _keypoints(image: NDArray[np.uint8], size_wh: tuple[int, int]) -> local.Keypoints:
    """ORB keypoints of a reference found at its own resolution (up to
    :data:`KEYPOINT_LONG_PX` on its long side: finer positions than on the stored image),
    their positions scaled to the stored image of ``size_wh``."""
    h, w = image.shape[:2]
    scale = min(1.0, KEYPOINT_LONG_PX / max(h, w))
    if scale < 1.0:
        image = cv2.resize(
            image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA
        )
    kp = local.detect(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    sx = size_wh[0] / image.shape[1]
    sy = size_wh[1] / image.shape[0]
    # Pixel centres at integers on both images: x' = (x + 0.5) * s - 0.5.
    xy = (kp.xy + 0.5) * np.array([sx, sy], np.float32) - 0.5
    return local.Keypoints(xy.astype(np.float32), kp.desc)


def _cells_shape() -> tuple[int, int, int]:
    gw, gh = appearance.GRID_WH
    return (gh, gw, 3)


# ---- built-in decks ------------------------------------------------------------------------


def kit_faces(game: str) -> dict[str, NDArray[np.uint8]]:
    """Card id -> front face of every card of a kit game, rendered so its long side is
    :data:`REFERENCE_LONG_PX`."""
    from vision.kit import load_deck, render_face
    from vision.kit.geometry import face_size_wh_mm

    faces: dict[str, NDArray[np.uint8]] = {}
    for card in load_deck(game):
        ppm = REFERENCE_LONG_PX / max(face_size_wh_mm(card.id))
        faces[card.id] = render_face(card.id, "front", ppm)
    return faces


def builtin_deck(name: str, decks: str | os.PathLike[str] | None = None) -> ReferenceDeck:
    """A built-in deck (:data:`BUILTIN_DECKS`) built from the kit's faces; cached in
    ``<decks>/_builtin/<name>/`` when that folder is writable (built again, in memory, when
    it is not; and once when the cache holds no table keypoints of this pictable's
    :func:`table_recipe`)."""
    if name not in BUILTIN_DECKS:
        raise DeckError(f"no built-in deck {name!r}; built-in: {', '.join(BUILTIN_DECKS)}")
    cache = decks_dir(decks) / BUILTIN_CACHE / name
    if (cache / "deck.json").is_file():
        try:
            cached = load_deck_folder(cache, builtin=True)
            # A cache without table keypoints stored (or stored another way) is built again
            # once, rather than its keypoints found again by every process that uses it.
            if cached._search_kp:
                return _converted(cached)
        except DeckError:
            pass  # an older cache: built again below
    faces = kit_faces(name)
    deck = build_deck(name, faces, builtin=True)
    # A read-only decks folder: the deck still works, it is just not cached.
    with contextlib.suppress(OSError):
        save_deck(deck, cache, faces)
    return deck


# ---- on disk -------------------------------------------------------------------------------


def decks_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The decks folder: ``explicit`` (``--decks``), else ``$PICTABLE_DECKS``, else
    ``$XDG_DATA_HOME/pictable/decks`` (``~/.local/share/pictable/decks``)."""
    if explicit is not None:
        return Path(explicit)
    env = os.environ.get(DECKS_ENV)
    if env:
        return Path(env)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "pictable" / "decks"


def check_name(name: str) -> str:
    """``name`` if it can name a deck folder (letters, digits, ``.``, ``_``, ``-``; 1-64
    characters, not starting with a dot), else :class:`DeckError`."""
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise DeckError(
            f"bad deck name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def save_deck(
    deck: ReferenceDeck, folder: str | os.PathLike[str], images: Mapping[str, NDArray[np.uint8]]
) -> Path:
    """Write ``deck`` to ``folder`` (replacing it whole: written beside it, then renamed), with
    its reference ``images`` (card id -> image). Returns the folder."""
    target = Path(folder)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        tmp.chmod(0o755)
        (tmp / "images").mkdir()
        entries = []
        for i, card in enumerate(deck.cards):
            rel = f"images/{i:04d}.png"
            if not cv2.imwrite(str(tmp / rel), normalise_image(images[card.id])):
                raise OSError(f"cannot write {tmp / rel}")
            entries.append(
                {
                    "id": card.id,
                    "image": rel,
                    "size_wh": list(card.size_wh),
                    "turned": card.turned,
                    "keypoints": int((deck.kp_card == i).sum()),
                }
            )
        meta: dict[str, Any] = {
            "format": DECK_FORMAT,
            "version": DECK_VERSION,
            "name": deck.name,
            "cards": entries,
            "aspect": deck.aspect,
            "border": list(deck.border),
            "descriptor": {
                "grid_wh": list(appearance.GRID_WH),
                "colour_weight": appearance.COLOUR_WEIGHT,
                "min_l_spread": appearance.MIN_L_SPREAD,
            },
            "local": {"kind": "orb", "reference_long_px": REFERENCE_LONG_PX},
        }
        search = _search_arrays(deck)
        if search:
            meta["local"]["table"] = table_recipe()
        np.savez_compressed(
            tmp / "deck.npz",
            cells=deck.cells,
            kp_xy=deck.kp_xy,
            kp_desc=deck.kp_desc,
            kp_card=deck.kp_card,
            **search,
        )
        if search:  # the indexes are made of the search keypoints: stored with them only
            meta["arrays"] = _write_arrays(tmp, deck, search)
        (tmp / "deck.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        old = None
        if target.exists():
            old = target.with_name(f".{target.name}-old-{os.getpid()}")
            os.replace(target, old)
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def table_recipe() -> dict[str, Any]:
    """How table and search keypoints are found (``local``'s card size, face sizes, detector):
    a deck's stored ones are used only when made the same way."""
    return {
        "card_wh": list(local.VERIFY_CARD_WH),
        "scales": list(local.FRAME_SEARCH_SCALES),
        "features": local.VERIFY_REFERENCE_FEATURES,
        "detector": local.TABLE_DETECTOR,
    }


def _search_arrays(deck: ReferenceDeck) -> dict[str, NDArray[Any]]:
    """Every card's search keypoints (``ReferenceDeck.search_keypoints``) as the optional
    ``deck.npz`` arrays ``search_xy`` (S, 2) float32, ``search_desc`` (S, 32) uint8,
    ``search_angle`` and ``search_size`` (S,) float32, ``search_card`` (S,) int32 and
    ``search_table`` (S,) bool (one of the card's table keypoints, at full size); none when
    the deck has no images to find them on."""
    if not len(deck) or deck.image(0) is None:
        return {}
    parts = [deck.search_keypoints(i) for i in range(len(deck))]
    table = [len(deck.table_keypoints(i)) for i in range(len(deck))]
    return {
        "search_xy": np.concatenate([p.xy for p in parts]).astype(np.float32),
        "search_desc": np.concatenate([p.desc for p in parts]).astype(np.uint8),
        "search_angle": np.concatenate([_values(p.angle, len(p)) for p in parts]),
        "search_size": np.concatenate([_values(p.size, len(p)) for p in parts]),
        "search_card": np.concatenate([np.full(len(p), i, np.int32) for i, p in enumerate(parts)]),
        "search_table": np.concatenate(
            [np.arange(len(p)) < t for p, t in zip(parts, table, strict=True)]
        ),
    }


def _stored_search(
    z: Mapping[str, NDArray[Any]], n: int
) -> tuple[dict[int, local.Keypoints], dict[int, local.Keypoints]]:
    """The table and search keypoints of each of ``n`` cards stored in a ``deck.npz``
    (:func:`_search_arrays`), or two empty dicts when there are none or they do not fit."""
    names = ("search_xy", "search_desc", "search_angle", "search_size", "search_card")
    if not all(k in z for k in (*names, "search_table")):
        return {}, {}
    xy, desc = np.asarray(z["search_xy"], np.float32), np.asarray(z["search_desc"], np.uint8)
    angle = np.asarray(z["search_angle"], np.float32)
    size = np.asarray(z["search_size"], np.float32)
    card, table = np.asarray(z["search_card"], np.int32), np.asarray(z["search_table"], bool)
    k = len(card)
    if (
        xy.shape != (k, 2) or desc.shape != (k, 32) or angle.shape != (k,) or size.shape != (k,)
        or table.shape != (k,) or (k and (card.min() < 0 or card.max() >= n))
    ):  # fmt: skip
        return {}, {}
    tables, searches = {}, {}
    order = np.argsort(card, kind="stable")
    bounds = np.searchsorted(card[order], np.arange(n + 1))
    for i in range(n):
        mine = order[bounds[i] : bounds[i + 1]]
        searches[i] = local.Keypoints(xy[mine], desc[mine], angle[mine], size[mine])
        t = mine[table[mine]]
        tables[i] = local.Keypoints(xy[t], desc[t], angle[t], size[t])
    return tables, searches


# ---- arrays opened memory-mapped -------------------------------------------------------------

#: A ``local.Keypoints``'s arrays, as stored (``back.xy``, ...).
_KEYPOINT_FIELDS = ("xy", "desc", "angle", "size")


def arrays_recipe() -> dict[str, Any]:
    """What a deck's ``arrays/`` depend on besides ``deck.npz``: their layout
    (:data:`ARRAYS_FORMAT`), how table and search keypoints are found (:func:`table_recipe`),
    the two indexes' hashing and the backs' sample; stored arrays are read only when made by
    the same recipe."""
    return {
        "format": ARRAYS_FORMAT,
        "table": table_recipe(),
        "frame_index": [
            local.INDEX_TABLES, local.INDEX_KEY_BITS, local.INDEX_SEED, local.INDEX_MAX_BUCKET
        ],
        "window_index": [
            local.WINDOW_INDEX_TABLES, local.WINDOW_INDEX_KEY_BITS, local.INDEX_SEED,
            local.INDEX_MAX_BUCKET,
        ],
        "backs": [BACK_SAMPLE, BACK_KEYPOINT_CARDS, BACK_ALIKE],
    }  # fmt: skip


def _run_arrays(deck: ReferenceDeck, search: Mapping[str, NDArray[Any]]) -> dict[str, NDArray[Any]]:
    """Every array of ``arrays/`` (module docstring) for ``deck`` and its ``search`` arrays
    (:func:`_search_arrays`); builds the deck's indexes (and renders a built-in deck's backs)
    when not built yet."""
    arrays: dict[str, NDArray[Any]] = {
        "cells": deck.cells, "kp_xy": deck.kp_xy, "kp_desc": deck.kp_desc,
        "kp_card": deck.kp_card, **search,
    }  # fmt: skip
    arrays.update(index_arrays("frame.", deck.frame_index))
    arrays.update(index_arrays("table.", deck.table_index))
    if deck.builtin:
        arrays["back_cells"] = deck.back_cells
        back = deck.back_keypoints
        if back is not None:
            for k in _KEYPOINT_FIELDS:
                arrays[f"back.{k}"] = getattr(back, k)
    return arrays


def _write_arrays(
    folder: Path, deck: ReferenceDeck, search: Mapping[str, NDArray[Any]]
) -> dict[str, Any]:
    """Writes ``folder/arrays/`` for ``deck`` (whose ``deck.npz`` is already in ``folder``);
    returns ``deck.json``'s ``arrays`` entry, which holds the whole numbers (0-d arrays: a
    memory-mapped one reads back as shape (1,))."""
    arrays = _run_arrays(deck, search)
    (folder / ARRAYS_DIR).mkdir()
    names = []
    for name, value in arrays.items():
        if np.ndim(value):
            np.save(folder / ARRAYS_DIR / f"{name}.npy", np.ascontiguousarray(value))
            names.append(name)
    return {
        "recipe": arrays_recipe(),
        "builtin": deck.builtin,
        "names": sorted(names),
        "values": {k: int(v) for k, v in sorted(arrays.items()) if not np.ndim(v)},
        "npz_crc": _npz_crc(folder),
    }


def _npz_crc(folder: Path) -> dict[str, int]:
    """The CRC-32 of each member of ``folder/deck.npz``, from its zip directory (no member is
    read): what its arrays were when ``arrays/`` was written beside them."""
    with zipfile.ZipFile(folder / "deck.npz") as z:
        return {info.filename: info.CRC for info in z.infolist()}


def _read_arrays(
    path: Path, meta: Mapping[str, Any], builtin: bool
) -> dict[str, NDArray[Any]] | None:
    """The arrays of ``path/arrays/`` opened memory-mapped, by name, when ``deck.json``
    lists them and they fit (this pictable's recipe and table keypoints, saved as
    ``builtin`` or not, ``deck.npz`` as it was when they were written); None otherwise
    (``deck.npz`` is then read). Mapped copy-on-write: writable arrays, so that the compiled
    kernels take them as the arrays they were compiled for (a read-only array is another
    type to numba: compiled again, seconds)."""
    entry = meta.get("arrays")
    local_meta = meta.get("local")
    if (
        not isinstance(entry, dict)
        or not isinstance(local_meta, dict)
        or local_meta.get("table") != table_recipe()
        or entry.get("recipe") != arrays_recipe()
        or entry.get("builtin") != builtin
    ):
        return None
    try:
        if entry.get("npz_crc") != _npz_crc(path):
            return None
        return {
            **{
                str(name): np.asarray(
                    np.load(path / ARRAYS_DIR / f"{name}.npy", mmap_mode="c", allow_pickle=False)
                )
                for name in entry["names"]
            },
            **{str(k): np.asarray(int(v), np.int64) for k, v in entry["values"].items()},
        }
    except (OSError, ValueError, TypeError, KeyError, zipfile.BadZipFile):
        return None


def load_deck_folder(folder: str | os.PathLike[str], *, builtin: bool = False) -> ReferenceDeck:
    """Read a deck folder (see the module docstring); :class:`DeckError` says what is wrong."""
    path = Path(folder)
    meta_path = path / "deck.json"
    try:
        if meta_path.stat().st_size > _MAX_JSON_BYTES:
            raise DeckError(f"{meta_path}: too large for a deck file")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DeckError(f"{path} is not a deck folder (no deck.json)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DeckError(f"{meta_path}: cannot read the deck file: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != DECK_FORMAT:
        fmt = meta.get("format") if isinstance(meta, dict) else None
        raise DeckError(f"{meta_path}: not a pictable deck (format {fmt!r})")
    version = meta.get("version")
    if version != DECK_VERSION:
        newer = isinstance(version, int) and version > DECK_VERSION
        raise DeckError(
            f"{meta_path}: deck format version {version!r}; this pictable reads version "
            f"{DECK_VERSION}"
            + (" (a newer pictable wrote it)" if newer else "")
            + f"; register the deck again (its images are in {path / 'images'})"
        )
    arrays = _read_arrays(path, meta, builtin)
    try:
        source = (
            contextlib.nullcontext(arrays)
            if arrays is not None
            else np.load(path / "deck.npz", allow_pickle=False)
        )
        with source as z:
            cells = np.asarray(z["cells"], np.float32)
            kp_xy = np.asarray(z["kp_xy"], np.float32)
            kp_desc = np.asarray(z["kp_desc"], np.uint8)
            kp_card = np.asarray(z["kp_card"], np.int32)
            stored = (
                _stored_search(z, len(meta["cards"]))
                if meta.get("local", {}).get("table") == table_recipe()
                else ({}, {})
            )
        cards = tuple(
            DeckCard(str(c["id"]), (int(c["size_wh"][0]), int(c["size_wh"][1])), bool(c["turned"]))
            for c in meta["cards"]
        )
        aspect = float(meta["aspect"])
        border = (float(meta["border"][0]), float(meta["border"][1]))
    except (OSError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise DeckError(f"{path}: damaged deck ({type(exc).__name__}: {exc})") from None
    n = len(cards)
    if (
        cells.shape != (n, *_cells_shape())
        or kp_xy.shape != (len(kp_card), 2)
        or kp_desc.shape != (len(kp_card), 32)
        or (len(kp_card) and (kp_card.min() < 0 or kp_card.max() >= n))
    ):
        raise DeckError(f"{path}: damaged deck (arrays do not match its {n} cards)")
    return ReferenceDeck(
        name=str(meta.get("name", path.name)),
        cards=cards,
        cells=cells,
        kp_xy=kp_xy,
        kp_desc=kp_desc,
        kp_card=kp_card,
        aspect=aspect,
        border=border,
        builtin=builtin,
        folder=path,
        _table_kp=stored[0],
        _search_kp=stored[1],
        _stored=arrays or {},
    )


def reference_images(deck: ReferenceDeck) -> dict[str, NDArray[np.uint8]]:
    """Card id -> stored reference image of a deck read from disk."""
    if deck.folder is None:
        raise DeckError(f"deck {deck.name!r} has no folder")
    out: dict[str, NDArray[np.uint8]] = {}
    for i, card in enumerate(deck.cards):
        img = cv2.imread(str(deck.folder / "images" / f"{i:04d}.png"), cv2.IMREAD_COLOR)
        if img is None:
            raise DeckError(f"{deck.folder}: reference image of {card.id!r} is missing")
        out[card.id] = img
    return out


def open_deck(name: str, decks: str | os.PathLike[str] | None = None) -> ReferenceDeck:
    """The deck ``name``: a built-in one, or ``<decks>/<name>/`` (or a deck folder's path).
    :class:`DeckError` names the decks folder and the decks it holds when it is not there."""
    if name in BUILTIN_DECKS:
        return builtin_deck(name, decks)
    as_path = Path(name)
    if (as_path / "deck.json").is_file():
        return _converted(load_deck_folder(as_path))
    check_name(name)
    folder = decks_dir(decks) / name
    if not (folder / "deck.json").is_file():
        known = [d for d, _ in list_decks(decks)]
        raise DeckError(
            f"no deck {name!r} in {decks_dir(decks)} (decks: {', '.join(known) or 'none'}; "
            f"built-in: {', '.join(BUILTIN_DECKS)}); register one with "
            f"`pictable deck register {name} IMAGE...`"
        )
    return _converted(load_deck_folder(folder))


def _converted(deck: ReferenceDeck) -> ReferenceDeck:
    """``deck``, read from a folder without the ``arrays/`` of this pictable (saved by an
    older one, or with other index settings), after saving it there again once with them
    (:func:`save_deck`: its images and stored keypoints as they are, its indexes built now),
    which ``log`` says; later processes open it without building anything. A folder that
    cannot be written leaves the deck as it was read: it works, building its indexes on first
    use in every process, as before."""
    if deck._stored or deck.folder is None or not len(deck):
        return deck
    with contextlib.suppress(OSError, ValueError, LookupError, TypeError):  # none: convert
        entry = json.loads((deck.folder / "deck.json").read_text(encoding="utf-8"))["arrays"]
        if entry["recipe"] == arrays_recipe() and entry["builtin"] != deck.builtin:
            return deck  # a built-in deck's folder named by its path: read as before
    try:
        folder = save_deck(deck, deck.folder, reference_images(deck))
    except (OSError, DeckError):
        return deck
    if (folder / ARRAYS_DIR).is_dir():
        log.warning(
            "deck %r: its indexes stored once in %s (it was saved without them, by an older "
            "pictable or with other index settings); it now opens without building them",
            deck.name,
            folder / ARRAYS_DIR,
        )
    return deck


def list_decks(decks: str | os.PathLike[str] | None = None) -> list[tuple[str, Path]]:
    """(name, folder) of the registered decks in the decks folder, by name."""
    root = decks_dir(decks)
    if not root.is_dir():
        return []
    return sorted(
        (p.name, p)
        for p in root.iterdir()
        if not p.name.startswith((".", "_")) and (p / "deck.json").is_file()
    )


def register(
    name: str,
    images: Sequence[tuple[str, NDArray[np.uint8]]],
    decks: str | os.PathLike[str] | None = None,
) -> tuple[ReferenceDeck, list[str]]:
    """Add cards (card id, face image) to the deck ``name`` in the decks folder, creating it;
    a card already in the deck is replaced. Returns the deck and the ids replaced."""
    check_name(name)
    if name in BUILTIN_DECKS:
        raise DeckError(f"{name!r} is a built-in deck; choose another name")
    folder = decks_dir(decks) / name
    merged: dict[str, NDArray[np.uint8]] = {}
    if (folder / "deck.json").is_file():
        merged.update(reference_images(load_deck_folder(folder)))
    replaced = [cid for cid, _ in images if cid in merged]
    for cid, img in images:
        merged[cid] = _bgr(img, f"image of card {cid!r}")
    deck = build_deck(name, merged)
    save_deck(deck, folder, merged)
    return load_deck_folder(folder), replaced
