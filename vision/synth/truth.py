"""Ground truth of a rendered frame: frozen dataclasses and their one JSON codec.

Pixel coordinates follow OpenCV (pixel centres at integers) and match
``cv2.projectPoints`` with the recorded camera. Table points are table-frame mm (see
``vision.synth.camera``), board points are board mm (origin at the canvas top-left
corner, x right, y down).

Fractions are measured on the rendered label buffers (2x supersampled), not guessed:

- ``visible_fraction``: share of the object's whole area that is on top in the frame
  (covered by other objects, hands or the frame edge all reduce it);
- ``in_frame_fraction``: share inside the frame when nothing covers it;
- ``hand_fraction``: share of the object's area hidden by hands (or arms).

Serialisation lives here only: ``Truth.to_json()`` gives plain JSON types,
``Truth.from_json(obj)`` reads it back (``from_json(t.to_json()).to_json() ==
t.to_json()``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: An item shows on a Picmix card when at least this share of its half is visible.
PICMIX_VISIBLE_MIN = 0.5


def _f64() -> dict[str, str]:
    return {"dtype": "float64"}


@dataclass(frozen=True, eq=False)
class CameraTruth:
    """Camera: ``K`` (3, 3), ``dist`` (5,) (k1, k2, p1, p2, k3), ``rvec``/``tvec`` (3,)
    table -> camera (mm), all float64; pose figures in mm and degrees."""

    K: np.ndarray = field(metadata=_f64())
    dist: np.ndarray = field(metadata=_f64())
    rvec: np.ndarray = field(metadata=_f64())
    tvec: np.ndarray = field(metadata=_f64())
    image_size_wh: tuple[int, int]
    height_mm: float
    tilt_deg: float
    yaw_deg: float
    roll_deg: float
    hfov_deg: float
    target_mm: tuple[float, float]


@dataclass(frozen=True, eq=False)
class HalfTruth:
    """One half of a Picmix player card face: its item and how much of it shows."""

    half: str
    item: str
    visible_fraction: float


@dataclass(frozen=True, eq=False)
class CardTruth:
    """A card. ``corners_px``/``corners_mm`` (4, 2) float32, TL, TR, BR, BL of the card
    face as printed (upright); ``heights_mm`` (4,) float32 above the table (0: lying).
    ``halves``: a Picmix player card's visible face, per half; ``items``: a face-up Picmix
    objective card's items."""

    card_id: str
    face: str
    corners_px: np.ndarray
    corners_mm: np.ndarray
    heights_mm: np.ndarray
    visible_fraction: float
    in_frame_fraction: float
    hand_fraction: float
    held: bool
    area: str | None
    halves: tuple[HalfTruth, ...]
    items: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class MarkerTruth:
    """An ArUco marker (DICT_4X4_50): ``corners_px``/``corners_mm`` (4, 2) float32 of the
    black square in ArUco order (TL, TR, BR, BL of the marker image)."""

    marker_id: int
    size_mm: float
    corners_px: np.ndarray
    corners_mm: np.ndarray
    visible_fraction: float
    hand_fraction: float
    on_board: bool


@dataclass(frozen=True, eq=False)
class PieceTruth:
    """A Picasso piece, in board mm (and pixels).

    ``endpoints_mm`` (2, 2) for sticks (centre-line ends), ``polygon_mm`` (N, 2) for
    sticks and shapes, ``polyline_mm`` (N, 2) for the string; absent ones are (0, 2).
    The ``_px`` arrays are the same points projected to the frame.
    """

    kind: str
    shape: str | None
    colour: str | None
    on_canvas: bool
    endpoints_mm: np.ndarray
    polygon_mm: np.ndarray
    polyline_mm: np.ndarray
    endpoints_px: np.ndarray
    polygon_px: np.ndarray
    polyline_px: np.ndarray
    length_mm: float
    visible_fraction: float
    hand_fraction: float


@dataclass(frozen=True, eq=False)
class BoardTruth:
    """The Picasso board: canvas corners (4, 2) float32 TL, TR, BR, BL in px and table mm,
    every piece, and what a perfect reader should report for the canvas."""

    canvas_corners_px: np.ndarray
    canvas_corners_mm: np.ndarray
    center_mm: tuple[float, float]
    angle_deg: float
    canvas_visible_fraction: float
    canvas_hand_fraction: float
    pieces: tuple[PieceTruth, ...]
    counts: dict[str, int]
    cost: int
    glare: float = 0.0  # the peak of a glare over the board (0: none)


@dataclass(frozen=True, eq=False)
class PicmixItemTruth:
    """An item printed on a card of a Picmix area and how much of it shows."""

    item: str
    card_id: str
    half: str
    visible_fraction: float


@dataclass(frozen=True, eq=False)
class PicmixAreaTruth:
    """A Picmix player's area: every printed item with its visibility, and the distinct
    items that show (``visible_fraction >= PICMIX_VISIBLE_MIN``), sorted."""

    player: str
    card_ids: tuple[str, ...]
    items: tuple[PicmixItemTruth, ...]
    visible_items: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class HandTruth:
    """A hand: fingertip table point (mm), pointing direction (deg), height (mm), and
    the share of the frame it covers."""

    tip_mm: tuple[float, float]
    angle_deg: float
    height_mm: float
    frame_fraction: float
    holding: str | None


@dataclass(frozen=True, eq=False)
class Truth:
    """Everything known about one rendered frame."""

    image_size_wh: tuple[int, int]
    tier: str
    seed: int
    provider: str
    camera: CameraTruth
    cards: tuple[CardTruth, ...]
    markers: tuple[MarkerTruth, ...]
    board: BoardTruth | None
    picmix_areas: tuple[PicmixAreaTruth, ...]
    hands: tuple[HandTruth, ...]
    effects: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types (dicts, lists, str, numbers, bools, None)."""
        out = _encode(self)
        if not isinstance(out, dict):
            raise TypeError("Truth must encode to a dict")
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Truth:
        """Inverse of ``to_json``."""
        value = _decode(cls, obj)
        if not isinstance(value, Truth):
            raise ValueError("not a Truth object")
        return value

    def card(self, card_id: str) -> CardTruth:
        """The truth of card ``card_id`` (``KeyError`` if absent)."""
        for c in self.cards:
            if c.card_id == card_id:
                return c
        raise KeyError(card_id)

    def marker(self, marker_id: int) -> MarkerTruth:
        """The truth of marker ``marker_id`` (``KeyError`` if absent)."""
        for m in self.markers:
            if m.marker_id == marker_id:
                return m
        raise KeyError(marker_id)


# --------------------------------------------------------------------------- codec


def _encode(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


def _decode(tp: Any, value: Any, meta: Any = None) -> Any:
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ValueError(f"{tp.__name__} must be a JSON object, got {type(value).__name__}")
        hints = typing.get_type_hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name not in value:
                if f.default is not dataclasses.MISSING:
                    continue  # a field added later, with its default
                raise ValueError(f"{tp.__name__} is missing {f.name!r}")
            kwargs[f.name] = _decode(hints[f.name], value[f.name], f.metadata)
        return tp(**kwargs)
    if tp is np.ndarray:
        dtype = np.float64 if meta and meta.get("dtype") == "float64" else np.float32
        arr = np.asarray(value, dtype=dtype)
        if arr.ndim == 1 and arr.size == 0 and dtype == np.float32:
            arr = arr.reshape(0, 2)
        return arr
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _decode(inner[0], value, meta)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        return tuple(_decode(a, v) for a, v in zip(args, value, strict=True))
    if origin is dict:
        return {str(k): _decode(args[1], v) for k, v in value.items()}
    if tp is float:
        return float(value)
    if tp is int:
        return int(value)
    return value
