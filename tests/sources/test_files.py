"""Video files, image folders and synthetic sessions, written in the test itself."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import (
    FrameGuard,
    FrameSource,
    ImageFolderSource,
    LatestFrameReader,
    SourceError,
    SyntheticSource,
    VideoFileSource,
    iter_frames,
    natural_key,
)

from .conftest import WAIT_S
from .fakes import FakeSource, img

VIDEO_FPS = 10.0
VIDEO_FRAMES = 12
VIDEO_SIZE_WH = (64, 48)


def level(i: int) -> int:
    return 10 + 20 * i


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 12-frame MJPG .avi at 10 fps, frame i a flat grey of ``level(i)``."""
    path = tmp_path_factory.mktemp("video") / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), VIDEO_FPS, VIDEO_SIZE_WH)
    assert writer.isOpened()
    w, h = VIDEO_SIZE_WH
    for i in range(VIDEO_FRAMES):
        writer.write(np.full((h, w, 3), level(i), np.uint8))
    writer.release()
    return path


# -- video files -------------------------------------------------------------------------------
def test_video_file_gives_every_frame_with_its_timestamp(video):
    source = VideoFileSource(video)
    frames = list(iter_frames(source))
    assert len(frames) == VIDEO_FRAMES
    assert [f.index for f in frames] == list(range(VIDEO_FRAMES))
    assert [f.t for f in frames] == pytest.approx([i / VIDEO_FPS for i in range(VIDEO_FRAMES)])
    w, h = VIDEO_SIZE_WH
    for i, f in enumerate(frames):
        assert f.image.shape == (h, w, 3) and f.image.dtype == np.uint8
        assert abs(float(f.image.mean()) - level(i)) < 4  # MJPG is lossy
    assert source.fps == VIDEO_FPS and not source.live
    assert source.describe().endswith(f"(64x48 @ 10 fps, {VIDEO_FRAMES} frames)")


def test_video_file_through_the_reader_is_lossless(video):
    with LatestFrameReader(VideoFileSource(video)) as reader:
        assert not reader.live
        frames = list(reader)
        s = reader.stats
    assert len(frames) == VIDEO_FRAMES and s.dropped == 0 and s.ended


def test_video_file_reopens_from_the_start(video):
    source = VideoFileSource(video)
    with source:
        for _ in range(5):
            assert source.read() is not None
    with source:
        first = source.read()
    assert first is not None and first.index == 0 and first.t == 0.0


def test_missing_or_broken_video_cannot_be_opened(tmp_path):
    with pytest.raises(FileNotFoundError):
        VideoFileSource(tmp_path / "nope.avi").open()
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"not a video at all" * 10)
    with pytest.raises(SourceError, match="cannot open video"):
        VideoFileSource(junk).open()


def test_a_file_opencv_opens_but_cannot_decode_is_refused_at_open(tmp_path):
    # OpenCV opens both (an image-sequence reader, an empty container) and reads nothing.
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image" * 20)
    empty = tmp_path / "empty.avi"
    writer = cv2.VideoWriter(str(empty), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    writer.release()
    for path in (junk, empty):
        source = VideoFileSource(path)
        with pytest.raises(SourceError, match="no frame could be decoded"):
            source.open()
        assert not source.is_open
        assert source.read() is None


def test_the_first_frame_decoded_at_open_is_the_first_read(video):
    source = VideoFileSource(video)
    with source:
        frames = list(iter(source.read, None))
    assert [f.index for f in frames] == list(range(VIDEO_FRAMES))
    with source:  # opened again: from the start
        assert source.read().index == 0


def test_read_before_open_or_after_close_is_none(video):
    source = VideoFileSource(video)
    assert source.read() is None
    source.open()
    source.close()
    source.close()  # idempotent
    assert source.read() is None


# -- image folders -----------------------------------------------------------------------------
@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """f1, f2, f3 (corrupt), f4 (empty), f10 (grey), f11 (BGRA), plus files to ignore."""
    h, w = 12, 16

    def write(name: str, image: np.ndarray) -> None:
        assert cv2.imwrite(str(tmp_path / name), image)

    write("f1.png", img(1))
    write("F2.png", img(2))
    (tmp_path / "f3.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"truncated")
    (tmp_path / "f4.jpg").write_bytes(b"")
    write("f10.png", np.full((h, w), 100, np.uint8))
    bgra = np.zeros((h, w, 4), np.uint8)
    bgra[..., :3] = (1, 2, 3)
    bgra[..., 3] = 128
    write("f11.png", bgra)
    (tmp_path / "notes.txt").write_text("not a frame")
    write(".hidden.png", img(99))
    (tmp_path / "sub.png").mkdir()
    return tmp_path


def test_image_folder_in_natural_order_skipping_unreadable_files(folder):
    source = ImageFolderSource(folder, fps=5)
    frames = list(iter_frames(source))
    assert [p.name for p in source.paths] == [
        "f1.png",
        "F2.png",
        "f3.png",
        "f4.jpg",
        "f10.png",
        "f11.png",
    ]
    assert [p.name for p in source.unreadable] == ["f3.png", "f4.jpg"]
    # index = position in the folder, t = index / fps: a bad file leaves a gap in time.
    assert [(f.index, f.t) for f in frames] == [(0, 0.0), (1, 0.2), (4, 0.8), (5, 1.0)]
    assert [int(f.image[0, 0, 0]) for f in frames] == [1, 2, 100, 1]
    for f in frames:
        assert f.image.shape == (12, 16, 3) and f.image.dtype == np.uint8
    assert (frames[3].image == (1, 2, 3)).all()
    assert source.describe() == f"images {folder}/ (6 files @ 5 fps)"


def test_image_folder_through_the_reader(folder):
    with LatestFrameReader(ImageFolderSource(folder)) as reader:
        frames = list(reader)
    assert len(frames) == 4 and reader.stats.dropped == 0


def test_image_folder_that_is_not_a_folder(tmp_path):
    with pytest.raises(SourceError, match="not a directory"):
        ImageFolderSource(tmp_path / "missing").open()
    with pytest.raises(ValueError, match="fps must be a finite number > 0, got 0"):
        ImageFolderSource(tmp_path, fps=0)


def test_natural_key():
    names = ["f10.png", "f2.png", "F1.png", "f1b.png", "a.png", "f02.png"]
    assert sorted(names, key=natural_key) == [
        "a.png",
        "F1.png",
        "f1b.png",
        "f2.png",
        "f02.png",
        "f10.png",
    ]


# -- synthetic sessions ------------------------------------------------------------------------
def test_synthetic_source_replays_a_reiterable_and_continues_an_iterator():
    items = [(img(i), i * 0.1) for i in range(4)]
    source = SyntheticSource(items, fps=10)
    assert [f.t for f in iter_frames(source)] == pytest.approx([0.0, 0.1, 0.2, 0.3])
    assert len(list(iter_frames(source))) == 4  # a list restarts

    once = SyntheticSource(iter(items), fps=10)
    with once:
        assert once.read() is not None
    with once:  # a generator cannot restart: it continues
        assert [f.index for f in iter(once.read, None)] == [0, 1, 2]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ((img(0),), r"frame 0 must be an \(image, t\) pair, got tuple"),
        (img(0), r"frame 0 must be an \(image, t\) pair, got ndarray"),
        ((img(0), float("nan")), r"frame 0 t must be a finite number"),
        ((img(0), "0.1"), r"frame 0 t must be a finite number"),
    ],
)
def test_synthetic_source_rejects_malformed_items(item, message):
    source = SyntheticSource([item])
    source.open()
    with pytest.raises(ValueError, match=message):
        source.read()


def test_synthetic_source_unpacks_rendered_frames():
    """The shape of the synthetic camera's sequences: objects with ``.frame`` and ``.t``."""

    class Rendered:
        def __init__(self, i: int) -> None:
            self.frame, self.t, self.truth = img(i), i / 4, {"cards": i}

    class Sequence:
        fps = 4.0

        def __iter__(self):
            return (Rendered(i) for i in range(3))

    seq = Sequence()
    source = SyntheticSource(seq, fps=seq.fps, unpack=lambda f: (f.frame, f.t))
    with LatestFrameReader(source, live=False) as reader:
        frames = list(reader)
    assert [(f.index, f.t, int(f.image[0, 0, 0])) for f in frames] == [
        (0, 0.0, 0),
        (1, 0.25, 1),
        (2, 0.5, 2),
    ]
    assert len(list(iter_frames(source))) == 3  # re-iterable: replays


def test_synthetic_corrupt_images_go_to_the_guard_like_a_camera():
    items = [(img(0), 0.0), (np.zeros((12, 16), np.float32), 0.1), (img(2), 0.2)]
    guard = FrameGuard()
    frames = list(iter_frames(SyntheticSource(items), guard=guard))
    assert [f.index for f in frames] == [0, 2] and guard.skipped == {"dtype": 1}


def test_iter_frames_closes_the_source_when_abandoned():
    fake = FakeSource([img(i) for i in range(5)], live=False)
    frames = iter_frames(fake)
    assert next(frames).index == 0
    frames.close()
    assert fake.closes == 1 and not fake.is_open


def test_every_source_satisfies_the_protocol(video, folder):
    sources = [VideoFileSource(video), ImageFolderSource(folder), SyntheticSource([]), FakeSource()]
    for s in sources:
        assert isinstance(s, FrameSource)
        assert s.fps > 0 and isinstance(s.describe(), str)
    assert WAIT_S > 0
