"""The Picasso board reader (issue 6): sticks, shapes and the string on the canvas, counted
and costed, from one camera frame. See ``vision.picasso.reader`` for the steps."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.result import Failure
from vision.picasso.learn import LearnedKit, learn_kit, run_kit_learn
from vision.picasso.profile import DEFAULT_PROFILE, KitProfile, ProfileError, load_profile
from vision.picasso.reader import read_board
from vision.picasso.reading import BoardReading, Cord, Occlusion, Shape, Stick
from vision.picasso.sink import failure_to_json, reading_to_json


def analyze_frame(frame: NDArray[np.uint8]) -> dict[str, Any]:
    """The ``analyze picasso`` JSON entry (without ``image``) of one frame, default kit, no
    camera calibration: what ``pictable bench`` runs."""
    reading = read_board(frame)
    if isinstance(reading, Failure):
        return failure_to_json(reading)
    return reading_to_json(reading)


__all__ = [
    "DEFAULT_PROFILE",
    "BoardReading",
    "Cord",
    "KitProfile",
    "LearnedKit",
    "Occlusion",
    "ProfileError",
    "Shape",
    "Stick",
    "analyze_frame",
    "failure_to_json",
    "learn_kit",
    "load_profile",
    "read_board",
    "reading_to_json",
    "run_kit_learn",
]
