"""Issue 25: the reader counts by the pieces' geometry, colour only a hint. Boards of the
second drawer (``pictable.bench.drawers.picasso_board``, plain OpenCV) in development looks
that the colour classes alone read wrong (the figure before each mechanism is in its test's
docstring), each naming the mechanism that reads it now: sticks painted a shape's colour,
dark wood, pale wood on a cream canvas, a string the colour of wood, a dark line along a
stick."""

from __future__ import annotations

import numpy as np
import pytest

from pictable.bench.drawers.picasso_board import Board, Look, board_look, draw_board
from vision.picasso import BoardReading, read_board
from vision.picasso.roles import hue_name


def _read(seed: int, look: Look | None = None) -> tuple[Board, BoardReading]:
    b = draw_board(seed, look=look if look is not None else board_look(seed, "dev"))
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading), reading
    return b, reading


def _exact(b: Board, reading: BoardReading) -> None:
    assert not b.hand
    assert not reading.occluded, reading.occlusion
    assert reading.counts == b.counts, (b.look, b.pieces)
    assert reading.cost == b.cost


@pytest.mark.parametrize("seed", [38, 68])
def test_sticks_painted_a_shape_colour_are_sticks(seed: int) -> None:
    """Painted red or blue sticks read as the kit's red or blue: their patches are bars, so
    they are wood (before: every painted stick read as a shape, 0 sticks on both boards)."""
    b, reading = _read(seed)
    assert b.look.wood.startswith("painted-")
    _exact(b, reading)


@pytest.mark.parametrize("seed", [0, 22])
def test_dark_wood_is_sticks_not_a_dark_object(seed: int) -> None:
    """Dark wood reads as the string's dark class: wood and dark together, mostly dark bars,
    are sticks (before: both boards reported occluded by a 'dark object')."""
    b, reading = _read(seed)
    assert b.look.wood == "dark"
    _exact(b, reading)


def test_pale_wood_on_a_cream_canvas_is_wood() -> None:
    """Light wood on a cream canvas reads, relative to the canvas, almost as canvas: the bars
    of the whole ink make it wood (before: 3 long sticks of 5 and 5 shorts of 4)."""
    b, reading = _read(54)
    assert (b.look.wood, b.look.canvas) == ("light", "cream")
    _exact(b, reading)


def test_a_string_the_colour_of_wood_is_the_string() -> None:
    """A red-brown cord reads as wood by its colour: a line too thin for a stick is the
    string, and is not cut into a stick where it crosses one (before: no string)."""
    b, reading = _read(11)
    assert b.look.string == "red-brown"
    _exact(b, reading)
    assert reading.string is not None


def test_a_blue_string_is_the_string_not_sticks() -> None:
    """A blue string, the colour of the kit's blue shapes, lying doubled on itself: the
    string, not sticks (before the pixel model: the two strands side by side, as wide as a
    stick, read as 4 short sticks)."""
    look = Look(string="blue")
    b, reading = _read(101, look)
    assert b.counts["string"] == 1
    _exact(b, reading)


def test_a_dark_line_along_a_stick_is_not_a_string() -> None:
    """Dark wood's edges and drop shadows draw thin dark lines along every stick: lines
    hugging a piece's edge are not the string (before: a string read on a board without
    one)."""
    b, reading = _read(34)
    assert b.look.wood == "dark"
    assert b.counts["string"] == 0
    _exact(b, reading)


def test_the_kit_look_still_reads() -> None:
    """The same pieces in KIT.md's look read as before."""
    b, reading = _read(38, Look())
    _exact(b, reading)


@pytest.mark.parametrize(
    ("lab", "name"),
    [
        ((62.0, 45.0, 65.0), "orange"),
        ((35.0, 45.0, -35.0), "purple"),
        ((55.0, -30.0, -8.0), "teal"),
        ((45.0, 62.0, 42.0), "red"),
    ],
)
def test_a_shape_colour_the_profile_lacks_is_named_by_its_hue(
    lab: tuple[float, float, float], name: str
) -> None:
    assert hue_name(np.asarray(lab, np.float32)) == name
