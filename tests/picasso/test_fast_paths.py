"""The reader's fast paths give what the plain formulation gives, on rendered boards.

Each fast path (batched band sampling, the selection objective on pre-filtered pixels, the
string's chaining, the colour lookup, the canvas model, the markers' area shrink, openings and
labellings in the box of a mask's pixels, the sticks' cores, the first look for markers in
the box of strong contrasts, the four-channel warp, the seam test's lightness in the box it
samples, the stretches through a pivot, the patches coming in measured in their box, the
merging of Hough pieces, the selection's footprints, the nine points along a piece, a line's
direction made when asked, the runs of a mask, the candidates a piece passes clear of) is
checked against the straightforward computation it replaces, written out here as the
reference.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest

import vision.picasso.board as board
import vision.picasso.reader as reader
from vision.picasso import BoardReading, read_board
from vision.picasso import segment as seg
from vision.picasso import stick_lines as sl
from vision.picasso import stick_proposals as prop
from vision.picasso import stick_selection as sel
from vision.picasso import stick_stretches as stretch
from vision.picasso import sticks as st
from vision.picasso.board import (
    PX_PER_MM,
    BoardView,
    find_board,
    find_board_markers,
    shrink_area,
)
from vision.picasso.cord import _polyline
from vision.picasso.dataset import render_board, scene_seed
from vision.picasso.masks import opened, patches, runs
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.reading import COUNT_KEYS

S = PX_PER_MM


@pytest.fixture(scope="module")
def wood_maps(board_a: Any, board_b: Any) -> list[np.ndarray]:
    """The wood maps the reader hands to the stick search for boards a and b."""
    maps: list[np.ndarray] = []
    real = reader.find_sticks

    def spy(wm: np.ndarray, s: float, profile: Any, *rest: Any) -> Any:
        maps.append(wm.copy())
        return real(wm, s, profile, *rest)

    reader.find_sticks = spy
    try:
        for frame, _ in (board_a, board_b):
            assert isinstance(read_board(frame), BoardReading)
    finally:
        reader.find_sticks = real
    return maps


def _lines(wm: np.ndarray) -> list[tuple[sl._Line, float, float]]:
    """The stick search's own proposals on ``wm``, and a few lines in any direction."""
    wood = (wm == sl.WOOD_PX).astype(np.uint8)
    width = DEFAULT_PROFILE.stick_width_mm
    core = prop._core(wood, wm >= sl.DARK_PX, S, width)
    lines = prop._hough_lines(core, S, 30.0)
    rng = np.random.default_rng(0)
    h, w = wm.shape
    for _ in range(6):
        c = rng.uniform([0, 0], [w, h])
        lines.append((sl._Line(float(c[0]), float(c[1]), float(rng.uniform(0, math.pi))), -20, 20))
    return lines


def test_bands_sampled_at_once_are_the_bands_sampled_alone(wood_maps: list[np.ndarray]) -> None:
    width = DEFAULT_PROFILE.stick_width_mm
    half = 0.5 * width + 3.0
    for wm in wood_maps:
        lines = _lines(wm)
        assert len(lines) > 6
        ranges = [(t0 - 60.0, t1 + 60.0) for _, t0, t1 in lines]
        batch = stretch._sample_bands(wm, [ln for ln, _, _ in lines], half, S, ranges, 1.0, width)
        for (ln, _, _), tr, b in zip(lines, ranges, batch, strict=True):
            alone = stretch._sample_band(wm, ln, half, S, tr, 1.0)
            assert np.array_equal(b.t, alone.t)
            assert np.array_equal(b.wood, alone.wood)
            assert np.array_equal(b.known, alone.known)
            assert b.stats is not None
            for got, want in zip(
                b.stats,
                stretch._stretch_stats(alone.wood, alone.known, alone.u, width),
                strict=True,
            ):
                assert np.array_equal(got, want)
            assert stretch._stretch_ranges(b, width, 30.0) == stretch._stretch_ranges(
                alone, width, 30.0
            )


def _candidates(wm: np.ndarray) -> list[sl._Candidate]:
    return [sl._Candidate(ln, t0, t1) for ln, t0, t1 in _lines(wm)]


def _footprint(
    cand: sl._Candidate, shape: tuple[int, int], width_mm: float, s: float
) -> np.ndarray:
    """Flat indices of the pixels inside the candidate's rectangle, each drawn by itself."""
    poly = sel._rectangle(cand, width_mm, s)
    x0 = max(0, math.floor(poly[:, 0].min()))
    y0 = max(0, math.floor(poly[:, 1].min()))
    x1 = min(shape[1], math.ceil(poly[:, 0].max()) + 1)
    y1 = min(shape[0], math.ceil(poly[:, 1].max()) + 1)
    if x1 <= x0 or y1 <= y0:
        return np.zeros(0, np.intp)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((poly - [x0, y0]) * 4).astype(np.int32)], 1, cv2.LINE_8, 2)
    return np.arange(shape[0] * shape[1]).reshape(shape)[y0:y1, x0:x1][mask > 0]


def test_explained_is_the_union_of_the_footprints(wood_maps: list[np.ndarray]) -> None:
    width = DEFAULT_PROFILE.stick_width_mm
    for wm in wood_maps:
        cands = _candidates(wm)
        chosen = list(range(0, len(cands), 2))
        want = np.zeros(wm.size, bool)
        for i in chosen:
            want[_footprint(cands[i], wm.shape, width, S)] = True
        assert np.array_equal(
            sel._explained(cands, chosen, wm.shape, width, S), want.reshape(wm.shape)
        )


def test_the_cover_scores_changes_as_over_whole_footprints(wood_maps: list[np.ndarray]) -> None:
    width = DEFAULT_PROFILE.stick_width_mm
    rng = np.random.default_rng(1)
    for wm in wood_maps:
        cands = _candidates(wm)
        k = 2
        small = wm[::k, ::k].shape
        three = [
            sel._footprints(c, small, (width + 1.0, width - 2.0, sel.CORE_MM), S, k) for c in cands
        ]
        feet, pen_feet, core = ([f[j] for f in three] for j in range(3))
        wood = wm[::k, ::k] == sl.WOOD_PX
        penalty = np.where(wm[::k, ::k] == sl.NOT_WOOD, np.float32(3.0), np.float32(0.0))
        fixed = [float(rng.uniform(5, 10)) for _ in cands]
        unit = width * (S / k) ** 2
        core_min = 3.0 * (S / k) ** 2
        cover = sel._Cover(wood, penalty, feet, pen_feet, fixed, unit, core, core_min)
        # neighbours: footprints sharing an 8-pixel cell
        cells = [set(((f // small[1]) >> 3) * 10_000 + ((f % small[1]) >> 3)) for f in feet]
        for i in range(len(cands)):
            want = {j for j in range(len(cands)) if j != i and cells[i] & cells[j]}
            assert cover.neighbours[i] == want
        chosen = [int(i) for i in rng.choice(len(cands), size=3, replace=False)]
        count = np.zeros(wood.size, np.int16)
        for i in chosen:
            cover.add(i)
            count[feet[i]] += 1
        flat_wood, flat_pen = wood.ravel(), penalty.ravel()
        for i in range(len(cands)):
            # the change in the objective, over whole footprints: wood explained by no
            # other stick (gained or lost), canvas charged under no other stick
            n = 1 if i in chosen else 0
            alone = count[feet[i]] == n
            wood_px = np.count_nonzero(flat_wood[feet[i]] & alone)
            pen = float(flat_pen[pen_feet[i]][count[pen_feet[i]] == n].sum())
            if i in chosen:
                want = (wood_px - pen) / unit - fixed[i]
                assert cover.delta_remove(i) == pytest.approx(want, abs=1e-9)
                continue
            own = np.count_nonzero(flat_wood[core[i]] & (count[core[i]] == 0))
            want = math.inf if own < core_min else (pen - wood_px) / unit + fixed[i]
            assert cover.delta_add(i) == pytest.approx(want, abs=1e-9)


def _polyline_reference(line: np.ndarray, s: float, step_mm: float = 8.0) -> np.ndarray:
    """The string's points chained nearest first, one ``argmin`` per step."""
    ys, xs = np.nonzero(line)
    if xs.size == 0:
        return np.zeros((0, 2), np.float32)
    cell = max(1, round(step_mm * s))
    keys = (ys // cell) * 100000 + (xs // cell)
    _, inv, counts = np.unique(keys, return_inverse=True, return_counts=True)
    pts = np.stack([np.bincount(inv, xs) / counts, np.bincount(inv, ys) / counts], 1).astype(
        np.float32
    )
    left = np.ones(len(pts), bool)
    reach2 = (2 * cell) ** 2

    def nearest(i: int) -> int:
        d = np.where(left, ((pts - pts[i]) ** 2).sum(1), np.inf)
        j = int(np.argmin(d))
        return j if d[j] <= reach2 else -1

    chains: list[list[int]] = []
    while left.any():
        start = int(np.flatnonzero(left)[0])
        chain = [start]
        left[start] = False
        for end in (1, 0):
            while (j := nearest(chain[-1] if end else chain[0])) >= 0:
                left[j] = False
                if end:
                    chain.append(j)
                else:
                    chain.insert(0, j)
        if len(chain) > 1:
            chains.append(chain)
    out: list[np.ndarray] = []
    for i, chain in enumerate(sorted(chains, key=len, reverse=True)):
        if i:
            out.append(np.full((1, 2), np.nan, np.float32))
        out.append((pts[chain] + 0.5) / s)
    return np.concatenate(out).astype(np.float32) if out else np.zeros((0, 2), np.float32)


def test_the_string_is_chained_nearest_first(wood_maps: list[np.ndarray]) -> None:
    masks = [(wm == sl.DARK_PX).astype(np.uint8) for wm in wood_maps]
    assert any(m.sum() > 500 for m in masks)  # board a's string
    rng = np.random.default_rng(2)
    for _ in range(3):  # scattered strokes: several chains, ties in distance
        m = np.zeros((390, 540), np.uint8)
        for _ in range(6):
            p = rng.integers([0, 0], [540, 390], size=(2, 2))
            cv2.line(m, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]), 1, 3)
        masks.append(m)
    masks.append(np.zeros((390, 540), np.uint8))
    for m in masks:
        assert np.array_equal(_polyline(m, S), _polyline_reference(m, S), equal_nan=True)


def test_classes_are_the_lookup_of_the_5_bit_colour() -> None:
    rng = np.random.default_rng(3)
    norm = rng.integers(0, 256, size=(120, 170, 3), dtype=np.uint8)
    q = (norm >> 3).astype(np.int64)
    want = seg._lut(DEFAULT_PROFILE)[(q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]]
    assert np.array_equal(seg.classify(norm, DEFAULT_PROFILE), want)


def test_canvas_model_follows_a_quadratic_light() -> None:
    h, w = 390, 540
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    light = 180.0 + 30.0 * (xs / w - 0.5) - 20.0 * (ys / h - 0.5) ** 2
    canvas = np.repeat(light[:, :, None], 3, axis=2) * np.array([0.9, 1.0, 1.05])
    canvas = np.clip(canvas, 0, 255).astype(np.uint8)
    canvas[100:140, 200:300] = (40, 90, 200)  # a piece: not canvas, left out of the fit
    norm = seg.normalise(canvas, S)
    bare = np.ones((h, w), bool)
    bare[95:145, 195:305] = False
    assert np.abs(norm[bare].astype(float) - seg.WHITE_LEVEL).max() <= 3.0


def _sparse_masks(wood_maps: list[np.ndarray]) -> list[np.ndarray]:
    """Masks as the reader makes them (the wood, the string, a few specks) and edge cases:
    empty, full, pixels on the canvas border."""
    masks = [(wm == code).astype(np.uint8) for wm in wood_maps for code in (sl.WOOD_PX, sl.DARK_PX)]
    rng = np.random.default_rng(4)
    specks = (rng.random((390, 540)) > 0.995).astype(np.uint8)
    specks[150:170, 300:330] = 1  # a blob thick enough to survive an opening
    border = np.zeros((390, 540), np.uint8)
    border[:12, :20] = border[-9:, 500:] = border[200:230, -7:] = 1
    masks += [specks, border, np.zeros((390, 540), np.uint8), np.ones((390, 540), np.uint8)]
    return masks


def test_the_boxed_opening_is_opencvs(wood_maps: list[np.ndarray]) -> None:
    for m in _sparse_masks(wood_maps):
        for k in (5, 11):
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            assert np.array_equal(opened(m, kernel), cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel))


def test_the_grana_patches_are_opencvs_patches(wood_maps: list[np.ndarray]) -> None:
    """The same patches with the same statistics, whatever their numbering."""
    for m in _sparse_masks(wood_maps):
        n, lab, stats = patches(m)
        n0, lab0, stats0, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        assert n == n0
        # a one-to-one map between the two numberings (background to background)
        pairs = np.unique(np.stack([lab.ravel(), lab0.ravel()]), axis=1)
        assert len(set(pairs[0])) == len(set(pairs[1])) == pairs.shape[1]
        assert np.array_equal(pairs[0] == 0, pairs[1] == 0)
        assert np.array_equal(stats[pairs[0]], stats0[pairs[1]])


def test_the_boxed_labelling_is_opencvs(wood_maps: list[np.ndarray]) -> None:
    """The leftover wood's patches labelled in their box: OpenCV's labels, numbering and
    statistics on the whole canvas (an odd box corner is moved to an even one)."""
    masks = _sparse_masks(wood_maps)
    shifted = [np.roll(np.roll(m, 1, 0), 1, 1) for m in masks]
    for m in masks + shifted:
        n0, lab0, stats0, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        n, lab, stats, (ox, oy) = prop._boxed_patches(m)
        assert n == n0
        whole = np.zeros_like(lab0)
        whole[oy : oy + lab.shape[0], ox : ox + lab.shape[1]] = lab
        assert np.array_equal(whole, lab0)
        assert np.array_equal(stats[1:], stats0[1:])


def test_the_block_maximum_is_the_reshaped_maximum(wood_maps: list[np.ndarray]) -> None:
    for m in _sparse_masks(wood_maps):
        for k in (2, 3):
            h, w = m[:-1, :-1].shape  # odd sides too: the last rows and columns dropped
            want = m[: h - h % k, : w - w % k].reshape(h // k, k, w // k, k).max(axis=(1, 3))
            assert np.array_equal(prop._block_max(m[:-1, :-1], k), want)


@pytest.mark.parametrize(
    ("off_mm", "turn_deg", "covered"),
    [(0.0, 0.0, True), (2.3, 0.0, True), (2.7, 0.0, False), (1.0, 3.5, True), (0.0, 5.0, False)],
)
def test_a_piece_along_a_measured_stick_is_covered(
    off_mm: float, turn_deg: float, covered: bool
) -> None:
    """Within ``ALONG_MM`` (2.5 mm) of a measured stick's centre line and 4 degrees of its
    direction, a proposed piece is that stick."""
    stick = sl._Candidate(sl._Line(200.0, 150.0, 0.3), -30.0, 30.0)
    p = np.array([200.0, 150.0]) + stick.line.n * off_mm * S
    piece = sl._Line(float(p[0]), float(p[1]), 0.3 + math.radians(turn_deg))
    assert prop._covered(piece, -20.0, 20.0, [stick], S) == covered


def test_sticks_along_measured_ones_are_not_measured_again(
    wood_maps: list[np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Proposals within ``ALONG_MM`` of a measured stick are skipped: the sticks found are
    those found when only proposals within 2 mm are, with fewer lines measured."""
    measured: list[int] = []
    real = st._candidates_on

    def counted(*args: Any, **kwargs: Any) -> list[sl._Candidate]:
        measured.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(st, "_candidates_on", counted)
    for wm in wood_maps:
        measured.clear()
        fits, explained = st.find_sticks(wm, S, DEFAULT_PROFILE)
        n_fast = len(measured)
        with monkeypatch.context() as m:
            m.setattr(prop, "ALONG_MM", 2.0)
            measured.clear()
            plain, plain_explained = st.find_sticks(wm, S, DEFAULT_PROFILE)
        assert n_fast <= len(measured)
        assert sorted(f.kind for f in fits) == sorted(f.kind for f in plain)
        assert np.mean(explained != plain_explained) < 0.002


def test_the_boxed_stick_cores_are_the_plain_ones(wood_maps: list[np.ndarray]) -> None:
    width = DEFAULT_PROFILE.stick_width_mm
    for wm in [*wood_maps, np.zeros((390, 540), np.uint8)]:
        wood = (wm == sl.WOOD_PX).astype(np.uint8)
        unknown = wm >= sl.DARK_PX
        r = 2 * round(4.0 * S) + 1
        near = cv2.dilate(wood, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
        filled = wood | (unknown & (near > 0)).astype(np.uint8)
        er = max(1, round((width - 3.0) * S))
        want = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (er, er)))
        assert np.array_equal(prop._core(wood, unknown, S, width), want)


def test_the_area_shrink_is_opencvs(board_a: Any, board_b: Any) -> None:
    """The whole-pattern path (1280x720 to 720x405, 16 to 9) and the fallback (a size with
    no small whole pattern) give OpenCV's ``INTER_AREA`` picture, pixel for pixel."""
    for frame, _ in (board_a, board_b):
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        assert gray.shape == (720, 1280)
        for size in ((720, 405), (640, 360), (701, 394)):
            want = cv2.resize(gray, size, interpolation=cv2.INTER_AREA)
            assert np.array_equal(shrink_area(gray, size), want), size


@pytest.mark.parametrize(("tier", "index"), [("normal", 0), ("hard", 1), ("hard", 2), ("hard", 3)])
def test_the_first_look_finds_opencvs_markers(tier: str, index: int) -> None:
    """The first look's detector (``FIRST_PERIMETER_RATES``) gives the markers and corners
    OpenCV's defaults give on the shrunk frame (hard boards 1 and 2: three and two of the
    four markers there)."""
    frame, _ = render_board(tier, scene_seed(0, index))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = max(gray.shape) / board.DETECT_LONG_SIDE_PX
    first = board._detect(gray, scale, first_look=True)
    plain = board._detect(gray, scale)
    assert len(plain) >= 2
    assert sorted(first) == sorted(plain)
    for mid, pts in plain.items():
        assert np.array_equal(first[mid], pts)


def test_the_markers_fit_the_true_canvas(board_a: Any, board_b: Any) -> None:
    for frame, truth in (board_a, board_b):
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        assert sorted(find_board_markers(gray)) == [4, 5, 6, 7]
        view = find_board(frame, gray)
        assert isinstance(view, BoardView), view
        w_mm, h_mm = view.fit.size_mm
        corners = view.fit.to_px(np.array([[0, 0], [w_mm, 0], [w_mm, h_mm], [0, h_mm]], np.float64))
        assert np.abs(corners - np.asarray(truth.board.canvas_corners_px)).max() < 2.0


@pytest.mark.parametrize("index", [0, 2, 3, 5])
def test_normal_boards_are_counted_exactly(index: int) -> None:
    """A handful of the held-out benchmark run's boards (run seed 2; 1 and 4 have a hand
    over the canvas)."""
    frame, truth = render_board("normal", scene_seed(2, index))
    assert truth.board.canvas_hand_fraction == 0
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert not reading.occluded
    assert reading.counts == {k: truth.board.counts.get(k, 0) for k in COUNT_KEYS}


def test_the_four_channel_warp_is_the_three_channel_warp(board_a: Any, board_b: Any) -> None:
    """``board.warp_bgr`` (the source box in BGRA, warped, back to BGR) gives OpenCV's
    warp of the BGR frame pixel for pixel: for the board's own canvas, for a box reaching
    past the frame's edge or lying wholly beyond it (border pixels replicated alike), and
    for a view from behind."""
    for frame, _ in (board_a, board_b):
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        view = find_board(frame, gray)
        assert isinstance(view, BoardView)
        t = np.array([[1 / S, 0, 0.5 / S], [0, 1 / S, 0.5 / S], [0, 0, 1]])
        m = view.fit.homography @ t
        size = view.canvas.shape[1::-1]
        shifted = np.array([[1.0, 0.0, -300.0], [0.0, 1.0, -200.0], [0.0, 0.0, 1.0]]) @ m
        beyond = [
            np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]]) @ m
            for dx, dy in ((3000.0, 0.0), (-3000.0, 0.0), (0.0, 2000.0), (0.0, -2000.0))
        ]
        behind = np.diag([1.0, 1.0, -1.0]) @ m
        for mat in (m, shifted, *beyond, behind):
            want = cv2.warpPerspective(
                frame,
                mat,
                size,
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            )
            assert np.array_equal(board.warp_bgr(frame, mat, size), want)
        assert np.array_equal(view.canvas, board.warp_bgr(frame, m, size))


def test_the_lightness_of_a_box_is_the_lightness_of_the_canvas(board_a: Any, board_b: Any) -> None:
    """``seams.Lightness.remap`` (the lightness computed in the sampled box only) gives
    ``cv2.remap`` of the whole canvas's lightness, inside the canvas and across its edges."""
    from vision.picasso.seams import Lightness, lightness

    rng = np.random.default_rng(3)
    for frame, _ in (board_a, board_b):
        view = find_board(frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        assert isinstance(view, BoardView)
        norm = seg.normalise(view.canvas, S)
        full = lightness(norm)
        lit = Lightness(norm)
        h, w = full.shape
        for _ in range(60):
            c = rng.uniform([-30, -30], [w + 30, h + 30])
            a = rng.uniform(0, math.pi)
            ts = np.arange(-30.0, 30.0, 0.37)
            us = np.arange(-8.0, 8.0, 0.5)
            mx = (c[0] + np.add.outer(us * -math.sin(a), ts * math.cos(a))).astype(np.float32)
            my = (c[1] + np.add.outer(us * math.cos(a), ts * math.sin(a))).astype(np.float32)
            want = cv2.remap(full, mx, my, cv2.INTER_LINEAR)
            assert np.array_equal(lit.remap(mx, my), want)


FIRST_LOOK_BOARDS = [("normal", 0), ("normal", 3), ("hard", 0), ("hard", 5)]


@pytest.mark.parametrize(("tier", "index"), FIRST_LOOK_BOARDS)
def test_the_first_look_in_the_contrast_box_is_the_first_look(tier: str, index: int) -> None:
    """When the first look in the box of strong contrasts finds all four board markers,
    they are those the first look on the whole shrunk frame finds, corners bit for bit;
    and on a normal board the box is found, and smaller than the frame."""
    frame, _ = render_board(tier, scene_seed(0, index))
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = max(gray.shape) / board.DETECT_LONG_SIDE_PX
    boxed = board._first_look_in_box(gray, scale)
    plain = board._detect(gray, scale, first_look=True)
    if tier == "normal":
        box = board._contrast_box(gray, 16)
        assert box is not None
        x0, y0, x1, y1 = box
        assert (x1 - x0) * (y1 - y0) < 0.8 * gray.size
        assert boxed is not None
    if boxed is not None:
        assert sorted(boxed) == sorted(plain) == [4, 5, 6, 7]
        for mid, pts in plain.items():
            assert np.array_equal(boxed[mid], pts)


def test_the_box_shrink_is_the_frame_shrink_boxed(board_a: Any) -> None:
    """The area shrink of a box on whole 16-pixel blocks is that box of the frame's shrink."""
    gray = cv2.cvtColor(board_a[0], cv2.COLOR_BGR2GRAY)
    whole = shrink_area(gray, (720, 405))
    for x0, y0, x1, y1 in ((0, 0, 1280, 720), (160, 48, 1104, 672), (336, 128, 1152, 656)):
        part = shrink_area(gray[y0:y1, x0:x1], ((x1 - x0) * 9 // 16, (y1 - y0) * 9 // 16))
        assert np.array_equal(part, whole[y0 * 9 // 16 : y1 * 9 // 16, x0 * 9 // 16 : x1 * 9 // 16])


def _stretch_ranges_reference(
    band: sl._Band, width: float, min_len: float, both_max: float
) -> list[tuple[float, float]]:
    """Every run of stick-or-unknown cross-sections trimmed to stick ones and measured."""
    ok, ok_or_unknown, both = stretch._stretch_stats(band.wood, band.known, band.u, width)
    step = float(band.t[1] - band.t[0])
    out = []
    for r0, r1 in runs(ok_or_unknown, round(stretch.GAP_MM / step)):
        idx = np.flatnonzero(ok[r0 : r1 + 1])
        if idx.size == 0:
            continue
        first, last = r0 + int(idx[0]), r0 + int(idx[-1])
        if (last - first) * step < min_len:
            continue
        if np.count_nonzero(both[first : last + 1]) > both_max * (last - first + 1):
            continue
        out.append((float(band.t[first]), float(band.t[last])))
    return out


def test_stretches_through_a_point_are_those_of_all_that_pass_it(wood_maps: Any) -> None:
    """``_stretch_ranges`` (runs too short, or with ``through_mm`` too far from it, not
    looked at) gives every run's stretch that is long enough, and with ``through_mm=0``
    those passing within 1 mm of 0, with the same ends."""
    width = DEFAULT_PROFILE.stick_width_mm
    seen = 0
    for wm in wood_maps:
        for ln, t0, t1 in _lines(wm):
            mid = ln.at(0.5 * (t0 + t1), S)
            pivot = sl._Line(float(mid[0]), float(mid[1]), ln.angle)
            band = stretch._sample_band(wm, pivot, 0.5 * width + 3.0, S, (-60.0, 60.0), 1.0)
            for both_max in (0.45, st.HEAP_BOTH_MAX):
                for min_len in (0.0, 30.0):
                    want_all = _stretch_ranges_reference(band, width, min_len, both_max)
                    assert stretch._stretch_ranges(band, width, min_len, both_max) == want_all
                plain = stretch._stretch_ranges(band, width, 0.0, both_max)
                want = [(a, b) for a, b in plain if a - 1.0 <= 0.0 <= b + 1.0]
                got = stretch._stretch_ranges(band, width, 0.0, both_max, through_mm=0.0)
                assert [(a, b) for a, b in got if a - 1.0 <= 0.0 <= b + 1.0] == want
                seen += len(want)
    assert seen > 0


def _entering_reference(
    foreground: np.ndarray, s: float, margins: tuple[int, int, int, int]
) -> np.ndarray:
    """``occlusion.entering`` with each patch's pixels taken over the whole canvas."""
    from vision.picasso.occlusion import CONTACT_MM, DEPTH_MM

    h, w = foreground.shape
    band = max(2, round(2.0 * s))
    top, bottom, left, right = margins
    n, lab, stats, _ = cv2.connectedComponentsWithStats(foreground, connectivity=8)
    out = np.zeros((h, w), np.uint8)
    edge = np.zeros((h, w), bool)
    edge[: top + band] = edge[h - bottom - band :] = True
    edge[:, : left + band] = edge[:, w - right - band :] = True
    for i in range(1, n):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        contact = float(((lab == i) & edge).sum()) / (band * s)
        if contact == 0:
            continue
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
            out[lab == i] = 1
    return out


def test_patches_coming_in_are_measured_in_their_box(wood_maps: list[np.ndarray]) -> None:
    """``occlusion.entering`` (each patch's contact and pixels taken in its box) marks the
    patches the whole-canvas computation marks: the wood and dark pixels of the boards, and
    bars and blobs laid over each edge."""
    from vision.picasso.occlusion import entering

    rng = np.random.default_rng(5)
    masks = [(wm > 0).astype(np.uint8) for wm in wood_maps]
    for _ in range(6):
        m = np.zeros((390, 540), np.uint8)
        for _ in range(4):
            x, y = int(rng.integers(0, 540)), int(rng.integers(0, 390))
            side = int(rng.integers(0, 4))
            x, y = ((0, y), (539, y), (x, 0), (x, 389))[side]
            cv2.line(m, (x, y), (int(rng.integers(0, 540)), int(rng.integers(0, 390))), 1, 30)
            cv2.circle(m, (int(rng.integers(0, 540)), int(rng.integers(0, 390))), 20, 1, -1)
        masks.append(m)
    marked = 0
    for m in masks:
        for margins in ((0, 0, 0, 0), (2, 3, 1, 4)):
            want = _entering_reference(m, S, margins)
            assert np.array_equal(entering(m, S, margins), want)
            marked += int(want.any())
    assert marked > 0


def _merged_reference(segs: np.ndarray, s: float) -> list[tuple[float, ...]]:
    """``_hough_lines``' merging of Hough pieces, every array made afresh for each pair."""
    lengths = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    lines: list[list[float]] = []
    for i in np.argsort(-lengths):
        x0, y0, x1, y1 = segs[i]
        ang = math.atan2(y1 - y0, x1 - x0)
        for ln in lines:
            if abs((ang - ln[2] + math.pi / 2) % math.pi - math.pi / 2) > math.radians(3):
                continue
            d = np.array([math.cos(ln[2]), math.sin(ln[2])])
            n = np.array([-d[1], d[0]])
            rel = np.array([[x0, y0], [x1, y1]]) - np.array([ln[0], ln[1]])
            if np.abs(rel @ n).max() >= 1.5 * s:
                continue
            ts = rel @ d
            if ts.min() > ln[4] + 10 * s or ts.max() < ln[3] - 10 * s:
                continue
            ln[3] = min(ln[3], float(ts.min()))
            ln[4] = max(ln[4], float(ts.max()))
            break
        else:
            lines.append([(x0 + x1) / 2, (y0 + y1) / 2, ang, -lengths[i] / 2, lengths[i] / 2])
    return [(cx, cy, a, t0 / s, t1 / s) for cx, cy, a, t0, t1 in lines]


def test_hough_pieces_merge_as_before(wood_maps: list[np.ndarray]) -> None:
    """The proposals of ``_hough_lines`` (each line's arrays made once) are the merging of
    the same Hough pieces with every array made afresh, bit for bit."""
    width = DEFAULT_PROFILE.stick_width_mm
    min_len = 0.6 * DEFAULT_PROFILE.sorted_sticks[0].length_mm
    real = cv2.HoughLinesP
    for wm in wood_maps:
        wood = (wm == sl.WOOD_PX).astype(np.uint8)
        core = prop._core(wood, wm >= sl.DARK_PX, S, width)
        seen: list[np.ndarray] = []

        def spy(*args: Any, _seen: list[np.ndarray] = seen, **kwargs: Any) -> Any:
            out = real(*args, **kwargs)
            _seen.append(out)
            return out

        cv2.HoughLinesP = spy
        try:
            got = prop._hough_lines(core, S, min_len)
        finally:
            cv2.HoughLinesP = real
        k = max(1, round(S))
        segs = seen[0].reshape(-1, 4).astype(np.float64) * k + (k - 1) / 2
        want = _merged_reference(segs, S)
        assert len(got) > 3
        assert [(ln.cx, ln.cy, ln.angle, t0, t1) for ln, t0, t1 in got] == want


def _footprints_reference(
    cand: sl._Candidate, shape: tuple[int, int], widths_mm: tuple[float, ...], k: int
) -> list[np.ndarray]:
    """Each rectangle's pixels of the widest one's box, in numpy arrays throughout."""
    e = cand.ends_px(S) / k
    d, n = cand.line.d, cand.line.n
    half = 0.5 * max(widths_mm) * S / k
    corners = np.array([e[0] + n * half, e[1] + n * half, e[1] - n * half, e[0] - n * half])
    x0 = max(0, math.floor(corners[:, 0].min()))
    y0 = max(0, math.floor(corners[:, 1].min()))
    x1 = min(shape[1], math.ceil(corners[:, 0].max()) + 1)
    y1 = min(shape[0], math.ceil(corners[:, 1].max()) + 1)
    if x1 <= x0 or y1 <= y0:
        return [np.zeros(0, np.intp) for _ in widths_mm]
    xs = np.arange(x0, x1, dtype=np.float64) - e[0][0]
    ys = np.arange(y0, y1, dtype=np.float64) - e[0][1]
    along = ys[:, None] * d[1] + xs[None, :] * d[0]
    across = np.abs(ys[:, None] * n[1] + xs[None, :] * n[0])
    inside = (along >= 0) & (along <= float(np.hypot(*(e[1] - e[0]))))
    box = np.arange(shape[0] * shape[1]).reshape(shape)[y0:y1, x0:x1]
    return [box[inside & (across <= 0.5 * w * S / k)] for w in widths_mm]


def test_footprints_are_the_rectangles_pixels(wood_maps: list[np.ndarray]) -> None:
    """``_footprints`` (ends and corners in plain floats, the narrower rectangles picked
    among the widest one's pixels) lists the pixels the all-numpy computation lists, in the
    same order, on the full and the subsampled grid, candidates reaching past the edges
    included."""
    width = DEFAULT_PROFILE.stick_width_mm
    widths = (width + 1.0, width - 2.0, sel.CORE_MM)
    for wm in wood_maps:
        cands = _candidates(wm)
        cands.append(sl._Candidate(sl._Line(-20.0, 30.0, 0.3), -10.0, 80.0))
        cands.append(sl._Candidate(sl._Line(900.0, 900.0, 1.0), 0.0, 10.0))
        for k in (1, 2):
            small = wm[::k, ::k].shape
            for c in cands:
                got = sel._footprints(c, small, widths, S, k)
                want = _footprints_reference(c, small, widths, k)
                for g, w_ in zip(got, want, strict=True):
                    assert np.array_equal(g, w_)


def test_the_nine_points_are_linspaces(wood_maps: list[np.ndarray]) -> None:
    """``_nine_points`` gives ``np.linspace(t0, t1, 9)`` bit for bit: on the Hough pieces of
    boards a and b, and on pieces of no length, reversed, tiny and far out."""
    pieces = [(t0, t1) for wm in wood_maps for _, t0, t1 in _lines(wm)]
    rng = np.random.default_rng(6)
    for t0 in rng.uniform(-400.0, 400.0, 200).tolist():
        for d in (0.0, 1e-7, -3.3, float(rng.uniform(0.0, 300.0))):
            pieces.append((t0, t0 + d))
    assert pieces
    for t0, t1 in pieces:
        got = prop._nine_points(t0, t1)
        assert got.dtype == np.float64
        assert np.array_equal(got, np.linspace(t0, t1, 9)), (t0, t1)


def test_a_lines_direction_is_made_when_asked() -> None:
    """A line's ``d`` and ``n`` (made on first use) are its direction and normal from its
    angle, read-only, the same array each time; they play no part in equality."""
    for angle in (0.0, 0.3, -1.2, math.pi / 2, 3.0):
        ln = sl._Line(10.0, 20.0, angle)
        assert np.array_equal(ln.d, np.array([math.cos(angle), math.sin(angle)]))
        assert np.array_equal(ln.n, np.array([-math.sin(angle), math.cos(angle)]))
        assert ln.d is ln.d and ln.n is ln.n
        assert not ln.d.flags.writeable and not ln.n.flags.writeable
        assert ln == sl._Line(10.0, 20.0, angle)
    with pytest.raises(ValueError):
        sl._Line(0.0, 0.0, 0.0).d[0] = 1.0


def test_the_runs_of_a_mask_are_the_plain_runs() -> None:
    """``masks.runs`` (index ranges where a mask holds, gaps of up to ``gap`` bridged) is the
    plain walk along the mask, on random masks of several densities."""

    def plain(ok: np.ndarray, gap: int) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for i in np.flatnonzero(ok).tolist():
            if out and i - out[-1][1] <= gap + 1:
                out[-1] = (out[-1][0], i)
            else:
                out.append((i, i))
        return out

    rng = np.random.default_rng(7)
    for n in (0, 1, 5, 80, 300):
        for p in (0.0, 0.2, 0.7, 1.0):
            ok = rng.random(n) < p
            for gap in (0, 1, 3):
                assert runs(ok, gap) == plain(ok, gap)


def _covered_reference(
    line: sl._Line, t0: float, t1: float, cands: list[sl._Candidate], s: float
) -> bool:
    """``_covered`` placing its nine points and testing them against every candidate in
    the piece's direction."""
    ts = np.linspace(t0, t1, 9)
    pts = np.array([line.cx, line.cy])[None, :] + np.outer(ts * s, line.d)
    for c in cands:
        da = abs((line.angle - c.line.angle + math.pi / 2) % math.pi - math.pi / 2)
        if da > math.radians(4):
            continue
        rel = pts - np.array([c.line.cx, c.line.cy])
        across = np.abs(rel @ c.line.n) <= prop.ALONG_MM * s
        along = rel @ c.line.d / s
        inside = (along >= c.t0 - 3.0) & (along <= c.t1 + 3.0)
        if np.count_nonzero(across & inside) >= 0.7 * ts.size:
            return True
    return False


def test_pieces_clear_of_a_candidate_are_passed_over_exactly(wood_maps: list[np.ndarray]) -> None:
    """``_covered`` (candidates the piece passes clear of skipped from its ends alone) says
    what testing all nine points says: for each proposal of boards a and b against each
    candidate, and against all of them, the proposals also moved across (to either side of
    the ``ALONG_MM`` limit), along (past the candidates' ends) and turned."""
    answers: set[bool] = set()
    for wm in wood_maps:
        cands = _candidates(wm)
        pieces = []
        for ln, t0, t1 in _lines(wm):
            for off_mm in (0.0, 2.4, 2.6, -3.5, 6.0):
                for turn in (0.0, math.radians(3.9), math.radians(4.1)):
                    for shift in (0.0, 25.0, -60.0):
                        x = ln.cx - ln.sin * off_mm * S + ln.cos * shift * S
                        y = ln.cy + ln.cos * off_mm * S + ln.sin * shift * S
                        pieces.append((sl._Line(x, y, ln.angle + turn), t0, t1))
        for ln, t0, t1 in pieces:
            for c in cands:
                got = prop._covered(ln, t0, t1, [c], S)
                assert got == _covered_reference(ln, t0, t1, [c], S)
                answers.add(got)
            assert prop._covered(ln, t0, t1, cands, S) == _covered_reference(ln, t0, t1, cands, S)
    assert answers == {True, False}
