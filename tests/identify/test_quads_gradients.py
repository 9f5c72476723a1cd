"""The lazy gradients (:class:`vision.identify.quads.Gradients`) give what the whole frame's
:func:`~vision.identify.quads.gradients` give wherever they are sampled: inside the frame, at
its four edges and corners and beyond them, and through the outline finder's refinement."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.identify.conftest import table_scene
from vision.identify import quads


def _noise(shape: tuple[int, int], seed: int) -> np.ndarray:
    """Uniform grey noise: every pixel differs from its neighbours, so a border effect
    reaching a sampled pixel shows."""
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


def _grey() -> np.ndarray:
    return np.asarray(cv2.cvtColor(table_scene()[0], cv2.COLOR_BGR2GRAY), np.uint8)


def _clusters(w: int, h: int, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """Points as the refinement lays them out ((m, 4, n, 2) sides, unit normals (m, 4, 2))
    round each corner and edge of a w x h frame, inside it and beyond it."""
    out = []
    for cx in (-3.0, 0.0, 0.4, w / 2, w - 1.6, w - 1.0, w + 2.0):
        for cy in (-3.0, 0.0, 0.4, h / 2, h - 1.6, h - 1.0, h + 2.0):
            pts = np.array([cx, cy]) + rng.uniform(-6.0, 6.0, (2, 4, 5, 2))
            angle = rng.uniform(0, 2 * np.pi, (2, 4))
            out.append((pts, np.stack([np.cos(angle), np.sin(angle)], axis=-1)))
    return out


@pytest.mark.parametrize(
    "grey",
    [_noise((203, 317), 1), _noise((64, 48), 2), _noise((721, 1283), 3), _grey()],
    ids=["noise-203x317", "noise-64x48", "noise-721x1283", "table"],
)
def test_samples_equal_the_whole_frames_at_edges_corners_and_inside(grey: np.ndarray) -> None:
    """Frames whose sides are and are not whole tiles; sides sampled round every corner and
    edge (and beyond the frame, where samples read 0) and in the middle."""
    h, w = grey.shape
    gx, gy = quads.gradients(grey)
    lazy = quads.Gradients(grey)
    lx, ly = lazy
    offsets = np.arange(-4.0, 4.01, 0.5)
    for pts, normals in _clusters(w, h, np.random.default_rng(0)):
        got = quads._normal_profiles(lx, ly, pts, normals, offsets)
        want = quads._normal_profiles(gx, gy, pts, normals, offsets)
        np.testing.assert_array_equal(got, want)
    # Every tile worked out holds the whole frame's values, and the edges were reached.
    t = quads._GRADIENT_TILE
    done = np.repeat(np.repeat(lazy._done, t, axis=0), t, axis=1)[:h, :w]
    assert done[0].any() and done[-1].any() and done[:, 0].any() and done[:, -1].any()
    np.testing.assert_array_equal(lazy.planes[0][done], gx[done])
    np.testing.assert_array_equal(lazy.planes[1][done], gy[done])


def test_tiles_everywhere_equal_the_whole_frames() -> None:
    """Points requested all over a frame, in boxes of every size and place: each tile
    (crops inside the frame and crops cut by its edges) equals the whole frame's values."""
    grey = _noise((150, 250), 4)
    gx, gy = quads.gradients(grey)
    lazy = quads.Gradients(grey)
    rng = np.random.default_rng(1)
    # Boxes 20 to 40 px a side, every 20 px from beyond one edge to beyond the other: their
    # crops of every size and place together cover the frame.
    for x0 in range(-10, 260, 20):
        for y0 in range(-10, 160, 20):
            size = rng.uniform(20, 40, 2)
            x = x0 + np.array([[0.0, size[0]]])
            y = y0 + np.array([[0.0, size[1]]])
            lazy.around(x, y)
    assert lazy._done.all()
    np.testing.assert_array_equal(lazy.planes[0], gx)
    np.testing.assert_array_equal(lazy.planes[1], gy)


def test_reach_is_the_blur_and_sobel_radius() -> None:
    """A crop needs ``_GRADIENT_REACH`` px of frame round what it keeps (OpenCV's 7-tap
    Gaussian for sigma 1 on uint8, and the 3x3 Sobel): one pixel less changes values."""
    grey = _noise((120, 120), 5)
    gx, _ = quads.gradients(grey)
    for reach, equal in ((quads._GRADIENT_REACH, True), (quads._GRADIENT_REACH - 1, False)):
        cx, _ = quads.gradients(grey[40 - reach : 80 + reach, 40 - reach : 80 + reach])
        inner = cx[reach:-reach, reach:-reach]
        assert np.array_equal(inner, gx[40:80, 40:80]) is equal


def test_only_the_sampled_part_is_worked_out() -> None:
    """Refining the sides of one card works out a small part of the frame."""
    grey = _grey()
    truth = table_scene()[1]
    lazy = quads.Gradients(grey)
    lx, ly = lazy
    corners = np.asarray(truth.cards[0].corners_px, np.float64)[None]
    quads.refine_quads(lx, ly, corners)
    assert 0 < lazy._done.mean() < 0.1


def test_refinement_and_outlines_equal_the_whole_frames() -> None:
    """refine_quads, corner_support and find_outlines given the lazy gradients return what
    they return given the arrays, bit for bit."""
    grey = _grey()
    gx, gy = quads.gradients(grey)
    lx, ly = quads.Gradients(grey)
    corners = np.stack([np.asarray(c.corners_px, np.float64) for c in table_scene()[1].cards])
    start = corners + np.random.default_rng(2).normal(0, 2.0, corners.shape)
    for radius in (5.0, 3.0):
        got = quads.refine_quads(lx, ly, start, radius=radius)
        want = quads.refine_quads(gx, gy, start, radius=radius)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
    corner = np.arange(len(start)) % 4
    np.testing.assert_array_equal(
        quads.corner_support(lx, ly, start, corner), quads.corner_support(gx, gy, start, corner)
    )
    got_outlines = quads.find_outlines(grey, grads=quads.Gradients(grey))
    want_outlines = quads.find_outlines(grey, grads=(gx, gy))
    assert len(got_outlines) == len(want_outlines) > 0
    for a, b in zip(got_outlines, want_outlines, strict=True):
        np.testing.assert_array_equal(a.corners_px, b.corners_px)
        np.testing.assert_array_equal(a.support, b.support)
        assert a.source == b.source


def test_many_crops_or_whole_work_out_the_whole_frame() -> None:
    """More cards in one request than ``_GRADIENT_CROPS_MAX`` crops, or ``whole=True``, work
    the whole frame out in one go: the whole frame's arrays."""
    grey = _noise((300, 400), 7)
    gx, gy = quads.gradients(grey)
    few, many = quads.Gradients(grey), quads.Gradients(grey)
    n = quads._GRADIENT_CROPS_MAX
    centres = np.stack([np.linspace(20, 380, n + 1), np.full(n + 1, 150.0)], axis=1)
    pts = centres[:, None, :] + np.array([[-3.0, -3.0], [3.0, 3.0]])  # (n + 1, 2, 2)
    few.around(pts[:n, :, 0], pts[:n, :, 1])
    many.around(pts[..., 0], pts[..., 1])
    assert 0 < few._done.mean() < 0.5
    for lazy in (many, quads.Gradients(grey, whole=True)):
        assert lazy._done.all()
        np.testing.assert_array_equal(lazy.planes[0], gx)
        np.testing.assert_array_equal(lazy.planes[1], gy)


def test_points_not_finite_work_out_the_whole_frame() -> None:
    """A side with a non-finite point (a degenerate quad) has no box: the whole frame is
    worked out, and the finite points sample what the arrays give."""
    grey = _noise((90, 130), 6)
    gx, gy = quads.gradients(grey)
    lazy = quads.Gradients(grey)
    lx, ly = lazy
    pts = np.array([[[[10.0, 10.0], [np.nan, 20.0], [60.0, 70.0]]]])
    normals = np.array([[[1.0, 0.0]]])
    offsets = np.arange(-2.0, 2.01, 0.5)
    got = quads._normal_profiles(lx, ly, pts, normals, offsets)
    want = quads._normal_profiles(gx, gy, pts, normals, offsets)
    np.testing.assert_array_equal(got, want)
    assert lazy._done.all()


@pytest.mark.parametrize(
    ("grey", "message"),
    [
        (np.zeros((10, 10, 3), np.uint8), r"grey must be \(H, W\) uint8, got \(10, 10, 3\) uint8"),
        (np.zeros((10, 10), np.float32), r"grey must be \(H, W\) uint8, got \(10, 10\) float32"),
    ],
)
def test_grey_is_checked(grey: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        quads.Gradients(grey)
