"""The reading of the code reader: one :class:`Code` per printed code seen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

Kind = Literal["qr", "aruco"]


@dataclass(frozen=True, eq=False)
class Code:
    """One printed code in a frame.

    - ``kind``: ``"qr"`` (QR or Micro QR) or ``"aruco"`` (a square fiducial: ArUco or AprilTag).
    - ``corners_px``: (4, 2) float32, (x, y) in frame pixels, in the code's own order:
      its top-left, top-right, bottom-right, bottom-left as printed (ArUco order; for a QR
      code the top-left is the corner by the finder pattern opposite the missing one).
    - ``text``: a QR code's payload as text (see :mod:`vision.codes.payload`), else None.
      It is data from the world: never interpreted, possibly long, binary or odd.
    - ``payload``: a QR code's payload bytes as the winning decoder returned them, when it
      returns them (None for ArUco).
    - ``id`` and ``dictionary``: an ArUco marker's id and dictionary name
      (``"DICT_4X4_50"``, or a custom dictionary's file name), else None.
    - ``decoders``: the decoders that read this text/id here (for debugging), e.g.
      ``("zxing-cpp", "zbar")``; ``dissent``: those that read something else at the same
      place and were outvoted.
    - ``verified``: whether the reading is backed by an error-correction margin (a QR code
      that zxing-cpp decoded with part of its error correction left unused,
      :data:`vision.codes.qr.MIN_SPARE_EC`; every marker, matched with its own error
      budget). False for a QR text that only decoders that report no margin read, or that
      took nearly all the symbol's error correction: such a text may be a mis-correction
      (a damaged symbol corrected into another valid payload), and is reported as
      ``"unverified": true``.
    """

    kind: Kind
    corners_px: NDArray[np.float32]
    text: str | None = None
    payload: bytes | None = field(default=None, repr=False)
    id: int | None = None
    dictionary: str | None = None
    decoders: tuple[str, ...] = ()
    dissent: tuple[str, ...] = ()
    verified: bool = True

    def __post_init__(self) -> None:
        corners = np.array(self.corners_px, dtype=np.float32).reshape(4, 2)
        corners.flags.writeable = False
        object.__setattr__(self, "corners_px", corners)

    @property
    def center_px(self) -> NDArray[np.float32]:
        """(2,) float32: the mean of the four corners, in pixels."""
        return np.asarray(self.corners_px.mean(axis=0), dtype=np.float32)

    def _key(self) -> tuple[object, ...]:
        return (
            self.kind,
            self.text,
            self.payload,
            self.id,
            self.dictionary,
            self.decoders,
            self.dissent,
            self.verified,
            self.corners_px.tobytes(),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Code):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def quad_area(quad: NDArray[np.floating]) -> float:
    """Area in square pixels of a (4, 2) polygon (shoelace; any vertex order around it)."""
    q = np.asarray(quad, dtype=np.float64).reshape(-1, 2)
    x, y = q[:, 0], q[:, 1]
    nxt = np.arange(1, len(q) + 1) % len(q)
    return float(abs(np.dot(x, y[nxt]) - np.dot(y, x[nxt])) / 2.0)


def same_place(a: NDArray[np.floating], b: NDArray[np.floating]) -> bool:
    """Whether two (4, 2) quads (pixels) outline the same code: the centre of either lies
    inside the other and their areas are within a factor of 4 of each other."""
    lo_a, hi_a = np.min(a, axis=0), np.max(a, axis=0)
    lo_b, hi_b = np.min(b, axis=0), np.max(b, axis=0)
    if (hi_a < lo_b).any() or (hi_b < lo_a).any():  # bounding boxes apart
        return False
    area_a, area_b = quad_area(a), quad_area(b)
    if area_a <= 0 or area_b <= 0:
        return bool(np.linalg.norm(np.mean(a, axis=0) - np.mean(b, axis=0)) < 2.0)
    if max(area_a, area_b) > 4 * min(area_a, area_b):
        return False
    return inside(np.mean(a, axis=0), b) or inside(np.mean(b, axis=0), a)


def inside(point: NDArray[np.floating], quad: NDArray[np.floating]) -> bool:
    """Whether ``point`` (2,) lies inside or on the (4, 2) polygon ``quad`` (pixels)."""
    contour = np.asarray(quad, dtype=np.float32).reshape(-1, 1, 2)
    pt = (float(point[0]), float(point[1]))
    return bool(cv2.pointPolygonTest(contour, pt, False) >= 0)
