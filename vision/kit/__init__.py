"""The printable kit: decks as data, card art drawn by code, printed codes, PDF and PNG output.

Conventions: images are (H, W, 3) uint8 BGR; sizes and positions on cards, boards and paper
are in millimetres (``vision.kit.geometry`` holds every one of them); a rendering at
``px_per_mm`` maps mm (x, y) to pixel (x * px_per_mm, y * px_per_mm).

Modules: ``geometry`` (sizes and positions), ``decks`` (the cards), ``picmix`` (items, sets,
objectives, solver), ``codes`` (marker ids, QR payloads), ``photos`` and ``pictograms`` (the
pictures), ``render`` (faces, markers, board, chessboard), ``printing`` and ``pdf`` (PDF
sheets), ``export`` (PNG files and manifest).
"""

from __future__ import annotations

from vision.kit.codes import (
    FaceCodes,
    card_for_marker,
    face_codes,
    format_payload,
    marker_id,
    marker_table,
    parse_payload,
)
from vision.kit.decks import GAMES, Card, Deck, Picture, all_cards, get_card, load_deck
from vision.kit.export import export_deck
from vision.kit.geometry import DEFAULT_PX_PER_MM, Face, Half, Rect, face_size_wh_mm
from vision.kit.picmix import PicmixFace, Placement, Solution, solve_objective
from vision.kit.printing import PRINTABLES, print_kit
from vision.kit.render import (
    picmix_item_layout,
    render_board,
    render_chessboard,
    render_face,
    render_marker,
)

__all__ = [
    "DEFAULT_PX_PER_MM",
    "GAMES",
    "PRINTABLES",
    "Card",
    "Deck",
    "Face",
    "FaceCodes",
    "Half",
    "PicmixFace",
    "Picture",
    "Placement",
    "Rect",
    "Solution",
    "all_cards",
    "card_for_marker",
    "export_deck",
    "face_codes",
    "face_size_wh_mm",
    "format_payload",
    "get_card",
    "load_deck",
    "marker_id",
    "marker_table",
    "parse_payload",
    "picmix_item_layout",
    "print_kit",
    "render_board",
    "render_chessboard",
    "render_face",
    "render_marker",
    "solve_objective",
]
