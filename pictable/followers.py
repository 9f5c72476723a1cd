"""Game followers: the game-specific part of the live pipeline.

A follower turns frames into the game's docs/formats.md events. It wraps the game's stateful
tracker (the readers under it are stateless per frame) behind one protocol, so that
``pictable.live`` runs every game the same way:

- ``start_event()``: the log's ``start`` event;
- ``update(frame, t)``: the events this frame ((H, W, 3) uint8 BGR, at ``t`` seconds)
  confirmed, in order;
- ``finish(t)``: the events the end of the frames completes;
- ``prompt()``: what the assistant asks the players now (None when nothing);
- ``overlay()``: what to draw for the last frame: ``{"kind": "quad", "corners_px":
  [[x, y]] * 4, "label": str}`` or ``{"kind": "text", "xy": [x, y], "label": str}``;
- ``resume(summary, events)`` (optional): bring the tracker in line with a stored session
  after a restart: ``summary`` is its state (``State.summary()``), ``events`` its log (the
  events in force, oldest first, ``start`` included). The frames that follow may come from
  where the table is now (a camera) or from the start of a recording played again: what
  the log already holds is not emitted twice.

``make_follower(game, players, ...)`` picks the follower of a game; games whose camera
reader is not built yet raise ``NoFollower`` with a message saying so. ``calibration`` is the
path of a calibration file (``pictable calibrate``) or None; ``deck`` a deck name or None.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

FOLLOWER_MODULES = {
    "picasso": "pictable.followers:PicassoFollower",
    "picmix": "pictable.followers:PicmixFollower",
    "pickpic": "vision.pickpic.follow:PickPicFollower",
    "picflip": "vision.picflip.follow:PicFlipFollower",
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


def check_players(players: Sequence[str], game: str) -> list[str]:
    """The names, stripped; ``ValueError`` for fewer than two, blanks or repeats."""
    names = [str(p).strip() for p in players]
    if len(names) < 2 or any(not n for n in names):
        raise ValueError(f"{game} needs at least two named players, got {list(players)!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"player names must differ, got {names!r}")
    return names


class PicassoFollower:
    """Picasso through ``vision.picasso.turn.PicassoTurnTracker`` (draw, build, guess)."""

    game = "picasso"

    def __init__(
        self, players: Sequence[str], *, calibration: Any = None, deck: Any = None
    ) -> None:
        from vision.picasso.turn import PicassoTurnTracker

        self.players = check_players(players, self.game)
        kwargs: dict[str, Any] = {}
        if calibration is not None:
            from calibration.files import load

            cal = load(str(calibration))
            kwargs["intrinsics"] = cal.intrinsics
            kwargs["seats"] = tuple(cal.seats)
            kwargs["play_area_mm"] = cal.play_area_mm
        self.tracker = PicassoTurnTracker(list(self.players), **kwargs)
        self._last_build: dict[str, Any] | None = None

    def start_event(self) -> dict[str, Any]:
        return {"type": "start", "game": "picasso", "players": list(self.players)}

    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        events = self.tracker.update(frame, t)
        self._note(events)
        return events

    def finish(self, t: float) -> list[dict[str, Any]]:
        events = self.tracker.finish()
        self._note(events)
        return events

    def _note(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            if e.get("type") == "build":
                self._last_build = e
            elif e.get("type") in ("guess", "draw"):
                self._last_build = None

    def prompt(self) -> str | None:
        phase = self.tracker.phase
        builder = self.tracker.builder
        if phase == "draw":
            return f"{builder}: draw a card and show it to the camera"
        if phase == "build":
            return f"{builder} builds; show the card again when the word is guessed"
        if phase == "placing":
            return "lay the card in front of the player who guessed"
        return None

    def overlay(self) -> list[dict[str, Any]]:
        """The last board reading in the image: sticks, shapes, the string, the running cost
        (or the hand over the canvas)."""
        reading = getattr(self.tracker, "last_reading", None)
        fit = getattr(reading, "fit", None)
        if reading is None or fit is None:
            return []
        from pictable.textboard import PIECE_NAMES
        from vision.picasso.sink import split_polyline

        def px(points_mm: Any) -> list[list[float]]:
            pts = np.asarray(points_mm, np.float64).reshape(-1, 2)
            return [[float(x), float(y)] for x, y in fit.to_px(pts)]

        items: list[dict[str, Any]] = []
        for stick in reading.sticks:
            label = "L" if stick.kind == "long_stick" else "S"
            items.append(
                {"kind": "line", "points_px": px([stick.p0_mm, stick.p1_mm]), "label": label}
            )
        for shape in reading.shapes:
            items.append({"kind": "quad", "corners_px": px(shape.outline_mm), "label": shape.shape})
        if reading.string is not None:
            for part in split_polyline(np.asarray(reading.string.points_mm, np.float32)):
                items.append({"kind": "line", "points_px": px(part), "label": ""})
        corner = px([[0.0, -8.0]])[0]
        if reading.occluded:
            text = "a hand over the board: not counted"
        else:
            counts = reading.counts or {}
            parts = ", ".join(
                f"{n} {PIECE_NAMES.get(k, (k, k))[n != 1]}" for k, n in counts.items() if n
            )
            text = f"cost {reading.cost}" + (f" ({parts})" if parts else "")
        items.append({"kind": "text", "xy": corner, "label": text})
        return items

    def resume(self, summary: Mapping[str, Any], events: Sequence[Mapping[str, Any]] = ()) -> None:
        """The turn of a stored session: its builder builds next, and a card already drawn
        means the build is under way (its last build, from ``events``, is not emitted
        again)."""
        builder = summary.get("builder")
        if builder not in self.players:
            return
        card = summary.get("card")
        pieces: dict[str, int] | None = None
        for e in events:
            kind = e.get("type")
            if kind == "build" and isinstance(e.get("pieces"), Mapping):
                pieces = {str(k): int(n) for k, n in e["pieces"].items()}
            elif kind in ("draw", "guess", "give_up"):
                pieces = None  # a build belongs to its turn
        self.tracker.resume_turn(
            str(builder), str(card) if card else None, built=pieces is not None, pieces=pieces
        )


class PicmixFollower:
    """Picmix through ``vision.picmix.watch.ClaimWatcher`` (reveal, claim)."""

    game = "picmix"

    def __init__(
        self, players: Sequence[str], *, calibration: Any = None, deck: Any = None
    ) -> None:
        from vision.picmix.model import kit_deck, load_item_model
        from vision.picmix.watch import ClaimWatcher

        self.players = check_players(players, self.game)
        model = load_item_model()
        if deck is None or deck == "picmix":
            deck = kit_deck(model)
        elif isinstance(deck, str):
            from vision.picmix.decks import load_registered

            deck = load_registered(deck)
        self.watcher = ClaimWatcher(list(self.players), deck, model)
        self._known_objective: str | None = None
        #: after a restart, the log's rounds in order (objective card, claimed or not), until
        #: the table moves on: a recording played again reveals and claims them again first
        self._replay: list[tuple[str, bool]] = []
        self._mute_claim = False
        self._mapper = None
        if calibration is not None:
            from pictable.commands.verify import _seat_mapper

            self._mapper = _seat_mapper(str(calibration), list(self.players))

    def start_event(self) -> dict[str, Any]:
        return {"type": "start", "game": "picmix", "players": list(self.players)}

    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        if self._mapper is not None:
            self.watcher.seat_of = self._mapper(frame)
        return self._not_stored(self.watcher.update(frame, t))

    def _not_stored(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``events`` less what the log holds already, after a restart: the objective in
        play, revealed before (the watcher sees it afresh, and must, to watch it), and the
        rounds of a recording played again from its start (a reveal the log holds in that
        order, and the claim that closed it)."""
        out = []
        for e in events:
            kind, card = e.get("type"), e.get("card")
            if kind == "claim" and self._mute_claim:
                self._mute_claim = False
                continue
            if kind != "reveal":
                out.append(e)
                continue
            self._mute_claim = False
            if self._known_objective is not None and card == self._known_objective:
                self._known_objective, self._replay = None, []
                continue
            if self._replay and card == self._replay[0][0]:
                self._mute_claim = self._replay.pop(0)[1]
                continue
            self._known_objective, self._replay = None, []  # a new objective: live again
            out.append(e)
        return out

    def finish(self, t: float) -> list[dict[str, Any]]:
        return self._not_stored(self.watcher.finish(t))

    def key(self, seat: int, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        """A seat's claim called by a key (seat 0 is the first player)."""
        return self.watcher.key(seat, frame, t)

    def prompt(self) -> str | None:
        if self.watcher.claiming is not None:
            return f"checking {self.watcher.claiming}'s cards..."
        if self.watcher.objective_in_play is None:
            return "reveal the next objective card"
        return "tap the objective and call Picmix!"

    def overlay(self) -> list[dict[str, Any]]:
        in_play = self.watcher.objective_in_play
        if in_play is None:
            return []
        quad, items = in_play
        label = f"objective: {', '.join(items)}"
        return [{"kind": "quad", "corners_px": quad.tolist(), "label": label}]

    def resume(self, summary: Mapping[str, Any], events: Sequence[Mapping[str, Any]] = ()) -> None:
        """The objective in play is not revealed twice; objectives already claimed are not
        revealed again; the rounds of the log (``events``) played again from a recording's
        start are not stored twice."""
        rounds: list[tuple[str, bool]] = []
        for e in events:
            if e.get("type") == "reveal" and e.get("card"):
                rounds.append((str(e["card"]), False))
            elif e.get("type") == "claim" and rounds:
                rounds[-1] = (rounds[-1][0], True)
        self._replay = rounds
        objective = summary.get("objective") or {}
        if objective.get("card"):
            self._known_objective = str(objective["card"])
        won = summary.get("won") or {}
        last = summary.get("last_claim") or {}
        if last.get("card"):
            self.watcher.already_claimed(str(last["card"]))
        elif won:
            cards = [c for cs in won.values() for c in cs]
            if cards:
                self.watcher.already_claimed(str(cards[-1]))


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
