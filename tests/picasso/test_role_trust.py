"""A stick or a string of an unusual look among pieces the colour table knows: the table is
trusted only where the pixel model confirms it for each role, and what the classes call
"other" inside the canvas, too small for a hand, does not cut a stick.

Boards of the second drawer (``pictable.bench.drawers.picasso_board``) in development looks,
seeds of the benchmark's run seed 0 and 5 (``measure``: board ``i`` of run seed ``r`` is seed
``r * 100_003 + i``).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pictable.bench.drawers.picasso_board import board_look, draw_board
from tests.picasso.helpers import segmentation_of
from vision.picasso import BoardReading, read_board
from vision.picasso import pixel_model as pm
from vision.picasso import segment as seg
from vision.picasso.occlusion import INNER_RADIUS_MM, stray_patches


def _board(seed: int):
    b = draw_board(seed, look=board_look(seed, "dev"))
    assert not b.hand
    return b


def test_the_table_is_not_trusted_when_the_sticks_alone_disagree() -> None:
    """Shapes agree, the few stick pixels do not: the table is not used."""
    cls = np.zeros((100, 100), np.uint8)
    table = np.zeros((100, 100), np.uint8)
    cls[10:60, 10:60] = pm.SHAPE
    table[10:60, 10:60] = seg.FIRST_COLOUR
    cls[70:75, 10:60] = pm.STICK  # 250 stick pixels, 30% of them wood in the table
    table[70:75, 10:25] = seg.WOOD
    assert seg.table_agreement(table, cls) >= seg.TABLE_TRUSTED
    assert not seg.table_trusted(table, cls)
    table[70:75, 10:60] = seg.WOOD
    assert seg.table_trusted(table, cls)
    # too few stick pixels to judge: the whole decides
    cls[70:75, 10:60] = pm.CANVAS
    cls[70:72, 10:25] = pm.STICK
    table[70:75, 10:60] = seg.CANVAS
    assert seg.table_trusted(table, cls)


def test_the_table_is_not_trusted_when_it_misses_the_string() -> None:
    cls = np.zeros((100, 100), np.uint8)
    table = np.zeros((100, 100), np.uint8)
    cls[10:60, 10:60] = pm.SHAPE
    table[10:60, 10:60] = seg.FIRST_COLOUR
    cls[80, 5:95] = pm.STRING  # a white string: canvas in the table
    assert not seg.table_trusted(table, cls)


@pytest.mark.parametrize(
    "seed",
    [
        10,  # a lone short stick of light wood on a cream canvas, beside three shapes
        5 * 100_003 + 130,  # a short stick painted the shapes' red, the string across it
    ],
)
def test_a_stick_the_table_misreads_among_known_shapes_is_counted(seed: int) -> None:
    b = _board(seed)
    assert segmentation_of(b.frame).source == "model"
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == b.counts


def test_stray_patches_are_the_small_ones_inside_the_canvas() -> None:
    s = 1.5
    other = np.zeros((390, 540), np.uint8)
    other[100:115, 100:140] = 1  # 10 x 27 mm inside: stray
    other[0:40, 300:330] = 1  # at the edge: an arm's, not stray
    r = round(INNER_RADIUS_MM * s) + 6
    cv2.circle(other, (400, 250), r, 1, -1)  # a palm inside: not stray
    got = stray_patches(other, s)
    assert got[100:115, 100:140].all()
    assert not got[0:40, 300:330].any()
    assert not got[250, 400]
    assert int(got.sum()) == 15 * 40


def test_a_stick_partly_read_as_other_is_counted_whole() -> None:
    """A long stick of a pale, greyish wood that the model calls "other" over part of its
    length: read as a long stick, not two short ones. (Before ``stray_patches`` it read 3
    long and 6 short; since a stick is named by what its length could be and halves
    overlapping in line are joined, it reads right without that rule too.)"""
    b = _board(5 * 100_003 + 17)
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == b.counts


def test_a_shape_cut_by_a_painted_stick_is_one_shape() -> None:
    """Our renderer, development looks, run seed 3 board 93: a blue square with a red
    painted stick across it and the string over both. Its two parts are one square
    (``shapes.join_split``): their hull is 10% bare canvas (the string, the stick's rim), and
    the larger part alone passes for a half-circle better than the whole for a square."""
    from vision.picasso.dataset import render_board, scene_seed

    frame, truth = render_board("normal", scene_seed(3, 93), looks="dev")
    assert truth.board is not None and truth.board.canvas_hand_fraction == 0.0
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == truth.board.counts
    assert reading.counts["shape"] == 2


def test_a_bar_the_model_calls_the_string_is_not_a_stick() -> None:
    from vision.picasso.roles import InkBars
    from vision.picasso.segment import not_string

    patch = np.zeros((100, 150), np.int32)
    patch[10:14, 10:140] = 1  # a bar the model calls the string
    patch[40:46, 10:100] = 2  # a bar it calls a stick
    patch[70:74, 10:100] = 3  # a bar it calls the string over a third only
    half = np.full(patch.shape, pm.CANVAS, np.uint8)
    half[10:14, 10:140] = pm.STRING
    half[40:46, 10:100] = pm.STICK
    half[70:74, 10:40] = pm.STRING
    bars = InkBars((patch > 0).astype(np.uint8), patch)
    got = not_string(bars, half)
    assert not got.mask[10:14].any()
    assert got.mask[40:46, 10:100].all()
    assert got.mask[70:74, 10:100].all()
    assert set(np.unique(got.patch)) == {0, 2, 3}


def test_a_blurred_string_loop_is_not_read_as_sticks() -> None:
    """Hard run seed 0, board 23: a grey string blurred to a stick's width, with a pale rim,
    made bars the colour table turned to wood (12 short sticks and no string were read)."""
    from vision.picasso.dataset import render_board, scene_seed

    frame, truth = render_board("hard", scene_seed(0, 23))
    assert truth.board is not None and truth.board.canvas_hand_fraction == 0.0
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == truth.board.counts
    assert reading.string is not None


def test_the_table_is_not_trusted_when_it_gives_sticks_a_shapes_colour() -> None:
    """Yellow or honey wood whose middle the table reads as a yellow shape: the model calls
    those pixels a stick, and the table, which would make shapes of them, is not used."""
    cls = np.zeros((100, 100), np.uint8)
    table = np.zeros((100, 100), np.uint8)
    cls[10:30, 10:30] = pm.SHAPE  # a true shape, 400 px
    table[10:30, 10:30] = seg.FIRST_COLOUR
    cls[60:70, 5:95] = pm.STICK  # a stick of plain wood
    table[60:70, 5:95] = seg.WOOD
    cls[80:90, 5:95] = pm.STICK  # a stick: wood rims, a yellow middle one pixel wide
    table[80:90, 5:95] = seg.WOOD
    table[85, 5:95] = seg.FIRST_COLOUR + 2
    # 90 of the 490 shape-coloured pixels are a stick's: trusted
    assert seg.table_trusted(table, cls)
    table[84:86, 5:95] = seg.FIRST_COLOUR + 2  # 180 of 580: over PAINTED_SHARE
    assert seg.PAINTED_SHARE < 180 / 580
    # (the table agrees with the model on 92% of the pieces, 90% of the sticks)
    assert seg.table_agreement(table, cls) >= seg.TABLE_TRUSTED
    assert not seg.table_trusted(table, cls)


@pytest.mark.parametrize(
    "index",
    [
        5,  # five long and five short sticks of a yellow wood, one green triangle
        87,  # orange-red wood on white paper, a red shape colour in its middle
    ],
)
def test_sticks_the_table_names_a_shape_colour_are_counted(index: int) -> None:
    """Boards of our renderer in the wide development looks (``vision.synth.looks``, run seed
    1 of ``pictable.bench.readers.picasso``): before ``segment.PAINTED_SHARE``, the table
    was trusted and these sticks became shapes (5 and 3 of them)."""
    from vision.picasso.dataset import render_board, scene_seed

    frame, truth = render_board("normal", scene_seed(1, index), looks="wide")
    board = truth.to_json()["board"]
    assert segmentation_of(frame).source == "model"
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == {k: int(board["counts"].get(k, 0)) for k in reading.counts}


def test_the_table_is_not_trusted_when_one_colour_is_a_sticks() -> None:
    """Red-brown sticks that the table calls red, among shapes of other colours: a small
    share of all the shape-coloured pixels, but every red pixel is a stick's to the model
    (``segment.PAINTED_MIN_PX``, colour by colour)."""
    cls = np.zeros((100, 100), np.uint8)
    table = np.zeros((100, 100), np.uint8)
    cls[5:45, 5:45] = pm.SHAPE  # three true shapes, 1,600 px
    table[5:45, 5:45] = seg.FIRST_COLOUR + 1
    cls[60:70, 5:30] = pm.STICK  # a red-brown stick: 250 px of red
    table[60:70, 5:30] = seg.FIRST_COLOUR
    assert seg.PAINTED_SHARE * (1600 + 250) >= 250  # (not over the share of all colours)
    assert not seg.table_trusted(table, cls)
    table[60:70, 5:30] = seg.WOOD  # the table knows the wood: trusted
    assert seg.table_trusted(table, cls)


def test_red_brown_sticks_among_shapes_of_other_colours_are_counted() -> None:
    from .boards import board_without_hand

    frame, want = board_without_hand("project", "normal", 4, 18, "wide")
    assert segmentation_of(frame).source == "model"
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == want
