"""Which card is held up to the camera: its printed ArUco code (``DICT_4X4_1000``), mapped to
a card id through the kit's marker table (``vision.kit.codes.card_for_marker``).

Kept small and apart on purpose: the card identification reader of another issue
(``pictable identify``, by printed codes and by the card's picture) replaces it. Until then
``identify_held_card`` reads the codes itself; tests and other kits may pass their own
``marker -> (card id, face)`` table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

#: Marker ids below this are table fiducials (DICT_4X4_50), never cards.
FIRST_CARD_MARKER = 50

MarkerTable = Callable[[int], "tuple[str, str] | None"]


@lru_cache(maxsize=1)
def _detector() -> cv2.aruco.ArucoDetector:
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000)
    return cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())


def kit_marker_table() -> MarkerTable | None:
    """``vision.kit.codes.card_for_marker`` when the printable kit is importable, else None."""
    try:
        from vision.kit.codes import card_for_marker
    except Exception:  # the kit is another issue's: absent or broken, we just cannot name cards
        return None
    return card_for_marker


def identify_held_card(
    gray: NDArray[np.uint8], table: MarkerTable | None, *, game: str = "picasso"
) -> str | None:
    """The id of the card whose front codes show in ``gray`` ((H, W) uint8), by majority of
    the markers read, or None. Only ``game``'s cards count (its ids start with ``game-``)."""
    if table is None:
        return None
    _, ids, _ = _detector().detectMarkers(gray)
    if ids is None:
        return None
    votes: Counter[str] = Counter()
    for i in np.asarray(ids).reshape(-1).tolist():
        if i < FIRST_CARD_MARKER:
            continue
        hit = table(int(i))
        if hit is None:
            continue
        card, face = hit
        if face == "front" and card.startswith(game + "-"):
            votes[card] += 1
    if not votes:
        return None
    return votes.most_common(1)[0][0]
