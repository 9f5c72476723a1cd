"""The outline finder's faster pieces give what their plain forms gave: each piece of
:mod:`vision.identify.quads` that was rewritten for speed is checked, on the arguments it gets
while :func:`~vision.identify.quads.find_outlines` reads rendered tables, against the plain
computation it replaced (kept here as the reference; the two compiled loops' own numpy forms
live in :mod:`vision.identify.kernels_plain`, which commands also run, and are called here)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest

from tests.identify.conftest import table_scene
from vision.identify import kernels_plain, quads
from vision.synth.identify_speed import speed_frames

#: The pieces whose arguments are recorded while outlines are found.
RECORDED = (
    "silhouettes",
    "order_quads",
    "refine_quads",
    "_lines",
    "_side_support",
    "rectangles_from_lines",
    "_coarse_nms",
    "_dedupe",
    "_full_edges",
)


@pytest.fixture(scope="module")
def calls() -> dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]]:
    """The arguments of each piece of :data:`RECORDED` while outlines are found on two
    rendered tables: nine cards apart (an overlapping pair), and twelve cards of the speed
    benchmark (overlaps and clusters, read from their lines)."""
    frames = [table_scene()[0], speed_frames(1, 7)[0]]
    seen: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = defaultdict(list)

    def recorder(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any, **kwargs: Any) -> Any:
            seen[name].append((args, kwargs))
            return fn(*args, **kwargs)

        return record

    with pytest.MonkeyPatch.context() as mp:
        for name in RECORDED:
            mp.setattr(quads, name, recorder(name, getattr(quads, name)))
        for frame in frames:
            assert quads.find_outlines(
                np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
            )
    for name in RECORDED:
        assert seen[name], f"{name} was not called"
    return seen


# The plain forms (as the module had them before it was made faster).


def _roll_areas(q: np.ndarray) -> np.ndarray:
    x, y = q[..., 0], q[..., 1]
    return np.asarray(0.5 * (x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1))


def _order_quads_plain(quads_in: np.ndarray) -> np.ndarray:
    q = np.asarray(quads_in, np.float64).reshape(-1, 4, 2).copy()
    v1 = q[:, 1] - q[:, 0]
    v2 = q[:, 2] - q[:, 0]
    ccw = v1[:, 0] * v2[:, 1] - v1[:, 1] * v2[:, 0] < 0
    q[ccw] = q[ccw][:, [0, 3, 2, 1]]
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)
    long_first = sides[:, 0] + sides[:, 2] > sides[:, 1] + sides[:, 3]
    q[long_first] = np.roll(q[long_first], -1, axis=1)
    return q


def _silhouettes_plain(grey: np.ndarray) -> tuple[np.ndarray, float]:
    h_full, w_full = grey.shape
    factor = 2.0 if min(h_full, w_full) >= 240 else 1.0
    small = (
        cv2.resize(
            grey, (round(w_full / factor), round(h_full / factor)), interpolation=cv2.INTER_AREA
        )
        if factor != 1.0
        else grey
    )
    h, w = small.shape
    blur = cv2.GaussianBlur(small, (0, 0), 1.0)
    gxs = cv2.Sobel(blur, cv2.CV_16S, 1, 0)
    gys = cv2.Sobel(blur, cv2.CV_16S, 0, 1)
    mag = cv2.magnitude(gxs.astype(np.float32), gys.astype(np.float32))
    high = float(np.clip(2.0 * np.percentile(mag[::4, ::4], 90), 50.0, 200.0))
    edges = cv2.Canny(gxs, gys, high * 0.5, high, L2gradient=True)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(
        cv2.bitwise_not(edges), connectivity=4, ltype=cv2.CV_32S
    )
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    touches = (x == 0) | (y == 0) | (x + bw >= w) | (y + bh >= h)
    background = (touches & (area > 0.004 * h * w)) | (area > 0.08 * h * w)
    lut = np.where(background, 0, 255).astype(np.uint8)
    lut[0] = 255
    mask = lut[labels]
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)))
    return mask, factor


def _refine_plain(gx, gy, quads_in, radius, samples=16, iterations=2, move=True):
    """``quads._refine`` as it was written in numpy (the edge points and their robust line)."""
    q = np.asarray(quads_in, np.float64).reshape(-1, 4, 2).copy()
    m = len(q)
    support = np.zeros((m, 4))
    t = np.linspace(0.12, 0.88, samples)
    for it in range(iterations):
        r = max(radius if it == 0 else 2.0, 1.5)
        offsets = np.arange(-r, r + 1e-9, 0.5)
        d, nrm = _outward_normals_plain(q)
        length = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)
        along = t[None, None, :] * length[..., None]
        pts = q[:, :, None, :] + along[..., None] * d[:, :, None, :]
        v = quads._normal_profiles(gx, gy, pts, nrm, offsets)
        # each side's edge points and robust line: the numpy form of the compiled loop
        a, b, kept, found = kernels_plain.side_lines(
            v.reshape(m * 4, samples, -1), offsets, along.reshape(m * 4, samples), quads.EDGE_MIN
        )
        a, b = a.reshape(m, 4), b.reshape(m, 4)
        kept, found = kept.reshape(m, 4), found.reshape(m, 4)
        enough = kept >= max(4, samples // 4)
        support = np.where(enough, kept / samples, found / samples * 0.5)
        if not move:
            break
        a = np.where(enough, a, 0.0)
        b = np.where(enough, b, 0.0)
        p0 = q + b[..., None] * nrm
        p1 = np.roll(q, -1, axis=1) + (a * length + b)[..., None] * nrm
        q = _intersect_plain(p0, p1 - p0, q)
    return q, support


def _outward_normals_plain(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.roll(q, -1, axis=1) - q
    d /= np.maximum(np.linalg.norm(d, axis=2, keepdims=True), 1e-9)
    nrm = np.stack([-d[..., 1], d[..., 0]], axis=-1)
    mid = (q + np.roll(q, -1, axis=1)) / 2
    flip = ((mid - q.mean(axis=1, keepdims=True)) * nrm).sum(axis=2) < 0
    nrm[flip] *= -1
    return d, nrm


def _intersect_plain(p: np.ndarray, d: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    p1, d1 = np.roll(p, 1, axis=1), np.roll(d, 1, axis=1)
    den = d1[..., 0] * d[..., 1] - d1[..., 1] * d[..., 0]
    w = p - p1
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (w[..., 0] * d[..., 1] - w[..., 1] * d[..., 0]) / den
    out = p1 + s[..., None] * d1
    bad = (np.abs(den) < 1e-6)[..., None] | ~np.isfinite(out)
    return np.where(bad, fallback, out)


def _sample_plain(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    shape = pts.shape[:-1]
    flat = pts.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    if n == 0:
        return np.zeros(shape, np.float32)
    cols = min(n, 1024)
    rows = -(-n // cols)
    flat_grid = np.full((rows * cols, 2), -10.0, np.float32)
    flat_grid[:n] = flat
    grid = flat_grid.reshape(rows, cols, 2)
    out = cv2.remap(
        img, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    return np.asarray(out, np.float32).reshape(-1)[:n].reshape(shape)


def _lines_plain(edges_roi: np.ndarray, min_votes: int) -> np.ndarray:
    found = cv2.HoughLinesWithAccumulator(edges_roi, 1, np.pi / 180, max(8, min_votes))
    if found is None:
        return np.zeros((0, 3))
    kept: list[np.ndarray] = []
    for line in np.asarray(found, np.float64).reshape(-1, 3)[:96]:
        rho, theta, _ = line
        dup = False
        for k in kept:
            dt = abs(theta - k[1])
            same = dt < np.radians(3) and abs(rho - k[0]) < 3
            wrapped = np.pi - dt < np.radians(3) and abs(rho + k[0]) < 3
            if same or wrapped:
                dup = True
                break
        if not dup:
            kept.append(line)
            if len(kept) >= 24:
                break
    return np.asarray(kept, np.float64).reshape(-1, 3)


def _side_support_plain(edge_mask: np.ndarray, q: np.ndarray, samples: int = 20) -> np.ndarray:
    t = np.linspace(0.1, 0.9, samples)
    b = np.roll(q, -1, axis=1)
    pts = q[:, :, None, :] + t[None, None, :, None] * (b - q)[:, :, None, :]
    xi = np.rint(pts[..., 0]).astype(np.int64)
    yi = np.rint(pts[..., 1]).astype(np.int64)
    h, w = edge_mask.shape
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    hit = np.zeros(xi.shape, bool)
    hit[inside] = edge_mask[yi[inside], xi[inside]] > 0
    return np.asarray(hit.mean(axis=2), np.float64)


def _coarse_nms_plain(q: np.ndarray, score: np.ndarray) -> np.ndarray:
    if len(q) == 0:
        return np.zeros(0, np.intp)
    c = q.mean(axis=1)
    axis = (q[:, 2] + q[:, 3] - q[:, 0] - q[:, 1]) / 2
    angle = np.degrees(np.arctan2(axis[:, 1], axis[:, 0])) % 180
    size = np.log(np.maximum(np.linalg.norm(axis, axis=1), 1.0)) / np.log(1.08)
    key = np.stack(
        [np.floor(c[:, 0] / 4), np.floor(c[:, 1] / 4), np.floor(angle / 6), np.floor(size)], 1
    ).astype(np.int64)
    order = np.argsort(-score, kind="stable")
    _, first = np.unique(key[order], axis=0, return_index=True)
    return np.asarray(order[np.sort(first)])


def _dedupe_plain(q_in: np.ndarray, score: np.ndarray) -> np.ndarray:
    order = np.argsort(-score, kind="stable")
    q = q_in[order]
    size = np.sqrt(np.abs(_roll_areas(q))) * 0.12
    turned = q[:, [2, 3, 0, 1]]
    kept: list[int] = []
    for i in range(len(q)):
        if kept:
            k = np.asarray(kept)
            err = np.minimum(
                np.abs(q[k] - q[i]).max(axis=(1, 2)), np.abs(turned[k] - q[i]).max(axis=(1, 2))
            )
            if (err < size[i]).any():
                continue
        kept.append(i)
    return order[kept]


def _full_edges_plain(
    grey: np.ndarray, boxes: list[tuple[int, int, int, int]], mask: np.ndarray, factor: float
) -> np.ndarray:
    out = np.zeros_like(grey)
    grown = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    for x0, y0, x1, y1 in boxes:
        edges = cv2.Canny(
            cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), 1.0), 30, 70, L2gradient=True
        )
        ys = np.minimum(((np.arange(y0, y1) + 0.5) / factor).astype(np.intp), grown.shape[0] - 1)
        xs = np.minimum(((np.arange(x0, x1) + 0.5) / factor).astype(np.intp), grown.shape[1] - 1)
        on = grown[np.ix_(ys, xs)] > 0
        out[y0:y1, x0:x1] |= np.where(on, edges, 0).astype(np.uint8)
    return out


# The checks.


def test_silhouettes_are_the_plain_ones(calls: dict[str, list[Any]]) -> None:
    for (grey,), _ in calls["silhouettes"]:
        mask, factor = quads.silhouettes(grey)
        plain_mask, plain_factor = _silhouettes_plain(grey)
        assert factor == plain_factor
        np.testing.assert_array_equal(mask, plain_mask)


def test_quads_are_ordered_and_measured_as_plainly(calls: dict[str, list[Any]]) -> None:
    for (q,), _ in calls["order_quads"]:
        ordered = quads.order_quads(q)
        np.testing.assert_array_equal(ordered, _order_quads_plain(q))
        sides = np.linalg.norm(ordered - np.roll(ordered, -1, axis=1), axis=2)
        np.testing.assert_array_equal(
            quads.quad_aspect(ordered), (sides[:, 0] + sides[:, 2]) / (sides[:, 1] + sides[:, 3])
        )
        np.testing.assert_array_equal(quads._areas(ordered), _roll_areas(ordered))


def test_refinement_helpers_are_the_plain_ones(calls: dict[str, list[Any]]) -> None:
    """The codes path shares these: they must not change at all."""
    for (gx, gy, start), kwargs in calls["refine_quads"]:
        for radius in (kwargs.get("radius", 4.0), 5.0):  # (5 px: the codes' snap)
            got = quads._refine(gx, gy, np.asarray(start, np.float64), radius, 16, 2)
            want = _refine_plain(gx, gy, start, radius)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
        # A quad kept where it was is measured there (no move).
        got = quads._refine(gx, gy, np.asarray(start, np.float64), 0.0, 16, 1, move=False)
        np.testing.assert_array_equal(got[1], _refine_plain(gx, gy, start, 0.0, 16, 1, False)[1])
    (gx, gy, start), _ = calls["refine_quads"][0]
    rng = np.random.default_rng(5)
    start = np.asarray(start, np.float64)
    for got, want in zip(quads._outward_normals(start), _outward_normals_plain(start), strict=True):
        np.testing.assert_array_equal(got, want)
    d = rng.normal(size=start.shape)
    d[::3] = 0.0  # parallel (degenerate) sides take the fallback
    np.testing.assert_array_equal(
        quads._intersect(start, d, start), _intersect_plain(start, d, start)
    )
    pts = rng.uniform(-8.0, gx.shape[1] + 8.0, (3000, 2))
    for img in (gx, gy, cv2.convertScaleAbs(gx)):
        np.testing.assert_array_equal(quads._sample(img, pts), _sample_plain(img, pts))
    assert quads._sample(gx, np.zeros((0, 2))).shape == (0,)


def test_one_refinement_of_many_quads_is_each_refined_alone(calls: dict[str, list[Any]]) -> None:
    """find_outlines refines whole silhouettes, rectangles and split pieces in one call."""
    (gx, gy, start), kwargs = max(calls["refine_quads"], key=lambda c: len(c[0][2]))
    assert len(start) >= 4
    together, support = quads.refine_quads(gx, gy, start, **kwargs)
    for k in range(len(start)):
        alone, alone_support = quads.refine_quads(gx, gy, start[k : k + 1], **kwargs)
        np.testing.assert_array_equal(together[k], alone[0])
        np.testing.assert_array_equal(support[k], alone_support[0])


def test_lines_are_the_plain_ones(calls: dict[str, list[Any]]) -> None:
    for (roi, min_votes), _ in calls["_lines"]:
        np.testing.assert_array_equal(
            quads._lines(roi, min_votes), _lines_plain(roi, min_votes)[:, :2]
        )


def _rectangles_from_lines_plain(edges, box, height_px, aspect):
    """``quads.rectangles_from_lines`` with the quads of its lines made by the numpy form
    (``kernels_plain.line_rectangles``, the code the compiled loop replaced)."""
    x0, y0, x1, y1 = box
    min_votes = int(0.4 * height_px * aspect) if height_px is not None else 20
    lines = quads._lines(edges[y0:y1, x0:x1], min_votes)
    if len(lines) < 2:
        return np.zeros((0, 4, 2))
    normal = np.stack([np.cos(lines[:, 1]), np.sin(lines[:, 1])], axis=1)
    lo_h = 10.0 if height_px is None else 0.75 * height_px
    hi_h = np.inf if height_px is None else 1.3 * height_px
    out = kernels_plain.line_rectangles(
        np.ascontiguousarray(lines[:, 0]), normal, lo_h, hi_h, aspect,
        float(np.cos(np.radians(quads._PARALLEL_DEG))),
        float(np.sin(np.radians(90 - quads._RIGHT_ANGLE_TOL_DEG))), *quads._LINES_ASPECT,
    )  # fmt: skip
    if not len(out):
        return np.zeros((0, 4, 2))
    out = out + np.array([x0, y0], np.float64)
    return out[np.isfinite(out).all(axis=(1, 2))]


def test_rectangles_from_lines_are_the_plain_ones(calls: dict[str, list[Any]]) -> None:
    found = 0
    for (edges, box, height_px, aspect), _ in calls["rectangles_from_lines"]:
        for height in (height_px, None):  # (a card's height told, or any size)
            got = quads.rectangles_from_lines(edges, box, height, aspect)
            np.testing.assert_array_equal(
                got, _rectangles_from_lines_plain(edges, box, height, aspect)
            )
            found += len(got)
    assert found > 100


def test_candidates_are_scored_and_thinned_as_plainly(calls: dict[str, list[Any]]) -> None:
    for (mask, q), _ in calls["_side_support"]:
        np.testing.assert_array_equal(quads._side_support(mask, q), _side_support_plain(mask, q))
    for (q, score), _ in calls["_coarse_nms"]:
        np.testing.assert_array_equal(quads._coarse_nms(q, score), _coarse_nms_plain(q, score))
    limited = 0
    for (q, score, *limit), _ in calls["_dedupe"]:
        plain = _dedupe_plain(q, score)
        np.testing.assert_array_equal(quads._dedupe(q, score), plain)
        if limit:
            limited += len(plain) > limit[0]
            np.testing.assert_array_equal(quads._dedupe(q, score, limit[0]), plain[: limit[0]])
    assert limited, "no region had more outlines than its limit"


def test_region_edges_are_the_plain_ones(calls: dict[str, list[Any]]) -> None:
    for (grey, boxes, mask, factor), _ in calls["_full_edges"]:
        np.testing.assert_array_equal(
            quads._full_edges(grey, boxes, mask, factor),
            _full_edges_plain(grey, boxes, mask, factor),
        )
