"""The Picmix item model at run time: crops in, item names, "not an item" and visible shares out.

The ONNX model (``models/picmix_items``, loaded through ``models.loader.load_model`` with its
sha256 checked against ``models/manifest.json``) maps each (2, 32, 32) crop
(``vision.picmix.crops``) to an L2-normalised embedding, cosine logits for the 83 pictograms it
was trained on, a background logit and the visible share of the item.

Items are named against a *deck* (``ItemDeck``): the kit's Picmix deck uses the model's own
class vectors of its 16 items; a registered deck (``vision.picmix.decks``) uses prototypes,
embeddings of its items photographed from the card faces. Either way one softmax runs over the
deck's items plus "background", so a deck never names a blob after an item that is not in it.

A deck registered with the *matching model* (``models/picmix_match``, ``MATCH_MODEL_NAME``;
``ItemDeck.matcher``) keeps many prototypes per item, the embeddings of its photographed items
seen under many looks (``vision.picmix.looks``) by that model, which was trained to compare
pictures it never saw rather than to name the kit's: the item model still says "not an item"
and the visible share, and the matching model names the items (``_match_logits``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from vision.picmix.crops import CROP_PX
from vision.picmix.reading import UNSURE_BAND

MODEL_NAME = "picmix_items"
SCALE = 16.0
"""Cosine-logit scale the model was trained with (``models/picmix_items/train.py``)."""
MATCH_MODEL_NAME = "picmix_match"
MATCH_TOP = 5
"""A blob's likeness to an item of a matching deck: the mean of its ``MATCH_TOP`` highest
cosines with the item's prototypes (its looks), averaged over the crop and its three quarter
turns (the looks are at every angle already; the four turns steady the network's answer:
on the development claims 0 sure names wrong instead of 1, and 1-2% more named surely)."""
MATCH_SCALE = 240.0
"""Logit scale of those likenesses in the softmax over the deck's items: calibrated on
rendered new-art claims so that a name given with at least ``NAME_MIN`` is right at least 99
times in 100 (``vision/picmix/README.md``)."""
MATCH_ITEM_LIKENESS = 0.95
MATCH_BG_SLOPE = 100.0
"""With a matching deck, "not an item" weighs the item model's P(not an item) with the blob's
likeness to the deck's items (its best ``_match_logits`` cosine): its odds are multiplied by
exp(-``MATCH_BG_SLOPE`` x (likeness - ``MATCH_ITEM_LIKENESS``)). A blob very like one of the
deck's own items is one, even when the item model, which never saw that art, doubts it (a
small black objective item); one like none of them is less likely an item."""
MATCH_WHOLE = 0.98
"""A blob this like one of a matching deck's items (its best likeness) looks like the whole
item: its visible share from the look (the item model's, for art it never saw: a whole
triangle may read 0.3) is raised to the top of ``UNSURE_BAND``, no higher. The area measure
(``vision.picmix.area``, the scale of the items seen whole) still has the last word: the reader
keeps the smaller of the two shares."""
MATCH_BG_SKIP = 0.995
"""Blobs the item model surely takes for "not an item" (at least this probability) are not
run through the matching model (time: most blobs of a frame are text, codes and edges)."""


class Session(Protocol):
    """The part of ``onnxruntime.InferenceSession`` used here."""

    def run(self, output_names: Any, input_feed: dict[str, np.ndarray]) -> list[np.ndarray]: ...


@dataclass(frozen=True, eq=False)
class ItemDeck:
    """The items one deck can show.

    - ``name``: ``"picmix"`` (the printable kit) or a registered deck's name;
    - ``items``: item names, one per prototype row;
    - ``prototypes``: (P, 64) float32 unit vectors, or None to use the model's class vectors
      (then ``class_index[k]`` is item k's column of the model's logits);
    - ``objectives``: known objective cards, card id -> items (empty for registered decks);
    - ``area_ratios``: item -> its ink area over its card's long side squared
      (``vision.picmix.area``), for the area measure of visible shares (empty: none).
    """

    name: str
    items: tuple[str, ...]
    prototypes: np.ndarray | None
    class_index: tuple[int, ...]
    objectives: dict[str, tuple[str, ...]]
    area_ratios: dict[str, float] = field(default_factory=dict)
    prototype_items: tuple[int, ...] = ()
    """Item index of each prototype row (an item may have several: the nearest counts);
    empty: row k is item k."""
    matcher: str | None = None
    """The model that embedded ``looks`` (``MATCH_MODEL_NAME``), or None: items are named by
    ``prototypes`` (the item model's embeddings)."""
    looks: np.ndarray | None = None
    """(L, 64) float32 unit embeddings, by the matching model, of the deck's items seen under
    many looks (``vision.picmix.looks``); ``look_items[l]`` is row l's item index."""
    look_items: tuple[int, ...] = ()
    shapes: tuple[np.ndarray, ...] = ()
    """Item k's outlines as its registration photos show them (``vision.picmix.shapes``:
    (T, SHAPE_PX, SHAPE_PX) canonical forms, T may be 0), which settle a name in doubt between
    two items; empty: none (the kit's deck, decks registered before)."""


@dataclass(frozen=True, eq=False)
class ItemScores:
    """Per crop (N rows): ``probs`` (N, K + 1) softmax over the deck's K items then
    background; ``visible`` (N,) the estimated visible share 0..1; ``emb`` (N, 64)."""

    probs: np.ndarray
    visible: np.ndarray
    emb: np.ndarray


class ItemModel:
    """The loaded model and its labels. ``session`` is an onnxruntime session (or any object
    with the same ``run``); ``labels`` the 83 pictogram names of the logits' columns."""

    def __init__(
        self, session: Session, labels: tuple[str, ...], matcher: Session | None = None
    ) -> None:
        self.session = session
        self.labels = labels
        self._matcher = matcher

    @property
    def matcher(self) -> Session:
        """The matching model's session (``MATCH_MODEL_NAME``), loaded on first use."""
        if self._matcher is None:
            self._matcher = load_match_session()
        return self._matcher

    def match(self, crops: np.ndarray) -> np.ndarray:
        """(N, 64) float32 unit embeddings of the matching model for crops (N, 2, 32, 32)."""
        if crops.ndim != 4 or crops.shape[1:] != (2, CROP_PX, CROP_PX):
            raise ValueError(f"crops must be (N, 2, {CROP_PX}, {CROP_PX}), got {crops.shape}")
        if len(crops) == 0:
            return np.zeros((0, 64), np.float32)
        (emb,) = self.matcher.run(None, {"crops": np.ascontiguousarray(crops, np.float32)})
        return np.asarray(emb, np.float32)

    def match_turned(self, crops: np.ndarray) -> np.ndarray:
        """(4, N, 64) embeddings of the crops (N, 2, 32, 32) and of their three quarter turns
        (one batch)."""
        n = len(crops)
        turned = np.concatenate([np.rot90(crops, k, axes=(2, 3)) for k in range(4)])
        return self.match(turned).reshape(4, n, -1)

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(emb (N, 64), logits (N, 83), bg (N,), visible (N,)) for crops (N, 2, 32, 32)."""
        if crops.ndim != 4 or crops.shape[1:] != (2, CROP_PX, CROP_PX):
            raise ValueError(f"crops must be (N, 2, {CROP_PX}, {CROP_PX}), got {crops.shape}")
        if len(crops) == 0:
            z = np.zeros((0,), np.float32)
            return np.zeros((0, 64), np.float32), np.zeros((0, len(self.labels))), z, z
        emb, logits, bg, vis = self.session.run(
            None, {"crops": np.ascontiguousarray(crops, np.float32)}
        )
        return emb, logits, bg[:, 0], vis[:, 0]

    def score(self, crops: np.ndarray, deck: ItemDeck) -> ItemScores:
        """Softmax over ``deck``'s items plus background, and visible shares."""
        emb, logits, bg, vis = self.run(crops)
        if deck.matcher is not None:
            return self._score_matched(crops, deck, logits, bg, vis, emb)
        if deck.prototypes is not None:
            cos = emb @ deck.prototypes.T
            if deck.prototype_items:
                owner = np.asarray(deck.prototype_items)
                cos = np.stack(
                    [cos[:, owner == k].max(axis=1) for k in range(len(deck.items))], axis=1
                )
            item_logits = SCALE * cos
        else:
            item_logits = logits[:, list(deck.class_index)]
        z = np.concatenate([item_logits, bg[:, None]], axis=1)
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        return ItemScores(p.astype(np.float32), np.clip(vis, 0.0, 1.0), emb)

    def _score_matched(
        self,
        crops: np.ndarray,
        deck: ItemDeck,
        logits: np.ndarray,
        bg: np.ndarray,
        vis: np.ndarray,
        emb: np.ndarray,
    ) -> ItemScores:
        """``score`` for a deck of the matching model: P(not an item) from the item model's
        own softmax (its background logit against its best class) weighed with the blob's
        likeness to the deck's items (``MATCH_BG_SLOPE``), the names from the matching
        model's likenesses (``_match_logits``) sharing the rest; a blob that looks like a
        whole item (``MATCH_WHOLE``) has its visible share raised to the top of the band; a
        name in doubt between two items is settled by their outlines when the deck has them
        (``vision.picmix.shapes.settle``), and a blob rather "not an item" like none of them
        in outline is none (``dismiss``)."""
        k = len(deck.items)
        z = bg - logits.max(axis=1)
        probs = np.zeros((len(crops), k + 1), np.float64)
        probs[:, k] = 1.0
        vis = np.clip(vis, 0.0, 1.0).astype(np.float64)  # the band's top exactly
        run = np.flatnonzero(z < np.log(MATCH_BG_SKIP / (1 - MATCH_BG_SKIP)))
        if len(run):
            turns = self.match_turned(crops[run])
            names = np.mean([_match_logits(e, deck) for e in turns], axis=0)
            like = names.max(axis=1) / MATCH_SCALE
            whole = run[like >= MATCH_WHOLE]
            vis[whole] = np.maximum(vis[whole], UNSURE_BAND[1])
            z_run = z[run] - MATCH_BG_SLOPE * (like - MATCH_ITEM_LIKENESS)
            p_bg = np.exp(-np.logaddexp(0.0, -z_run))  # sigmoid, without overflow
            names = np.exp(names - names.max(axis=1, keepdims=True))
            names /= names.sum(axis=1, keepdims=True)
            probs[run, :k] = names * (1.0 - p_bg[:, None])
            probs[run, k] = p_bg
            if len(deck.shapes) == k:
                from vision.picmix.shapes import dismiss, settle

                probs[run] = settle(crops[run], probs[run], deck.shapes)
                probs[run], vis[run] = dismiss(crops[run], probs[run], vis[run], deck.shapes)
        return ItemScores(probs.astype(np.float32), vis, emb)


def _match_logits(emb: np.ndarray, deck: ItemDeck) -> np.ndarray:
    """(N, K) logits of the deck's K items for matching-model embeddings (N, 64):
    ``MATCH_SCALE`` x the mean of each item's ``MATCH_TOP`` best cosines."""
    if deck.looks is None or len(deck.look_items) != len(deck.looks):
        raise ValueError(f"deck {deck.name!r} has no looks to match")
    cos = emb @ deck.looks.T
    owner = np.asarray(deck.look_items)
    out = np.empty((len(emb), len(deck.items)), np.float64)
    for j in range(len(deck.items)):
        c = cos[:, owner == j]
        top = min(MATCH_TOP, c.shape[1])
        out[:, j] = np.partition(c, c.shape[1] - top, axis=1)[:, -top:].mean(axis=1)
    return MATCH_SCALE * out


def load_match_session() -> Session:
    """The matching model's onnxruntime session through the project's one loader (one
    thread, CPU, sha256 checked)."""
    from models.loader import load_model

    session: Session = load_model(MATCH_MODEL_NAME).session
    return session


def match_model_sha256() -> str:
    """The manifest's sha256 of the matching model: a deck's prototypes are embeddings of
    that very file (``vision.picmix.decks``)."""
    from models.loader import read_manifest

    specs = read_manifest()
    if MATCH_MODEL_NAME not in specs:
        raise RuntimeError(f"no model {MATCH_MODEL_NAME!r} in models/manifest.json")
    return specs[MATCH_MODEL_NAME].sha256


@functools.lru_cache(maxsize=1)
def load_item_model() -> ItemModel:
    """The item model through the project's one loader (one thread, CPU, sha256 checked)."""
    from models.loader import load_model

    loaded = load_model(MODEL_NAME)
    session = getattr(loaded, "session", loaded)
    labels = tuple(getattr(loaded, "labels", ()) or ())
    if not labels:
        raise RuntimeError(f"model {MODEL_NAME!r} has no labels in models/manifest.json")
    return ItemModel(session, labels)


def kit_deck(model: ItemModel) -> ItemDeck:
    """The printable kit's Picmix deck: its 16 items by the model's own class vectors."""
    from vision.kit import load_deck
    from vision.kit.picmix import ITEMS

    missing = [i for i in ITEMS if i not in model.labels]
    if missing:
        raise RuntimeError(f"the item model does not know {missing}")
    objectives = {c.id: tuple(c.items) for c in load_deck("picmix").cards if c.kind == "objective"}
    from vision.picmix.area import kit_ratios

    return ItemDeck(
        name="picmix",
        items=tuple(ITEMS),
        prototypes=None,
        class_index=tuple(model.labels.index(i) for i in ITEMS),
        objectives=objectives,
        area_ratios=kit_ratios(),
    )
