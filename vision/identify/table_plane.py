"""Cards named by their pictures placed as cards lying on the table (issue 26: a reported outline
lies on its card).

Every card of a deck is the same rectangle, and the cards on a table lie on one plane. Where a
card is partly hidden (under another card, a hand, a sleeve), the homography fitted on its
keypoints or snapped to edges is free to stretch it over what shows: its hidden side pulled in
to the edge of what covers it, or pushed out over the table, the quadrilateral no longer the
shape of a card there. The cards read surely in the same frame say what that shape is.

So the table's plane is fitted to the cards whose pictures agree surely with their references
where they are placed (:data:`ANCHOR_AGREE`, at least :data:`MIN_ANCHORS`): a centred pinhole
camera of unknown focal length looking at a plane of unknown tilt and direction
(:class:`TablePlane`, three numbers fitted by Levenberg-Marquardt), under which each of them is
the card's rectangle moved and turned, all at one size. Where the fit leaves an anchor more than
:data:`ANCHOR_RESIDUAL_MAX` from that (cards held up, or stacked, or a lens bending the frame
too much), there is no plane. Each other card named by its picture whose outline lies further
than :data:`OFF_PLANE` from a card on the plane has its keypoints matched to its reference
again, and is placed where a card on the plane fits them best (moved, turned and sized on the
plane by RANSAC: :data:`FIT_PX`, :data:`FIT_MIN_INLIERS`; its size within
:data:`SIZE_TOLERANCE` of the plane's: the matches give the size, the plane the shape). The new
place is kept where it overlaps the old (``placing.SAME_PLACE``) and the card's picture agrees
at least :data:`GAIN` more there, or no less (:data:`FAR_GAIN`) where the outline lay further
than :data:`FAR_OFF_PLANE` from any card on the plane.

Chosen on development sets (see ``vision/identify/README.md``); a wrong place is the outline of
a card that is there but placed off, which counts as a wrong card (issue 26).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from vision.identify import local, placing
from vision.identify.candidates import _Candidate
from vision.identify.deck import ReferenceDeck
from vision.identify.keypoint_pass import keypoints_round

#: Readings whose picture agrees at least this much with their reference where they are placed
#: (the share of cells, :func:`vision.identify.placing.agreements`) fit the plane; the others
#: named by their pictures are checked against it (``placing.CHECK_BELOW``: below it were 58 of
#: 61 readings placed off in a study of development sets).
ANCHOR_AGREE = 0.85
MIN_ANCHORS = 2
#: No plane where the fit leaves an anchor's corner further than this (card heights) from the
#: card's rectangle on it.
ANCHOR_RESIDUAL_MAX = 0.08
#: A card named by its picture is placed again when a corner of its outline lies further than
#: this (card heights) from the nearest card's rectangle on the plane.
OFF_PLANE = 0.03
#: The fit of its keypoints on the plane: inliers within FIT_PX card heights, at least
#: FIT_MIN_INLIERS of them, RANSAC_ROUNDS pairs tried.
FIT_PX = 0.03
FIT_MIN_INLIERS = 8
RANSAC_ROUNDS = 128
#: The fit's size may differ from the card's on the plane by this share at most: the matches
#: give the size, the plane the shape (a lens's bending or a plane fitted on few cards can be a
#: tenth off in size at the frame's edge); beyond it, no new place.
SIZE_TOLERANCE = 0.1
#: The new place is kept where the card's picture agrees at least GAIN more there; or, where
#: the outline lies further than FAR_OFF_PLANE from a card on the plane (it cannot be a card
#: there), no less than FAR_GAIN below: the whole card's place takes in what hides it, which
#: agrees with nothing (a card under a sleeve and another card's corner, its outline round
#: what shows 20% too short, agreed 0.19 there and 0.10 on its card; on 12 development sets
#: of pictures alone, cards placed off 43 -> 37 at -0.1, none placed off that was not; at
#: -1, on six of them, 3 placed off that were not).
GAIN = 0.03
FAR_OFF_PLANE = 0.07
FAR_GAIN = -0.1
#: The fit: Levenberg-Marquardt steps from each of two starts (the tilt the anchors show,
#: either way round; the focal length START_FOCAL of the frame's width), then FIT_ROUNDS more
#: from the better.
FIT_FIRST = 3
FIT_ROUNDS = 10
START_FOCAL = 0.8


@dataclass(frozen=True)
class TablePlane:
    """The table seen by a centred pinhole camera: ``focal`` (px), the plane's ``tilt`` from
    facing the camera and the ``direction`` it tilts towards on the frame (radians); ``shape``
    the frame's (h, w); ``card`` the deck's card height in the plane's units (its short side
    ``aspect`` of that)."""

    focal: float
    tilt: float
    direction: float
    shape: tuple[int, int]
    card: float
    aspect: float

    def to_plane(self, points: NDArray[np.floating]) -> NDArray[np.complex128]:
        """Frame pixels (..., 2) -> points of the plane (complex, card heights)."""
        return _on_plane(points, (self.focal, self.tilt, self.direction), self.shape) / self.card

    def to_frame(self, z: NDArray[np.complex128]) -> NDArray[np.float64]:
        """Points of the plane (complex, card heights) -> frame pixels (..., 2)."""
        n, e1, e2 = _axes(self.tilt, self.direction)
        z = np.asarray(z) * self.card
        x = z.real[..., None] * e1 + z.imag[..., None] * e2 + n
        h, w = self.shape
        return np.stack(
            [
                self.focal * x[..., 0] / x[..., 2] + (w - 1) / 2,
                self.focal * x[..., 1] / x[..., 2] + (h - 1) / 2,
            ],
            axis=-1,
        )

    def off(self, quad: NDArray[np.floating]) -> float:
        """How far (card heights) the corners of a portrait (4, 2) ``quad`` lie, at most, from
        the card's rectangle on the plane moved and turned to fit them best."""
        z = self.to_plane(np.asarray(quad, np.float64))[None]
        fit, _ = _fitted(z, _rectangle(self.aspect), 1.0)
        return float(np.abs(fit - z).max())


def _rectangle(aspect: float) -> NDArray[np.complex128]:
    """The portrait card's corners TL, TR, BR, BL (height 1), centred, as complex numbers."""
    r = np.array([0, aspect, aspect + 1j, 1j])
    return np.asarray(r - r.mean(), np.complex128)


def _axes(
    tilt: float, direction: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The plane's normal and two axes on it, in the camera's frame (x right, y down, z out):
    ``e1`` the normal crossed with the camera's y axis, ``e2`` the normal crossed with ``e1``
    (written out: ``np.cross`` costs more than the rest of a fit's step)."""
    st = math.sin(tilt)
    nx, ny, nz = st * math.cos(direction), st * math.sin(direction), math.cos(tilt)
    k = 1.0 / math.hypot(nx, nz)
    e1 = (-nz * k, 0.0, nx * k)
    e2 = (ny * e1[2], nz * e1[0] - nx * e1[2], -ny * e1[0])
    return np.array([nx, ny, nz]), np.array(e1), np.array(e2)


def _on_plane(
    points: NDArray[np.floating], p: Sequence[float] | NDArray[np.float64], shape: tuple[int, int]
) -> NDArray[np.complex128]:
    """Frame pixels (..., 2) -> the plane (complex; the plane at distance 1 along its normal)
    under the camera ``p`` (focal, tilt, direction)."""
    f, tilt, direction = float(p[0]), float(p[1]), float(p[2])
    h, w = shape
    n, e1, e2 = _axes(tilt, direction)
    x = (points[..., 0] - (w - 1) / 2) / f
    y = (points[..., 1] - (h - 1) / 2) / f
    d = x * n[0] + y * n[1] + n[2]
    d = np.where(np.abs(d) < 1e-9, 1e-9, d)
    u = (x * e1[0] + e1[2]) / d  # e1 has no y part
    v = (x * e2[0] + y * e2[1] + e2[2]) / d
    return np.asarray(u + 1j * v, np.complex128)


def _fitted(
    z: NDArray[np.complex128], rect: NDArray[np.complex128], size: float | None
) -> tuple[NDArray[np.complex128], float]:
    """Each quad's (k, 4) points ``z`` fitted by the rectangle ``rect`` (4,) moved, turned and
    scaled to ``size`` (the median of each quad's own best scale when None): the fitted
    points and the size."""
    m = z.mean(axis=1, keepdims=True)
    a = (z - m) @ np.conj(rect) / float(rect.real @ rect.real + rect.imag @ rect.imag)
    scale = np.abs(a)
    # The median of a few numbers: ``statistics`` on a list costs a tenth of ``np.median``.
    s = float(statistics.median(scale.tolist())) if size is None else size
    return (s * a / np.maximum(scale, 1e-12))[:, None] * rect + m, s


def _residuals(
    p: NDArray[np.float64], quads: NDArray[np.float64], shape: tuple[int, int], rect: NDArray
) -> NDArray[np.float64]:
    """The anchors' corners' distances (real and imaginary parts, in card heights) from the
    rectangles fitted to them on the plane ``p``."""
    z = _on_plane(quads, p, shape)
    fit, s = _fitted(z, rect, None)
    return np.ascontiguousarray((fit - z) / max(s, 1e-12)).view(np.float64).ravel()


def _start(quads: NDArray[np.float64], aspect: float) -> tuple[float, float]:
    """The tilt and its direction the quads' shapes show (their mean foreshortening)."""
    u = ((quads[:, 1] - quads[:, 0]) + (quads[:, 2] - quads[:, 3])) / (2 * aspect)
    v = ((quads[:, 3] - quads[:, 0]) + (quads[:, 2] - quads[:, 1])) / 2
    j = np.stack([u, v], axis=-1)
    g = j @ np.transpose(j, (0, 2, 1))
    det = np.linalg.det(g)
    g = g[det > 0] / np.sqrt(det[det > 0])[:, None, None]
    if not len(g):
        return 0.05, 0.0
    w, vec = np.linalg.eigh(g.mean(axis=0))
    tilt = float(np.arccos(np.sqrt(np.clip(w[0] / max(w[1], 1e-12), 0.0, 1.0))))
    return max(tilt, 0.05), float(np.arctan2(vec[1, 0], vec[0, 0]))


def _levenberg_marquardt(
    p: NDArray[np.float64],
    quads: NDArray[np.float64],
    shape: tuple[int, int],
    rect: NDArray,
    rounds: int,
) -> tuple[NDArray[np.float64], float]:
    """The camera (focal, tilt, direction) from ``p`` that fits the quads best after at most
    ``rounds`` steps, and its cost (the sum of squared residuals)."""
    w = shape[1]
    scale = np.array([w, 0.3, 0.5])
    lo = np.array([0.2 * w, 0.0, -np.inf])
    hi = np.array([5.0 * w, 1.3, np.inf])
    r = _residuals(p, quads, shape, rect)
    cost = float(r @ r)
    damping = 1e-3
    for _ in range(rounds):
        jac = np.empty((len(r), 3))
        for k in range(3):
            dp = np.zeros(3)
            dp[k] = 1e-4 * scale[k]
            jac[:, k] = (_residuals(p + dp, quads, shape, rect) - r) / dp[k] * scale[k]
        g, h = jac.T @ r, jac.T @ jac
        moved = False
        while damping <= 1e6:
            step = -np.linalg.solve(h + damping * np.diag(np.diag(h) + 1e-9), g) * scale
            q = np.clip(p + step, lo, hi)
            rq = _residuals(q, quads, shape, rect)
            cq = float(rq @ rq)
            if cq < cost:
                damping = max(damping / 10, 1e-7)
                moved = cost - cq > 1e-6 * cost
                p, r, cost = q, rq, cq
                break
            damping *= 10
        if not moved:
            break
    return p, cost


def fit_table_plane(
    quads: NDArray[np.floating], shape: tuple[int, ...], aspect: float
) -> TablePlane | None:
    """The table's plane under which every portrait (k, 4, 2) ``quad`` (k at least
    :data:`MIN_ANCHORS`) is a card of short side ``aspect`` of its long one, all of one size,
    moved and turned; None when there are too few (quads that could be no card seen by a
    camera left out: ``local.plausible_quad``), or no plane leaves every quad within
    :data:`ANCHOR_RESIDUAL_MAX` of that."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    q = q[[local.plausible_quad(x) for x in q]] if len(q) else q  # finite, convex, not flat
    if len(q) < MIN_ANCHORS:
        return None
    hw = (int(shape[0]), int(shape[1]))
    rect = _rectangle(aspect)
    tilt, direction = _start(q, aspect)
    # Which side of the table is nearer: a few steps each way, then the better one on.
    starts = [
        _levenberg_marquardt(np.array([START_FOCAL * hw[1], tilt, d]), q, hw, rect, FIT_FIRST)
        for d in (direction, direction + np.pi)
    ]
    p, _ = _levenberg_marquardt(min(starts, key=lambda s: s[1])[0], q, hw, rect, FIT_ROUNDS)
    z = _on_plane(q, p, hw)
    fit, size = _fitted(z, rect, None)
    if not size > 0 or float(np.abs(fit - z).max()) / size > ANCHOR_RESIDUAL_MAX:
        return None
    return TablePlane(float(p[0]), float(p[1]), float(p[2]), hw, size, aspect)


def fit_on_plane(
    plane: TablePlane,
    card_xy: NDArray[np.floating],
    frame_xy: NDArray[np.floating],
    rng: np.random.Generator,
) -> NDArray[np.float64] | None:
    """The portrait (4, 2) corners of the card on ``plane`` moved and turned to put its points
    ``card_xy`` (n, 2; card heights, its top-left corner at 0) on their matches ``frame_xy``
    (n, 2, frame pixels), by RANSAC over pairs of matches (:data:`FIT_PX`,
    :data:`RANSAC_ROUNDS`) and then least squares on the inliers, its size as they give it;
    None with fewer than :data:`FIT_MIN_INLIERS` inliers or a size more than
    :data:`SIZE_TOLERANCE` from the card's on the plane."""
    n = len(card_xy)
    if n < FIT_MIN_INLIERS:
        return None
    src = np.asarray(card_xy, np.float64) @ np.array([1.0, 1j])
    dst = plane.to_plane(np.asarray(frame_xy, np.float64))
    pairs = rng.integers(0, n, size=(RANSAC_ROUNDS, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    ds, dd = src[pairs[:, 1]] - src[pairs[:, 0]], dst[pairs[:, 1]] - dst[pairs[:, 0]]
    ok = (np.abs(ds) > 1e-6) & (np.abs(dd) > 1e-6)
    if not ok.any():
        return None
    pairs, move = pairs[ok], dd[ok] / ds[ok]
    shift = dst[pairs[:, 0]] - move * src[pairs[:, 0]]
    err = np.abs(move[:, None] * src[None] + shift[:, None] - dst[None])  # (rounds, n)
    inliers = err < FIT_PX
    best = inliers[int(np.argmax(inliers.sum(axis=1)))]
    if int(best.sum()) < FIT_MIN_INLIERS:
        return None
    s, d = src[best], dst[best]
    ms, md = s.mean(), d.mean()
    spread = float((np.abs(s - ms) ** 2).sum())
    if spread < 1e-12:
        return None
    a = (np.conj(s - ms) * (d - md)).sum() / spread
    if not 1 - SIZE_TOLERANCE <= abs(a) <= 1 + SIZE_TOLERANCE:
        return None  # the matches and the plane disagree on the card's size there
    r = np.array([0, plane.aspect, plane.aspect + 1j, 1j])
    return plane.to_frame(a * (r - ms) + md)


def placed_on_plane(
    readings: list[_Candidate],
    bgr: NDArray[np.uint8],
    deck: ReferenceDeck,
    keypoints: local.Keypoints,
) -> list[_Candidate]:
    """``readings`` with each card named by its picture (method features) placed again as a card
    lying on the table's plane where its outline is not one (see the module docstring);
    ``keypoints``: the frame's (:func:`vision.identify.local.frame_table_keypoints`)."""
    index = {card: i for i, card in enumerate(deck.ids)}
    mine = [k for k, r in enumerate(readings) if r.card in index]
    if len(mine) <= MIN_ANCHORS or not len(keypoints):
        return readings
    cards = np.array([index[readings[k].card] for k in mine])
    placed = np.stack([np.asarray(readings[k].corners, np.float64) for k in mine])
    agree = placing.agreements(bgr, deck, cards, placed)
    turned = np.array([deck.cards[i].turned for i in cards], bool)
    portrait = np.where(turned[:, None, None], np.roll(placed, 1, axis=1), placed)
    doubtful = [
        j for j in np.flatnonzero(agree < ANCHOR_AGREE) if readings[mine[j]].method == "features"
    ]
    anchors = agree >= ANCHOR_AGREE
    if not doubtful or int(anchors.sum()) < MIN_ANCHORS:
        return readings
    plane = fit_table_plane(portrait[anchors], bgr.shape, deck.aspect)
    if plane is None:
        return readings
    rng = np.random.default_rng(0)  # stateless: the same frame reads the same
    w, h = local.VERIFY_CARD_WH
    out = list(readings)
    for j in doubtful:
        q = portrait[j]
        off = plane.off(q)
        if off <= OFF_PLANE:
            continue
        window = keypoints_round(keypoints, q)
        reference = deck.search_keypoints(int(cards[j]))
        ri, fi = local.ratio_matches(reference, window)
        if len(ri) < FIT_MIN_INLIERS:
            continue
        card_xy = np.column_stack(
            [(reference.xy[ri, 0] + 0.5) / w * deck.aspect, (reference.xy[ri, 1] + 0.5) / h]
        )
        moved = fit_on_plane(plane, card_xy, window.xy[fi], rng)
        if moved is None or not local.plausible_quad(moved):
            continue
        if placing.iou(moved, q) < placing.SAME_PLACE:
            continue  # the card placed again, not another place (its matches fit elsewhere)
        if turned[j]:
            moved = np.roll(moved, -1, axis=0)  # portrait order -> the landscape face's
        there = placing.agreements(bgr, deck, cards[j : j + 1], moved[None])[0]
        if there >= agree[j] + (FAR_GAIN if off > FAR_OFF_PLANE else GAIN):
            out[mine[j]] = replace(readings[mine[j]], corners=moved)
    return out


__all__ = ["TablePlane", "fit_on_plane", "fit_table_plane", "placed_on_plane"]
