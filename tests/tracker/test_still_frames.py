"""Reading at a lower rate while nothing moves (issue 27, part 2): a frame that shows what
the frame last read showed reuses its reading, and nothing the follower emits changes."""

from __future__ import annotations

from typing import Any

import numpy as np

import vision.tracker.tracks as tracks
from tests.tracker.fake import BLANK, FakeFrame, reading
from vision.tracker import Debouncer
from vision.tracker.pickpic import PickPicFollower
from vision.tracker.tracks import StillFrames

SMALL = np.full((90, 160, 3), 100, np.uint8)


def test_a_still_frame_reuses_the_reading_until_it_is_as_old_as_the_wait() -> None:
    gate = StillFrames(max_age_s=0.25)
    assert not gate.unchanged(SMALL, 0.0)  # nothing read yet
    gate.read(SMALL, 0.0)
    noisy = SMALL.copy()
    noisy[::7, ::5] += 6  # sensor noise, under the level
    assert gate.unchanged(noisy, 1 / 30) and gate.unchanged(SMALL, 7 / 30)
    assert not gate.unchanged(SMALL, 8 / 30)  # a reading at least every max_age_s
    moved = SMALL.copy()
    moved[40:50, 70:90] = 200  # a hand coming in
    assert not gate.unchanged(moved, 1 / 30)
    assert not gate.unchanged(SMALL[:, :80], 1 / 30)  # another size: read
    assert gate.reads == 1


def test_at_four_frames_a_second_every_frame_is_read() -> None:
    gate = StillFrames(max_age_s=0.25)
    for i in range(8):
        if not gate.unchanged(SMALL, i / 4.0):
            gate.read(SMALL, i / 4.0)
    assert gate.reads == 8


def test_a_reading_may_count_from_when_the_region_began_to_look_so() -> None:
    d: Debouncer[int] = Debouncer(stable_s=0.5)
    assert d.update(4, 1.0, since=0.7) is None  # quiet since 0.7 s, first read at 1.0 s
    assert d.update(4, 1.2) == 4  # 0.5 s after 0.7 s
    assert d.first_seen == 0.7
    # a later, different reading counts from its own frame
    assert d.update(5, 1.3) is None and d.update(5, 1.7) is None and d.update(5, 1.8) == 5
    assert d.update(6, 2.0, since=5.0) is None  # never from after the frame


def test_pick_pic_reads_a_still_table_less_and_emits_the_same_events(monkeypatch: Any) -> None:
    """30 frames a second: a photo laid (a hand over the table for 0.3 s), then the table
    still; with the reader run on every frame, and with still frames reusing the reading."""
    table: dict[str, tuple[str, tuple[float, float]]] = {}

    def identify(frame: np.ndarray, deck: Any = None, **kw: Any) -> FakeFrame:
        return FakeFrame([reading(c, face, p) for c, (face, p) in table.items()])

    monkeypatch.setattr(tracks, "identify_frame", identify)
    hand = BLANK.copy()
    hand[300:720, 600:700] = 180  # an arm reaching in from the bottom
    card = BLANK.copy()
    card[320:400, 610:670] = 230  # the photo laid, the arm gone
    frames = [(BLANK, i / 30) for i in range(10)]
    frames += [(hand, i / 30) for i in range(10, 19)]
    frames += [(card, i / 30) for i in range(19, 60)]

    def run(gate: StillFrames) -> tuple[list[dict[str, Any]], int]:
        table.clear()
        f = PickPicFollower(["A", "B", "C"])
        f.still = gate
        out: list[dict[str, Any]] = []
        for image, t in frames:
            if t >= 19 / 30:
                table["pickpic-001"] = ("up", (640.0, 360.0))
            out += f.update(image, t)
        return out, f.reads

    every, n_every = run(StillFrames(max_age_s=0.0))
    less, n_less = run(StillFrames(max_age_s=0.25))
    assert n_every == len(frames) and n_less < len(frames) / 2
    assert every == less and [e["type"] for e in less] == ["reveal"]


def test_a_1080p_frame_is_read_at_720p_and_its_points_drawn_back_at_1080p() -> None:
    from calibration.files import CalibrationFile
    from calibration.intrinsics import Intrinsics

    k = np.array([[1500.0, 0, 959.5], [0, 1500.0, 539.5], [0, 0, 1]])
    lens = Intrinsics(k, np.zeros(5), (1920, 1080), 0.3)
    work = tracks.WorkingFrame(CalibrationFile(intrinsics=lens))
    small = work.shrink(np.zeros((1080, 1920, 3), np.uint8))
    assert small.shape == (720, 1280, 3) and work.scale_xy == (1.5, 1.5)
    assert np.allclose(
        work.to_frame(np.array([[-0.5, -0.5], [1279.5, 719.5]])), [[-0.5, -0.5], [1919.5, 1079.5]]
    )
    scaled = work.reader_calibration().intrinsics
    assert scaled.image_size == (1280, 720) and np.isclose(scaled.fx, 1000.0)
    same = np.zeros((720, 1280, 3), np.uint8)
    assert work.shrink(same) is same and work.reader_calibration().intrinsics is lens
