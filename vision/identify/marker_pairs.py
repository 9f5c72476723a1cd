"""A card's two markers read together: where a card's other marker must be, and whether it
is there.

Every card face carries its marker twice, at opposite corners and printed the same way up
(KIT.md; :func:`vision.identify.codes.face_geometry`). A small, blurred marker often reads a
cell wrong, or is not found as a dark square at all (blur joins it to a dark picture across
its 2 mm pad). But once one square of a card is seen, where its partner must be is known: a
fixed number of marker widths away, one place for each of the face's two markers the square
may be. The square there is sampled cell by cell (snapped to its edges where they are seen,
and at a few shifts) and compared with the marker and with every other marker of the kit.

- :func:`partners`: a card named by one marker alone (read bit for bit or by its likeness)
  takes the pose whose partner is seen, and is placed by both markers, at opposite corners,
  rather than extrapolated from one.
- :func:`paired_markers`: a dark square that neither reading names is named when one of the
  game's markers it is most like has its partner seen, and no other does. A square and a
  partner that both point to one marker are two reads of it: one square's cells, read a
  cell wrong, are also like a handful of other markers; its partner's, three to four of its
  widths away, are another sample. What they name is still checked against the card's
  picture (:func:`vision.identify.code_cards._by_codes`, as every reading by likeness).

Every likeness here is weighed against a square dark all over too (:func:`_templates`): a
marker nearly all dark is like any dark blob with a light speck."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify.blur_read import bilinear_points, blurred_markers
from vision.identify.codes import (
    _CELL_SAMPLES,
    _ROTATED,
    MAX_CELL_SPREAD,
    CodeCard,
    CodeSighting,
    _cell_read,
    _face_corners_mm,
    _inside_any,
    cell_levels,
    face_geometry,
    sighting,
)
from vision.identify.dark_squares import _CELLS, _sample_xy, refine_marker_corners
from vision.identify.likeness import _soft_templates, game_marker_ids
from vision.kit.codes import card_for_marker
from vision.kit.codes import marker_id as face_marker_id

#: The partner is seen where that pose puts it when the square there is like the marker
#: (likeness, as :data:`vision.identify.likeness.SOFT_MIN_SCORE`) by at least
#: PARTNER_MIN_SCORE and more like it than like any other marker of the kit (in any turn, or
#: a square dark all over) by PARTNER_MIN_LEAD (each the best over the shifts); a pose is
#: taken when its partner is seen and the other pose's is not. On rendered tables (codes
#: scenes, seed 0: 150 normal, 100 hard; 214 lone markers whose card was there), the wrong
#: pose's square was at best 0.16 less like the marker than like another (a marker of another
#: card where the wrong pose put it read 0.64 alike); the true pose's partner passed on 59
#: cards, the wrong pose's on none.
PARTNER_MIN_SCORE = 0.4
PARTNER_MIN_LEAD = 0.03
#: The partner's place is extrapolated from one small square (three to four of its widths
#: away): it is sampled at these shifts too (cells, along each of the square's axes).
_SHIFTS = np.array([(x, y) for y in (-0.35, 0.0, 0.35) for x in (-0.35, 0.0, 0.35)])


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
    bilinearly from its corners (:func:`vision.identify.blur_read.bilinear_points`): (n, 36)
    whiteness of each cell in the square's corner order, and each square's spread (n,)."""
    n = len(quads)
    if n == 0:
        return np.zeros((0, _CELLS * _CELLS)), np.zeros(0)
    centres = (np.stack(np.meshgrid(np.arange(_CELLS), np.arange(_CELLS)), -1) + 0.5).reshape(
        -1, 1, 2
    )
    uv = ((centres + _CELL_SAMPLES).reshape(-1, 2) / _CELLS).astype(np.float64)  # (p, 2)
    x, y = bilinear_points(quads, uv[:, 0], uv[:, 1])
    return cell_levels(_sample_xy(grey, x, y).reshape(n, _CELLS * _CELLS, -1))


@functools.cache
def _templates() -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """:func:`vision.identify.likeness._soft_templates` and one more row, id -1: a square
    dark all over. A marker nearly all dark (pickpic-043's back has two light cells of 16)
    is hardly more like a dark blob with a light speck (a knot of wood grain) than that
    square is: a likeness is evidence only by how much it leads that too."""
    templates, ids = _soft_templates()
    return np.vstack([templates, -np.ones(templates.shape[1])]), np.append(ids, -1)


def _partner_places(
    card: str, side: str, seen_px: NDArray[np.floating], poses: NDArray[np.float64]
) -> NDArray[np.float64] | None:
    """Where each of ``poses`` (p, 4, 2) (face outline TL, TR, BR, BL px) of a card seen by
    one marker (at ``seen_px`` (4, 2)) puts the face's other marker: (p, 4, 2) px in ArUco
    order; None when the face has not two markers."""
    size, rects, _ = face_geometry(card, side)
    if len(rects) != 2:
        return None
    face = _face_corners_mm(size).astype(np.float32)
    centre = np.asarray(seen_px, np.float64).reshape(4, 2).mean(axis=0)
    squares = np.stack([r.corners() for r in rects]).astype(np.float32).reshape(1, -1, 2)
    out = np.zeros((len(poses), 4, 2), np.float64)
    for k, pose in enumerate(poses):
        hom = cv2.getPerspectiveTransform(face, np.asarray(pose, np.float32))
        placed = cv2.perspectiveTransform(squares, hom)[0].reshape(2, 4, 2)
        out[k] = placed[np.argmax(np.linalg.norm(placed.mean(axis=1) - centre, axis=1))]
    return out


def _row(marker_id: int) -> int:
    """The row of :func:`_templates` of ``marker_id`` in its first turn (ArUco order)."""
    return int(np.flatnonzero(_templates()[1] == marker_id)[0])


def partner_reads(
    grey: NDArray[np.uint8],
    card: str,
    side: str,
    marker_id: int,
    seen_px: NDArray[np.floating],
    poses: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float32]]:
    """For a card named by one marker (id ``marker_id``, seen at ``seen_px`` (4, 2)), and
    each of its possible ``poses`` (p, 4, 2) (face outline TL, TR, BR, BL px): the square
    where that pose puts the face's other marker, read by :func:`likeness_and_lead`: its
    likeness to the marker, its lead, and its corners (p, 4, 2) float32 in ArUco order."""
    places = _partner_places(card, side, seen_px, poses)
    p = len(poses)
    if places is None or p == 0:
        return np.full(p, -1.0), np.full(p, -1.0), np.zeros((p, 4, 2), np.float32)
    return likeness_and_lead(grey, places, np.full(p, _row(marker_id), np.intp))


def partners(grey: NDArray[np.uint8], cards: list[CodeCard]) -> list[CodeSighting]:
    """The partners seen of ``cards`` named by one marker alone (see the module docstring):
    one sighting for each card one of whose two poses has its partner seen
    (:data:`PARTNER_MIN_SCORE`, :data:`PARTNER_MIN_LEAD`) and the other not; soft when the
    marker was. Voted again with the frame's sightings, it places its card by both
    markers. All the cards' places are read at once."""
    lone, places, rows = [], [], []
    for card in cards:
        if len(card.codes) != 1 or card.codes[0].kind != "marker" or not len(card.alternatives):
            continue
        poses = np.concatenate([card.corners_px[None], card.alternatives])
        found = _partner_places(card.card, card.side, card.codes[0].corners_px, poses)
        if found is None:
            continue
        lone.append((card, len(found)))
        places.append(found)
        rows += [_row(face_marker_id(card.card, card.side))] * len(found)  # type: ignore[arg-type]
    if not lone:
        return []
    own, lead, corners = likeness_and_lead(grey, np.concatenate(places), np.array(rows, np.intp))
    seen = (own >= PARTNER_MIN_SCORE) & (lead >= PARTNER_MIN_LEAD)
    out: list[CodeSighting] = []
    start = 0
    for card, n in lone:
        ok = np.flatnonzero(seen[start : start + n])
        if len(ok) == 1:
            s = sighting(
                "marker", card.card, card.side, corners[start + ok[0]], soft=card.codes[0].soft
            )
            if s is not None:
                out.append(s)
        start += n
    return out


def likeness_and_lead(
    grey: NDArray[np.uint8], squares: NDArray[np.float64], rows: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float32]]:
    """Each of ``squares`` (n, 4, 2), snapped to its edges where they are seen and sampled
    at :data:`_SHIFTS`: its likeness to the marker template ``rows`` (n,) names (rows of
    :func:`_templates`), the best over the shifts, and by how much that leads the best
    likeness of every other marker of the kit (any turn, any shift; a square dark all over
    too): each (n,), -1 where no shift shows a square of two levels with cells of one level
    each; and the square's corners at its best shift (n, 4, 2). The leads are worked out only
    for squares at least :data:`PARTNER_MIN_SCORE` like their marker (the others' are
    -1)."""
    templates, ids = _templates()
    n = len(squares)
    if n == 0:
        return np.zeros(0), np.zeros(0), np.zeros((0, 4, 2), np.float32)
    snapped = refine_marker_corners(grey, np.asarray(squares, np.float32)).astype(np.float64)
    ex, ey = _axes(snapped)
    shifted = snapped[:, None] + (
        _SHIFTS[None, :, 0, None, None] / _CELLS * ex[:, None, None, :]
        + _SHIFTS[None, :, 1, None, None] / _CELLS * ey[:, None, None, :]
    )  # (n, shifts, 4, 2)
    ratios, spread = cells_bilinear(grey, shifted.reshape(-1, 4, 2))
    ratios = 2.0 * ratios.reshape(n, len(_SHIFTS), -1) - 1.0
    fine = ((ratios.max(axis=2) > -1.0) & (spread.reshape(n, -1) <= MAX_CELL_SPREAD)).any(axis=1)
    ok = spread.reshape(n, -1) <= MAX_CELL_SPREAD
    own = np.einsum("nsc,nc->ns", ratios, templates[rows]) / templates.shape[1]
    own = np.where(ok, own, -1.0)
    best = own.argmax(axis=1)
    own = np.where(fine, own[np.arange(n), best], -1.0)
    lead = np.full(n, -1.0)
    check = np.flatnonzero(own >= PARTNER_MIN_SCORE)
    if len(check):
        every = ratios[check] @ templates.T / templates.shape[1]  # (c, shifts, k * 4 + 1)
        every = np.where(ok[check][..., None], every, -1.0).max(axis=1)
        same = ids[None] == ids[rows[check]][:, None]
        lead[check] = own[check] - np.where(same, -np.inf, every).max(axis=1)
    return own, lead, shifted[np.arange(n), best].astype(np.float32)


#: A dark square that no marker matched bit for bit nor by its likeness alone is named with
#: its partner (:func:`paired_markers`) when one of the game's markers it is most like
#: (:data:`PAIR_CANDIDATES`, at least SQUARE_MIN_SCORE alike, and more like it than a square
#: dark all over by PARTNER_MIN_LEAD) has its partner seen where one of the square's two
#: places on the card puts it (:data:`PARTNER_MIN_SCORE`, :data:`PARTNER_MIN_LEAD`), and no
#: other candidate or place does. On rendered tables (codes scenes of seed 0, 150 normal and
#: 100 hard, and 100 hard of seed 3; features scenes of seed 0, 100 hard) 83 squares were
#: named so, all right; before the dark square was a rival, 3 more named pickpic-043's back
#: (two light cells of 16) on a knot of wood grain or a dark picture, with no card there.
PAIR_CANDIDATES = 3
SQUARE_MIN_SCORE = 0.45


def paired_markers(
    grey: NDArray[np.uint8], quads: NDArray[np.float32], marker_ids: frozenset[int]
) -> list[tuple[int, NDArray[np.float32]]]:
    """Dark squares ``quads`` (n, 4, 2) named with their partner (see
    :data:`SQUARE_MIN_SCORE`): (marker id, (4, 2) float32 corners in ArUco order), the
    square's and its partner's, for each square named."""
    if not len(quads) or not marker_ids:
        return []
    ratios, spread = _cell_read(grey, quads)
    ratios = ratios.reshape(len(quads), -1)
    seen = np.flatnonzero((ratios.max(axis=1) > 0) & (spread <= MAX_CELL_SPREAD))
    if not len(seen):
        return []
    templates, ids = _soft_templates()
    game = np.isin(ids, np.fromiter(marker_ids, np.int64))
    score = (2.0 * ratios[seen] - 1.0) @ templates.T / templates.shape[1]  # (m, k * 4)
    dark = 1.0 - 2.0 * ratios[seen].mean(axis=1)  # likeness to a square dark all over
    # A square more like a marker that is on no card of the game (a fiducial of the play
    # area or the board, another game's card) is not one of the game's.
    mine = np.where(game[None], score, -np.inf).max(axis=1) >= score.max(axis=1)
    score = np.where(game[None], score, -np.inf).reshape(len(seen), -1, 4)
    # Each square's candidates: its PAIR_CANDIDATES best game markers, each at its best turn,
    # and for each the partner's place if the square is either of the face's two markers.
    square, rows, corners, partner = [], [], [], []
    for j, i in enumerate(seen.tolist()):
        if not mine[j]:
            continue
        for row in np.argsort(-score[j].max(axis=1))[:PAIR_CANDIDATES].tolist():
            turn = int(np.argmax(score[j, row]))
            if score[j, row, turn] < SQUARE_MIN_SCORE:
                break
            if score[j, row, turn] - dark[j] < PARTNER_MIN_LEAD:
                continue  # no more like it than a square dark all over
            named = card_for_marker(int(ids[row * 4]))
            if named is None:
                continue
            _, rects, _ = face_geometry(*named)
            if len(rects) != 2:
                continue
            a, b = rects
            d = np.array([(b.x - a.x) / a.w, (b.y - a.y) / a.h])
            c = quads[i][_ROTATED[turn]].astype(np.float64)
            ex, ey = _axes(c)
            for sign in (1.0, -1.0):
                square.append(i)
                rows.append(row * 4)  # the partner in ArUco order: the marker's first turn
                corners.append(c)
                partner.append(c + sign * (d[0] * ex + d[1] * ey))
    if not square:
        return []
    own, lead, placed = likeness_and_lead(grey, np.stack(partner), np.array(rows, np.intp))
    ok = (own >= PARTNER_MIN_SCORE) & (lead >= PARTNER_MIN_LEAD)
    out: list[tuple[int, NDArray[np.float32]]] = []
    for i in sorted(set(square)):
        hits = [h for h in range(len(square)) if square[h] == i and ok[h]]
        if len(hits) == 1:
            h = hits[0]
            mid = int(ids[rows[h]])
            out += [(mid, corners[h].astype(np.float32)), (mid, placed[h])]
    return out


def off_outlines(
    squares: NDArray[np.floating], outlines: Sequence[NDArray[np.floating]]
) -> NDArray[np.bool_]:
    """(m,) whether each square of ``squares`` (m, 4, 2) has its centre outside every
    outline (4, 2) of ``outlines`` (strictly: a centre on an outline's side is not off it):
    ``cv2.pointPolygonTest``'s answer for each centre and outline, its steps taken for all
    of them at once (its float32 points; the crossings' sign worked out in float64)."""
    free = np.ones(len(squares), bool)
    if not len(squares) or not len(outlines):
        return free
    p = np.asarray(np.asarray(squares).mean(axis=1), np.float32)[:, None, None, :]  # (m,1,1,2)
    v = np.stack([np.asarray(o, np.float32).reshape(-1, 2) for o in outlines])[None]
    v0 = np.roll(v, 1, axis=2)  # each side from the vertex before to the vertex
    px, py, x, y, x0, y0 = p[..., 0], p[..., 1], v[..., 0], v[..., 1], v0[..., 0], v0[..., 1]
    skip = ((y0 <= py) & (y <= py)) | ((y0 > py) & (y > py)) | ((x0 < px) & (x < px))
    on = (
        skip
        & (py == y)
        & ((px == x) | ((py == y0) & (((x0 <= px) & (px <= x)) | ((x <= px) & (px <= x0)))))
    )
    f64 = np.float64
    dist = f64(py - y0) * f64(x - x0) - f64(px - x0) * f64(y - y0)
    on |= ~skip & (dist == 0)
    dist = np.where(y < y0, -dist, dist)
    inside = (~skip & (dist > 0)).sum(axis=2) % 2 == 1
    return np.asarray(~(on.any(axis=2) | inside).any(axis=1))


def unread_sightings(
    grey: NDArray[np.uint8], cards: list[CodeCard], squares: NDArray[np.float32], game: str
) -> list[CodeSighting]:
    """Sightings of the game's markers among dark ``squares`` left unread that lie on none
    of ``cards`` (the frame's, voted) that two codes (or a QR code) place (the dark squares
    of a card's own picture and QR code are not looked at again): named by their
    correlation with the markers as blur shows them
    (:func:`vision.identify.blur_read.blurred_markers`), and those left by that with their
    partner (:func:`paired_markers`); all marked ``soft``."""
    placed = [c.corners_px for c in cards if len(c.codes) >= 2 or "qr" in c.kinds]
    squares = squares[off_outlines(squares, placed)]
    ids = game_marker_ids(game)
    named = blurred_markers(grey, squares, ids)
    taken = np.array([c for _, c in named], np.float32).reshape(-1, 4, 2)
    left = squares[~_inside_any(squares, taken)]
    out: list[CodeSighting] = []
    for marker, corners in [*named, *paired_markers(grey, left, ids)]:
        card = card_for_marker(marker)
        if card is None:
            continue
        s = sighting("marker", card[0], card[1], corners, soft=True)
        if s is not None:
            out.append(s)
    return out
