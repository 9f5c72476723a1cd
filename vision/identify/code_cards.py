"""Step 1 of :func:`vision.identify.identify_frame`: cards named by their printed codes.

The codes of :mod:`vision.identify.codes` vote for each card's id, face and pose; each
card's outline is snapped to its edges and checked against the kit's picture of that face
(:func:`kit_face_cells`). A lone marker takes the pose the picture and the edges agree with,
or is dropped; a card named by its QR code alone counts only when its outline is seen round
the code (``_by_codes``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, blur_read, deblur, marker_pairs, outline_markers, quads
from vision.identify.candidates import Thresholds, _area, _Candidate, _overlaps_any
from vision.identify.codes import CodeCard, CodeReader, face_geometry, read_sightings, vote
from vision.identify.dark_squares import refine_marker_corners
from vision.identify.outlines import fiducials_among
from vision.identify.verification import RIVAL_MARKER_MIN
from vision.kit import geometry
from vision.kit.codes import marker_id as face_marker_id
from vision.kit.codes import marker_table

#: How much better (the share of its outline seen as edges + half the picture's agreement)
#: one pose of a lone marker must be than the other (on rendered tables, seeds 0 and 1, the
#: true pose led by at least this in all of 297 lone markers, a wrong one never did), with no
#: less of its outline seen: on the codes scenes of seed 0 (150 normal, 100 hard; 155 lone
#: markers weighed), the one wrong pose taken had less of its outline seen than the true
#: one (0.22 against 0.25: its picture had decided), and one true pose of a card 48% in view
#: is lost.
_POSE_MARGIN = 0.15
#: A card's picture is compared with its kit face with the print's saturation fitted too
#: (``vision.identify.appearance.agreement``'s ``chroma``): a gain on the colour axes,
#: taken where the fit finds one in this range and none (1) where it does not. Faded or
#: pale ink, a sleeve's haze, a camera's muted colours and the blur over a small card show
#: a face at 0.3-0.9 of its kit colours (the true faces of the project's wide development
#: looks, cards in full view: median 0.71 for fresh ink and 0.49 for pale on the normal
#: tier, 0.58 and 0.34 on the hard), and every colour cell then missed the 10 Lab units of
#: ``AGREE_LAB``. Another face's colours fit a gain near 0 (median 0.1-0.2), and a grey
#: photo's fit is under the range and is kept at 1: a business card's grey portrait in a
#: phone photo (zxing-qrcode/qrcode-1/19.png) was named picflip-097 with the gain clipped
#: at 0.5 (and the thresholds as they were). The thresholds of the picture's agreement in
#: this module and ``outline_markers.PICTURE_MIN`` keep the share of other faces passing
#: them as it was with colours fitted by an offset alone (see ``vision/identify/README.md``).
PRINT_CHROMA = (0.3, 1.5)
#: The picture round a lone marker weighs in that choice too: the face's cells within this
#: share of its height of the marker's corner (the marker and its margin left out) agree with
#: the frame there, added with this weight. The card is seen where its marker is, so the
#: true pose's cells there show its picture, the other pose's the table or what covers the
#: card's other half. On 741 lone markers of 8 development sets (hard codes scenes of both
#: drawers, kit, development and wide looks; the wide looks' normal seed 2), the pose
#: choice went from 668 true poses and 3 wrong (one reported: a card half under a blue
#: sleeve, placed the other way over bare wood, whose outline the wood's seams and the
#: sleeve's edge had given) to 678 true and 0 wrong; a reach of 0.5 chose a wrong pose once.
NEAR_MARKER_REACH = 0.35
NEAR_MARKER_WEIGHT = 1.0
#: A card named in a frame read again with the camera's smear taken out is added when no card
#: named in the frame as it is covers more than this share of it (nor was the card named).
DEBLURRED_OVERLAP = 0.4
#: The confidence :func:`_code_confidence` gives a card named by two or more codes read bit
#: for bit that agree on its place: a card named so in the frame with the smear taken out,
#: and by less in the frame as it is, is taken as the sharper frame reads it.
SURE = 0.99
#: A lone marker inside a card that several codes name, and narrower than this share of that
#: card's own markers there, is a dark square of its picture (a letter of a card's word or
#: title read at 150 dpi, 0.23-0.27 of the markers: pictures of picmix-red-4 and picflip-042
#: named on printed pages of other games) and is dropped.
LONE_SPECK_SIZE = 0.5
#: A card named by one marker whose picture does not back it (below ``Thresholds.agree``) is
#: not reported where cards placed surely cover more than this share of its outline: its
#: place then rests on the marker alone (a card 27% in view, under others in a row, was
#: placed the other way from its marker, over two cards whose edges lined up with its own).
LONE_COVERED_MAX = 0.5
#: A lone marker's card whose edges are seen round it (0.6 of its outline) needs its picture
#: to agree this much (``Thresholds.code_agree`` otherwise).
LONE_EDGES_AGREE = 0.16
#: A card named by its QR code alone (no marker of it read) is a card only when the card's
#: outline, where the code's place on the face puts it, is seen as edges (support of at least
#: QR_ALONE_SIDE_SUPPORT, :func:`vision.identify.quads.refine_quads`) on QR_ALONE_MIN_SIDES of
#: its four sides (one may lie under a hand, or be the faint grey edge of an uncut printed
#: page: the bottom row of a page read at 100 dpi); else it is reported at
#: QR_UNFRAMED_CONFIDENCE. A QR code printed alone, on a sticker or a phone's screen carries
#: the same payload as the card's, and named any card at 0.97. 0.2 is half the least
#: confidence a tracked card is kept by (``vision.tracker.CardTracker.keep_conf`` 0.4; a
#: track starts at 0.6, the Pick Pic and Pic Flip followers read cards from 0.5, Picmix
#: names them from 0.9): such a reading is shown, under the threshold of every tracker.
QR_ALONE_MIN_SIDES = 3
QR_ALONE_SIDE_SUPPORT = 0.5
QR_UNFRAMED_CONFIDENCE = 0.2
#: The edges of a card named by a QR code alone are looked for within this share of the
#: card's short side of where the code puts them (at least 5 px, as every code's outline):
#: the code's corners, mapped out to the card's by an affine fit, miss them by a few per cent
#: where the card is large or seen in perspective. Kit faces with their markers painted out,
#: 2.5-10 px/mm, turned, 0-10% keystone, on four table colours (225 of them): their outline
#: seen on 3 sides or more within 5 px 119 times, within 3% 193, within 4% 223, within 5%
#: 214; the same codes alone (sticker-like quiet zones, phones) 2, 2, 4 and 5 times of 223,
#: every time on a phone whose screen was cut to the card's size round the code.
QR_ALONE_REACH = 0.04


#: A pose the snap to the edges moved by more than SNAP_CHECKED of its diagonal is put back
#: where it was when the card's picture agreed more there, by more than SNAP_AGREE_LOSS (1:
#: never put back).
#: A small card's snap reaches 5 px, a tenth of its height, and can take a side onto a
#: touching card's edge. Development sets (codes, and codes and pictures; hard tier: the
#: project's seed 0 default looks and seed 5 development looks, the second drawer's seeds 0
#: and 5 development looks, codes and pictures seed 0 and second drawer seed 5; normal tier:
#: codes seed 0 both looks, codes and pictures seed 0, second drawer codes seed 0): cards
#: named right but placed more than 10% of their height off 33 -> 13, none placed off that
#: was not, 3 more cards named right, no wrong id (on the five hard codes-alone and codes
#: and pictures sets of seed 0 and 5, 22 -> 9; at a loss of 0.05, 22 -> 12).
SNAP_AGREE_LOSS = 0.0
SNAP_CHECKED = 0.02
#: How far (px) from where its codes put it a card's outline is snapped to its edges.
SNAP_PX = 5.0
#: A pose the snap left with a side unseen (support under REACH_BELOW: mostly a lone
#: marker's far side, put there from a small blurred marker 5 times nearer) and two seen
#: is snapped again from where its codes put it, within REACH_SHARE of its longer side
#: (about 0.4 ms a frame of 12 cards: the edges round it worked out); it is taken
#: where every side is then seen better than the least seen was (at least REACH_SEEN) and
#: its sides' ratio is the face's, within REACH_ASPECT (a card seen in perspective; a
#: card under a sleeve was cut to its visible half, 0.40 against 0.72), and put back like
#: any snap where the picture agreed more before (SNAP_AGREE_LOSS). On 14 development sets
#: (codes and codes and pictures, normal and hard, both drawers) 3 cards placed off were
#: put on their cards, none moved off.
REACH_BELOW = 0.9
REACH_SEEN = 0.75
REACH_SHARE = 0.2
REACH_ASPECT = 0.25
#: A card named by one marker alone is not reported when that marker's square, as blur shows
#: it (:func:`vision.identify.blur_read.correlations`), looks more like another marker of the
#: kit than like the one its cells read, by MISREAD_LEAD, at
#: :data:`vision.identify.verification.RIVAL_MARKER_MIN` (0.7) or more: a small blurred
#: marker read bit for bit can read a cell wrong into another card's marker. Under held-back
#: looks (the project's hard tier, seed 1 scene 15) a card 35 px wide was named by such a
#: square as pickpic-064 at 0.94; its square correlated 0.91 with pickpic-068's marker (its
#: own) and 0.75 with 064's. On 881 lone markers of 11 development sets (hard codes scenes,
#: both drawers, default, development and wide looks), 3 squares looked more like another
#: marker, none of them reported.
MISREAD_LEAD = 0.1


@functools.lru_cache(maxsize=512)
def kit_face_cells(card: str, side: str) -> NDArray[np.float32]:
    """(gh, gw, 3) Lab cells of a kit card's face, oriented as the face (portrait 25 x 18,
    landscape 18 x 25). Kept on disk (:func:`face_cells_folder`): rendering a face costs
    some 40 ms, and a command reading one photo would spend half a second on them."""
    folder = face_cells_folder()
    path = None if folder is None else folder / f"{card}.{side}.npy"
    if path is not None:
        try:
            kept = np.load(path, allow_pickle=False)
            if kept.dtype == np.float32 and kept.ndim == 3 and kept.shape[2] == 3:
                return np.asarray(kept)
        except (OSError, ValueError):
            pass  # not there yet, or cut short: made again
    from vision.kit import render_face

    face = render_face(card, side, 4.0)  # type: ignore[arg-type]
    gw, gh = appearance.GRID_WH
    grid = (gw, gh) if face.shape[0] >= face.shape[1] else (gh, gw)
    cells = np.asarray(appearance.lab_cells(face[None], grid)[0], np.float32)
    if path is not None:
        _save_atomically(path, cells)
    return cells


@functools.cache
def face_cells_folder() -> Path | None:
    """Where :func:`kit_face_cells` keeps the cells: ``face-cells/<digest>`` in pictable's
    cache (``$PICTABLE_CACHE``, else ``$XDG_CACHE_HOME/pictable``, else
    ``~/.cache/pictable``), the digest that of the kit's and the appearance's sources (so a
    change to the card art or to the cells makes them again). None when the cache cannot
    be written (the cells are then rendered in each process)."""
    import hashlib
    import os

    import vision.kit

    kit = Path(vision.kit.__file__).parent
    digest = hashlib.sha256()
    for src in sorted([*kit.rglob("*.py"), Path(appearance.__file__)]):
        digest.update(src.name.encode())
        digest.update(src.read_bytes())
    env = os.environ.get("PICTABLE_CACHE")
    base = (
        Path(env).expanduser()
        if env
        else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pictable"
    )
    folder = base / "face-cells" / digest.hexdigest()[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


def _save_atomically(path: Path, cells: NDArray[np.float32]) -> None:
    """Writes ``cells`` to ``path`` whole or not at all (another process may read it)."""
    import os
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, cells, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def _face_agreement(
    bgr: NDArray[np.uint8], poses: NDArray[np.float64], faces: list[tuple[str, str]]
) -> NDArray[np.float64]:
    """(k,) agreement of each pose (k, 4, 2) with the picture of the kit face (card, side)
    given for it; all rectified in one pass."""
    refs = [kit_face_cells(card, side) for card, side in faces]
    out = np.zeros(len(poses))
    for shape in {r.shape for r in refs}:  # portrait faces, then landscape ones
        idx = [k for k, r in enumerate(refs) if r.shape == shape]
        gh, gw = shape[:2]
        rect = appearance.rectify(bgr, poses[idx], (gw * 3, gh * 3))
        cells = appearance.lab_cells(rect, (gw, gh))
        out[idx] = appearance.agreement(
            cells, np.stack([refs[k] for k in idx]), chroma=PRINT_CHROMA
        )
    return out


@functools.cache
def _game_faces(game: str) -> tuple[tuple[tuple[str, str], ...], NDArray[np.float32]]:
    """The faces (card, side) of the game's portrait cards that carry markers, and their
    :func:`kit_face_cells` stacked (f, gh, gw, 3)."""
    game_faces = {f for f in marker_table().values() if f[0].startswith(f"{game}-")}
    faces = tuple(sorted(f for f in game_faces if _portrait(face_geometry(*f)[0])))
    if not faces:
        return (), np.zeros((0, 25, 18, 3), np.float32)
    return faces, np.stack([kit_face_cells(card, side) for card, side in faces])


def _portrait(size: tuple[float, float]) -> bool:
    return size[0] <= size[1]


@functools.cache
def _game_descriptors(game: str) -> NDArray[np.float32]:
    """(f, D) :func:`appearance.describe` of the game's faces (:func:`_game_faces`' order)."""
    return appearance.describe(_game_faces(game)[1])


def _game_face_agreement(
    bgr: NDArray[np.uint8], poses: NDArray[np.float64], game: str
) -> tuple[tuple[tuple[str, str], ...], NDArray[np.float64], NDArray[np.float64]]:
    """(the game's portrait faces, (k, f) agreement of each pose (k, 4, 2) with each of them,
    (k, f) likeness of each: the cosine of their :func:`appearance.describe` descriptors, the
    card's picture as a whole with its lightness and colours' means and spread taken out):
    each pose rectified once."""
    faces, refs = _game_faces(game)
    if not faces or not len(poses):
        none = np.zeros((len(poses), len(faces)))
        return faces, none, none
    gh, gw = refs.shape[1:3]
    rect = appearance.rectify(bgr, poses, (gw * 3, gh * 3))
    cells = appearance.lab_cells(rect, (gw, gh))
    k, f = len(poses), len(faces)
    agree = appearance.agreement(
        np.repeat(cells, f, axis=0),
        np.broadcast_to(refs, (k, *refs.shape)).reshape(-1, gh, gw, 3),
        chroma=PRINT_CHROMA,
    )
    likeness = np.asarray(appearance.describe(cells) @ _game_descriptors(game).T, np.float64)
    return faces, agree.reshape(k, f), likeness


def _by_codes(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    grads: Callable[[], quads.Gradients],
    reader: CodeReader,
    t: Thresholds,
    game: str | None,
    regions: Callable[[], tuple[NDArray[np.uint8], float]],
) -> list[_Candidate]:
    """The cards named by their codes (see the module docstring). ``grads``, ``regions``:
    the frame's :class:`~vision.identify.quads.Gradients` and
    :func:`~vision.identify.quads.silhouettes`, made on first use (and shared with the
    pictures' steps). A frame smeared by the camera's motion (:func:`deblur.motion_blur`,
    measured on the dark squares read) is read again with the smear taken out
    (:func:`deblur.deconvolved`), and the cards named there that were not, at no card's
    place, are added (:data:`DEBLURRED_OVERLAP`); a card named surely there and not here
    takes the place read there (:data:`SURE`)."""
    squares: list[NDArray[np.float32]] = []
    out = _read_codes(bgr, grey, grads, reader, t, game, regions, squares)
    blur = deblur.motion_blur(grey, squares[0]) if squares else None
    if blur is None:
        return out
    sharp = deblur.deconvolved(bgr, *blur)
    sharp_grey = np.asarray(cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY), np.uint8)
    more = _read_codes(
        sharp,
        sharp_grey,
        functools.cache(lambda: quads.Gradients(sharp_grey, whole=False)),
        reader,
        t,
        game,
        functools.cache(lambda: quads.silhouettes(sharp_grey)),
        None,
    )
    named = {r.card: k for k, r in enumerate(out)}
    for r in more:
        k = named.get(r.card)
        if k is not None:
            # Named surely there (codes read bit for bit that agree), and only by likeness
            # or a lone marker here: the sharper frame's reading stands.
            if r.side == out[k].side and r.confidence >= SURE and out[k].confidence < SURE:
                out[k] = r
        elif not _overlaps_any(r.corners, [o.corners for o in out], DEBLURRED_OVERLAP):
            named[r.card] = len(out)
            out.append(r)
    return out


def _read_fiducials(
    grey: NDArray[np.uint8], squares: NDArray[np.float32]
) -> tuple[tuple[NDArray[np.float32], NDArray[np.intp]], NDArray[np.bool_]]:
    """The markers of the kit that are on no card (``DICT_4X4_50``: the play area's, the
    Picasso board's) among the dark ``squares`` (n, 4, 2), read bit for bit: ((k, 4, 2)
    corners, (k,) ids), and which squares they are (n,) bool."""
    found, read = fiducials_among(grey, squares)
    corners = np.array([c for _, c in found], np.float32).reshape(-1, 4, 2)
    return (corners, np.array([m for m, _ in found], np.intp)), np.asarray(read, bool)


def _read_codes(
    bgr: NDArray[np.uint8],
    grey: NDArray[np.uint8],
    grads: Callable[[], quads.Gradients],
    reader: CodeReader,
    t: Thresholds,
    game: str | None,
    regions: Callable[[], tuple[NDArray[np.uint8], float]],
    squares: list[NDArray[np.float32]] | None,
) -> list[_Candidate]:
    """:func:`_by_codes` on one frame as it is; ``squares``: when given a list, the
    frame's dark squares (markers read and squares left unread, (n, 4, 2)) are put in it."""
    unread: list[NDArray[np.float32]] = []
    rough: list[NDArray[np.float32]] = []
    sightings = read_sightings(bgr, grey, reader, game=game, unread=unread, rough=rough)
    if squares is not None:
        marks = [s.corners_px for s in sightings if s.kind == "marker"]
        squares.append(
            np.concatenate([np.asarray(marks, np.float32).reshape(-1, 4, 2), *unread[:1]])
        )
    # The kit's markers that are no card's (the play area's, the Picasso board's) among the
    # squares left unread: no card's marker to pair, and no card under their white pads.
    fiducials: tuple[NDArray[np.float32], NDArray[np.intp]] | None = None
    if unread and len(unread[0]):
        fiducials, read_fid = _read_fiducials(grey, unread[0])
        unread[0] = unread[0][~read_fid]
    cards = vote(sightings)
    # A card named by one marker: its other marker, where one of its two poses puts it, read
    # by its likeness to the marker (vision.identify.marker_pairs); the card is then placed
    # by both. With the game known, a dark square left unread off the cards placed is named
    # with its partner.
    more = marker_pairs.partners(grey, cards)
    if game is not None and unread and len(unread[0]):
        more += marker_pairs.unread_sightings(grey, cards, unread[0], game)
    if more:
        cards = vote(sightings + more)
    if game is not None:
        placed = [c.corners_px.astype(np.float64) for c in cards]
        # The rough squares off the cards placed, their corners moved onto their edges.
        more_dark = [
            refine_marker_corners(grey, r[marker_pairs.off_outlines(r, placed)]) for r in rough
        ]
        found = outline_markers.outline_sightings(
            grey,
            grads(),
            regions(),
            placed,
            game,
            lambda poses, faces: _face_agreement(bgr, poses, faces),
            lambda poses: _game_face_agreement(bgr, poses, game),
            np.concatenate([*unread[:1], *more_dark]) if unread or rough else None,
            fiducials,
            sightings,
        )
        if found:
            more += found
            cards = vote(sightings + more)
    if not cards:
        return []
    # Every pose of every card at once: snapped to the edges, checked against its picture.
    owner = np.concatenate([[k] * (1 + len(c.alternatives)) for k, c in enumerate(cards)])
    poses = np.concatenate([np.concatenate([c.corners_px[None], c.alternatives]) for c in cards])
    # Snapped to the card's edges only where the edges were found all round, and not when
    # codes at opposite corners already fitted the outline (``CodeCard.spanned``), unless
    # every one of them was named by its likeness alone: small blurred squares, a pixel or
    # two off, whose fit is some per cent of the card off at its other two corners.
    # A QR code alone is snapped (and its outline looked for) within a reach of its card's
    # size: its outline, an affine map of the code's corners out to the card's, is some
    # pixels off where the card is large or seen in perspective (QR_ALONE_REACH).
    qr_alone = np.array([cards[k].kinds == ("qr",) for k in owner])
    spanned = np.array([_spanned_surely(cards[k]) for k in owner])
    snap = np.flatnonzero(~spanned & ~qr_alone)
    support = np.ones((len(poses), 4))
    groups = [(snap, SNAP_PX)] + [
        (np.array([i]), _qr_alone_reach(poses[i])) for i in np.flatnonzero(qr_alone)
    ]
    unsnapped = poses.copy()
    for index, radius in groups:
        if not len(index):
            continue
        gx, gy = grads()
        refined, support[index] = quads.refine_quads(gx, gy, poses[index], radius=radius)
        good = support[index].min(axis=1) >= 0.5
        poses[index] = np.where(good[:, None, None], refined, poses[index])
    faces = [(cards[k].card, cards[k].side) for k in owner]
    if len(snap):
        _reach_further(grads, poses, unsnapped, support, snap, faces)
    agree = _face_agreement(bgr, poses, faces)
    # Poses the snap moved far enough to leave their card (a pixel or two is the snap's job):
    # put back where the card's picture agreed more before it. Their sides' support stays
    # the snap's: how well edges are seen round the pose, which the lone markers' choice
    # below weighs.
    shift = np.linalg.norm(poses - unsnapped, axis=2).max(axis=1)
    size = np.linalg.norm(unsnapped[:, 0] - unsnapped[:, 2], axis=1)  # the diagonal
    moved = np.flatnonzero(shift > SNAP_CHECKED * size)
    if len(moved) and SNAP_AGREE_LOSS < 1:
        before = _face_agreement(bgr, unsnapped[moved], [faces[i] for i in moved])
        worse = before > agree[moved] + SNAP_AGREE_LOSS
        poses[moved[worse]] = unsnapped[moved[worse]]
        agree[moved[worse]] = before[worse]
    lone = np.array(
        [len(cards[k].codes) == 1 and cards[k].codes[0].kind == "marker" for k in owner]
    )
    # Markers named by their likeness alone (codes.soft_markers) count only where the card's
    # picture agrees with the face they name.
    soft = np.array([_all_soft(cards[k]) for k in owner])
    flipped = np.zeros(len(poses), bool)
    check = np.flatnonzero(soft)
    if len(check):
        flipped[check] = _other_side_agrees(
            bgr, poses[check], [cards[owner[i]] for i in check], agree[check]
        )
    seen = np.zeros(len(poses))
    if lone.any():
        corner = np.concatenate(
            [
                _marker_corners(c, poses[owner == k])
                for k, c in enumerate(cards)
                if lone[owner == k][0]
            ]
        )
        gx, gy = grads()
        seen[lone] = quads.corner_support(gx, gy, poses[lone], corner)
    outline = support.mean(axis=1)
    chosen: list[int | None] = []
    for k in range(len(cards)):
        idx = np.flatnonzero(owner == k)
        a, sn = agree[idx], seen[idx]
        if lone[idx[0]]:
            # A lone marker: which of its face's two is it? The true pose's outline lies on
            # the card's edges (seen wherever the card is not covered), the other's mostly
            # on the table; its picture agrees too.
            near = _near_marker_agreement(bgr, cards[k], poses[idx])
            score = outline[idx] + 0.5 * a + NEAR_MARKER_WEIGHT * near
            best = int(np.argmax(score))
            if len(score) > 1 and score[best] - np.partition(score, -2)[-2] < _POSE_MARGIN:
                chosen.append(None)  # either of the face's two markers: place not known
                continue
            if not (a[best] >= t.code_agree or (sn[best] >= 0.6 and a[best] >= LONE_EDGES_AGREE)):
                chosen.append(None)  # neither the card's picture nor its edges back it
                continue
            if outline[idx[best]] < outline[idx].max():
                # The picture alone does not overrule the card's edges: a table's grain
                # once agreed with a face's picture (0.57) where the card lay the other way,
                # under an arm.
                chosen.append(None)
                continue
            if soft[idx[0]] and not _framed(support[idx[best]]):
                # A square named by its likeness alone, its card's other marker not seen:
                # the card is placed only where its outline is seen round it. A card under
                # an arm once agreed less with its picture (0.22) and its edges (0.30) than
                # the other pose, on a pale table by another card's edge (0.50, 0.42).
                chosen.append(None)
                continue
        else:
            best = int(np.argmax(a))
        if (soft[idx[0]] and a[best] < t.code_agree) or flipped[idx[best]]:
            chosen.append(None)
            continue
        chosen.append(int(idx[best]))
    unframed = [
        p is not None and c.kinds == ("qr",) and not _framed(support[p])
        for c, p in zip(cards, chosen, strict=True)
    ]
    # Cards whose place several codes (or a QR code on its card's outline) agree on.
    sure = [
        (poses[p], face_geometry(c.card, c.side)[0])
        for c, p, u in zip(cards, chosen, unframed, strict=True)
        if p is not None and not lone[p] and not u
    ]
    misread = _misread(grey, cards, [k for k, p in enumerate(chosen) if p is not None and lone[p]])
    out = []
    for k, card in enumerate(cards):
        pick = chosen[k]
        if pick is None or k in misread:
            continue
        others = [poses[p] for p in chosen if p is not None and p != pick]
        if lone[pick] and (
            _named_nearby(poses[pick], others) or _speck_on_card(card.codes[0].corners_px, sure)
        ):
            continue  # where codes name another card: a marker-like speck on that card
        if (
            lone[pick]
            and agree[pick] < t.agree
            and _covered(poses[pick], [o for o, _ in sure]) > LONE_COVERED_MAX
        ):
            continue  # its place rests on the marker alone, over cards placed surely
        confidence = _code_confidence(card, float(agree[pick]), bool(soft[pick]))
        if unframed[k]:
            confidence = QR_UNFRAMED_CONFIDENCE
        evidence = tuple("marker" if c.kind == "marker" else "qr" for c in card.codes)
        if agree[pick] >= t.agree:
            evidence += ("picture",)
        out.append(_Candidate(card.card, poses[pick], confidence, "code", card.side, evidence))
    return out


def _misread(grey: NDArray[np.uint8], cards: list[CodeCard], lone: list[int]) -> set[int]:
    """The indices among ``lone`` (cards of ``cards`` named by one marker alone) whose
    marker's square looks more like another marker of the kit than like its own, as blur
    shows it: by :data:`MISREAD_LEAD`, at a correlation of
    :data:`vision.identify.verification.RIVAL_MARKER_MIN` or more (see :data:`MISREAD_LEAD`)."""
    if not lone:
        return set()
    squares = np.stack([np.asarray(cards[k].codes[0].corners_px, np.float32) for k in lone])
    score = blur_read.correlations(grey, squares.reshape(-1, 4, 2))
    columns = blur_read.marker_columns()
    out = set()
    for row, k in enumerate(lone):
        own = columns == face_marker_id(cards[k].card, cards[k].side)
        if not own.any():
            continue
        rival = float(score[row, ~own].max())
        if rival >= RIVAL_MARKER_MIN and rival >= float(score[row, own].max()) + MISREAD_LEAD:
            out.add(k)
    return out


def _other_side_agrees(
    bgr: NDArray[np.uint8],
    poses: NDArray[np.float64],
    cards: list[CodeCard],
    agree: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """(k,) whether each pose's picture agrees better with its card's other side than with
    the face its codes name (``agree``): checked on cards named by markers read by their
    likeness alone, whose codes were then misread. A card back's blurred markers were once
    paired as a front's, under a matt sleeve; the back's picture agreed 0.82 there, the
    front's 0.42. Not on a lone marker read bit for bit: on 8 such cards named right (hard
    development looks, 49-73 px wide, partly hidden), the other side agreed better by up to
    0.34."""
    other = {"front": "back", "back": "front"}
    flip = [(c.card, other[c.side]) for c in cards]
    return np.asarray(_face_agreement(bgr, poses, flip) > agree, bool)


def _covered(pose: NDArray[np.float64], outlines: list[NDArray[np.float64]]) -> float:
    """The share of the outline ``pose`` (4, 2) px that ``outlines`` (each (4, 2) px) cover."""
    if not outlines:
        return 0.0
    x0, y0 = np.floor(pose.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pose.max(axis=0)).astype(int)
    if x1 - x0 > 4000 or y1 - y0 > 4000:
        return 0.0
    mine = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    cv2.fillConvexPoly(mine, np.round(pose - [x0, y0]).astype(np.int32), 1)
    theirs = np.zeros_like(mine)
    for o in outlines:
        cv2.fillConvexPoly(theirs, np.round(np.asarray(o) - [x0, y0]).astype(np.int32), 1)
    area = int(mine.sum())
    return float((mine & theirs).sum() / area) if area else 0.0


def _speck_on_card(
    marker_px: NDArray[np.floating],
    cards: list[tuple[NDArray[np.float64], tuple[float, float]]],
) -> bool:
    """Whether a lone marker, (4, 2) px, lies inside one of ``cards`` (each its (4, 2)
    outline px and its face's (w, h) mm) and is smaller than :data:`LONE_SPECK_SIZE` of the
    card markers printed there (every card marker is ``CARD_MARKER_MM`` wide; a card lying on
    another is as far from the camera, its markers the same size)."""
    corners = np.asarray(marker_px, np.float32).reshape(4, 2)
    centre = tuple(float(v) for v in corners.mean(axis=0))
    side = float(np.sqrt(_area(corners)))
    for outline, (w_mm, h_mm) in cards:
        if cv2.pointPolygonTest(np.asarray(outline, np.float32), centre, False) < 0:
            continue
        px_per_mm = float(np.sqrt(_area(outline) / (w_mm * h_mm)))
        if side < LONE_SPECK_SIZE * geometry.CARD_MARKER_MM * px_per_mm:
            return True
    return False


def _all_soft(card: CodeCard) -> bool:
    """Whether every code naming ``card`` is a marker named by its likeness alone."""
    return all(c.soft for c in card.codes)


def _spanned_surely(card: CodeCard) -> bool:
    """Whether ``card``'s outline was fitted to codes at opposite corners of its face
    (``CodeCard.spanned``) not all named by their likeness alone."""
    return card.spanned and not _all_soft(card)


def _reach_further(
    grads: Callable[[], quads.Gradients],
    poses: NDArray[np.float64],
    unsnapped: NDArray[np.float64],
    support: NDArray[np.float64],
    index: NDArray[np.intp],
    faces: list[tuple[str, str]],
) -> None:
    """The poses ``index`` of ``poses`` (k, 4, 2), snapped, whose ``support`` (k, 4) leaves
    a side unseen, snapped again from ``unsnapped`` within :data:`REACH_SHARE` of their
    longer side (see :data:`REACH_BELOW`); ``faces`` (k): each pose's (card, side).
    ``poses`` and ``support`` updated in place."""
    seen = support[index] >= REACH_BELOW
    # A side unseen, and two seen (the pose lies on a card: a lone marker's other pose,
    # on the table, is not looked at again).
    for i in index[~seen.all(axis=1) & (seen.sum(axis=1) >= 2)].tolist():
        sides = np.linalg.norm(unsnapped[i] - np.roll(unsnapped[i], -1, axis=0), axis=1)
        pairs = np.array([sides[0] + sides[2], sides[1] + sides[3]])
        radius = REACH_SHARE * float(pairs.max()) / 2
        if radius <= SNAP_PX:
            continue  # the snap's own reach
        gx, gy = grads()
        q, s = quads.refine_quads(gx, gy, unsnapped[i : i + 1], radius=radius)
        if s[0].min() < max(REACH_SEEN, support[i].min()):
            continue
        w, h = face_geometry(*faces[i])[0]
        if abs(float(quads.quad_aspect(q)[0]) / (w / h) - 1) > REACH_ASPECT:
            continue
        poses[i], support[i] = q[0], s[0]


def _qr_alone_reach(pose: NDArray[np.float64]) -> float:
    """How far (px) from a card's outline ``pose`` (4, 2), as its QR code alone gives it,
    its edges are looked for: :data:`QR_ALONE_REACH` of its shorter side, at least 5 px (as
    any code's outline is snapped)."""
    sides = np.linalg.norm(pose - np.roll(pose, -1, axis=0), axis=1)
    return max(SNAP_PX, QR_ALONE_REACH * float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2))


def _framed(support: NDArray[np.float64]) -> bool:
    """Whether a card's outline is seen as edges round it: ``support`` (4,) of its sides
    (:func:`vision.identify.quads.refine_quads`), at least :data:`QR_ALONE_SIDE_SUPPORT` on
    :data:`QR_ALONE_MIN_SIDES` of them."""
    return int((support >= QR_ALONE_SIDE_SUPPORT).sum()) >= QR_ALONE_MIN_SIDES


def _named_nearby(pose: NDArray[np.float64], others: list[NDArray[np.float64]]) -> bool:
    """Whether another card placed by its codes (``others``: (4, 2) outlines) has its centre
    within a fifth of ``pose``'s diagonal of ``pose``'s centre."""
    diag = float(np.linalg.norm(pose[2] - pose[0]))
    centre = pose.mean(axis=0)
    return any(float(np.linalg.norm(o.mean(axis=0) - centre)) < 0.2 * diag for o in others)


def _near_marker_agreement(
    bgr: NDArray[np.uint8], card: CodeCard, poses: NDArray[np.float64]
) -> NDArray[np.float64]:
    """(k,) agreement of each pose (k, 4, 2, as printed) of a lone-marker card with the
    kit's picture of its face, over the face's cells within :data:`NEAR_MARKER_REACH` of
    its height of the card corner nearest the marker, the face's marker squares and a
    2 mm margin round them left out."""
    ref = kit_face_cells(card.card, card.side)
    near = _near_corner_cells(card.card, card.side, ref.shape[:2])
    masks = near[_marker_corners(card, poses)]
    gh, gw = ref.shape[:2]
    cells = appearance.lab_cells(appearance.rectify(bgr, poses, (gw * 3, gh * 3)), (gw, gh))
    refs = np.broadcast_to(ref, (len(poses), *ref.shape))
    return np.asarray(appearance.agreement(cells, refs, masks, PRINT_CHROMA), np.float64)


@functools.lru_cache(maxsize=1024)
def _near_corner_cells(card: str, side: str, grid: tuple[int, int]) -> NDArray[np.bool_]:
    """(4, gh, gw) bool: for each corner of the face (as printed: top left, top right,
    bottom right, bottom left), the cells of its ``grid`` (gh, gw) within
    :data:`NEAR_MARKER_REACH` of its height of that corner and off its marker squares
    (grown by 2 mm)."""
    (w, h), rects, _ = face_geometry(card, side)
    gh, gw = grid
    yy, xx = np.mgrid[0:gh, 0:gw]
    x, y = (xx + 0.5) / gw * w, (yy + 0.5) / gh * h
    off = np.ones((gh, gw), bool)
    for r in rects:
        off &= ~((x > r.x - 2) & (x < r.x + r.w + 2) & (y > r.y - 2) & (y < r.y + r.h + 2))
    corners = ((0, 0), (w, 0), (w, h), (0, h))
    reach = NEAR_MARKER_REACH * max(w, h)
    out = np.stack([(np.hypot(x - cx, y - cy) < reach) & off for cx, cy in corners])
    out.flags.writeable = False
    return out


def _marker_corners(card: CodeCard, poses: NDArray[np.float64]) -> NDArray[np.intp]:
    """For each pose of a lone-marker card, the index of the card corner nearest the marker."""
    centre = card.codes[0].corners_px.mean(axis=0)
    return np.asarray(np.argmin(np.linalg.norm(poses - centre, axis=2), axis=1), np.intp)


def _code_confidence(card: CodeCard, agree: float, soft: bool = False) -> float:
    """Two or more codes that agree: near certain; a QR code (checksummed): high; a lone
    marker, or markers named by their likeness alone (``soft``): by how much of its picture
    agrees. Codes of another card at the same place lower it."""
    n = len(card.codes)
    if soft:
        base = 0.6 + 0.38 * min(1.0, agree / 0.7)
    elif n >= 2:
        base = 0.99
    elif "qr" in card.kinds:
        base = 0.97
    else:
        base = 0.6 + 0.38 * min(1.0, agree / 0.7)
    return base * (0.7 if card.disagree else 1.0)
