"""The shared table-following pieces: settling cards, arms and their side, seat turns."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.tracker.tracks import ArmSides, SettledCards, angle_gap, default_seat_angles, fit_turn


def _quad(x: float, y: float) -> np.ndarray:
    return np.array(
        [[x - 30, y - 40], [x + 30, y - 40], [x + 30, y + 40], [x - 30, y + 40]], np.float32
    )


def test_a_card_settles_once_still_and_again_after_it_moves() -> None:
    cards = SettledCards(settle_s=0.25, move_px=8.0, forget_s=1.0)
    assert cards.update([("c", "down", _quad(100, 100), 0.9)], 0.0) == []
    assert [tr.card for tr in cards.update([("c", "down", _quad(102, 101), 0.9)], 0.25)] == ["c"]
    assert cards.update([("c", "down", _quad(102, 101), 0.9)], 0.5) == []
    assert cards.update([], 1.0) == []  # hidden for a while: kept
    assert cards.update([("c", "down", _quad(102, 101), 0.9)], 1.25) == []  # not again
    assert cards.update([("c", "up", _quad(300, 100), 0.9)], 1.5) == []  # turned and moved
    settled = cards.update([("c", "up", _quad(300, 100), 0.9)], 1.75)
    assert [(tr.card, tr.face) for tr in settled] == [("c", "up")]
    cards.update([], 3.0)
    assert "c" not in cards.tracks  # gone longer than forget_s


def test_the_arm_of_a_still_table_points_to_where_it_came_from() -> None:
    arms = ArmSides()
    table = np.full((720, 1280), 120, np.uint8)
    assert arms.update(table, 0.0) is False
    assert arms.update(table, 0.25) is False
    # an arm from the left edge towards the middle, sliding along its own length
    for k, t in enumerate((0.5, 0.75, 1.0)):
        frame = table.copy()
        cv2.rectangle(frame, (0, 330), (400 + 100 * k, 390), 30, -1)
        arms.update(frame, t)
    side = arms.angle_near(1.0, 2.0, (640.0, 360.0))
    assert side is not None and angle_gap(side, 180.0) < 10.0
    assert arms.angle_near(1.0, 2.0, (50.0, 360.0)) is not None
    assert ArmSides().angle_near(1.0, 2.0, (0.0, 0.0)) is None


def test_seats_turn_to_fit_the_sides_seen() -> None:
    seats = default_seat_angles(5)
    assert seats[0] == 90.0 and seats[1] == pytest.approx(162.0)
    assert fit_turn([], seats) == 0.0
    seen = [
        s + 28.0 + d for s, d in zip(seats * 2, [3, -4, 2, -1, 0, 4, -3, 1, 0, -2], strict=True)
    ]
    assert abs(fit_turn(seen, seats) - 28.0) <= 4.0
    assert abs(fit_turn(seen[:1], seats) - 15.5) <= 1.0  # one direction: half-way
    assert angle_gap(350.0, 10.0) == 20.0 and math.isclose(angle_gap(0.0, 180.0), 180.0)
