"""Where a kit card's printed codes lie on its face, for the keypoints found there.

Every card of the printable kit carries the same codes in the same places (KIT.md: two
markers in opposite corners, a small QR code in a third on most fronts). Keypoints on them
say where a card is, not which: once blurred, markers look alike, and the QR code's three
finder patterns are the same on every card. :func:`code_labels` tells which code each of a
card's keypoints lies on (``vision.identify.verification`` weighs a fit that rests on them)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.identify import local

#: Keypoints this close (mm) to a kit card's printed code count as on it: the white pad round
#: a code (``MARKER_PAD_MM``, 2 mm) and a millimetre more, where a keypoint's patch takes in
#: the code's corner.
CODE_MARGIN_MM = 3.0
#: :func:`code_labels`' label of a keypoint on a card's QR code (1 and 2: its markers).
ON_QR = 3

Box = tuple[float, float, float, float]


@functools.cache
def printed_code_boxes(
    card_id: str, turned: bool, margin_mm: float = 0.0
) -> tuple[tuple[Box, ...], tuple[Box, ...]]:
    """The boxes (x0, y0, x1, y1) of a kit card's printed codes on its front
    (``vision.kit.codes.face_codes``): its two markers, and its QR code (none on some
    fronts), each grown by ``margin_mm``, in the pixels of its portrait face at
    :data:`vision.identify.local.VERIFY_CARD_WH` (``turned``: the face is landscape, turned a
    quarter clockwise to portrait, as :func:`vision.identify.appearance.portrait` turns it).
    Worked out once per card (the marker check reads them on every fit that rests on them)."""
    from vision.kit.codes import face_codes
    from vision.kit.geometry import face_size_wh_mm

    codes = face_codes(card_id, "front")
    w_mm, h_mm = face_size_wh_mm(card_id)
    pw, ph = (h_mm, w_mm) if turned else (w_mm, h_mm)
    sx, sy = local.VERIFY_CARD_WH[0] / pw, local.VERIFY_CARD_WH[1] / ph
    g = margin_mm

    def box(r: Any) -> Box:
        x0, y0, x1, y1 = r.x, r.y, r.x + r.w, r.y + r.h
        if turned:  # a quarter clockwise: (x, y) -> (h - y, x)
            x0, y0, x1, y1 = h_mm - y1, x0, h_mm - y0, x1
        return ((x0 - g) * sx, (y0 - g) * sy, (x1 + g) * sx, (y1 + g) * sy)

    qr = (box(codes.qr_rect),) if codes.qr_rect is not None else ()
    return tuple(box(r) for r in codes.marker_rects), qr


def in_boxes(xy: NDArray[np.float32], boxes: Sequence[Box]) -> NDArray[np.bool_]:
    """(n,) bool: which of (n, 2) points lie in any of ``boxes`` (x0, y0, x1, y1)."""
    inside = np.zeros(len(xy), bool)
    for x0, y0, x1, y1 in boxes:
        inside |= (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    return inside


def code_labels(card_id: str, turned: bool, xy: NDArray[np.float32]) -> NDArray[np.int8] | None:
    """(n,) int8: the printed code each of (n, 2) keypoints of kit card ``card_id``'s portrait
    face at :data:`vision.identify.local.VERIFY_CARD_WH` lies on, within
    :data:`CODE_MARGIN_MM`: 1 and 2 its markers, :data:`ON_QR` its QR code, 0 none; None for
    a card the kit does not have."""
    try:
        markers, qr = printed_code_boxes(card_id, turned, CODE_MARGIN_MM)
    except KeyError:
        return None
    on = np.zeros(len(xy), np.int8)
    for k, boxes in ((ON_QR, qr), *((i, (m,)) for i, m in enumerate(markers, 1))):
        on[in_boxes(xy, boxes) & (on == 0)] = k
    return on
