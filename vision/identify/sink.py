"""The one place readings become JSON: ``pictable identify`` (CONTRACTS.md section 3).

``{"images": [{"image": PATH, "cards": [CARD...], "unknown": [UNKNOWN...]}]}`` where CARD is
``{"card": id, "corners": [[x, y] x 4], "face": "up"|"down", "method": "code"|"features",
"confidence": float}`` as the contract fixes, plus ``"side"`` (``"front"``/``"back"``),
``"zone"`` (a seat name or null) and ``"evidence"`` (what was seen); an UNKNOWN card (a
card-shaped outline that matched nothing: not in the deck, or too covered) is
``{"corners": [[x, y] x 4], "outline": float, "zone": str|null}``. Unknown cards are never in
``cards`` (whose ids are always strings). Pixels are rounded to 0.01 px, confidences to 0.001.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.identify.reading import CardReading, FrameCards, UnknownCard


def corners_json(corners: NDArray[np.floating]) -> list[list[float]]:
    """(4, 2) pixels -> [[x, y] x 4], rounded to 0.01 px."""
    return [[round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(corners).reshape(4, 2)]


def card_json(card: CardReading) -> dict[str, Any]:
    """One identified card (see the module docstring)."""
    return {
        "card": card.card,
        "corners": corners_json(card.corners_px),
        "face": card.face,
        "method": card.method,
        "confidence": round(float(card.confidence), 3),
        "side": card.side,
        "zone": card.zone,
        "evidence": list(card.evidence),
    }


def unknown_json(card: UnknownCard) -> dict[str, Any]:
    """One card-shaped outline that was not identified."""
    return {
        "corners": corners_json(card.corners_px),
        "outline": round(card.outline, 3),
        "zone": card.zone,
    }


def frame_json(image: str, result: FrameCards) -> dict[str, Any]:
    """The entry of one image: ``image``, ``cards``, ``unknown`` and, when any, ``warnings``."""
    out: dict[str, Any] = {
        "image": image,
        "cards": [card_json(c) for c in result.cards],
        "unknown": [unknown_json(u) for u in result.unknown],
    }
    if result.warnings:
        out["warnings"] = list(result.warnings)
    return out
