"""A lone marker's partner: where a card's other marker must be, and whether it is there.

Every card face carries its marker twice, at opposite corners and printed the same way up
(KIT.md; :func:`vision.identify.codes.face_geometry`). When only one of them is read (the
other small and blurred, read a cell wrong, or joined by blur to a dark picture across its
2 mm pad), the card may lie either way from it: the marker may be either of the two. Each
pose puts the other marker at a known place; the square there is sampled cell by cell
(snapped to its edges where they are seen, and at a few shifts) and compared with the marker
and with every other marker of the kit. The pose whose partner is seen is the card's, and
the partner is a second code that fits the card's outline by both markers, at opposite
corners, rather than extrapolated from one."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify.codes import (
    _CELL_SAMPLES,
    _CELLS,
    MAX_CELL_SPREAD,
    CodeCard,
    CodeSighting,
    _face_corners_mm,
    _otsu_classes,
    _sample_xy,
    face_geometry,
    refine_marker_corners,
    sighting,
)
from vision.identify.likeness import _soft_templates
from vision.kit.codes import face_codes

#: The partner is seen where that pose puts it when the square there is like the marker
#: (likeness, as :data:`vision.identify.likeness.SOFT_MIN_SCORE`) by at least
#: PARTNER_MIN_SCORE and more like it than like any other marker of the kit (in any turn) by
#: PARTNER_MIN_LEAD; a pose is taken when its partner is seen and the other pose's is not.
#: On rendered tables (codes scenes, seed 0: 150 normal, 100 hard; 226 lone markers whose
#: card was there), the wrong pose's square was at best 0.05 less like the marker than like
#: another (a marker of another card where the wrong pose put it read 0.64 alike); the true
#: pose's partner passed on 71 cards, the wrong pose's on none.
PARTNER_MIN_SCORE = 0.4
PARTNER_MIN_LEAD = 0.03
#: The partner's place is extrapolated from one small square (three to four of its widths
#: away): it is sampled at these shifts too (cells, along each of the square's axes).
_SHIFTS = np.array([(x, y) for y in (-0.35, 0.0, 0.35) for x in (-0.35, 0.0, 0.35)])
_CONTRAST = 20.0


def _axes(aruco: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The x and y axes (..., 2) of squares given by corners (..., 4, 2) in ArUco order
    (top-left, top-right, bottom-right, bottom-left as printed): the least-squares affine
    frame's, one marker width long."""
    ex = 0.5 * ((aruco[..., 1, :] - aruco[..., 0, :]) + (aruco[..., 2, :] - aruco[..., 3, :]))
    ey = 0.5 * ((aruco[..., 3, :] - aruco[..., 0, :]) + (aruco[..., 2, :] - aruco[..., 1, :]))
    return ex, ey


def cells_bilinear(
    grey: NDArray[np.uint8], quads: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """As :func:`vision.identify.codes._cell_read` for squares (n, 4, 2), each mapped
    bilinearly from its corners (no homography per square: thousands are sampled at once; a
    marker's perspective is negligible at the few pixels of a cell): (n, 36) whiteness of
    each cell in the square's corner order, and each square's spread (n,)."""
    n = len(quads)
    if n == 0:
        return np.zeros((0, _CELLS * _CELLS)), np.zeros(0)
    centres = (np.stack(np.meshgrid(np.arange(_CELLS), np.arange(_CELLS)), -1) + 0.5).reshape(
        -1, 1, 2
    )
    uv = ((centres + _CELL_SAMPLES).reshape(-1, 2) / _CELLS).astype(np.float64)  # (p, 2)
    u, v = uv[:, 0], uv[:, 1]
    w00, w10, w11, w01 = (1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v
    q = np.asarray(quads, np.float64)
    x = (
        q[:, 0, 0, None] * w00
        + q[:, 1, 0, None] * w10
        + q[:, 2, 0, None] * w11
        + q[:, 3, 0, None] * w01
    )
    y = (
        q[:, 0, 1, None] * w00
        + q[:, 1, 1, None] * w10
        + q[:, 2, 1, None] * w11
        + q[:, 3, 1, None] * w01
    )
    cells = _sample_xy(grey, x, y).reshape(n, _CELLS * _CELLS, -1)
    levels = cells.mean(axis=2)
    dark, light = _otsu_classes(levels)
    span = light - dark
    contrast = span >= _CONTRAST
    ratios = np.where(
        contrast[:, None],
        np.clip((levels - dark[:, None]) / np.maximum(span, 1e-9)[:, None], 0.0, 1.0),
        0.0,
    )
    spread = np.where(contrast, np.median(cells.std(axis=2), axis=1) / np.maximum(span, 1e-9), 1.0)
    return ratios, spread


def partner_reads(
    grey: NDArray[np.uint8],
    card: str,
    side: str,
    marker_id: int,
    seen_px: NDArray[np.floating],
    poses: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float32]]:
    """For a card named by one marker (id ``marker_id``, seen at ``seen_px`` (4, 2)), and
    each of its possible ``poses`` (p, 4, 2) (face outline TL, TR, BR, BL px): how much the
    square where that pose puts the face's other marker looks like it (likeness, as
    :data:`vision.identify.likeness.SOFT_MIN_SCORE`; -1 where no square of two levels is
    there), and that square's corners (p, 4, 2) float32 in ArUco order (snapped to its edges
    where they are seen)."""
    size, rects, _ = face_geometry(card, side)
    p = len(poses)
    if p == 0 or len(rects) != 2:
        return np.full(p, -1.0), np.full(p, -1.0), np.zeros((p, 4, 2), np.float32)
    face = _face_corners_mm(size).astype(np.float32)
    centre = np.asarray(seen_px, np.float64).reshape(4, 2).mean(axis=0)
    out = np.zeros((p, 4, 2), np.float64)
    for k in range(p):
        hom = cv2.getPerspectiveTransform(face, np.asarray(poses[k], np.float32))
        placed = [
            cv2.perspectiveTransform(r.corners().astype(np.float32)[None], hom)[0] for r in rects
        ]
        far = max(placed, key=lambda c: float(np.linalg.norm(c.mean(axis=0) - centre)))
        out[k] = far
    snapped = refine_marker_corners(grey, out.astype(np.float32)).astype(np.float64)
    ex, ey = _axes(snapped)
    shifted = snapped[:, None] + (
        _SHIFTS[None, :, 0, None, None] / _CELLS * ex[:, None, None, :]
        + _SHIFTS[None, :, 1, None, None] / _CELLS * ey[:, None, None, :]
    )  # (p, shifts, 4, 2)
    ratios, spread = cells_bilinear(grey, shifted.reshape(-1, 4, 2))
    templates, ids = _soft_templates()
    rows = np.flatnonzero(ids == marker_id)
    row = int(rows[0])  # its first turn: ArUco order
    every = (2.0 * ratios - 1.0) @ templates.T / templates.shape[1]  # (p * shifts, k * 4)
    score = every[:, row]
    rival = np.delete(every, rows, axis=1).max(axis=1)
    fine = (ratios.max(axis=1) > 0) & (spread <= MAX_CELL_SPREAD)
    score = np.where(fine, score, -1.0).reshape(p, len(_SHIFTS))
    lead = np.where(fine, every[:, row] - rival, -1.0).reshape(p, len(_SHIFTS))
    best = score.argmax(axis=1)
    at = np.arange(p)
    return score[at, best], lead[at, best], shifted[at, best].astype(np.float32)


def partners(grey: NDArray[np.uint8], cards: list[CodeCard]) -> list[CodeSighting]:
    """The partners seen of ``cards`` named by one marker alone (see the module docstring):
    one sighting for each card one of whose two poses has its partner seen
    (:data:`PARTNER_MIN_SCORE`, :data:`PARTNER_MIN_LEAD`) and the other not; soft when the
    marker was. Voted again with the frame's sightings, it places its card by both
    markers."""
    out: list[CodeSighting] = []
    for card in cards:
        if len(card.codes) != 1 or card.codes[0].kind != "marker":
            continue
        seen = card.codes[0]
        poses = np.concatenate([card.corners_px[None], card.alternatives])
        if len(poses) < 2:
            continue
        score, lead, corners = partner_reads(
            grey, card.card, card.side, _marker_id(card.card, card.side), seen.corners_px, poses
        )
        ok = np.flatnonzero((score >= PARTNER_MIN_SCORE) & (lead >= PARTNER_MIN_LEAD))
        if len(ok) != 1:
            continue
        found = sighting("marker", card.card, card.side, corners[ok[0]], soft=seen.soft)
        if found is not None:
            out.append(found)
    return out


def _marker_id(card: str, side: str) -> int:
    return int(face_codes(card, side).marker_id)  # type: ignore[arg-type]
