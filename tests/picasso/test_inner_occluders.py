"""What the pieces leave unexplained inside the canvas is a hand only when it is as wide as a
palm (``occlusion.INNER_RADIUS_MM``); across the canvas edge it is an arm coming in.

Blur on a coarse view joins a heap's sticks and the gaps between them into wood the stick
search cannot explain: a branching patch 2 to 17 mm wide, however large. Those made hard
boards without a hand read as occluded (hard run seeds 0-1: 7 of 118)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.picasso.occlusion import INNER_RADIUS_MM, find_occluders

S = 1.5  # px per mm, as the reader's canvas
H, W = round(240 * S), round(330 * S)


def _px(mm: float) -> int:
    return round(mm * S)


def test_a_heap_left_unexplained_inside_the_canvas_is_not_a_hand() -> None:
    # A star of five bars 10 mm wide and 80 mm long: 3,500 mm^2, 5 mm from any edge of
    # it to its middle, as the leftover of a blurred heap.
    m = np.zeros((H, W), np.uint8)
    c = np.array([_px(160), _px(120)])
    for k in range(5):
        a = k * np.pi / 5
        d = np.array([np.cos(a), np.sin(a)]) * _px(40)
        cv2.line(m, tuple(map(int, c - d)), tuple(map(int, c + d)), 1, _px(10))
    assert m.sum() / S**2 > 3000
    occ = find_occluders(m, S)
    assert not occ.any


def test_a_palm_inside_the_canvas_is_a_hand() -> None:
    m = np.zeros((H, W), np.uint8)
    cv2.circle(m, (_px(160), _px(120)), _px(INNER_RADIUS_MM + 5), 1, -1)
    occ = find_occluders(m, S)
    assert occ.any
    assert occ.fraction > 0.01


def test_a_finger_coming_in_over_the_edge_is_a_hand() -> None:
    # 12 mm wide, 30 mm in from the left edge: much narrower than a palm, but it crosses
    # the canvas edge as an arm does.
    m = np.zeros((H, W), np.uint8)
    cv2.rectangle(m, (0, _px(100)), (_px(30), _px(112)), 1, -1)
    assert find_occluders(m, S).any


def test_a_speck_is_nothing() -> None:
    m = np.zeros((H, W), np.uint8)
    cv2.circle(m, (_px(160), _px(120)), _px(5), 1, -1)
    assert not find_occluders(m, S).any
