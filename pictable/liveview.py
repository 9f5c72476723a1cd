"""The live view: the camera frame annotated with what pictable sees and the game's state.

``draw_view(frame, pipeline)`` returns a new (H, W, 3) uint8 BGR image: the follower's
overlay (card outlines, the Picmix objective, ...), whose turn and what is going on, the
scores, the last events (rejected ones in red with their reason), what the assistant asks,
the last correction, and the keys. The same picture goes to the window (``pictable play``)
and to the annotated video (``--headless``, ``pictable demo``), which ``open_video_writer``
writes as a video browsers play and a killed session leaves readable.
"""

from __future__ import annotations

import contextlib
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

from pictable.scoreboard import current_turn, ranking
from pictable.textboard import GAME_NAMES, event_line

FONT = cv2.FONT_HERSHEY_SIMPLEX
WHITE = (255, 255, 255)
GREEN = (80, 220, 80)
RED = (60, 60, 235)
YELLOW = (40, 220, 250)
CYAN = (230, 200, 40)


def _text(
    img: NDArray[np.uint8],
    text: str,
    xy: tuple[int, int],
    scale: float = 0.6,
    colour: tuple[int, int, int] = WHITE,
    thickness: int = 1,
) -> int:
    """Draws ``text`` on a dark box (readable on any table); returns its width px."""
    text = text.encode("ascii", "replace").decode("ascii")  # Hershey fonts are ASCII
    x, y = xy
    (tw, th), base = cv2.getTextSize(text, FONT, scale, thickness)
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(0, x - 2), max(0, y - th - 3), min(w, x + tw + 2), min(h, y + base + 1)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = (img[y0:y1, x0:x1].astype(np.uint16) // 3).astype(np.uint8)
    cv2.putText(img, text, (x, y), FONT, scale, colour, thickness, cv2.LINE_AA)
    return int(tw)


def _panel(img: NDArray[np.uint8], x0: int, y0: int, x1: int, y1: int) -> None:
    """Darkens a rectangle so text on it reads well."""
    h, w = img.shape[:2]
    x0, x1 = max(0, x0), min(w, x1)
    y0, y1 = max(0, y0), min(h, y1)
    if x1 > x0 and y1 > y0:
        img[y0:y1, x0:x1] = (img[y0:y1, x0:x1].astype(np.uint16) * 2 // 5).astype(np.uint8)


def draw_overlay(img: NDArray[np.uint8], overlay: list[dict[str, Any]]) -> None:
    """Draws a follower's overlay items in place (malformed items are skipped)."""
    for item in overlay:
        try:
            label = str(item.get("label", ""))
            if item.get("kind") == "quad":
                quad = np.asarray(item["corners_px"], np.float64).reshape(-1, 2)
                if quad.shape[0] < 3 or not np.isfinite(quad).all():
                    continue
                pts = np.round(quad).astype(np.int32)
                cv2.polylines(img, [pts], True, CYAN, 2, cv2.LINE_AA)
                top = pts[np.argmin(pts[:, 1])]
                if label:
                    _text(img, label, (int(top[0]), max(14, int(top[1]) - 6)), 0.5, CYAN)
            elif item.get("kind") == "line":
                line = np.asarray(item["points_px"], np.float64).reshape(-1, 2)
                if line.shape[0] < 2 or not np.isfinite(line).all():
                    continue
                pts = np.round(line).astype(np.int32)
                cv2.polylines(img, [pts], False, CYAN, 2, cv2.LINE_AA)
                if label:
                    mid = pts[len(pts) // 2]
                    _text(img, label, (int(mid[0]) + 4, int(mid[1]) - 4), 0.45, CYAN)
            elif item.get("kind") == "text":
                x, y = (int(v) for v in item["xy"])
                _text(img, label, (x, y), 0.55, CYAN)
        except (KeyError, TypeError, ValueError):
            continue


def draw_view(
    frame: NDArray[np.uint8], pipeline: Any, *, fps: float | None = None
) -> NDArray[np.uint8]:
    """The annotated picture of ``frame`` for ``pipeline`` (a ``LivePipeline``)."""
    img = np.ascontiguousarray(frame).copy()
    h, w = img.shape[:2]
    s = max(0.5, min(1.5, w / 1280.0))
    # The picture must never stop the game: a follower whose overlay fails draws none.
    with contextlib.suppress(Exception):
        draw_overlay(img, pipeline.follower.overlay())
    summary = pipeline.state.summary()
    line_h = int(24 * s)

    # Top left: the game and what is going on.
    turn = current_turn(summary) or {}
    lines = [GAME_NAMES.get(str(summary.get("game")), "pictable")]
    if turn.get("headline"):
        lines.append(str(turn["headline"]))
    lines += [str(d) for d in turn.get("details", [])][:2]
    prompt = pipeline.prompt()
    _panel(img, 0, 0, int(560 * s), line_h * (len(lines) + (1 if prompt else 0)) + 10)
    y = line_h
    for i, line in enumerate(lines):
        _text(img, line, (10, y), 0.7 * s if i == 0 else 0.6 * s, YELLOW if i == 0 else WHITE)
        y += line_h
    if prompt:
        _text(img, "> " + prompt, (10, y), 0.55 * s, GREEN)

    # Top right: the scores, best first.
    rows = ranking(summary) if summary.get("game") else []
    _panel(img, w - int(260 * s), 0, w, line_h * (len(rows) + 1) + 10)
    y = line_h
    _text(img, "scores", (w - int(250 * s), y), 0.6 * s, YELLOW)
    for row in rows:
        y += line_h
        star = " *" if row.get("winner") else ""
        name = str(row.get("name"))[:14]
        _text(img, f"{name:<14} {row.get('score', 0):>3}{star}", (w - int(250 * s), y), 0.6 * s)

    # Middle: the follower's announcement in large (the Pic Flip countdown).
    big = pipeline.follower_banner()
    if big:
        scale = 1.6 * s
        (tw, th), _ = cv2.getTextSize(big, FONT, scale, 3)
        _text(img, big, (max(0, (w - tw) // 2), (h + th) // 2), scale, YELLOW, 3)

    # Bottom: the last events, the question, the banner, the keys.
    recent = pipeline.records[-4:]
    ask = pipeline.ask
    banner = pipeline.banner_text()
    n_lines = len(recent) + (1 if ask else 0) + (1 if banner else 0) + 1
    _panel(img, 0, h - line_h * n_lines - 8, w, h)
    y = h - line_h * n_lines + line_h // 2
    for rec in recent:
        text = event_line(rec.event) if rec.accepted else f"REJECTED {event_line(rec.event)}"
        if not rec.accepted and rec.reason:
            text += f" - {rec.reason}"
        who = "" if rec.by == "camera" else " (entered)"
        _text(img, text[:150] + who, (10, y), 0.5 * s, GREEN if rec.accepted else RED)
        y += line_h
    if ask:
        _text(img, f"? {ask['text']}  (y: yes, n: no)", (10, y), 0.55 * s, YELLOW)
        y += line_h
    if banner:
        _text(img, banner[:150], (10, y), 0.55 * s, YELLOW)
        y += line_h
    keys = "u undo  y confirm  n reject  e enter event  1-9 seat claim  q quit"
    if fps is not None:
        keys += f"    {fps:4.1f} fps"
    _text(img, keys, (10, y), 0.45 * s, (200, 200, 200))
    return img


VIDEO_CODECS: tuple[str, ...] = ("libx264", "libvpx-vp9")
"""The annotated video's encoders (FFmpeg's names, through PyAV), tried in order: H.264 plays
in every browser; VP9 serves a PyAV built without x264 (Chromium and Firefox play it)."""
WEBM_CODECS = frozenset({"libvpx-vp9"})
"""The encoders a ``.webm`` file may hold (WebM admits VP8, VP9 and AV1 only)."""
ENCODER_OPTIONS: dict[str, dict[str, str]] = {
    # Fast enough for the live loop at 1280x720 (about 13 ms a frame), and nothing held in a
    # lookahead, so each frame reaches its fragment as soon as it is written.
    "libx264": {"preset": "veryfast", "tune": "zerolatency", "crf": "23"},
    "libvpx-vp9": {
        "deadline": "realtime",
        "cpu-used": "8",
        "lag-in-frames": "0",
        "row-mt": "1",
        "crf": "32",
        "b": "0",
    },
}
KEYFRAME_S = 1.0
"""Seconds between keyframes, hence between fragments (MP4) or clusters (WebM): at most about
this much of the end of the video is lost when the process is killed."""
# Fragmented MP4 writes each fragment's index with it (not one index at the end), so a
# killed session's file plays up to its last fragment; WebM is written cluster by cluster.
# flush_packets hands each finished piece to the system at once instead of leaving it in
# FFmpeg's write buffer.
FRAGMENTED_MP4 = {"movflags": "frag_keyframe+empty_moov+default_base_moof", "flush_packets": "1"}
PROGRESSIVE_WEBM = {"cluster_time_limit": str(round(KEYFRAME_S * 1000)), "flush_packets": "1"}
CONTAINERS: dict[str, tuple[str, dict[str, str]]] = {
    ".mp4": ("mp4", FRAGMENTED_MP4),
    ".m4v": ("mp4", FRAGMENTED_MP4),
    ".webm": ("webm", PROGRESSIVE_WEBM),
}
"""Per file suffix: FFmpeg's muxer and its options."""
DEFAULT_FPS = 10.0
FALLBACK_FOURCC = "mp4v"


class VideoWriter(Protocol):
    """What ``open_video_writer`` returns: ``write`` one frame, ``release`` at the end."""

    codec: str
    browser_playable: bool

    def write(self, frame: NDArray[np.uint8]) -> None: ...

    def release(self) -> None: ...


def _check_frame(frame: object, shape: tuple[int, int, int]) -> NDArray[np.uint8]:
    """``frame`` if it is an array of ``shape`` (H, W, 3) uint8; ``ValueError`` otherwise."""
    if not (isinstance(frame, np.ndarray) and frame.shape == shape and frame.dtype == np.uint8):
        got = f"{frame.shape} {frame.dtype}" if isinstance(frame, np.ndarray) else type(frame)
        raise ValueError(f"frame must be {shape} uint8, got {got}")
    return frame


class BrowserVideo:
    """An annotated video a browser plays, encoded with PyAV: H.264 (else VP9) in fragmented
    MP4, or VP9 in WebM, written piece by piece so that a killed process leaves a file that
    plays up to its last keyframe. Frames of odd width or height are padded by one pixel
    (4:2:0 video needs even sizes), so the file's frames are then one pixel larger."""

    browser_playable = True

    def __init__(self, path: Path, size_hw: tuple[int, int], fps: float, codec: str) -> None:
        import av

        muxer, options = CONTAINERS[path.suffix.lower()]
        h, w = size_hw
        self.path = path
        self.codec = codec
        self._shape = (h, w, 3)
        self._pad = (h % 2, w % 2)
        rate = Fraction(fps).limit_denominator(1001)
        self._time_base = 1 / rate
        try:
            self._container = av.open(str(path), "w", format=muxer, container_options=options)
            stream = self._container.add_stream(
                codec, rate=rate, options=ENCODER_OPTIONS.get(codec, {})
            )
            if not isinstance(stream, av.video.stream.VideoStream):
                raise OSError(f"cannot write the video {path}: {codec} is not a video encoder")
            stream.width, stream.height = w + self._pad[1], h + self._pad[0]
            stream.pix_fmt = "yuv420p"
            stream.codec_context.gop_size = max(1, round(fps * KEYFRAME_S))
        except av.error.FFmpegError as exc:
            raise OSError(f"cannot write the video {path}: {exc}") from exc
        self._stream = stream
        self._frame = av.VideoFrame
        self._n = 0
        self._closed = False

    def write(self, frame: NDArray[np.uint8]) -> None:
        """Encodes one (H, W, 3) uint8 BGR frame of the size given at opening."""
        image = _check_frame(frame, self._shape)
        if any(self._pad):
            image = np.asarray(
                cv2.copyMakeBorder(image, 0, self._pad[0], 0, self._pad[1], cv2.BORDER_REPLICATE),
                np.uint8,
            )
        picture = self._frame.from_ndarray(np.ascontiguousarray(image), format="bgr24")
        picture.pts, picture.time_base = self._n, self._time_base
        self._n += 1
        self._container.mux(self._stream.encode(picture))

    def release(self) -> None:
        """Flushes the encoder and closes the file (a second call does nothing)."""
        if self._closed:
            return
        self._closed = True
        try:
            self._container.mux(self._stream.encode(None))
        finally:
            self._container.close()


class FallbackVideo:
    """OpenCV's MPEG-4 Part 2 writer, used when PyAV has no encoder a browser plays: desktop
    players read the file, browsers do not, and a killed process leaves it unreadable."""

    browser_playable = False
    codec = "mpeg4"

    def __init__(self, path: Path, size_hw: tuple[int, int], fps: float) -> None:
        h, w = size_hw
        self._shape = (h, w, 3)
        self._writer = cv2.VideoWriter(
            str(path), cv2.VideoWriter.fourcc(*FALLBACK_FOURCC), fps, (w, h)
        )
        if not self._writer.isOpened():
            raise OSError(f"cannot write the video {path}")

    def write(self, frame: NDArray[np.uint8]) -> None:
        """Encodes one (H, W, 3) uint8 BGR frame of the size given at opening."""
        self._writer.write(_check_frame(frame, self._shape))

    def release(self) -> None:
        """Writes the file's index and closes it."""
        self._writer.release()


def browser_codec(suffix: str) -> tuple[str | None, str]:
    """The first of ``VIDEO_CODECS`` that PyAV can encode into a file ending in ``suffix``
    (``".mp4"``), and ``""``; or None and the reason there is none."""
    try:
        import av
    except ImportError:
        return None, "PyAV (the Python package av) is not installed"
    if suffix not in CONTAINERS:
        return None, f"{suffix or 'a file without a suffix'} is not a browser video (.mp4, .webm)"
    allowed = [c for c in VIDEO_CODECS if suffix != ".webm" or c in WEBM_CODECS]
    for name in allowed:
        try:
            av.Codec(name, "w")
        except ValueError:  # av's UnknownCodecError: not in this build of FFmpeg
            continue
        return name, ""
    return None, "PyAV has no H.264 or VP9 encoder (" + ", ".join(allowed) + ")"


def open_video_writer(path: str | Path, shape: tuple[int, ...], fps: float) -> VideoWriter:
    """A writer of annotated frames of ``shape`` (H, W, 3) at ``fps`` into ``path`` (the
    folder is created): a ``BrowserVideo`` for ``.mp4`` and ``.webm``, else, or when PyAV
    cannot encode, OpenCV's MPEG-4 Part 2 after saying so on stderr. ``OSError`` when the
    file cannot be written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    size_hw = (int(shape[0]), int(shape[1]))
    rate = float(fps) if fps and np.isfinite(fps) and fps > 0 else DEFAULT_FPS
    codec, why = browser_codec(path.suffix.lower())
    if codec is not None:
        return BrowserVideo(path, size_hw, rate, codec)
    print(
        f"pictable: {why}: the video {path} is written as MPEG-4 Part 2, which desktop players "
        "read but a browser does not play, and which is unreadable if pictable is killed. "
        "For a browser video, write a .mp4 file with PyAV installed (pip install av).",
        file=sys.stderr,
        flush=True,
    )
    return FallbackVideo(path, size_hw, rate)
