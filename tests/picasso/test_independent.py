"""The reader on boards drawn by another hand (``tests.picasso.independent``: plain OpenCV
drawing from KIT.md's sizes, not ``vision.synth``): counted right, or reported occluded
when a hand covers the canvas."""

from __future__ import annotations

import pytest

from pictable.bench.drawers.picasso_board import Board, draw_board
from vision.picasso import BoardReading, read_board

# (seed, hand, string): fixed scenes of the drawer, with and without the string and a hand.
SCENES = [(101, False, True), (102, False, False), (103, False, True), (104, True, True)]


@pytest.fixture(scope="module")
def boards() -> dict[int, Board]:
    return {seed: draw_board(seed, hand=hand, string=string) for seed, hand, string in SCENES}


@pytest.mark.parametrize(("seed", "hand", "string"), SCENES)
def test_drawn_board_is_read(boards: dict[int, Board], seed: int, hand: bool, string: bool) -> None:
    b = boards[seed]
    assert b.hand == hand
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading), reading
    if hand:
        assert reading.occluded
        assert reading.counts is None and reading.cost is None
        return
    assert not reading.occluded
    assert reading.counts == b.counts, b.pieces
    assert reading.cost == b.cost
    assert (reading.string is not None) == string


def test_the_drawer_makes_crossings_and_a_string() -> None:
    """The drawn set exercises what the issue names: crossed sticks, the string over them."""
    drawn = [draw_board(seed, hand=False, string=True) for seed in (101, 103)]
    assert max(b.crossings for b in drawn) >= 2
    assert all(b.counts["string"] == 1 for b in drawn)
    assert all(b.frame.shape == (720, 1280, 3) for b in drawn)
