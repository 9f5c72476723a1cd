"""Card faces, markers, the Picasso board and the calibration chessboard as images.

Every function returns an (H, W, 3) uint8 BGR image at ``px_per_mm`` pixels per millimetre
(``DEFAULT_PX_PER_MM`` is 300 dpi), sized ``round(mm * px_per_mm)``; a point (x, y) in mm of
the thing drawn lies at pixel (x * px_per_mm, y * px_per_mm) (see ``vision.kit.geometry``).
Rendering is deterministic: the same arguments give the same pixels.
"""

from __future__ import annotations

import functools
import math
from typing import TypeVar

import cv2
import numpy as np

from vision.kit import geometry as g
from vision.kit.codes import face_codes, marker_bits, qr_matrix
from vision.kit.decks import GAME_TITLES, Card, Picture, get_card
from vision.kit.geometry import Face, Rect
from vision.kit.photos import photo_rgb
from vision.kit.pictograms import draw_pictogram
from vision.kit.pictograms.pen import COLOURS, darker
from vision.kit.raster import (
    WHITE,
    Colour,
    draw_text,
    fill_rect,
    paint_bits,
    text_width_mm,
)

T = TypeVar("T")
INK: Colour = (40, 34, 30)
GAME_COLOURS: dict[str, tuple[Colour, Colour]] = {  # (dark, light) BGR of each game's backs
    "pickpic": ((120, 96, 20), (200, 180, 120)),
    "picflip": ((30, 110, 230), (140, 195, 250)),
    "picasso": ((130, 50, 120), (210, 160, 200)),
    "picmix": ((110, 60, 30), (210, 170, 130)),
}
_TINTS: dict[str, Colour] = {
    "cream": (215, 240, 252),
    "mint": (215, 245, 220),
    "sky": (250, 230, 205),
    "lilac": (245, 215, 230),
    "peach": (200, 220, 252),
}


def _need(value: T | None, card: Card) -> T:
    """A field the card's kind guarantees; a ``ValueError`` names the card if it is missing."""
    if value is None:
        raise ValueError(f"card {card.id} ({card.kind}) lacks a field its kind needs")
    return value


def _check_ppm(px_per_mm: float) -> None:
    if not (
        isinstance(px_per_mm, int | float) and math.isfinite(px_per_mm) and 0.5 <= px_per_mm <= 100
    ):
        raise ValueError(f"px_per_mm must be a number in [0.5, 100], got {px_per_mm!r}")


def _canvas(
    size_wh_mm: tuple[float, float], px_per_mm: float, colour: Colour = WHITE
) -> np.ndarray:
    w, h = g.px_size(size_wh_mm, px_per_mm)
    return np.broadcast_to(np.asarray(colour, np.uint8), (h, w, 3)).copy()


def _sub(img: np.ndarray, rect: Rect, px_per_mm: float) -> tuple[np.ndarray, int, int]:
    """The view of ``img`` under ``rect`` (whole pixels), with its top-left pixel."""
    x0, y0 = round(rect.x * px_per_mm), round(rect.y * px_per_mm)
    x1, y1 = round(rect.x1 * px_per_mm), round(rect.y1 * px_per_mm)
    return img[y0:y1, x0:x1], x0, y0


# --------------------------------------------------------------------------------------------
# Codes
# --------------------------------------------------------------------------------------------
def _paint_marker(img: np.ndarray, mid: int, rect: Rect, px_per_mm: float) -> None:
    paint_bits(img, marker_bits(mid), rect, px_per_mm)


def _paint_qr(img: np.ndarray, payload: str, rect: Rect, px_per_mm: float) -> None:
    paint_bits(img, qr_matrix(payload), rect, px_per_mm)


def _pad(
    img: np.ndarray, rect: Rect, pad_mm: float, size_wh_mm: tuple[float, float], px_per_mm: float
) -> None:
    """White knock-out round a code: ``rect`` grown by ``pad_mm``, stretched to the card edge
    on the sides where the margin is narrower than the pad would leave."""
    r = rect.grow(pad_mm)
    x0 = 0.0 if rect.x <= g.CARD_MARGIN_MM + 1e-6 else r.x
    y0 = 0.0 if rect.y <= g.CARD_MARGIN_MM + 1e-6 else r.y
    x1 = size_wh_mm[0] if rect.x1 >= size_wh_mm[0] - g.CARD_MARGIN_MM - 1e-6 else r.x1
    y1 = size_wh_mm[1] if rect.y1 >= size_wh_mm[1] - g.CARD_MARGIN_MM - 1e-6 else r.y1
    fill_rect(img, Rect(x0, y0, x1 - x0, y1 - y0), WHITE, px_per_mm)


def _codes(img: np.ndarray, card: Card, face: Face, px_per_mm: float) -> None:
    """Knock out and paint the face's markers and QR code (``codes.face_codes``)."""
    size = g.face_size_wh_mm(card.id)
    fc = face_codes(card.id, face)
    for r in fc.marker_rects:
        _pad(img, r, g.MARKER_PAD_MM, size, px_per_mm)
        _paint_marker(img, fc.marker_id, r, px_per_mm)
    if fc.qr_rect is not None and fc.qr_payload is not None:
        module = fc.qr_rect.w / g.QR_MODULES
        _pad(img, fc.qr_rect, g.QR_QUIET_MODULES * module, size, px_per_mm)
        _paint_qr(img, fc.qr_payload, fc.qr_rect, px_per_mm)


def _outline(img: np.ndarray, px_per_mm: float, colour: Colour = (200, 200, 200)) -> None:
    """A hairline (0.15 mm) just inside the face's edge, to see the card on white paper."""
    h, w = img.shape[:2]
    t = 0.15
    size = (w / px_per_mm, h / px_per_mm)
    for r in (
        Rect(0, 0, size[0], t),
        Rect(0, size[1] - t, size[0], t),
        Rect(0, 0, t, size[1]),
        Rect(size[0] - t, 0, t, size[1]),
    ):
        fill_rect(img, r, colour, px_per_mm)


# --------------------------------------------------------------------------------------------
# Fronts
# --------------------------------------------------------------------------------------------
def _photo_front(card: Card, px_per_mm: float) -> np.ndarray:
    img = _canvas(g.CARD_SIZE_WH_MM, px_per_mm)
    rgb = photo_rgb(_need(card.photo, card))
    view, _, _ = _sub(img, g.PICTURE_RECT, px_per_mm)
    vh, vw = view.shape[:2]
    interp = cv2.INTER_AREA if vw < rgb.shape[1] else cv2.INTER_CUBIC
    view[:] = cv2.resize(np.ascontiguousarray(rgb[..., ::-1]), (vw, vh), interpolation=interp)
    _codes(img, card, "front", px_per_mm)
    return img


def _u8(colour: Colour) -> np.ndarray:
    return np.asarray(colour, np.uint8)


def _background(view: np.ndarray, name: str, seed: int) -> None:
    """Fill a Pic Flip picture panel (pixels, in place) with background ``name``."""
    h, w = view.shape[:2]
    ys = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    if name in _TINTS:
        view[:] = _u8(_TINTS[name])
    elif name in ("day", "night", "sunset"):
        top, bottom, ground = {
            "day": ((230, 160, 80), (250, 225, 190), (90, 170, 90)),
            "night": ((80, 25, 15), (140, 70, 40), (60, 70, 40)),
            "sunset": ((140, 60, 90), (120, 180, 250), (60, 90, 120)),
        }[name]
        grad = np.asarray(top, np.float32) + ys * (
            np.asarray(bottom, np.float32) - np.asarray(top, np.float32)
        )
        view[:] = np.broadcast_to(grad, view.shape).astype(np.uint8)
        view[int(h * 0.8) :] = _u8(ground)
        if name == "night":
            rng = np.random.default_rng(seed)
            for _ in range(18):
                x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h * 0.75))
                cv2.circle(view, (x, y), max(1, w // 150), (210, 240, 250), -1, cv2.LINE_AA)
    elif name == "stripes":
        view[:] = _u8((235, 245, 250))
        step = max(2, w // 8)
        xs = np.arange(w)[None, :] + np.arange(h)[:, None]
        view[(xs // step) % 2 == 0] = _u8((205, 225, 250))
    elif name == "dots":
        view[:] = _u8((245, 235, 225))
        step = max(3, w // 9)
        for yy in range(step // 2, h, step):
            for xx in range(step // 2 + (yy // step % 2) * step // 2, w, step):
                cv2.circle(view, (xx, yy), max(1, step // 5), (220, 190, 160), -1, cv2.LINE_AA)
    elif name == "grass":
        view[:] = _u8((225, 245, 235))
        view[int(h * 0.7) :] = _u8((80, 175, 110))
    elif name == "checks":
        step = max(2, w // 8)
        yy, xx = np.mgrid[0:h, 0:w]
        view[:] = _u8((240, 240, 240))
        view[((yy // step) + (xx // step)) % 2 == 0] = _u8((215, 225, 235))
    else:
        raise ValueError(f"unknown picture background {name!r}")


# Glyph boxes (centre x, centre y, size) in mm in a 57 x 40.5 panel whose top-left corner
# holds a 22 mm code knock-out; the bottom panel uses them turned by a half turn.
_PANEL_SLOTS: dict[int, tuple[tuple[float, float, float], ...]] = {
    1: ((39.5, 20.25, 33.0),),
    2: ((44.0, 12.0, 21.0), (32.5, 29.5, 20.0)),
    3: ((32.5, 11.0, 17.0), (48.0, 15.0, 16.0), (36.0, 30.0, 17.0)),
}


def _picture(
    img: np.ndarray, pic: Picture, panel: Rect, flip: bool, px_per_mm: float, seed: int
) -> None:
    view, _, _ = _sub(img, panel, px_per_mm)
    _background(view, pic.background, seed)
    for cx, cy, s in _PANEL_SLOTS[pic.count]:
        if flip:
            cx, cy = panel.w - cx, panel.h - cy
        x0 = (panel.x + cx - s / 2) * px_per_mm
        y0 = (panel.y + cy - s / 2) * px_per_mm
        draw_pictogram(img, pic.glyph, (x0, y0, s * px_per_mm), colour=pic.colour)


PICFLIP_PANELS: tuple[Rect, Rect] = (
    Rect(g.CARD_MARGIN_MM, g.CARD_MARGIN_MM, g.PICTURE_RECT.w, g.PICTURE_RECT.h / 2 - 0.5),
    Rect(g.CARD_MARGIN_MM, g.CARD_H_MM / 2 + 0.5, g.PICTURE_RECT.w, g.PICTURE_RECT.h / 2 - 0.5),
)
"""The two picture panels of a Pic Flip front (top, bottom), in face mm."""


def _picflip_front(card: Card, px_per_mm: float) -> np.ndarray:
    img = _canvas(g.CARD_SIZE_WH_MM, px_per_mm)
    for k, (pic, panel) in enumerate(zip(card.pictures, PICFLIP_PANELS, strict=True)):
        _picture(img, pic, panel, flip=k == 1, px_per_mm=px_per_mm, seed=card.number * 2 + k)
    _codes(img, card, "front", px_per_mm)
    return img


def _cover_front(card: Card, px_per_mm: float) -> np.ndarray:
    img = _canvas(g.CARD_SIZE_WH_MM, px_per_mm)
    dark, light = GAME_COLOURS["picflip"]
    view, _, _ = _sub(img, g.PICTURE_RECT, px_per_mm)
    _stripes(view, dark, light, max(2, round(6 * px_per_mm)), direction=1)
    fill_rect(img, Rect(8, 34, 47, 20), WHITE, px_per_mm)
    draw_text(img, "Pic Flip", (31.5, 41.5), 6.5, dark, px_per_mm, bold=0.04)
    draw_text(img, f"cover card {card.number}", (31.5, 49.5), 2.6, INK, px_per_mm)
    _codes(img, card, "front", px_per_mm)
    return img


def _fit_text(
    img: np.ndarray,
    text: str,
    centre: tuple[float, float],
    max_w: float,
    max_h: float,
    colour: Colour,
    px_per_mm: float,
    bold: float = 0.0,
) -> None:
    h = max_h
    w = text_width_mm(text, h, px_per_mm, bold)
    if w > max_w:
        h *= max_w / w
    draw_text(img, text, centre, h, colour, px_per_mm, bold=bold)


def _panel(img: np.ndarray, colour: Colour, px_per_mm: float) -> None:
    fill_rect(img, g.PICTURE_RECT, colour, px_per_mm)


def _picasso_front(card: Card, px_per_mm: float) -> np.ndarray:
    img = _canvas(g.CARD_SIZE_WH_MM, px_per_mm)
    _panel(img, (225, 246, 255), px_per_mm)
    word, glyph = _need(card.word, card), _need(card.glyph, card)
    s = 38.0
    draw_pictogram(
        img, glyph, ((31.5 - s / 2) * px_per_mm, (44.5 - s / 2) * px_per_mm, s * px_per_mm)
    )
    _codes(img, card, "front", px_per_mm)
    _fit_text(img, word.upper(), (42.5, 14.5), 31.0, 6.0, INK, px_per_mm, bold=0.03)
    draw_text(img, card.id, (28.0, 82.0), 1.8, (120, 120, 120), px_per_mm)
    return img


_OBJECTIVE_SLOTS: dict[int, tuple[tuple[float, float], ...]] = {
    3: ((21.0, 37.0), (43.0, 37.0), (32.0, 58.0)),
    4: ((20.5, 36.0), (42.5, 36.0), (20.5, 58.0), (42.5, 58.0)),
}


def _objective_front(card: Card, px_per_mm: float) -> np.ndarray:
    img = _canvas(g.CARD_SIZE_WH_MM, px_per_mm)
    _panel(img, (238, 244, 246), px_per_mm)
    s = g.PICMIX_OBJECTIVE_ITEM_MM
    for item, (cx, cy) in zip(card.items, _OBJECTIVE_SLOTS[len(card.items)], strict=True):
        draw_pictogram(
            img,
            item,
            ((cx - s / 2) * px_per_mm, (cy - s / 2) * px_per_mm, s * px_per_mm),
            colour=COLOURS["black"],
            mono=True,
        )
    _codes(img, card, "front", px_per_mm)
    _fit_text(img, "OBJECTIVE", (42.5, 11.0), 30.0, 4.2, INK, px_per_mm, bold=0.03)
    draw_text(img, f"{len(card.items)} items", (42.5, 18.5), 2.6, (110, 110, 110), px_per_mm)
    draw_text(img, card.id, (28.0, 82.0), 1.8, (120, 120, 120), px_per_mm)
    return img


def _picmix_player_face(card: Card, face: Face, px_per_mm: float) -> np.ndarray:
    """A landscape (63 x 88 mm, rendered 88 wide) Picmix player face: two items, one marker in
    each half, in the set's colour."""
    faces, colour_name = _need(card.faces, card), _need(card.colour, card)
    size = g.PICMIX_PLAYER_SIZE_WH_MM
    img = _canvas(size, px_per_mm)
    colour = COLOURS[colour_name]
    tint: Colour = (
        int(255 - 0.12 * (255 - colour[0])),
        int(255 - 0.12 * (255 - colour[1])),
        int(255 - 0.12 * (255 - colour[2])),
    )
    fill_rect(
        img,
        Rect(
            g.CARD_MARGIN_MM,
            g.CARD_MARGIN_MM,
            size[0] - 2 * g.CARD_MARGIN_MM,
            size[1] - 2 * g.CARD_MARGIN_MM,
        ),
        tint,
        px_per_mm,
    )
    fill_rect(
        img,
        Rect(size[0] / 2 - 0.3, g.CARD_MARGIN_MM, 0.6, size[1] - 2 * g.CARD_MARGIN_MM),
        darker(colour, 0.2),
        px_per_mm,
    )
    items = faces[0] if face == "front" else faces[1]
    for half in g.HALVES:
        box = g.PICMIX_ITEM_BOXES[half]
        draw_pictogram(
            img,
            items.item(half),
            (box.x * px_per_mm, box.y * px_per_mm, box.w * px_per_mm),
            colour=colour,
            mono=True,
        )
    _codes(img, card, face, px_per_mm)
    label = f"{colour_name} {card.number}{'A' if face == 'front' else 'B'}"
    draw_text(img, label, (size[0] / 2 - 11.0, size[1] - 5.0), 1.8, darker(colour, 0.3), px_per_mm)
    return img


# --------------------------------------------------------------------------------------------
# Backs
# --------------------------------------------------------------------------------------------
def _stripes(
    view: np.ndarray, dark: Colour, light: Colour, step_px: int, direction: int = -1
) -> None:
    """Diagonal stripes ``step_px`` wide over ``view`` (in place)."""
    h, w = view.shape[:2]
    band = ((np.arange(w)[None, :] + direction * np.arange(h)[:, None]) // step_px) % 2 == 0
    view[:] = np.where(band[..., None], np.asarray(light, np.uint8), np.asarray(dark, np.uint8))


@functools.lru_cache(maxsize=8)
def _back_design(game: str, px_per_mm: float) -> np.ndarray:
    """The part of a game's backs that every card shares (read-only)."""
    img = _canvas(g.CARD_SIZE_WH_MM, px_per_mm)
    dark, light = GAME_COLOURS[game]
    view, _, _ = _sub(img, g.PICTURE_RECT, px_per_mm)
    _stripes(view, dark, light, max(2, round(4 * px_per_mm)))
    fill_rect(img, Rect(26.0, 6.0, 32.0, 13.0), WHITE, px_per_mm)
    fill_rect(img, Rect(5.0, 69.0, 32.0, 13.0), WHITE, px_per_mm)
    title = GAME_TITLES[game]
    _fit_text(img, title, (42.0, 12.5), 28.0, 5.0, dark, px_per_mm, bold=0.04)
    _fit_text(img, title, (21.0, 75.5), 28.0, 5.0, dark, px_per_mm, bold=0.04)
    img.setflags(write=False)
    return img


def _back(card: Card, px_per_mm: float) -> np.ndarray:
    img = _back_design(card.game, px_per_mm).copy()
    _codes(img, card, "back", px_per_mm)
    return img


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=32)
def _render_face_cached(card_id: str, face: Face, px_per_mm: float) -> np.ndarray:
    card = get_card(card_id)
    if card.kind == "player":
        img = _picmix_player_face(card, face, px_per_mm)
    elif face == "back":
        img = _back(card, px_per_mm)
    elif card.kind == "photo":
        img = _photo_front(card, px_per_mm)
    elif card.kind == "pictures":
        img = _picflip_front(card, px_per_mm)
    elif card.kind == "cover":
        img = _cover_front(card, px_per_mm)
    elif card.kind == "word":
        img = _picasso_front(card, px_per_mm)
    else:
        img = _objective_front(card, px_per_mm)
    _outline(img, px_per_mm)
    img.setflags(write=False)
    return img


def render_face_readonly(
    card_id: str, face: Face, px_per_mm: float = g.DEFAULT_PX_PER_MM
) -> np.ndarray:
    """``render_face`` without the copy: the cached, read-only image (do not modify)."""
    if face not in g.FACES:
        raise ValueError(f"face must be 'front' or 'back', got {face!r}")
    _check_ppm(px_per_mm)
    get_card(card_id)
    return _render_face_cached(card_id, face, float(px_per_mm))


def render_face(card_id: str, face: Face, px_per_mm: float = g.DEFAULT_PX_PER_MM) -> np.ndarray:
    """One face of a card as an (H, W, 3) uint8 BGR image at ``px_per_mm``.

    Portrait cards give ``round(88 * px_per_mm)`` rows by ``round(63 * px_per_mm)`` columns;
    Picmix player cards are landscape (63 mm tall, 88 mm wide). ``face`` is ``"front"`` or
    ``"back"`` (for Picmix player cards: the A and B item faces). The result is a fresh copy;
    a small LRU cache keeps recent faces. Raises ``KeyError`` for an unknown card and
    ``ValueError`` for a bad face or resolution.
    """
    return render_face_readonly(card_id, face, px_per_mm).copy()


def render_marker(
    marker: int, size_mm: float, px_per_mm: float = g.DEFAULT_PX_PER_MM, border_mm: float = 0.0
) -> np.ndarray:
    """ArUco marker ``marker`` (``DICT_4X4_1000``, so ids 0-49 are the ``DICT_4X4_50``
    fiducials) as an (H, W, 3) uint8 BGR image: ``size_mm`` the black square's side,
    ``border_mm`` of white quiet zone round it."""
    _check_ppm(px_per_mm)
    if not size_mm > 0 or border_mm < 0:
        raise ValueError(f"need size_mm > 0 and border_mm >= 0, got {size_mm}, {border_mm}")
    side = size_mm + 2 * border_mm
    img = _canvas((side, side), px_per_mm)
    _paint_marker(img, marker, Rect(border_mm, border_mm, size_mm, size_mm), px_per_mm)
    return img


def render_board(px_per_mm: float = 4.0, margin_mm: float = 10.0) -> np.ndarray:
    """The Picasso board: the off-white canvas (360 x 260 mm) with markers 4-7 (30 mm) outside
    its corners, as an (H, W, 3) uint8 BGR image of ``geometry.BOARD_OUTER_RECT`` (420 x 320
    mm) grown by ``margin_mm`` of white on every side (markers need a light quiet zone).
    Canvas mm (x, y) lies at pixel ((x + 30 + margin_mm) * px_per_mm,
    (y + 30 + margin_mm) * px_per_mm)."""
    _check_ppm(px_per_mm)
    if margin_mm < 0:
        raise ValueError(f"margin_mm must be >= 0, got {margin_mm}")
    outer = g.BOARD_OUTER_RECT.grow(margin_mm)
    img = _canvas((outer.w, outer.h), px_per_mm)
    dx, dy = -outer.x, -outer.y
    fill_rect(img, Rect(dx, dy, *g.BOARD_CANVAS_WH_MM), g.BOARD_CANVAS_BGR, px_per_mm)
    for mid, r in g.board_marker_rects().items():
        _paint_marker(img, mid, Rect(r.x + dx, r.y + dy, r.w, r.h), px_per_mm)
    return img


def render_chessboard(
    px_per_mm: float = g.DEFAULT_PX_PER_MM,
    squares: tuple[int, int] = g.CHESSBOARD_SQUARES,
    square_mm: float = g.CHESSBOARD_SQUARE_MM,
) -> np.ndarray:
    """A calibration chessboard of ``squares`` (across, down) black and white squares of
    ``square_mm``, top-left square black, as an (H, W, 3) uint8 BGR image with no border."""
    _check_ppm(px_per_mm)
    cols, rows = squares
    bits = (np.add.outer(np.arange(rows), np.arange(cols)) % 2 == 0).astype(np.uint8)
    img = _canvas((cols * square_mm, rows * square_mm), px_per_mm)
    paint_bits(img, bits, Rect(0, 0, cols * square_mm, rows * square_mm), px_per_mm)
    return img


def picmix_item_layout(card_id: str) -> dict[Face, dict[str, tuple[str, Rect]]]:
    """Picmix player card -> {face: {half: (item, item box in face mm)}} (landscape faces)."""
    card = get_card(card_id)
    if card.kind != "player" or card.faces is None:
        raise ValueError(f"not a Picmix player card: {card_id!r}")
    return {
        face: {h: (f.item(h), g.PICMIX_ITEM_BOXES[h]) for h in g.HALVES}
        for face, f in zip(g.FACES, card.faces, strict=True)
    }
