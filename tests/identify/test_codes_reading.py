"""Reading card markers in a frame: corners to the marker's edge, cells by their own levels,
lone markers placed by the card's outline, two markers fitting the card without snapping,
QR codes read in the windows of their finder patterns."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import segno

from vision.identify import identify_frame
from vision.identify.codes import (
    _lstsq_homographies,
    qr_windows,
    read_markers,
    read_qr_fast,
    read_sightings,
    vote,
)
from vision.identify.dark_squares import marker_quads, refine_marker_corners
from vision.kit import marker_id
from vision.kit.codes import format_payload, marker_bits
from vision.synth import TableSpec, render_scene

from .conftest import scene, table_scene

CARD = "pickpic-037"


def _marker_frame(
    corners: np.ndarray, marker: int, size_wh: tuple[int, int] = (120, 100), *, sheen: bool = False
) -> np.ndarray:
    """A grey (H, W) uint8 frame: marker ``marker`` (with a white margin of one cell) warped
    onto ``corners`` (4, 2) (the marker's own corners, TL TR BR BL), on a mid-grey ground,
    rendered at 8x and averaged down (exact sub-pixel geometry), blurred a little; with
    ``sheen``, a bright band across the marker's middle lifts its dark cells."""
    cells = np.pad(marker_bits(marker), 1, constant_values=0)  # 1 = black; margin white
    big = np.where(cells > 0, 20, 235).astype(np.uint8)
    big = cv2.resize(big, (8 * 64, 8 * 64), interpolation=cv2.INTER_NEAREST)
    s = 8
    w, h = size_wh
    src = np.array([[64, 64], [448, 64], [448, 448], [64, 448]], np.float32)
    dst = (corners.astype(np.float32) + 0.5) * s
    hom = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(
        big, hom, (w * s, h * s), flags=cv2.INTER_LINEAR, borderValue=(120,)
    ).astype(np.float32)
    if sheen:
        yy, xx = np.mgrid[0 : h * s, 0 : w * s]
        centre = dst.mean(axis=0)
        sigma = 0.25 * float(np.linalg.norm(dst[1] - dst[0]))
        out += 120.0 * np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * sigma**2))
    small = cv2.resize(np.clip(out, 0, 255), (w, h), interpolation=cv2.INTER_AREA)
    return np.asarray(cv2.GaussianBlur(small, (0, 0), 0.7).round(), np.uint8)


def _turned_square(centre: tuple[float, float], side: float, deg: float) -> np.ndarray:
    a = np.deg2rad(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]) * side
    return np.asarray(unit @ rot.T + centre, np.float64)


@pytest.mark.parametrize(("side", "deg"), [(15.0, 0.0), (15.5, 23.0), (20.0, -37.0), (32.0, 61.0)])
def test_corners_are_moved_onto_the_markers_edge(side: float, deg: float) -> None:
    truth = _turned_square((57.3, 48.6), side, deg)
    grey = _marker_frame(truth, marker_id(CARD, "front"))
    rng = np.random.default_rng(3)
    start = (truth + rng.uniform(-1.2, 1.2, truth.shape)).astype(np.float32)
    refined = refine_marker_corners(grey, start[None])[0]
    assert np.abs(refined - truth).max() < 0.35
    assert np.abs(start - truth).max() > 0.6  # the test does move them


@pytest.mark.parametrize(("side", "deg"), [(14.0, 8.0), (16.0, 33.0), (18.0, -52.0)])
def test_small_blurred_markers_are_read_with_their_corners(side: float, deg: float) -> None:
    """Markers of 14-18 px (2.3-3 px a cell), turned any way: read, corners within half a
    pixel (the contour of a thresholded blob is a pixel or two off at this size)."""
    marker = marker_id(CARD, "back")
    truth = _turned_square((60.2, 50.7), side, deg)
    grey = _marker_frame(truth, marker)
    reads = read_markers(grey)
    assert [m for m, _ in reads] == [marker]
    corners = reads[0][1]
    err = min(np.abs(np.roll(corners, r, axis=0) - truth).max() for r in range(4))
    assert err < 0.5


@pytest.mark.parametrize(
    ("side", "deg"), [(60.0, 10.0), (95.0, 0.0), (118.0, 25.0), (180.0, -40.0), (300.0, 70.0)]
)
def test_large_markers_are_read_with_their_corners(side: float, deg: float) -> None:
    """Markers of 60-300 px (10-50 px a cell: a card close to the camera, a printed page at
    150 dpi and more): the adaptive threshold's window (15 px) marks only the edges of a dark
    area wider than it, and markers from about 90 px were left hollow, never read."""
    marker = marker_id("picmix-red-1", "front")
    size = (int(side * 3) + 40, int(side * 3) + 20)  # a card round it fits in the frame
    truth = _turned_square((size[0] / 2 + 0.3, size[1] / 2 - 0.2), side, deg)
    grey = _marker_frame(truth, marker, size)
    reads = read_markers(grey)
    assert [m for m, _ in reads] == [marker]
    corners = reads[0][1]
    err = min(np.abs(np.roll(corners, r, axis=0) - truth).max() for r in range(4))
    assert err < 0.5


@pytest.mark.parametrize("deg", [0.0, 20.0, 40.0])
def test_a_sheen_over_a_marker_does_not_hide_its_cells(deg: float) -> None:
    """A bright spot over the marker's middle lifts its middle dark cells towards its white
    ones: a threshold of the patch's pixels (Otsu) fell among the dark cells (this marker
    was read at none of these angles); cells are split by their own levels."""
    marker = marker_id(CARD, "front")
    truth = _turned_square((60.0, 50.0), 26.0, deg)
    grey = _marker_frame(truth, marker, sheen=True)
    assert [m for m, _ in read_markers(grey)] == [marker]


def test_homography_matches_opencv() -> None:
    rng = np.random.default_rng(0)
    src = rng.uniform(0, 88, (8, 2))
    h_true = np.array([[1.3, 0.2, 40.0], [-0.1, 1.2, 70.0], [2e-4, -1e-4, 1.0]])
    p = np.hstack([src, np.ones((8, 1))]) @ h_true.T
    dst = p[:, :2] / p[:, 2:]
    # Solved together with a degenerate fit (all one point), which does not spoil it.
    homs, ok = _lstsq_homographies(np.stack([src, np.zeros((8, 2))]), np.stack([dst, dst]))
    assert ok.tolist() == [True, False]
    assert np.allclose(homs[0], h_true, atol=1e-6)
    found, _ = cv2.findHomography(src, dst, 0)
    assert np.allclose(homs[0], found, atol=1e-6)


def test_batched_homographies_match_numpys_least_squares() -> None:
    """The batched SVD solve gives what ``np.linalg.lstsq`` gives for each fit (noisy
    corners, so a true least-squares residual)."""
    rng = np.random.default_rng(1)
    src = rng.uniform(0, 88, (5, 8, 2))
    dst = src * 7.0 + rng.normal(0, 0.5, src.shape) + 300.0
    homs, ok = _lstsq_homographies(src, dst)
    assert ok.all()
    for s, d, h in zip(src, dst, homs, strict=True):
        x, y, u, v = s[:, 0], s[:, 1], d[:, 0], d[:, 1]
        one, zero = np.ones(8), np.zeros(8)
        a = np.concatenate(
            [
                np.stack([x, y, one, zero, zero, zero, -u * x, -u * y], axis=1),
                np.stack([zero, zero, zero, x, y, one, -v * x, -v * y], axis=1),
            ]
        )
        sol = np.linalg.lstsq(a, np.concatenate([u, v]), rcond=None)[0]
        assert np.allclose(h.reshape(-1)[:8], sol, rtol=1e-9, atol=1e-9)


def test_two_markers_fit_the_card_without_snapping() -> None:
    """Cards read by both markers are fitted to them (``spanned``): fully visible cards
    within a pixel and a half of their true corners."""
    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    cards = {c.card: c for c in vote(read_sightings(frame, grey))}
    checked = 0
    for t in truth.cards:
        c = cards.get(t.card_id)
        markers = 0 if c is None else sum(s.kind == "marker" for s in c.codes)
        if c is None or t.visible_fraction < 0.99 or markers < 2:
            continue
        assert c.spanned
        result = identify_frame(frame)
        named = result.card(t.card_id)
        assert named is not None
        assert np.abs(named.corners_px - t.corners_px).max() < 1.5, t.card_id
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("covered", ["top-left", "bottom-right"])
def test_a_card_with_one_marker_covered_is_placed_by_its_outline(covered: str) -> None:
    """A card whose other marker lies under another card: its one marker could be either of
    the face's two; the pose whose outline is seen on the card's edges wins."""
    under = ("pickpic-020", "front", (0.0, 0.0), 15.0)
    # The card on top covers a corner of the one below (its centre offset along the
    # diagonal), hiding that corner's marker.
    sign = -1.0 if covered == "top-left" else 1.0
    offset = np.array([sign * 42.0, sign * 58.0])
    a = np.deg2rad(15.0)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    cx, cy = rot @ offset
    over = ("pickpic-090", "back", (float(cx), float(cy)), 15.0)
    spec = scene((under, over), TableSpec("wood", (95, 140, 185), 3))
    frame, truth = render_scene(spec, seed=5)
    t = truth.card("pickpic-020")
    assert t is not None and 0.6 < t.visible_fraction < 0.95
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    seen = [s for s in read_sightings(frame, grey) if s.card == "pickpic-020"]
    assert len(seen) == 1 and seen[0].kind == "marker"  # one marker: the other is covered
    named = identify_frame(frame).card("pickpic-020")
    assert named is not None and named.side == "front"
    assert np.linalg.norm(named.corners_px.mean(axis=0) - t.corners_px.mean(axis=0)) < 5.0


def _qr_sheet(payload: str, module_px: float, angle: float) -> np.ndarray:
    q = segno.make(payload, micro=False, error="m")
    m = np.array([list(row) for row in q.matrix], np.uint8)
    img = np.where(np.pad(m, 2) > 0, 25, 230).astype(np.uint8)
    n = img.shape[0]
    big = cv2.resize(img, (n * 8, n * 8), interpolation=cv2.INTER_NEAREST)
    side = n * module_px
    dst = _turned_square((400.0, 300.0), side, angle).astype(np.float32)
    src = np.array([[0, 0], [n * 8, 0], [n * 8, n * 8], [0, n * 8]], np.float32)
    hom = cv2.getPerspectiveTransform(src, dst * 4)
    out = cv2.warpPerspective(big, hom, (3200, 2400), borderValue=(150,))
    return np.asarray(cv2.resize(out, (800, 600), interpolation=cv2.INTER_AREA), np.uint8)


@pytest.mark.parametrize(("module_px", "angle"), [(2.5, 0.0), (3.0, 30.0), (6.0, -15.0)])
def test_qr_codes_are_read_in_their_finder_patterns_window(module_px: float, angle: float) -> None:
    payload = format_payload("pickpic-007", "back")
    grey = _qr_sheet(payload, module_px, angle)
    from vision.identify.codes import _read_quads

    quads = marker_quads(grey)
    _, read = _read_quads(grey, quads)
    windows = qr_windows(quads[~read], grey.shape)
    code_px = 25 * module_px * 1.5  # 21 modules and a margin of 2, turned up to 45 degrees
    assert windows and all(max(x1 - x0, y1 - y0) < 2 * code_px for x0, y0, x1, y1 in windows)
    texts = [text for text, _ in read_qr_fast(grey, windows)]
    assert texts == [payload]
    (_, corners) = read_qr_fast(grey, windows)[0]
    (_, whole) = read_qr_fast(grey)[0]  # the whole frame: the same corners
    assert np.abs(np.sort(corners, axis=0) - np.sort(whole, axis=0)).max() < 2.0


def test_no_qr_window_without_finder_patterns() -> None:
    """A marker alone (its inner cells are no QR code's finders): no window to read."""
    truth = _turned_square((60.0, 50.0), 30.0, 10.0)
    grey = _marker_frame(truth, marker_id(CARD, "front"))

    assert qr_windows(marker_quads(grey), grey.shape) == []


@pytest.mark.parametrize(
    ("index", "card"),
    [(104, "pickpic-060"), (153, "pickpic-016"), (192, "pickpic-015"), (223, "pickpic-001")],
)
def test_lone_markers_of_rendered_tables_are_placed(index: int, card: str) -> None:
    """Cards of the benchmark's seed-0 tables (not its held-out seed) with one marker read,
    the other covered: the pose by edges beside the marker and picture (the rule before)
    took the wrong corner for the first two and left the others undecided; the outline seen
    all round places each."""
    from vision.identify.scenes import make_scene, scene_seed

    frame, truth = make_scene("codes", "normal", scene_seed(0, index))
    t = truth.card(card)
    assert t is not None and t.visible_fraction >= 0.6
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert [s.kind for s in read_sightings(frame, grey) if s.card == card] == ["marker"]
    named = identify_frame(frame, codes="fast").card(card)
    assert named is not None and named.side == t.face
    width = float(np.linalg.norm(t.corners_px[1] - t.corners_px[0]))
    assert np.linalg.norm(named.corners_px.mean(axis=0) - t.corners_px.mean(axis=0)) < 0.1 * width
