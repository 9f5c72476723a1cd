"""Hands, arms and anything else over the canvas that is not a piece.

A frame with something foreign over the canvas is reported ``occluded`` with the share of
the canvas it covers, and its pieces are not counted (a hand hides pieces, and one laying a
piece is about to change the build). Foreign is what the pieces found do not explain:

- wood-coloured patches wider than any heap of sticks (a palm, a forearm: skin reads as
  wood), found before the sticks so the stick search does not try to explain them;
- after the pieces are found: wood, shape-colour and other-colour pixels no stick, shape
  or string explains, and dark patches too thick for the string, kept when they are more
  than a speck and either cross the canvas edge (an arm comes in from outside the board;
  pieces lie on it), or lie inside the canvas and are as wide as a palm
  (``INNER_RADIUS_MM``). A hand is held by an arm: over the canvas it crosses the edge,
  unless its sleeve reads as canvas, and then its palm is still that wide. What is left
  unexplained inside a heap of sticks seen coarsely (blur joins sticks and the gaps
  between them) is narrower, however large: on 146 rendered boards with a hand over the
  canvas (normal and hard tiers, kit and development looks), no hand was found by a patch
  inside the canvas alone, and 7 of 118 hard boards without a hand were called occluded by
  such patches (2 to 17 mm wide, 300 to 3,300 mm^2).

A shadow is not foreign (the hand or sleeve that casts it may be beside the board): a dark
patch counts only when it is darker than what lies round it (``dark_objects``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso import pixel_model as pm
from vision.picasso.masks import opened, patches
from vision.picasso.segment import lab_of

if TYPE_CHECKING:
    from vision.picasso.board import BoardView

#: An unexplained patch smaller than this is a speck (mm^2).
MIN_PATCH_MM2 = 150.0
#: A wood patch whose inscribed circle is wider than this is not sticks (mm radius).
WIDE_RADIUS_MM = 16.0
#: An unexplained patch inside the canvas (not crossing its edge) is foreign when it holds a
#: disc of this radius (mm): a palm. (Before: 6 mm, wider than a stick, or 900 mm^2.)
INNER_RADIUS_MM = 20.0
#: An object touching the canvas edge along this much, reaching this far in, came in over
#: the edge (mm).
CONTACT_MM = 15.0
DEPTH_MM = 8.0
#: Band along the canvas edge where an arm comes in (mm).
EDGE_BAND_MM = 4.0
#: A dark patch at least this much darker (L*, medians) than the ring round it is a dark
#: thing; less, and it is the speckle of a shadow whose lightness sits at the dark threshold
#: (about three times the pixel noise in L* there).
SHADOW_CONTRAST_L = 4.0
#: Width of that ring (mm).
RING_MM = 2.5


#: What lies just beyond the canvas edge (mm from it): an arm coming in over the edge covers
#: the board's frame (or the table) there too; a piece lying against the edge does not.
BEYOND_MM = (3.0, 10.0)
#: A place along an edge is covered beyond it when the strip's colour there (its mean across
#: the strip, over ``BEYOND_ALONG_MM`` along it) differs from the median of the four edges'
#: strips by more than ``BEYOND_DE_MIN`` (CIE76 delta E), or ``BEYOND_DE_SPREAD`` times the
#: median of that difference where the frame is textured (wood grain). Averaged across the
#: strip, the grain of a light wooden frame differs from its median by 1-7, a hand's skin
#: over it by 9-18 (hard run seed 1 in development looks, board 23: a fingertip at the
#: edge).
BEYOND_ALONG_MM = 3.0
BEYOND_DE_MIN = 8.0
BEYOND_DE_SPREAD = 2.5
#: Something at the edge comes in over it only where it meets this much (mm) of covered
#: strip beyond (or strip the camera does not see).
BEYOND_MIN_MM = 5.0
#: A patch at the edge is the pieces found when they explain this share of it.
PIECE_SHARE = 0.8
SIDES = ("top", "bottom", "left", "right")


def strip_beyond(
    view: BoardView, side: str, depth_mm: tuple[float, float]
) -> tuple[NDArray[np.uint8], NDArray[np.bool_]] | None:
    """What the camera sees just outside canvas side ``side`` (``top``, ``bottom``,
    ``left``, ``right``), from ``depth_mm[0]`` to ``depth_mm[1]`` beyond its edge, at the
    canvas image's scale: ``(strip, seen)``, ``strip`` (D, L, 3) uint8 BGR with row 0
    nearest the edge and column j at canvas pixel j along the side (as the canvas image
    counts it), ``seen`` (L,) bool, False where the strip leaves the frame. None without
    the frame."""
    if view.frame is None:
        return None
    s = view.px_per_mm
    w_mm, h_mm = view.fit.size_mm
    along_mm = w_mm if side in ("top", "bottom") else h_mm
    n_along = round(along_mm * s)
    n_depth = max(1, round((depth_mm[1] - depth_mm[0]) * s))
    t = (np.arange(n_along) + 0.5) / s
    d = depth_mm[0] + (np.arange(n_depth) + 0.5) / s
    tt, dd = np.meshgrid(t, d)
    if side == "top":
        xy = (tt, -dd)
    elif side == "bottom":
        xy = (tt, h_mm + dd)
    elif side == "left":
        xy = (-dd, tt)
    elif side == "right":
        xy = (w_mm + dd, tt)
    else:
        raise ValueError(f"side must be top, bottom, left or right, got {side!r}")
    mm = np.stack([xy[0].ravel(), xy[1].ravel()], axis=1)
    px = view.fit.to_px(mm).reshape(n_depth, n_along, 2) - 0.5
    fh, fw = view.frame.shape[:2]
    inside = (px[..., 0] >= 0) & (px[..., 0] <= fw - 1) & (px[..., 1] >= 0)
    inside &= px[..., 1] <= fh - 1
    strip = cv2.remap(
        view.frame,
        np.ascontiguousarray(px[..., 0]),
        np.ascontiguousarray(px[..., 1]),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(strip, np.uint8), np.asarray(inside.all(0), bool)


class Outside:
    """Where something covers what lies just beyond the canvas edges (``BEYOND_MM``), to tell
    an arm coming in over an edge from a piece lying against it. Measured from the frame on
    first use (most frames have nothing at the edge); without the frame, every place counts
    as covered and an object at the edge comes in, as it did before the frame was looked
    at."""

    def __init__(self, view: BoardView | None) -> None:
        self._view = view
        self._covered: dict[str, NDArray[np.bool_]] | None = None

    def covered(self, side: str) -> NDArray[np.bool_] | None:
        """(L,) bool along ``side`` (canvas pixels): covered beyond the edge, or not in
        view; None when nothing beyond the edges is known."""
        if self._covered is None:
            self._covered = self._measure()
        return self._covered.get(side)

    def _measure(self) -> dict[str, NDArray[np.bool_]]:
        view = self._view
        if view is None or view.frame is None:
            return {}
        means: list[NDArray[np.float32]] = []
        seens: list[NDArray[np.bool_]] = []
        k = max(1, round(BEYOND_ALONG_MM * view.px_per_mm))
        for side in SIDES:
            got = strip_beyond(view, side, BEYOND_MM)
            if got is None:
                return {}
            strip, seen = got
            lab = cv2.cvtColor(strip.astype(np.float32) * np.float32(1 / 255), cv2.COLOR_BGR2LAB)
            means.append(cv2.blur(lab.mean(axis=0, keepdims=True), (k, 1))[0])
            seens.append(seen)
        seen_all = np.concatenate(seens)
        if np.count_nonzero(seen_all) < 10:
            return {side: np.ones(m.shape[0], bool) for side, m in zip(SIDES, means, strict=True)}
        # One reference for the four sides (the frame round the canvas is one thing; an arm
        # may cover most of one side, never most of all four).
        mean_all = np.concatenate(means)
        de_all = np.sqrt(((mean_all - np.median(mean_all[seen_all], axis=0)) ** 2).sum(axis=1))
        limit = max(BEYOND_DE_MIN, BEYOND_DE_SPREAD * float(np.median(de_all[seen_all])))
        covered = (de_all > limit) | ~seen_all
        out: dict[str, NDArray[np.bool_]] = {}
        start = 0
        for side, m in zip(SIDES, means, strict=True):
            out[side] = covered[start : start + m.shape[0]]
            start += m.shape[0]
        return out

    def reaches_out(
        self, mine: NDArray[np.bool_], x: int, y: int, band: int, shape: tuple[int, int], s: float
    ) -> bool:
        """Whether a patch (``mine``: its (h, w) bool pixels in its box at canvas pixel
        (``x``, ``y``)) meets covered strip beyond an edge (``BEYOND_MIN_MM`` of it) where it
        lies within ``band`` pixels of that edge. True whenever nothing beyond is known."""
        h, w = shape
        bh, bw = mine.shape
        need = BEYOND_MIN_MM * s
        for side in SIDES:
            if side in ("top", "bottom"):
                deep = max(0, min(bh, band - y if side == "top" else y + bh - (h - band)))
                part = mine[:deep] if side == "top" else mine[bh - deep :]
                axis, lo = 0, x
            else:
                deep = max(0, min(bw, band - x if side == "left" else x + bw - (w - band)))
                part = mine[:, :deep] if side == "left" else mine[:, bw - deep :]
                axis, lo = 1, y
            if deep == 0:
                continue
            touch = np.asarray(part.any(axis=axis), bool)
            if not touch.any():
                continue
            cov = self.covered(side)
            if cov is None:
                return True
            where = cov[lo : lo + touch.size]
            if int(np.count_nonzero(where & touch[: where.size])) >= need:
                return True
        return False


@dataclass(frozen=True, eq=False)
class Occluders:
    """What covers the canvas: ``mask`` (H, W) uint8 0/1 of the foreign patches (holes
    filled), and ``fraction``, their share of the canvas."""

    mask: NDArray[np.uint8]
    fraction: float

    @property
    def any(self) -> bool:
        return self.fraction > 0.0


def wide_wood(wood: NDArray[np.uint8], s: float) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: the wood patches that contain a disc of radius ``WIDE_RADIUS_MM``
    (computed at 1 px/mm: a palm, not a heap of sticks)."""
    k = max(1, round(s))
    small = np.ascontiguousarray(wood[::k, ::k]) if k > 1 else wood
    dist = cv2.distanceTransform(small, cv2.DIST_L2, 3) * (k / s)
    seeds = dist >= WIDE_RADIUS_MM
    if not seeds.any():
        return np.zeros_like(wood)
    n, lab = cv2.connectedComponents(small, connectivity=8)
    hit = np.zeros(n, bool)
    hit[np.unique(lab[seeds])] = True
    hit[0] = False
    wide_small = hit[lab].astype(np.uint8)
    if k > 1:
        wide = cv2.resize(
            wide_small, (wood.shape[1], wood.shape[0]), interpolation=cv2.INTER_NEAREST
        )
        return np.asarray(wide & wood, np.uint8)
    return wide_small


def dark_objects(
    thick: NDArray[np.uint8], normalised: NDArray[np.uint8], s: float
) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: the patches of ``thick`` (dark pixels too thick for the string,
    (H, W) uint8 0/1 at ``s`` px/mm) whose median L* is at least ``SHADOW_CONTRAST_L`` below
    that of the ring ``RING_MM`` wide round them (``normalised``: the (H, W, 3) uint8 canvas
    picture of ``segment.normalise``). A dark sleeve, hair or a phone stands out from what
    lies round it; the deepest part of a soft shadow (a sleeve held above the board's edge)
    whose lightness sits at the dark threshold reads dark and grey in specks, and where the
    dark specks are dense enough to pass for a thick patch, the ring round them is the same
    shadow, as dark as the patch."""
    if not thick.any():
        return thick
    n, lab, stats = patches(thick)
    h, w = thick.shape
    r = max(1, round(RING_MM * s))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, bw, bh = stats[i, :4]
        x0, y0 = max(0, x - r), max(0, y - r)
        x1, y1 = min(w, x + bw + r), min(h, y + bh + r)
        inside = lab[y0:y1, x0:x1] == i
        outside = (cv2.dilate(inside.astype(np.uint8), disc) > 0) & (thick[y0:y1, x0:x1] == 0)
        if not outside.any():  # nothing round it to compare with: keep it
            keep[i] = True
            continue
        part = normalised[y0:y1, x0:x1]
        l_in = float(np.median(lab_of(part, inside)[:, 0]))
        l_out = float(np.median(lab_of(part, outside)[:, 0]))
        keep[i] = l_out - l_in >= SHADOW_CONTRAST_L
    return np.asarray(keep[lab], np.uint8)


def entering(
    foreground: NDArray[np.uint8],
    s: float,
    margins: tuple[int, int, int, int] = (0, 0, 0, 0),
    outside: Outside | None = None,
    pieces: NDArray[np.uint8] | None = None,
) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: the ``foreground`` patches that come in over the canvas's edge the
    way an arm does: touching the outer 2 mm of the canvas (inside what shows of the frame)
    along at least ``CONTACT_MM`` and reaching ``DEPTH_MM`` inwards. (Pieces lie on the
    canvas, well inside it as a rule; a stick whose end touches the edge touches it along a
    few millimetres.) A patch the pieces found explain (``pieces``: (H, W) uint8 0/1, at
    least ``PIECE_SHARE`` of it) with bare frame beyond the edge it touches (``outside``)
    is pieces lying against the edge, not an arm: an arm covers the frame too."""
    h, w = foreground.shape
    band = max(2, round(2.0 * s))  # inside what ``segment.blank_frame`` blanked
    top, bottom, left, right = margins
    rim = np.concatenate(
        [
            foreground[: top + band].ravel(),
            foreground[h - bottom - band :].ravel(),
            foreground[:, : left + band].ravel(),
            foreground[:, w - right - band :].ravel(),
        ]
    )
    if not rim.any():  # nothing touches the edge: the usual frame, no labelling needed
        return np.zeros((h, w), np.uint8)
    n, lab, stats = patches(foreground)
    out = np.zeros((h, w), np.uint8)
    if n <= 1:
        return out
    edge = np.zeros((h, w), bool)
    edge[: top + band] = edge[h - bottom - band :] = True
    edge[:, : left + band] = edge[:, w - right - band :] = True
    touching = np.unique(lab[edge & (lab > 0)])
    for i in touching.tolist():
        x, y = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        # the patch's pixels, in its box (not over the whole canvas)
        mine = lab[y : y + bh, x : x + bw] == i
        contact = float((mine & edge[y : y + bh, x : x + bw]).sum()) / (band * s)
        depth = (
            max(
                (x + bw) if x < band else 0,
                (w - x) if x + bw > w - band else 0,
                (y + bh) if y < band else 0,
                (h - y) if y + bh > h - band else 0,
            )
            / s
        )
        if contact >= CONTACT_MM and depth >= DEPTH_MM:
            if (
                outside is not None
                and pieces is not None
                and np.count_nonzero(pieces[y : y + bh, x : x + bw][mine])
                >= PIECE_SHARE * np.count_nonzero(mine)
                and not outside.reaches_out(
                    mine, x, y, max(top, bottom, left, right) + band, (h, w), s
                )
            ):
                continue  # pieces, and the frame beyond is bare: lying against the edge
            out[y : y + bh, x : x + bw][mine] = 1
    return out


#: The pixel model's "other" (a hand, a sleeve, a card) counts as something coming in over
#: the canvas's edge when it does so as an arm does (``entering``), opened by a
#: disc of ``ARM_OPEN_MM`` and at least ``ARM_MIN_SHARE`` of the canvas. Measured on the
#: normal tier (run seeds 0-2) and the hard tier (run seeds 0-1): hands over the canvas
#: reported 164 -> 170 of 193, no board lost; without the least share, 1 more hand and 1
#: false occlusion (a dark patch 0.4% of the canvas at its edge, no hand over the canvas).
ARM_OPEN_MM = 1.5
ARM_MIN_SHARE = 0.01


def model_arms(
    model_classes: NDArray[np.uint8],
    shape: tuple[int, int],
    s: float,
    margins: tuple[int, int, int, int],
) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: what the pixel model (its classes at half resolution) calls
    "other" where it comes in over the canvas's edge like an arm. A grey or white sleeve
    reads as canvas or shadow in the colour table; the model, which judges by shape and
    texture as well, sees it."""
    h, w = shape
    if not (model_classes == pm.OTHER).any():
        return np.zeros((h, w), np.uint8)
    other = cv2.resize(
        (model_classes == pm.OTHER).astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST
    )
    k = 2 * round(ARM_OPEN_MM * s) + 1
    other = cv2.morphologyEx(
        other, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    top, bottom, left, right = margins
    other[:top] = 0  # the board's frame, blanked in the classes too
    other[h - bottom :] = 0
    other[:, :left] = 0
    other[:, w - right :] = 0
    arms = entering(other, s, margins)
    if not arms.any():
        return arms
    _n, lab, stats = patches(arms)
    big = stats[:, cv2.CC_STAT_AREA] >= ARM_MIN_SHARE * h * w
    big[0] = False
    return big[lab].astype(np.uint8)


def _at_edge(x: int, y: int, bw: int, bh: int, shape: tuple[int, int], edge: int) -> bool:
    """Whether the box (x, y, bw, bh) of a patch reaches the band ``edge`` pixels wide along
    the edges of a canvas of ``shape`` (H, W)."""
    h, w = shape
    return x <= edge or y <= edge or x + bw >= w - edge or y + bh >= h - edge


def _holds_palm(patch: NDArray[np.uint8], s: float) -> bool:
    """Whether the (h, w) uint8 0/1 ``patch`` holds a disc of radius ``INNER_RADIUS_MM``.
    A box narrower than the disc is answered without the distance transform (exact: padded
    by one, no pixel is farther than half the box's narrower side and one from its edge)."""
    if min(patch.shape) + 1 < 2 * INNER_RADIUS_MM * s:
        return False
    return bool(
        cv2.distanceTransform(np.pad(patch, 1), cv2.DIST_L2, 3).max() / s >= INNER_RADIUS_MM
    )


def stray_patches(other: NDArray[np.uint8], s: float) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: the patches of ``other`` (what the classes call none of the pieces)
    that lie inside the canvas (clear of the band along its edge) and hold no palm's disc
    (``INNER_RADIUS_MM``): not a hand, by ``find_occluders``'s own rules. What they are is
    unknown: part of a piece whose look the classes did not know, most often."""
    out = np.zeros(other.shape, np.uint8)
    x0, y0, box_w, box_h = cv2.boundingRect(other)
    if box_w == 0:
        return out
    n, lab, stats = patches(other[y0 : y0 + box_h, x0 : x0 + box_w])
    box = out[y0 : y0 + box_h, x0 : x0 + box_w]
    edge = round(EDGE_BAND_MM * s)
    for i in range(1, n):
        x, y = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if _at_edge(x + x0, y + y0, bw, bh, other.shape, edge):
            continue
        if _holds_palm((lab[y : y + bh, x : x + bw] == i).astype(np.uint8), s):
            continue
        box[lab == i] = 1
    return out


def find_occluders(candidates: NDArray[np.uint8], s: float) -> Occluders:
    """Keep the foreign patches among ``candidates`` ((H, W) uint8 0/1 unexplained
    pixels at ``s`` px/mm), by the rules of the module docstring."""
    h, w = candidates.shape
    if int(cv2.countNonZero(candidates)) < MIN_PATCH_MM2 * s * s:
        return Occluders(np.zeros((h, w), np.uint8), 0.0)
    k = 2 * round(1.5 * s) + 1
    kept = opened(candidates, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    out = np.zeros((h, w), np.uint8)
    # Labelled within the box of what is left (most often nothing, or a few specks).
    x0, y0, box_w, box_h = cv2.boundingRect(kept)
    if box_w == 0:
        return Occluders(out, 0.0)
    n, lab, stats = patches(kept[y0 : y0 + box_h, x0 : x0 + box_w])
    box = out[y0 : y0 + box_h, x0 : x0 + box_w]
    edge = round(EDGE_BAND_MM * s)
    px2 = s * s
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA] / px2
        if area < MIN_PATCH_MM2:
            continue
        x, y = stats[i, cv2.CC_STAT_LEFT], stats[i, cv2.CC_STAT_TOP]
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        foreign = _at_edge(x + x0, y + y0, bw, bh, (h, w), edge) or _holds_palm(
            (lab[y : y + bh, x : x + bw] == i).astype(np.uint8), s
        )  # over the edge, or a palm
        if foreign:
            box[lab == i] = 1
    if out.any():
        contours, _ = cv2.findContours(out, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(out, contours, -1, 1, cv2.FILLED)
    return Occluders(out, float(out.mean()))
