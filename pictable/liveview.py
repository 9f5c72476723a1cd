"""The live view: the camera frame annotated with what pictable sees and the game's state.

``draw_view(frame, pipeline)`` returns a new (H, W, 3) uint8 BGR image: the follower's
overlay (card outlines, the Picmix objective, ...), whose turn and what is going on, the
scores, the last events (rejected ones in red with their reason), what the assistant asks,
the last correction, and the keys. The same picture goes to the window (``pictable play``)
and to the annotated video (``--headless``, ``pictable demo``).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

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


def open_video_writer(path: str | Path, shape: tuple[int, ...], fps: float) -> cv2.VideoWriter:
    """An MP4 writer for annotated frames of ``shape`` (H, W, 3); ``OSError`` when it cannot
    be opened. The folder is created."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    h, w = shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), float(fps or 10.0), (w, h))
    if not writer.isOpened():
        raise OSError(f"cannot write the video {path}")
    return writer
