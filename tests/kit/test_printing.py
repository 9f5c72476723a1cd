"""Printed PDFs: exact page sizes, cards at true size, fronts and backs aligned for duplex."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, PdfParser

from vision.kit import geometry as g
from vision.kit.codes import marker_id
from vision.kit.decks import load_deck
from vision.kit.printing import print_kit, sheet_layout

PAGE_PT = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}


def read_pdf(path: Path) -> list[tuple[tuple[float, float], np.ndarray]]:
    """Each page's (width, height) in points and its image as (H, W, 3) BGR or (H, W) grey."""
    pdf = PdfParser.PdfParser(str(path))
    pages = []
    try:
        for ref in pdf.pages:
            page = pdf.read_indirect(ref)
            box = [float(v) for v in page[b"MediaBox"]]
            assert box[:2] == [0.0, 0.0]
            stream = pdf.read_indirect(page[b"Resources"][b"XObject"][b"Im0"])
            d = stream.dictionary
            w, h = int(d[b"Width"]), int(d[b"Height"])
            if d[b"Filter"] == PdfParser.PdfName(b"DCTDecode"):
                img = np.asarray(Image.open(io.BytesIO(stream.buf)))[..., ::-1]
            else:
                img = np.frombuffer(stream.decode(max_length=w * h), np.uint8).reshape(h, w)
            assert img.shape[:2] == (h, w)
            pages.append(((box[2], box[3]), np.ascontiguousarray(img)))
    finally:
        pdf.close()
    return pages


@pytest.fixture(scope="module")
def picmix_pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The whole Picmix deck on A4; on letter, a subset (the pages are laid out alike)."""
    out = tmp_path_factory.mktemp("pdf")
    paths = {"a4": out / "picmix-a4.pdf", "letter": out / "picmix-letter.pdf"}
    assert print_kit("picmix", paths["a4"], "a4") == 12
    some = [c.id for c in load_deck("picmix").cards[20:32]]
    assert print_kit("picmix", paths["letter"], "letter", cards=some) == 4
    return paths


def _dark_runs(line: np.ndarray) -> list[float]:
    """Centres (pixels) of the dark runs along a 1-D grey profile."""
    dark = np.concatenate([[False], line < 128, [False]])
    edges = np.flatnonzero(np.diff(dark.astype(int)))
    return [(a + b - 1) / 2 for a, b in zip(edges[::2], edges[1::2], strict=True)]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_deck_pages_have_the_paper_size_and_cards_measure_63_by_88(
    picmix_pdfs: dict[str, Path], paper: str
) -> None:
    pages = read_pdf(picmix_pdfs[paper])
    assert len(pages) == {"a4": 12, "letter": 4}[paper]
    for (w_pt, h_pt), _img in pages:
        assert (w_pt, h_pt) == pytest.approx(PAGE_PT[paper], abs=0.01)
    (w_pt, _), img = pages[0]
    px_per_mm = img.shape[1] / (w_pt * 25.4 / 72)  # the PDF's own resolution
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    layout = sheet_layout(paper)
    ox, oy = layout.origin_mm
    # cut marks above the grid: one per vertical grid line
    xs = _dark_runs(grey[round((oy - 3.5) * px_per_mm)])
    assert len(xs) == 4
    assert np.diff(xs) / px_per_mm == pytest.approx([63.0] * 3, abs=0.15)
    ys = _dark_runs(grey[:, round((ox - 3.5) * px_per_mm)])
    assert len(ys) == 4
    assert np.diff(ys) / px_per_mm == pytest.approx([88.0] * 3, abs=0.15)
    # the first card's top-left marker is 20 mm
    row = grey[round((oy + g.CARD_MARGIN_MM + 10) * px_per_mm)]
    x0 = round(ox * px_per_mm)
    span = np.flatnonzero(row[x0 : x0 + round(24 * px_per_mm)] < 128)  # the white pad ends at 25
    assert (span[-1] - span[0] + 1) / px_per_mm == pytest.approx(20.0, abs=0.25)


def _slot_marker(img: np.ndarray, slot: g.Rect, px_per_mm: float) -> list[int]:
    x0, y0 = round(slot.x * px_per_mm), round(slot.y * px_per_mm)
    crop = img[y0 : y0 + round(slot.h * px_per_mm), x0 : x0 + round(slot.w * px_per_mm)]
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.5
    det = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000), params
    )
    _, ids, _ = det.detectMarkers(crop)
    return [] if ids is None else sorted(int(i) for i in ids.ravel())


def test_backs_are_mirrored_for_long_edge_duplex(picmix_pdfs: dict[str, Path]) -> None:
    pages = read_pdf(picmix_pdfs["a4"])
    layout = sheet_layout("a4")
    cards = load_deck("picmix").cards
    ppm = g.PDF_PX_PER_MM
    for sheet in (0, 3):  # objectives, then player cards (landscape, turned)
        front, back = pages[2 * sheet][1], pages[2 * sheet + 1][1]
        for i in (0, 2, 4):
            card = cards[sheet * 9 + i]
            assert _slot_marker(front, layout.slot(i), ppm) == [marker_id(card.id, "front")] * 2
            assert (
                _slot_marker(back, layout.slot(i, back=True), ppm)
                == [marker_id(card.id, "back")] * 2
            )


def test_player_card_back_is_upright_behind_its_front(picmix_pdfs: dict[str, Path]) -> None:
    """Physics of long-edge duplex: the paper point at front-slot (x, y) is printed on the back
    page at (63 - x, y). A landscape player card goes in its slot turned clockwise: slot (x, y)
    shows front (u, v) = (y, 63 - x). Its back, seen by a player who flips the card about its
    own vertical axis (geometry's convention), shows that paper point at (88 - u, v)."""
    from vision.kit.render import render_face

    pages = read_pdf(picmix_pdfs["a4"])
    layout = sheet_layout("a4")
    ppm = g.PDF_PX_PER_MM
    front, back = pages[6][1], pages[7][1]  # sheet 4 starts with picmix-red-3

    def crop(img: np.ndarray, slot: g.Rect) -> np.ndarray:
        x0, y0 = round(slot.x * ppm), round(slot.y * ppm)
        return img[y0 : y0 + round(slot.h * ppm), x0 : x0 + round(slot.w * ppm)].astype(int)

    front_img = render_face("picmix-red-3", "front", ppm)  # (630, 880): v, u
    back_img = render_face("picmix-red-3", "back", ppm)
    # front slot pixel [y, x] shows front_img[63 - x, y]
    want_front = np.transpose(front_img[::-1], (1, 0, 2))
    assert np.abs(crop(front, layout.slot(0)) - want_front).mean() < 4
    # the paper point of front-slot [y, x] is back-page slot [y, 63 - x]; it must show
    # back_img[v, 88 - u] = back_img[63 - x, 88 - y]
    seen_back = crop(back, layout.slot(0, back=True))[:, ::-1]
    want_back = np.transpose(back_img[::-1, ::-1], (1, 0, 2))
    assert np.abs(seen_back - want_back).mean() < 4


@pytest.mark.parametrize(
    ("what", "paper"),
    [("markers", "a4"), ("board", "letter"), ("calibration", "letter"), ("calibration", "a4")],
)
def test_single_sheets(tmp_path: Path, what: str, paper: str) -> None:
    path = tmp_path / f"{what}.pdf"
    assert print_kit(what, path, paper) == 1
    (((w_pt, h_pt), img),) = read_pdf(path)
    assert (w_pt, h_pt) == pytest.approx(PAGE_PT[paper], abs=0.01)
    assert img.ndim == 2  # black and white pages are stored losslessly
    ppm = img.shape[1] / (w_pt * 25.4 / 72)
    if what == "calibration":
        ok, found = cv2.findChessboardCorners(img, (9, 6))
        corners = np.asarray(found).reshape(-1, 2)
        assert ok
        pitch = np.linalg.norm(np.diff(corners[:9], axis=0), axis=1).mean() / ppm
        assert pitch == pytest.approx(g.CHESSBOARD_SQUARE_MM, abs=0.1)
    else:
        det = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
        )
        small = cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        corners, ids, _ = det.detectMarkers(small)
        want = g.PLAY_AREA_MARKER_IDS if what == "markers" else g.BOARD_MARKER_IDS
        assert ids is not None and set(ids.ravel().tolist()) >= set(want)
        size = g.PLAY_AREA_MARKER_MM if what == "markers" else g.BOARD_MARKER_MM
        for c, i in zip(corners, ids.ravel(), strict=True):
            if i in want:
                side = np.linalg.norm(c.reshape(4, 2)[1] - c.reshape(4, 2)[0]) * 2 / ppm
                assert side == pytest.approx(size, abs=0.5)


def test_bad_requests(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown printable"):
        print_kit("chess", tmp_path / "x.pdf")
    with pytest.raises(ValueError, match="unknown paper"):
        print_kit("markers", tmp_path / "x.pdf", paper="a3")
    with pytest.raises(ValueError, match="whole number"):
        print_kit("markers", tmp_path / "x.pdf", px_per_mm=11.811)
    with pytest.raises(ValueError, match="not in the picasso deck: pickpic-001"):
        print_kit("picasso", tmp_path / "x.pdf", cards=["picasso-001", "pickpic-001"])
