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
from vision.picasso import reader as reader_module
from vision.picasso.learn import LearnedKit, learn_kit
from vision.picasso.profile import DEFAULT_PROFILE
from vision.picasso.reader import _seen_colour
from vision.picasso.reading import Shape
from vision.picasso.shapes import ShapePatch, measure
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
    learned: LearnedKit, board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failure this mends: the measured colours as the reader's classes found the
    blended rim round a dark shape as a shape of its own. Since 2026-12-06 the reader also
    counts a shape lying inside another's outline once (``shapes.without_nested``), which
    mends it a second way."""
    frame, counts = board
    p = learned.profile
    assert p.seen is not None
    as_classes = p.with_changes(colours=dict(p.seen.colours), seen=None)
    reading = read_board(frame, profile=as_classes)
    assert isinstance(reading, BoardReading) and reading.counts is not None
    assert reading.counts["shape"] == counts["shape"]
    monkeypatch.setattr(reader_module, "without_nested", list)
    reading = read_board(frame, profile=as_classes)
    assert isinstance(reading, BoardReading)
    assert reading.counts is not None and reading.counts["shape"] == counts["shape"] + 1


def _patch_of(bgr: tuple[int, int, int]) -> tuple[Shape, ShapePatch, np.ndarray]:
    """A 20 x 20 px patch of one colour on a normalised canvas (the canvas is 200 there),
    and a shape named "red" for it."""
    norm = np.full((40, 40, 3), 200, np.uint8)
    norm[10:30, 10:30] = bgr
    mask = np.ones((20, 20), np.uint8)
    geometry = measure(np.array([[[10, 10]], [[29, 10]], [[29, 29]], [[10, 29]]], np.int32), 1.0)
    patch = ShapePatch("red", np.zeros((4, 1, 2), np.int32), mask, (10, 10, 20, 20), geometry)
    shape = Shape("square", "red", (20.0, 20.0), np.zeros((4, 2), np.float32), 400.0)
    return shape, patch, norm


def test_a_shape_is_named_after_the_nearest_learned_colour_within_reach() -> None:
    """A pink patch is named "pink" (a learned colour); a yellow one, far from every learned
    colour (a colour the learning photo did not show), keeps the reader's own name."""
    learned = (("pink", (63.9, 68.0, -25.1)), ("navy", (23.7, 27.6, -52.6)))
    shape, patch, norm = _patch_of((170, 90, 235))  # BGR: pink
    assert _seen_colour(shape, patch, norm, learned).colour == "pink"
    shape, patch, norm = _patch_of((40, 200, 235))  # BGR: yellow
    assert _seen_colour(shape, patch, norm, learned).colour == "red"
