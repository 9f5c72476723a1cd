"""The Picmix reader: verify "Picmix!" claims from the camera.

Per frame (stateless): ``verify_frame(frame, deck=None) -> PicmixReading | PicmixFailure``
reads the objective card (by its printed code, or by its items), every item showing on the
player's cards and the verdict (``correct``, ``wrong`` or ``unsure``, with the missing and
extra items). Items are named by their look (``vision.picmix.model``: a small ONNX model on
ink blobs, ``vision.picmix.ink``), so the reader works on decks without codes; card codes,
when printed (the kit), only narrow the names down (``vision.picmix.markers``).

Visibility rule (``VISIBLE_MIN``): an item shows when at least a quarter of its printed area
is visible. Estimates within ``UNSURE_BAND`` (12% to 45%) are too close to call: the verdict
is then ``unsure`` and names the item, never a confident answer the item could overturn.

Over time: ``ClaimWatcher`` (``vision.tracker.picmix``: the tracker's, not this reader's)
turns frames into the docs/formats.md ``reveal`` and ``claim`` events. New art:
``register_deck`` (``vision.picmix.decks``) learns a deck's items from photos of its faces
(and its objective cards from theirs): each item drawn under many looks
(``vision.picmix.looks``) and embedded by the matching model (``models/picmix_match``), which
then names that deck's items by comparison. Figures:
``pictable.bench.readers.picmix.bench_picmix`` and ``report`` (the ``pictable bench`` hook),
measured also on a deck drawn with art the model never saw (``vision.picmix.newart``), on
claims rendered by ``vision.synth.picmix_claims`` (``python -m pictable.bench.readers.picmix``
runs them).

Conventions: frames (H, W, 3) uint8 BGR; boxes (x, y, w, h) and points (x, y) in pixels.
"""

from vision.picmix.decks import load_registered, register_deck
from vision.picmix.draw import annotate
from vision.picmix.model import ItemDeck, ItemModel, kit_deck, load_item_model
from vision.picmix.reader import verify_frame
from vision.picmix.reading import (
    NAME_MIN,
    UNSURE_BAND,
    VISIBLE_MIN,
    ItemSighting,
    PicmixFailure,
    PicmixReading,
)
from vision.picmix.verdict import decide

__all__ = [
    "NAME_MIN",
    "UNSURE_BAND",
    "VISIBLE_MIN",
    "ItemDeck",
    "ItemModel",
    "ItemSighting",
    "PicmixFailure",
    "PicmixReading",
    "annotate",
    "decide",
    "kit_deck",
    "load_item_model",
    "load_registered",
    "register_deck",
    "verify_frame",
]
