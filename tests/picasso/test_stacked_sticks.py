"""Two sticks nearly in one direction whose rectangles share most of the smaller are never
both taken by the stick selection (``stick_selection.STACKED_*``): one would lie on the
other along most of its length. A line fanned out a few degrees from a stick's end in a
heap explains a sliver of wood beside the stick, enough to be worth a stick of its own by
the cover alone; the rule keeps the stick only."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.picasso import stick_selection as sel
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.stick_lines import WOOD_PX, _Candidate, _Line

S = 1.5


def _bar(img: np.ndarray, p0: tuple[float, float], angle_deg: float, length: float) -> None:
    a = math.radians(angle_deg)
    p1 = (p0[0] + length * math.cos(a), p0[1] + length * math.sin(a))
    cv2.line(
        img,
        (round(p0[0] * S), round(p0[1] * S)),
        (round(p1[0] * S), round(p1[1] * S)),
        WOOD_PX,
        round(8 * S),
    )


def _cand(p0: tuple[float, float], angle_deg: float, length: float) -> _Candidate:
    return _Candidate(_Line(p0[0] * S, p0[1] * S, math.radians(angle_deg)), 0.0, length)


def _fan() -> tuple[np.ndarray, list[_Candidate]]:
    """A short stick along x from (100, 100) mm, and beside its far end the wood of a heap
    (a second bar 10 degrees off, as a fanned line would find)."""
    wm = np.zeros((round(200 * S), round(250 * S)), np.uint8)
    _bar(wm, (100.0, 100.0), 0.0, 50.0)
    _bar(wm, (100.0, 100.0), 10.0, 48.0)
    return wm, [_cand((100.0, 100.0), 0.0, 50.0), _cand((100.0, 100.0), 10.0, 48.0)]


def test_a_line_fanned_from_a_stick_is_not_a_second_stick() -> None:
    wm, cands = _fan()
    chosen = sel._choose(cands, (wm == WOOD_PX).astype(np.uint8), wm, S, DEFAULT_PROFILE)
    assert len(chosen) == 1


def test_without_the_rule_both_would_be_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    """The case is one the rule decides: the cover alone takes both."""
    monkeypatch.setattr(sel, "STACKED_SHARE", 2.0)
    wm, cands = _fan()
    chosen = sel._choose(cands, (wm == WOOD_PX).astype(np.uint8), wm, S, DEFAULT_PROFILE)
    assert len(chosen) == 2


@pytest.mark.parametrize(
    "second",
    [
        pytest.param(((110.0, 80.0), 70.0), id="crossing"),
        # parallel and 11 mm apart (3 mm of canvas between them): no overlap
        pytest.param(((100.0, 111.0), 0.0), id="side-by-side"),
    ],
)
def test_two_sticks_crossing_or_side_by_side_are_both_taken(second) -> None:
    (p0, angle) = second
    wm = np.zeros((round(200 * S), round(250 * S)), np.uint8)
    _bar(wm, (100.0, 100.0), 0.0, 50.0)
    _bar(wm, p0, angle, 50.0)
    cands = [_cand((100.0, 100.0), 0.0, 50.0), _cand(p0, angle, 50.0)]
    chosen = sel._choose(cands, (wm == WOOD_PX).astype(np.uint8), wm, S, DEFAULT_PROFILE)
    assert sorted(chosen) == [0, 1]


def _twice(off_mm: float, turn_deg: float) -> tuple[np.ndarray, list[_Candidate]]:
    """One long stick found twice: a second line ``turn_deg`` off it from an end
    ``off_mm`` to its side (the wood of both drawn, as a blurred heap widens a stick)."""
    wm = np.zeros((round(200 * S), round(250 * S)), np.uint8)
    _bar(wm, (60.0, 100.0), 0.0, 100.0)
    _bar(wm, (60.0, 100.0 + off_mm), -turn_deg, 100.0)
    return wm, [_cand((60.0, 100.0), 0.0, 100.0), _cand((60.0, 100.0 + off_mm), -turn_deg, 100.0)]


@pytest.mark.parametrize("turn", [1.0, 3.0, 5.0])
@pytest.mark.parametrize("off", [4.0, 4.5])
def test_a_stick_found_twice_nearly_in_line_is_one_stick(
    off: float, turn: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hard run seed 0, boards 26 and 70: two candidates of one long stick, 1-5 degrees
    apart, their ends 2-5.4 mm apart, were both taken once the picture's edges proposed
    more lines in heaps; the rule held from 4 degrees and for ends within 3 mm. One is taken
    now; with the rule as it was, both."""
    wm, cands = _twice(off, turn)
    wood = (wm == WOOD_PX).astype(np.uint8)
    assert len(sel._choose(cands, wood, wm, S, DEFAULT_PROFILE)) == 1
    monkeypatch.setattr(sel, "STACKED_DEG", (4.0, 12.0))
    monkeypatch.setattr(sel, "STACKED_END_MM", 3.0)
    assert len(sel._choose(cands, wood, wm, S, DEFAULT_PROFILE)) == 2
