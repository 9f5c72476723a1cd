"""Every physical size of the printable kit, in one place (mm unless a name says otherwise).

Conventions (the same as the rest of ``vision``):

- A card face is a rectangle in *face coordinates*: x to the right, y down, origin at the face's
  top-left corner, in millimetres, as the face is seen from the front (printed side up, upright).
- A rendered face at ``px_per_mm`` is an image of ``round(w_mm * px_per_mm)`` columns by
  ``round(h_mm * px_per_mm)`` rows; face point (x, y) mm lies at pixel (x * px_per_mm,
  y * px_per_mm), pixel (i, j) covering [i, i+1) x [j, j+1) (so pixel centres are at +0.5).
- Marker corners are listed in OpenCV ArUco order: top-left, top-right, bottom-right,
  bottom-left of the upright marker.
- The back of a card is seen after flipping the card about its vertical axis (a portrait card
  flipped like a book page): face point (x, y) of the back lies behind front point (w - x, y).

Readers (``vision/synth``, the card and Picmix readers) use these constants instead of copies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

MM_PER_INCH = 25.4
PRINT_DPI = 300
DEFAULT_PX_PER_MM = PRINT_DPI / MM_PER_INCH
"""The export resolution (300 dpi) in pixels per millimetre, about 11.81."""

Face = Literal["front", "back"]
FACES: tuple[Face, Face] = ("front", "back")
Half = Literal["left", "right"]
HALVES: tuple[Half, Half] = ("left", "right")


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in millimetres: top-left (x, y), width w, height h."""

    x: float
    y: float
    w: float
    h: float

    @property
    def x1(self) -> float:
        return self.x + self.w

    @property
    def y1(self) -> float:
        return self.y + self.h

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def corners(self) -> np.ndarray:
        """(4, 2) float32 corners (x, y) in mm: top-left, top-right, bottom-right, bottom-left."""
        return np.array(
            [[self.x, self.y], [self.x1, self.y], [self.x1, self.y1], [self.x, self.y1]],
            dtype=np.float32,
        )

    def grow(self, d: float) -> Rect:
        """The rectangle grown by ``d`` mm on every side (shrunk when ``d`` < 0)."""
        return Rect(self.x - d, self.y - d, self.w + 2 * d, self.h + 2 * d)


# --------------------------------------------------------------------------------------------
# Cards
# --------------------------------------------------------------------------------------------
CARD_W_MM = 63.0
CARD_H_MM = 88.0
CARD_SIZE_WH_MM = (CARD_W_MM, CARD_H_MM)
"""Poker size, portrait. Picmix player cards are the same card used landscape (88 x 63)."""
PICMIX_PLAYER_SIZE_WH_MM = (CARD_H_MM, CARD_W_MM)

CARD_MARGIN_MM = 3.0
"""White frame all round every face: the outer quiet zone of the codes, and room for cutting."""

CARD_MARKER_MM = 20.0
"""Side of a card's ArUco marker (black border included: 6 cells of 3.33 mm), both faces."""
MARKER_PAD_MM = 2.0
"""White kept round a marker or QR code on the sides that face the picture."""

CARD_MARKER_DICTIONARY = "DICT_4X4_1000"
FIDUCIAL_DICTIONARY = "DICT_4X4_50"
"""Table fiducials; a prefix of ``DICT_4X4_1000``, so card markers use ids >= 50."""

QR_MODULES = 21
"""Every printed QR code is version 1 (21 x 21 modules)."""
BACK_QR_MODULE_MM = 1.65
"""Module of the big QR on card backs: a 34.7 mm symbol, 41.3 mm with 2 quiet modules."""
FRONT_QR_MODULE_MM = 0.6
"""Module of the small front QR (12.6 mm symbol): read close up or from an export, not at
table distance."""
QR_QUIET_MODULES = 2


def _portrait_codes() -> tuple[Rect, Rect]:
    m, s = CARD_MARGIN_MM, CARD_MARKER_MM
    return (Rect(m, m, s, s), Rect(CARD_W_MM - m - s, CARD_H_MM - m - s, s, s))


PORTRAIT_MARKERS: tuple[Rect, Rect] = _portrait_codes()
"""Both faces of portrait cards: markers in the top-left and bottom-right corners."""

FRONT_QR_RECT = Rect(
    CARD_MARGIN_MM,
    CARD_H_MM - CARD_MARGIN_MM - QR_MODULES * FRONT_QR_MODULE_MM,
    QR_MODULES * FRONT_QR_MODULE_MM,
    QR_MODULES * FRONT_QR_MODULE_MM,
)
"""The small QR symbol (quiet zone excluded) in the bottom-left corner of portrait fronts that
carry one (Pick Pic, Picasso, Picmix objectives; Pic Flip fronts have no room for it)."""

_BACK_QR_SIDE = QR_MODULES * BACK_QR_MODULE_MM
BACK_QR_RECT = Rect(
    (CARD_W_MM - _BACK_QR_SIDE) / 2, (CARD_H_MM - _BACK_QR_SIDE) / 2, _BACK_QR_SIDE, _BACK_QR_SIDE
)
"""The big QR symbol (quiet zone excluded) centred on every portrait back."""

PICTURE_RECT = Rect(
    CARD_MARGIN_MM, CARD_MARGIN_MM, CARD_W_MM - 2 * CARD_MARGIN_MM, CARD_H_MM - 2 * CARD_MARGIN_MM
)
"""The picture area of portrait fronts; the code corners are knocked out of it in white."""

# Picmix player cards: landscape 88 x 63, a left and a right half, each with one marker.
PICMIX_MARKERS: tuple[Rect, Rect] = (
    Rect(CARD_MARGIN_MM, CARD_MARGIN_MM, CARD_MARKER_MM, CARD_MARKER_MM),
    Rect(
        CARD_H_MM - CARD_MARGIN_MM - CARD_MARKER_MM,
        CARD_W_MM - CARD_MARGIN_MM - CARD_MARKER_MM,
        CARD_MARKER_MM,
        CARD_MARKER_MM,
    ),
)
"""Markers of both faces of a Picmix player card: top-left (in the left half) and bottom-right
(in the right half), so each half carries the face's code."""
PICMIX_HALVES: dict[Half, Rect] = {
    "left": Rect(0.0, 0.0, CARD_H_MM / 2, CARD_W_MM),
    "right": Rect(CARD_H_MM / 2, 0.0, CARD_H_MM / 2, CARD_W_MM),
}
"""The two halves of a Picmix player face (landscape face coordinates)."""
PICMIX_ITEM_SIZE_MM = 30.0
PICMIX_ITEM_BOXES: dict[Half, Rect] = {
    "left": Rect(
        26.0 - PICMIX_ITEM_SIZE_MM / 2,
        38.0 - PICMIX_ITEM_SIZE_MM / 2,
        PICMIX_ITEM_SIZE_MM,
        PICMIX_ITEM_SIZE_MM,
    ),
    "right": Rect(
        CARD_H_MM - 26.0 - PICMIX_ITEM_SIZE_MM / 2,
        CARD_W_MM - 38.0 - PICMIX_ITEM_SIZE_MM / 2,
        PICMIX_ITEM_SIZE_MM,
        PICMIX_ITEM_SIZE_MM,
    ),
}
"""Square box of the item pictogram in each half (the layout is symmetric under a half turn)."""

PICMIX_OBJECTIVE_ITEM_MM = 21.0
"""Item size on objective cards: bold shapes that stay readable down to 15 mm."""


def face_size_wh_mm(card_id: str) -> tuple[float, float]:
    """(width, height) in mm of both faces of ``card_id`` as rendered (landscape for Picmix
    player cards, portrait otherwise)."""
    if card_id.startswith("picmix-") and not card_id.startswith("picmix-obj-"):
        return PICMIX_PLAYER_SIZE_WH_MM
    return CARD_SIZE_WH_MM


def face_marker_rects(card_id: str) -> tuple[Rect, Rect]:
    """The two marker squares (mm, face coordinates) on either face of ``card_id``."""
    if face_size_wh_mm(card_id) == PICMIX_PLAYER_SIZE_WH_MM:
        return PICMIX_MARKERS
    return PORTRAIT_MARKERS


def px_size(size_wh_mm: tuple[float, float], px_per_mm: float) -> tuple[int, int]:
    """(width, height) in whole pixels of a ``size_wh_mm`` rectangle rendered at ``px_per_mm``."""
    return (round(size_wh_mm[0] * px_per_mm), round(size_wh_mm[1] * px_per_mm))


# --------------------------------------------------------------------------------------------
# Table fiducials and the Picasso board
# --------------------------------------------------------------------------------------------
PLAY_AREA_MARKER_IDS = (0, 1, 2, 3)
"""Play-area corners clockwise from the top-left as seen from the first seat (DICT_4X4_50)."""
PLAY_AREA_MARKER_MM = 40.0

BOARD_MARKER_IDS = (4, 5, 6, 7)
"""Picasso board markers at the canvas corners top-left, top-right, bottom-right, bottom-left."""
BOARD_MARKER_MM = 30.0
BOARD_CANVAS_WH_MM = (360.0, 260.0)
BOARD_CANVAS_BGR = (226, 238, 244)
"""The canvas is light, off-white (a warm paper tone)."""


def board_marker_rects() -> dict[int, Rect]:
    """Marker id -> its square in *canvas coordinates* (mm, origin at the canvas's top-left
    corner, x right, y down). Each marker lies outside the canvas, touching it at one corner:
    the marker's corner nearest the canvas centre is the canvas corner. Markers are upright
    (their own top edge parallel to the canvas's top edge)."""
    w, h = BOARD_CANVAS_WH_MM
    s = BOARD_MARKER_MM
    tl, tr, br, bl = BOARD_MARKER_IDS
    return {
        tl: Rect(-s, -s, s, s),
        tr: Rect(w, -s, s, s),
        br: Rect(w, h, s, s),
        bl: Rect(-s, h, s, s),
    }


def board_marker_corners_mm() -> dict[int, np.ndarray]:
    """Marker id -> (4, 2) float32 corners in canvas mm, ArUco order (TL, TR, BR, BL)."""
    return {i: r.corners() for i, r in board_marker_rects().items()}


BOARD_OUTER_RECT = Rect(
    -BOARD_MARKER_MM,
    -BOARD_MARKER_MM,
    BOARD_CANVAS_WH_MM[0] + 2 * BOARD_MARKER_MM,
    BOARD_CANVAS_WH_MM[1] + 2 * BOARD_MARKER_MM,
)
"""The canvas with its four markers (canvas coordinates, mm): 420 x 320."""

# --------------------------------------------------------------------------------------------
# Calibration chessboard and paper
# --------------------------------------------------------------------------------------------
CHESSBOARD_SQUARES = (7, 10)
"""Squares across and down the printed page (portrait): 6 x 9 inner corners."""
CHESSBOARD_INNER_CORNERS = (CHESSBOARD_SQUARES[0] - 1, CHESSBOARD_SQUARES[1] - 1)
CHESSBOARD_SQUARE_MM = 25.0
CHESSBOARD_SPEC = (
    f"chessboard:{CHESSBOARD_INNER_CORNERS[1]}x{CHESSBOARD_INNER_CORNERS[0]}:"
    f"{CHESSBOARD_SQUARE_MM:g}"
)
"""The ``--board`` argument of ``pictable calibrate camera`` for the printed chessboard."""

PAPER_SIZES_MM: dict[str, tuple[float, float]] = {
    "a4": (210.0, 297.0),
    "letter": (215.9, 279.4),
}
"""Portrait (width, height) of the supported papers."""
PDF_PX_PER_MM = 10.0
"""Resolution of printed pages (254 dpi): both papers are then a whole number of pixels, so the
PDF page size in points is exact (A4 595.28 x 841.89, letter 612 x 792)."""
