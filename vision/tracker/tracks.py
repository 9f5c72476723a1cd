"""The card tracks and the arms shared by the followers of every card game (every threshold
in seconds or pixels).

- ``SettledCards`` keeps one track per card id read by the stateless card reader and says
  when a card has *settled*: read in at least two frames spanning ``settle_s`` seconds
  without moving more than ``move_px`` and with the same face. A card carried in by a hand
  moves and does not settle; a card hidden for a while (a hand over it) keeps its track
  for ``forget_s`` and does not settle again unless it moved or turned over meanwhile.
  The Pick Pic and Pic Flip followers count a card laid once it has settled.
- ``CardTracker`` follows cards by their presence instead: a card appears once it has been
  seen for ``appear_s``; it stays while it is seen, and while it is hidden by a hand (its
  last place is covered) or was seen less than ``forget_s`` ago, so that a card briefly
  hidden is the same card, not a new one. A card reported with a confidence under
  ``enter_conf`` does not start a track; once tracked, sightings down to ``keep_conf`` keep
  it (hysteresis). Its thresholds are the confidences the card reader is tuned against.
- ``ArmSides`` keeps, frame by frame, the region that differs from the still table (an arm
  reaching in or withdrawing); ``angle_near(t, before_s, from_px)`` is the direction from
  where a card was laid along the arm seen nearest in time: the side the hand came from.
- ``read_cards`` and ``reader_inputs``: the glue to the stateless card reader
  (``vision.identify.identify_frame``), one frame's cards as ``SettledCards`` takes them.
- ``StillFrames`` says when a frame may reuse the last reading instead of running the
  reader: nothing in it differs from the frame last read, and that reading is recent (the
  same pixels give the same reading; a follower reads at a lower rate while nothing moves).
- ``WorkingFrame`` shrinks a frame larger than ``WORK_WH`` (1920x1080) to it before the card
  reader and the tracks see it, and maps points back to the frame's pixels.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import identify_frame


@dataclass
class Track:
    """One card followed over frames. ``corners_px`` (4, 2) float32 as last read."""

    card: str
    face: str
    corners_px: NDArray[np.float32]
    anchor_px: tuple[float, float]
    still_since: float
    last_seen: float
    confidence: float
    frames: int = 1
    reported: bool = False

    @property
    def centre_px(self) -> tuple[float, float]:
        c = self.corners_px.reshape(4, 2).mean(axis=0)
        return float(c[0]), float(c[1])


@dataclass
class SettledCards:
    """Card tracks and their settling (see the module docstring)."""

    settle_s: float = 0.25
    move_px: float = 8.0
    forget_s: float = 1.5
    tracks: dict[str, Track] = field(default_factory=dict)

    def update(
        self, readings: list[tuple[str, str, NDArray[np.float32], float]], t: float
    ) -> list[Track]:
        """Feeds one frame's readings ``(card, face, corners_px, confidence)`` at ``t`` s.
        Returns the tracks that settled in this frame."""
        settled: list[Track] = []
        seen: set[str] = set()
        for card, face, corners, conf in readings:
            if card in seen:
                continue
            seen.add(card)
            c = np.asarray(corners, np.float32).reshape(4, 2)
            centre = (float(c[:, 0].mean()), float(c[:, 1].mean()))
            tr = self.tracks.get(card)
            if tr is None:
                tr = Track(card, face, c, centre, t, t, conf)
                self.tracks[card] = tr
            else:
                moved = math.dist(centre, tr.anchor_px) > self.move_px
                if moved or face != tr.face:
                    tr.anchor_px, tr.still_since, tr.frames = centre, t, 0
                    tr.reported = False
                tr.face, tr.corners_px, tr.last_seen = face, c, t
                tr.confidence = max(conf, 0.8 * tr.confidence + 0.2 * conf)
                tr.frames += 1
            if not tr.reported and tr.frames >= 2 and t - tr.still_since >= self.settle_s - 1e-6:
                tr.reported = True
                settled.append(tr)
        for card, tr in list(self.tracks.items()):
            if card not in seen and t - tr.last_seen > self.forget_s:
                del self.tracks[card]
        return settled

    def seen_now(self, t: float) -> list[Track]:
        """Tracks read in the frame at ``t``."""
        return [tr for tr in self.tracks.values() if tr.last_seen == t]


@dataclass(frozen=True)
class Sighting:
    """One card seen in one frame: id, corners (4, 2) float32 px, face "up"/"down", the
    reader's confidence in [0, 1], and the seat zone it lies in (or None)."""

    card: str
    corners_px: NDArray[np.float32]
    face: str = "up"
    confidence: float = 1.0
    zone: str | None = None


@dataclass
class CardTrack:
    """One card followed by ``CardTracker``. ``corners_px`` (4, 2) float32 as last seen."""

    card: str
    first_seen: float
    last_seen: float
    corners_px: NDArray[np.float32]
    face: str
    zone: str | None
    frames: int = 1
    confirmed: bool = False
    confirmed_at: float | None = None

    @property
    def centre_px(self) -> tuple[float, float]:
        c = self.corners_px.reshape(4, 2).mean(axis=0)
        return float(c[0]), float(c[1])


@dataclass
class CardTracker:
    """Cards followed by their presence (see the module docstring)."""

    appear_s: float = 0.4
    forget_s: float = 1.5
    gap_s: float = 0.3  # a card not yet confirmed may be missed this long
    enter_conf: float = 0.6
    keep_conf: float = 0.4
    tracks: dict[str, CardTrack] = field(default_factory=dict)

    def update(
        self,
        sightings: Iterable[Sighting],
        t: float,
        occluded: Callable[[tuple[float, float]], bool] | None = None,
    ) -> tuple[list[CardTrack], list[CardTrack]]:
        """Feeds one frame's sightings at time ``t`` seconds. ``occluded(point_px)`` says
        whether a point is under a hand in this frame. Returns (tracks confirmed in this
        frame, tracks dropped in this frame)."""
        appeared: list[CardTrack] = []
        seen: set[str] = set()
        for s in sightings:
            track = self.tracks.get(s.card)
            threshold = self.keep_conf if track is not None else self.enter_conf
            if s.confidence < threshold or s.card in seen:
                continue
            seen.add(s.card)
            if track is None:
                track = CardTrack(s.card, t, t, s.corners_px, s.face, s.zone)
                self.tracks[s.card] = track
            else:
                track.last_seen = t
                track.corners_px = s.corners_px
                track.face = s.face
                track.zone = s.zone
                track.frames += 1
            if not track.confirmed and t - track.first_seen >= self.appear_s:
                track.confirmed = True
                track.confirmed_at = t
                appeared.append(track)
        dropped: list[CardTrack] = []
        for card, track in list(self.tracks.items()):
            if card in seen:
                continue
            hidden = occluded is not None and occluded(track.centre_px)
            if hidden:
                continue  # under a hand: keep it where it was
            limit = self.forget_s if track.confirmed else self.gap_s
            if t - track.last_seen > limit:
                del self.tracks[card]
                if track.confirmed:
                    dropped.append(track)
        return appeared, dropped

    def present(self) -> list[CardTrack]:
        return [tr for tr in self.tracks.values() if tr.confirmed]


@dataclass
class ArmSides:
    """Arms reaching over the table, frame by frame (see the module docstring).

    An arm is what differs from the table as it last lay still (a blurred 1/8-size grey
    colour frame, renewed whenever nothing moves between two frames): an arm sliding along its own
    length barely changes between frames, but differs from the table all along. The
    ``max_regions`` largest such regions of each frame are kept (a few hundred points
    each) for ``keep_s`` seconds. ``level``: grey levels that count as a difference; ``min_share``:
    share of the small frame a region must cover."""

    level: int = 10
    min_share: float = 0.004
    still_share: float = 0.0005
    keep_s: float = 6.0
    max_points: int = 300
    max_regions: int = 3
    #: an arm's far end lies at least this far from the card it laid (a card is ~100 px)
    reach_px: float = 150.0
    history: deque[tuple[float, NDArray[np.float32], float]] = field(default_factory=deque)
    moving_share: float = 1.0
    _last: NDArray[np.uint8] | None = field(default=None, repr=False)
    _table: NDArray[np.uint8] | None = field(default=None, repr=False)

    def update(self, image: NDArray[np.uint8], t: float) -> bool:
        """Feeds a frame ((H, W, 3) uint8 BGR, or (H, W) grey) at ``t`` s; True when an arm
        region was kept. Colour counts: a dark arm on a dark table differs in hue."""
        h, w = image.shape[:2]
        small = cv2.GaussianBlur(
            cv2.resize(image, (w // 8, h // 8), interpolation=cv2.INTER_AREA), (3, 3), 0
        )
        last, self._last = self._last, small
        while self.history and t - self.history[0][0] > self.keep_s:
            self.history.popleft()
        if last is None or last.shape != small.shape or self._table is None:
            self.moving_share = 1.0
            self._table = small
            return False
        self.moving_share = float((_diff(small, last) > self.level).mean())
        if self.moving_share <= self.still_share:
            self._table = small
            return False
        mask = (_diff(small, self._table) > self.level).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        _, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA]
        kept = False
        # a few largest regions: an arm, but also the card it just laid, which differs from
        # the table too (``angle_near`` tells them apart by their reach)
        for i in 1 + np.argsort(areas)[::-1][: self.max_regions]:
            area = int(stats[i, cv2.CC_STAT_AREA])
            if area < self.min_share * small.size:
                break
            ys, xs = np.nonzero(labels == i)
            step = max(1, len(xs) // self.max_points)
            pts = np.stack([xs[::step], ys[::step]], 1).astype(np.float32) * 8.0 + 3.5
            self.history.append((t, pts, float(area)))
            kept = True
        return kept

    @property
    def small(self) -> NDArray[np.uint8] | None:
        """The last frame fed, blurred at 1/8 size ((h, w, 3) uint8, or (h, w) for grey);
        None before the first."""
        return self._last

    def add(self, t: float, points_px: NDArray[np.float32], area: float = 1.0) -> None:
        """Records an arm region by hand (``points_px`` (N, 2) float32), for tests and for
        arms found another way."""
        self.history.append((t, np.asarray(points_px, np.float32).reshape(-1, 2), area))

    def angle_near(
        self, t_ref: float, before_s: float, from_px: tuple[float, float], tau_s: float = 0.5
    ) -> float | None:
        """The direction (deg, y down) from ``from_px`` (where the card was laid) along the
        arm seen nearest in time to ``t_ref`` (from ``before_s`` seconds before it to now).
        Each frame's region reaching at least ``reach_px`` from ``from_px`` gives the
        direction of the middle of its points lying at least half that far (clear of the
        card), weighing its size times exp(-|dt| / tau_s); the heaviest direction and those
        within 45 degrees of it are averaged. None when no arm was seen."""
        p = np.asarray(from_px, np.float32)
        dirs: list[tuple[float, float]] = []
        for t, pts, area in self.history:
            if t < t_ref - before_s:
                continue
            d = pts - p
            dist = np.hypot(d[:, 0], d[:, 1])
            if float(dist.max()) < self.reach_px:
                continue  # the new card itself, or a hand over it: no side
            # the middle of what lies clear of the card: along the arm, whatever its width
            mid = d[dist >= self.reach_px / 2].mean(axis=0)
            ang = math.degrees(math.atan2(float(mid[1]), float(mid[0])))
            dirs.append((ang, area * math.exp(-abs(t - t_ref) / tau_s)))
        if not dirs:
            return None
        lead = max(dirs, key=lambda d: d[1])[0]
        near = [(a, w) for a, w in dirs if angle_gap(a, lead) <= 45.0]
        x = sum(w * math.cos(math.radians(a)) for a, w in near)
        y = sum(w * math.sin(math.radians(a)) for a, w in near)
        return math.degrees(math.atan2(y, x))


@dataclass
class StillFrames:
    """Whether a frame may reuse the last reading of a stateless reader (``unchanged``):
    nothing in it differs from the frame last read (``read``) on a small blurred copy (at
    most ``share`` of it by more than ``level`` grey levels, the largest over the colour
    channels), and that reading is less than ``max_age_s`` old. The reader need not run
    then: the same pixels give the same reading. A follower whose stability wait is
    ``max_age_s`` long still confirms on a frame that was read: the reading that starts the
    wait and the one that ends it are both real. ``reads``: the frames read so far."""

    level: int = 14
    share: float = 0.002
    max_age_s: float = 0.25
    reads: int = 0
    _ref: NDArray[np.uint8] | None = field(default=None, repr=False)
    _t: float | None = field(default=None, repr=False)

    def unchanged(self, small: NDArray[np.uint8] | None, t: float) -> bool:
        """Whether ``small`` (a blurred small copy of the frame at ``t`` s, as ``read`` was
        given) shows what the frame last read showed, that reading being recent enough."""
        ref = self._ref
        if small is None or ref is None or self._t is None or ref.shape != small.shape:
            return False
        if t - self._t >= self.max_age_s - 1e-6:
            return False
        return float((_diff(small, ref) > self.level).mean()) <= self.share

    def read(self, small: NDArray[np.uint8] | None, t: float) -> None:
        """The frame at ``t`` (its small copy ``small``) was read."""
        self._ref, self._t = small, t
        self.reads += 1


WORK_WH = (1280, 720)
"""The largest frame (width, height px) the card followers read: their thresholds in pixels
were set at this size, and the card reader is measured at it."""


class WorkingFrame:
    """A frame larger than ``WORK_WH`` shrunk to fit it (``shrink``, area-averaged: the same
    view as a 1280x720 camera gives it), so that a 1920x1080 frame costs the card reader and
    the tracks what a 1280x720 one does and their pixel thresholds keep their meaning; points
    of the shrunk frame are mapped back to the frame's pixels by ``to_frame`` (the live view
    draws on the frame). ``calibration`` (a ``CalibrationFile`` or None) is given to the
    reader with its lens scaled as the frame is (``reader_calibration``). A frame no larger
    than ``WORK_WH`` is used as it is."""

    def __init__(self, calibration: Any = None) -> None:
        self.calibration = calibration
        self.scale_xy = (1.0, 1.0)
        self._scaled: tuple[tuple[float, float], Any] | None = None

    def shrink(self, frame: NDArray[np.uint8], *, quick: bool = False) -> NDArray[np.uint8]:
        """``frame`` ((H, W, 3) uint8), or a copy shrunk to fit ``WORK_WH``: area-averaged
        for a reader; ``quick``, interpolated (a fifth of the time at 1920x1080) for what
        looks at a blurred 1/8-size copy only (motion, arms)."""
        h, w = frame.shape[:2]
        f = max(w / WORK_WH[0], h / WORK_WH[1])
        if f <= 1.0:
            self.scale_xy = (1.0, 1.0)
            return frame
        size = (max(1, round(w / f)), max(1, round(h / f)))
        self.scale_xy = (w / size[0], h / size[1])
        how = cv2.INTER_LINEAR if quick else cv2.INTER_AREA
        return np.asarray(cv2.resize(frame, size, interpolation=how), np.uint8)

    def to_frame(self, points_px: NDArray[np.floating]) -> NDArray[np.float64]:
        """(N, 2) points of the last shrunk frame (pixel centres at integers) in the
        frame's pixels."""
        sx, sy = self.scale_xy
        p = np.asarray(points_px, np.float64).reshape(-1, 2)
        return np.stack([(p[:, 0] + 0.5) * sx - 0.5, (p[:, 1] + 0.5) * sy - 0.5], axis=1)

    def reader_calibration(self) -> Any:
        """The calibration for the last frame shrunk: its lens (``Intrinsics``) scaled by
        the same factors; as given when the frame was not shrunk or it has no lens."""
        cal = self.calibration
        intr = getattr(cal, "intrinsics", None)
        if intr is None or self.scale_xy == (1.0, 1.0):
            return cal
        if self._scaled is None or self._scaled[0] != self.scale_xy:
            sx, sy = self.scale_xy
            w, h = intr.image_size
            lens = intr.scaled_to((max(1, round(w / sx)), max(1, round(h / sy))))
            self._scaled = (self.scale_xy, dataclasses.replace(cal, intrinsics=lens))
        return self._scaled[1]


def _diff(a: NDArray[np.uint8], b: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Per-pixel difference of two small frames: the largest over the colour channels."""
    d = cv2.absdiff(a, b)
    return np.asarray(d.max(axis=2) if d.ndim == 3 else d, np.uint8)


def angle_gap(a_deg: float, b_deg: float) -> float:
    """The absolute difference of two angles, degrees in [0, 180]."""
    return abs((a_deg - b_deg + 180.0) % 360.0 - 180.0)


def default_seat_angles(n: int) -> list[float]:
    """Image angles (deg, y down, from the image centre) of ``n`` seats spread evenly round
    the view, the first at the bottom and the others clockwise (docs/formats.md 1)."""
    return [(90.0 + 360.0 * i / n) % 360.0 for i in range(n)]


def reader_inputs(calibration: Any, deck: Any) -> tuple[Any, Any]:
    """The card reader's ``calibration`` and ``deck`` from what the live pipeline passes: a
    calibration file's path (or a loaded ``CalibrationFile``, or None) and a deck's name (or
    a ``ReferenceDeck``, or None)."""
    if isinstance(calibration, (str, os.PathLike)):
        from calibration.files import load

        calibration = load(os.fspath(calibration))
    if isinstance(deck, str):
        from vision.identify import open_deck

        deck = open_deck(deck)
    return calibration, deck


def read_cards(
    frame: NDArray[np.uint8],
    deck: Any,
    calibration: Any,
    min_confidence: float,
    keep: Callable[[str], bool] = lambda card: True,
    game: str | None = None,
) -> list[tuple[str, str, NDArray[np.float32], float]]:
    """One frame's cards as ``SettledCards.update`` takes them, ``(card, face, corners_px,
    confidence)``: read by the stateless card reader (printed codes, and the pictures of
    ``deck`` when one is given; ``game``: the game played, whose cards alone can be on the
    table), those under ``min_confidence`` or not ``keep`` left out."""
    result = identify_frame(
        frame, deck, codes="fast", features=deck is not None, calibration=calibration, game=game
    )
    return [
        (c.card, c.face, c.corners_px, float(c.confidence))
        for c in result.cards
        if c.confidence >= min_confidence and keep(c.card)
    ]


def fit_turn(observed_deg: list[float], seats_deg: list[float], max_deg: float = 45.0) -> float:
    """How far (deg) the seats seem turned in the image, from the directions hands came
    from: the turn minimising the squared gaps of each direction to its nearest turned
    seat, plus the squared turn itself (a prior worth one direction, towards no turn:
    one direction alone moves the seats half-way to it)."""
    if not observed_deg or not seats_deg:
        return 0.0
    best, best_cost = 0.0, math.inf
    for turn in np.arange(-max_deg, max_deg + 0.5, 1.0):
        cost = float(turn) ** 2
        for o in observed_deg:
            cost += min(angle_gap(o, s + float(turn)) for s in seats_deg) ** 2
        if cost < best_cost:
            best, best_cost = float(turn), cost
    return best
