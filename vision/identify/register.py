"""Registering cards from a live camera, one at a time: the logic, apart from the camera loop.

:class:`CardCapture` is fed frames (from any source: a camera in ``pictable deck register
--camera``, a list of arrays in the tests). It looks for the largest card outline
(:func:`vision.identify.quads.find_outlines`, all four sides seen), waits until it has held
still for ``needed`` frames (corners within ``tolerance_px``), captures the card's face
rectified to an upright image, then waits for the frame to be clear of cards before the next.
Each call returns a :class:`CaptureProgress` that a display shows.

State kept here is the registration session's, not a frame reader's: the card reader itself
(:func:`vision.identify.identify_frame`) stays stateless.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.identify import appearance, quads

CaptureState = Literal["searching", "steady", "captured", "waiting"]


@dataclass(frozen=True, eq=False)
class CaptureProgress:
    """Where a capture is: ``state`` (``searching`` for a card, holding ``steady``, just
    ``captured``, ``waiting`` for the card to be taken away), ``steady``/``needed`` frames,
    the card's ``outline`` (4, 2) float32 px when one is seen, the captured face ``image``
    (H, W, 3) uint8 BGR when ``state == "captured"``, and a one-line ``message``."""

    state: CaptureState
    steady: int
    needed: int
    outline: NDArray[np.float32] | None = None
    image: NDArray[np.uint8] | None = None
    message: str = ""

    @property
    def fraction(self) -> float:
        """Progress towards a capture, in [0, 1]."""
        return min(1.0, self.steady / max(1, self.needed))


@dataclass
class CardCapture:
    """Captures one card face at a time from successive frames (see the module docstring).

    ``aspect``: the cards' short / long side; ``needed``: frames the card must hold still;
    ``tolerance_px``: how far its corners may move between frames and still count as still;
    ``min_area``: the least share of the frame the card must cover; ``face_wh``: the size of
    captured faces (portrait, px)."""

    aspect: float = quads.CARD_ASPECT
    needed: int = 8
    tolerance_px: float = 3.0
    min_area: float = 0.01
    face_wh: tuple[int, int] = (315, 440)
    _last: NDArray[np.float64] | None = field(default=None, init=False, repr=False)
    _steady: int = field(default=0, init=False, repr=False)
    _waiting: bool = field(default=False, init=False, repr=False)

    def feed(self, frame: NDArray[np.uint8]) -> CaptureProgress:
        """One frame ((H, W, 3) uint8 BGR) -> the capture's progress."""
        outline = self.find(frame)
        if self._waiting:
            if outline is None:
                self._waiting = False
                return CaptureProgress(
                    "searching", 0, self.needed, None, None, "show the next card"
                )
            return CaptureProgress(
                "waiting", 0, self.needed, outline.astype(np.float32), None, "take the card away"
            )
        if outline is None:
            self._last, self._steady = None, 0
            return CaptureProgress(
                "searching", 0, self.needed, None, None, "show a card to the camera"
            )
        if self._last is not None and _moved(outline, self._last) <= self.tolerance_px:
            self._steady += 1
        else:
            self._steady = 1
        self._last = outline
        if self._steady < self.needed:
            return CaptureProgress(
                "steady", self._steady, self.needed, outline.astype(np.float32), None,
                f"hold still {self._steady}/{self.needed}",
            )  # fmt: skip
        face = appearance.rectify(frame, outline[None], self.face_wh)[0]
        self._last, self._steady, self._waiting = None, 0, True
        return CaptureProgress(
            "captured", self.needed, self.needed, outline.astype(np.float32), face, "captured"
        )

    def find(self, frame: NDArray[np.uint8]) -> NDArray[np.float64] | None:
        """The largest well-seen card outline in a frame ((4, 2) px, TL TR BR BL), or None."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        h, w = grey.shape[:2]
        best, best_area = None, self.min_area * h * w
        for o in quads.find_outlines(grey, aspect=self.aspect):
            if o.outline < 0.8 or float(o.support.min()) < 0.6:
                continue
            area = abs(float(cv2.contourArea(o.corners_px.reshape(-1, 1, 2))))
            if area > best_area:
                best, best_area = o.corners_px.astype(np.float64), area
        return best


def _moved(a: NDArray[np.float64], b: NDArray[np.float64]) -> float:
    """Largest corner move between two outlines (either way round), px."""
    return float(min(np.abs(a - b).max(), np.abs(np.roll(a, 2, axis=0) - b).max()))
