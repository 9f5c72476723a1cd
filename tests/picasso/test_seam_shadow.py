"""Issue 25: a stick lying over another casts its shadow across it a few millimetres off
its side; under a hard light on dark wood that dip is as deep as a seam's. A joint is not
looked for there (``seams.CROSS_MARGIN_MM``), so the stick underneath stays whole."""

from __future__ import annotations

import numpy as np

from vision.picasso import BoardReading, read_board
from vision.picasso.dataset import render_board, scene_seed
from vision.picasso.seams import CROSS_MARGIN_MM, _crosses


def test_a_crossing_stick_guards_its_side_and_margin() -> None:
    joint, d = np.array([50.0, 50.0]), np.array([1.0, 0.0])
    # another stick 8 mm wide crossing at right angles, its centre line x mm from the joint
    for x, crossed in ((5.0, True), (9.0, True), (9.6 + CROSS_MARGIN_MM - 0.5, True)):
        assert _crosses(joint, d, 8.0, (50.0 + x, 0.0), (50.0 + x, 100.0)) is crossed
    far = 50.0 + 9.6 + CROSS_MARGIN_MM + 0.5
    assert not _crosses(joint, d, 8.0, (far, 0.0), (far, 100.0))


def test_long_dark_stick_under_a_crossing_stick_in_hard_light_is_one_long_stick() -> None:
    """Board 39 of development-look run seed 3 (dark wood, hard shadows): the long stick
    under another was cut in two at the other's shadow, 13 mm from its centre line
    (before: 3 long and 7 short sticks read, 4 and 5 true)."""
    frame, truth = render_board("normal", scene_seed(3, 39), looks="dev")
    board = truth.to_json()["board"]
    reading = read_board(frame)
    assert isinstance(reading, BoardReading), reading
    assert reading.counts == board["counts"]
    assert reading.cost == board["cost"]
    assert not any(s.seam for s in reading.sticks)
