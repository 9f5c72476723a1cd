"""Picasso followed from the camera: a turn that scores itself, frames in, docs/formats.md
events out.

``PicassoTurnTracker`` is the stateful part of the Picasso pipeline (the board reader,
``vision.picasso``, is stateless; ``pictable analyze picasso --video`` runs the tracker
alone); ``PicassoFollower`` is the live pipeline's follower of the game: the tracker behind
the follower protocol (``pictable.followers``), with what the assistant asks, what the live
view draws and the resume after a restart. Every threshold is in seconds
(``TurnSettings``), confirmed with ``vision.tracker.stable.Debouncer``:

- **draw**: the builder holds the drawn card up to the camera; its printed code names it
  (``vision.picasso.cardid``). Confirmed after ``card_stable_s``.
- **build**: the board's counts, once the same counts have been read for ``build_stable_s``
  with no hand over the canvas (occluded frames, frames without a board reading and frames
  where the board's region moves restart the wait; the board is not even read then). One
  event per confirmed change; an empty board before anything was built is no build. The
  canvas (as the last reading placed it; the whole frame before that) is watched on a
  blurred 1/8-size grey frame: while it looks as it did at the start of a quiet stretch, the
  board is read at most every ``board_interval_s`` and the last reading stands for the
  frames in between (nothing there changed: the same reading), so the wait is counted on
  every frame; the first reading of a stretch counts from the stretch's start (the board has
  looked so since), but for at least one more reading. A hand moving elsewhere in the frame,
  or beside the canvas, does not hold the board's reading back (a hand over the canvas
  makes the reading occluded). Every piece laid is so a build of its own, as soon as the
  canvas is clear for ``build_stable_s``, whether or not the builder's hand has left the
  view.
- **guess**: the card is shown again, then laid at the guesser's place. The new object on
  the table (the difference with the last still frame before the card was shown again,
  outside the board) is the card, once it has lain in place for ``still_s`` as an object of
  its own (no hand touching it) with nothing moving over it (the arm that laid it may still
  be leaving the view), or the whole table has been still for ``still_s``; the board must be
  clear as last read. The seat whose zone holds it names the guesser.
- **the card shown again before any build was seen** is ambiguous: a word guessed on an
  empty board (worth 10 to the builder by the rulebook), or the drawn card shown once more
  (a session resumed from the start of its video, a builder showing it twice). The board is
  then still followed: a build that settles means the turn goes on (the build is emitted
  and the card must be shown again), and a guess is taken only on an empty board, marked
  ``meta.ask`` so that the players confirm it: seen from a camera, a guess with no build
  is far more likely a missed build than an empty board.
- **a build the reader doubts** (``BoardReading.doubt``: the camera sees the board too
  coarsely to count sticks surely, or a stick measures none of the kit's lengths) is
  emitted marked ``meta.ask``: the players check the pieces counted before it is scored.

Seat zones, in order of preference: the seats of a calibration file (table millimetres,
through play-area markers 0-3 when they are in view); seats laid out round the play area
(``calibration.seats.layout_seats``) when markers 0-3 are in view and the camera is
calibrated; otherwise seats laid out the same way round the **board**, in the board's own
frame (first player at the middle of the board's bottom edge as the camera sees the board,
the others clockwise) - the side of the board the card goes to; and without a board in view,
round the image itself.

Not detected: ``give_up`` (nothing on the table says it), a second draw before a guess.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import layout
from calibration.intrinsics import Intrinsics
from calibration.markers import detect_fiducials
from calibration.planes import PlaneFit, fit_table
from calibration.result import Failure
from calibration.seats import Seat, layout_seats, zone_of
from engine.picasso import PIECE_NAMES
from vision.picasso.cardid import MarkerTable, identify_held_card, kit_marker_table
from vision.picasso.profile import DEFAULT_PROFILE, KitProfile
from vision.picasso.reader import read_board
from vision.picasso.reading import COST, COUNT_KEYS, BoardReading
from vision.sources.guard import check_frame
from vision.tracker import check_players
from vision.tracker.stable import Debouncer


@dataclass(frozen=True)
class TurnSettings:
    """Seconds and thresholds of the turn tracker."""

    build_stable_s: float = 0.5
    #: other counts read for at most this long (s) between two readings that agree do not
    #: restart a build's wait: the board reader misreads a still board now and then (3 short
    #: sticks for 4 in one reading); one reading stands for ``board_interval_s``
    build_glitch_s: float = 0.15
    card_stable_s: float = 0.25
    still_s: float = 0.3
    #: grey levels (of a blurred 1/8-size frame) that count as motion between two frames
    motion_level: int = 14
    #: share of the small frame that may move while the table counts as still
    motion_share: float = 0.002
    #: the board is read at most this often (s): a build is confirmed over
    #: ``build_stable_s`` anyway, and a 30 fps camera need not pay for a reading per frame
    board_interval_s: float = 0.1
    #: a card held up is looked for at most this often (s)
    card_interval_s: float = 0.1
    #: after a restart mid-turn, the drawn card is looked for on the table at most this
    #: often (s), until it is seen shown again
    resumed_look_s: float = 0.5


@dataclass
class _State:
    turn: int = 0
    phase: str = "draw"  # draw -> build -> placing -> (next turn) draw
    card: str | None = None
    built: bool = False
    #: the card was shown again before any build was seen (see the module docstring)
    unbuilt: bool = False
    #: after a restart, the build stored before it, until the board is seen to hold it
    #: again: a recording played again from its start shows the earlier boards first
    recorded: dict[str, int] | None = None
    #: after a restart mid-turn, until the card is seen shown again: it may have been shown
    #: while nothing watched, and lie at the guesser's seat already
    unshown: bool = False
    reference: NDArray[np.uint8] | None = None  # last still frame (1/4 size) while building
    still_since: float | None = None
    last_small: NDArray[np.uint8] | None = None
    last: tuple[NDArray[np.uint8], NDArray[np.uint8], float] | None = None  # last still frame
    #: what moved since the frame before (the 1/8-size frame, bool); None: no frame before
    moving: NDArray[np.bool_] | None = None
    #: the new object lying still on the table while placing: (centre px, since when, the
    #: seat whose zone holds it, looked up once when it began to lie so)
    card_at: tuple[NDArray[np.float64], float, str | None] | None = None


@dataclass
class PicassoTurnTracker:
    """Turns frames of a Picasso game into events (``update``). ``players`` in seating order;
    the first builds first."""

    players: list[str]
    intrinsics: Intrinsics | None = None
    profile: KitProfile = DEFAULT_PROFILE
    settings: TurnSettings = field(default_factory=TurnSettings)
    marker_table: MarkerTable | None = field(default_factory=lambda: kit_marker_table())
    seats: tuple[Seat, ...] = ()  # a calibration file's seats (table mm), if any
    play_area_mm: tuple[float, float] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.players) < 2:
            raise ValueError(f"Picasso needs at least 2 players, got {self.players!r}")
        self._state = _State()
        self._last_fit: PlaneFit | None = None
        self._card_t: float | None = None
        self._card: str | None = None
        self._look_t: float | None = None
        #: the last board reading (for the live view); None before the first
        self.last_reading: BoardReading | None = None
        #: the board's region in the 1/8-size frame: its box (x0, y0, x1, y1) and its pixels
        #: in the box, while the board is known
        self._box: tuple[tuple[int, int, int, int], NDArray[np.bool_]] | None = None
        #: the region's quiet stretch: (its box, its look at the start, the start's time)
        self._quiet: tuple[tuple[int, int, int, int], NDArray[np.uint8], float] | None = None
        #: the last reading of the board in the current quiet stretch: (reading or None,
        #: its time, the stretch's start)
        self._board_read: tuple[BoardReading | None, float, float] | None = None
        #: frames the board reader read (the rest reused a reading, or were not read)
        self.board_reads = 0
        self._fit_t: float | None = None  # the last reading for the board's place alone
        self._builds: Debouncer[tuple[int, ...]] = Debouncer(
            self.settings.build_stable_s, glitch_s=self.settings.build_glitch_s
        )
        self._cards: Debouncer[str] = Debouncer(self.settings.card_stable_s)
        self.events.append({"type": "start", "game": "picasso", "players": list(self.players)})

    @property
    def builder(self) -> str:
        return self.players[self._state.turn % len(self.players)]

    @property
    def phase(self) -> str:
        """Where the turn is: ``draw`` (waiting for the card), ``build`` or ``placing`` (the
        card shown again, waiting for it to be laid at the guesser's seat)."""
        return self._state.phase

    def resume_turn(
        self,
        builder: str,
        card: str | None = None,
        built: bool = False,
        pieces: dict[str, int] | None = None,
    ) -> None:
        """Resume a stored game: ``builder`` builds this turn; ``card`` already drawn (the
        build under way, ``built`` when a build was recorded) or None (waiting for the draw).
        ``pieces``: the last build recorded (its counts), so that the same board seen again
        is not emitted twice. Raises ValueError for a builder who is not a player."""
        if builder not in self.players:
            raise ValueError(f"{builder!r} is not one of the players {self.players!r}")
        self._state = st = _State(turn=self.players.index(builder))
        self._builds.reset()
        if card is not None:
            st.phase, st.card, st.built = "build", card, built or pieces is not None
            st.unshown = True
            if pieces is not None:
                st.recorded = {k: int(pieces.get(k, 0)) for k in COUNT_KEYS}
                self._builds.reset(_counts_key(st.recorded))

    # ------------------------------------------------------------------ per frame
    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        """Feed one frame ((H, W, 3) uint8 BGR) at time ``t`` (s); returns the events it
        confirmed (also appended to ``events``)."""
        check_frame(frame, "frame")
        st = self._state
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        still = self._still(gray, t)
        quiet_since = self._board_quiet(t)
        # A card held up is looked for at most every card_interval_s (the last answer stands
        # in between): it must be seen for card_stable_s anyway.
        if self._card_t is None or t - self._card_t >= self.settings.card_interval_s - 1e-6:
            self._card = identify_held_card(gray, self.marker_table)
            self._card_t = t
        card = self._card
        # The card laid at a seat, lying still with nothing moving over it, the board clear
        # as last read: the guess, which needs no reading of the board in this frame.
        placed = None
        if st.phase == "placing" and card is None:
            placed = self._quiet_card(frame, gray, t)
            known = self.last_reading
            if (
                placed == self.builder
                or known is None
                or known.occluded
                # with no build seen, a guess only on a board seen empty
                or (st.unbuilt and any(known.seen_counts.values()))
            ):
                placed = None
        # The board is read only when it matters and can be trusted: building or placing,
        # no card held up, the board's region quiet (a moving hand may be over it, and a
        # build counts only once it has settled anyway). In a quiet stretch the last reading
        # stands for the frames in between readings.
        board = None
        since: float | None = None  # the first reading of a stretch counts from its start
        s = self.settings
        if placed is None and st.phase != "draw" and card is None and quiet_since is not None:
            last = self._board_read
            fresh = last is None or last[2] != quiet_since
            if last is not None and not fresh and t - last[1] < s.board_interval_s - 1e-6:
                board = last[0]
            else:
                reading = read_board(frame, intrinsics=self.intrinsics, profile=self.profile)
                self.board_reads += 1
                board = reading if isinstance(reading, BoardReading) else None
                self.last_reading = board
                if board is not None and board.fit is not None:
                    self._last_fit = board.fit
                self._board_read = (board, t, quiet_since)
                if fresh:
                    # the board has looked so since the stretch began, but one reading
                    # alone never confirms: another is due before the wait is over
                    since = max(quiet_since, t - s.build_stable_s + s.board_interval_s)
        elif (
            placed is None
            and st.phase != "draw"
            and card is None
            and self._board_fit is None
            and (self._fit_t is None or t - self._fit_t >= self.settings.board_interval_s - 1e-6)
        ):
            # Where the board lies is not known yet (a restart mid-build, a hand in view
            # throughout): read it anyway, for its place only, so that the board's own
            # region is watched from then on.
            self._fit_t = t
            reading = read_board(frame, intrinsics=self.intrinsics, profile=self.profile)
            self.board_reads += 1
            if isinstance(reading, BoardReading) and reading.fit is not None:
                self._last_fit = reading.fit
        out: list[dict[str, Any]] = []
        seen = self._cards.update(card or "", t)
        if seen:  # a card newly confirmed in view
            st.unshown = False
            if st.phase == "draw":
                st.card = seen
                st.phase = "build"
                self._builds.reset()
                out.append({"type": "draw", "player": self.builder, "card": seen, "t": _t(t)})
            elif st.phase == "build" and seen == st.card:
                st.phase = "placing"  # shown again: the word was guessed
                st.unbuilt = not st.built or st.recorded is not None
        building = st.phase == "build" or (st.phase == "placing" and st.unbuilt)
        if building:
            clear = board is not None and not board.occluded and card is None
            counts = board.counts if clear and board is not None else None
            key = None if counts is None else _counts_key(counts)
            if st.recorded is not None and key == _counts_key(st.recorded):
                st.recorded = None  # caught up with the build stored before the restart
                st.unbuilt = False  # so a card shown again since was the guess
                # a recording played again confirmed its earlier boards (cheaper, not
                # emitted) meanwhile: the board stored is the one confirmed, not emitted again
                self._builds.reset(key)
            confirmed = self._builds.update(key, t, blocked=not clear, since=since)
            # An empty board before anything was built is no build.
            if confirmed is not None and counts is not None and (any(counts.values()) or st.built):
                # A board cheaper than the build stored before a restart is an earlier
                # board of a recording played again: stored already.
                if st.recorded is None or _cost(counts) >= _cost(st.recorded):
                    st.recorded = None
                    st.built = True
                    build: dict[str, Any] = {"type": "build", "pieces": dict(counts), "t": _t(t)}
                    if board is not None and board.doubt:
                        # the reader doubts its counts (a coarse view): the players check them
                        build["meta"] = {"ask": board.doubt}
                    out.append(build)
                if st.phase == "placing":
                    # The card shown before anything was built was not the guess: the
                    # build goes on, and the card must be shown again.
                    st.phase, st.unbuilt = "build", False
            if st.phase == "build" and clear and still:
                st.reference = _quarter(frame)
        settled = (
            card is None
            and still
            and st.still_since is not None
            and t - st.still_since >= self.settings.still_s - 1e-3
            and board is not None
            and not board.occluded
        )
        pieces_on = board is not None and any(board.seen_counts.values())
        guesser = None
        # With no build seen, a guess only on a board seen empty (pieces on it are a build
        # still to settle).
        if settled and st.phase == "placing" and not (st.unbuilt and pieces_on):
            guesser = self._placed_at(frame, gray)
        elif placed is not None and st.phase == "placing":
            guesser = placed
        elif (
            settled
            and st.phase == "build"
            and st.unshown
            and st.recorded is None  # the board as stored, or more: not a replayed past
            and (st.built or not pieces_on)
            and (self._look_t is None or t - self._look_t >= self.settings.resumed_look_s - 1e-6)
        ):
            self._look_t = t
            guesser = self._card_seat(frame, gray)
        if guesser is not None:
            out.append(self._guess(guesser, t))
        st.last = (frame, gray, t) if (still and card is None) else None
        self.events.extend(out)
        return out

    def finish(self) -> list[dict[str, Any]]:
        """The end of the frames: a card laid down just before the recording stopped (the
        table still in the last frame, no card held up) still names the guesser. Returns
        the events it adds."""
        st = self._state
        out: list[dict[str, Any]] = []
        if st.phase == "placing" and st.last is not None:
            frame, gray, t = st.last
            guesser = self._placed_at(frame, gray)
            if guesser is not None:
                out.append(self._guess(guesser, t))
        self.events.extend(out)
        return out

    def _guess(self, guesser: str, t: float) -> dict[str, Any]:
        """The guess event, and the next turn. A guess with no build seen this turn asks the
        players to confirm it (``meta.ask``)."""
        st = self._state
        event: dict[str, Any] = {"type": "guess", "player": guesser, "t": _t(t)}
        if st.unbuilt or not st.built:
            event["meta"] = {"ask": "no build seen"}
        st.turn += 1
        st.phase = "draw"
        st.card = None
        st.built = st.unbuilt = st.unshown = False
        st.recorded = None
        st.reference = None
        st.card_at = None
        return event

    # ------------------------------------------------------------------ helpers
    def _board_quiet(self, t: float) -> float | None:
        """Since when the canvas (``_region_box``) has looked as it does now (s), or None
        when it changed in this frame: it changed when over ``motion_share`` of it differs
        by more than ``motion_level`` from the stretch's first frame."""
        small = self._state.last_small
        assert small is not None
        box, inside = self._region_box(small.shape)
        x0, y0, x1, y1 = box
        region = small[y0:y1, x0:x1]
        q = self._quiet
        if q is not None and q[0] == box and q[1].shape == region.shape:
            changed = cv2.absdiff(region, q[1]) > self.settings.motion_level
            if float(changed[inside].mean()) <= self.settings.motion_share:
                return q[2]
        self._quiet = (box, region.copy(), t)
        return None

    def _region_box(
        self, shape: tuple[int, ...]
    ) -> tuple[tuple[int, int, int, int], NDArray[np.bool_]]:
        """The canvas as the last reading placed it in the 1/8-size frame of ``shape``: its
        box (x0, y0, x1, y1) and its pixels in the box ((y1 - y0, x1 - x0) bool); the whole
        frame before the board was read. A box within 2 px of the last one stays the last
        one (a reading's fit moves a little)."""
        h, w = int(shape[0]), int(shape[1])
        whole = ((0, 0, w, h), np.ones((h, w), bool))
        fit = self._board_fit
        if fit is None:
            return whole
        bw, bh = fit.size_mm
        canvas = np.array([[0.0, 0.0], [bw, 0.0], [bw, bh], [0.0, bh]], np.float64)
        px = fit.to_px(canvas) / 8.0
        x0, y0 = (int(max(0, np.floor(v))) for v in px.min(axis=0))
        x1 = int(min(w, np.ceil(px[:, 0].max()) + 1))
        y1 = int(min(h, np.ceil(px[:, 1].max()) + 1))
        if x1 - x0 < 2 or y1 - y0 < 2:
            return whole
        box = (x0, y0, x1, y1)
        old = self._box
        if old is not None and max(abs(a - b) for a, b in zip(old[0], box, strict=True)) <= 2:
            return old
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round(px - [x0, y0]).astype(np.int32), 1)
        if not mask.any():
            return whole
        self._box = (box, mask.astype(bool))
        return self._box

    def _still(self, gray: NDArray[np.uint8], t: float) -> bool:
        st = self._state
        small = cv2.GaussianBlur(
            cv2.resize(
                gray, (gray.shape[1] // 8, gray.shape[0] // 8), interpolation=cv2.INTER_AREA
            ),
            (3, 3),
            0,
        )
        moving = 1.0
        st.moving = None
        if st.last_small is not None and st.last_small.shape == small.shape:
            st.moving = cv2.absdiff(small, st.last_small) > self.settings.motion_level
            moving = float(st.moving.mean())
        st.last_small = small
        still = moving <= self.settings.motion_share
        if still and st.still_since is None:
            st.still_since = t
        elif not still:
            st.still_since = None
        return still

    def _placed_at(self, frame: NDArray[np.uint8], gray: NDArray[np.uint8]) -> str | None:
        """The player at whose place the handed card lies, or None if no card is found."""
        st = self._state
        if st.reference is None:
            # No still view of the table from before (a restart with the card in hand):
            # the card itself, found on the table by its printed codes.
            return self._card_seat(frame, gray)
        objects = self._new_objects(frame)
        if not objects:
            return None
        seat = self._seat_at(gray, objects[0][1])
        if seat is None or seat == self.builder:
            return None
        return seat

    def _quiet_card(
        self, frame: NDArray[np.uint8], gray: NDArray[np.uint8], t: float
    ) -> str | None:
        """The largest new object on the table (``_new_objects``: an object of its own, so no
        hand touches it) with nothing moving within its box in this frame (the arm that laid
        it, moving away, is not it), once it has lain within a quarter of a card's width of
        where it was for ``still_s``: the seat whose zone holds it (looked up when it began to
        lie so); None until then, when no seat holds it, or with no still view of the table
        from before."""
        st = self._state
        objects = self._new_objects(frame) if st.reference is not None else []
        moving = st.moving
        card_px = 63.0 * self._px_per_mm_image
        found = None
        if moving is not None:
            h, w = moving.shape
            for _, centre, (x, y, bw, bh) in objects:
                # the 1/8-size cells wholly inside the box: an arm moving away beside the
                # card (not touching it, or it would be part of the object) is no motion
                # over it
                x0, y0 = max(0, -(-x // 2)), max(0, -(-y // 2))
                x1, y1 = min(w, (x + bw) // 2), min(h, (y + bh) // 2)
                if x1 <= x0 or y1 <= y0:
                    x0, y0, x1, y1 = x // 2, y // 2, (x + bw + 1) // 2, (y + bh + 1) // 2
                if not moving[y0:y1, x0:x1].any():
                    found = centre
                    break
        if found is None:
            st.card_at = None
            return None
        if st.card_at is None or float(np.hypot(*(found - st.card_at[0]))) > card_px / 4.0:
            st.card_at = (found, t, self._seat_at(gray, found))
        if t - st.card_at[1] >= self.settings.still_s - 1e-3:
            return st.card_at[2]
        return None

    def _new_objects(
        self, frame: NDArray[np.uint8]
    ) -> list[tuple[int, NDArray[np.float64], tuple[int, int, int, int]]]:
        """What is new on the table since the last still view while building
        (``reference``), outside the board and its frame, at least a third of a card:
        (area in 1/4-size px, centre (x, y) in px, box (x, y, w, h) in 1/4-size px),
        largest first."""
        st = self._state
        assert st.reference is not None
        small = _quarter(frame)
        diff = cv2.absdiff(
            cv2.GaussianBlur(small, (5, 5), 0), cv2.GaussianBlur(st.reference, (5, 5), 0)
        )
        mask = (diff.max(axis=2) > 20).astype(np.uint8)
        fit = self._board_fit
        if fit is not None:
            # the board itself (and its frame) is not where cards are handed
            pad = BOARD_MARGIN_MM
            w, h = fit.size_mm
            ring = np.array([[-pad, -pad], [w + pad, -pad], [w + pad, h + pad], [-pad, h + pad]])
            poly = fit.to_px(ring) / 4.0
            cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 0)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, _, stats, cents = cv2.connectedComponentsWithStats(mask, 8)
        # a card is 63 x 88 mm: at least a third of it must show
        min_px = 0.33 * 63 * 88 * (self._px_per_mm_image / 4.0) ** 2
        out = []
        for i in range(1, n):
            area = int(stats[i, cv2.CC_STAT_AREA])
            if area >= min_px:
                x, y, w, h = (int(v) for v in stats[i, :4])
                out.append((area, np.asarray(cents[i], np.float64) * 4.0 + 1.5, (x, y, w, h)))
        # the largest first; of equal areas, the first found (as argmax took it)
        out.sort(key=lambda o: -o[0])
        return out

    def _card_seat(self, frame: NDArray[np.uint8], gray: NDArray[np.uint8]) -> str | None:
        """The seat where the drawn card lies, found by its codes outside the board; None
        when it is not found there or lies at the builder's seat."""
        st = self._state
        if st.card is None:
            return None
        from vision.identify import identify_frame

        fit = self._board_fit
        for reading in identify_frame(frame, game="picasso").cards:
            # a code alone, with no card round it (a sticker, a phone), is no card laid
            if reading.card != st.card or reading.confidence < CARD_ON_TABLE_CONFIDENCE:
                continue
            centre_px = np.asarray(reading.corners_px, np.float64).mean(axis=0)
            if fit is not None:
                x, y = fit.to_mm(centre_px.reshape(1, 2))[0]
                w, h = fit.size_mm
                m = BOARD_MARGIN_MM
                if -m <= x <= w + m and -m <= y <= h + m:
                    return None  # on the board or its frame: not handed to anyone
            seat = self._seat_at(gray, centre_px)
            return None if seat == self.builder else seat
        return None

    @property
    def _board_fit(self) -> PlaneFit | None:
        return self._last_fit

    @property
    def _px_per_mm_image(self) -> float:
        fit = self._board_fit
        if fit is None:
            return 1.0
        w, h = fit.size_mm
        c = fit.to_px(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))
        area = abs(cv2.contourArea(c.astype(np.float32)))
        return float(np.sqrt(area / (w * h)))

    def _seat_at(self, gray: NDArray[np.uint8], point_px: NDArray[np.float64]) -> str | None:
        markers = detect_fiducials(gray, wanted=layout.PLAY_AREA_MARKERS)
        if len(markers) == 4 and (self.intrinsics is not None or self.play_area_mm is not None):
            table = fit_table(markers, self.intrinsics, self.play_area_mm)
            if not isinstance(table, Failure):
                seats = self.seats or layout_seats(self.players, table.size_mm)
                p = table.to_mm(point_px.reshape(1, 2))[0]
                hit = zone_of(seats, (float(p[0]), float(p[1])))
                return hit.name if hit is not None else None
        fit = self._board_fit
        if fit is not None:
            p = fit.to_mm(point_px.reshape(1, 2))[0]
            seats = layout_seats(self.players, fit.size_mm, margin_mm=5000.0)
            hit = zone_of(seats, (float(p[0]), float(p[1])))
            return hit.name if hit is not None else None
        h, w = gray.shape
        seats = layout_seats(self.players, (float(w), float(h)), margin_mm=5000.0)
        hit = zone_of(seats, (float(point_px[0]), float(point_px[1])))
        return hit.name if hit is not None else None


class PicassoFollower:
    """The live pipeline's follower of Picasso (draw, build, guess): ``PicassoTurnTracker``
    behind the follower protocol (``pictable.followers``). ``calibration``: a calibration
    file's path (its lens, seats and play area), or None; ``deck`` is not used (cards are
    named by their printed codes)."""

    game = "picasso"

    def __init__(
        self, players: Sequence[str], *, calibration: Any = None, deck: Any = None
    ) -> None:
        self.players = check_players(players, self.game)
        kwargs: dict[str, Any] = {}
        if calibration is not None:
            from calibration.files import load

            cal = load(str(calibration))
            kwargs["intrinsics"] = cal.intrinsics
            kwargs["seats"] = tuple(cal.seats)
            kwargs["play_area_mm"] = cal.play_area_mm
        self.tracker = PicassoTurnTracker(list(self.players), **kwargs)

    @property
    def reads(self) -> int:
        """Frames the board reader read (the others reused the last reading, or needed none)."""
        return self.tracker.board_reads

    def start_event(self) -> dict[str, Any]:
        return {"type": "start", "game": "picasso", "players": list(self.players)}

    def update(self, frame: NDArray[np.uint8], t: float) -> list[dict[str, Any]]:
        return self.tracker.update(frame, t)

    def finish(self, t: float) -> list[dict[str, Any]]:
        return self.tracker.finish()

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


def _quarter(frame: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """The frame at a quarter of its size (colour), for comparing the table over time."""
    return np.asarray(
        cv2.resize(frame, (frame.shape[1] // 4, frame.shape[0] // 4), interpolation=cv2.INTER_AREA),
        np.uint8,
    )


BOARD_MARGIN_MM = 40.0
"""Round the canvas, the board's frame and markers: no card is handed to anyone there."""

CARD_ON_TABLE_CONFIDENCE = 0.5
"""The least confidence of a reading of the drawn card found on the table (the card
trackers' own threshold)."""


def _cost(counts: dict[str, int]) -> int:
    return sum(COST[k] * int(counts.get(k, 0)) for k in COUNT_KEYS)


def _counts_key(counts: dict[str, int]) -> tuple[int, ...]:
    """A board's counts as the build debouncer compares them (pieces in name order)."""
    return tuple(int(counts.get(k, 0)) for k in sorted(COUNT_KEYS))


def _t(t: float) -> float:
    return round(float(t), 3)
