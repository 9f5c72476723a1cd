"""The annotated video (``pictable play --out``, ``pictable demo``): it plays in a browser,
it stays readable up to the moment its writer is killed, and a missing encoder is said.

The browser test runs in headless Chromium (Debian's ``chromium``; skipped without it
locally, failed in CI like the scoreboard page's tests).
"""

from __future__ import annotations

import contextlib
import select
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from pictable.commands.demo import _write_page
from pictable.liveview import KEYFRAME_S, VIDEO_CODECS, open_video_writer
from tests.live.conftest import video_frames
from tests.scoreboard.cdp import Browser, CDPError, browser_or_skip

REPO = Path(__file__).resolve().parents[2]
SIZE_HW = (120, 160)
FPS = 10.0
ORANGE_BGR = (40, 140, 240)
CHILD_TIMEOUT_S = 60.0  # a bound on a hung child, not a measure
COLOUR_TOLERANCE = 24  # H.264/VP9 round colours through 4:2:0 YUV; a blank frame is 0 or 255


def flat_frame(bgr: tuple[int, int, int], size_hw: tuple[int, int] = SIZE_HW) -> np.ndarray:
    """One (H, W, 3) uint8 BGR frame of a single colour."""
    return np.full((*size_hw, 3), bgr, np.uint8)


def grey(i: int) -> int:
    """The grey level of frame ``i`` in the kill test: a different level per frame."""
    return 20 + 5 * i


def demo_result(video: str | None, **extra: Any) -> dict[str, Any]:
    """A game's result as ``pictable demo`` hands it to its page."""
    return {
        "game": "picmix",
        "title": "Picmix",
        "mode": "rendered table",
        "ok": True,
        "verdict": "OK: scores match the rendered truth",
        "summary": {"players": ["Ana", "Ben"], "scores": {"Ana": 1, "Ben": 0}},
        "truth": None,
        "events": [],
        "truth_events": [],
        "video": video,
        **extra,
    }


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from browser_or_skip("browser tests")


@pytest.mark.parametrize(
    ("name", "codecs"),
    [
        ("picmix.mp4", VIDEO_CODECS),  # H.264
        ("picmix.mp4", ("libvpx-vp9",)),  # a PyAV without x264
        ("picmix.webm", VIDEO_CODECS),
    ],
)
def test_the_demo_page_s_video_decodes_a_frame_in_chromium(
    browser: Browser,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    codecs: tuple[str, ...],
) -> None:
    monkeypatch.setattr("pictable.liveview.VIDEO_CODECS", codecs)
    writer = open_video_writer(tmp_path / name, (*SIZE_HW, 3), FPS)
    for _ in range(12):
        writer.write(flat_frame(ORANGE_BGR))
    writer.release()
    assert writer.browser_playable
    _write_page(tmp_path, [demo_result(name)])

    page = browser.new_page(800, 600)
    try:
        page.goto((tmp_path / "index.html").as_uri())
        page.wait_for("!!document.querySelector('video')")
        with contextlib.suppress(CDPError):  # judged below, with what the element says
            page.wait_for(
                "(v => v.readyState >= 2 || v.error !== null)(document.querySelector('video'))",
                timeout=10,
            )
        state = page.evaluate(
            "(v => ({ready: v.readyState, error: v.error && v.error.code, "
            "width: v.videoWidth, rect: (r => [r.x, r.y, r.width, r.height])"
            "(v.getBoundingClientRect())}))(document.querySelector('video'))"
        )
        assert state["error"] is None, f"Chromium cannot play the video: {state}"
        assert state["ready"] >= 2 and state["width"] == SIZE_HW[1], state
        # The frame on screen is the written one, not a blank box (the controls, which
        # darken the picture, hidden first).
        page.evaluate(
            "(v => { v.controls = false; return new Promise(r => "
            "requestAnimationFrame(() => requestAnimationFrame(() => r(true)))); })"
            "(document.querySelector('video'))"
        )
        shot = cv2.imdecode(np.frombuffer(page.screenshot(), np.uint8), cv2.IMREAD_COLOR)
        assert shot is not None
        x, y, w, h = (round(v) for v in state["rect"])
        middle = shot[y + h // 4 : y + 3 * h // 4, x + w // 4 : x + 3 * w // 4]
        colour = middle.reshape(-1, 3).mean(axis=0)
        assert np.abs(colour - ORANGE_BGR).max() < COLOUR_TOLERANCE, colour
    finally:
        page.close()


KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    import numpy as np
    from pictable.liveview import open_video_writer

    writer = open_video_writer(sys.argv[1], (48, 64, 3), float(sys.argv[2]))
    for i in range(int(sys.argv[3])):
        writer.write(np.full((48, 64, 3), 20 + 5 * i, np.uint8))  # grey(i)
    print("written", flush=True)
    time.sleep(600)
    """
)


@pytest.mark.parametrize("name", ["seen.mp4", "seen.webm"])
def test_the_video_of_a_killed_session_is_readable_up_to_the_kill(
    tmp_path: Path, name: str
) -> None:
    path, n = tmp_path / name, 40
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(path), str(FPS), str(n)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], CHILD_TIMEOUT_S)
        line = proc.stdout.readline() if ready else ""
    finally:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=CHILD_TIMEOUT_S)
    assert line.strip() == "written", err
    frames = list(video_frames(path))
    # What the writer may still hold at the kill: the frames since the last keyframe.
    held = round(FPS * KEYFRAME_S)
    assert n - held <= len(frames) <= n, len(frames)
    for i, frame in enumerate(frames):
        assert frame.shape == (48, 64, 3)
        assert abs(float(frame.mean()) - grey(i)) < 4, (i, frame.mean())


def test_a_missing_encoder_is_said_and_a_video_is_still_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "av", None)  # `import av` raises ImportError
    writer = open_video_writer(tmp_path / "seen.mp4", (48, 64, 3), FPS)
    for i in range(5):
        writer.write(flat_frame((grey(i),) * 3, (48, 64)))
    writer.release()
    err = capsys.readouterr().err
    assert "PyAV" in err and "pip install av" in err and "browser" in err, err
    assert not writer.browser_playable
    assert len(list(video_frames(tmp_path / "seen.mp4"))) == 5
    # The demo page says why its video does not play.
    _write_page(tmp_path, [demo_result("seen.mp4", video_playable=False)])
    assert "does not play in a browser" in (tmp_path / "index.html").read_text("utf-8")


def test_an_encoder_pyav_lacks_falls_back_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("pictable.liveview.VIDEO_CODECS", ("no-such-encoder",))
    writer = open_video_writer(tmp_path / "seen.mp4", (48, 64, 3), FPS)
    writer.write(flat_frame((90, 90, 90), (48, 64)))
    writer.release()
    assert "no H.264 or VP9 encoder" in capsys.readouterr().err
    assert not writer.browser_playable
    assert len(list(video_frames(tmp_path / "seen.mp4"))) == 1


def test_odd_sized_frames_are_padded_to_even_ones(tmp_path: Path) -> None:
    writer = open_video_writer(tmp_path / "odd.mp4", (47, 63, 3), FPS)
    for _ in range(3):
        writer.write(flat_frame((200, 100, 50), (47, 63)))
    writer.release()
    assert writer.browser_playable
    frames = list(video_frames(tmp_path / "odd.mp4"))
    assert len(frames) == 3 and frames[0].shape == (48, 64, 3)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((48, 64), np.uint8), "frame must be (48, 64, 3) uint8, got (48, 64) uint8"),
        (
            np.zeros((48, 64, 3), np.float32),
            "frame must be (48, 64, 3) uint8, got (48, 64, 3) float32",
        ),
        (np.zeros((50, 64, 3), np.uint8), "frame must be (48, 64, 3) uint8, got (50, 64, 3) uint8"),
    ],
)
def test_a_frame_of_another_shape_is_refused(
    tmp_path: Path, frame: np.ndarray, message: str
) -> None:
    writer = open_video_writer(tmp_path / "v.mp4", (48, 64, 3), FPS)
    try:
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            writer.write(frame)
    finally:
        writer.release()
