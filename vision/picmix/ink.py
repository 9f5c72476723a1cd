"""Ink on paper: where pictures are printed on light cards, and the blobs that may be items.

A card is light paper; an item is printed on it in ink (any colour, dark or saturated). The
*ink map* measures, per pixel, how much darker than the local paper white the pixel is in its
darkest channel relative to that white (0: paper, 1: black), so coloured and black ink read
alike and the measure does not depend on the light level. The local white is the brightest
colour within about ``WHITE_RADIUS_PX`` (a grey-level dilation at quarter resolution).

Blobs (*candidates*) are the connected regions of ink above ``INK_THRESHOLD`` whose size could
be an item's and whose surroundings are white enough to be paper. They are only proposals: the
item model (``vision.picmix.model``) names them or rejects them (markers, text, hand edges).
Items stuck to something larger (a hand or a sleeve over the card, or paper darkened by its
shadow) are split off it by their ink's depth (``split_by_core``) or colour
(``split_by_colour``).

Everything here is geometry-free: no card outline, code or pose is needed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.sources.guard import check_frame

INK_THRESHOLD = 0.36
"""Ink map level (0..1) above which a pixel is ink."""
WHITE_RADIUS_PX = 36
"""Radius (full-resolution px) of the neighbourhood whose brightest colour is the paper
white: larger than half the largest item expected (items are 20-70 px wide at 1280x720)."""
MIN_SIDE_PX = 9
"""Smallest blob (longer bounding-box side, px) kept as a candidate."""
MAX_SIDE_PX = 110
"""Largest blob (longer bounding-box side, px) kept as a candidate."""
MIN_AREA_PX = 30
"""Smallest blob area (px) kept as a candidate."""
PAPER_MIN_RELATIVE = 0.55
"""The local white under a candidate must be at least this share of the frame's paper white."""
PAPER_MAX_SATURATION = 0.32
"""... and no more saturated than this (HSV saturation of the local white, 0..1)."""


@dataclass(frozen=True, eq=False)
class InkMap:
    """The ink of one frame.

    - ``ink``: (H, W) uint8, 0 (paper) .. 255 (black), full resolution;
    - ``white``: (H, W, 3) uint8 BGR local paper white, full resolution;
    - ``labels``: (H, W) int32 connected components of ``ink > INK_THRESHOLD`` (0: none);
    - ``stats``: (N, 5) int32 ``cv2.connectedComponentsWithStats`` rows (x, y, w, h, area);
    - ``paper_level``: the frame's paper white (brightest channel, 0..255);
    - ``split_from``: label of a blob split off a component after it was found
      (``split_by_core``, ``split_by_colour``, which relabel its pixels) -> the component's.
    """

    ink: np.ndarray
    white: np.ndarray
    labels: np.ndarray
    stats: np.ndarray
    paper_level: float
    split_from: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Blob:
    """A candidate: component ``label`` of ``InkMap.labels`` with its bounding box
    ``box_xywh`` (px), ``area_px`` and ``centre_px`` (x, y) (its centroid)."""

    label: int
    box_xywh: tuple[int, int, int, int]
    area_px: int
    centre_px: tuple[float, float]


def local_white_small(frame: np.ndarray, radius_px: int = WHITE_RADIUS_PX) -> np.ndarray:
    """(H/4, W/4, 3) uint8 BGR: the brightest colour (per channel) within about ``radius_px``
    (full-resolution px), at quarter resolution, on a slightly smoothed frame (noise and
    specks do not count as white)."""
    h, w = frame.shape[:2]
    sw, sh = max(1, w // 4), max(1, h // 4)
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    r = max(1, round(radius_px / 4))
    white = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * r + 1, 2 * r + 1)))
    return cv2.blur(white, (5, 5))


def paper_ground(white_small: np.ndarray) -> tuple[np.ndarray, float]:
    """(mask, level): where the local white is paper-like, (H/4, W/4) uint8 0/1, and the
    frame's paper white level (0..255, brightest channel). Paper-like: at least
    ``PAPER_MIN_RELATIVE`` of the level, saturation at most ``PAPER_MAX_SATURATION``."""
    b, g, r = cv2.split(white_small)
    hi = cv2.max(cv2.max(b, g), r)
    lo = cv2.min(cv2.min(b, g), r)
    hist = cv2.calcHist([hi], [0], None, [256], [0, 256]).ravel()
    cum = np.cumsum(hist)
    level = float(np.searchsorted(cum, 0.995 * cum[-1]))
    _, bright = cv2.threshold(hi, PAPER_MIN_RELATIVE * level, 1, cv2.THRESH_BINARY)
    # saturation (hi - lo) / hi <= s  <=>  lo >= (1 - s) * hi
    grey = cv2.compare(lo, cv2.multiply(hi, 1.0 - PAPER_MAX_SATURATION), cv2.CMP_GE)
    return cv2.bitwise_and(bright, grey // 255), level


def ink_levels(frame: np.ndarray, white: np.ndarray) -> np.ndarray:
    """(H, W) uint8: 255 x max over channels of (white - frame) / white (0 where the frame is
    as bright as the white)."""
    diff = cv2.subtract(white, frame)
    rel = cv2.divide(diff, cv2.max(white, 8), scale=255.0)
    b, g, r = cv2.split(rel)
    return cv2.max(cv2.max(b, g), r)


def ground_boxes(
    ground_small: np.ndarray, shape_hw: tuple[int, int]
) -> list[tuple[int, int, int, int]]:
    """Full-resolution boxes (x0, y0, x1, y1) round the paper-like regions of ``ground_small``
    ((H/4, W/4) uint8 0/1), each grown by 2 quarter pixels; boxes that overlap are merged."""
    n, _, st, _ = cv2.connectedComponentsWithStats(ground_small, connectivity=8)
    h, w = shape_hw
    boxes = []
    for i in range(1, n):
        x, y, bw, bh, a = (int(v) for v in st[i])
        if a < 4:
            continue
        boxes.append(
            [
                max(0, 4 * (x - 2)),
                max(0, 4 * (y - 2)),
                min(w, 4 * (x + bw + 2)),
                min(h, 4 * (y + bh + 2)),
            ]
        )
    merged = True
    while merged and len(boxes) > 1:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    return [(b[0], b[1], b[2], b[3]) for b in boxes]


def ink_map(frame: np.ndarray) -> InkMap:
    """The ink map of ``frame`` ((H, W, 3) uint8 BGR) and its connected ink components.

    Ink is measured only where the local white is paper-like (``paper_ground``), box by box;
    elsewhere ``ink`` is 0 and ``labels`` 0."""
    check_frame(frame)
    h, w = frame.shape[:2]
    white_small = local_white_small(frame)
    ground_small, level = paper_ground(white_small)
    ink = np.zeros((h, w), np.uint8)
    white = np.zeros((h, w, 3), np.uint8)
    labels = np.zeros((h, w), np.int32)
    rows = [np.zeros((1, 5), np.int32)]
    next_label = 1
    for x0, y0, x1, y1 in ground_boxes(ground_small, (h, w)):
        sx0, sy0, sx1, sy1 = x0 // 4, y0 // 4, -(-x1 // 4), -(-y1 // 4)
        ws = white_small[sy0:sy1, sx0:sx1]
        gs = ground_small[sy0:sy1, sx0:sx1]
        bw, bh = 4 * (sx1 - sx0), 4 * (sy1 - sy0)
        wb = cv2.resize(ws, (bw, bh), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
        gb = cv2.resize(gs, (bw, bh), interpolation=cv2.INTER_NEAREST)[: y1 - y0, : x1 - x0]
        white[y0:y1, x0:x1] = wb
        lv = ink_levels(np.ascontiguousarray(frame[y0:y1, x0:x1]), np.ascontiguousarray(wb))
        ink[y0:y1, x0:x1] = lv
        _, mask = cv2.threshold(lv, round(INK_THRESHOLD * 255), 1, cv2.THRESH_BINARY)
        mask = cv2.bitwise_and(mask, gb)
        n, lab, st, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if n <= 1:
            continue
        lab[lab > 0] += next_label - 1
        labels[y0:y1, x0:x1] = lab
        st = st[1:].copy()
        st[:, 0] += x0
        st[:, 1] += y0
        rows.append(st)
        next_label += n - 1
    stats = np.concatenate(rows, axis=0)
    return InkMap(ink=ink, white=white, labels=labels, stats=stats, paper_level=level)


def candidates(im: InkMap) -> list[Blob]:
    """The components of ``im`` that could be items: size in range, on paper-white ground."""
    st = im.stats
    if st.shape[0] <= 1:
        return []
    side = np.maximum(st[:, 2], st[:, 3])
    keep = (side >= MIN_SIDE_PX) & (side <= MAX_SIDE_PX) & (st[:, 4] >= MIN_AREA_PX)
    keep[0] = False
    out: list[Blob] = []
    for i in np.flatnonzero(keep):
        x, y, w, h, a = (int(v) for v in st[i])
        out.append(Blob(int(i), (x, y, w, h), a, (x + w / 2.0, y + h / 2.0)))
    return out


SPLIT_HUE_DIST = 22.0
"""Largest distance in Lab (a, b) from the ink colour of the items for a pixel of a large
blob to be taken as item ink when the blob is split (``split_by_colour``)."""


def ink_colour(frame: np.ndarray, im: InkMap, blobs: list[Blob]) -> np.ndarray | None:
    """(2,) float32 Lab (a, b) median of the most coloured ink among ``blobs`` (items of one
    player's set share a colour), or None when the ink is not coloured (black items)."""
    cols = []
    for b in blobs:
        x, y, w, h = b.box_xywh
        own = im.labels[y : y + h, x : x + w] == b.label
        lab = cv2.cvtColor(frame[y : y + h, x : x + w], cv2.COLOR_BGR2LAB)[own]
        if len(lab):
            ab = np.median(lab[:, 1:].astype(np.float32), axis=0) - 128.0
            if float(np.hypot(*ab)) > 18:
                cols.append(ab)
    if not cols:
        return None
    return np.median(np.asarray(cols), axis=0).astype(np.float32)


def split_by_colour(
    frame: np.ndarray, im: InkMap, ab: np.ndarray, first_label: int | None = None
) -> list[Blob]:
    """Items stuck to something larger (a hand or sleeve resting on a card, a shadow): the
    pixels of each too-large ink component whose colour is close to the items' ``ab``
    (``ink_colour``), split into item-sized blobs. Their pixels get new labels in
    ``im.labels`` (so crops see them as blobs of their own), from ``first_label`` (default:
    after the components; past those that ``split_by_core`` gave when it ran first)."""
    st = im.stats
    side = np.maximum(st[:, 2], st[:, 3])
    big = np.flatnonzero((side > MAX_SIDE_PX) & (st[:, 4] > 4 * MIN_AREA_PX))
    out: list[Blob] = []
    next_label = int(st.shape[0]) if first_label is None else first_label
    for i in big:
        if i == 0:
            continue
        x, y, w, h, _ = (int(v) for v in st[i])
        own = im.labels[y : y + h, x : x + w] == i
        lab = cv2.cvtColor(frame[y : y + h, x : x + w], cv2.COLOR_BGR2LAB).astype(np.float32)
        dist = np.hypot(lab[..., 1] - 128.0 - ab[0], lab[..., 2] - 128.0 - ab[1])
        mask = (own & (dist < SPLIT_HUE_DIST)).astype(np.uint8)
        if int(mask.sum()) < MIN_AREA_PX:
            continue
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, sub, sst, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for k in range(1, n):
            sx, sy, sw, sh, sa = (int(v) for v in sst[k])
            if not (MIN_SIDE_PX <= max(sw, sh) <= MAX_SIDE_PX and sa >= 2 * MIN_AREA_PX):
                continue
            region = im.labels[y : y + h, x : x + w]
            region[sub == k] = next_label
            im.split_from[next_label] = int(i)
            box = (x + sx, y + sy, sw, sh)
            out.append(Blob(next_label, box, sa, (box[0] + sw / 2.0, box[1] + sh / 2.0)))
            next_label += 1
    return out


CORE_INK = 0.7
"""Ink level (0..1) that printed items reach and paper in a shadow (a hand's, an arm's or a
card edge's), which joins items to one large ink component, does not (0.36-0.6)."""


RING_AB = 9.0
"""Largest distance in Lab (a, b) from the local paper white that three quarters of the pixels
round a part split off by ``split_by_core`` may have: an item's surroundings are paper (in a
shadow, darker but of the paper's own tint); a piece of a hand or sleeve is surrounded by
skin or cloth."""


def _on_paper(frame: np.ndarray, im: InkMap, part: np.ndarray, xy: tuple[int, int]) -> bool:
    """Whether the pixels 2-3 px round ``part`` ((h, w) uint8 0/1 mask whose top-left corner is
    ``xy`` in ``frame``) have the tint of the local paper white (``RING_AB``)."""
    x, y = xy
    h, w = part.shape
    pad = 4
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(frame.shape[1], x + w + pad), min(frame.shape[0], y + h + pad)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    mask[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = part
    kernel = np.ones((3, 3), np.uint8)
    ring = (cv2.dilate(mask, kernel, iterations=3) > 0) & ~(cv2.dilate(mask, kernel) > 0)
    if not ring.any():
        return False
    lab = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)[ring][:, 1:].astype(np.float32)
    white = cv2.cvtColor(im.white[y0:y1, x0:x1], cv2.COLOR_BGR2LAB)[ring][:, 1:]
    d = np.hypot(*(lab - white.astype(np.float32)).T)
    return float(np.percentile(d, 75)) <= RING_AB


def split_by_core(
    frame: np.ndarray,
    im: InkMap,
    labels: list[int] | None = None,
    first_label: int | None = None,
) -> list[Blob]:
    """Items joined to something larger by paper in a shadow (a hand or an arm over the cards,
    whose shadow darkens the paper between them past ``INK_THRESHOLD``): the parts of each
    too-large ink component of ``im`` (of ``frame``, (H, W, 3) uint8 BGR) whose ink reaches
    ``CORE_INK``, cut apart at thin bridges (an opening), that have an item's size and lie on
    paper (``RING_AB``), grown back by a pixel within the component (the items' blurred rims).
    Their pixels get new labels in ``im.labels``, from ``first_label`` (default: after the
    components). A hand, an arm or a dark sleeve that reaches the level is one part too large
    to be an item, or one surrounded by skin or cloth. ``labels``: the components to split
    (default: those too large to be an item)."""
    st = im.stats
    side = np.maximum(st[:, 2], st[:, 3])
    big = np.flatnonzero((side > MAX_SIDE_PX) & (st[:, 4] > 4 * MIN_AREA_PX))
    if labels is not None:
        big = np.asarray(labels, np.int64)
    level = round(CORE_INK * 255)
    out: list[Blob] = []
    next_label = int(st.shape[0]) if first_label is None else first_label
    kernel = np.ones((3, 3), np.uint8)
    for i in big:
        if i == 0:
            continue
        x, y, w, h, _ = (int(v) for v in st[i])
        region = im.labels[y : y + h, x : x + w]
        own = (region == i).astype(np.uint8)
        core = cv2.morphologyEx(
            own & (im.ink[y : y + h, x : x + w] >= level), cv2.MORPH_OPEN, kernel
        )
        n, sub, sst, _ = cv2.connectedComponentsWithStats(core, connectivity=8)
        for k in range(1, n):
            sw, sh, sa = (int(v) for v in sst[k, 2:])
            if not (MIN_SIDE_PX <= max(sw, sh) <= MAX_SIDE_PX and sa >= 2 * MIN_AREA_PX):
                continue
            # the part's own box grown by the pixel it grows back by: cheap on a large region
            x0, y0 = max(0, int(sst[k, 0]) - 1), max(0, int(sst[k, 1]) - 1)
            x1, y1 = min(w, x0 + sw + 3), min(h, y0 + sh + 3)
            mine = region[y0:y1, x0:x1]
            part = cv2.dilate((sub[y0:y1, x0:x1] == k).astype(np.uint8), kernel) & (mine == i)
            ys, xs = np.nonzero(part)
            bx, by = x0 + int(xs.min()), y0 + int(ys.min())
            box = (x + bx, y + by, int(np.ptp(xs)) + 1, int(np.ptp(ys)) + 1)
            part = part[by - y0 : by - y0 + box[3], bx - x0 : bx - x0 + box[2]]
            if not _on_paper(frame, im, part, box[:2]):
                continue
            region[by : by + box[3], bx : bx + box[2]][part > 0] = next_label
            im.split_from[next_label] = int(i)
            area = int(part.sum())
            out.append(Blob(next_label, box, area, (box[0] + box[2] / 2.0, box[1] + box[3] / 2.0)))
            next_label += 1
    return out


OCCLUDER_DELTA = 22.0
"""Colour distance (Lab, lightness counted half) from the table above which a large blob on
the cards is something lying over them (a hand, a sleeve) rather than the table round them."""


def table_colour(frame: np.ndarray) -> np.ndarray:
    """(3,) float32 Lab median of the frame's outer band (the table, mostly)."""
    h, w = frame.shape[:2]
    small = cv2.resize(frame, (max(1, w // 8), max(1, h // 8)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    b = max(1, min(lab.shape[:2]) // 10)
    band = np.concatenate(
        [
            lab[:b].reshape(-1, 3),
            lab[-b:].reshape(-1, 3),
            lab[:, :b].reshape(-1, 3),
            lab[:, -b:].reshape(-1, 3),
        ]
    )
    return np.median(band, axis=0).astype(np.float32)


def occluders(
    frame: np.ndarray, im: InkMap, table: np.ndarray | None = None
) -> list[tuple[int, int, int, int]]:
    """Boxes (x, y, w, h) of the large ink blobs on paper ground whose colour is not the
    table's (``table``: its ``table_colour``, when the caller has it): hands, sleeves or
    objects lying over the cards."""
    st = im.stats
    side = np.maximum(st[:, 2], st[:, 3])
    big = [i for i in np.flatnonzero(side > MAX_SIDE_PX) if i > 0]
    if not big:
        return []
    table = table_colour(frame) if table is None else table
    out = []
    for i in big:
        x, y, w, h, _ = (int(v) for v in st[i])
        step = max(1, int(np.sqrt(w * h / 4000)))
        own = im.labels[y : y + h : step, x : x + w : step] == i
        px = frame[y : y + h : step, x : x + w : step][own]
        if len(px) == 0:
            continue
        lab = (
            cv2.cvtColor(px.reshape(-1, 1, 3), cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
        )
        d = np.median(lab, axis=0) - table
        if float(np.sqrt((d[0] / 2) ** 2 + d[1] ** 2 + d[2] ** 2)) > OCCLUDER_DELTA:
            out.append((x, y, w, h))
    return out


HAND_MIN_AREA = 0.0087
"""Share of the frame that a region neither table- nor paper-coloured must cover to be taken
for a hand, an arm or an object in view (8,000 px at 1280x720; items are far smaller)."""


def hand_in_view(frame: np.ndarray) -> bool:
    """Whether a large region of ``frame`` ((H, W, 3) uint8 BGR) is neither the table's
    colour (``table_colour``) nor paper white: a hand, an arm or an object. Read at an eighth
    of the size (about 1 ms); used to say why a claim cannot be judged."""
    return bool(hand_mask(frame)[0].any())


HAND_STEP = 8
"""``hand_mask`` reads the frame at 1 / ``HAND_STEP`` of its size."""


def hand_mask(frame: np.ndarray, table: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """(mask, step): where ``frame`` ((H, W, 3) uint8 BGR) shows a hand, an arm or an object,
    at 1 / ``step`` of its size (uint8, 1 inside): the regions neither the table's colour
    (``table``, else ``table_colour``) nor paper white of at least ``HAND_MIN_AREA`` of the
    frame."""
    check_frame(frame)
    h, w = frame.shape[:2]
    sw, sh = max(1, w // HAND_STEP), max(1, h // HAND_STEP)
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    d = lab - (table_colour(frame) if table is None else table)
    dist = np.sqrt((d[..., 0] / 2) ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    paper = (hsv[..., 2] > 0.8 * np.percentile(hsv[..., 2], 99)) & (hsv[..., 1] < 60)
    mask = ((dist > OCCLUDER_DELTA) & ~paper).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab_, st, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    big = [k for k in range(1, n) if int(st[k, 4]) >= HAND_MIN_AREA * sw * sh]
    return np.isin(lab_, big).astype(np.uint8), HAND_STEP
