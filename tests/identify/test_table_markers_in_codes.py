"""The table's markers in the codes reader: the play area's markers (and the Picasso
board's) are read among the dark squares no card's marker matched. Their white squares are
card-sized silhouettes of no card, so they give no outline to read markers on; their known
size (KIT.md: 40 mm, 30 mm) tells a card's size where they lie."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision.identify import code_cards, codes, outline_markers, quads
from vision.identify.identify import identify_frame
from vision.identify.outlines import heights_by_markers
from vision.identify.scenes import make_scene, scene_seed
from vision.synth.identify_speed import speed_frames


@functools.cache
def _table() -> np.ndarray:
    """A normal-tier table of 12 Pick Pic cards in the play area (the speed benchmark's
    first frame): every card is read by its codes."""
    return speed_frames(1, 7)[0]


@functools.cache
def _dev_scene(seed: int, index: int) -> tuple[np.ndarray, object]:
    return make_scene("codes", "hard", scene_seed(seed, index), "dev")


def _named(frame: np.ndarray) -> dict[str, np.ndarray]:
    res = identify_frame(frame, None, codes="fast", game="pickpic")
    return {f"{r.card}/{r.side}": r.corners_px for r in res.cards}


def _no_fiducials(grey: np.ndarray, squares: np.ndarray):
    return (np.zeros((0, 4, 2), np.float32), np.zeros(0, np.intp)), np.zeros(len(squares), bool)


def _outlines_read(frame: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """The outlines the codes reader reads markers on in ``frame``."""
    seen: list[np.ndarray] = []
    find = quads.find_outlines

    def recording(*args, **kwargs):
        out = find(*args, **kwargs)
        seen.extend(o.corners_px for o in out)
        return out

    monkeypatch.setattr(outline_markers.quads, "find_outlines", recording)
    identify_frame(frame, None, codes="fast", game="pickpic")
    monkeypatch.setattr(outline_markers.quads, "find_outlines", find)
    return seen


def test_the_play_areas_markers_are_read_among_the_squares_left_unread() -> None:
    frame = _table()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    unread: list[np.ndarray] = []
    codes.read_sightings(frame, grey, "fast", game="pickpic", unread=unread)
    (corners, ids), read = code_cards._read_fiducials(grey, unread[0])
    assert sorted(ids.tolist()) == [0, 1, 2, 3]
    assert read.sum() == 4 and corners.shape == (4, 4, 2)
    assert np.allclose(corners.mean(axis=1), unread[0][read].mean(axis=1), atol=1.0)


def test_no_outline_is_read_on_the_play_areas_markers(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _table()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    unread: list[np.ndarray] = []
    codes.read_sightings(frame, grey, "fast", game="pickpic", unread=unread)
    (markers, _), _ = code_cards._read_fiducials(grey, unread[0])
    centres, side = markers.mean(axis=1), np.linalg.norm(markers[:, 0] - markers[:, 1], axis=1)

    def on_a_marker(outlines: list[np.ndarray]) -> int:
        return sum(
            bool((np.linalg.norm(centres - o.mean(axis=0), axis=1) < side).any()) for o in outlines
        )

    names = set(_named(frame))
    assert on_a_marker(_outlines_read(frame, monkeypatch)) == 0
    # Not told where they are, their white squares were outlines to read (two each: nearly
    # square, either pair of sides first), and no card more was named.
    monkeypatch.setattr(code_cards, "_read_fiducials", _no_fiducials)
    assert on_a_marker(_outlines_read(frame, monkeypatch)) >= 4
    assert set(_named(frame)) == names


def test_the_table_markers_tell_a_small_cards_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # A card 35 px wide on a hard development table, named by no code read bit for bit: its
    # outline is found by lines at the card's size, which only the play area's markers tell
    # there (no card named nearby).
    frame, truth = _dev_scene(2, 99)
    t = next(c for c in truth.cards if c.card_id == "pickpic-076")
    named = _named(frame)
    height = np.linalg.norm(t.corners_px[0] - t.corners_px[3])
    assert np.linalg.norm(named["pickpic-076/front"] - t.corners_px, axis=1).max() < 0.1 * height
    monkeypatch.setattr(outline_markers, "heights_by_markers", lambda *a: np.zeros((0, 3)))
    assert "pickpic-076/front" not in _named(frame)


def test_a_card_is_as_high_as_its_size_over_the_markers() -> None:
    square = np.array([[0, 0], [50, 0], [50, 50], [0, 50]], np.float64)
    markers = np.stack([square + 100, square * 0.6 + 400, square + 700])
    rows = heights_by_markers(markers, np.array([2, 5, 999]), 88.0)
    # A play-area marker (40 mm) 50 px wide, a board's (30 mm) 30 px; id 999 is no table's.
    assert np.allclose(rows, [[125, 125, 110], [415, 415, 88]])
    assert heights_by_markers(np.zeros((0, 4, 2)), np.zeros(0, np.intp), 88.0).shape == (0, 3)
