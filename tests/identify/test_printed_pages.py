"""Every card of the printed kit's pages is named by the default (``fast``) code reader, with
its id and face, when a page is read as an image at 100 and 150 dpi (a scanned or photographed
sheet before cutting), and nothing else is.

The pages are those ``pictable kit print`` writes: the PDF's own page images (read back from
the PDF), resampled to the resolution as a PDF rasteriser would. One sheet (its fronts and its
backs) per game, and the last of Pic Flip (its cover cards' large lettering), about 6 s; with
``PICTABLE_KIT_PAGES=all``, every sheet of every game (82 pages, under a minute: all 1,404
cards named, nothing else)."""

from __future__ import annotations

import functools
import io
import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, PdfParser

from vision.identify import identify_frame
from vision.kit import geometry as g
from vision.kit.decks import GAMES, load_deck
from vision.kit.printing import CARDS_PER_PAGE, print_kit
from vision.tracker import CardTracker

#: (game, sheet, 0-based): the cards printed on that sheet.
SHEETS = (
    ("pickpic", 0),
    ("picflip", 0),  # fronts: markers only, no QR code
    ("picflip", 12),  # the cover cards
    ("picasso", 1),
    ("picmix", 2),  # objectives 19-25, and player cards picmix-red-1 and -2, turned
)
DPI = (100, 150)


def _sheets() -> tuple[tuple[str, int], ...]:
    """:data:`SHEETS`, or every sheet of every game with ``PICTABLE_KIT_PAGES=all``."""
    if os.environ.get("PICTABLE_KIT_PAGES") != "all":
        return SHEETS
    return tuple(
        (game, sheet)
        for game in GAMES
        for sheet in range(-(-len(load_deck(game).cards) // CARDS_PER_PAGE))
    )


def _pdf_pages(path: Path) -> list[np.ndarray]:
    """Each page's image of a PDF written by :func:`print_kit`, (H, W, 3) uint8 BGR."""
    pdf = PdfParser.PdfParser(str(path))
    pages = []
    try:
        for ref in pdf.pages:
            page = pdf.read_indirect(ref)
            stream = pdf.read_indirect(page[b"Resources"][b"XObject"][b"Im0"])
            if stream.dictionary[b"Filter"] != PdfParser.PdfName(b"DCTDecode"):
                raise ValueError("card pages are stored as JPEG")
            rgb = np.asarray(Image.open(io.BytesIO(stream.buf)).convert("RGB"))
            pages.append(np.ascontiguousarray(rgb[..., ::-1]))
    finally:
        pdf.close()
    return pages


@functools.cache
def _sheet(game: str, sheet: int, folder: Path) -> tuple[tuple[str, ...], list[np.ndarray]]:
    """The cards of one sheet of a game and its two pages (fronts, backs) as printed."""
    ids = [c.id for c in load_deck(game).cards][
        sheet * CARDS_PER_PAGE : (sheet + 1) * CARDS_PER_PAGE
    ]
    path = folder / f"{game}-{sheet}.pdf"
    assert print_kit(game, path, "a4", cards=ids) == 2
    return tuple(ids), _pdf_pages(path)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("printed")


def _at_dpi(page: np.ndarray, dpi: int) -> np.ndarray:
    """A page image (drawn at ``g.PDF_PX_PER_MM``) as rasterised at ``dpi``."""
    scale = dpi / g.MM_PER_INCH / g.PDF_PX_PER_MM
    size = (round(page.shape[1] * scale), round(page.shape[0] * scale))
    return np.asarray(cv2.resize(page, size, interpolation=cv2.INTER_AREA), np.uint8)


@pytest.mark.parametrize("dpi", DPI)
@pytest.mark.parametrize(("game", "sheet"), _sheets())
def test_every_card_of_a_printed_page_is_named(
    game: str, sheet: int, dpi: int, folder: Path
) -> None:
    ids, pages = _sheet(game, sheet, folder)
    trusted = CardTracker().enter_conf
    for side, page in zip(g.FACES, pages, strict=True):
        cards = identify_frame(_at_dpi(page, dpi)).cards
        named = sorted((c.card, c.side) for c in cards)
        assert named == sorted((card, side) for card in ids), f"{side} page at {dpi} dpi"
        assert all(c.method == "code" and c.confidence >= trusted for c in cards)
