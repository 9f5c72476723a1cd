"""A short stick under two others in a heap (issue 25, the normal tier's most common miss):
each piece of it that shows is shorter than a stick's minimum, and the leftover wood it
leaves reaches as far in many directions through the heap. The second round of the stick
search then proposes more of those tied directions (``stick_proposals.SEED_TIED_LINES``),
and the measuring finds the one along the stick."""

from __future__ import annotations

import numpy as np

from vision.picasso import BoardReading, read_board
from vision.picasso.dataset import render_board, scene_seed
from vision.picasso.stick_lines import WOOD_PX
from vision.picasso.stick_proposals import SEED_TIED_LINES, _seed_lines


def test_a_short_stick_under_two_others_in_a_heap_is_counted() -> None:
    """Development looks, run seed 3, board 81: light wood on a cream canvas, a heap of two
    long and three short sticks; the short one crossed by a long and a short stick was
    missed (4 long, 2 short read)."""
    frame, truth = render_board("normal", scene_seed(3, 81), looks="dev")
    want = truth.to_json()["board"]["counts"]
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == want


def _heap_map(s: float) -> tuple[np.ndarray, np.ndarray]:
    """A wood map all wood round a small leftover patch (a heap), and the patch."""
    wood = np.full((200, 200), WOOD_PX, np.uint8)
    rest = np.zeros((200, 200), bool)
    rest[95:105, 95:105] = True
    return wood, rest


def test_tied_directions_in_a_heap_give_more_lines() -> None:
    s = 1.5
    wood, rest = _heap_map(s)
    lines = _seed_lines(wood, rest, s, 8.0)
    assert len(lines) == SEED_TIED_LINES
    angles = sorted(np.degrees(ln.angle) % 180 for ln, _, _ in lines)
    gaps = np.diff([*angles, angles[0] + 180])
    assert gaps.min() >= 15 - 1e-6
    assert gaps.max() <= 180 / SEED_TIED_LINES + 8  # spread over every direction


def test_a_patch_with_one_clear_direction_gives_two_lines_at_most() -> None:
    s = 1.5
    wood = np.zeros((200, 200), np.uint8)
    wood[95:107, 20:180] = WOOD_PX  # one bar along x
    rest = np.zeros((200, 200), bool)
    rest[97:105, 90:110] = True
    lines = _seed_lines(wood, rest, s, 8.0)
    assert lines
    for ln, _, _ in lines:  # along the bar (the wood reaches as far within about 16 degrees)
        a = np.degrees(ln.angle) % 180
        assert min(a, 180 - a) <= 20


def test_two_short_sticks_showing_little_of_their_own_in_a_heap_are_counted() -> None:
    """Development looks, run seed 3, board 82: painted red sticks, a heap of nine; two short
    sticks crossing the others each show 4-5 mm of middle band no other stick explains, and
    a 63 mm stretch over both was taken for one long stick (6 long, 3 short read; 5 and 5
    are there) while a stick had to show 5 mm of its own (``stick_selection.CORE_MIN_MM``)."""
    frame, truth = render_board("normal", scene_seed(3, 82), looks="dev")
    want = truth.to_json()["board"]["counts"]
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.counts == want
