"""Cameras and streams: the real OpenCV code paths, with ``cv2.VideoCapture`` replaced by a
fake device that can be unplugged; plus ``open_source`` parsing."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.sources import (
    Backoff,
    CameraSource,
    ImageFolderSource,
    LatestFrameReader,
    SourceError,
    StreamSource,
    VideoFileSource,
    open_source,
    redact_url,
)

from .conftest import WAIT_S


# -- cameras -----------------------------------------------------------------------------------
def test_camera_requests_720p_and_stamps_frames_with_its_clock(fake_capture):
    ticks = iter(range(100))
    camera = CameraSource(0, clock=lambda: float(next(ticks)))
    with camera:
        cap = fake_capture.instances[-1]
        assert cap.args == (0, cv2.CAP_ANY)
        assert cap.props[cv2.CAP_PROP_FRAME_WIDTH] == 1280
        assert cap.props[cv2.CAP_PROP_FRAME_HEIGHT] == 720
        assert cap.props[cv2.CAP_PROP_BUFFERSIZE] == 1
        frames = [camera.read() for _ in range(3)]
    assert [(f.index, f.t) for f in frames] == [(0, 0.0), (1, 1.0), (2, 2.0)]
    assert frames[0].image.shape == (720, 1280, 3)
    assert camera.live and camera.fps == 30.0
    assert camera.describe() == "camera 0 (1280x720 @ 30 fps)"
    assert cap.released and camera.read() is None


def test_camera_that_cannot_be_opened_raises_source_error(fake_capture):
    fake_capture.available = False
    with pytest.raises(SourceError, match="cannot open camera 3"):
        CameraSource(3).open()
    with pytest.raises(SourceError):
        LatestFrameReader(CameraSource(3)).start()


def test_unplugged_camera_is_reopened_by_the_reader_and_keeps_counting(fake_capture):
    fake_capture.frames_left = 3
    with LatestFrameReader(CameraSource(0), backoff=Backoff(0.01, 2.0, 0.02)) as reader:
        assert reader.wait_for_stats(lambda s: s.gap_since is not None, WAIT_S)
        assert reader.stats.captured == 3
        frame = reader.read(timeout=0)  # live: the newest of the three
        assert frame is not None and frame.index == 2
        fake_capture.available = False  # unplugged: opening fails for a while
        assert reader.wait_for_stats(lambda s: s.reopen_attempts >= 2, WAIT_S)
        assert reader.read(timeout=0) is None
        fake_capture.frames_left = None
        fake_capture.available = True  # plugged back in
        frame = reader.read(timeout=WAIT_S)
        assert frame is not None and frame.index >= 3  # the index continues
        assert reader.wait_for_stats(lambda s: len(s.gaps) == 1, WAIT_S)
    assert all(c.released for c in fake_capture.instances)
    assert not reader.running


@pytest.mark.parametrize("index", [-1, True, 1.5, None])
def test_camera_index_must_be_an_int_or_a_path(index):
    with pytest.raises(ValueError, match="camera index must be"):
        CameraSource(index)


def test_a_camera_index_with_no_device_fails_cleanly():
    """The real OpenCV call, on an index no test machine has."""
    with pytest.raises(SourceError, match="cannot open camera 97"):
        CameraSource(97).open()


# -- streams -----------------------------------------------------------------------------------
def test_stream_passes_timeouts_to_ffmpeg_and_hides_passwords(fake_capture):
    url = "rtsp://admin:s3cret@10.0.0.7:554/live"
    stream = StreamSource(url, open_timeout_s=2, read_timeout_s=1.5)
    with stream:
        cap = fake_capture.instances[-1]
        assert cap.args == (
            url,
            cv2.CAP_FFMPEG,
            [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, 2000, cv2.CAP_PROP_READ_TIMEOUT_MSEC, 1500],
        )
        assert stream.read() is not None
    assert stream.live
    assert "s3cret" not in stream.describe() and "admin:***@" in stream.describe()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("rtsp://u:p@h/s", "rtsp://u:***@h/s"),
        ("http://h:8080/video.mjpg", "http://h:8080/video.mjpg"),
        ("https://user:pa:ss@cam/x", "https://user:***@cam/x"),
    ],
)
def test_redact_url(url, shown):
    assert redact_url(url) == shown


def test_a_stream_that_refuses_the_connection_fails_cleanly():
    """The real FFmpeg backend, on a local port nothing listens on."""
    with pytest.raises(SourceError, match="cannot open stream"):
        StreamSource("http://127.0.0.1:9/none.mjpg", open_timeout_s=2).open()


# -- open_source -------------------------------------------------------------------------------
@pytest.fixture
def video_file(tmp_path: Path) -> Path:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5.0, (32, 24))
    writer.write(np.zeros((24, 32, 3), np.uint8))
    writer.release()
    return path


@pytest.mark.parametrize(
    ("spec", "kind", "attr", "expected"),
    [
        ("0", CameraSource, "index", 0),
        (" 2 ", CameraSource, "index", 2),
        ("rtsp://cam.local/stream1", StreamSource, "url", "rtsp://cam.local/stream1"),
        ("RTSP://cam.local/s", StreamSource, "url", "RTSP://cam.local/s"),
        ("http://10.0.0.7:8080/video", StreamSource, "url", "http://10.0.0.7:8080/video"),
        ("https://x.example/live.m3u8", StreamSource, "url", "https://x.example/live.m3u8"),
    ],
)
def test_open_source_parses_cameras_and_urls(spec, kind, attr, expected):
    source = open_source(spec)
    assert type(source) is kind and getattr(source, attr) == expected


def test_open_source_parses_folders_and_files(tmp_path, video_file):
    folder = open_source(str(tmp_path), fps=12)
    assert isinstance(folder, ImageFolderSource) and folder.fps == 12
    assert open_source(str(tmp_path) + os.sep).fps == 30
    video = open_source(str(video_file))
    assert isinstance(video, VideoFileSource) and video.path == video_file
    camera = open_source("1", fps=15, size_wh=(640, 480))
    assert isinstance(camera, CameraSource)
    assert (camera.requested_fps, camera.requested_size_wh) == (15, (640, 480))


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null")
def test_open_source_takes_a_character_device_for_a_camera():
    source = open_source("/dev/null")
    assert isinstance(source, CameraSource) and source.index == "/dev/null"


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("", ValueError, "source spec must be"),
        ("   ", ValueError, "source spec must be"),
        ("ftp://host/file.avi", ValueError, "unknown URL scheme 'ftp'"),
        ("-1", FileNotFoundError, "not a camera index, a stream URL"),
        ("/no/such/thing.avi", FileNotFoundError, "not a camera index, a stream URL"),
    ],
)
def test_open_source_rejects(spec, error, message):
    with pytest.raises(error, match=message):
        open_source(spec)


def test_open_source_checks_fps():
    with pytest.raises(ValueError, match="fps must be a finite number > 0"):
        open_source("0", fps=-5)


# -- a real stream over HTTP -------------------------------------------------------------------
@pytest.fixture
def http_clip(tmp_path: Path) -> Iterator[tuple[str, threading.Event]]:
    """A 5-frame MJPG clip served over local HTTP, and an event that takes the server "off
    the network" (503) while cleared."""
    writer = cv2.VideoWriter(
        str(tmp_path / "clip.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48)
    )
    for i in range(5):
        writer.write(np.full((48, 64, 3), 20 * i, np.uint8))
    writer.release()
    up = threading.Event()
    up.set()

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def do_GET(self) -> None:
            if up.is_set():
                super().do_GET()
            else:
                self.send_error(503)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/clip.avi", up
    finally:
        server.shutdown()
        server.server_close()
        thread.join(WAIT_S)


def test_a_real_http_stream_that_drops_is_reopened(http_clip):
    """OpenCV's FFmpeg backend on a local HTTP stream: the stream ends (a drop, for a live
    source), the server refuses for a while, then serves again; the reader bridges it."""
    url, up = http_clip
    source = StreamSource(url, open_timeout_s=5, read_timeout_s=5)
    with LatestFrameReader(source, live=False, backoff=Backoff(0.01, 2.0, 0.05)) as reader:
        # The connection is open: from now on the server refuses new ones, so when the clip
        # ends (a drop, for a live source) the reopening attempts fail.
        up.clear()
        first = [reader.read(timeout=WAIT_S) for _ in range(5)]
        assert all(f is not None for f in first)
        assert [f.index for f in first if f is not None] == [0, 1, 2, 3, 4]
        assert reader.wait_for_stats(lambda s: s.reopen_attempts >= 2, WAIT_S)
        assert reader.read(timeout=0) is None
        up.set()
        again = reader.read(timeout=WAIT_S)
        assert again is not None and again.index == 5 and again.image.shape == (48, 64, 3)
        s = reader.stats
    assert len(s.gaps) == 1 and s.reopens == 1 and s.skipped_total == 0
