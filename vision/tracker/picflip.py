"""Pic Flip followed from the camera: frames in, docs/formats.md events out.

``PicFlipFollower`` reads every frame with the stateless card reader
(``vision.identify.identify_frame``: kit cards by their printed codes, or a registered
deck's cards by their pictures) and follows the cards on the table
(``vision.tracker.tracks.SettledCards``). A face-up card that settles and is not already on
the discard pile has just been laid on it:

- the first is the ``lead``; each later one a ``play``. Its player is the seat on the side
  the hand came from (``ArmSides``: the direction from the card to the far end of the arm
  that laid it, against the seats spread round the view from the bottom, clockwise, turned
  by ``fit_turn`` to fit all the directions seen so far, as when the camera is turned on
  its stand; players with no card left are skipped when their starting counts are known;
  with no arm seen, the card's place off the middle, or on the pile the way it is turned:
  upright for its player);
- a ``play`` needs the top card described: the phrase is spoken, which no camera hears, so
  the follower emits the ``describe`` of the top card's player (phrase ``"(spoken)"``) just
  before the next ``play``, once the play it follows can no longer be challenged;
- a challenge is decided by the players (a vote entered on the page or by keys):
  ``reject(t)`` returns the ``reject`` event when the last play may still be rejected, and the
  follower then expects that card to be taken back.

``prompt()`` shows the countdown: the player on top describes, then "3...", "2...", "1...",
"GO!" (seconds in ``FlipSettings``), restarted after a reject; with starting counts it
also tells the winner.

A frame larger than 1280x720 is read shrunk to it (``tracks.WorkingFrame``), and a frame
where nothing moved since the frame last read reuses that reading for up to ``settle_s``
(``tracks.StillFrames``; ``reads`` counts the frames read).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.sources.guard import check_frame
from vision.tracker.tracks import (
    ArmSides,
    SettledCards,
    StillFrames,
    Track,
    WorkingFrame,
    angle_gap,
    default_seat_angles,
    fit_turn,
    read_cards,
    reader_inputs,
)

SPOKEN = "(spoken)"
"""The phrase of a ``describe`` the follower emits: it was said aloud, not seen."""


@dataclass(frozen=True)
class FlipSettings:
    """Seconds and pixels of the Pic Flip follower."""

    settle_s: float = 0.25
    move_px: float = 8.0
    forget_s: float = 1.0
    arm_window_s: float = 2.0
    describe_s: float = 1.0
    count_step_s: float = 0.6
    #: how far the seats may be turned in the image (the camera's turn on its stand), deg
    max_turn_deg: float = 35.0
    min_confidence: float = 0.5
    #: without an arm, a card this far from the image centre is named by where it lies,
    #: nearer by the way it is turned (the pile in the middle: about a card's width)
    off_middle_px: float = 100.0


@dataclass
class _PileCard:
    card: str
    player: str
    played: bool
    described: bool = False


class PicFlipFollower:
    """Turns frames of a Pic Flip game into events (the live pipeline's follower).

    Args:
        players: names in seating order, clockwise (2 to 6).
        calibration: a calibration file's path (or a loaded ``CalibrationFile``), passed on
            to the card reader.
        deck: a deck name (or a ``vision.identify.ReferenceDeck``) to name cards by their
            pictures (a registered deck); by default kit cards are named by their codes.
        hands: each player's starting count (the ``hands`` option), when known.
        deck_size: the ``deck_size`` option (None: the engine's default).
    """

    def __init__(
        self,
        players: list[str],
        *,
        calibration: Any = None,
        deck: Any = None,
        hands: dict[str, int] | None = None,
        deck_size: int | None = None,
        settings: FlipSettings | None = None,
    ) -> None:
        if not 2 <= len(players) <= 6 or len(set(players)) != len(players):
            raise ValueError(f"Pic Flip needs 2 to 6 distinct players, got {players!r}")
        if hands is not None and set(hands) != set(players):
            raise ValueError(f"hands must give a count for every player, got {hands!r}")
        self.players = list(players)
        self.calibration, self.deck = reader_inputs(calibration, deck)
        self.hands = dict(hands) if hands is not None else None
        self.deck_size = deck_size
        self.settings = settings or FlipSettings()
        s = self.settings
        self.cards = SettledCards(s.settle_s, s.move_px, s.forget_s)
        self.arms = ArmSides()
        #: a frame larger than 1280x720 is read shrunk to it (``tracks.WorkingFrame``)
        self.work = WorkingFrame(self.calibration)
        #: the card reader runs on a frame unless nothing moved since the last frame read
        #: (then its readings stand), and at least once per settling time
        self.still = StillFrames(max_age_s=s.settle_s)
        self._readings: list[tuple[str, str, NDArray[np.float32], float]] = []
        self.pile: list[_PileCard] = []
        self.left: dict[str, int] | None = dict(hands) if hands is not None else None
        self.returning: set[str] = set()
        self.winner: str | None = None
        self.events: list[dict[str, Any]] = []
        self._sides: list[float] = []  # directions the laying hands came from
        self._clock: float | None = None  # when the countdown's describe window started
        self._shape: tuple[int, int] = (720, 1280)
        self._last_t = 0.0
        #: after a restart, the cards laid before it, in order (rejected ones included),
        #: until a new card is laid: a recording played again lays them again first
        self._replay: list[str] = []

    @property
    def reads(self) -> int:
        """Frames the card reader read (the others reused the last reading)."""
        return self.still.reads

    # ------------------------------------------------------------------ protocol
    def start_event(self) -> dict[str, Any]:
        """The docs/formats.md ``start`` event of this game."""
        ev: dict[str, Any] = {"type": "start", "game": "picflip", "players": list(self.players)}
        if self.deck_size is not None:
            ev["deck_size"] = self.deck_size
        if self.hands is not None:
            ev["hands"] = dict(self.hands)
        return ev

    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        """Feeds one frame ((H, W, 3) uint8 BGR) at ``t`` seconds; returns the events it
        confirmed, in order."""
        check_frame(frame, "frame")
        view = self.work.shrink(frame, quick=True)  # the frame itself up to 1280x720
        self._shape = (view.shape[0], view.shape[1])
        self._last_t = t
        self.arms.update(view, t)
        if self.still.unchanged(self.arms.small, t):
            readings = self._readings  # nothing moved since the frame last read
        else:
            cal = self.work.reader_calibration()
            image = self.work.shrink(frame)
            readings = read_cards(
                image, self.deck, cal, self.settings.min_confidence, game="picflip"
            )
            self.still.read(self.arms.small, t)
            self._readings = readings
        settled = self.cards.update(readings, t)
        self.returning &= set(self.cards.tracks)  # taken back: no longer in view
        out: list[dict[str, Any]] = []
        on_pile = {p.card for p in self.pile}
        for tr in sorted(settled, key=lambda tr: tr.still_since):
            if tr.face != "up" or tr.card in self.returning:
                continue
            if self._replay and tr.card == self._replay[0]:
                self._replay.pop(0)  # a recording played again: laid before the restart
                continue
            if tr.card in on_pile:
                continue
            self._replay = []  # a card never laid: the table has moved on
            out.extend(self._laid(tr, t))
            on_pile.add(tr.card)
        self.events.extend(out)
        return out

    def finish(self, t: float) -> list[dict[str, Any]]:
        """The end of the frames: nothing is pending in Pic Flip (a last play stands)."""
        return []

    def reject(self, t: float) -> dict[str, Any] | None:
        """The players ruled the last play no match (entered on the page or by a key): the
        ``reject`` event, or None when there is no play that may still be rejected."""
        if not self.pile or not self.pile[-1].played or self.pile[-1].described:
            return None
        top = self.pile.pop()
        self.returning.add(top.card)
        if self.left is not None:
            self.left[top.player] += 1
        if self.winner == top.player:
            self.winner = None
        self._clock = t - self.settings.describe_s  # straight to the countdown
        self._last_t = max(self._last_t, t)
        ev = {"type": "reject", "t": round(float(t), 3), "meta": {"source": "vote"}}
        self.events.append(ev)
        return ev

    def resume(self, summary: Mapping[str, Any], events: Sequence[Mapping[str, Any]] = ()) -> None:
        """After a restart, follow on from a stored session: ``summary`` its state
        (``State.summary()``: the cards left, the card on top of the pile, described or
        still open to a challenge), ``events`` its log, which gives the whole pile: a card
        already on it is not laid again, and cards laid again in the log's order (a
        recording played from its start) are passed over until a new one is laid."""
        left = summary.get("cards_left")
        if isinstance(left, dict) and set(left) == set(self.players):
            self.left = {p: int(n) for p, n in left.items()}
        pile: list[_PileCard] = []
        laid: list[str] = []
        for e in events:
            kind = e.get("type")
            if kind in ("lead", "play") and e.get("card") and e.get("player") in self.players:
                pile.append(_PileCard(str(e["card"]), str(e["player"]), played=kind == "play"))
                laid.append(str(e["card"]))
            elif kind == "describe" and pile:
                pile[-1].described = True
            elif kind == "reject" and pile:
                pile.pop()
        top = summary.get("top")
        if (
            not pile
            and isinstance(top, dict)
            and top.get("card")
            and top.get("player") in self.players
        ):
            pile = [  # no log given: the top card alone
                _PileCard(
                    str(top["card"]),
                    str(top["player"]),
                    played=int(summary.get("pile", 1)) > 1,
                    described=top.get("phrase") is not None,
                )
            ]
        self.pile = pile
        self._replay = laid

    def prompt(self) -> str | None:
        """The countdown, the winner, or who laid the last card."""
        if self.winner is not None:
            return f"{self.winner} has laid their last card: {self.winner} wins!"
        if not self.pile or self._clock is None:
            return "Lay the first card face up in the middle"
        s = self.settings
        dt = self._last_t - self._clock
        if dt < s.describe_s:
            return f"{self.pile[-1].player}: describe one of the pictures"
        step = int((dt - s.describe_s) // s.count_step_s)
        if step < 3:
            return f"{3 - step}..."
        return "GO!"

    def overlay(self) -> list[dict[str, Any]]:
        """Each card read, the pile's top marked with its player, and the prompt."""
        top = self.pile[-1] if self.pile else None
        out: list[dict[str, Any]] = []
        for tr in self.cards.seen_now(self._last_t):
            label = tr.card
            if top is not None and tr.card == top.card:
                label = f"{top.player}: {tr.card}"
            corners = self.work.to_frame(tr.corners_px).tolist()
            out.append({"kind": "quad", "corners_px": corners, "label": label})
        text = self.prompt()
        if text:
            out.append({"kind": "text", "xy": [20.0, 30.0], "label": text})
        if self.left is not None:
            counts = "  ".join(f"{p} {n}" for p, n in self.left.items())
            out.append({"kind": "text", "xy": [20.0, 60.0], "label": f"cards left: {counts}"})
        return out

    # ------------------------------------------------------------------ helpers
    def _laid(self, tr: Track, t: float) -> list[dict[str, Any]]:
        player, how = self._player_for(tr)
        meta = {"confidence": round(tr.confidence, 3), "frames": tr.frames, "player": how}
        out: list[dict[str, Any]] = []
        if not self.pile:
            out.append({"type": "lead", "player": player, "card": tr.card})
        else:
            top = self.pile[-1]
            if not top.described:
                top.described = True
                out.append(
                    {
                        "type": "describe",
                        "player": top.player,
                        "phrase": SPOKEN,
                        "t": round(float(t), 3),
                        "meta": {"source": "not heard: spoken aloud"},
                    }
                )
            out.append({"type": "play", "player": player, "card": tr.card})
        out[-1]["t"] = round(float(t), 3)
        out[-1]["meta"] = meta
        self.pile.append(_PileCard(tr.card, player, played=bool(self.pile)))
        self._clock = t
        if self.left is not None:
            self.left[player] -= 1
            if self.left[player] == 0:
                self.winner = player
        return out

    def _player_for(self, tr: Track) -> tuple[str, str]:
        """The seat on the side the hand came from (with cards left, when counts are known)."""
        able = [p for p in self.players if self.left is None or self.left[p] > 0] or self.players
        seats = default_seat_angles(len(self.players))
        side = self.arms.angle_near(tr.still_since, self.settings.arm_window_s, tr.centre_px)
        if side is not None:
            how = "side"
            # the camera may be turned on its stand: the seats turn with it in the image
            self._sides.append(side)
        else:
            side, how = self._side_without_arm(tr)
            if how == "position":  # a card's turn varies too much to fit the camera's by
                self._sides.append(side)
        turn = fit_turn(self._sides, seats, self.settings.max_turn_deg)
        angles = {p: a + turn for p, a in zip(self.players, seats, strict=True)}
        return min(able, key=lambda p: angle_gap(side, angles[p])), how

    def _side_without_arm(self, tr: Track) -> tuple[float, str]:
        """The direction (deg, y down) of the card's player when no arm was seen: the
        card's offset from the image centre when it lies clearly off the middle
        ("position"); on the pile in the middle that offset tells nothing, and the way
        the card is turned does: a card is laid upright for its player, its bottom edge
        towards them ("upright"; ``corners_px`` run TL, TR, BR, BL as printed)."""
        h, w = self._shape
        cx, cy = tr.centre_px
        dx, dy = cx - (w - 1) / 2, cy - (h - 1) / 2
        if math.hypot(dx, dy) >= self.settings.off_middle_px:
            return math.degrees(math.atan2(dy, dx)), "position"
        c = np.asarray(tr.corners_px, np.float64).reshape(4, 2)
        down = (c[2] + c[3]) / 2 - (c[0] + c[1]) / 2
        return math.degrees(math.atan2(down[1], down[0])), "upright"
