"""The Picmix item model at run time: crops in, item names, "not an item" and visible shares out.

The ONNX model (``models/picmix_items``, loaded through ``models.loader.load_model`` with its
sha256 checked against ``models/manifest.json``) maps each (2, 32, 32) crop
(``vision.picmix.crops``) to an L2-normalised embedding, cosine logits for the 83 pictograms it
was trained on, a background logit and the visible share of the item.

Items are named against a *deck* (``ItemDeck``): the kit's Picmix deck uses the model's own
class vectors of its 16 items; a registered deck (``vision.picmix.decks``) uses prototypes,
mean embeddings of its items photographed from the card faces. Either way one softmax runs
over the deck's items plus "background", so a deck never names a blob after an item that is
not in it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from vision.picmix.crops import CROP_PX

MODEL_NAME = "picmix_items"
SCALE = 16.0
"""Cosine-logit scale the model was trained with (``models/picmix_items/train.py``)."""


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

    def __init__(self, session: Session, labels: tuple[str, ...]) -> None:
        self.session = session
        self.labels = labels

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
