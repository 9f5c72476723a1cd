"""A card's two markers read where its outline puts them (issue 26, part 3).

A small card's marker, 10-20 px wide and blurred, is often not found as a dark square at all:
across its 2 mm white pad, blur joins it to a dark picture (or to the card's own dark
border), and the adaptive threshold sees one blob. The card's outline is still seen
against the table, and where its markers lie on it is known (KIT.md,
:func:`vision.identify.codes.face_geometry`): both at opposite corners, printed the same way
up, so a card's outline, first side short, puts them at the same two places whichever way
up it lies (turned half round, each square holds the other marker, turned half round too).

Each card-shaped outline that no code names (:func:`vision.identify.quads.find_outlines`,
in what the cards named leave of the silhouettes) is read in its two poses: its two marker
squares are sampled on :mod:`vision.identify.blur_read`'s grid and correlated with every
marker of the game in the turn the pose gives, each as blur would show it. A marker's score
is the mean of its two squares'; the outline is named by the best marker when that scores
at least :data:`MIN_SCORE`, each square :data:`MIN_SQUARE`, and leads every other marker of
the kit (in any turn, either pose) by :data:`MIN_LEAD`, and where the card's picture agrees with
the face named, and no less than with the runner-up's. Each square is first moved to where
the ring every marker shares (its black border, its white pad) is seen best, round where
the outline puts it (:func:`_located`). What it names is a pair of soft sightings (both
squares), counted only where the card's picture agrees, as every reading by likeness
(:func:`vision.identify.code_cards._by_codes`): the card is placed by its two markers.

The card's size where it lies is told from the cards the codes name (their centres and
heights, ``heights_at`` of :func:`~vision.identify.quads.find_outlines`): on the hard
development sets 8 cards more than without, 0 wrong. The table's markers read among the
squares no card's marker matched (the play area's 40 mm, the Picasso board's 30 mm) tell it
too, and their white squares, card-sized silhouettes of no card, give no outline
(``fiducials``): on a normal table, 6 to 8 of a frame's 8 to 22 outlines were theirs (3 or 4
markers in view, each square both ways round), all read for nothing, and a lone card far
from the others had its size told by those squares taken for cards. Hard tables of
development sets: codes, the kit's look seed 0 573 -> 581 cards of 647, development looks
seed 3 498 -> 502 of 596, codes and pictures seed 2 557 -> 561 of 621, the second drawer
seed 2 251 -> 252 of 299; the normal tier seed 0 983 of 984 as before; 0 wrong throughout.

A best marker that leads narrowly (under :data:`MIN_LEAD`), or trails another marker of the
kit by less than that, names the card only where its picture is the likest of the game's
faces (:data:`PICTURED_LEAD`), by its cells' agreement or as a whole (:data:`LIKENESS_LEAD`),
and, trailing another game's card's marker, agrees with the face named more than with that
card's. Where the game's likest marker fails these tests, the next likest are tried
(:data:`CANDIDATES`). Two outlines naming one card name it once, by the squares that score
best. The game's backs
are one picture: a back is named instead where its big QR code, read by likeness, tells it
(:func:`_backed_by_code`, :mod:`vision.identify.back_qr`), and so is a back that leads by
:data:`MIN_LEAD` but whose picture cannot be told from the runner-up's. The card is
placed by the affine map that fits its two squares best (:func:`_affine_squares`). Besides
the outlines the edges give, pairs of dark squares that no marker matched bit for bit and
that lie as a card's two markers give outlines too (:func:`pair_outlines`): a small card
whose white frame lies on a pale table shows no edge all round.

For games whose every face carries two markers at opposite corners (:func:`_layouts`):
Pick Pic, Pic Flip and Picasso's word cards have one layout; Picmix has two, its portrait
objective cards (markers top left and bottom right) and its landscape player cards, whose
markers lie on the other diagonal of the same rectangle seen upright. Each outline is read
in each layout, with that layout's markers only at that layout's squares (a square holds no
marker of the other layout's faces); a landscape face's own corners are the upright
outline's turned a quarter round. Picmix's objective cards were not read this way before
(every face had to share one layout): on 30 hard claims of the second drawer (development
looks, seed 0), the objective fronts at least 60% in view that the card reader named went
from 16 to 25 of 28, no wrong objective named."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from vision.identify import back_qr, blur_read, quads
from vision.identify.candidates import _long_side
from vision.identify.codes import (
    _ROTATED,
    CodeSighting,
    _face_corners_mm,
    _lstsq_homographies,
    face_geometry,
    sighting,
)
from vision.identify.dark_squares import _sample_xy
from vision.identify.marker_pairs import _axes, off_outlines
from vision.identify.outlines import _silhouettes_less, heights_by_markers
from vision.kit.codes import card_for_marker, marker_table

#: An outline is named by the best marker of the game when the mean of its two squares'
#: correlations is at least MIN_SCORE, each square's MIN_SQUARE, and it leads every other
#: marker of the kit (the mean of its two squares in one turn: any turn, so either pose) by
#: MIN_LEAD; and when the card's picture where the outline lies agrees with the face named
#: at least as well as with the face of the game's runner-up marker, and by PICTURE_MIN
#: (``Thresholds.agree``, what makes a picture's agreement evidence). Development sets,
#: hard codes tables (project's camera: seed 0 default looks, seed 5 development looks;
#: the second drawer: seeds 0 and 5, development looks; 623 outlines read): by the lead
#: alone, 0.04 named 210 cards right and 4 outlines wrongly, 0.05 183 and 2, 0.06 156 and
#: 0; with the picture's two tests, 0.06 named 144, none wrong. PICTURE_MIN is what keeps
#: a real photo clean: in the inside of a phone's photographed QR code
#: (zxing-qrcode/qrcode-3/38.png) an outline of modules led by 0.06-0.08, its picture
#: agreeing 0.33. (0.35 when the picture's colours were fitted by an offset alone: fitted in
#: their saturation too, ``code_cards.PRINT_CHROMA``, other faces pass 0.38 as often as they
#: passed 0.35.)
MIN_SCORE = 0.6
MIN_SQUARE = 0.4
MIN_LEAD = 0.06
PICTURE_MIN = 0.38
#: An outline whose best marker leads every other marker of the kit by less than MIN_LEAD,
#: but by PICTURED_LEAD or more, is named only when the card's picture there agrees with the
#: face named more than with any other face of the game, either way up (and by PICTURE_MIN):
#: the marker and the picture, read apart, name the same face of the game's 240. On
#: development sets (hard codes tables: the project's camera, development looks seeds 2 and
#: 3 and wide looks seed 0; the second drawer, development looks seed 0; 6,400 outlines),
#: 289 outlines had their best marker lead by 0 to MIN_LEAD: 107 named a card that was not
#: there, and for none of them was that face's picture the likest (the closest ranked 5th);
#: of the 182 named right, 92 passed (146 were fronts: the game's backs are one picture, so
#: a back is never named this way; its code tells it instead, :func:`_backed_by_code`).
#: Without the picture's test, the hard sets of seeds 2 and 3 named 34 cards more and 3
#: wrong. The same holds for a best marker that trails another of the kit by up to 0.06
#: (PICTURED_LEAD below 0; 0 before 2026-12-07): of 203 such outlines on four hard
#: development sets (development looks seeds 2 and 3, wide looks seed 2, the kit's look
#: seed 0), 159 named a card that was not there (none of them passed the picture's tests)
#: and 44 the card there (28 passed by the cells' agreement, 4 more by likeness). Trailing
#: the marker of another game's card, the picture must agree with the face named more than
#: with that card's (:func:`_likelier_than_foreign`).
PICTURED_LEAD = -0.06
#: The card's picture is also the named face's, more than any other face's of the game,
#: where its likeness to it (``code_cards._game_face_agreement``: the cosine of the whole
#: card's descriptors, lightness and colour normalised) leads every other face's, either way
#: up, by more than LIKENESS_LEAD. The agreement counts cells within a few Lab units once
#: the light is fitted: on a small, blurred card in pale ink the fit flattens every face
#: alike, and other faces agreed as well as the card's own or better (the right face ranked
#: 13th to 180th on some development outlines). On the four sets above, of the outlines on
#: a front whose best marker led by 0 to MIN_LEAD, 210 on the card named (170 passed by
#: agreement, 196 by agreement or likeness at 0.03) and 35 on no such card (none passed
#: either: their likeness trailed another face's by 0.054 or more).
LIKENESS_LEAD = 0.03

#: The game's faces and, for poses (k, 4, 2), their agreement and likeness with each (k, f):
#: ``code_cards._game_face_agreement``.
Pictures = Callable[
    [NDArray[np.float64]],
    tuple[Sequence[tuple[str, str]], NDArray[np.float64], NDArray[np.float64]],
]
#: The game's markers tried at an outline, the likest first, each through the same tests,
#: until one passes: where the likest's face is not the card's picture (or a back's code),
#: the card's own marker a little behind may be. A marker behind the likest needs the
#: picture to be its face's by both the cells' agreement and the likeness as a whole (by
#: either, one outline of the development sets named a card that was not there: 0.73
#: against 0.70 by agreement, 0.40 against 0.66 by likeness). Hard development sets, codes
#: (development looks seeds 2 and 3, wide looks seed 2, the kit's look seed 0; the second
#: drawer's development looks seeds 0 and 5): 574 -> 577, 528 -> 531, 560 -> 565,
#: 593 -> 593, 309 -> 309, 273 -> 274; no wrong id; placed off 10 -> 11.
CANDIDATES = 3
#: Outlines read a frame, the best supported first.
MAX_OUTLINES = 24
#: An outline is often a few pixels off (a cell is 2-3): each square is looked for at these
#: scales and shifts (cells, along its axes) round where the outline puts it, and taken
#: where the ring every marker shares is seen best (:func:`_located`). Against taking the
#: best of every marker's correlation over the same places (75 a square: a whole hard frame
#: read in 190 ms against 32), the ring found more cards on the same sets (183 against
#: 157 at a lead of 0.05).
SCALES = np.array([0.9, 1.0, 1.1])
SHIFTS = np.array(
    [(x, y) for y in (-0.6, -0.3, 0.0, 0.3, 0.6) for x in (-0.6, -0.3, 0.0, 0.3, 0.6)]
)


class Layout(NamedTuple):
    """Where a group of the game's faces carry their two markers, seen on a portrait outline
    (first side short at the top): ``face`` the portrait face's corners (4, 2) mm, ``squares``
    the two marker squares (2, 4, 2) mm on it, each square's corners in its marker's own
    order; ``turn`` 0 for portrait faces, 1 for landscape faces (turned a quarter round
    onto the portrait outline: the face's own corners are the outline's rolled by one);
    ``ids`` the marker ids printed on those faces."""

    face: NDArray[np.float64]
    squares: NDArray[np.float64]
    turn: int
    ids: frozenset[int]


@functools.cache
def _layouts(game: str) -> tuple[Layout, ...]:
    """The game's faces grouped by where they carry their two markers (:class:`Layout`):
    Pick Pic's and Pic Flip's faces have one layout, Picmix's two (its portrait objective
    cards, markers top left and bottom right; its landscape player cards, whose markers lie
    on the other diagonal of a portrait outline). None when a face of the game carries other
    than two markers."""
    groups: dict[bytes, tuple[NDArray[np.float64], NDArray[np.float64], int, set[int]]] = {}
    for marker, (card, side) in marker_table().items():
        if not card.startswith(f"{game}-"):
            continue
        size, markers, _ = face_geometry(card, side)
        if len(markers) != 2:
            return ()
        squares = np.stack([m.corners().astype(np.float64) for m in markers])
        turn = int(size[0] > size[1])
        if turn:  # landscape (w, h): (x, y) -> (h - y, x), a quarter turn onto portrait
            squares = np.stack([size[1] - squares[..., 1], squares[..., 0]], axis=-1)
        face = _face_corners_mm((min(size), max(size)))
        key = np.round(np.concatenate([face.ravel(), squares.ravel()]), 3).tobytes() + bytes([turn])
        groups.setdefault(key, (face, squares, turn, set()))[3].add(int(marker))
    return tuple(
        Layout(face, squares, turn, frozenset(ids))
        for face, squares, turn, ids in sorted(groups.values(), key=lambda g: g[2])
    )


def _apply(h: NDArray[np.float64], pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Points (m, 2) through each of homographies (n, 3, 3): (n, m, 2)."""
    p = np.einsum("nij,mj->nmi", h, np.hstack([pts, np.ones((len(pts), 1))]))
    return p[..., :2] / p[..., 2:]


#: The ring every marker shares, sampled on a grid a little wider than the square: its
#: outer cells black, a band outside it white (its pad: 2 mm of a 20 mm marker), its inner
#: cells not looked at.
_RING_OUT = 0.08
_RING_GRID = 16


@functools.cache
def _ring() -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """(u, v) sample points (p,) in the square's coordinates and the ring's template (p,),
    zero mean and unit norm over them."""
    g = (np.arange(_RING_GRID) + 0.5) / _RING_GRID * (1 + 2 * _RING_OUT) - _RING_OUT
    u, v = (a.ravel() for a in np.meshgrid(g, g))
    inside = (u >= 0) & (u <= 1) & (v >= 0) & (v <= 1)
    edge = np.minimum(np.minimum(u, 1 - u), np.minimum(v, 1 - v))
    ring = inside & (edge < 1 / 6)
    keep = ~inside | ring
    t = np.where(ring, -1.0, 1.0)[keep]
    t -= t.mean()
    t /= np.linalg.norm(t)
    return u[keep], v[keep], t


def _ring_scores(grey: NDArray[np.uint8], quads: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n,) correlation of each square (n, 4, 2) with the ring every marker shares
    (:func:`_ring`)."""
    u, v, t = _ring()
    s = _sample_xy(grey, *blur_read.bilinear_points(quads, u, v)).reshape(len(quads), -1)
    s = s.astype(np.float64)
    s -= s.mean(axis=1, keepdims=True)
    s /= np.linalg.norm(s, axis=1, keepdims=True) + 1e-9
    return s @ t


def _located(grey: NDArray[np.uint8], sq: NDArray[np.float64]) -> NDArray[np.float64]:
    """Squares (n, 2, 4, 2) moved to where the ring every marker shares is seen best, among
    :data:`SCALES` and :data:`SHIFTS` (cells) round them."""
    n = len(sq)
    centre = sq.mean(axis=2, keepdims=True)
    ex, ey = (a[:, :, None, None] / 6 for a in _axes(sq))  # a cell along each axis
    scaled = centre[:, :, None] + SCALES[None, None, :, None, None] * (sq - centre)[:, :, None]
    moved = (
        scaled[:, :, :, None]
        + SHIFTS[None, None, None, :, None, 0:1] * ex[:, :, None]
        + SHIFTS[None, None, None, :, None, 1:2] * ey[:, :, None]
    ).reshape(n, 2, -1, 4, 2)
    best = _ring_scores(grey, moved.reshape(-1, 4, 2)).reshape(n, 2, -1).argmax(axis=2)
    return np.take_along_axis(moved, best[:, :, None, None, None], axis=2)[:, :, 0]


def _affine_squares(
    squares: NDArray[np.float64], found: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The face's two marker squares ``squares`` (2, 4, 2) mm mapped by the affine map that
    fits each outline's found squares ``found`` (n, 2, 4, 2) best (least squares over the 8
    corners): a small card's two squares, 10-15 px wide, fix a homography's perspective
    poorly, and the card is placed by them (on 437 outlines read right on development
    sets, 31 cards more than 10% of their height off by the homography of the squares as
    found, 24 by the affine fit)."""
    return _affine_fit(squares.reshape(8, 2), found.reshape(len(found), 8, 2))[1].reshape(
        found.shape
    )


def _affine_fit(
    points: NDArray[np.float64], targets: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The affine maps (n, 3, 2) that take ``points`` (k, 2) nearest to each set of
    ``targets`` (n, k, 2) (least squares), and ``points`` mapped by each (n, k, 2)."""
    src = np.hstack([points, np.ones((len(points), 1))])  # (k, 3)
    maps = np.einsum("ij,njk->nik", np.linalg.pinv(src), targets)
    return maps, np.einsum("ij,njk->nik", src, maps)


#: Two dark squares are a card's two markers when their sizes differ by at most this ratio,
#: their centres lie as far apart as the face's (3.6 marker sides) within PAIR_SLACK of that,
#: and the affine map of the face's two marker squares onto them fits their 8 corners within
#: PAIR_FIT of a side (root mean square).
PAIR_SIZE_RATIO = 1.35
PAIR_SLACK = 0.2
PAIR_FIT = 0.12


def pair_outlines(
    dark: NDArray[np.float64],
    face: NDArray[np.float64],
    squares: NDArray[np.float64],
    placed: Sequence[NDArray[np.float64]],
) -> NDArray[np.float64]:
    """Card outlines (k, 4, 2), first side short, given by pairs of ``dark`` squares (m, 4,
    2) that lie as a card's two markers ``squares`` (2, 4, 2) mm on its ``face`` (4, 2) mm
    do, off the cards ``placed``: the affine map of the face's two squares that fits the
    pair's 8 corners best, among the four ways a square's corners can follow its marker's
    and the two ways the pair can follow the face's squares. A small card on a pale table
    (a white frame on light wood) shows no edge all round, but its two markers show as
    dark squares that no marker matched bit for bit."""
    if len(dark) < 2:
        return np.zeros((0, 4, 2))
    dark = dark[off_outlines(dark, placed)]
    centres = dark.mean(axis=1)
    side = np.linalg.norm(dark - np.roll(dark, -1, axis=1), axis=2).mean(axis=1)
    mm = np.linalg.norm(squares[0, 1] - squares[0, 0])
    apart = np.linalg.norm(squares[1].mean(axis=0) - squares[0].mean(axis=0)) / mm
    i, j = np.triu_indices(len(dark), 1)
    s = (side[i] + side[j]) / 2
    d = np.linalg.norm(centres[i] - centres[j], axis=1) / np.maximum(s, 1e-9)
    keep = (np.maximum(side[i], side[j]) <= PAIR_SIZE_RATIO * np.minimum(side[i], side[j])) & (
        np.abs(d - apart) <= PAIR_SLACK * apart
    )
    i, j, s = i[keep], j[keep], s[keep]
    if not len(i):
        return np.zeros((0, 4, 2))
    # Hypotheses: the pair either way round, each square's corners in 4 rolls and either
    # direction (both squares the same way: the markers are printed the same way up).
    order = [np.roll(np.arange(4), -r)[::d] for r in range(4) for d in (1, -1)]
    best_err = np.full(len(i), np.inf)
    best = np.zeros((len(i), 3, 2))
    for a, b in ((i, j), (j, i)):
        for o in order:
            dst = np.concatenate([dark[a][:, o], dark[b][:, o]], axis=1)  # (p, 8, 2)
            m, fit = _affine_fit(squares.reshape(8, 2), dst)
            err = np.sqrt(((fit - dst) ** 2).sum(axis=2).mean(axis=1))
            # A mirrored fit is no card: the face seen from below.
            err[m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0] <= 0] = np.inf
            better = err < best_err
            best_err[better], best[better] = err[better], m[better]
    good = best_err <= PAIR_FIT * s
    return np.einsum("ij,pjk->pik", np.hstack([face, np.ones((4, 1))]), best[good])


#: Dark squares paired a frame, those most like a marker's ring first (a printed cloth of
#: small dark marks leaves hundreds).
MAX_DARK = 48


def _ringed(grey: NDArray[np.uint8], dark: NDArray[np.float64]) -> NDArray[np.float64]:
    """``dark`` (m, 4, 2) ordered by how much each looks like the ring every marker shares
    (black border, white pad; :func:`_ring`), most first."""
    if not len(dark):
        return dark
    return dark[np.argsort(-_ring_scores(grey, dark), kind="stable")]


def _likest_picture(
    pictures: Pictures | None,
    outline: NDArray[np.float64],
    named: tuple[str, str],
    both: bool = False,
) -> bool:
    """Whether the card's picture on ``outline`` is the face ``named``'s more than any other
    face's of the game, on the outline as it lies or turned half round: its agreement with
    it by :data:`PICTURE_MIN` and more than with any other, or (``both``: and) its likeness
    more than any other's by :data:`LIKENESS_LEAD`."""
    if pictures is None:
        return False
    faces, agree, likeness = pictures(np.stack([outline, np.roll(outline, 2, axis=0)]))
    faces = list(faces)
    if tuple(named) not in faces:
        return False
    k = faces.index(tuple(named))
    by_cells = _leads(agree, k, 0.0, PICTURE_MIN)
    as_whole = _leads(likeness, k, LIKENESS_LEAD, -np.inf)
    return (by_cells and as_whole) if both else (by_cells or as_whole)


def _remembered(pictures: Pictures) -> Pictures:
    """``pictures`` answering poses it was asked before (the same corners) from memory."""
    memo: dict[bytes, tuple[Sequence[tuple[str, str]], NDArray[np.float64], NDArray[np.float64]]]
    memo = {}

    def remembered(poses: NDArray[np.float64]):
        key = np.ascontiguousarray(poses, np.float64).tobytes()
        if key not in memo:
            memo[key] = pictures(poses)
        return memo[key]

    return remembered


def _leads(score: NDArray[np.float64], k: int, lead: float, least: float) -> bool:
    """Whether ``score[0, k]`` (the face ``k`` on the outline as it lies) is at least
    ``least`` and more than every other of ``score`` (every face, either way up) by more than
    ``lead``."""
    others = score.copy()
    others[0, k] = -np.inf
    mine = float(score[0, k])
    return mine >= least and mine - float(others.max()) > lead


def _backed_by_code(
    grey: NDArray[np.uint8],
    squares: NDArray[np.float64],
    found: NDArray[np.float64],
    pose: int,
    card: str,
    game: str,
) -> bool:
    """Whether the back's code where the card's two squares ``found`` (2, 4, 2) px put it
    (the affine map of the face's ``squares`` (2, 4, 2) mm that fits them best) is
    ``card``'s (:func:`vision.identify.back_qr.confirms`), the card as it lies (``pose`` 0)
    or turned half round (1)."""
    face_to_frame = _affine_fit(squares.reshape(8, 2), found.reshape(1, 8, 2))[0][0]
    return back_qr.confirms(grey, face_to_frame, pose, card, game)


def _agrees(
    agreement: Callable[[NDArray[np.float64], list[tuple[str, str]]], NDArray[np.float64]] | None,
    outline: NDArray[np.float64],
    named: tuple[str, str],
) -> bool:
    """Whether the card's picture on ``outline`` agrees with the face ``named`` by
    :data:`PICTURE_MIN`."""
    return agreement is not None and float(agreement(outline[None], [named])[0]) >= PICTURE_MIN


def _likelier_than_foreign(
    agreement: Callable[[NDArray[np.float64], list[tuple[str, str]]], NDArray[np.float64]] | None,
    outline: NDArray[np.float64],
    named: tuple[str, str],
    rival: tuple[str, str] | None,
    game: str,
) -> bool:
    """Whether the card's picture on ``outline`` agrees with the face ``named`` more than with
    the face ``rival`` (its rival marker's) when that is another game's card: a card of
    another game on the table, whose own marker leads, is not named by the game's marker
    its blurred squares look like next."""
    if rival is None or rival[0].startswith(f"{game}-"):
        return True
    if agreement is None:
        return False
    a = agreement(np.stack([outline, outline]), [named, rival])
    return float(a[0]) > float(a[1])


def _on_other_marker(
    found: NDArray[np.floating], named: tuple[str, str], read: Sequence[CodeSighting]
) -> bool:
    """Whether either of an outline's two squares ``found`` (2, 4, 2) has its centre on a
    marker read bit for bit (``read``) of another face than ``named`` (card, side): that
    square is the other card's marker, and the outline, cut across the cards, is not
    ``named``'s."""
    others = [
        s.corners_px
        for s in read
        if s.kind == "marker" and not s.soft and (s.card, s.side) != named
    ]
    return bool(others) and not off_outlines(np.asarray(found, np.float64), others).all()


def outline_sightings(
    grey: NDArray[np.uint8],
    grads: quads.Gradients,
    regions: tuple[NDArray[np.uint8], float],
    placed: Sequence[NDArray[np.float64]],
    game: str,
    agreement: Callable[[NDArray[np.float64], list[tuple[str, str]]], NDArray[np.float64]]
    | None = None,
    pictures: Pictures | None = None,
    dark: NDArray[np.float32] | None = None,
    fiducials: tuple[NDArray[np.float32], NDArray[np.intp]] | None = None,
    read: Sequence[CodeSighting] = (),
) -> list[CodeSighting]:
    """Soft marker sightings read where card outlines put a card's markers (see the module
    docstring); ``regions``: :func:`vision.identify.quads.silhouettes` of ``grey``;
    ``dark``: the dark squares (m, 4, 2) no marker matched bit for bit (pairs of them lying
    as a card's two markers give outlines too, :func:`pair_outlines`);
    ``placed``: (4, 2) corners of the cards the codes already place; ``agreement``: the
    agreement of poses (k, 4, 2) with the faces (card, side) given for them; ``pictures``:
    the game's faces and the agreement of poses (k, 4, 2) with each (k, f); ``fiducials``:
    the table's markers read ((m, 4, 2) corners, (m,) ids): their white squares give no
    outline, and their size tells the card's where they lie; ``read``: the markers read bit
    for bit (an outline whose square lies on one names no other face:
    :func:`_on_other_marker`)."""
    layouts = _layouts(game)
    if not layouts:
        return []
    if pictures is not None:
        # The game's likest markers at one outline ask for the same two poses' pictures.
        pictures = _remembered(pictures)
    not_cards, heights_at = None, np.zeros((0, 3))
    if fiducials is not None and len(fiducials[0]):
        not_cards = fiducials[0]
        heights_at = heights_by_markers(*fiducials, float(layouts[0].face[:, 1].max()))
    if len(placed):
        regions = (_silhouettes_less(regions, placed, 3), regions[1])
        heights_at = np.concatenate(
            [heights_at, np.array([[*q.mean(axis=0), _long_side(q)] for q in placed])]
        )
    outlines = quads.find_outlines(
        grey,
        grads=grads,
        regions=regions,
        heights_at=heights_at if len(heights_at) else None,
        not_cards=not_cards,
    )
    outlines = outlines[:MAX_OUTLINES]
    ringed = None
    if dark is not None and len(dark):
        ringed = _ringed(grey, np.asarray(dark, np.float64)[off_outlines(dark, placed)])[:MAX_DARK]
    edges = np.stack([o.corners_px for o in outlines]) if outlines else np.zeros((0, 4, 2))
    best: dict[tuple[str, str], tuple[float, list[CodeSighting]]] = {}
    for layout in layouts:
        _read_layout(grey, layout, edges, ringed, agreement, pictures, read, game, best)
    return [s for _, pair in best.values() for s in pair]


def _read_layout(
    grey: NDArray[np.uint8],
    layout: Layout,
    edges: NDArray[np.float64],
    dark: NDArray[np.float64] | None,
    agreement: Callable[[NDArray[np.float64], list[tuple[str, str]]], NDArray[np.float64]] | None,
    pictures: Pictures | None,
    read: Sequence[CodeSighting],
    game: str,
    best: dict[tuple[str, str], tuple[float, list[CodeSighting]]],
) -> None:
    """:func:`outline_sightings` for the faces of one ``layout``: the outlines ``edges``
    (m, 4, 2, first side short) and those pairs of ``dark`` squares give, read with that
    layout's markers at its squares; each face named there put in ``best`` (its score and
    its pair of sightings) unless a better-scored reading of it is there."""
    face, squares = layout.face, layout.squares
    paired = np.zeros((0, 4, 2))
    if dark is not None and len(dark):
        paired = pair_outlines(dark, face, squares, [])
    corners = np.concatenate([paired, edges]).astype(np.float64)
    if not len(corners):
        return
    # The two squares where the outline, first side short at the top, puts them (turned half
    # round, the card has its markers at the same two places).
    h, ok = _lstsq_homographies(np.broadcast_to(face, corners.shape), corners)
    corners, h = corners[ok], h[ok]
    n = len(corners)
    if not n:
        return
    sq = _apply(h, squares.reshape(-1, 2)).reshape(n, 2, 4, 2)
    found = _located(grey, sq)  # (n, 2, 4, 2)
    fitted = _affine_squares(squares, found)
    columns = blur_read.marker_columns()
    turn = np.arange(len(columns)) % 4
    score = blur_read.correlations(
        grey, found.reshape(-1, 4, 2).astype(np.float32), layout.ids
    ).reshape(n, 2, -1)
    ids = columns[turn == 0]
    # (n, pose, square, marker): the turn each pose gives (0, or 2 turned half round).
    mine = np.stack([score[:, :, turn == 0], score[:, :, turn == 2]], axis=1)
    joint = mine.mean(axis=2)  # (n, pose, marker)
    for i in range(n):
        kit = None
        # The game's markers, the likest first: where one fails the tests below, the next
        # is tried (CANDIDATES); one trailing another of the kit's by more than
        # -PICTURED_LEAD is not named.
        for rank, flat in enumerate(np.argsort(-joint[i], axis=None)[:CANDIDATES]):
            pose, col = np.unravel_index(int(flat), joint[i].shape)
            top = float(joint[i, pose, col])
            marker = int(ids[col])
            each = mine[i, pose, :, col]
            if top < MIN_SCORE or each.min() < MIN_SQUARE:
                continue
            # Every other marker of the kit, in any turn (a rival scores as the mean of its
            # two squares in one turn).
            if kit is None:
                kit = blur_read.correlations(grey, found[i].astype(np.float32)).mean(axis=0)
            every = np.where(columns == marker, -np.inf, kit)
            rival = float(every.max())
            named = card_for_marker(marker)
            if named is None or top - rival < PICTURED_LEAD:
                continue
            if _on_other_marker(found[i], named, read):
                continue
            # The face's own corners: the outline's as it lies or turned half round, and a
            # landscape face's a quarter further.
            outline = np.roll(corners[i], -(2 * int(pose) + layout.turn), axis=0)
            # Trailing a marker of another game's card: the picture must be the game's face's
            # more than that card's.
            if top < rival and not _likelier_than_foreign(
                agreement,
                outline,
                named,
                card_for_marker(int(columns[int(np.argmax(every))])),
                game,
            ):
                continue
            # A back: the game's backs are one picture, told apart by their codes alone.
            back = named[1] == "back" and back_qr.templates(game) is not None and not layout.turn
            if top - rival < MIN_LEAD:
                # The picture the likest of the game's faces: more than the runner-up's too; a
                # back's code its back's, and its picture a back's.
                if back:
                    if not (
                        _backed_by_code(grey, squares, found[i], int(pose), named[0], game)
                        and _agrees(agreement, outline, named)
                    ):
                        continue
                elif not _likest_picture(pictures, outline, named, both=rank > 0):
                    continue
            else:
                other = np.where(ids[None] == marker, -np.inf, joint[i])
                runner = int(ids[np.unravel_index(int(np.argmax(other)), other.shape)[1]])
                second = card_for_marker(runner)
                if agreement is not None and second is not None:
                    a = agreement(np.stack([outline, outline]), [named, second])
                else:
                    a = np.array([PICTURE_MIN, 0.0])
                if a[0] < max(a[1], PICTURE_MIN) and not (
                    back
                    and a[0] >= PICTURE_MIN
                    and _backed_by_code(grey, squares, found[i], int(pose), named[0], game)
                ):
                    continue
            pair = [
                sighting(
                    "marker", named[0], named[1], fitted[i, k][_ROTATED[2 * int(pose)]], soft=True
                )
                for k in range(2)
            ]
            # Two outlines naming one card (one a few pixels off it, its squares found again at
            # nearly the same places, a pose apart): the squares that score best place it.
            if named not in best or top > best[named][0]:
                best[named] = (top, [s for s in pair if s is not None])
            break
