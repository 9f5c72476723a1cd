"""A white cord lying along a stick or over its end: the pixel model calls the stick's
visible wood beside the cord string or canvas, though it still gives the stick some weight
there, and the stick went missing. Near a pale string (``segment.PALE_STRING_GREY``), the
canvas and shadow pixels the model gives a stick ``UNDER_PALE_PROB`` or more are wood
(``segment.under_pale_string``); near a string of any darker colour nothing changes (the
weight the model gives sticks beside a dark string is its blur, and made wood it joined
sticks that lie end to end)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.picasso import BoardReading, read_board
from vision.picasso import pixel_model as pm
from vision.picasso import segment as seg
from vision.picasso.dataset import render_board, scene_seed

S = 1.5
H, W = 240, 360


def _scene(string_grey: int, stick_prob: float, gap_mm: float = 0.0):
    """Labels with a string along a line (the model's string, 3 mm), the normalised picture
    with the string at ``string_grey``, and logits giving a stick ``stick_prob`` in a band
    6 mm wide beside the string, ``gap_mm`` away from it."""
    labels = np.full((H, W), seg.CANVAS, np.uint8)
    norm = np.full((H, W, 3), seg.WHITE_LEVEL, np.uint8)
    y = H // 2
    cv2.line(labels, (40, y), (320, y), int(seg.DARK), round(3 * S))
    norm[labels == seg.DARK] = string_grey
    half = np.zeros((H // 2, W // 2), np.float32)
    off = round((1.5 + gap_mm + 3) * S / 2)
    cv2.line(half, (30, y // 2 + off), (150, y // 2 + off), 1.0, round(6 * S / 2))
    logits = np.full((5, H // 2, W // 2), -20.0, np.float32)
    logits[pm.CANVAS] = 0.0
    p = np.clip(np.where(half > 0, stick_prob, 1e-4), 1e-4, 1 - 1e-4)
    logits[pm.STICK] = np.log(p / (1 - p))
    return labels, logits, norm


def test_the_stick_beside_a_pale_string_is_wood() -> None:
    labels, logits, norm = _scene(string_grey=195, stick_prob=0.3)
    out = seg.under_pale_string(labels, logits, norm, S)
    turned = (out == seg.WOOD) & (labels == seg.CANVAS)
    assert turned.sum() >= 200
    assert (out[labels == seg.DARK] == seg.DARK).all()  # the string stays the string


def test_beside_a_dark_string_nothing_changes() -> None:
    labels, logits, norm = _scene(string_grey=80, stick_prob=0.3)
    assert (seg.under_pale_string(labels, logits, norm, S) == labels).all()


def test_a_jute_string_is_not_pale() -> None:
    labels, logits, norm = _scene(string_grey=150, stick_prob=0.3)
    assert (seg.under_pale_string(labels, logits, norm, S) == labels).all()


def test_under_the_probability_nothing_changes() -> None:
    labels, logits, norm = _scene(string_grey=195, stick_prob=0.1)
    assert (seg.under_pale_string(labels, logits, norm, S) == labels).all()


def test_away_from_the_string_nothing_changes() -> None:
    labels, logits, norm = _scene(string_grey=195, stick_prob=0.3, gap_mm=8.0)
    assert (seg.under_pale_string(labels, logits, norm, S) == labels).all()


# Our renderer's normal tier, development looks, run seed 1: a white string along a short
# stick or over its end (a short stick missed before)
BOARDS = [38, 63, 68]


def _read(board: int) -> tuple[dict, dict]:
    frame, truth = render_board("normal", scene_seed(1, board), looks="dev")
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert not reading.occluded
    want = truth.to_json()["board"]["counts"]
    return dict(reading.counts), {k: int(want.get(k, 0)) for k in reading.counts}


@pytest.mark.parametrize("board", BOARDS)
def test_a_short_stick_under_a_white_string_is_counted(board: int) -> None:
    got, want = _read(board)
    assert got == want


def test_without_it_the_short_stick_is_missed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seg, "under_pale_string", lambda labels, *a, **k: labels)
    got, want = _read(BOARDS[1])
    assert got["short_stick"] == want["short_stick"] - 1
