"""What the steps of :func:`vision.identify.identify_frame` share: the decision
:class:`Thresholds`, the reading a step proposes (``_Candidate``), how two steps' readings
are merged (one per card id and one per place, ``_merge``) and the geometry of (4, 2) quads
the steps compare (area, height, overlap)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify.reading import Side


@dataclass(frozen=True)
class Thresholds:
    """Decision thresholds (measured on rendered tables, see ``vision/identify/README.md``):
    ``accept`` the least probability (:func:`picture_probability`) a picture match needs;
    ``agree`` the share of cells (:func:`~vision.identify.appearance.agreement`) above which
    a card named by its codes counts its picture as evidence; ``code_agree`` the share a lone
    marker's card needs (both with the print's saturation fitted,
    ``vision.identify.code_cards.PRINT_CHROMA``); ``unknown_outline`` the outline support an
    unmatched outline needs to be reported as an unknown card."""

    accept: float = 0.97
    agree: float = 0.38
    code_agree: float = 0.31
    unknown_outline: float = 0.8


DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class _Candidate:
    card: str
    corners: NDArray[np.float64]
    confidence: float
    method: str
    side: Side
    evidence: tuple[str, ...]
    support: float = 1.0


def _long_side(q: NDArray[np.floating]) -> float:
    """Mean length (px) of the longer pair of opposite sides of a (4, 2) quad."""
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    return float(max(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def _short_side(q: NDArray[np.floating]) -> float:
    """Mean length (px) of the shorter pair of opposite sides of a (4, 2) quad."""
    sides = np.linalg.norm(np.roll(q, -1, axis=0) - np.asarray(q), axis=1)
    return float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def _merge(a: list[_Candidate], b: list[_Candidate]) -> list[_Candidate]:
    """Readings of two methods: one per card id and one per place, the more confident kept
    (readings of the same card at the same place pool their evidence)."""
    out = list(a)
    for cand in b:
        same = [i for i, r in enumerate(out) if r.card == cand.card]
        place = [i for i, r in enumerate(out) if _overlap(r.corners, cand.corners) > 0.4]
        if same and same[0] in place:
            r = out[same[0]]
            best = r if r.confidence >= cand.confidence else cand
            out[same[0]] = _Candidate(
                best.card, best.corners, max(r.confidence, cand.confidence), r.method,
                r.side, tuple(dict.fromkeys(r.evidence + cand.evidence)), best.support,
            )  # fmt: skip
            continue
        clash = same + place
        if any(_outranks(out[i], cand) for i in clash):
            continue
        out = [r for i, r in enumerate(out) if i not in clash] + [cand]
    return out


#: A reading this many times another's area, at its place, is of a larger thing.
CONTAINS_AREA = 1.5


def _outranks(kept: _Candidate, new: _Candidate) -> bool:
    """Whether reading ``kept`` stays when ``new`` clashes with it (the same card elsewhere,
    or another card at its place). A reading its keypoints verified is not overridden by a
    much smaller reading of the picture alone (which lies on part of it: a patch of the
    card's picture that looks like another card), nor does such a reading stay against it;
    otherwise the more confident stays."""
    if _keypoint_larger(kept, new):
        return True
    if _keypoint_larger(new, kept):
        return False
    return kept.confidence >= new.confidence


def _keypoint_larger(a: _Candidate, b: _Candidate) -> bool:
    """``a`` verified by keypoints, ``b`` named by its picture alone (no code, no keypoints),
    and ``a`` at least ``CONTAINS_AREA`` times ``b``'s area."""
    return (
        "keypoints" in a.evidence
        and b.method == "features"
        and "keypoints" not in b.evidence
        and _area(a.corners) >= CONTAINS_AREA * _area(b.corners)
    )


def _area(q: NDArray[np.floating]) -> float:
    """Area (px^2) of a (4, 2) quad."""
    return float(abs(cv2.contourArea(np.asarray(q, np.float32).reshape(4, 2))))


def _height(q: NDArray[np.floating]) -> float:
    """Mean length (px) of the long sides of an ordered (4, 2) quad."""
    q = np.asarray(q, np.float64)
    return float((np.linalg.norm(q[1] - q[2]) + np.linalg.norm(q[3] - q[0])) / 2)


def _card_height(readings: list[_Candidate]) -> float | None:
    """The median height (px, the longer of a card's two side pairs) of the cards identified
    in the frame (None when none was)."""
    if not readings:
        return None
    return float(
        np.median(
            [max(_height(r.corners), _height(np.roll(r.corners, 1, axis=0))) for r in readings]
        )
    )


def _card_sized(q: NDArray[np.floating], card_height: float | None) -> bool:
    """Whether an outline is the size of the cards identified in the frame, whose height
    (:func:`_card_height`) is ``card_height`` (any size when None)."""
    if card_height is None:
        return True
    h = max(_height(q), _height(np.roll(np.asarray(q), 1, axis=0)))
    return 0.7 * card_height <= h <= 1.4 * card_height


#: From this many quads on, :func:`_overlaps_any` sets the quads apart from ``q`` all together
#: first (fewer cost less one by one).
_OVERLAP_BATCH = 4


def _overlaps_any(
    q: NDArray[np.floating], others: Sequence[NDArray[np.floating]], share: float
) -> bool:
    """Whether (4, 2) quad ``q`` overlaps any of the (4, 2) quads ``others`` by more than
    ``share`` (:func:`_overlap`; ``share`` >= 0). Quads whose bounding boxes are apart (most
    of a frame's) are told apart at once, all together."""
    if len(others) < _OVERLAP_BATCH:
        return any(_overlap(q, o) > share for o in others)
    quads_px = np.asarray(others, np.float32).reshape(-1, 4, 2)
    pa = np.asarray(q, np.float32).reshape(4, 2)
    below, above = quads_px.max(axis=1) < pa.min(axis=0), quads_px.min(axis=1) > pa.max(axis=0)
    apart = (below | above).any(axis=1)
    return any(_overlap(pa, o) > share for o in quads_px[~apart])


def _overlap(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    """Intersection over the smaller area of two (4, 2) quads (0 when either is degenerate)."""
    pa = np.asarray(a, np.float32).reshape(4, 2)
    pb = np.asarray(b, np.float32).reshape(4, 2)
    area_a = abs(cv2.contourArea(pa))
    area_b = abs(cv2.contourArea(pb))
    if area_a < 1 or area_b < 1:
        return 0.0
    if not (
        cv2.isContourConvex(pa.reshape(-1, 1, 2)) and cv2.isContourConvex(pb.reshape(-1, 1, 2))
    ):
        pa = cv2.convexHull(pa).reshape(-1, 2)
        pb = cv2.convexHull(pb).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return float(inter / min(area_a, area_b))
