"""Registering many cards at a time: every card of a layout laid under the camera.

:class:`LayoutCapture` is a registration session fed frames (from a camera or a video:
:meth:`LayoutCapture.feed`) or still photos (a folder of phone photos:
:meth:`LayoutCapture.take`). In every frame it finds the cards' outlines
(:func:`vision.identify.quads.find_outlines`, all four sides seen), keeps each card's place
from frame to frame, and once the whole layout has held still for ``needed`` frames it
captures every card of it not taken yet: the face rectified upright (portrait, or landscape
for cards laid that way: :data:`Orientation`), checked (:func:`check_face`: blurred, glare,
too small) and compared by appearance with every card already taken
(:mod:`vision.identify.appearance` descriptors and keypoints, :func:`same_card`), so that
the same physical card laid again in a later layout is not taken twice. Then it waits for the layout
to change: cards taken away and others laid (the table cleared or not), or cards added.

A card whose face looks like a card already taken is *the same card seen again* (nothing
said) when that card was taken at the same place in the same layout (a hand passed over
it, or it was nudged), and a *duplicate* otherwise: skipped with a warning, or taken when
``confirm_duplicate`` (the command's ``--duplicates ask``) says so. The layout number goes
up when the table has been seen clear of cards (a stream) or with every photo.

The frame reading stays stateless (:mod:`vision.identify.laid_cards`: :func:`find_cards`,
:func:`upright`, :func:`check_face`, :func:`same_card`, their thresholds; re-exported here);
the state kept here is the registration session's.

Conventions: frames (H, W, 3) uint8 BGR; corners (4, 2) float pixels, TL, TR, BR, BL of the
face as taken (pixel centres at integers); faces (H, W, 3) uint8 BGR.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, local, quads
from vision.identify.laid_cards import (
    BLUR_MIN,
    DETECT_LONG_PX,
    FACE_WH,
    GLARE_MAX,
    ORIENTATIONS,
    PHOTO_LONG_PX,
    SAME_COS,
    SAME_COS_INLIERS,
    SAME_INLIERS,
    SMALL_PX,
    FaceCheck,
    Orientation,
    WarningKind,
    cells_looks,
    check_face,
    face_descriptors,
    face_keypoints,
    face_looks,
    find_cards,
    fit_inliers,
    likeness,
    looks_likeness,
    same_card,
    short_side_px,
    upright,
)

#: ``searching`` (no card in view), ``settling`` (cards in view, waiting for the layout to
#: hold still), ``captured`` (cards taken or skipped in this frame), ``waiting`` (every card
#: in view already dealt with: lay the next ones).
LayoutState = Literal["searching", "settling", "captured", "waiting"]

#: A card dealt with whose look (:func:`_quick_look`) has a cosine under this with its look
#: then has been turned over or swapped in place: it is looked at again. On rendered
#: layouts the same card gave 0.988-0.9999 from frame to frame (noise, defocus 0.3 to 1.0
#: px), a Picmix player card turned over 0.76-0.89.
CHANGED_COS = 0.95


@dataclass(frozen=True, eq=False)
class TakenCard:
    """A card taken: ``number`` (1, 2, ... in the order taken), its ``face`` (H, W, 3) uint8
    BGR upright, ``corners_px`` (4, 2) float32 in the frame it was taken from (TL, TR, BR,
    BL of the face as taken), the ``layout`` it was taken in, ``landscape``, its ``check``,
    its appearance ``descriptor`` (D,) float32 (upright), ``duplicate_of`` (the label of the
    card it looks like, when taken all the same), ``flipped_from`` (the number of the card
    taken at the same place in the same layout before it: the other face of a card turned
    over in place) and its ``keypoints`` (:func:`vision.identify.local.table_keypoints`)."""

    number: int
    face: NDArray[np.uint8]
    corners_px: NDArray[np.float32]
    layout: int
    landscape: bool
    check: FaceCheck
    descriptor: NDArray[np.float32]
    duplicate_of: str | None = None
    flipped_from: int | None = None
    keypoints: local.Keypoints | None = field(default=None, repr=False)

    @property
    def warnings(self) -> tuple[WarningKind, ...]:
        return (*self.check.warnings, *(("duplicate",) if self.duplicate_of else ()))


@dataclass(frozen=True, eq=False)
class SkippedCard:
    """A card not taken because it is the same card as ``like`` (a card taken, ``#N``, or a
    card of the deck already, by its id; :func:`same_card`): ``face``, ``corners_px``, the
    ``layout``, and the evidence: the appearance cosine ``similarity`` and the keypoints'
    ``inliers``."""

    face: NDArray[np.uint8]
    corners_px: NDArray[np.float32]
    layout: int
    like: str
    similarity: float
    inliers: int = 0


@dataclass(frozen=True, eq=False)
class LayoutProgress:
    """Where the session is after a frame: ``state`` (:data:`LayoutState`), the ``layout``
    number, ``steady``/``needed`` frames still, the ``outlines`` in view (n, 4, 2) float32 and
    ``marks`` (n,) what each is (``new``: not taken yet; ``taken``; ``skipped``), the cards
    ``taken`` and ``skipped`` in this frame, ``total`` cards taken so far, a one-line
    ``message``."""

    state: LayoutState
    layout: int
    steady: int
    needed: int
    outlines: NDArray[np.float32]
    marks: tuple[str, ...]
    taken: tuple[TakenCard, ...] = ()
    skipped: tuple[SkippedCard, ...] = ()
    total: int = 0
    message: str = ""

    @property
    def fraction(self) -> float:
        """Progress of the layout towards its capture, in [0, 1]."""
        return min(1.0, self.steady / max(1, self.needed))


# ---- the session ---------------------------------------------------------------------------


@dataclass
class _Track:
    """A card's place from frame to frame: its latest corners, the frame since which it has
    held still, the frame it was last seen in, and what has been done with it (``pending``:
    nothing yet; ``taken``: the number of the card taken there; ``skipped``: a duplicate)."""

    corners: NDArray[np.float64]
    since: int
    seen: int
    pending: bool = True
    taken: int | None = None
    skipped: bool = False
    look: NDArray[np.float32] | None = None  # (2, D) when dealt with: upright, turned


def _no_looks() -> NDArray[np.float32]:
    return np.zeros((0, 4, appearance.DESCRIPTOR_DIM), np.float32)


@dataclass
class LayoutCapture:
    """A registration session, fed frames (see the module docstring).

    ``orientation``: :data:`Orientation`; ``aspect``: the cards' short / long side;
    ``needed``: frames the layout must hold still (the command converts its seconds with the
    frame rate); ``clear_frames``: frames the table must be seen clear of cards for the next
    cards to start a new layout (None: ``needed``); ``tolerance_px``: how far a corner may
    move between frames and still count as still; ``grace``: frames a card may go unseen (a
    flicker of its outline) before it counts as taken away; ``face_wh``: the portrait size of
    the faces taken; ``detect_long_px`` and ``photo_long_px``: the long side frames of a
    stream and photos are searched at (:data:`DETECT_LONG_PX`); ``confirm_duplicate``: asked
    (face, the label of the card it looks like, cosine) whether to take a duplicate all the
    same (None: skipped)."""

    orientation: Orientation = "portrait"
    aspect: float = quads.CARD_ASPECT
    needed: int = 8
    clear_frames: int | None = None
    tolerance_px: float = 3.0
    grace: int = 2
    face_wh: tuple[int, int] = FACE_WH
    detect_long_px: int = DETECT_LONG_PX
    photo_long_px: int = PHOTO_LONG_PX
    confirm_duplicate: Callable[[NDArray[np.uint8], str, float], bool] | None = None
    _taken: list[TakenCard] = field(default_factory=list, init=False, repr=False)
    _looks: list[NDArray[np.float32]] = field(default_factory=list, init=False, repr=False)
    _skipped: list[SkippedCard] = field(default_factory=list, init=False, repr=False)
    _known: list[str] = field(default_factory=list, init=False, repr=False)
    _known_looks: NDArray[np.float32] = field(default_factory=_no_looks, init=False, repr=False)
    _known_kp: Callable[[int], local.Keypoints] | None = field(default=None, init=False, repr=False)
    _tracks: list[_Track] = field(default_factory=list, init=False, repr=False)
    _frame: int = field(default=0, init=False, repr=False)
    _changed: int = field(default=0, init=False, repr=False)
    _layout: int = field(default=0, init=False, repr=False)
    _empty: int = field(default=1 << 30, init=False, repr=False)  # frames seen clear

    def __post_init__(self) -> None:
        if self.orientation not in ORIENTATIONS:
            raise ValueError(
                f"orientation must be one of {list(ORIENTATIONS)}, got {self.orientation!r}"
            )
        if self.needed < 1:
            raise ValueError(f"needed must be at least 1 frame, got {self.needed}")

    # -- what has been taken ---------------------------------------------------------------

    @property
    def taken(self) -> tuple[TakenCard, ...]:
        """The cards taken so far, in order."""
        return tuple(self._taken)

    @property
    def skipped(self) -> tuple[SkippedCard, ...]:
        """The duplicates skipped so far."""
        return tuple(self._skipped)

    @property
    def layout(self) -> int:
        """The current layout's number (0 before the first card is seen)."""
        return self._layout

    def know(
        self,
        labels: Sequence[str],
        cells: NDArray[np.float32],
        keypoints: Callable[[int], local.Keypoints],
    ) -> None:
        """Cards registered already (a deck's ids, its (n, 25, 18, 3) Lab ``cells`` and
        ``keypoints(i)`` of card i, as :func:`face_keypoints`: a deck's
        ``table_keypoints``): a card that is one of them is a duplicate. Once per session."""
        cells = np.asarray(cells, np.float32)
        if len(labels) != len(cells):
            raise ValueError(f"{len(labels)} labels for {len(cells)} cards")
        if self._known:
            raise ValueError("the cards registered already are told once")
        self._known = list(labels)
        if len(cells):
            self._known_looks = cells_looks(cells)
        self._known_kp = keypoints

    def discard(self, number: int) -> None:
        """Forget card ``number`` (the user did not want it): it is no longer a card taken,
        and a card like it is not a duplicate of it."""
        keep = [i for i, c in enumerate(self._taken) if c.number != number]
        if len(keep) == len(self._taken):
            raise ValueError(f"no card number {number} taken")
        self._taken = [self._taken[i] for i in keep]
        self._looks = [self._looks[i] for i in keep]
        for t in self._tracks:
            if t.taken == number:
                t.taken = None

    # -- frames ----------------------------------------------------------------------------

    def feed(self, frame: NDArray[np.uint8]) -> LayoutProgress:
        """One frame of a stream ((H, W, 3) uint8 BGR) -> the session's progress."""
        found = find_cards(frame, aspect=self.aspect, detect_long_px=self.detect_long_px)
        self._frame += 1
        n = self._frame
        self._match(found, n)
        self._changed_cards(frame, n)
        if found:
            clear = self.needed if self.clear_frames is None else self.clear_frames
            if self._empty >= clear:  # the first cards after a clear table: a new layout
                self._layout += 1
            self._empty = 0
        else:
            self._empty += 1
        if not self._tracks:
            message = (
                "lay cards face up, apart, in view"
                if not self._taken
                else (f"{len(self._taken)} taken: lay the next cards")
            )
            return self._progress("searching", 0, message)
        still = min(n - max(max(t.since for t in self._tracks), self._changed) + 1, self.needed)
        pending = [t for t in self._tracks if t.pending]
        if not pending:
            return self._progress(
                "waiting", still, "layout done: take the cards away and lay the next ones"
            )
        if still < self.needed or any(t.seen != n for t in self._tracks):
            return self._progress("settling", still, f"hold still {still}/{self.needed}")
        return self._capture(frame, pending)

    def take(self, frame: NDArray[np.uint8]) -> LayoutProgress:
        """A still photo ((H, W, 3) uint8 BGR) of one layout: every card in it taken now (a
        layout of its own)."""
        found = find_cards(frame, aspect=self.aspect, detect_long_px=self.photo_long_px)
        self._frame += 1
        self._layout += 1
        self._changed = self._frame
        self._tracks = [_Track(q, self._frame, self._frame) for q in found]
        self._empty = 1 << 30
        if not self._tracks:
            return self._progress("searching", 0, "no card seen whole in this photo")
        return self._capture(frame, list(self._tracks))

    # -- inside ----------------------------------------------------------------------------

    def _match(self, found: list[NDArray[np.float64]], n: int) -> None:
        """Each outline to the track at its place (nearest centre within half its short
        side), moved tracks restarted, new ones added, tracks unseen for ``grace`` frames
        dropped."""
        pairs = []
        for i, q in enumerate(found):
            reach = 0.5 * short_side_px(q)
            for j, t in enumerate(self._tracks):
                d = float(np.linalg.norm(q.mean(axis=0) - t.corners.mean(axis=0)))
                if d < reach:
                    pairs.append((d, i, j))
        pairs.sort()
        used_q: set[int] = set()
        used_t: set[int] = set()
        for _, i, j in pairs:
            if i in used_q or j in used_t:
                continue
            used_q.add(i)
            used_t.add(j)
            t = self._tracks[j]
            if _moved(found[i], t.corners) > self.tolerance_px:
                t.since, t.pending, t.taken, t.skipped = n, True, None, False
            t.corners, t.seen = found[i], n
        for i, q in enumerate(found):
            if i not in used_q:
                self._tracks.append(_Track(q, n, n))
        kept = [t for t in self._tracks if n - t.seen <= self.grace]
        if len(kept) != len(self._tracks):
            self._changed = n
        self._tracks = kept

    def _changed_cards(self, frame: NDArray[np.uint8], n: int) -> None:
        """Tracks dealt with whose card no longer looks as it did (:data:`CHANGED_COS`: turned
        over, or swapped for another between two frames) are pending again."""
        for t in self._tracks:
            if t.pending or t.look is None or t.seen != n:
                continue
            now = _quick_look(frame, t.corners)[0]
            if float(np.max(t.look @ now)) < CHANGED_COS:
                t.since, t.pending, t.taken, t.skipped, t.look = n, True, None, False, None

    def _capture(self, frame: NDArray[np.uint8], pending: list[_Track]) -> LayoutProgress:
        """Every pending track of a still layout taken, skipped, or known as taken already
        (in reading order: rows of cards from the top, each from the left)."""
        row = max(1.0, float(np.median([short_side_px(t.corners) for t in pending])) / self.aspect)
        pending = sorted(
            pending,
            key=lambda t: (round(t.corners.mean(axis=0)[1] / row), t.corners.mean(axis=0)[0]),
        )
        taken: list[TakenCard] = []
        skipped: list[SkippedCard] = []
        for t in pending:
            t.pending = False
            t.look = _quick_look(frame, t.corners)
            corners, landscape = upright(t.corners, self.orientation)
            wh = self.face_wh[::-1] if landscape else self.face_wh
            face = appearance.rectify(frame, corners[None], (wh[0], wh[1]))[0]
            looks = face_looks(face)
            kps = face_keypoints(face)
            like, sim, inliers, here = self._same(looks, kps, corners)
            if like is not None and here is not None:  # seen again where it was taken
                t.taken, t.skipped = (here, False) if here > 0 else (None, True)
                continue
            if like is not None and (
                self.confirm_duplicate is None or not self.confirm_duplicate(face, like, sim)
            ):
                s = SkippedCard(face, corners.astype(np.float32), self._layout, like, sim, inliers)
                self._skipped.append(s)
                skipped.append(s)
                t.skipped = True
                continue
            card = TakenCard(
                number=(self._taken[-1].number + 1) if self._taken else 1,
                face=face,
                corners_px=corners.astype(np.float32),
                layout=self._layout,
                landscape=landscape,
                check=check_face(frame, corners, landscape),
                descriptor=looks[0],
                duplicate_of=like,
                flipped_from=self._taken_here(corners),
                keypoints=kps,
            )
            self._taken.append(card)
            self._looks.append(looks)
            t.taken = card.number
            taken.append(card)
        parts = []
        if taken:
            parts.append(f"{len(taken)} card{'s' if len(taken) != 1 else ''} taken")
        if skipped:
            parts.append(f"{len(skipped)} duplicate{'s' if len(skipped) != 1 else ''} skipped")
        message = ", ".join(parts) or "these cards are taken already"
        return self._progress("captured", self.needed, message, taken, skipped)

    def _same(
        self, looks: NDArray[np.float32], kps: local.Keypoints, corners: NDArray[np.float64]
    ) -> tuple[str | None, float, int, int | None]:
        """The card this face is (:func:`same_card`) among those taken (``#N``), skipped here
        and registered already (its id), or None; the cosine and inliers that told; and,
        when it lies at this place in this layout (the same card seen again), the number of
        the card taken there (0: a duplicate skipped there)."""
        if self._taken:
            i, sim, n = same_card(
                looks, kps, np.stack(self._looks), lambda j: _keypoints_of(self._taken[j])
            )
            if i >= 0:
                c = self._taken[i]
                here = c.number if self._same_place(c.corners_px, c.layout, corners) else None
                return f"#{c.number}", sim, n, here
        here_skipped = [
            x for x in self._skipped if self._same_place(x.corners_px, x.layout, corners)
        ]
        if here_skipped:
            faces = [x.face for x in here_skipped]
            i, sim, n = same_card(
                looks, kps, np.stack([face_looks(f) for f in faces]),
                lambda j: face_keypoints(faces[j]),
            )  # fmt: skip
            if i >= 0:
                return here_skipped[i].like, sim, n, 0
        if self._known and self._known_kp is not None:
            i, sim, n = same_card(looks, kps, self._known_looks, self._known_kp)
            if i >= 0:
                return self._known[i], sim, n, None
        return None, 0.0, 0, None

    def _same_place(
        self, was: NDArray[np.floating], layout: int, corners: NDArray[np.float64]
    ) -> bool:
        """Whether a card taken (or skipped) at ``was`` in ``layout`` lies where ``corners``
        are now, in the current layout."""
        if layout != self._layout:
            return False
        reach = 0.5 * short_side_px(corners)
        return bool(np.linalg.norm(np.asarray(was).mean(axis=0) - corners.mean(axis=0)) < reach)

    def _taken_here(self, corners: NDArray[np.float64]) -> int | None:
        """The last card taken at this place in this layout (a card turned over in place)."""
        for c in reversed(self._taken):
            if self._same_place(c.corners_px, c.layout, corners):
                return c.number
        return None

    def _progress(
        self,
        state: LayoutState,
        steady: int,
        message: str,
        taken: Sequence[TakenCard] = (),
        skipped: Sequence[SkippedCard] = (),
    ) -> LayoutProgress:
        seen = [t for t in self._tracks if t.seen == self._frame]
        marks = tuple(
            "taken" if t.taken is not None else "skipped" if t.skipped else "new" for t in seen
        )
        return LayoutProgress(
            state=state,
            layout=self._layout,
            steady=steady,
            needed=self.needed,
            outlines=np.asarray([t.corners for t in seen], np.float32).reshape(-1, 4, 2),
            marks=marks,
            taken=tuple(taken),
            skipped=tuple(skipped),
            total=len(self._taken),
            message=message,
        )


def _quick_look(frame: NDArray[np.uint8], corners: NDArray[np.float64]) -> NDArray[np.float32]:
    """(2, D) the appearance descriptor of the card at ``corners`` (as found: either short
    side first), and turned half round, from a small rectification (cheap: every frame)."""
    small = appearance.rectify(frame, np.asarray(corners)[None])
    cells = appearance.lab_cells(small)
    return np.asarray(
        appearance.describe(np.concatenate([cells, appearance.turned(cells)])), np.float32
    )


def _keypoints_of(card: TakenCard) -> local.Keypoints:
    return card.keypoints if card.keypoints is not None else face_keypoints(card.face)


def _moved(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Largest corner move between two outlines (either short side first), px."""
    return float(min(np.abs(a - b).max(), np.abs(np.roll(a, 2, axis=0) - b).max()))


__all__ = [
    "BLUR_MIN",
    "GLARE_MAX",
    "ORIENTATIONS",
    "SAME_COS",
    "SAME_COS_INLIERS",
    "SAME_INLIERS",
    "SMALL_PX",
    "FaceCheck",
    "LayoutCapture",
    "LayoutProgress",
    "Orientation",
    "SkippedCard",
    "TakenCard",
    "cells_looks",
    "check_face",
    "face_descriptors",
    "face_keypoints",
    "face_looks",
    "find_cards",
    "fit_inliers",
    "likeness",
    "looks_likeness",
    "same_card",
    "upright",
]
