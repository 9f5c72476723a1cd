"""Printable PDF sheets of the kit, at true size when printed at 100 % ("actual size").

Card decks: 3 x 3 cards of 63 x 88 mm per page, butted edge to edge and centred, cut marks in
the margins on the grid lines. Pages alternate fronts and backs for duplex printing, flipped on
the long edge: on back pages the columns are mirrored, so each back lands behind its front.
Picmix player cards (landscape) are turned a quarter turn into their slot: fronts clockwise,
backs anticlockwise, which puts each back upright behind its front (geometry's convention:
the back is seen after flipping the card about its own vertical axis).

Other sheets: the play-area markers 0-3 (40 mm), the Picasso board markers 4-7 (30 mm) with
how to place them, and the calibration chessboard. Every page has a 50 mm scale bar to check
the print scale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from vision.kit import geometry as g
from vision.kit.codes import marker_bits
from vision.kit.decks import GAME_TITLES, GAMES, Card, select_cards
from vision.kit.geometry import Face, Rect
from vision.kit.pdf import PdfWriter
from vision.kit.raster import BLACK, WHITE, Colour, draw_text, fill_rect, paint_bits
from vision.kit.render import render_face

PRINTABLES: tuple[str, ...] = (*GAMES, "markers", "board", "calibration")
"""What ``print_kit`` can print."""
COLS, ROWS = 3, 3
CARDS_PER_PAGE = COLS * ROWS
GREY: Colour = (110, 110, 110)
CUT: Colour = (0, 0, 0)
CUT_MARK_MM = (1.5, 5.5)
"""Cut marks run from 1.5 to 5.5 mm outside the card grid."""


@dataclass(frozen=True)
class SheetLayout:
    """Where the card slots sit on a page (mm, page coordinates, portrait)."""

    paper: str
    page_wh_mm: tuple[float, float]
    origin_mm: tuple[float, float]  # top-left corner of the card grid

    def slot(self, index: int, back: bool = False) -> Rect:
        """The slot of the ``index``-th card (row-major) on a front page, or on a back page
        (columns mirrored)."""
        r, c = divmod(index, COLS)
        if back:
            c = COLS - 1 - c
        return Rect(
            self.origin_mm[0] + c * g.CARD_W_MM,
            self.origin_mm[1] + r * g.CARD_H_MM,
            g.CARD_W_MM,
            g.CARD_H_MM,
        )


def sheet_layout(paper: str) -> SheetLayout:
    """The card grid on ``paper`` (``a4`` or ``letter``)."""
    if paper not in g.PAPER_SIZES_MM:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(g.PAPER_SIZES_MM)}")
    w, h = g.PAPER_SIZES_MM[paper]
    return SheetLayout(paper, (w, h), ((w - COLS * g.CARD_W_MM) / 2, (h - ROWS * g.CARD_H_MM) / 2))


def _page(paper: str, px_per_mm: float) -> np.ndarray:
    w, h = g.px_size(g.PAPER_SIZES_MM[paper], px_per_mm)
    return np.full((h, w, 3), 255, np.uint8)


def _paste(page: np.ndarray, img: np.ndarray, rect: Rect, px_per_mm: float) -> None:
    """Paste ``img`` at ``rect``'s top-left (rounded to whole pixels; sizes are exact when
    ``px_per_mm`` makes the card a whole number of pixels, as ``PDF_PX_PER_MM`` does)."""
    x0, y0 = round(rect.x * px_per_mm), round(rect.y * px_per_mm)
    h = min(img.shape[0], page.shape[0] - y0)
    w = min(img.shape[1], page.shape[1] - x0)
    page[y0 : y0 + h, x0 : x0 + w] = img[:h, :w]


def _cut_marks(page: np.ndarray, layout: SheetLayout, px_per_mm: float) -> None:
    ox, oy = layout.origin_mm
    x1, y1 = ox + COLS * g.CARD_W_MM, oy + ROWS * g.CARD_H_MM
    a, b = CUT_MARK_MM
    t = 0.25
    for c in range(COLS + 1):
        x = ox + c * g.CARD_W_MM - t / 2
        fill_rect(page, Rect(x, oy - b, t, b - a), CUT, px_per_mm)
        fill_rect(page, Rect(x, y1 + a, t, b - a), CUT, px_per_mm)
    for r in range(ROWS + 1):
        y = oy + r * g.CARD_H_MM - t / 2
        fill_rect(page, Rect(ox - b, y, b - a, t), CUT, px_per_mm)
        fill_rect(page, Rect(x1 + a, y, b - a, t), CUT, px_per_mm)


def _scale_bar(
    page: np.ndarray, x: float, y: float, px_per_mm: float, vertical: bool = False
) -> None:
    """A 50 mm bar with 10 mm ticks starting at (x, y) mm, and its label; ``vertical`` runs it
    down the page (for narrow top and bottom margins)."""
    if vertical:
        fill_rect(page, Rect(x, y, 0.4, 50.0), BLACK, px_per_mm)
        for k in range(6):
            fill_rect(page, Rect(x - 1.5, y + 10 * k - 0.2, 1.9, 0.4), BLACK, px_per_mm)
        draw_text(
            page, "50 mm at 100 % scale", (x + 2.4, y + 25.0), 1.6, GREY, px_per_mm, rotate=90
        )
        return
    fill_rect(page, Rect(x, y, 50.0, 0.4), BLACK, px_per_mm)
    for k in range(6):
        fill_rect(page, Rect(x + 10 * k - 0.2, y - 1.5, 0.4, 1.9), BLACK, px_per_mm)
    draw_text(page, "50 mm at 100 % scale", (x + 25.0, y + 2.6), 1.6, GREY, px_per_mm)


def _header_and_scale(
    page: np.ndarray, layout: SheetLayout, text: str, scale_bar: bool, px_per_mm: float
) -> None:
    """The page's header line and scale bar in the margins, clear of the cut marks: above and
    below the grid when those margins are wide (A4), else turned in the side margins."""
    w, h = layout.page_wh_mm
    ox, oy = layout.origin_mm
    if oy >= 12.0:
        draw_text(page, text, (w / 2, oy - 8.0), 2.0, GREY, px_per_mm)
        if scale_bar:
            _scale_bar(page, w / 2 - 25, h - oy + 7.5, px_per_mm)
    else:
        x = ox - CUT_MARK_MM[1] - 2.5
        draw_text(page, text, (x, h / 2), 2.0, GREY, px_per_mm, rotate=90)
        if scale_bar:
            _scale_bar(page, w - x - 2.0, h / 2 - 25, px_per_mm, vertical=True)


def _oriented_face(card: Card, face: Face, px_per_mm: float) -> np.ndarray:
    """The face as it goes into its portrait slot (Picmix player cards turned)."""
    img = render_face(card.id, face, px_per_mm)
    if img.shape[1] > img.shape[0]:  # landscape: fronts clockwise, backs anticlockwise
        img = np.rot90(img, k=-1 if face == "front" else 1)
    return np.ascontiguousarray(img)


def _deck_pages(
    game: str, paper: str, px_per_mm: float, card_ids: Sequence[str] | None
) -> tuple[int, Callable[[], Iterator[tuple[np.ndarray, str]]]]:
    cards = select_cards(game, card_ids)
    layout = sheet_layout(paper)
    n_sheets = (len(cards) + CARDS_PER_PAGE - 1) // CARDS_PER_PAGE
    title = GAME_TITLES[game]

    def pages() -> Iterator[tuple[np.ndarray, str]]:
        for s in range(n_sheets):
            batch = cards[s * CARDS_PER_PAGE : (s + 1) * CARDS_PER_PAGE]
            for face in g.FACES:
                page = _page(paper, px_per_mm)
                for i, card in enumerate(batch):
                    _paste(
                        page,
                        _oriented_face(card, face, px_per_mm),
                        layout.slot(i, back=face == "back"),
                        px_per_mm,
                    )
                _cut_marks(page, layout, px_per_mm)
                side = (
                    "fronts"
                    if face == "front"
                    else "backs (print on the reverse, flip on long edge)"
                )
                _header_and_scale(
                    page,
                    layout,
                    f"pictable kit - {title} - sheet {s + 1}/{n_sheets} - "
                    f"{side} - print at 100 % (actual size)",
                    face == "front",
                    px_per_mm,
                )
                yield page, "jpeg"

    return 2 * n_sheets, pages


def _marker_with_guides(
    page: np.ndarray, mid: int, rect: Rect, label: str, px_per_mm: float
) -> None:
    """A marker with a 6 mm white quiet zone, dashed cut guides round it and a label."""
    fill_rect(page, rect.grow(6.0), WHITE, px_per_mm)
    paint_bits(page, marker_bits(mid), rect, px_per_mm)
    r = rect.grow(6.0)
    dash = 2.0
    t = 0.2
    x = r.x
    while x < r.x1:
        fill_rect(page, Rect(x, r.y, min(dash, r.x1 - x), t), GREY, px_per_mm)
        fill_rect(page, Rect(x, r.y1 - t, min(dash, r.x1 - x), t), GREY, px_per_mm)
        x += 2 * dash
    y = r.y
    while y < r.y1:
        fill_rect(page, Rect(r.x, y, t, min(dash, r.y1 - y)), GREY, px_per_mm)
        fill_rect(page, Rect(r.x1 - t, y, t, min(dash, r.y1 - y)), GREY, px_per_mm)
        y += 2 * dash
    draw_text(page, label, (rect.centre[0], r.y1 + 3.0), 2.4, BLACK, px_per_mm)


def _markers_page(paper: str, px_per_mm: float) -> np.ndarray:
    page = _page(paper, px_per_mm)
    w, h = g.PAPER_SIZES_MM[paper]
    s = g.PLAY_AREA_MARKER_MM
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    draw_text(
        page,
        "pictable play-area markers (DICT_4X4_50, 40 mm) - print at 100 %",
        (w / 2, 18.0),
        3.2,
        BLACK,
        px_per_mm,
    )
    draw_text(
        page,
        "Cut along the dashed lines, keeping the white border. Lay them at the "
        "corners of the play area,",
        (w / 2, 26.0),
        2.4,
        GREY,
        px_per_mm,
    )
    draw_text(
        page,
        "clockwise from the top-left as seen from the first seat, upright "
        "(number below the marker towards that seat).",
        (w / 2, 30.5),
        2.4,
        GREY,
        px_per_mm,
    )
    for k, mid in enumerate(g.PLAY_AREA_MARKER_IDS):
        r, c = divmod(k, 2)
        cx = w / 2 + (c - 0.5) * 80.0
        cy = 80.0 + r * 95.0
        rect = Rect(cx - s / 2, cy - s / 2, s, s)
        _marker_with_guides(page, mid, rect, f"marker {mid}: {names[k]}", px_per_mm)
    _scale_bar(page, w / 2 - 25, h - 20.0, px_per_mm)
    return page


def _board_page(paper: str, px_per_mm: float) -> np.ndarray:
    page = _page(paper, px_per_mm)
    w, h = g.PAPER_SIZES_MM[paper]
    s = g.BOARD_MARKER_MM
    cw, ch = g.BOARD_CANVAS_WH_MM
    lines = (
        "Picasso board markers (DICT_4X4_50, 30 mm) - print at 100 %",
        f"The canvas is {cw:g} x {ch:g} mm, light (off-white). Cut out each marker along the",
        "dashed line, then trim its white border away on the two sides by the red arrow,",
        "and lay it OUTSIDE the canvas, the corner the arrow points at on the canvas corner:",
        "4 top-left, 5 top-right, 6 bottom-right, 7 bottom-left, all upright (text at the bottom).",
    )
    for k, line in enumerate(lines):
        draw_text(
            page,
            line,
            (w / 2, 16.0 + 5.0 * k),
            3.0 if k == 0 else 2.3,
            BLACK if k == 0 else GREY,
            px_per_mm,
        )
    # a diagram of the board at 1:6
    scale = 1 / 6
    ox, oy = w / 2 - cw * scale / 2, 50.0 + s * scale
    fill_rect(page, Rect(ox, oy, cw * scale, ch * scale), (200, 220, 232), px_per_mm)
    draw_text(
        page,
        f"canvas {cw:g} x {ch:g} mm (diagram 1:6)",
        (w / 2, oy + ch * scale / 2),
        2.0,
        GREY,
        px_per_mm,
    )
    for mid, r in g.board_marker_rects().items():
        rr = Rect(ox + r.x * scale, oy + r.y * scale, r.w * scale, r.h * scale)
        fill_rect(page, rr, BLACK, px_per_mm)
        draw_text(page, str(mid), rr.centre, 1.8, WHITE, px_per_mm)
    # the four markers, true size, a red arrow at the corner that touches the canvas
    corner_of = {4: (1, 1), 5: (0, 1), 6: (0, 0), 7: (1, 0)}  # which corner touches the canvas
    names = {4: "top-left", 5: "top-right", 6: "bottom-right", 7: "bottom-left"}
    top = oy + ch * scale + s * scale + 14.0
    for k, mid in enumerate(g.BOARD_MARKER_IDS):
        row, col = divmod(k, 2)
        cx = w / 2 + (col - 0.5) * 70.0
        cy = top + s / 2 + row * 62.0
        rect = Rect(cx - s / 2, cy - s / 2, s, s)
        _marker_with_guides(page, mid, rect, f"marker {mid}: canvas {names[mid]}", px_per_mm)
        fx, fy = corner_of[mid]
        px, py = rect.x + fx * s, rect.y + fy * s  # the corner that goes on the canvas corner
        sx, sy = (1 if fx else -1), (1 if fy else -1)  # pointing out of the marker
        # a red arrowhead in the white border, pointing at that corner without touching it
        tri = (
            np.array(
                [
                    [px + sx * 1.2, py + sy * 1.2],
                    [px + sx * 5.5, py + sy * 2.2],
                    [px + sx * 2.2, py + sy * 5.5],
                ]
            )
            * px_per_mm
        )
        cv2.fillPoly(page, [np.round(tri * 16).astype(np.int32)], (40, 40, 230), cv2.LINE_AA, 4)
    _scale_bar(page, w / 2 - 25, h - 14.0, px_per_mm)
    return page


def _calibration_page(paper: str, px_per_mm: float) -> np.ndarray:
    page = _page(paper, px_per_mm)
    w, h = g.PAPER_SIZES_MM[paper]
    cols, rows = g.CHESSBOARD_SQUARES
    sq = g.CHESSBOARD_SQUARE_MM
    bw, bh = cols * sq, rows * sq
    ox, oy = (w - bw) / 2, (h - bh) / 2 + 3.0
    bits = (np.add.outer(np.arange(rows), np.arange(cols)) % 2 == 0).astype(np.uint8)
    paint_bits(page, bits, Rect(ox, oy, bw, bh), px_per_mm)
    draw_text(
        page,
        f"pictable calibration chessboard: {cols} x {rows} squares of {sq:g} mm "
        f"({g.CHESSBOARD_INNER_CORNERS[0]} x {g.CHESSBOARD_INNER_CORNERS[1]} inner "
        "corners) - print at 100 %",
        (w / 2, oy - 8.0),
        2.4,
        BLACK,
        px_per_mm,
    )
    draw_text(
        page,
        f"pictable calibrate camera IMAGE... --board {g.CHESSBOARD_SPEC}   "
        "(glue it flat; measure a square and use that size if it is not 25 mm)",
        (w / 2, oy - 3.5),
        2.1,
        GREY,
        px_per_mm,
    )
    _scale_bar(page, w / 2 - 25, oy + bh + 4.0, px_per_mm)
    return page


def print_kit(
    what: str,
    out: str | Path,
    paper: Literal["a4", "letter"] | str = "a4",
    px_per_mm: float = g.PDF_PX_PER_MM,
    progress: bool = False,
    cards: Sequence[str] | None = None,
) -> int:
    """Write the printable PDF of ``what`` (``PRINTABLES``) to ``out``; returns the page count.

    ``px_per_mm`` must make the paper a whole number of pixels (10 and 20 do for both papers)
    so the page size in points is exact. ``progress`` shows a tqdm bar on stderr. ``cards``
    prints only those cards of a deck (to replace lost or damaged ones).
    """
    if what not in PRINTABLES:
        raise ValueError(f"unknown printable {what!r}; choose from {', '.join(PRINTABLES)}")
    layout = sheet_layout(paper)
    for mm in layout.page_wh_mm:
        if abs(mm * px_per_mm - round(mm * px_per_mm)) > 1e-6:
            raise ValueError(f"{px_per_mm} px/mm does not make {paper} a whole number of pixels")
    pages: Callable[[], Iterator[tuple[np.ndarray, str]]]
    if what in GAMES:
        n, pages = _deck_pages(what, paper, px_per_mm, cards)
    else:
        if cards is not None:
            raise ValueError(f"cards can only be chosen when printing a deck, not {what}")
        maker = {"markers": _markers_page, "board": _board_page, "calibration": _calibration_page}[
            what
        ]
        n = 1

        def pages() -> Iterator[tuple[np.ndarray, str]]:
            yield maker(paper, px_per_mm), "flate"

    it: Iterator[tuple[np.ndarray, str]] = pages()
    if progress:
        from tqdm import tqdm

        it = tqdm(it, total=n, unit="page", desc=f"printing {what}", leave=False, disable=None)
    with PdfWriter(out, n, px_per_mm, title=f"pictable kit: {what} ({paper})") as pdf:
        for page, enc in it:
            pdf.add_page(page, "jpeg" if enc == "jpeg" else "flate")
    return n
