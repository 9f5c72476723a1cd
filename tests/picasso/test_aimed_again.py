"""A first-round line of the stick search that finds no stretch is aimed again
(``sticks._aimed_again``, ``_new_sticks``): centred on its wood and measured, else turned
about its middle, as the second round's lines are, keeping stretches of a kit stick's length
that no other line found. In a heap the Hough line of a half-covered stick may lie a few
millimetres or degrees off it, and the band along it holds no clean stretch though the
stick's own does."""

from __future__ import annotations

import pytest

from vision.picasso import BoardReading, read_board
from vision.picasso import sticks as sticks_module
from vision.picasso.dataset import render_board, scene_seed

# (tier, looks, run seed, board): boards of the development sets this read right (wrong
# before: an extra short stick in a heap, a short one missed under two others)
BOARDS = [("normal", None, 0, 25), ("normal", "dev", 3, 58)]


def _read(tier: str, looks: str | None, run: int, board: int) -> tuple[dict, dict]:
    frame, truth = render_board(tier, scene_seed(run, board), looks=looks)
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert not reading.occluded
    want = truth.to_json()["board"]["counts"]
    return dict(reading.counts), {k: int(want.get(k, 0)) for k in reading.counts}


@pytest.mark.parametrize(("tier", "looks", "run", "board"), BOARDS)
def test_a_stick_in_a_heap_is_found_by_a_line_aimed_again(
    tier: str, looks: str | None, run: int, board: int
) -> None:
    got, want = _read(tier, looks, run, board)
    assert got == want


@pytest.mark.parametrize(("tier", "looks", "run", "board"), BOARDS)
def test_without_aiming_again_the_heap_reads_wrong(
    tier: str, looks: str | None, run: int, board: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sticks_module, "_aimed_again", lambda *a, **k: [])
    # the second round, run since on smaller leftovers, finds one of these sticks too
    # (``test_small_leftovers.py``): as it ran when this step came, from half a stick
    monkeypatch.setattr(sticks_module, "SECOND_ROUND_SHARE", 0.5)
    got, want = _read(tier, looks, run, board)
    assert got != want
    assert got["short_stick"] != want["short_stick"]


def test_a_stick_found_already_gets_no_second_candidate() -> None:
    """Hard run seed 0, board 37 as drawn before the hard tier had glare: a line aimed again
    found a short stick another line had found (ends 1-3 mm apart); the second candidate
    moved the selection, and a long stick elsewhere was read as two shorts."""
    got, want = _read_no_glare("hard", 0, 37)
    assert got == want


def _read_no_glare(tier: str, run: int, board: int) -> tuple[dict, dict]:
    frame, truth = render_board(tier, scene_seed(run, board), glare=False)
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    want = truth.to_json()["board"]["counts"]
    return dict(reading.counts), {k: int(want.get(k, 0)) for k in reading.counts}
