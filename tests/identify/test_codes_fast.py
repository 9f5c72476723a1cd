"""The fast code reader's batched steps read what the plain, one-at-a-time steps they replace
read: dark squares traced component by component, cells sampled through each candidate's
homography, the marker table searched, each card's place voted code by code and its outline
fitted card by card (plain versions written out here, as the reader had them)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision.codes.aruco import load_dictionary
from vision.identify import codes as c
from vision.identify import dark_squares
from vision.identify.quads import _sample
from vision.identify.scenes import make_scene, scene_seed
from vision.kit.codes import marker_table

#: Rendered tables of the benchmark's seed 0 (not its held-out seed): 11, 9 and 6 cards.
SCENES = (0, 5, 9)


@functools.cache
def _table(index: int) -> tuple[np.ndarray, np.ndarray]:
    frame, _ = make_scene("codes", "normal", scene_seed(0, index))
    return frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _plain_quads(grey: np.ndarray) -> np.ndarray:
    """The dark squares' contour corners, each component traced and checked in turn."""
    binary = cv2.adaptiveThreshold(
        grey,
        255,
        cv2.ADAPTIVE_THRESH_MEAN_C,
        cv2.THRESH_BINARY_INV,
        dark_squares._THRESH_WINDOW,
        dark_squares._THRESH_C,
    )
    _, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        binary, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    h, w = grey.shape
    quads = []
    for i in range(1, len(stats)):
        x, y, cw, ch, area = (int(v) for v in stats[i])
        if not (
            min(cw, ch) >= dark_squares.MIN_MARKER_PX
            and max(cw, ch) <= min(max(h, w) // 2, 2 * min(cw, ch))
        ):
            continue
        if area < 0.25 * cw * ch:
            continue
        x0, y0 = max(0, x - 1), max(0, y - 1)
        roi = (labels[y0 : y + ch + 1, x0 : x + cw + 1] == i).astype(np.uint8)
        contours, _ = cv2.findContours(roi, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        contour = max(contours, key=len)
        approx = cv2.approxPolyDP(contour, 0.04 * len(contour), True)
        if len(approx) != 4 or not cv2.isContourConvex(approx):
            continue
        q = approx.reshape(4, 2).astype(np.float32) + np.array([x0, y0], np.float32)
        sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        if sides.min() < 0.5 * dark_squares.MIN_MARKER_PX or sides.max() > 2.5 * sides.min():
            continue
        v1, v2 = q[1] - q[0], q[2] - q[0]
        quads.append(q[[0, 3, 2, 1]] if v1[0] * v2[1] - v1[1] * v2[0] < 0 else q)
    return np.stack(quads)


def _unrefined(grey: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """``marker_quads`` up to its corners' refinement (half a pixel out, clipped)."""
    monkeypatch.setattr(dark_squares, "refine_marker_corners", lambda _grey, quads: quads)
    return dark_squares.marker_quads(grey)


@pytest.mark.parametrize("index", SCENES)
def test_dark_squares_are_those_traced_one_by_one(
    index: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, grey = _table(index)
    plain = _plain_quads(grey)
    centre = plain.mean(axis=1, keepdims=True)
    grown = centre + (plain - centre) * (
        1 + 0.5 / np.maximum(np.linalg.norm(plain - centre, axis=2, keepdims=True), 1)
    )
    fast = _unrefined(grey, monkeypatch)
    assert len(plain) >= 10  # markers and QR finders of the cards
    np.testing.assert_array_equal(fast, np.clip(grown, 0, [grey.shape[1] - 1, grey.shape[0] - 1]))


def test_points_are_sampled_as_the_generic_sampler_does() -> None:
    rng = np.random.default_rng(5)
    grey = rng.integers(0, 256, (90, 130), dtype=np.uint8)
    x = rng.uniform(-5, 135, (7, 300))  # some outside the image: 0 there
    y = rng.uniform(-5, 95, (7, 300))
    fast = dark_squares._sample_xy(grey, x, y)
    assert fast.shape == (7, 300)
    np.testing.assert_array_equal(fast, _sample(grey, np.stack([x, y], axis=-1)))
    assert (fast[(x < -1) | (y < -1)] == 0).all()


def _plain_cell_ratios(grey: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Cell levels sampled through each candidate's homography applied point by point."""
    cells = c._CELLS
    unit = np.array([[0, 0], [cells, 0], [cells, cells], [0, cells]], np.float32)
    centres = (np.stack(np.meshgrid(np.arange(cells), np.arange(cells)), -1) + 0.5).reshape(
        -1, 1, 2
    )
    pts = (centres + c._CELL_SAMPLES).reshape(-1, 2)
    out = []
    for q in quads:
        hom = cv2.getPerspectiveTransform(unit, q.astype(np.float32))
        xy = cv2.perspectiveTransform(pts[None].astype(np.float64), hom)[0]
        levels = _sample(grey, xy).reshape(cells * cells, -1).mean(axis=1)
        dark, light = c._otsu_classes(levels[None])
        span = float(light[0] - dark[0])
        ratio = (
            np.clip((levels - dark[0]) / max(span, 1e-9), 0, 1)
            if span >= c._MIN_CONTRAST
            else 0 * levels
        )
        out.append(ratio.reshape(cells, cells))
    return np.stack(out)


@pytest.mark.parametrize("index", SCENES)
def test_cells_are_read_as_through_each_homography(index: int) -> None:
    _, grey = _table(index)
    quads = dark_squares.marker_quads(grey)
    np.testing.assert_allclose(
        c._cell_ratios(grey, quads), _plain_cell_ratios(grey, quads), atol=1e-4
    )


def test_the_marker_lookup_is_the_dictionary_searched() -> None:
    """Every packed code of the kit's markers, in each rotation, names the one marker and
    rotation that a search of the dictionary finds, and no code that search finds twice."""
    ids = np.array(sorted(marker_table()), np.int64)
    codes = np.asarray(load_dictionary("DICT_4X4_1000").codes[ids], np.uint64)
    lookup = c._kit_marker_lookup()
    for code in np.unique(codes).tolist():
        hit = np.argwhere(codes == np.uint64(code))
        if len(hit) == 1:
            assert lookup[code] == (int(ids[hit[0, 0]]), int(hit[0, 1]))
        else:
            assert code not in lookup
    assert len(lookup) >= 4 * len(ids) - 8


def _plain_read(grey: np.ndarray, quads: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The kit markers among ``quads``, each candidate's code searched in the dictionary, a
    centre within 0.3 sides of one read before dropped."""
    ids = np.array(sorted(marker_table()), np.int64)
    codes = np.asarray(load_dictionary("DICT_4X4_1000").codes[ids], np.uint64)
    ratios = c._cell_ratios(grey, quads)
    weights = np.left_shift(np.uint64(1), np.arange(16, dtype=np.uint64))
    out: list[tuple[int, np.ndarray]] = []
    for q, r in zip(quads, ratios, strict=True):
        inner = r[1:-1, 1:-1].reshape(-1) > c._BIT_THRESHOLD
        if (r > c._BIT_THRESHOLD).sum() - inner.sum() > c._MAX_BORDER_WRONG:
            continue
        hit = np.argwhere(codes == np.bitwise_or.reduce(np.where(inner, weights, np.uint64(0))))
        if len(hit) != 1:
            continue
        corners = np.roll(q, int(hit[0, 1]), axis=0)
        centre, side = corners.mean(axis=0), float(np.linalg.norm(corners[1] - corners[0]))
        if any(np.linalg.norm(k.mean(axis=0) - centre) < 0.3 * side for _, k in out):
            continue
        out.append((int(ids[hit[0, 0]]), corners))
    return out


@pytest.mark.parametrize("index", SCENES)
def test_markers_are_those_of_the_dictionary_searched(index: int) -> None:
    """The table's candidates, then each one twice (the second a little moved, as an inner
    contour of the same marker would be): one reading per marker, as the plain search."""
    _, grey = _table(index)
    quads = dark_squares.marker_quads(grey)
    for case in (
        quads,
        np.concatenate([quads, quads + 0.7])[
            np.argsort(np.tile(np.arange(len(quads)), 2), kind="stable")
        ],
    ):
        fast, _ = c._read_quads(grey, case)
        plain = _plain_read(grey, case)
        assert len(plain) >= 5
        assert [m for m, _ in fast] == [m for m, _ in plain]
        np.testing.assert_array_equal(
            np.stack([k for _, k in fast]), np.stack([k for _, k in plain])
        )


def _plain_place(group: list[c.CodeSighting]) -> tuple[str, list[tuple[c.CodeSighting, int]]]:
    """A card's place as searched pose against pose, code by code."""
    best = None
    for s in group:
        for i in range(len(s.poses)):
            tol = 0.2 * float(np.linalg.norm(s.poses[i][2] - s.poses[i][0]))
            members = []
            for t in group:
                j = next(
                    (j for j in range(len(t.poses)) if np.abs(t.poses[j] - s.poses[i]).max() < tol),
                    None,
                )
                if j is not None:
                    members.append((t, j))
            key = (sum(c._weight(t) for t, _ in members), -len(s.poses))
            if best is None or key > best[0]:
                best = (key, members)
    assert best is not None
    votes = {"front": 0, "back": 0}
    for t, _ in best[1]:
        votes[t.side] += c._weight(t)
    side = "front" if votes["front"] >= votes["back"] else "back"
    return side, [(t, j) for t, j in best[1] if t.side == side]


def _plain_outline(card: str, side: str, agree: list[tuple[c.CodeSighting, int]]) -> np.ndarray:
    """A card's outline fitted on its own: one code's pose, a homography by
    ``np.linalg.lstsq`` for codes at opposite corners, else an affine map."""
    if len(agree) == 1:
        return agree[0][0].poses[agree[0][1]]
    size = c.face_geometry(card, side)[0]
    src = np.concatenate([t.places_mm[j] for t, j in agree])
    dst = np.concatenate([t.corners_px for t, _ in agree]).astype(np.float64)
    face = c._face_corners_mm(size)
    if np.ptp(src, axis=0).min() > 0.5 * min(size):
        x, y, u, v = src[:, 0], src[:, 1], dst[:, 0], dst[:, 1]
        one, zero = np.ones_like(x), np.zeros_like(x)
        a = np.concatenate(
            [
                np.stack([x, y, one, zero, zero, zero, -u * x, -u * y], axis=1),
                np.stack([zero, zero, zero, x, y, one, -v * x, -v * y], axis=1),
            ]
        )
        sol = np.linalg.lstsq(a, np.concatenate([u, v]), rcond=None)[0]
        return cv2.perspectiveTransform(face[None], np.append(sol, 1.0).reshape(3, 3))[0]
    return c._affine_apply(c._affine(src, dst), face)


def _shifted(s: c.CodeSighting, by: float) -> c.CodeSighting:
    return c.CodeSighting(s.kind, s.card, s.side, s.corners_px + by, s.poses + by, s.places_mm)


def _other_side(s: c.CodeSighting) -> c.CodeSighting:
    side = "back" if s.side == "front" else "front"
    return c.CodeSighting(s.kind, s.card, side, s.corners_px, s.poses, s.places_mm)


@pytest.mark.parametrize("index", SCENES)
def test_votes_are_those_of_the_plain_search(index: int) -> None:
    """Every card of a rendered table, and the same codes made ambiguous: each card's codes
    also seen 300 px away (one code: a second place of the same card), and a card's first
    code read as its other side."""
    frame, grey = _table(index)
    sightings = c.read_sightings(frame, grey)
    first = sightings[0]
    twice = [*sightings, *[_shifted(s, 300.0) for s in sightings if s.card == first.card][:1]]
    flipped = [_other_side(first), *sightings[1:]]
    # A QR code 300 px from its card's two markers: two places of equal weight, the code
    # with one pose wins.
    pair = next(s for s in sightings if sum(t.card == s.card for t in sightings) == 2)
    qr = c.sighting(
        "qr", pair.card, pair.side, c.face_geometry(pair.card, pair.side)[2].corners() * 3 + 300.0
    )
    tie = [*sightings, qr]
    for case in (sightings, twice, flipped, tie):
        cards = c.vote(case)
        groups: dict[str, list[c.CodeSighting]] = {}
        for s in case:
            groups.setdefault(s.card, []).append(s)
        assert [k.card for k in cards] == list(groups)
        for k in cards:
            side, agree = _plain_place(groups[k.card])
            assert k.side == side
            assert k.codes == tuple(t for t, _ in agree)
            np.testing.assert_allclose(k.corners_px, _plain_outline(k.card, side, agree), atol=1e-3)
