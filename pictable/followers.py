"""Game followers: the game-specific part of the live pipeline, and the registry of games.

A follower turns frames into the game's docs/formats.md events. Each game's follower lives in
the tracker (``vision.tracker.<game>``: the only state over time; the readers under it are
stateless per frame) and implements one protocol, so that ``pictable.live`` runs every game
the same way:

- ``start_event()``: the log's ``start`` event;
- ``update(frame, t)``: the events this frame ((H, W, 3) uint8 BGR, at ``t`` seconds)
  confirmed, in order;
- ``finish(t)``: the events the end of the frames completes;
- ``prompt()``: what the assistant asks the players now (None when nothing);
- ``overlay()``: what to draw for the last frame: ``{"kind": "quad", "corners_px":
  [[x, y]] * 4, "label": str}`` or ``{"kind": "text", "xy": [x, y], "label": str}``;
- ``resume(summary, events)``: bring the follower in line with a stored session after a
  restart:
  ``summary`` is its state (``State.summary()``), ``events`` its log (the events in force,
  oldest first, ``start`` included). The frames that follow may come from where the table
  is now (a camera) or from the start of a recording played again: what the log already
  holds is not emitted twice.

``make_follower(game, players, ...)`` picks the follower of a game (``FOLLOWER_MODULES``);
games whose camera reader is not built yet raise ``NoFollower`` with a message saying so.
``calibration`` is the path of a calibration file (``pictable calibrate``) or None; ``deck``
a deck name or None. ``check_players`` (from ``vision.tracker``) is the check of player
names the followers share.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from vision.tracker import check_players

__all__ = [
    "FOLLOWER_MODULES",
    "Follower",
    "NoFollower",
    "check_players",
    "has_follower",
    "make_follower",
]

FOLLOWER_MODULES = {
    "picasso": "vision.tracker.picasso:PicassoFollower",
    "picmix": "vision.tracker.picmix:PicmixFollower",
    "pickpic": "vision.tracker.pickpic:PickPicFollower",
    "picflip": "vision.tracker.picflip:PicFlipFollower",
}


class NoFollower(LookupError):
    """The game has no camera follower (yet)."""


class Follower(Protocol):
    """See the module docstring."""

    def start_event(self) -> dict[str, Any]: ...

    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]: ...

    def finish(self, t: float) -> list[dict[str, Any]]: ...

    def prompt(self) -> str | None: ...

    def overlay(self) -> list[dict[str, Any]]: ...

    def resume(self, summary: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> None: ...


def make_follower(
    game: str,
    players: Sequence[str],
    *,
    calibration: Any = None,
    deck: Any = None,
    start: Mapping[str, Any] | None = None,
) -> Follower:
    """The follower of ``game``. ``start``: a ``start`` event whose options (Pic Flip's
    ``hands`` and ``deck_size``) the follower takes over when it has them. Raises
    ``NoFollower`` when the game has no camera reader yet, ``ValueError`` for bad players."""
    target = FOLLOWER_MODULES.get(game)
    if target is None:
        raise NoFollower(f"unknown game {game!r}; games: {', '.join(FOLLOWER_MODULES)}")
    module_name, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise NoFollower(
            f"{game} cannot be followed from the camera yet ({module_name}.{attr} is not "
            "built); enter its events with `pictable sessions resume`"
        ) from exc
    options: dict[str, Any] = {}
    if start is not None:
        accepted = inspect.signature(cls).parameters
        options = {k: start[k] for k in ("hands", "deck_size") if k in start and k in accepted}
    follower: Follower = cls(list(players), calibration=calibration, deck=deck, **options)
    return follower


def has_follower(game: str) -> bool:
    """True when ``game``'s follower can be imported."""
    target = FOLLOWER_MODULES.get(game)
    if target is None:
        return False
    module_name, _, attr = target.partition(":")
    try:
        return hasattr(importlib.import_module(module_name), attr)
    except ImportError:
        return False
