"""A Pick Pic round followed from the camera: frames in, docs/formats.md events out.

``PickPicFollower`` reads every frame with the stateless card reader
(``vision.identify.identify_frame``: kit cards by their printed codes, face up or face down)
and keeps the only state: card tracks (``vision.tracker.tracks.SettledCards``: a card counts
once it lies still) and the round as the engine will see it. It emits

- **reveal**: a face-up card settling during the reveal phase is the reference photo of the
  player called to reveal (players are called in seating order);
- **give**: a face-down card settling by a stack that still misses gives. The stack is the
  one whose photo or stack card lies nearest (a fanned stack's last cards may lie nearer a
  neighbour's photo than its own); a card that settles before every photo is read, or by a
  complete stack, waits (``_Round.pending``). The giver is, in order of
  preference: the player the assistant called (``engine.pickpic.give_calls``, shown
  by ``prompt()``); when the card went to
  another player than the one called, the player still owing that receiver a card whose
  seat lies on the side the hand came from (``ArmSides``: the angle where the arm crossed
  the image border, against the seats' angles learnt from the photos); when that is not
  clear, the first such player, with ``meta.ask = "giver"`` so that the page asks;
- **random**: a face-down card settling by a player's stack once that player has every
  card given to them; when it was never read face down, the one card of no known role in
  the player's ranking row (``_random_in_row``), emitted just before the ``rank``;
- **rank**: once every card of a player's stack (gives and random card) lies face up and
  still, the cards ordered by their distance from the player's photo on the table, nearest
  first: each card is a rectangle of known size, so its outline tells how many millimetres
  a step in the image spans near it, in every direction (``table_metric``,
  ``table_distance``). Each player ranks when their row is read: nobody waits for another's
  random card.

When the last ranking is in, the round is over (the engine scores it) and the cards of that
round are no longer followed. Every event has ``t`` and ``meta`` ``{confidence, frames}``.
Thresholds are in seconds (``FollowSettings``).

A frame larger than 1280x720 is read shrunk to it (``tracks.WorkingFrame``), and a frame
where nothing moved since the frame last read reuses that reading for up to ``settle_s``
(``tracks.StillFrames``; ``reads`` counts the frames read).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.pickpic import cards_per_opponent, give_calls
from vision.kit.decks import get_card, is_card_id
from vision.kit.geometry import CARD_SIZE_WH_MM, face_size_wh_mm
from vision.sources.guard import check_frame
from vision.tracker.tracks import (
    ArmSides,
    SettledCards,
    StillFrames,
    Track,
    WorkingFrame,
    angle_gap,
    default_seat_angles,
    read_cards,
    reader_inputs,
)


@dataclass(frozen=True)
class FollowSettings:
    """Seconds and pixels of the follower."""

    settle_s: float = 0.25
    move_px: float = 8.0
    forget_s: float = 1.5
    #: how long before a card settled its hand is looked for (s): about the time a hand
    #: takes to reach in and lay it, shorter than the time between two lays (1.25 s at the
    #: quickest on rendered sessions), so that the arm of the card laid before (often the
    #: only arm seen when this one came in from beyond the view's edge) does not count
    arm_window_s: float = 1.0
    #: the side must point within this of a seat, and nearer it than any other by this much
    side_gap_deg: float = 40.0
    side_margin_deg: float = 10.0
    #: a side this much clearer for another owing player than for the called one overrules
    #: the call
    overrule_deg: float = 35.0
    #: cards read with less confidence are ignored
    min_confidence: float = 0.5


@dataclass
class _Round:
    number: int = 1
    revealed: dict[str, str] = field(default_factory=dict)
    ref_px: dict[str, tuple[float, float]] = field(default_factory=dict)
    gives: list[tuple[str, str, str]] = field(default_factory=list)
    calls_done: list[bool] = field(default_factory=list)
    randoms: dict[str, str] = field(default_factory=dict)
    ranks: dict[str, list[str]] = field(default_factory=dict)
    #: the table's metric by each photo (``table_metric``), as it was last read
    ref_metric: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    #: where each stack card (given or random) settled, face down
    stack_px: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: face-down cards that settled before they could be placed (a photo not read yet)
    pending: set[str] = field(default_factory=set)

    def cards(self) -> set[str]:
        out = set(self.revealed.values()) | {c for _, _, c in self.gives}
        return out | set(self.randoms.values())


class PickPicFollower:
    """Turns frames of a Pick Pic game into events (the live pipeline's follower).

    Args:
        players: names in seating order, clockwise (3 to 5).
        calibration: a calibration file's path (or a loaded
            ``calibration.files.CalibrationFile``) passed on to the card reader; seats are
            learnt from the reference photos.
        deck: a deck name (or a ``vision.identify.ReferenceDeck``) to name cards by their
            pictures too; by default cards are named by their printed codes only (faster).
        target: the game's ``target`` option (None: the engine's default).
    """

    def __init__(
        self,
        players: list[str],
        *,
        calibration: Any = None,
        deck: Any = None,
        target: int | None = None,
        settings: FollowSettings | None = None,
    ) -> None:
        if not 3 <= len(players) <= 5 or len(set(players)) != len(players):
            raise ValueError(f"Pick Pic needs 3 to 5 distinct players, got {players!r}")
        self.players = list(players)
        self.calibration, self.deck = reader_inputs(calibration, deck)
        self.target = target
        self.settings = settings or FollowSettings()
        s = self.settings
        self.cards = SettledCards(s.settle_s, s.move_px, s.forget_s)
        self.arms = ArmSides()
        #: a frame larger than 1280x720 is read shrunk to it (``tracks.WorkingFrame``)
        self.work = WorkingFrame(self.calibration)
        #: the card reader runs on a frame unless nothing moved since the last frame read
        #: (then its readings stand), and at least once per settling time
        self.still = StillFrames(max_age_s=s.settle_s)
        self._readings: list[tuple[str, str, NDArray[np.float32], float]] = []
        self.calls = give_calls(self.players)
        #: cards each player receives from the others in a round (their random card aside)
        self._expected = cards_per_opponent(len(self.players)) * (len(self.players) - 1)
        self.round = _Round(calls_done=[False] * len(self.calls))
        self.spent: set[str] = set()
        self.events: list[dict[str, Any]] = []
        self._shape: tuple[int, int] | None = None
        self._last_t = 0.0

    @property
    def reads(self) -> int:
        """Frames the card reader read (the others reused the last reading)."""
        return self.still.reads

    # ------------------------------------------------------------------ protocol
    def start_event(self) -> dict[str, Any]:
        """The docs/formats.md ``start`` event of this game."""
        ev: dict[str, Any] = {"type": "start", "game": "pickpic", "players": list(self.players)}
        if self.target is not None:
            ev["target"] = self.target
        return ev

    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        """Feeds one frame ((H, W, 3) uint8 BGR) at ``t`` seconds; returns the events it
        confirmed, in order."""
        check_frame(frame, "frame")
        view = self.work.shrink(frame, quick=True)  # the frame itself up to 1280x720
        self._shape = (view.shape[0], view.shape[1])
        self._last_t = t
        self.arms.update(view, t)

        def keep(card: str) -> bool:
            return card not in self.spent and not other_games_card(card)

        if self.still.unchanged(self.arms.small, t):
            # nothing moved since the frame last read: its readings stand (less the cards
            # spent since, a round's cards once it is scored)
            readings = [r for r in self._readings if keep(r[0])]
        else:
            min_conf = self.settings.min_confidence
            cal = self.work.reader_calibration()
            image = self.work.shrink(frame)
            readings = read_cards(image, self.deck, cal, min_conf, keep, "pickpic")
            self.still.read(self.arms.small, t)
        self._readings = readings
        settled = self.cards.update(readings, t)
        self._follow_refs()
        out: list[dict[str, Any]] = []
        for tr in sorted(settled, key=lambda tr: tr.still_since):
            out.extend(self._settled(tr, t))
        out.extend(self._retry_pending(t))
        out.extend(self._ranks(t, final=False))
        self.events.extend(out)
        return out

    def finish(self, t: float) -> list[dict[str, Any]]:
        """The end of the frames: rankings whose cards were all seen face up (even if not
        yet still for long) are emitted. Returns the events it adds."""
        out = self._ranks(t, final=True)
        self.events.extend(out)
        return out

    def resume(self, summary: Mapping[str, Any], events: Sequence[Mapping[str, Any]] = ()) -> None:
        """After a restart, follow on from a stored session: ``summary`` its state
        (``State.summary()``), ``events`` its log. The round in play is rebuilt from the
        log (photos, gives, random cards and rankings so far), and the cards of the rounds
        before are no longer followed; where each card lies is learnt again as it is seen,
        and a card given before every photo is seen again waits (``_Round.pending``)."""
        r = _Round(calls_done=[False] * len(self.calls))
        spent: set[str] = set()
        for e in events:
            kind = e.get("type")
            if kind == "reveal":
                r.revealed[str(e.get("player"))] = str(e.get("card"))
            elif kind == "give":
                giver, to, card = str(e.get("from")), str(e.get("to")), str(e.get("card"))
                r.gives.append((giver, to, card))
                i = next(
                    (
                        i
                        for i, c in enumerate(self.calls)
                        if c == (giver, to) and not r.calls_done[i]
                    ),
                    None,
                )
                if i is not None:
                    r.calls_done[i] = True
            elif kind == "random":
                r.randoms[str(e.get("to"))] = str(e.get("card"))
            elif kind == "rank" and isinstance(e.get("order"), list):
                r.ranks[str(e.get("player"))] = [str(c) for c in e["order"]]
                if len(r.ranks) == len(self.players):
                    spent |= r.cards()
                    r = _Round(number=r.number + 1, calls_done=[False] * len(self.calls))
        number = summary.get("round")
        if isinstance(number, int) and number >= 1:
            r.number = number
        self.round = r
        self.spent |= spent

    def prompt(self) -> str | None:
        """What the assistant asks the players now."""
        r = self.round
        missing = [p for p in self.players if p not in r.revealed]
        if missing:
            return f"{missing[0]}: lay your reference photo face up in front of you"
        call = self._next_call()
        if call is not None:
            giver, to = self.calls[call]
            return f"{giver}: give a card face down to {to}"
        waiting = [p for p in self.players if p not in r.randoms]
        if waiting:
            return f"{', '.join(waiting)}: add a random card face down to your stack"
        ranking = [p for p in self.players if p not in r.ranks]
        if ranking:
            return f"{', '.join(ranking)}: lay your stack face up, the closest to your photo first"
        return None

    def overlay(self) -> list[dict[str, Any]]:
        """What to draw over the last frame: each card read with its role, and the prompt."""
        r = self.round
        roles: dict[str, str] = {c: f"{p}'s photo" for p, c in r.revealed.items()}
        roles.update({c: f"{g}->{to}" for g, to, c in r.gives})
        roles.update({c: f"random ({p})" for p, c in r.randoms.items()})
        out: list[dict[str, Any]] = []
        for tr in self.cards.seen_now(self._last_t):
            label = roles.get(tr.card, tr.card)
            corners = self.work.to_frame(tr.corners_px).tolist()
            out.append({"kind": "quad", "corners_px": corners, "label": label})
        text = self.prompt()
        if text:
            out.append({"kind": "text", "xy": [20.0, 30.0], "label": text})
        return out

    # ------------------------------------------------------------------ events
    def _event(self, obj: dict[str, Any], t: float, tr: Track | None) -> dict[str, Any]:
        meta: dict[str, Any] = {}
        if tr is not None:
            meta = {"confidence": round(tr.confidence, 3), "frames": tr.frames}
        return {**obj, "t": round(float(t), 3), "meta": {**meta, **obj.pop("meta", {})}}

    def _settled(self, tr: Track, t: float) -> list[dict[str, Any]]:
        r = self.round
        if tr.card in r.cards():
            # a photo, given or random card seen again (turned over: see _ranks); after a
            # restart, where a stack card lies is learnt again so (only then: otherwise it
            # is where it first settled, as before)
            if tr.face == "down" and tr.card not in r.revealed.values():
                r.stack_px.setdefault(tr.card, tr.centre_px)
            return []
        missing = [p for p in self.players if p not in r.revealed]
        if tr.face == "up":
            if not missing:
                return []  # a ranked card, or a stray card
            player = missing[0]
            r.revealed[player] = tr.card
            r.ref_px[player] = tr.centre_px
            r.ref_metric[player] = table_metric(tr.card, tr.corners_px)
            return [self._event({"type": "reveal", "player": player, "card": tr.card}, t, tr)]
        to = self._receiver(tr.centre_px) if not missing else None
        if to is None:
            # before every photo is out (one under a hand), or by a complete stack: kept and
            # placed once it can be, while it lies there face down
            r.pending.add(tr.card)
            return []
        r.pending.discard(tr.card)
        if self._received(to) >= self._expected:
            r.randoms[to] = tr.card
            r.stack_px[tr.card] = tr.centre_px
            return [self._event({"type": "random", "to": to, "card": tr.card}, t, tr)]
        giver, how = self._giver(to, tr)
        if giver is None:
            return []
        r.gives.append((giver, to, tr.card))
        r.stack_px[tr.card] = tr.centre_px
        ev = {"type": "give", "from": giver, "to": to, "card": tr.card, "meta": {"giver": how}}
        if how in ("guess", "side, not called"):
            ev["meta"]["ask"] = "giver"
        return [self._event(ev, t, tr)]

    def _giver(self, to: str, tr: Track) -> tuple[str | None, str]:
        """Who gave the card that landed by ``to``'s photo, and how that is known: the
        player called ("called"); else, among the players still owing ``to`` a card, the
        one on the side the hand came from ("side"), the only one ("only"), or the first
        ("guess", to be confirmed on the page). A hand clearly from another owing player's
        side than the called one's overrules the call ("side, not called": confirmed on
        the page too)."""
        r = self.round
        owing = [i for i, (g, q) in enumerate(self.calls) if q == to and not r.calls_done[i]]
        if not owing:
            return None, "none"
        givers = list(dict.fromkeys(self.calls[i][0] for i in owing))
        side = self._side_of(tr, givers)
        call = self._next_call()
        if call is not None and self.calls[call][1] == to:
            called = self.calls[call][0]
            giver, how = called, "called"
            if (
                side is not None
                and side[0] != called
                and side[1] <= self.settings.side_gap_deg
                and side[2] >= self.settings.overrule_deg
            ):
                giver, how = side[0], "side, not called"
        elif len(givers) == 1:
            giver, how = givers[0], "only"
        elif (
            side is not None
            and side[1] <= self.settings.side_gap_deg
            and (side[2] >= self.settings.side_margin_deg)
        ):
            giver, how = side[0], "side"
        else:
            giver, how = givers[0], "guess"
        i = next(i for i in owing if self.calls[i][0] == giver)
        r.calls_done[i] = True
        return giver, how

    def _side_of(self, tr: Track, givers: list[str]) -> tuple[str, float, float] | None:
        """The giver whose seat lies on the side the hand came from: (giver, its angle gap,
        the next giver's gap minus it), or None when no arm was seen."""
        side = self.arms.angle_near(tr.still_since, self.settings.arm_window_s, tr.centre_px)
        if side is None:
            return None
        angles = self._seat_angles(tr.centre_px)
        gaps = sorted((angle_gap(side, angles[g]), g) for g in givers)
        lead = gaps[1][0] - gaps[0][0] if len(gaps) > 1 else 180.0
        return gaps[0][1], gaps[0][0], lead

    def _ranks(self, t: float, *, final: bool) -> list[dict[str, Any]]:
        """Each player's ranking once their whole stack lies face up and still (or, with
        ``final``, merely face up). A player whose random card was never read face down
        still ranks: the row shows it face up (``_random_in_row``), and the ``random``
        event comes just before the ``rank``. Other players never wait for them."""
        r = self.round
        out: list[dict[str, Any]] = []
        for p in self.players:
            ref = r.ref_px.get(p)
            if p in r.ranks or ref is None or self._received(p) < self._expected:
                continue
            found: Track | None = None
            if p not in r.randoms:
                found = self._random_in_row(p, final=final)
                if found is None:
                    continue
            stack = self._stack(p) + ([found.card] if found is not None else [])
            tracks = [self.cards.tracks.get(c) for c in stack]
            if any(tr is None or tr.face != "up" for tr in tracks):
                continue
            ready = [tr for tr in tracks if tr is not None]
            if not final and not all(tr.reported for tr in ready):
                continue
            if found is not None:
                r.randoms[p] = found.card
                ev = {"type": "random", "to": p, "card": found.card, "meta": {"seen": "rank row"}}
                out.append(self._event(ev, t, found))
            near_ref = r.ref_metric[p]
            ready.sort(
                key=lambda tr: table_distance(
                    tr.centre_px, ref, table_metric(tr.card, tr.corners_px), near_ref
                )
            )
            order = [tr.card for tr in ready]
            r.ranks[p] = order
            conf = min(tr.confidence for tr in ready)
            frames = min(tr.frames for tr in ready)
            ev = {
                "type": "rank",
                "player": p,
                "order": order,
                "t": round(float(t), 3),
                "meta": {"confidence": round(conf, 3), "frames": frames},
            }
            out.append(ev)
        if len(r.ranks) == len(self.players):
            self.spent |= r.cards()
            for c in r.cards():
                self.cards.tracks.pop(c, None)
            self.round = _Round(number=r.number + 1, calls_done=[False] * len(self.calls))
        return out

    def _random_in_row(self, player: str, *, final: bool) -> Track | None:
        """``player``'s random card as their ranking row shows it: once every card given
        to them lies face up, the one other face-up card of no known role this round (the
        row shows the whole stack face up). None while there is none, or more than one
        (another row, a stray card: which is theirs is not told)."""
        r = self.round
        for c in self._stack(player):
            tr = self.cards.tracks.get(c)
            if tr is None or tr.face != "up" or not (final or tr.reported):
                return None
        known = r.cards()
        unknown = [
            tr
            for tr in self.cards.tracks.values()
            if tr.face == "up" and (final or tr.reported) and tr.card not in known
        ]
        return unknown[0] if len(unknown) == 1 else None

    def _retry_pending(self, t: float) -> list[dict[str, Any]]:
        """Face-down cards that settled before they could be placed (``_Round.pending``),
        placed as soon as they can be while they still lie there face down."""
        r = self.round
        out: list[dict[str, Any]] = []
        waiting = [self.cards.tracks.get(c) for c in r.pending]
        r.pending = set()
        for tr in sorted((tr for tr in waiting if tr is not None), key=lambda tr: tr.still_since):
            if tr.face == "down" and tr.card not in r.cards():
                out.extend(self._settled(tr, t))
        return out

    # ------------------------------------------------------------------ helpers
    def _next_call(self) -> int | None:
        for i, done in enumerate(self.round.calls_done):
            if not done:
                return i
        return None

    def _follow_refs(self) -> None:
        """Photos may be nudged: follow them (place and outline) while their tracks last."""
        r = self.round
        for p, c in r.revealed.items():
            tr = self.cards.tracks.get(c)
            if tr is not None and tr.face == "up":
                r.ref_px[p] = tr.centre_px
                r.ref_metric[p] = table_metric(tr.card, tr.corners_px)

    def _received(self, player: str) -> int:
        return sum(1 for _, q, _ in self.round.gives if q == player)

    def _receiver(self, point_px: tuple[float, float]) -> str | None:
        """Whose stack a face-down card settling at ``point_px`` joins: the player whose
        photo or stack card lies nearest, when they still take a card (gives to come, or
        their random card). A fanned stack grows away from its photo, often nearer a
        neighbour's photo than its own by its last cards, but each card lies close to the
        one before. None when the nearest stack is complete (a stray or misread card)."""
        r = self.round
        if any(p not in r.ref_px for p in r.revealed):
            return None  # a photo not seen since a restart: wait for it (pending)

        def dist(p: str) -> float:
            places = [r.ref_px[p], *(self._stack_place(c) for c in self._stack(p))]
            return min(math.dist(point_px, q) for q in places if q is not None)

        to = min(r.ref_px, key=dist)
        if self._received(to) < self._expected or to not in r.randoms:
            return to
        return None

    def _stack(self, player: str) -> list[str]:
        """``player``'s stack this round: the cards given to them, then their random card."""
        r = self.round
        gives = [c for _, q, c in r.gives if q == player]
        return gives + ([r.randoms[player]] if player in r.randoms else [])

    def _stack_place(self, card: str) -> tuple[float, float] | None:
        """Where a stack card lies: as read now, else where it settled (None: not seen
        since a restart)."""
        tr = self.cards.tracks.get(card)
        if tr is not None and tr.face == "down":
            return tr.centre_px
        return self.round.stack_px.get(card)

    def _seat_angles(self, from_px: tuple[float, float]) -> dict[str, float]:
        """Each player's direction seen from ``from_px``: towards their seat, estimated
        beyond their photo (as far again from the image centre), else spread evenly round
        the view."""
        h, w = self._shape or (720, 1280)
        cx, cy = (w - 1) / 2, (h - 1) / 2
        default = dict(zip(self.players, default_seat_angles(len(self.players)), strict=True))
        out = {}
        for p in self.players:
            ref = self.round.ref_px.get(p)
            if ref is None:
                out[p] = default[p]
                continue
            sx, sy = cx + 2.0 * (ref[0] - cx), cy + 2.0 * (ref[1] - cy)
            out[p] = math.degrees(math.atan2(sy - from_px[1], sx - from_px[0]))
        return out


def other_games_card(card: str) -> bool:
    """Whether ``card`` is a card of the kit that belongs to another game (a Pic Flip cover
    card lying on the table, or a misread): never part of a Pick Pic round. Ids the kit does
    not know (a registered deck's) are not refused here."""
    return is_card_id(card) and get_card(card).game != "pickpic"


def table_metric(card: str, corners_px: NDArray[np.floating]) -> NDArray[np.float64]:
    """(2, 2) float64: the table's metric by a card lying flat, from its outline
    (``corners_px`` (4, 2): TL, TR, BR, BL as printed) and its size: a short step ``d``
    (px) of the image near the card spans ``sqrt(d @ M @ d)`` mm on the table.

    The card's top and left edges (each the mean of two opposite sides) over their length in
    mm are the local map ``A`` (2, 2) from table mm to image px; ``M = inv(A @ A.T)`` does
    not depend on how the card is turned. It holds what a tilted camera does to the table
    (a step away from the camera spans more mm than one across it) and the lens's scale
    there. A card the kit does not know (a registered deck's) is taken to be a kit card:
    only its shape counts for an order, not its scale."""
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    w_mm, h_mm = face_size_wh_mm(card) if is_card_id(card) else CARD_SIZE_WH_MM
    top = (c[1] - c[0] + c[2] - c[3]) / (2.0 * w_mm)
    left = (c[3] - c[0] + c[2] - c[1]) / (2.0 * h_mm)
    a = np.stack([top, left], axis=1)
    return np.asarray(np.linalg.inv(a @ a.T), np.float64)


def table_distance(
    a_px: tuple[float, float],
    b_px: tuple[float, float],
    a_metric: NDArray[np.float64],
    b_metric: NDArray[np.float64],
) -> float:
    """The distance on the table (mm) between two points of the image (px), each by a card
    whose ``table_metric`` is given: the geometric mean of the step's lengths by either
    metric. Along a straight line of the table a pinhole camera's scale (mm per px) is
    ``k / (1 + c u) ** 2`` of the position ``u`` (px) along the line's image, whose integral
    between two points is the step times the geometric mean of the scales there: so the
    measure is exact whatever the camera's tilt, as far as each outline gives the scale at
    its centre. On rendered sessions (lens distortion too) it is within 1.5% over ranking
    rows, where the step over the cards' mean size in the image was off by up to 15% (a
    step away from the camera looks shorter than one across it, while both cards shrink
    alike)."""
    d = np.subtract(b_px, a_px, dtype=np.float64)
    la = float(d @ np.asarray(a_metric, np.float64) @ d)
    lb = float(d @ np.asarray(b_metric, np.float64) @ d)
    return math.sqrt(math.sqrt(max(0.0, la) * max(0.0, lb)))
