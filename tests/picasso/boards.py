"""Development boards that Picasso tests read whole, with no hand over the canvas: the
frame and the true counts, from our renderer or the second drawer."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pictable.bench.drawers.picasso_board import board_look, draw_board
from vision.picasso import BoardReading, read_board
from vision.picasso.dataset import render_board, scene_seed


def board_without_hand(
    who: str, tier: str, seed: int, index: int, looks: str | None
) -> tuple[np.ndarray, dict[str, int]]:
    """Board ``index`` of run ``seed`` (``who``: ``"second"``, the second drawer's default
    tier; anything else, our renderer at ``tier``) in looks ``looks``: (frame, counts).
    Asserts that no hand lies over the canvas (the tests compare every count)."""
    if who == "second":
        b = draw_board(seed * 100_003 + index, look=board_look(seed * 100_003 + index, looks))
        assert not b.hand
        return b.frame, dict(b.counts)
    frame, truth = render_board(tier, scene_seed(seed, index), looks=looks)
    assert truth.board is not None and truth.board.canvas_hand_fraction == 0
    return frame, dict(truth.board.counts)


def read_without_hand(
    case: tuple[str, str, int, int, str | None],
) -> tuple[BoardReading, dict[str, int]]:
    """``board_without_hand(*case)`` read: (reading, true counts); asserts that a board was
    found and not reported occluded."""
    frame, want = board_without_hand(*case)
    reading = read_board(frame)
    assert isinstance(reading, BoardReading) and not reading.occluded
    return reading, want


def read_now_and_before(
    case: tuple[str, str, int, int, str | None],
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    name: str,
    before: Any,
) -> tuple[BoardReading, dict[str, int], BoardReading]:
    """``read_without_hand(case)`` as the reader is, then with ``module.name`` set back to
    ``before`` (what a change moved): (reading now, true counts, reading before)."""
    now, want = read_without_hand(case)
    monkeypatch.setattr(module, name, before)
    then, _ = read_without_hand(case)
    return now, want, then
