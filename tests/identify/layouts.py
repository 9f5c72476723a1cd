"""Rendered layouts of cards laid for registering (small frames, a few cards), shared by
tests/identify/test_capture_many.py and tests/cli/test_deck_capture.py; each frame rendered
once per session."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from vision.synth import (
    Camera,
    CardSpec,
    EffectsSpec,
    HandSpec,
    SceneSpec,
    TableSpec,
    Truth,
    render_scene,
)

#: The frames' size (small: the tests stay fast) and the camera over the table.
SIZE_WH = (640, 360)
#: Where the cards of a layout lie (table mm): a row of four, a second row of up to four.
PLACES = tuple((x, y) for y in (-55.0, 55.0) for x in (-135.0, -45.0, 45.0, 135.0))
TABLE = TableSpec("cloth", (70, 60, 50), 3)


def camera() -> Camera:
    """A webcam 420 mm over the table, tilted 8 degrees: cards about 70 px across."""
    return Camera.from_pose(height_mm=420.0, tilt_deg=8.0, size_wh=SIZE_WH)


def layout(cards: tuple[str, ...], **kw: Any) -> np.ndarray:
    """:func:`rendered`'s frame."""
    return rendered(cards, **kw)[0]


@functools.cache
def rendered(
    cards: tuple[str, ...],
    *,
    face: str = "front",
    defocus: float = 0.3,
    hand: bool = False,
    landscape: bool = False,
    seed: int = 0,
) -> tuple[np.ndarray, Truth]:
    """A frame ((360, 640, 3) uint8 BGR) of ``cards`` laid at :data:`PLACES` in order (turned
    a few degrees), face up (or ``face``), ``defocus`` px of blur, a ``hand`` reaching over
    the first card; ``landscape``: the cards' faces are 88 x 63 (Picmix player cards, laid
    apart a little more); and its truth."""
    places = [(x * 1.2, y * 1.25) for x, y in PLACES[:3]] if landscape else PLACES
    specs = tuple(
        CardSpec.flat(
            card_id, face, places[k], (-3.0, 2.0, 4.0, -2.0, 1.0, -4.0, 3.0, 0.0)[k],  # type: ignore[arg-type]
            size_wh_mm=(88.0, 63.0) if landscape else (63.0, 88.0),
        )
        for k, card_id in enumerate(cards)
    )  # fmt: skip
    hands = (HandSpec(tip_mm=places[0], angle_deg=-90.0, height_mm=40.0),) if hand else ()
    spec = SceneSpec(
        camera=camera(),
        table=TABLE,
        cards=specs,
        hands=hands,
        effects=EffectsSpec(noise_sigma=1.5, defocus_sigma_px=defocus, jpeg_quality=92),
    )
    return render_scene(spec, seed=seed)


def empty() -> np.ndarray:
    """The table with no card on it."""
    return layout(())


def truth_of(frame_cards: tuple[str, ...], corners: np.ndarray, **kw: Any) -> str | None:
    """The card of :func:`rendered`'s layout lying round ``corners`` (4, 2) px, or None."""
    centre = np.asarray(corners, np.float64).mean(axis=0)
    for t in rendered(frame_cards, **kw)[1].cards:
        c = np.asarray(t.corners_px, np.float64)
        if np.linalg.norm(c.mean(axis=0) - centre) < 0.5 * np.linalg.norm(c[1] - c[0]):
            return t.card_id
    return None
