"""The four decks of the printable edition as data: stable card ids and what each card shows.

Card ids (stable; recordings and event logs use them):

- Pick Pic: ``pickpic-001`` ... ``pickpic-120`` (photos, ``vision.kit.photos.PHOTO_SPECS``)
- Pic Flip: ``picflip-001`` ... ``picflip-104`` (two pictures each), ``picflip-cover-1..6``
- Picasso: ``picasso-001`` ... ``picasso-072`` (a word and its pictogram, ``PICASSO_WORDS``)
- Picmix: ``picmix-obj-01`` ... ``picmix-obj-25`` (objectives) and ``picmix-<colour>-<n>``
  (player cards, ``n`` 1..4, colours ``vision.kit.picmix.SET_COLOURS``)

Nothing here draws: ``vision.kit.render`` turns a card into pixels.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from vision.kit import picmix
from vision.kit.photos import PHOTO_SPECS, PhotoSpec
from vision.kit.pictograms import GLYPHS
from vision.kit.pictograms.pen import PALETTE_NAMES

Game = Literal["pickpic", "picflip", "picasso", "picmix"]
GAMES: tuple[Game, ...] = ("pickpic", "picflip", "picasso", "picmix")
GAME_TITLES: dict[str, str] = {
    "pickpic": "Pick Pic",
    "picflip": "Pic Flip",
    "picasso": "Picasso",
    "picmix": "Picmix",
}
CardKind = Literal["photo", "pictures", "cover", "word", "objective", "player"]

PICFLIP_BACKGROUNDS = (
    "cream",
    "mint",
    "sky",
    "lilac",
    "peach",
    "day",
    "night",
    "sunset",
    "stripes",
    "dots",
    "grass",
    "checks",
)
"""Backgrounds of Pic Flip pictures (drawn by ``vision.kit.render``)."""


@dataclass(frozen=True)
class Picture:
    """A Pic Flip picture: ``count`` copies of pictogram ``glyph`` in ``colour`` (a name of
    ``vision.kit.pictograms.pen.COLOURS``) over ``background``."""

    glyph: str
    colour: str
    background: str
    count: int = 1

    @property
    def description(self) -> str:
        what = self.glyph if self.count == 1 else f"{self.count} {self.glyph}s"
        return f"{self.colour} {what} on {self.background}"


@dataclass(frozen=True)
class Card:
    """One card of the printable kit. Fields beyond ``id``/``game``/``kind``/``number`` are set
    by kind: ``photo`` (Pick Pic), ``pictures`` (Pic Flip: top, bottom), ``word`` and ``glyph``
    (Picasso), ``items`` (Picmix objective), ``colour`` and ``faces`` (Picmix player card:
    (front, back), each with a left and a right item)."""

    id: str
    game: Game
    kind: CardKind
    number: int
    photo: PhotoSpec | None = None
    pictures: tuple[Picture, ...] = ()
    word: str | None = None
    glyph: str | None = None
    items: tuple[str, ...] = ()
    colour: str | None = None
    faces: tuple[picmix.PicmixFace, picmix.PicmixFace] | None = None

    @property
    def title(self) -> str:
        """A short human-readable description of the card."""
        if self.kind == "photo" and self.photo is not None:
            return self.photo.title
        if self.kind == "pictures":
            return " / ".join(p.description for p in self.pictures)
        if self.kind == "word":
            return f"word: {self.word}"
        if self.kind == "objective":
            return "objective: " + ", ".join(self.items)
        if self.kind == "player" and self.faces is not None:
            f, b = self.faces
            return f"{self.colour} set: {f.left}|{f.right} / {b.left}|{b.right}"
        return f"{GAME_TITLES[self.game]} cover card {self.number}"


@dataclass(frozen=True)
class Deck:
    """The cards of one game, in id order."""

    game: Game
    cards: tuple[Card, ...]

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cards)

    def card(self, card_id: str) -> Card:
        """The card with ``card_id``; ``KeyError`` when the deck has none."""
        for c in self.cards:
            if c.id == card_id:
                return c
        raise KeyError(f"no card {card_id!r} in the {self.game} deck")


# word -> pictogram; each word is something a builder can lay out with sticks and shapes
PICASSO_WORDS: tuple[tuple[str, str], ...] = (
    ("cat", "cat"),
    ("dog", "dog"),
    ("fish", "fish"),
    ("bird", "bird"),
    ("house", "house"),
    ("tree", "tree"),
    ("sun", "sun"),
    ("moon", "moon"),
    ("star", "star"),
    ("heart", "heart"),
    ("car", "car"),
    ("boat", "boat"),
    ("bicycle", "bicycle"),
    ("train", "train"),
    ("plane", "plane"),
    ("rocket", "rocket"),
    ("flower", "flower"),
    ("apple", "apple"),
    ("pear", "pear"),
    ("banana", "banana"),
    ("cherry", "cherry"),
    ("carrot", "carrot"),
    ("mushroom", "mushroom"),
    ("cup", "cup"),
    ("key", "key"),
    ("umbrella", "umbrella"),
    ("bell", "bell"),
    ("cloud", "cloud"),
    ("lightning", "lightning"),
    ("snowman", "snowman"),
    ("mountain", "mountain"),
    ("clock", "clock"),
    ("glasses", "glasses"),
    ("hat", "hat"),
    ("crown", "crown"),
    ("ladder", "ladder"),
    ("kite", "kite"),
    ("balloon", "balloon"),
    ("candle", "candle"),
    ("book", "book"),
    ("pencil", "pencil"),
    ("bottle", "bottle"),
    ("lamp", "lamp"),
    ("chair", "chair"),
    ("table", "table"),
    ("door", "door"),
    ("bridge", "bridge"),
    ("castle", "castle"),
    ("tent", "tent"),
    ("flag", "flag"),
    ("snake", "snake"),
    ("spider", "spider"),
    ("butterfly", "butterfly"),
    ("snail", "snail"),
    ("egg", "egg"),
    ("ghost", "ghost"),
    ("hammer", "hammer"),
    ("ice cream", "icecream"),
    ("lollipop", "lollipop"),
    ("robot", "robot"),
    ("television", "tv"),
    ("rainbow", "rainbow"),
    ("eye", "eye"),
    ("anchor", "anchor"),
    ("guitar", "guitar"),
    ("leaf", "leaf"),
    ("turtle", "turtle"),
    ("present", "gift"),
    ("cake", "cake"),
    ("duck", "duck"),
    ("whale", "whale"),
    ("scissors", "scissors"),
)
"""The Picasso words in card order (``picasso-001`` is ``cat``) with their pictogram."""

N_PICKPIC = 120
N_PICFLIP = 104
N_PICFLIP_COVERS = 6


def _pickpic() -> tuple[Card, ...]:
    return tuple(
        Card(f"pickpic-{i + 1:03d}", "pickpic", "photo", i + 1, photo=spec)
        for i, spec in enumerate(PHOTO_SPECS[:N_PICKPIC])
    )


def _picflip_pictures(seed: int = 2024) -> list[tuple[Picture, Picture]]:
    """104 pairs of pictures: every pictogram used two or three times, each time in another
    colour; no card shows the same pictogram twice; every third picture or so is a plain
    background, some pictures show two or three copies."""
    rng = random.Random(seed)
    glyphs = list(GLYPHS)
    order: list[str] = []
    while len(order) < 2 * N_PICFLIP:
        batch = glyphs[:]
        rng.shuffle(batch)
        order += batch
    order = order[: 2 * N_PICFLIP]
    used_colours: dict[str, set[str]] = {g: set() for g in glyphs}
    pictures: list[Picture] = []
    for g in order:
        glyph = GLYPHS[g]
        if glyph.recolour and rng.random() < 0.8:
            options = [c for c in PALETTE_NAMES if c not in used_colours[g]]
            colour = rng.choice(options or list(PALETTE_NAMES))
        else:
            colour = glyph.main if glyph.main not in used_colours[g] else rng.choice(PALETTE_NAMES)
        used_colours[g].add(colour)
        background = rng.choice(PICFLIP_BACKGROUNDS)
        count = rng.choices((1, 2, 3), weights=(7, 2, 1))[0]
        pictures.append(Picture(g, colour, background, count))
    pairs: list[tuple[Picture, Picture]] = []
    for k in range(N_PICFLIP):
        a, b = pictures[2 * k], pictures[2 * k + 1]
        if a.glyph == b.glyph:  # swap with the next card's second picture
            j = (2 * k + 3) % len(pictures)
            pictures[2 * k + 1], pictures[j] = pictures[j], pictures[2 * k + 1]
            b = pictures[2 * k + 1]
        pairs.append((a, b))
    return pairs


def _picflip() -> tuple[Card, ...]:
    cards = [
        Card(f"picflip-{i + 1:03d}", "picflip", "pictures", i + 1, pictures=pair)
        for i, pair in enumerate(_picflip_pictures())
    ]
    cards += [
        Card(f"picflip-cover-{i}", "picflip", "cover", i) for i in range(1, N_PICFLIP_COVERS + 1)
    ]
    return tuple(cards)


def _picasso() -> tuple[Card, ...]:
    return tuple(
        Card(f"picasso-{i + 1:03d}", "picasso", "word", i + 1, word=w, glyph=g)
        for i, (w, g) in enumerate(PICASSO_WORDS)
    )


def _picmix() -> tuple[Card, ...]:
    cards = [
        Card(picmix.objective_card_id(i + 1), "picmix", "objective", i + 1, items=items)
        for i, items in enumerate(picmix.OBJECTIVES)
    ]
    for colour in picmix.SET_COLOURS:
        for n, faces in enumerate(picmix.PLAYER_LAYOUT, start=1):
            cards.append(
                Card(
                    picmix.player_card_id(colour, n),
                    "picmix",
                    "player",
                    n,
                    colour=colour,
                    faces=faces,
                )
            )
    return tuple(cards)


_BUILDERS = {"pickpic": _pickpic, "picflip": _picflip, "picasso": _picasso, "picmix": _picmix}


@functools.cache
def load_deck(game: str) -> Deck:
    """The deck of ``game`` (``pickpic``, ``picflip``, ``picasso`` or ``picmix``)."""
    if game not in _BUILDERS:
        raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")
    return Deck(game, _BUILDERS[game]())  # type: ignore[arg-type]


def select_cards(game: str, card_ids: Iterable[str] | None = None) -> tuple[Card, ...]:
    """The cards of ``game``, or only ``card_ids`` (in deck order; ``ValueError`` naming any
    id that is not in the deck)."""
    deck = load_deck(game)
    if card_ids is None:
        return deck.cards
    wanted = set(card_ids)
    unknown = sorted(wanted - set(deck.ids))
    if unknown:
        raise ValueError(f"not in the {game} deck: {', '.join(unknown)}")
    return tuple(c for c in deck.cards if c.id in wanted)


@functools.lru_cache(maxsize=1)
def all_cards() -> tuple[Card, ...]:
    """Every card of the kit, deck by deck in ``GAMES`` order."""
    return tuple(c for g in GAMES for c in load_deck(g))


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, Card]:
    return {c.id: c for c in all_cards()}


def get_card(card_id: str) -> Card:
    """The card with ``card_id``; ``KeyError`` naming it when the kit has none."""
    try:
        return _index()[card_id]
    except KeyError:
        raise KeyError(f"unknown card id {card_id!r}") from None


def is_card_id(card_id: str) -> bool:
    """Whether ``card_id`` names a card of the kit."""
    return card_id in _index()
