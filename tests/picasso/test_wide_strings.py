"""What the pixel model calls the string but is a stick's width and straight is a stick
(``segment.wide_strings``): a faint stick under a glare, or blurred, where the model sees
only its darker middle. The string stays the string: thin, curved, or a straight stretch of
it that goes on as string beyond its ends (a blurred string laid straight is as wide as a
stick)."""

from __future__ import annotations

import cv2
import numpy as np

from pictable.bench.drawers.picasso_board import board_look, draw_board
from vision.picasso import BoardReading, read_board
from vision.picasso import segment as seg
from vision.picasso.profile import DEFAULT_PROFILE

S = 1.5


def _canvas() -> tuple[np.ndarray, np.ndarray]:
    h, w = round(200 * S), round(300 * S)
    return np.full((h, w, 3), seg.WHITE_LEVEL, np.uint8), np.zeros((h, w), np.uint8)


def _blurred(norm: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(norm, (0, 0), 1.5 * S)


def _middle(mask: np.ndarray, keep_mm: float) -> np.ndarray:
    """The model's view of a faint piece: only its darkest middle, ``keep_mm`` wide."""
    k = max(1, round((8.0 - keep_mm) * S / 2))
    return cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))


def test_a_straight_bar_a_stick_wide_the_model_calls_string_is_wood() -> None:
    norm, labels = _canvas()
    bar = np.zeros(labels.shape, np.uint8)
    cv2.line(
        bar, (round(60 * S), round(100 * S)), (round(160 * S), round(110 * S)), 1, round(8 * S)
    )
    norm[bar > 0] = (150, 150, 190)  # a faint, washed-out painted stick
    norm = _blurred(norm)
    labels[_middle(bar, 3.0) > 0] = seg.DARK
    out = seg.wide_strings(labels, norm, S, DEFAULT_PROFILE)
    assert (out[labels == seg.DARK] == seg.WOOD).all()
    # over its width at half contrast, not only the middle the model saw
    assert (out == seg.WOOD).sum() >= 0.8 * bar.sum()


def _dark(*masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A blurred normalised canvas with dark pieces where ``masks`` are, and labels calling
    them the string."""
    norm, labels = _canvas()
    for m in masks:
        norm[m > 0] = (60, 60, 60)
        labels[m > 0] = seg.DARK
    return _blurred(norm), labels


def _stays(norm: np.ndarray, labels: np.ndarray) -> None:
    assert (seg.wide_strings(labels, norm, S, DEFAULT_PROFILE) == labels).all()


def test_a_thin_straight_string_stays_the_string() -> None:
    line = np.zeros(_canvas()[1].shape, np.uint8)
    cv2.line(
        line, (round(60 * S), round(100 * S)), (round(160 * S), round(110 * S)), 1, round(2.5 * S)
    )
    _stays(*_dark(line))


def test_a_wide_curved_piece_stays_the_string() -> None:
    arc = np.zeros(_canvas()[1].shape, np.uint8)
    cv2.ellipse(
        arc,
        (round(150 * S), round(100 * S)),
        (round(50 * S), round(50 * S)),
        0,
        0,
        200,
        1,
        round(7 * S),
    )
    _stays(*_dark(arc))


def test_a_straight_stretch_that_goes_on_as_string_stays_the_string() -> None:
    shape = _canvas()[1].shape
    bar = np.zeros(shape, np.uint8)
    cv2.line(
        bar, (round(60 * S), round(100 * S)), (round(160 * S), round(100 * S)), 1, round(7 * S)
    )
    more = np.zeros(shape, np.uint8)  # the string goes on past a small gap
    cv2.ellipse(
        more,
        (round(190 * S), round(100 * S)),
        (round(25 * S), round(25 * S)),
        0,
        180,
        300,
        1,
        round(3 * S),
    )
    norm, labels = _dark(bar, more)
    labels[:, round(162 * S) : round(166 * S)] = seg.CANVAS
    _stays(norm, labels)


def _reads_right(seed: int, i: int) -> None:
    board_seed = seed * 100_003 + i
    b = draw_board(board_seed, look=board_look(board_seed, "dev"), tier="hard")
    assert not b.hand
    reading = read_board(b.frame)
    assert isinstance(reading, BoardReading)
    assert not reading.occluded
    assert reading.counts == b.counts


def test_a_light_stick_the_model_calls_string_is_counted() -> None:
    """Second drawer, hard tier, development looks, seed 0 board 41: a light stick under
    the string, blurred, read by the model as string (a long stick read as a short before)."""
    _reads_right(0, 41)


def test_a_straight_blurred_stretch_of_string_is_not_a_stick() -> None:
    """Second drawer, hard tier, development looks, seed 5 board 6: a pale blue string laid
    straight for 100 mm, smeared by motion blur as wide as a stick, its curve going on past
    its end (read as two long sticks more without the rule that it goes on)."""
    _reads_right(5, 6)
