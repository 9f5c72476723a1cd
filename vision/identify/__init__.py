"""The card reader: which card is that, where, face up or down, in whose zone.

``identify_frame(frame, deck=None, *, codes="fast", features=True, calibration=None)`` is
stateless: a frame in, a :class:`FrameCards` out (frozen dataclasses; JSON in
:mod:`vision.identify.sink`, the only serialisation). Cards of the printable edition are
named by their printed codes (:mod:`~vision.identify.codes`), any registered deck by its
pictures (:mod:`~vision.identify.deck`, :mod:`~vision.identify.appearance`,
:mod:`~vision.identify.quads`, :mod:`~vision.identify.local`); see
:mod:`vision.identify.identify` for how they combine and ``vision/identify/README.md`` for
the figures.

Conventions: frames (H, W, 3) uint8 BGR; points (x, y) float pixels, OpenCV's convention
(pixel centres at integers); a card's ``corners_px`` (4, 2) are its face's top-left,
top-right, bottom-right and bottom-left as printed; card faces in millimetres
(``vision.kit.geometry``).

Modules: ``reading`` (the readings), ``codes`` (kit cards by their codes), ``quads`` (card
outlines from edges), ``appearance`` (the whole-card descriptor), ``local`` (ORB keypoints,
homography verification), ``deck`` (reference decks, on disk and built in), ``identify``
(the reader), ``zones`` (seat zones), ``sink`` (JSON), ``draw`` (annotated images),
``register`` (capturing cards from a camera), ``scenes`` (rendered validation tables; their
benchmark is ``pictable.bench.readers.identify``), ``index_arrays`` (a deck's keypoint indexes
stored as arrays).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.identify.deck import (
        BUILTIN_DECKS,
        DeckError,
        ReferenceDeck,
        build_deck,
        builtin_deck,
        decks_dir,
        list_decks,
        load_deck_folder,
        open_deck,
        register,
    )
    from vision.identify.identify import (
        DEFAULT_THRESHOLDS,
        Thresholds,
        check_frame,
        identify_frame,
    )
    from vision.identify.reading import CardReading, FrameCards, UnknownCard

#: Where each name of the package is defined. Imported on first use (PEP 562), so that
#: ``from vision.identify import DeckError`` or ``vision.identify.threads`` does not load the
#: whole reader (OpenCV, numba, scipy, the kit), and a command starts as fast as it can.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(
        (
            "BUILTIN_DECKS",
            "DeckError",
            "ReferenceDeck",
            "build_deck",
            "builtin_deck",
            "decks_dir",
            "list_decks",
            "load_deck_folder",
            "open_deck",
            "register",
        ),
        "vision.identify.deck",
    ),
    **dict.fromkeys(
        ("DEFAULT_THRESHOLDS", "Thresholds", "check_frame", "identify_frame"),
        "vision.identify.identify",
    ),
    **dict.fromkeys(("CardReading", "FrameCards", "UnknownCard"), "vision.identify.reading"),
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:  # a submodule not imported yet: the import system looks for it next
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "BUILTIN_DECKS",
    "DEFAULT_THRESHOLDS",
    "CardReading",
    "DeckError",
    "FrameCards",
    "ReferenceDeck",
    "Thresholds",
    "UnknownCard",
    "build_deck",
    "builtin_deck",
    "check_frame",
    "decks_dir",
    "identify_frame",
    "list_decks",
    "load_deck_folder",
    "open_deck",
    "register",
]
