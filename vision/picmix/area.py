"""A second measure of an item's visible share: its ink area against the whole item's.

The model judges the share from the blob's shape alone, in a crop scaled to the blob, so a
quarter of a key that happens to look like a whole small thing can be taken for a whole one.
The area measure does not depend on the look: the blob's ink area divided by the area the
whole item has at that place in the frame, ``ratio[item] x card_px^2``, where ``ratio`` is the
item's ink area over its card's long side squared (measured once on the kit's faces through
the same ink step, or on a registered deck's photos) and ``card_px`` the card's long side in
pixels there: from the nearest card marker when the kit's codes are read, else from the items
that show whole (the most common scale among them). The reader keeps the smaller of the two
shares.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import cv2
import numpy as np

from vision.picmix.ink import Blob, candidates, ink_map

CARD_LONG_MM = 88.0
MARKER_MM = 20.0
RATIO_CARD_PX = (100, 140)
"""Card long sides (px) at which the kit's ratios are measured."""


@functools.lru_cache(maxsize=1)
def kit_ratios() -> dict[str, float]:
    """Item -> ink area / card long side^2 for the kit's Picmix items, measured through the
    run-time ink step on the kit's faces (teal and red sets, two sizes, light blur)."""
    from vision.kit import geometry as g
    from vision.kit import render_face
    from vision.kit.picmix import PLAYER_LAYOUT

    found: dict[str, list[float]] = {}
    for colour in ("teal", "red"):
        for n, faces in enumerate(PLAYER_LAYOUT, start=1):
            for f, face in enumerate(("front", "back")):
                img = render_face(f"picmix-{colour}-{n}", face, 4.0)  # type: ignore[arg-type]
                for long_px in RATIO_CARD_PX:
                    k = long_px / img.shape[1]
                    small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
                    small = cv2.GaussianBlur(small, (0, 0), 0.6)
                    pad = cv2.copyMakeBorder(
                        small, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(90, 110, 130)
                    )
                    im = ink_map(pad)
                    blobs = candidates(im)
                    for half in g.HALVES:
                        box = g.PICMIX_ITEM_BOXES[half]
                        cx = 60 + (box.x + box.w / 2) / CARD_LONG_MM * long_px
                        cy = 60 + (box.y + box.h / 2) / CARD_LONG_MM * long_px
                        near = [
                            b for b in blobs
                            if abs(b.centre_px[0] - cx) < 0.25 * long_px
                            and abs(b.centre_px[1] - cy) < 0.25 * long_px
                        ]  # fmt: skip
                        if near:
                            b = max(near, key=lambda b: b.area_px)
                            item = faces[f].item(half)
                            found.setdefault(item, []).append(b.area_px / long_px**2)
    return {k: float(np.median(v)) for k, v in found.items()}


def marker_card_px(corners_px: np.ndarray) -> float:
    """A card's long side (px) where a kit card marker ((4, 2) corners) lies."""
    q = np.asarray(corners_px, np.float64)
    side = float(np.mean(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1)))
    return side * CARD_LONG_MM / MARKER_MM


def card_px_from_markers(
    centre: tuple[float, float], markers: Sequence[np.ndarray]
) -> float | None:
    """The card long side at ``centre`` from the nearest marker ((4, 2) corners each) within
    a card's length, or None (the first of the nearest when several are as near)."""
    if not len(markers):
        return None
    q = np.asarray(markers, np.float64).reshape(-1, 4, 2)
    sides = np.linalg.norm(q - np.roll(q, 1, axis=1), axis=2).mean(axis=1)
    long_px = sides * CARD_LONG_MM / MARKER_MM
    d = np.linalg.norm(q.mean(axis=1) - np.asarray(centre, np.float64), axis=1)
    within = np.flatnonzero(d <= long_px)
    if not len(within):
        return None
    return float(long_px[within[int(np.argmin(d[within]))]])


def card_px_from_items(areas: Sequence[float], ratios: Sequence[float]) -> float | None:
    """The card long side from items thought whole (their areas and ratios): the upper
    median of sqrt(area / ratio), since covered items only make it smaller."""
    est = sorted(float(np.sqrt(a / r)) for a, r in zip(areas, ratios, strict=True) if r > 0)
    if not est:
        return None
    return est[min(len(est) - 1, (3 * len(est)) // 4)]


def area_share(blob: Blob, ratio: float, card_px: float) -> float:
    """The blob's ink area over the whole item's at card long side ``card_px``."""
    return float(blob.area_px / max(ratio * card_px**2, 1e-9))
