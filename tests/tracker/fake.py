"""A stand-in for the card reader: the tests say what each frame shows (card, face, centre)
and the follower's logic is tested alone, without rendering."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import vision.tracker.tracks as tracks

BLANK = np.zeros((720, 1280, 3), np.uint8)


@dataclass(frozen=True)
class FakeReading:
    card: str
    face: str
    corners_px: np.ndarray
    confidence: float = 0.99


@dataclass(frozen=True)
class FakeFrame:
    cards: list[FakeReading]


def reading(
    card: str, face: str, centre: tuple[float, float], scale: float = 1.0, squash: float = 1.0
) -> FakeReading:
    """An upright card 60 x 84 px (times ``scale``: a card further from the camera looks
    smaller; its height times ``squash`` too: a camera tilted along the image's y axis
    shortens what points away from it) centred on ``centre``."""
    x, y = centre
    w, h = 30 * scale, 42 * scale * squash
    quad = np.array([[x - w, y - h], [x + w, y - h], [x + w, y + h], [x - w, y + h]])
    return FakeReading(card, face, quad.astype(np.float32))


class Table:
    """What lies on the table now; ``install(monkeypatch, module)`` makes the card reader
    the followers call (``vision.tracker.tracks.read_cards``) read it (``module``: the
    follower's module, kept for the callers)."""

    def __init__(self) -> None:
        self.cards: dict[str, tuple[str, tuple[float, float], float, float]] = {}
        #: every card's height in the image is times this (a tilted camera, ``reading``)
        self.squash = 1.0

    def put(self, card: str, face: str, centre: tuple[float, float], scale: float = 1.0) -> None:
        self.cards[card] = (face, centre, scale, self.squash)

    def take(self, card: str) -> None:
        del self.cards[card]

    def install(self, monkeypatch: Any, module: Any) -> None:
        def identify(frame: np.ndarray, deck: Any = None, **kw: Any) -> FakeFrame:
            return FakeFrame([reading(c, f, p, k, q) for c, (f, p, k, q) in self.cards.items()])

        monkeypatch.setattr(tracks, "identify_frame", identify)


class Clock:
    """Feeds frames at ``fps`` and collects the events."""

    def __init__(self, follower: Any, fps: float = 4.0) -> None:
        self.follower = follower
        self.fps = fps
        self.t = 0.0
        self.events: list[dict[str, Any]] = [follower.start_event()]

    def run(self, seconds: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for _ in range(round(seconds * self.fps)):
            out.extend(self.follower.update(BLANK, round(self.t, 3)))
            self.t += 1.0 / self.fps
        self.events.extend(out)
        return out
