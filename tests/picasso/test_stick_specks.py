"""Specks of a shape colour in a stick's wood (issue 25): reddish or yellowish wood reads
in the colour table as wood sprinkled with specks of the red or yellow shapes' colour, and
each speck was a hole in the wood the stick search measures across. Small patches of a
shape colour that the pixel model calls stick, in the table's wood and clear of any larger
patch of a shape colour, are unknown to the stick search (``shapes.stick_specks``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.picasso import pixel_model as pm
from vision.picasso import shapes
from vision.picasso.profile import DEFAULT_PROFILE

from .boards import read_now_and_before

S = 1.5

# (drawer, tier, run seed, board, looks): development boards read wrong for such specks.
CASES = [
    ("ours", "hard", 0, 57, None),  # the kit look: a short stick too many
    ("ours", "normal", 6, 53, "wide"),  # a long stick read as a short one
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_a_board_with_speckled_sticks_is_counted(
    case: tuple[str, str, int, int, str | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    reading, want, before = read_now_and_before(case, monkeypatch, shapes, "SPECK_AREA_SHARE", 0.0)
    assert reading.counts == want
    assert before.counts != want


def _maps() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stick 8 mm wide and 50 mm long (wood) the model calls stick, speckled with 1 mm
    specks of a shape colour; (colour, wood, model classes at half resolution)."""
    h, w = round(100 * S), round(150 * S)
    wood = np.zeros((h, w), np.uint8)
    colour = np.zeros((h, w), np.uint8)
    y0, y1 = round(46 * S), round(54 * S)
    x0, x1 = round(50 * S), round(100 * S)
    wood[y0:y1, x0:x1] = 1
    for x in range(x0 + 4, x1 - 4, 9):
        colour[y0 + 4 : y0 + 6, x : x + 2] = 1
    wood[colour > 0] = 0
    model = np.full(((h + 1) // 2, (w + 1) // 2), pm.CANVAS, np.uint8)
    model[y0 // 2 : (y1 + 1) // 2, x0 // 2 : (x1 + 1) // 2] = pm.STICK
    return colour, wood, model


def test_specks_in_a_sticks_wood_are_unknown() -> None:
    colour, wood, model = _maps()
    out = shapes.stick_specks(colour, wood, model, S, DEFAULT_PROFILE)
    assert out.dtype == np.uint8 and out.shape == colour.shape
    assert (out > 0).sum() == (colour > 0).sum()


def test_specks_the_model_calls_no_stick_stay_colour() -> None:
    colour, wood, model = _maps()
    model[:] = pm.SHAPE
    assert not shapes.stick_specks(colour, wood, model, S, DEFAULT_PROFILE).any()


def test_specks_out_of_the_wood_stay_colour() -> None:
    """Specks among what the table calls anything but wood (the string, a shape's rim)."""
    colour, wood, model = _maps()
    wood[:] = 0
    assert not shapes.stick_specks(colour, wood, model, S, DEFAULT_PROFILE).any()


def test_specks_beside_a_shape_stay_colour() -> None:
    """A shape (a patch of a kit shape's size) under the stick's lower side, 2-3 mm from
    the specks: they are its rim's."""
    colour, wood, model = _maps()
    colour[round(52 * S) : round(82 * S), round(50 * S) : round(100 * S)] = 1
    wood[colour > 0] = 0
    out = shapes.stick_specks(colour, wood, model, S, DEFAULT_PROFILE)
    assert not out.any()


def test_a_whole_shape_the_model_calls_stick_stays_colour() -> None:
    colour, wood, model = _maps()
    colour[:] = 0
    colour[round(40 * S) : round(70 * S), round(60 * S) : round(90 * S)] = 1
    wood[:] = 1
    wood[colour > 0] = 0
    model[:] = pm.STICK
    assert not shapes.stick_specks(colour, wood, model, S, DEFAULT_PROFILE).any()
