"""The pictures path's fast paths equal the plain computations they replace: the two nearest
descriptors (OpenCV's ``batchDistance``), the keypoint index's keys (unpacked bits; its
nearest entries: ``test_pictures_perspective.py``), the appearance descriptor and agreement (their
numpy forms, to float rounding), the frame search's gathering test (its loop's first
test, card by card), the plausible-quad check (corner by corner), the outline's support and
the card-size test of unknown outlines."""

from __future__ import annotations

import cv2
import numpy as np

from vision.identify import appearance, kernels, local
from vision.identify.candidates import _Candidate, _card_height, _card_sized, _height
from vision.identify.quads import Outline


def _descriptors(rng: np.random.Generator, n: int) -> np.ndarray:
    """(n, 32) descriptors differing in few bits from one another (so distances tie)."""
    base = rng.integers(0, 256, (1, 32), dtype=np.uint8)
    flips = rng.random((n, 256)) < 0.03
    return base ^ np.packbits(flips, axis=1)


def test_two_nearest_equals_opencv_batch_distance() -> None:
    rng = np.random.default_rng(3)
    for n, m in ((1, 2), (7, 2), (300, 250), (120, 40)):
        a, b = _descriptors(rng, n), _descriptors(rng, m)
        b[m // 2] = b[0]  # an exact tie: the lower index is the nearest
        if m > 2:
            b[-1] = ~a[0]  # as far as two descriptors can be: 256 bits
        dist, idx = cv2.batchDistance(
            a, b, cv2.CV_32S, normType=cv2.NORM_HAMMING, K=2, update=0, crosscheck=False
        )
        first, second, nearest = kernels.two_nearest(a, b)
        np.testing.assert_array_equal(first, dist[:, 0])
        np.testing.assert_array_equal(second, dist[:, 1])
        np.testing.assert_array_equal(nearest, idx[:, 0])


def test_index_keys_are_the_chosen_bits_of_each_descriptor() -> None:
    rng = np.random.default_rng(5)
    index = local.KeypointIndex(
        [local.Keypoints(np.zeros((40, 2), np.float32), _descriptors(rng, 40))]
    )
    desc = rng.integers(0, 256, (25, 32), dtype=np.uint8)
    bits = np.unpackbits(desc, axis=1).astype(np.int64)  # bit 0: the first byte's highest
    weights = 1 << np.arange(index._bits.shape[1], dtype=np.int64)
    plain = np.stack([bits[:, b] @ weights for b in index._bits])
    np.testing.assert_array_equal(index._keys(desc), plain)


def _describe_plain(cells: np.ndarray) -> np.ndarray:
    m = len(cells)
    x = np.asarray(cells, np.float32).reshape(m, -1, 3).copy()
    lightness = x[..., 0]
    lightness -= lightness.mean(axis=1, keepdims=True)
    lightness /= np.maximum(lightness.std(axis=1, keepdims=True), appearance.MIN_L_SPREAD)
    x[..., 1:] -= x[..., 1:].mean(axis=1, keepdims=True)
    x[..., 1:] *= appearance.COLOUR_WEIGHT
    v = x.reshape(m, -1)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-6)


def _agreement_plain(observed: np.ndarray, reference: np.ndarray, mask: np.ndarray) -> np.ndarray:
    k = len(observed)
    o, r = observed.reshape(k, -1, 3).astype(np.float64), reference.reshape(k, -1, 3)
    inside = mask.reshape(k, -1)
    w = inside.astype(np.float64)
    for _ in range(4):
        sw = w.sum(axis=1) + 1e-9
        mr, mo = (w * r[..., 0]).sum(1) / sw, (w * o[..., 0]).sum(1) / sw
        rc = r[..., 0] - mr[:, None]
        var, cov = (w * rc * rc).sum(1), (w * rc * (o[..., 0] - mo[:, None])).sum(1)
        gain = np.clip(np.where(var > 1e-6, cov / np.maximum(var, 1e-6), 1.0), 0.4, 2.5)
        off = mo - gain * mr
        da, db = o[..., 1] - r[..., 1], o[..., 2] - r[..., 2]
        oa, ob = (w * da).sum(1) / sw, (w * db).sum(1) / sw
        res2 = (o[..., 0] - gain[:, None] * r[..., 0] - off[:, None]) ** 2
        res2 += (da - oa[:, None]) ** 2 + (db - ob[:, None]) ** 2
        w = inside * ((res2 < (appearance.AGREE_LAB * 1.5) ** 2) + 1e-3)
    agree = (res2 < appearance.AGREE_LAB**2) & inside
    return agree.sum(axis=1) / np.maximum(inside.sum(axis=1), 1)


def test_appearance_descriptor_and_agreement_equal_their_numpy_forms() -> None:
    rng = np.random.default_rng(7)
    shape = (12, appearance.GRID_WH[1], appearance.GRID_WH[0], 3)
    cells = (rng.random(shape) * [100, 60, 60] - [0, 30, 30]).astype(np.float32)
    cells[0, ..., 0] = 50.0  # a flat card: its lightness spread is not blown up
    got = appearance.describe(cells)
    np.testing.assert_allclose(got, _describe_plain(cells), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, rtol=1e-6)
    # The same pictures under other light (gain, offsets), a fifth of them covered.
    seen = cells * [1.3, 1.0, 1.0] + [8.0, 3.0, -2.0]
    seen[:, :5] = rng.random((12, 5, shape[2], 3)) * [100, 20, 20] - [0, 10, 10]
    seen = (seen + rng.normal(0, 2, shape)).astype(np.float32)
    mask = rng.random(shape[:3]) > 0.2
    for m in (None, mask):
        got = appearance.agreement(seen, cells, m)
        want = _agreement_plain(seen, cells, np.ones(shape[:3], bool) if m is None else m)
        np.testing.assert_allclose(got, want, atol=1e-12)
        assert 0.6 < float(np.median(got)) < 0.85  # about the share uncovered
    assert appearance.agreement(seen, cells[::-1]).max() < 0.3  # other pictures


def _gathers_one_by_one(centre, reach, by_card, bounds, cards) -> np.ndarray:
    """The first test of :func:`local.place_cards`'s loop, card by card, as it was written."""
    out = []
    for card in cards:
        mine = by_card[bounds[card] : bounds[card + 1]]
        c = centre[mine]
        near = np.linalg.norm(c[:, None] - c[None], axis=2) <= reach[mine][None]
        out.append(bool(near.sum(axis=1).max() >= local.FRAME_SEARCH_MIN_VOTES))
    return np.array(out)


def test_gathers_equals_the_loop_card_by_card() -> None:
    rng = np.random.default_rng(4)
    owner = rng.integers(0, 40, 1500)
    owner[:200] = 7  # one card with many votes
    centre = (rng.random((len(owner), 2)) * 400).astype(np.float32)
    centre[owner == 3] = 100 + rng.random((int((owner == 3).sum()), 2)).astype(np.float32) * 4
    reach = (rng.random(len(owner)) * 60 + 5).astype(np.float32)
    by_card = np.argsort(owner, kind="stable")
    bounds = np.searchsorted(owner[by_card], np.arange(41))
    votes = np.bincount(owner, minlength=40)
    cards = np.flatnonzero(votes >= local.FRAME_SEARCH_MIN_VOTES)
    fast = local.gathers(centre, reach, by_card, bounds, cards)
    plain = _gathers_one_by_one(centre, reach, by_card, bounds, cards)
    assert fast.any() and not fast.all()
    np.testing.assert_array_equal(fast, plain)


def _plausible_corner_by_corner(quad: np.ndarray, min_side_px: float = 8.0) -> bool:
    q = np.asarray(quad, np.float64).reshape(4, 2)
    if not np.isfinite(q).all():
        return False
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)):
        return False
    for k in range(4):
        a, b = q[k - 1] - q[k], q[(k + 1) % 4] - q[k]
        la, lb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if la < min_side_px or lb < min_side_px:
            return False
        angle = float(np.degrees(np.arccos(np.clip(a @ b / (la * lb), -1.0, 1.0))))
        if not 20.0 <= angle <= 160.0:
            return False
    return True


def test_plausible_quad_equals_the_corner_by_corner_check() -> None:
    rng = np.random.default_rng(5)
    square = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float64)
    results = []
    for _ in range(2000):
        q = square * rng.uniform(0.05, 1.5) + rng.normal(0, rng.uniform(1, 40), (4, 2))
        for side in (8.0, 20.0):
            results.append(local.plausible_quad(q, side))
            assert results[-1] == _plausible_corner_by_corner(q, side)
    assert any(results) and not all(results)
    assert not local.plausible_quad(np.full((4, 2), np.nan))


def test_outline_support_and_card_size() -> None:
    support = np.array([1.0, 0.5, 0.25, 0.0], np.float32)
    o = Outline(np.zeros((4, 2), np.float32), support, "silhouette")
    assert o.outline == float(support.mean()) == o.outline
    card = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float64)
    readings = [
        _Candidate("a", card, 0.99, "features", "front", ("picture",)),
        _Candidate("b", card * 1.2, 0.99, "features", "front", ("picture",)),
    ]
    height = _card_height(readings)
    assert height == float(np.median([_height(card), _height(card * 1.2)]))
    assert _card_sized(card * 1.1, height) and not _card_sized(card * 2, height)
    assert _card_height([]) is None and _card_sized(card * 9, None)
