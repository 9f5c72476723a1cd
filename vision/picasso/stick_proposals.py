"""Step 1 of the stick search (``vision.picasso.sticks``): lines proposed where sticks may lie.

The wood mask (with the string's and shadows' pixels that lie between wood filled in) is
eroded to the sticks' cores (``_core``) and ``HoughLinesP`` proposes straight pieces.

The second round's proposals, on the wood the first round leaves unexplained: lines half a
stick inside the straight edges of that wood (``_edge_lines``) and through each leftover
patch (``_seed_lines``); and, given the picture, lines half a stick in from the straight
edges of luminance in the wood patches that leftover touches (``_picture_lines``). A proposed
piece along a candidate already measured is not measured again (``_covered``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.masks import patches
from vision.picasso.stick_lines import NOT_WOOD, WOOD_PX, _Candidate, _Line, turn_between

#: A proposed line piece within this distance of a measured candidate's centre line (along
#: 70% of it, in its direction within 4 degrees) is that candidate's stick (``_covered``):
#: a Hough piece along a stick's edge or a second piece through it would re-measure the
#: stick ``_recentre`` has already aimed; a stick laid beside it is a stick's width away.
#: Measured against 2 mm (both readers on the same boards): the 400 development boards (run
#: seeds 0 and 1), the 120 of run seed 2 and 100 hard ones read exactly as before, in 0.92
#: of the time (0.88 on the hard tier); 3 mm changed 2 hard boards for the worse, 3 mm and
#: 6 degrees a development board.
ALONG_MM = 2.5


def _core(
    wood: NDArray[np.uint8], unknown: NDArray[np.bool_], s: float, width_mm: float
) -> NDArray[np.uint8]:
    """The sticks' cores: wood with the unknown pixels near it filled in, eroded to a
    3 mm wide centre band. Computed in the box of the wood with both kernels' widths round
    it (the same pixels: nothing outside it is near wood, and no window inside it reaches
    past the margin)."""
    r = 2 * round(4.0 * s) + 1
    er = max(1, round((width_mm - 3.0) * s))
    core = np.zeros_like(wood)
    x, y, bw, bh = cv2.boundingRect(wood)
    if bw == 0:
        return core
    pad = r + er
    h, w = wood.shape
    box = np.s_[max(0, y - pad) : min(h, y + bh + pad), max(0, x - pad) : min(w, x + bw + pad)]
    near = cv2.dilate(wood[box], cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (r, r)))
    filled = wood[box] | (unknown[box] & (near > 0)).astype(np.uint8)
    core[box] = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (er, er)))
    return core


def _hough_lines(
    core: NDArray[np.uint8], s: float, min_len_mm: float
) -> list[tuple[_Line, float, float]]:
    """Straight pieces of the sticks' cores proposed by ``HoughLinesP`` on a 1 px/mm copy,
    lightly merged: (line in canvas px, t0, t1 mm along it)."""
    k = max(1, round(s))
    small = np.ascontiguousarray(core[::k, ::k]) if k > 1 else core
    segs = cv2.HoughLinesP(
        small,
        rho=1,
        theta=math.pi / 90,
        threshold=max(8, round(0.4 * min_len_mm * s / k)),
        minLineLength=round(0.5 * min_len_mm * s / k),
        maxLineGap=max(2, round(4 * s / k)),
    )
    if segs is None:
        return []
    segs = segs.reshape(-1, 4).astype(np.float64) * k + (k - 1) / 2
    lengths = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    lines: list[list[float]] = []  # cx, cy, angle, t0, t1 (px)
    # each line's centre, direction and normal as arrays, made once (not for every piece
    # compared with it)
    axes: list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = []
    for i in np.argsort(-lengths):
        x0, y0, x1, y1 = segs[i]
        ang = math.atan2(y1 - y0, x1 - x0)
        ends: NDArray[np.float64] | None = None
        for ln, (centre, d, n) in zip(lines, axes, strict=True):
            da = turn_between(ang, ln[2])
            if da > math.radians(3):
                continue
            if ends is None:
                ends = np.array([[x0, y0], [x1, y1]])
            rel = ends - centre
            if np.abs(rel @ n).max() >= 1.5 * s:
                continue
            ts = rel @ d
            if ts.min() > ln[4] + 10 * s or ts.max() < ln[3] - 10 * s:
                continue  # further along the same line: maybe another stick
            ln[3] = min(ln[3], float(ts.min()))
            ln[4] = max(ln[4], float(ts.max()))
            break
        else:
            half = lengths[i] / 2
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            lines.append([cx, cy, ang, -half, half])
            d = np.array([math.cos(ang), math.sin(ang)])
            axes.append((np.array([cx, cy]), d, np.array([-d[1], d[0]])))
    return [(_Line(cx, cy, a), t0 / s, t1 / s) for cx, cy, a, t0, t1 in lines]


def _edge_lines(
    wood_mp: NDArray[np.uint8],
    region: NDArray[np.bool_],
    s: float,
    width_mm: float,
    min_len_mm: float,
) -> list[tuple[_Line, float, float]]:
    """Lines half a stick inside the straight edges where wood (within ``region``) meets
    canvas: a stick half hidden under the string still shows one long edge."""
    wood = wood_mp == WOOD_PX
    non = (wood_mp == NOT_WOOD).astype(np.uint8)
    edge = (wood & region & (cv2.dilate(non, np.ones((3, 3), np.uint8)) > 0)).astype(np.uint8)
    k = max(1, round(s))
    e = _block_max(edge, k) if k > 1 else edge
    segs = cv2.HoughLinesP(
        np.ascontiguousarray(e),
        rho=1,
        theta=math.pi / 90,
        threshold=max(8, round(0.4 * min_len_mm * s / k)),
        minLineLength=round(0.5 * min_len_mm * s / k),
        maxLineGap=max(2, round(3 * s / k)),
    )
    if segs is None:
        return []
    out: list[tuple[_Line, float, float]] = []
    hw, ww = wood_mp.shape
    for x0, y0, x1, y1 in segs.reshape(-1, 4).astype(np.float64) * k + (k - 1) / 2:
        ang = math.atan2(y1 - y0, x1 - x0)
        n = np.array([-math.sin(ang), math.cos(ang)])
        mid = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        side = 0.0
        for sign in (1.0, -1.0):
            q = mid + sign * n * 2.0 * s
            qx, qy = round(q[0]), round(q[1])
            if 0 <= qx < ww and 0 <= qy < hw and wood_mp[qy, qx] == WOOD_PX:
                side += sign
        if side == 0.0:
            continue
        c = mid + side * n * 0.5 * width_mm * s
        half = 0.5 * math.hypot(x1 - x0, y1 - y0) / s
        out.append((_Line(float(c[0]), float(c[1]), ang), -half, half))
    return out


def _block_max(mask: NDArray[np.uint8], k: int) -> NDArray[np.uint8]:
    """The maximum of each whole k x k block of an (H, W) uint8 mask: (H // k, W // k), the
    last H % k rows and W % k columns dropped. Taken over the k * k strided views in turn:
    numpy's reduction over the axes of a reshaped block array was about 3 ms on the canvas
    (a quarter of the stick search on the boards that need a second round)."""
    h, w = mask.shape
    hk, wk = h - h % k, w - w % k
    out = mask[0:hk:k, 0:wk:k].copy()
    for i in range(k):
        for j in range(k):
            if i or j:
                np.maximum(out, mask[i:hk:k, j:wk:k], out=out)
    return out


def _boxed_patches(
    mask: NDArray[np.uint8],
) -> tuple[int, NDArray[np.int32], NDArray[np.int32], tuple[int, int]]:
    """``cv2.connectedComponentsWithStats(mask, 8)`` computed in the box of the mask's
    pixels, its corner moved to even coordinates: the number of labels, the labels of the
    box, the stats in canvas pixels (the patches': the background's row is the box's), and
    the box's corner (x, y). The leftover wood is a few patches on the canvas: the labelling
    of the whole canvas was most of ``_seed_lines``' time. OpenCV's labelling scans in 2 x 2
    blocks, row pair by row pair; from an even corner it meets the pixels in the same order,
    so the patches are numbered alike."""
    x, y, bw, bh = cv2.boundingRect(mask)
    if bw == 0:  # OpenCV's labelling of an empty box crashes
        return 1, np.zeros((0, 0), np.int32), np.zeros((1, 5), np.int32), (0, 0)
    ox, oy = x - x % 2, y - y % 2
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask[oy : y + bh, ox : x + bw], 8)
    stats = np.asarray(stats, np.int32).copy()
    stats[1:, cv2.CC_STAT_LEFT] += ox
    stats[1:, cv2.CC_STAT_TOP] += oy
    return int(n), np.asarray(lab, np.int32), stats, (ox, oy)


#: A leftover patch's directions whose reach (``_seed_lines``) is within ``SEED_TIE`` of the
#: best are tied; with ``SEED_TIES_MIN`` of them (of 45), ``SEED_TIED_LINES`` directions 15
#: degrees apart or more, spread over the tied ones, are proposed instead of 2. Chosen on the
#: 14 development sets of issue 25 (1,540 boards): failed boards 127 -> 125 with 6 or 9
#: lines (short sticks under two others in heaps, each piece of them that shows shorter
#: than a stick's minimum: 3 boards fixed; one hard board's heap reads a long stick as two
#: shorts), 124 with ``stick_selection.STACKED_*`` (which keeps a fan of two such lines
#: from one end from counting twice). The first 4, 6 or 9 tied directions in angle order
#: instead (they cover only a part of the half turn) read 126, 124 and 124.
SEED_TIE = 0.02
SEED_TIES_MIN = 8
SEED_TIED_LINES = 6


def _seed_lines(
    wood_mp: NDArray[np.uint8], rest: NDArray[np.bool_], s: float, width_mm: float
) -> list[tuple[_Line, float, float]]:
    """Lines through the wood left unexplained: in each leftover patch at least a third of a
    stick wide, from its innermost point, the directions along which the wood (the whole
    wood map: the stick may run on under others) reaches furthest, 12 mm each way (two of
    them, or ``SEED_TIED_LINES`` where many directions tie, as in a heap)."""
    n_lab, lab, stats, (ox, oy) = _boxed_patches(rest.astype(np.uint8))
    out: list[tuple[_Line, float, float]] = []
    angles = np.radians(np.arange(0.0, 180.0, 4.0))
    reach = np.arange(-12.0, 12.01, 1.0)
    min_area = 0.25 * width_mm * 12.0 * s * s
    for k in range(1, n_lab):
        if stats[k, cv2.CC_STAT_AREA] < min_area:
            continue
        x0, y0 = stats[k, cv2.CC_STAT_LEFT], stats[k, cv2.CC_STAT_TOP]
        w, h = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
        patch = (lab[y0 - oy : y0 - oy + h, x0 - ox : x0 - ox + w] == k).astype(np.uint8)
        dist = cv2.distanceTransform(np.pad(patch, 1), cv2.DIST_L2, 3)[1:-1, 1:-1]
        if dist.max() < 0.25 * width_mm * s:
            continue
        cy, cx = np.unravel_index(int(np.argmax(dist)), dist.shape)
        px, py = float(cx + x0), float(cy + y0)
        xs = (px + np.outer(np.cos(angles), reach * s)).astype(np.float32)
        ys = (py + np.outer(np.sin(angles), reach * s)).astype(np.float32)
        vals = cv2.remap(
            wood_mp, xs, ys, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0
        )
        score = (vals != 0).mean(1) + 0.5 * (vals == 1).mean(1)
        order = np.argsort(-score, kind="stable")
        taken: list[float] = []
        # In a heap the wood reaches as far in many directions: tied, their order says
        # nothing, so more of them are proposed, spread over the tied ones (the measuring
        # and the selection judge).
        limit = 2
        tied = np.flatnonzero(score >= score.max() - SEED_TIE)
        if len(tied) >= SEED_TIES_MIN:
            limit = SEED_TIED_LINES
            order = tied[:: -(-len(tied) // SEED_TIED_LINES)]
        for i in order[: max(6, 3 * limit)]:
            if score[i] < 1.2:
                break
            a = float(angles[i])
            if any(turn_between(a, b) < math.radians(15) for b in taken):
                continue
            taken.append(a)
            out.append((_Line(px, py, a), -6.0, 6.0))
            if len(taken) == limit:
                break
        axis = _patch_axis(patch, x0, y0, s, width_mm)
        if axis is not None and not any(
            turn_between(axis[0].angle, b) < math.radians(AXIS_TURN_DEG) for b in taken
        ):
            out.append(axis)
    return out


#: A leftover patch at least ``AXIS_ELONGATION`` times as long as it is wide (by its second
#: moments) also proposes its own long axis (``_patch_axis``), unless a direction within
#: ``AXIS_TURN_DEG`` of it was proposed from its innermost point.
AXIS_ELONGATION = 1.6
AXIS_TURN_DEG = 8.0


def _patch_axis(
    patch: NDArray[np.uint8], x0: int, y0: int, s: float, width_mm: float
) -> tuple[_Line, float, float] | None:
    """The long axis of a leftover patch ((h, w) uint8 0/1 whose pixel (0, 0) is canvas
    pixel (x0, y0)) through its centroid, over the patch's length (mm), when it is at least
    ``AXIS_ELONGATION`` times as long as wide and no wider than a stick and a half: the
    visible part of a stick whose innermost point lies at a bulge near one end (wood
    blurred into a shadow, a corner of another stick), from which the reach along it is
    one-sided and falls short of ``_seed_lines``' score."""
    m = cv2.moments(patch, binaryImage=True)
    if m["m00"] <= 0:
        return None
    mu20, mu02, mu11 = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
    spread = math.hypot(mu20 - mu02, 2 * mu11)
    big, small = (mu20 + mu02 + spread) / 2, (mu20 + mu02 - spread) / 2
    if small <= 0 or big < AXIS_ELONGATION**2 * small:
        return None
    # a bar of length L and width W: variance L^2 / 12 along, W^2 / 12 across
    if math.sqrt(12 * small) > 1.5 * width_mm * s:
        return None
    a = 0.5 * math.atan2(2 * mu11, mu20 - mu02)
    half = 0.5 * math.sqrt(12 * big) / s
    cx, cy = x0 + m["m10"] / m["m00"], y0 + m["m01"] / m["m00"]
    return _Line(float(cx), float(cy), a), -half, half


_NINE = np.arange(9.0)
_NINE.setflags(write=False)


def _nine_points(t0: float, t1: float) -> NDArray[np.float64]:
    """``np.linspace(t0, t1, 9)``, the same operations in the same order (a step from the
    difference, the positions scaled and shifted, the last one set to ``t1``) without its
    dozen calls of overhead."""
    ts = _NINE * ((t1 - t0) / 8) + t0
    ts[-1] = t1
    return ts


def _covered(line: _Line, t0: float, t1: float, cands: list[_Candidate], s: float) -> bool:
    """Whether a proposed line piece lies along a candidate already measured: same
    direction within 4 degrees, and at least 70% of the piece within ``ALONG_MM`` of the
    candidate's centre line and inside its extent (a Hough piece often runs on through a
    crossing into the next stick). Such a piece is not measured: it would find the same
    stick again.

    A candidate the whole piece passes clear of (both its ends more than a pixel beyond
    the same side of the candidate's band or extent, so every point between them too) is
    passed over without placing the points: the same answer, and most candidates in the
    same direction are other sticks."""
    lim_px = ALONG_MM * s + 1.0
    ax, ay = line.cx + line.cos * t0 * s, line.cy + line.sin * t0 * s
    bx, by = line.cx + line.cos * t1 * s, line.cy + line.sin * t1 * s
    pts: NDArray[np.float64] | None = None
    for c in cands:
        cl = c.line
        da = turn_between(line.angle, cl.angle)
        if da > math.radians(4):
            continue
        across_a = (ay - cl.cy) * cl.cos - (ax - cl.cx) * cl.sin
        across_b = (by - cl.cy) * cl.cos - (bx - cl.cx) * cl.sin
        if min(across_a, across_b) > lim_px or max(across_a, across_b) < -lim_px:
            continue
        along_a = ((ax - cl.cx) * cl.cos + (ay - cl.cy) * cl.sin) / s
        along_b = ((bx - cl.cx) * cl.cos + (by - cl.cy) * cl.sin) / s
        if min(along_a, along_b) > c.t1 + 4.0 or max(along_a, along_b) < c.t0 - 4.0:
            continue
        if pts is None:
            pts = np.array([line.cx, line.cy])[None, :] + np.outer(_nine_points(t0, t1) * s, line.d)
        rel = pts - np.array([cl.cx, cl.cy])
        across = np.abs(rel @ cl.n) <= ALONG_MM * s
        along = rel @ cl.d / s
        inside = (along >= c.t0 - 3.0) & (along <= c.t1 + 3.0)
        if np.count_nonzero(across & inside) >= 0.7 * 9:  # a share of the 9 points
            return True
    return False


#: Straight edges of the picture in a heap propose lines (``_picture_lines``) from this share
#: of the shortest kit stick's length (a stick half hidden in a heap still shows its sides).
PICTURE_EDGE_SHARE = 0.5
#: The heaps looked into are the wood patches the leftover touches, cropped with this margin.
PICTURE_MARGIN_MM = 3.0
#: A proposed line passes within this distance of the leftover (at one of nine points).
PICTURE_REST_MM = 8.0


def _picture_lines(
    gray: NDArray[np.uint8],
    wood_mp: NDArray[np.uint8],
    rest: NDArray[np.bool_],
    s: float,
    width_mm: float,
    min_len_mm: float,
) -> list[tuple[_Line, float, float]]:
    """Lines half a stick in from the straight edges the picture (``gray``, the normalised
    canvas's luminance) shows inside the wood patches the leftover ``rest`` touches. In a
    heap the wood map is one blob, but each stick on top still shows its two sides as a
    luminance edge (its rim, the shadow it casts on the stick below): a side is a line
    segment (OpenCV's line segment detector), and a stick lies on whichever side of it is
    wood (both where both are)."""
    wood = (wood_mp == WOOD_PX).astype(np.uint8)
    _, lab, stats = patches(wood)
    hit = np.unique(lab[rest & (wood > 0)])
    hit = hit[hit > 0]
    if not len(hit):
        return []
    # (in the order of their boxes, top to bottom, left to right)
    hit = sorted(hit.tolist(), key=lambda i: (stats[i, 1], stats[i, 0]))
    h_img, w_img = wood.shape
    pad = round(PICTURE_MARGIN_MM * s)
    min_px = PICTURE_EDGE_SHARE * min_len_mm * s
    # A line must pass by the leftover: one that does not is a stick explained already.
    k = 2 * round(PICTURE_REST_MM * s) + 1
    near_rest = cv2.dilate(
        rest.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    steps = np.linspace(-1.0, 1.0, 9)
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    out: list[tuple[_Line, float, float]] = []
    for patch in hit:
        x, y, w, h = (int(v) for v in stats[patch, :4])
        x0, y0 = max(0, x - pad), max(0, y - pad)
        x1, y1 = min(w_img, x + w + pad), min(h_img, y + h + pad)
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        segs = lsd.detect(np.ascontiguousarray(gray[y0:y1, x0:x1]))[0]
        if segs is None:
            continue
        seg = segs.reshape(-1, 4).astype(np.float64)
        dxy = seg[:, 2:] - seg[:, :2]
        length = np.hypot(dxy[:, 0], dxy[:, 1])
        keep = length >= min_px
        if not keep.any():
            continue
        seg, dxy, length = seg[keep], dxy[keep], length[keep]
        d = dxy / length[:, None]
        n = np.stack([-d[:, 1], d[:, 0]], axis=1)
        mid = (seg[:, :2] + seg[:, 2:]) / 2 + (x0, y0)
        half_px = 0.5 * length
        found: list[tuple[int, int, _Line, float]] = []
        for j, sign in enumerate((1.0, -1.0)):
            # the side the stick lies on is wood 2 mm in from the edge
            q = np.rint(mid + sign * n * 2.0 * s).astype(np.intp)
            inside = (q[:, 0] >= 0) & (q[:, 0] < w_img) & (q[:, 1] >= 0) & (q[:, 1] < h_img)
            side = np.zeros(len(q), bool)
            side[inside] = wood_mp[q[inside, 1], q[inside, 0]] == WOOD_PX
            c = mid + sign * n * 0.5 * width_mm * s
            pts = c[:, None, :] + steps[None, :, None] * half_px[:, None, None] * d[:, None, :]
            pts = np.rint(pts)
            xs = np.clip(pts[..., 0].astype(np.intp), 0, w_img - 1)
            ys = np.clip(pts[..., 1].astype(np.intp), 0, h_img - 1)
            passes = near_rest[ys, xs].any(axis=1)
            for i in np.flatnonzero(side & passes):
                line = _Line(float(c[i, 0]), float(c[i, 1]), math.atan2(d[i, 1], d[i, 0]))
                found.append((int(i), j, line, float(half_px[i]) / s))
        found.sort(key=lambda f: (f[0], f[1]))
        out.extend((line, -half, half) for _, _, line, half in found)
    return out
