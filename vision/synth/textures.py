"""Textures: card art through a small provider interface, ArUco markers, table surfaces.

Card art comes from a ``TextureProvider``. ``default_provider()`` returns the printable
kit (``vision.kit``) when it imports and renders, and otherwise ``StandInTextures``: plain
deterministic cards with a big id, photo-like colour fields (Pick Pic) and item halves
(Picmix), enough for geometry and visibility truth. Which one was used is recorded in
the truth (``Truth.provider``), never silently.

Fiducials are always drawn from ``cv2.aruco.getPredefinedDictionary(DICT_4X4_50)``, so
they match what every OpenCV-based reader expects whichever provider is in use.
"""

from __future__ import annotations

import importlib
import logging
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import cv2
import numpy as np

log = logging.getLogger(__name__)

Face = Literal["front", "back"]
GameName = Literal["pickpic", "picflip", "picasso", "picmix"]

#: Card size (width, height) in mm: poker size, portrait.
CARD_WH_MM: tuple[float, float] = (63.0, 88.0)
#: ArUco dictionary of every fiducial that is not a card.
ARUCO_DICT = cv2.aruco.DICT_4X4_50

PICMIX_ITEMS: tuple[str, ...] = (
    "apple",
    "boat",
    "cat",
    "clock",
    "crown",
    "fish",
    "guitar",
    "house",
    "key",
    "moon",
    "rocket",
    "shoe",
    "star",
    "tree",
    "umbrella",
    "whale",
)
PICMIX_COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange")
_PICMIX_BGR: dict[str, tuple[int, int, int]] = {
    "red": (50, 50, 200),
    "blue": (190, 110, 40),
    "green": (70, 160, 60),
    "yellow": (40, 200, 230),
    "purple": (150, 60, 130),
    "orange": (30, 130, 240),
}


@dataclass(frozen=True)
class DeckCard:
    """One card of a deck as the renderer and the truth need it.

    Attributes:
        card_id: the id printed on the card (what readers report).
        game: ``pickpic``, ``picflip``, ``picasso`` or ``picmix``.
        kind: ``photo`` (Pick Pic), ``pair`` / ``cover`` (Pic Flip), ``word`` (Picasso),
            ``objective`` / ``player`` (Picmix).
        items: Picmix objective items (3 or 4); empty otherwise.
        halves: Picmix player card: ((front left, front right), (back left, back right));
            ``None`` otherwise.
        half_axis: how a face is split into halves: ``"x"`` (left | right in the upright
            card image) or ``"y"`` (top | bottom).
        set_colour: Picmix player set colour; ``""`` otherwise.
        word: Picasso word; ``""`` otherwise.
        face_wh_mm: (width, height) of both faces as rendered, mm: 63 x 88 portrait,
            88 x 63 for (landscape) Picmix player cards.
    """

    card_id: str
    game: str
    kind: str
    items: tuple[str, ...] = ()
    halves: tuple[tuple[str, str], tuple[str, str]] | None = None
    half_axis: Literal["x", "y"] = "x"
    set_colour: str = ""
    word: str = ""
    face_wh_mm: tuple[float, float] = CARD_WH_MM

    def face_items(self, face: Face) -> tuple[str, str] | None:
        """The (left, right) items of a Picmix player card face, else ``None``."""
        if self.halves is None:
            return None
        return self.halves[0] if face == "front" else self.halves[1]


@runtime_checkable
class TextureProvider(Protocol):
    """Where card art comes from."""

    name: str

    def card_face(self, card_id: str, face: Face, px_per_mm: float) -> np.ndarray:
        """The card face, upright, as (round(h * ppm), round(w * ppm), 3) uint8 BGR where
        (w, h) is the card's ``DeckCard.face_wh_mm``."""
        ...

    def deck(self, game: str) -> tuple[DeckCard, ...]:
        """Every card of ``game``'s deck."""
        ...


# --------------------------------------------------------------------------- stand-in


class StandInTextures:
    """Deterministic stand-in card art, used while ``vision.kit`` is not available."""

    name = "standin"

    def __init__(self) -> None:
        self._decks: dict[str, tuple[DeckCard, ...]] = {}
        self._index: dict[str, DeckCard] = {}
        for game in ("pickpic", "picflip", "picasso", "picmix"):
            cards = _standin_deck(game)
            self._decks[game] = cards
            self._index.update({c.card_id: c for c in cards})

    def deck(self, game: str) -> tuple[DeckCard, ...]:
        if game not in self._decks:
            raise ValueError(f"unknown game {game!r}; expected one of {sorted(self._decks)}")
        return self._decks[game]

    def card_face(self, card_id: str, face: Face, px_per_mm: float) -> np.ndarray:
        card = self._index.get(card_id)
        if card is None:
            raise ValueError(f"unknown card id {card_id!r}")
        return _standin_face(card, face, px_per_mm)


def _seed_of(*parts: object) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def _standin_deck(game: str) -> tuple[DeckCard, ...]:
    if game == "pickpic":
        return tuple(DeckCard(f"pickpic-{i:03d}", game, "photo") for i in range(1, 121))
    if game == "picflip":
        pairs = [DeckCard(f"picflip-{i:03d}", game, "pair") for i in range(1, 105)]
        covers = [DeckCard(f"picflip-cover-{i}", game, "cover") for i in range(1, 7)]
        return tuple(pairs + covers)
    if game == "picasso":
        words = ("cat", "house", "sun", "tree", "car", "boat", "fish", "bird", "moon", "hat")
        return tuple(
            DeckCard(f"picasso-{i:03d}", game, "word", word=words[i % len(words)])
            for i in range(1, 41)
        )
    # picmix: 6 player sets x 4 cards; item of (card c, face f, half h) follows one fixed
    # permutation so that every set holds the 16 items once.
    rng = np.random.default_rng(_seed_of("picmix-layout"))
    perm = rng.permutation(len(PICMIX_ITEMS))
    cards: list[DeckCard] = []
    for colour in PICMIX_COLOURS:
        for c in range(4):
            it = [PICMIX_ITEMS[perm[c * 4 + k]] for k in range(4)]
            cards.append(
                DeckCard(
                    f"picmix-{colour}-{c + 1}",
                    game,
                    "player",
                    halves=((it[0], it[1]), (it[2], it[3])),
                    set_colour=colour,
                    face_wh_mm=(CARD_WH_MM[1], CARD_WH_MM[0]),
                )
            )
    # Objectives realisable by laying 2 or 3 cards in a row, each over half of the last.
    set0 = cards[:4]
    objectives: list[DeckCard] = []
    seen: set[frozenset[str]] = set()
    while len(objectives) < 25:
        k = 2 if rng.random() < 0.5 else 3
        order = rng.permutation(4)[:k]
        shown: list[str] = []
        for j, ci in enumerate(order):
            face = int(rng.integers(2))
            pair = set0[ci].halves[face] if set0[ci].halves else ("", "")
            left, right = pair if rng.random() < 0.5 else pair[::-1]
            shown.append(left)
            if j == k - 1:
                shown.append(right)
        key = frozenset(shown)
        if key in seen:
            continue
        seen.add(key)
        objectives.append(
            DeckCard(f"picmix-obj-{len(objectives) + 1:02d}", game, "objective", items=tuple(shown))
        )
    return tuple(objectives + cards)


def _standin_face(card: DeckCard, face: Face, px_per_mm: float) -> np.ndarray:
    w = round(card.face_wh_mm[0] * px_per_mm)
    h = round(card.face_wh_mm[1] * px_per_mm)
    rng = np.random.default_rng(_seed_of(card.card_id, face))
    if face == "back":
        img = np.empty((h, w, 3), np.uint8)
        img[:] = (
            (70, 40, 30)
            if card.game != "picmix"
            else _PICMIX_BGR.get(card.set_colour, (90, 90, 90))
        )
        if card.kind == "player" and card.halves is not None:
            _draw_halves(img, card.halves[1], card.set_colour, px_per_mm)
        else:
            step = max(2, round(6 * px_per_mm))
            for k in range(-h, w, step):
                cv2.line(
                    img, (k, 0), (k + h, h), (110, 80, 60), max(1, round(px_per_mm)), cv2.LINE_AA
                )
            _put_label(
                img, card.card_id.split("-")[-1], px_per_mm, scale_mm=9.0, colour=(240, 240, 240)
            )
        _border(img, px_per_mm, (250, 250, 250))
        return img
    if card.kind == "player" and card.halves is not None:
        img = np.full((h, w, 3), 245, np.uint8)
        _draw_halves(img, card.halves[0], card.set_colour, px_per_mm)
        _border(img, px_per_mm, _PICMIX_BGR.get(card.set_colour, (90, 90, 90)))
        return img
    if card.kind == "objective":
        img = np.full((h, w, 3), 235, np.uint8)
        n = len(card.items)
        for i, item in enumerate(card.items):
            cy = int((i + 0.5) * h / n)
            _icon(img, item, (w // 2, cy), 0.16 * h, (60, 60, 60))
        _put_label(
            img, card.card_id.split("-")[-1], px_per_mm, scale_mm=5.0, colour=(0, 0, 0), corner=True
        )
        _border(img, px_per_mm, (30, 30, 30))
        return img
    img = _photo_field(rng, h, w)
    if card.kind == "word":
        bar = round(20 * px_per_mm)
        img[-bar:] = 250
        _put_label(img[-bar:], card.word, px_per_mm, scale_mm=7.0, colour=(0, 0, 0))
    _put_label(
        img,
        card.card_id.split("-")[-1],
        px_per_mm,
        scale_mm=14.0,
        colour=(255, 255, 255),
        outline=True,
    )
    _border(img, px_per_mm, (250, 250, 250))
    return img


def _photo_field(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A smooth random colour field with a few blobs: photo-like low-frequency content."""
    small = rng.integers(0, 256, size=(4, 3, 3)).astype(np.float32)
    img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    for _ in range(int(rng.integers(2, 5))):
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        centre = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        axes = (int(rng.integers(w // 8, w // 2)), int(rng.integers(h // 10, h // 3)))
        cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


def _draw_halves(img: np.ndarray, items: tuple[str, str], colour: str, px_per_mm: float) -> None:
    h, w = img.shape[:2]
    bgr = _PICMIX_BGR.get(colour, (60, 60, 60))
    cv2.line(
        img, (w // 2, round(4 * px_per_mm)), (w // 2, h - round(4 * px_per_mm)), (200, 200, 200), 1
    )
    for k, item in enumerate(items):
        _icon(img, item, (int((k + 0.5) * w / 2), h // 2), 0.2 * w, bgr)


def _icon(
    img: np.ndarray, item: str, centre: tuple[int, int], r: float, colour: tuple[int, int, int]
) -> None:
    """A simple glyph per item name: a polygon with 3..10 vertices and a letter."""
    k = 3 + _seed_of(item) % 8
    ang = np.linspace(0, 2 * np.pi, k, endpoint=False) + (_seed_of(item, "a") % 100) / 100.0
    rad = r * (1.0 if k % 2 else np.where(np.arange(k) % 2 == 0, 1.0, 0.55))
    pts = np.stack([centre[0] + rad * np.cos(ang), centre[1] + rad * np.sin(ang)], 1)
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], colour, cv2.LINE_AA, shift=4)
    scale = max(0.3, r / 30.0)
    (tw, th), _ = cv2.getTextSize(item[0].upper(), cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    cv2.putText(
        img,
        item[0].upper(),
        (centre[0] - tw // 2, centre[1] + th // 2),
        cv2.FONT_HERSHEY_SIMPLEX,
        scale,
        (255, 255, 255),
        max(1, round(scale * 2)),
        cv2.LINE_AA,
    )


def _put_label(
    img: np.ndarray,
    text: str,
    px_per_mm: float,
    *,
    scale_mm: float,
    colour: tuple[int, int, int],
    outline: bool = False,
    corner: bool = False,
) -> None:
    h, w = img.shape[:2]
    scale = max(0.25, scale_mm * px_per_mm / 22.0)
    thick = max(1, round(scale * 2.2))
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
    if tw > 0.9 * w:
        scale *= 0.9 * w / tw
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, thick)
    org = (
        (round(2 * px_per_mm), th + round(2 * px_per_mm))
        if corner
        else ((w - tw) // 2, (h + th) // 2)
    )
    if outline:
        cv2.putText(
            img, text, org, cv2.FONT_HERSHEY_DUPLEX, scale, (0, 0, 0), thick + 3, cv2.LINE_AA
        )
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_DUPLEX, scale, colour, thick, cv2.LINE_AA)


def _border(img: np.ndarray, px_per_mm: float, colour: tuple[int, int, int]) -> None:
    b = max(1, round(2.5 * px_per_mm))
    img[:b] = colour
    img[-b:] = colour
    img[:, :b] = colour
    img[:, -b:] = colour


# --------------------------------------------------------------------------- vision.kit


class KitTextures:
    """Card art from the printable kit, ``vision.kit``."""

    name = "kit"

    def __init__(self, kit: Any) -> None:
        self._kit = kit
        self._decks: dict[str, tuple[DeckCard, ...]] = {}

    def deck(self, game: str) -> tuple[DeckCard, ...]:
        if game not in self._decks:
            raw = self._kit.load_deck(game)
            self._decks[game] = tuple(_deck_card_from_kit(c, game) for c in _iter_cards(raw))
        return self._decks[game]

    def card_face(self, card_id: str, face: Face, px_per_mm: float) -> np.ndarray:
        img = np.asarray(self._kit.render_face(card_id, face, px_per_mm))
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise ValueError(
                f"vision.kit.render_face must give (H, W, 3) uint8, got {img.shape} {img.dtype}"
            )
        return img


def _iter_cards(raw: Any) -> list[Any]:
    cards = getattr(raw, "cards", raw)
    if isinstance(cards, dict):
        return list(cards.values())
    return list(cards)


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return default


def _deck_card_from_kit(c: Any, game: str) -> DeckCard:
    """Adapt one ``vision.kit.load_deck`` card (``vision.kit.decks.Card``) to ``DeckCard``."""
    card_id = str(_get(c, "id", "card_id"))
    kind = str(_get(c, "kind", default="card"))
    items = tuple(str(i) for i in (_get(c, "items", default=()) or ()))
    faces = _get(c, "faces", default=None)
    halves: tuple[tuple[str, str], tuple[str, str]] | None = None
    if faces is not None:
        f, b = faces
        halves = ((str(f.left), str(f.right)), (str(b.left), str(b.right)))
    return DeckCard(
        card_id=card_id,
        game=game,
        kind=kind,
        items=items,
        halves=halves,
        half_axis="x",
        set_colour=str(_get(c, "colour", default="") or ""),
        word=str(_get(c, "word", default="") or ""),
        face_wh_mm=_kit_face_size(card_id, halves is not None),
    )


def _kit_face_size(card_id: str, player: bool) -> tuple[float, float]:
    try:
        geometry = importlib.import_module("vision.kit.geometry")
        w, h = geometry.face_size_wh_mm(card_id)
        return (float(w), float(h))
    except (ImportError, AttributeError):
        return (CARD_WH_MM[1], CARD_WH_MM[0]) if player else CARD_WH_MM


_DEFAULT: TextureProvider | None = None


def default_provider() -> TextureProvider:
    """``KitTextures`` when ``vision.kit`` imports and renders a card, else ``StandInTextures``.

    The choice is made once per process and logged; ``provider.name`` says which.
    """
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = _probe_kit() or StandInTextures()
        log.info("synth texture provider: %s", _DEFAULT.name)
    return _DEFAULT


def _probe_kit() -> KitTextures | None:
    try:
        kit = importlib.import_module("vision.kit")
        provider = KitTextures(kit)
        for game in ("pickpic", "picmix"):
            deck = provider.deck(game)
            if not deck:
                raise ValueError(f"vision.kit.load_deck({game!r}) is empty")
            for card in (deck[0], deck[-1]):
                img = provider.card_face(card.card_id, "front", 4.0)
                w, h = card.face_wh_mm
                if abs(img.shape[1] / img.shape[0] - w / h) > 0.03:
                    raise ValueError(
                        f"vision.kit face of {card.card_id} is {img.shape[1]}x{img.shape[0]} px, "
                        f"not {w:g}x{h:g} mm"
                    )
    except (
        ImportError,
        AttributeError,
        TypeError,
        ValueError,
        KeyError,
        NotImplementedError,
    ) as exc:
        log.info(
            "vision.kit not usable for synth (%s: %s); using stand-in art", type(exc).__name__, exc
        )
        return None
    return provider


# --------------------------------------------------------------------------- markers


def aruco_dictionary() -> cv2.aruco.Dictionary:
    """The fiducial dictionary: ``DICT_4X4_50``."""
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICT)


def marker_cells(marker_id: int) -> np.ndarray:
    """(6, 6) uint8 cells of marker ``marker_id`` with its one-cell black border (255 white)."""
    if not 0 <= marker_id < 50:
        raise ValueError(f"marker_id must be in [0, 50) for DICT_4X4_50, got {marker_id}")
    return cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, 6, borderBits=1)


# --------------------------------------------------------------------------- table surfaces

TableKind = Literal["wood", "cloth", "plain", "check", "stone", "motif"]
#: Table tiles are periodic (sampled with wrap-around), this many mm on a side.
TABLE_TILE_MM = 512.0
TABLE_TILE_PPM = 2.0


def periodic_noise(
    rng: np.random.Generator, shape: tuple[int, int], sigma_px: tuple[float, float]
) -> np.ndarray:
    """Tileable smooth noise: white noise low-passed with a Gaussian in the Fourier domain.

    Args:
        shape: (H, W) of the tile.
        sigma_px: (sigma_y, sigma_x) of the smoothing, pixels (anisotropic for grain).

    Returns:
        (H, W) float32, zero mean, unit standard deviation.
    """
    h, w = shape
    white = rng.standard_normal((h, w))
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.rfftfreq(w)[None, :]
    filt = np.exp(-2 * np.pi**2 * ((fy * sigma_px[0]) ** 2 + (fx * sigma_px[1]) ** 2))
    out = np.fft.irfft2(np.fft.rfft2(white) * filt, s=(h, w))
    out -= out.mean()
    std = out.std()
    return (out / (std if std > 0 else 1.0)).astype(np.float32)


def table_tile(kind: TableKind, colour_bgr: tuple[int, int, int], seed: int) -> np.ndarray:
    """A tileable table surface, ``TABLE_TILE_MM`` square at ``TABLE_TILE_PPM`` px/mm.

    Returns:
        (N, N, 3) uint8 BGR, periodic in both directions.
    """
    key = (kind, colour_bgr, seed)
    tile = _TILE_CACHE.get(key)
    if tile is not None:
        return tile
    rng = np.random.default_rng(seed)
    n = round(TABLE_TILE_MM * TABLE_TILE_PPM)
    base = np.array(colour_bgr, np.float32)[None, None, :]
    if kind == "wood":
        # Planks along x; grain = stretched noise plus growth rings bent by that noise.
        n_planks = int(rng.integers(3, 6))
        plank = np.arange(n)[:, None] * n_planks // n
        fine = periodic_noise(rng, (n, n), (1.2, 40.0))
        warp = periodic_noise(rng, (n, n), (12.0, 120.0))
        rings = np.sin(2 * np.pi * (np.arange(n)[:, None] / n * n_planks * 6 + 2.0 * warp))
        plank_gain = (1.0 + 0.10 * rng.standard_normal(n_planks)).astype(np.float32)[plank]
        lum = plank_gain * (1.0 + 0.05 * fine + 0.06 * rings)
        gaps = (np.arange(n) % (n // n_planks) < 2)[:, None]
        lum = np.where(gaps, 0.45, lum)
        img = base * lum[..., None]
    elif kind == "cloth":
        fine = periodic_noise(rng, (n, n), (0.7, 0.7))
        blotch = periodic_noise(rng, (n, n), (40.0, 40.0))
        yy, xx = np.mgrid[0:n, 0:n]
        weave = 0.5 * (np.sin(np.pi * xx / 1.0) * np.sin(np.pi * yy / 1.0))
        lum = 1.0 + 0.06 * fine + 0.04 * blotch + 0.02 * weave
        img = base * lum[..., None]
    elif kind == "check":
        # A checked cloth: white and the colour in squares of 16-32 mm, a woven fine noise
        # over both. With 16 or 32 squares across the tile the squares are even; with 20 or
        # 24, the tile's last 4 or 16 px (2 or 8 mm) join its first square across the wrap,
        # so every 512 mm one row and one column of squares come out that much wider.
        squares = int(rng.choice([16, 20, 24, 32]))
        cell = n // squares
        yy, xx = np.mgrid[0:n, 0:n]
        odd = ((yy // cell + xx // cell) % 2).astype(np.float32)[..., None]
        light = np.array([236.0, 238.0, 240.0], np.float32)[None, None, :]
        fine = periodic_noise(rng, (n, n), (0.7, 0.7))[..., None]
        img = (odd * base + (1 - odd) * light) * (1.0 + 0.05 * fine)
    elif kind == "motif":
        # A printed oilcloth: small dark squares and dots, 5-14 mm, on a light ground, set
        # on a grid of 24-37 mm with a jitter: the size of a card's marker on a far card.
        light = np.array([226.0, 230.0, 232.0], np.float32) * float(rng.uniform(0.9, 1.05))
        img = np.broadcast_to(np.clip(light, 0, 255)[None, None, :], (n, n, 3)).copy()
        ink = tuple(float(v) for v in base[0, 0])
        k = int(rng.choice([14, 16, 18, 20]))
        step = n / k
        for gy in range(k):
            for gx in range(k):
                side = float(rng.uniform(5.0, 14.0)) * TABLE_TILE_PPM
                cx = (gx + 0.5) * step + float(rng.uniform(-0.2, 0.2)) * step
                cy = (gy + 0.5) * step + float(rng.uniform(-0.2, 0.2)) * step
                square = bool(rng.random() < 0.6)
                angle = float(rng.uniform(0.0, 90.0))
                for dy in (-n, 0, n):  # drawn across the wrap, so the tile stays periodic
                    for dx in (-n, 0, n):
                        if square:
                            box = ((cx + dx, cy + dy), (side, side), angle)
                            pts = np.round(cv2.boxPoints(box) * 16).astype(np.int32)
                            cv2.fillConvexPoly(img, pts, ink, cv2.LINE_AA, shift=4)
                        else:
                            centre = (round((cx + dx) * 16), round((cy + dy) * 16))
                            cv2.circle(img, centre, round(side * 8), ink, -1, cv2.LINE_AA, 4)
        fine = periodic_noise(rng, (n, n), (0.7, 0.7))[..., None]
        img = img * (1.0 + 0.04 * fine)
    elif kind == "stone":
        # Polished stone: a mottled base crossed by thin, wandering veins.
        blotch = periodic_noise(rng, (n, n), (30.0, 30.0))
        warp = periodic_noise(rng, (n, n), (60.0, 60.0))
        vein = np.abs(np.sin(2 * np.pi * (np.arange(n)[None, :] / n * 3 + 1.5 * warp)))
        lum = 1.0 + 0.06 * blotch + 0.25 * np.exp(-((vein / 0.04) ** 2))
        img = base * lum[..., None]
    else:
        fine = periodic_noise(rng, (n, n), (0.8, 0.8))
        blotch = periodic_noise(rng, (n, n), (120.0, 120.0))
        lum = 1.0 + 0.015 * fine + 0.012 * blotch
        img = base * lum[..., None]
    tile = np.clip(img, 0, 255).astype(np.uint8)
    _TILE_CACHE[key] = tile
    while len(_TILE_CACHE) > 6:
        _TILE_CACHE.popitem(last=False)
    return tile


_TILE_CACHE: OrderedDict[tuple[str, tuple[int, int, int], int], np.ndarray] = OrderedDict()


class TextureCache:
    """A small LRU of rendered textures keyed by anything hashable."""

    def __init__(self, capacity: int = 256) -> None:
        self._items: OrderedDict[object, Any] = OrderedDict()
        self._capacity = capacity

    def get(self, key: object, make: Callable[[], Any]) -> Any:
        """The cached value for ``key``, made with ``make()`` on a miss."""
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        value = make()
        self._items[key] = value
        while len(self._items) > self._capacity:
            self._items.popitem(last=False)
        return value


TEXTURES = TextureCache()
