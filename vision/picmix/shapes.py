"""An item's outline compared with its registered photo's: a check on names given in doubt
between two items of a registered deck.

The matching model (``vision.picmix.model``) compares pictures through an embedding learnt on
other art. For some pairs of a deck's items it holds them close whatever the view: on the
new-art development claims (``vision.picmix.newart``), a tee seen whole at 30-40 px was named
tee at only 0.64-0.90 against arrow: 20 of the 60 claims left unsure had a tee in doubt.
Their outlines are plainly different. So a deck registered from photos keeps each face item's
crop as the registration photo shows it (``templates``), and when a blob's name is in doubt
between two items (``settle``), the blob's ink is compared with each one's:

- both are brought to a canonical form (``canonical``): the ink's centroid and second moments
  mapped to a disc of unit spread, which undoes scale, the camera's tilt (locally an affine
  map) and stretching, but not the turn;
- their likeness is the best normalised correlation over ``TURNS`` turns of the blob.

Geometry first: the size and shape of the printed item are the same on every card, whatever
its colours. The check only ever confirms the model's own first name, never puts another in
its place: a cross with an arm under a card is a tee by its outline (measured: 0.92 like one).
"""

from __future__ import annotations

import base64

import cv2
import numpy as np

from vision.picmix.crops import CROP_PX

SHAPE_PX = 40
"""Side (px) of the canonical image."""
SHAPE_SPREAD = 2.6
"""Half the canonical image's side, in units of the ink's spread (its standard deviation
along each principal axis)."""
TURNS = np.arange(0.0, 360.0, 4.0)
"""Turns (degrees) of the blob tried against each template."""
SETTLE_LIKE = 0.90
"""The first name's outline likeness needed to settle a doubt."""
SETTLE_MARGIN = 0.05
"""... by at least this much more than the runner-up's."""
SETTLE_PAIR = 0.90
"""A doubt is between two items when their probabilities add up to at least this (the
settled name then takes both: ``vision.picmix.reading.NAME_MIN`` is 0.90)."""
SETTLE_FIRST = 0.5
"""... and the first name has at least this much."""
DISMISS_LIKE = 0.75
"""A blob rather "not an item" whose outline is less like every item of the deck than this is
none of them (``dismiss``). Any blob's canonical form is somewhat like any other's (both are
made a unit disc): on the development claims, 46 of 49 blobs on no item read 0.70-0.80 (the
best of all items; the other 3, 0.88-0.95, stay in doubt) and items the item model doubts
0.77-0.96."""


def canonical(crop: np.ndarray) -> np.ndarray | None:
    """(SHAPE_PX, SHAPE_PX) float32 unit vector image (zero mean) of a crop's (2, 32, 32) ink
    on its own pixels, its centroid and second moments made a unit disc; None when the crop
    holds no ink."""
    if crop.shape != (2, CROP_PX, CROP_PX):
        raise ValueError(f"crop must be (2, {CROP_PX}, {CROP_PX}), got {crop.shape}")
    w = np.asarray(crop[0] * crop[1], np.float32)
    m = float(w.sum())
    if m < 1e-3:
        return None
    ys, xs = np.mgrid[0:CROP_PX, 0:CROP_PX].astype(np.float64)
    mx, my = float((w * xs).sum()) / m, float((w * ys).sum()) / m
    dx, dy = xs - mx, ys - my
    cxy = float((w * dx * dy).sum()) / m
    cov = np.array([[(w * dx * dx).sum() / m, cxy], [cxy, (w * dy * dy).sum() / m]])
    cov += np.eye(2) * 0.05  # a blob one pixel thin
    ev, vec = np.linalg.eigh(cov)
    whiten = vec @ np.diag(ev**-0.5) @ vec.T
    a = (SHAPE_PX / (2 * SHAPE_SPREAD)) * whiten
    b = np.array([SHAPE_PX / 2.0, SHAPE_PX / 2.0]) - a @ np.array([mx, my])
    warp = np.hstack([a, b[:, None]]).astype(np.float32)
    out = cv2.warpAffine(w, warp, (SHAPE_PX, SHAPE_PX), flags=cv2.INTER_LINEAR)
    return _unit(out)


def _unit(img: np.ndarray) -> np.ndarray | None:
    v = img.astype(np.float32) - float(img.mean())
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-6 else None


def turned_forms(crop: np.ndarray) -> np.ndarray | None:
    """(len(TURNS), SHAPE_PX * SHAPE_PX) float32: the crop's canonical form turned by each of
    ``TURNS``, each a zero-mean unit vector; None when the crop holds no ink."""
    c = canonical(crop)
    if c is None:
        return None
    centre = (SHAPE_PX / 2.0 - 0.5, SHAPE_PX / 2.0 - 0.5)
    turned = np.stack(
        [
            cv2.warpAffine(c, cv2.getRotationMatrix2D(centre, float(t), 1.0), (SHAPE_PX, SHAPE_PX))
            for t in TURNS
        ]
    ).reshape(len(TURNS), -1)
    turned = turned - turned.mean(axis=1, keepdims=True)  # the corners turned out of it
    norm = np.maximum(np.linalg.norm(turned, axis=1, keepdims=True), 1e-9)
    return np.asarray(turned / norm, np.float32)


def _best(forms: np.ndarray | None, templates: np.ndarray) -> float:
    """The best correlation of a blob's ``turned_forms`` with one of ``templates``; -1 when
    there is no form or no template."""
    if forms is None or len(templates) == 0:
        return -1.0
    return float((forms @ templates.reshape(len(templates), -1).T).max())


def likeness(crop: np.ndarray, templates: np.ndarray) -> float:
    """The blob's outline likeness to an item: the best correlation of its canonical form,
    turned by each of ``TURNS``, with one of the item's ``templates`` ((T, SHAPE_PX,
    SHAPE_PX) canonical forms); -1 when the crop holds no ink or there is no template."""
    return _best(turned_forms(crop), templates)


def settle(crops: np.ndarray, probs: np.ndarray, shapes: tuple[np.ndarray, ...]) -> np.ndarray:
    """``probs`` ((N, K + 1): a deck's K items then "not an item") with each doubt between
    two items settled by their outlines: when the first name has less than ``NAME_MIN`` but
    at least ``SETTLE_FIRST``, the first two add up to ``SETTLE_PAIR``, and the blob's
    outline is at least ``SETTLE_LIKE`` like the first's template and ``SETTLE_MARGIN`` more
    than the runner-up's, the first name takes the runner-up's probability. ``shapes[k]``:
    item k's templates (``templates``); an item without any is never settled."""
    from vision.picmix.reading import NAME_MIN

    k = len(shapes)
    out = probs.copy()
    if k < 2 or len(probs) == 0:
        return out
    q = probs[:, :k]
    order = np.argsort(-q, axis=1)[:, :2]
    p1 = np.take_along_axis(q, order[:, :1], axis=1)[:, 0]
    p2 = np.take_along_axis(q, order[:, 1:2], axis=1)[:, 0]
    doubt = (p1 < NAME_MIN) & (p1 >= SETTLE_FIRST) & (p1 + p2 >= SETTLE_PAIR)
    for n in np.flatnonzero(doubt):
        first, second = int(order[n, 0]), int(order[n, 1])
        if len(shapes[first]) == 0 or len(shapes[second]) == 0:
            continue
        forms = turned_forms(crops[n])  # once for both items
        a = _best(forms, shapes[first])
        if a < SETTLE_LIKE:
            continue
        if a - _best(forms, shapes[second]) >= SETTLE_MARGIN:
            out[n, first] += out[n, second]
            out[n, second] = 0.0
    return out


def dismiss(
    crops: np.ndarray, probs: np.ndarray, visible: np.ndarray, shapes: tuple[np.ndarray, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """(probs, visible) with each blob that the item model takes rather for "not an item"
    (``ITEM_MIN``) but that looks whole enough to be kept in doubt (``UNSURE_BAND``'s top)
    made surely "not an item" (probability 1, visible share 0) when its outline is less than
    ``DISMISS_LIKE`` like every item of the deck: two cues that do not share their errors
    agree (a fingertip, a sleeve's fold, a card's shadowed corner)."""
    from vision.picmix.reading import ITEM_MIN, UNSURE_BAND

    k = len(shapes)
    probs, visible = probs.copy(), visible.copy()
    every = [t for t in shapes if len(t)]
    if len(every) < k or k == 0 or len(probs) == 0:
        return probs, visible  # an item without an outline could be anything
    pool = np.concatenate(every)
    doubt = (probs[:, k] >= ITEM_MIN) & (visible >= UNSURE_BAND[1])
    for n in np.flatnonzero(doubt):
        if -1.0 < likeness(crops[n], pool) < DISMISS_LIKE:
            probs[n] = 0.0
            probs[n, k] = 1.0
            visible[n] = 0.0
    return probs, visible


def templates(crops: list[np.ndarray]) -> np.ndarray:
    """(T, SHAPE_PX, SHAPE_PX) float32 canonical forms of an item's registered crops (those
    holding ink)."""
    forms = [c for c in (canonical(np.asarray(x, np.float32)) for x in crops) if c is not None]
    if not forms:
        return np.zeros((0, SHAPE_PX, SHAPE_PX), np.float32)
    return np.stack(forms).astype(np.float32)


def encode(crop: np.ndarray) -> str:
    """A (2, 32, 32) crop (0..1) as text for a deck file: base64 of its uint8 bytes."""
    if crop.shape != (2, CROP_PX, CROP_PX):
        raise ValueError(f"crop must be (2, {CROP_PX}, {CROP_PX}), got {crop.shape}")
    raw = np.clip(np.round(crop * 255.0), 0, 255).astype(np.uint8).tobytes()
    return base64.b64encode(raw).decode("ascii")


def decode(text: str) -> np.ndarray:
    """``encode``'s crop back ((2, 32, 32) float32 0..1); ``ValueError`` when malformed."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as exc:
        raise ValueError(f"deck item outline is not base64: {exc}") from None
    if len(raw) != 2 * CROP_PX * CROP_PX:
        raise ValueError(f"deck item outline must hold {2 * CROP_PX * CROP_PX} bytes")
    return np.frombuffer(raw, np.uint8).reshape(2, CROP_PX, CROP_PX).astype(np.float32) / 255.0
