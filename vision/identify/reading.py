"""What the card reader returns for one frame: frozen dataclasses, no serialisation here
(that is :mod:`vision.identify.sink`).

Conventions: pixels (x, y) in OpenCV's convention (pixel centres at integers);
``corners_px`` is (4, 2) float32, the card face's top-left, top-right, bottom-right and
bottom-left corners *as printed* (upright), so the first side is the face's top edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Face = Literal["up", "down"]
Side = Literal["front", "back"]
Method = Literal["code", "features"]

#: Kit face name -> the contract's face: a card showing its front lies face up.
FACE_OF_SIDE: dict[str, Face] = {"front": "up", "back": "down"}


def _frozen_quad(value: object) -> NDArray[np.float32]:
    quad = np.array(value, dtype=np.float32).reshape(4, 2)
    quad.flags.writeable = False
    return quad


@dataclass(frozen=True, eq=False)
class CardReading:
    """One identified card.

    - ``card``: the card id (a kit id such as ``"pickpic-007"``, or a registered deck's id).
    - ``corners_px``: (4, 2) float32 pixels, TL, TR, BR, BL of the face showing, as printed.
    - ``face``: ``"up"`` (its front shows) or ``"down"`` (its back shows); ``side`` says the
      same in the kit's words (``"front"``/``"back"``; for Picmix player cards, whose two
      faces both carry items, the A and B faces).
    - ``method``: ``"code"`` when a printed code named it (a picture that agrees adds to the
      confidence), ``"features"`` when only its picture did.
    - ``confidence``: in [0, 1]; how sure the reader is of the id (see
      :mod:`vision.identify.identify` for how it is made).
    - ``zone``: the seat zone the card's centre lies in, when a calibration with seats and
      the play-area markers gave the table plane; else None.
    - ``evidence``: what was seen, for debugging: ``"marker"``, ``"qr"``, ``"picture"``,
      ``"keypoints"`` (one entry per code read, once for the picture).
    """

    card: str
    corners_px: NDArray[np.float32]
    face: Face
    side: Side
    method: Method
    confidence: float
    zone: str | None = None
    evidence: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "corners_px", _frozen_quad(self.corners_px))

    @property
    def center_px(self) -> NDArray[np.float32]:
        """(2,) float32: the mean of the four corners, pixels."""
        return np.asarray(self.corners_px.mean(axis=0), np.float32)


@dataclass(frozen=True, eq=False)
class UnknownCard:
    """A card-shaped object that was not identified (not in the deck, or too covered to
    tell): ``corners_px`` (4, 2) float32 pixels in the order found (clockwise on screen, the
    first corner at one end of a short side); ``outline`` in [0, 1] the share of its outline
    seen as an edge; ``zone`` as in :class:`CardReading`."""

    corners_px: NDArray[np.float32]
    outline: float
    zone: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "corners_px", _frozen_quad(self.corners_px))

    @property
    def center_px(self) -> NDArray[np.float32]:
        """(2,) float32: the mean of the four corners, pixels."""
        return np.asarray(self.corners_px.mean(axis=0), np.float32)


@dataclass(frozen=True)
class FrameCards:
    """Everything read in one frame: the identified ``cards`` (most confident first), the
    ``unknown`` card-shaped objects, the frame's ``size_wh`` (pixels) and ``warnings``
    (e.g. why seat zones could not be given)."""

    cards: tuple[CardReading, ...]
    unknown: tuple[UnknownCard, ...] = ()
    size_wh: tuple[int, int] = (0, 0)
    warnings: tuple[str, ...] = field(default_factory=tuple)

    def card(self, card_id: str) -> CardReading | None:
        """The reading of ``card_id``, or None when it was not seen."""
        for c in self.cards:
            if c.card == card_id:
                return c
        return None
