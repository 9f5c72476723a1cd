"""Picmix followed from the camera: claims over time, frames in, docs/formats.md ``reveal``
and ``claim`` events out.

``ClaimWatcher`` is the stateful part of the Picmix pipeline (the item reader,
``vision.picmix``, is stateless; ``pictable verify picmix`` on a video or the camera runs
the watcher alone; every threshold is in seconds); ``PicmixFollower`` is the live
pipeline's follower of the game: the watcher behind the follower protocol
(``pictable.followers``). The watcher watches for

- a new objective card (read in the frame, the same card for ``REVEAL_STABLE_S`` with all its
  items in view, so no hand is over it): ``reveal`` with the card and its items;
- a hand tapping the objective card (its region changes from the look it had when revealed
  over at least ``TAP_SHARE`` of its area): the claiming seat's cards are read in the frames
  that follow, and once the objective has been clear again for ``RELEASE_S`` (the arm that
  reached for it may have hidden the cards) and two readings in a row agree and hold no item
  in doubt, a ``claim`` with
  the distinct visible items is emitted (the round is then over). After ``CLAIM_WINDOW_S``
  the fullest reading is taken, with the items still in doubt in ``meta``;
- a key pressed for a seat (``key(seat, ...)``): the same, at once.

Seats: without ``seat_of`` every item outside the objective belongs to the first player (a
frame shows one player's cards); with it (a table calibration and seat zones), the items in
a seat's zone are that seat's, and a tap is claimed by the seat with the most items laid out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.seats import seat_mapper
from vision.picmix.frame_items import FrameItems, read_items
from vision.picmix.ink import Blob
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.objective import Objective, find_objective
from vision.picmix.reader import on_read_faces
from vision.picmix.reading import PicmixFailure
from vision.picmix.verdict import UNNAMED, player_items
from vision.tracker import check_players
from vision.tracker.stable import Debouncer

REVEAL_STABLE_S = 0.3
TAP_SHARE = 0.06
"""Share of the objective card's area that must change for a tap."""
TAP_DIFF = 40
"""Grey-level change (0..255) that counts a pixel of the objective card as changed."""
CLAIM_WINDOW_S = 3.0
RELEASE_S = 0.3
"""The objective must stay clear of the hand this long before the cards are read for a claim
(the arm that tapped it often lies over the cards on its way)."""


@dataclass
class _Open:
    """The objective of the round in play: its reading and its look when revealed."""

    objective: Objective
    quad_px: np.ndarray
    ref: np.ndarray  # (h, w) uint8 grey patch of the card's bounding box
    box: tuple[int, int, int, int]  # x0, y0, x1, y1
    inside: np.ndarray  # (h, w) bool: the card's pixels in the patch


@dataclass
class _Pending:
    """A claim waiting for a reading without doubt."""

    player: str
    since: float
    clear_since: float | None = None  # since when the objective has been clear of the hand
    last: tuple[list[str], list[str]] | None = None  # (visible, unsure) of the last reading
    best: tuple[list[str], list[str]] | None = None  # the fullest reading so far


@dataclass
class ClaimWatcher:
    """Turn frames into Picmix events (module docstring).

    ``players``: names in seating order; ``deck`` and ``model``: as ``verify_frame``;
    ``seat_of``: blob centre (x, y) px -> the player whose zone it lies in (or None)."""

    players: Sequence[str]
    deck: ItemDeck
    model: ItemModel
    seat_of: Callable[[tuple[float, float]], str | None] | None = None
    _reveal: Debouncer[str] = field(default_factory=lambda: Debouncer(REVEAL_STABLE_S))
    _open: _Open | None = None
    _claimed: str | None = None  # objective card of the last claim (not revealed again)
    _pending: _Pending | None = None
    _touched: bool = False

    @property
    def claiming(self) -> str | None:
        """The player whose claim waits for a reading of their cards, if any."""
        return self._pending.player if self._pending is not None else None

    @property
    def objective_in_play(self) -> tuple[np.ndarray, tuple[str, ...]] | None:
        """The objective card of the round in play: its (4, 2) corners in px and its items;
        None before one is revealed."""
        if self._open is None:
            return None
        quad = np.asarray(self._open.quad_px, np.float64).reshape(-1, 2)
        return quad, tuple(self._open.objective.items)

    def already_claimed(self, card: str) -> None:
        """Resume after a restart: ``card`` (an objective card's id, or its items joined by
        commas) was claimed before and is not revealed again."""
        self._claimed = card

    def start_event(self, t: float = 0.0) -> dict[str, Any]:
        """The log's first event: ``start`` of a Picmix game with ``players``."""
        return {"type": "start", "game": "picmix", "players": list(self.players), "t": t}

    def update(self, frame: np.ndarray, t: float) -> list[dict[str, Any]]:
        """The events ``frame`` (at ``t`` seconds) completes."""
        events: list[dict[str, Any]] = []
        if self._pending is not None:
            self._touched = self._touch(frame)
            if self._touched:
                self._pending.clear_since = None
            elif self._pending.clear_since is None:
                self._pending.clear_since = t
            events.extend(self._read_claim(frame, t))
            return events
        if self._open is None:
            events.extend(self._look_for_objective(frame, t))
            return events
        touched = self._touch(frame)
        if touched and not self._touched:
            # once, for both steps; the objective is known (open): not looked for again
            fi = read_items(frame, self.deck, self.model, search_objective="none")
            player = self._claimer(fi)
            if player is not None:
                self._pending = _Pending(player, t)
                events.extend(self._read_claim(frame, t, fi))
        self._touched = touched
        return events

    def finish(self, t: float) -> list[dict[str, Any]]:
        """The stream ended: a claim still waiting is emitted with its fullest reading."""
        pending, opened = self._pending, self._open
        if pending is None or opened is None or pending.best is None:
            return []
        vis, doubt = pending.best
        event: dict[str, Any] = {"type": "claim", "player": pending.player, "visible": vis}
        event["t"] = round(t, 3)
        if doubt:
            event["meta"] = {"unsure": doubt}
        self._pending = None
        self._open = None
        return [event]

    def key(self, seat: int, frame: np.ndarray, t: float) -> list[dict[str, Any]]:
        """Seat ``seat`` (0-based) claims now (a key was pressed)."""
        if self._open is None or not 0 <= seat < len(self.players):
            return []
        self._pending = _Pending(self.players[seat], t, clear_since=t - RELEASE_S)
        return self._read_claim(frame, t)

    # ---------------------------------------------------------------------------------------
    def _look_for_objective(self, frame: np.ndarray, t: float) -> list[dict[str, Any]]:
        """A ``reveal`` once a new objective has been seen whole for ``REVEAL_STABLE_S``."""
        # every frame until it is shown: not by the card reader (80 ms a frame; see read_items)
        fi = read_items(frame, self.deck, self.model, search_objective="fast")
        obj = find_objective(frame, fi, self.deck)
        if isinstance(obj, PicmixFailure) or obj.quad_px is None:
            self._reveal.update(None, t)
            return []
        # all its items in view (by count: small black items are not always named surely)
        shown = [i for i in obj.indices if fi.seen[i][0].look_share >= 0.45]
        key = obj.card or ",".join(obj.items)
        complete = len(shown) >= len(obj.items)
        if key == self._claimed:
            return []
        confirmed = self._reveal.update(key, t, blocked=not complete)
        if confirmed is None:
            return []
        self._open = _make_open(frame, obj, obj.quad_px)
        self._touched = False
        return [{"type": "reveal", "card": key, "items": list(obj.items), "t": round(t, 3)}]

    def _touch(self, frame: np.ndarray) -> bool:
        """Whether something (a hand) covers part of the open objective card now."""
        assert self._open is not None
        x0, y0, x1, y1 = self._open.box
        grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
        diff = cv2.absdiff(grey, self._open.ref) > TAP_DIFF
        inside = self._open.inside
        return float(diff[inside].mean()) >= TAP_SHARE if inside.any() else False

    def _keep(self, player: str) -> Callable[[Blob], bool] | None:
        """The filter of ``player``'s blobs (their seat zone), or None without seats."""
        if self.seat_of is None:
            return None
        seat_of = self.seat_of
        return lambda b: seat_of(b.centre_px) == player

    def _claimer(self, fi: FrameItems) -> str | None:
        """Who tapped: the only player without seats, else the seat with most items laid
        (``fi``: the frame's items)."""
        if self.seat_of is None:
            return self.players[0]
        faces = on_read_faces(fi, frozenset())
        counts: dict[str, int] = {}
        for s, blob in fi.seen:
            if s.status == "hidden" or (faces is not None and not faces(blob)):
                continue
            who = self.seat_of(blob.centre_px)
            if who is not None:
                counts[who] = counts.get(who, 0) + 1
        return max(counts, key=lambda k: counts[k]) if counts else None

    def _read_claim(
        self, frame: np.ndarray, t: float, fi: FrameItems | None = None
    ) -> list[dict[str, Any]]:
        """Read the claimer's cards (``fi``: the frame's items, when read already); the
        ``claim`` once the reading has settled."""
        pending, opened = self._pending, self._open
        assert pending is not None and opened is not None
        if fi is None:
            fi = read_items(frame, self.deck, self.model, search_objective="none")
        on_obj = frozenset(
            i
            for i, (_, b) in enumerate(fi.seen)
            if cv2.pointPolygonTest(opened.quad_px.reshape(-1, 1, 2), b.centre_px, True) >= -2
        )
        visible, unsure = claim_items(fi, on_obj, self._keep(pending.player))
        # an unnamed blob (UNNAMED) does not hold a claim back: the arm leaving the cards
        # often leaves one; it is reported in the claim's meta
        unnamed = UNNAMED in unsure
        reading = (sorted(visible), sorted(unsure - visible - {UNNAMED}))
        if pending.best is None or len(reading[0]) > len(pending.best[0]):
            pending.best = reading
        clear = pending.clear_since is not None and t - pending.clear_since >= RELEASE_S
        settled = bool(clear and reading == pending.last and not reading[1] and reading[0])
        pending.last = reading
        if settled or t - pending.since >= CLAIM_WINDOW_S:
            vis, doubt_left = reading if settled else (pending.best or ([], []))
            event: dict[str, Any] = {
                "type": "claim",
                "player": pending.player,
                "visible": vis,
                "t": round(t, 3),
            }
            if doubt_left or unnamed:
                event["meta"] = {"unsure": doubt_left, "unnamed_item": unnamed}
            self._claimed = opened.objective.card or ",".join(opened.objective.items)
            self._open = None
            self._pending = None
            self._reveal.reset()
            return [event]
        return []


def claim_items(
    fi: FrameItems, on_objective: frozenset[int], seat: Callable[[Blob], bool] | None
) -> tuple[set[str], set[str]]:
    """(visible, unsure): the claimer's items, those in their seat's zone (``seat``, or
    anywhere) and, when the table shows things like items beyond the player faces whose
    codes are read (a printed cloth), only where a read face prints one
    (``vision.picmix.reader.on_read_faces``); ``on_objective``: the objective card's."""
    faces = on_read_faces(fi, on_objective)
    keep = seat
    if faces is not None:
        keep = faces if seat is None else (lambda b: seat(b) and faces(b))
    _, visible, unsure = player_items(fi, on_objective, keep)
    return visible, unsure


class PicmixFollower:
    """The live pipeline's follower of Picmix (reveal, claim): ``ClaimWatcher`` behind the
    follower protocol (``pictable.followers``), with what the log already holds after a
    restart left out. ``deck``: None or ``"picmix"`` (the kit's deck) or a registered deck's
    name; ``calibration``: a calibration file's path (its seats, ``seat_mapper``), or None."""

    game = "picmix"

    def __init__(
        self, players: Sequence[str], *, calibration: Any = None, deck: Any = None
    ) -> None:
        from vision.picmix.model import kit_deck, load_item_model

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
            self._mapper = seat_mapper(str(calibration), list(self.players))

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


def _make_open(frame: np.ndarray, obj: Objective, quad: np.ndarray) -> _Open:
    """The open round: the objective and its look (grey patch, card mask) when revealed."""
    h, w = frame.shape[:2]
    x0, y0 = (int(max(0, v)) for v in np.floor(quad.min(axis=0)))
    x1, y1 = int(min(w, np.ceil(quad[:, 0].max()) + 1)), int(min(h, np.ceil(quad[:, 1].max()) + 1))
    grey = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [x0, y0]).astype(np.int32), 1)
    return _Open(obj, quad, grey, (x0, y0, x1, y1), mask.astype(bool))
