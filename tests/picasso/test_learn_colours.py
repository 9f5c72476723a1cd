"""``kit learn picasso`` with shapes of colours the default profile does not know (issue 25:
a learned kit reads no look worse than the default): the measured colours name the shapes;
they do not become the reader's colour classes.

The look: a development look of our renderer (look seed 100009 of
``pictable.bench.readers.picasso_learn``: a black string, light wood) with its shapes in a
palette of neither look group (``PROBE_PALETTES["deep"]``: lime, sky, magenta, navy).
With the measured colours as classes, the pale blended rim of a navy circle, between it and
the black string across it, read as a shape of the sky colour of its own (board 3 of that
look: 4 shapes for 3)."""

from __future__ import annotations

import numpy as np
import pytest

from pictable.bench.readers.picasso_learn import BOARD_STRIDE, _renderer_look, kit_scene
from vision.picasso import BoardReading, read_board
from vision.picasso.learn import LearnedKit, learn_kit
from vision.picasso.profile import DEFAULT_PROFILE
from vision.synth import BoardLook, random_picasso_board, render_scene

Board = tuple[np.ndarray, dict[str, int]]

LOOK_SEED = 100009


@pytest.fixture(scope="module")
def look() -> BoardLook:
    return _renderer_look("dev", LOOK_SEED, "deep")


@pytest.fixture(scope="module")
def learned(look: BoardLook) -> LearnedKit:
    frame, _ = render_scene(kit_scene(LOOK_SEED, look), seed=LOOK_SEED)
    result = learn_kit(frame)
    assert isinstance(result, LearnedKit), result
    return result


@pytest.fixture(scope="module")
def board(look: BoardLook) -> Board:
    s = LOOK_SEED * BOARD_STRIDE + 3
    spec = random_picasso_board(np.random.default_rng(s), "normal", look=look)
    frame, truth = render_scene(spec, seed=s)
    assert truth.board is not None
    return frame, dict(truth.board.counts)


def test_the_measured_colours_name_and_do_not_classify(learned: LearnedKit) -> None:
    p = learned.profile
    assert p.colours == DEFAULT_PROFILE.colours
    assert p.seen is not None and len(p.seen.colours) == 4
    assert dict(p.seen.colours) != DEFAULT_PROFILE.colours


def test_the_board_reads_as_with_the_default_and_names_the_kits_colours(
    learned: LearnedKit, board: Board
) -> None:
    frame, counts = board
    by_default = read_board(frame)
    by_learned = read_board(frame, profile=learned.profile)
    assert isinstance(by_default, BoardReading) and isinstance(by_learned, BoardReading)
    assert by_learned.counts == by_default.counts == counts
    names = {name for name, _ in learned.profile.seen.colours}  # type: ignore[union-attr]
    assert {sh.colour for sh in by_learned.shapes} <= names


def test_as_classes_the_measured_colours_found_a_rim_for_a_shape(
    learned: LearnedKit, board: Board
) -> None:
    """The failure this mends: the measured colours as the reader's classes."""
    frame, counts = board
    p = learned.profile
    assert p.seen is not None
    as_classes = p.with_changes(colours=dict(p.seen.colours), seen=None)
    reading = read_board(frame, profile=as_classes)
    assert isinstance(reading, BoardReading)
    assert reading.counts is not None and reading.counts["shape"] == counts["shape"] + 1
