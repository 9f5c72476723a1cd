"""Faults from the world during a game: the camera drops, the process is killed, frames are
corrupt, a QR code carries a hostile payload. In none of them is an acknowledged event lost,
and the game ends with the scores of the rendered session's truth."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import segno

import engine
from pictable.followers import make_follower
from pictable.live import LivePipeline, drive
from pictable.rendered import RenderedSession, truth_state
from pictable.store import EventStore
from tests.live.conftest import video_frames
from tests.sources.fakes import GONE, FakeSource
from vision.sources import Backoff, LatestFrameReader, SyntheticSource


def true_scores(session: RenderedSession) -> dict[str, int]:
    return dict(truth_state(session.events).summary()["scores"])


def stored_scores(store: EventStore, sid: int) -> dict[str, int]:
    lines = store.export(sid)
    return dict(engine.replay([json.loads(x) for x in lines]).summary()["scores"])


def assert_acknowledged_are_stored(pipe: LivePipeline) -> None:
    stored = {e.seq: e for e in pipe.store.events(pipe.session_id)}
    for rec in pipe.records:
        assert rec.seq in stored
        assert stored[rec.seq].accepted == rec.accepted


def pipeline(tmp_path: Path, session: RenderedSession) -> LivePipeline:
    store = EventStore(tmp_path / "s.db")
    follower = make_follower(session.game, session.players)
    sid = store.create_session(follower.start_event()).id
    return LivePipeline(store, sid, follower)


def test_the_camera_drops_mid_game_and_comes_back(
    picmix_session: RenderedSession, tmp_path: Path
) -> None:
    frames = list(video_frames(picmix_session.video))
    source = FakeSource(live=True, fps=10.0)
    pipe = pipeline(tmp_path, picmix_session)

    def camera() -> None:
        # A camera filming at 10 fps that is unplugged after 2.5 s (after the reveal) and is
        # away for two reopening attempts.
        for i, frame in enumerate(frames):
            if i == 25:
                source.fail_opens = 2
                source.feed(GONE)
            source.feed(frame)
            time.sleep(0.1)
        source.release()

    feeder = threading.Thread(target=camera, daemon=True)
    reader = LatestFrameReader(source, backoff=Backoff(initial_s=0.05, max_s=0.2))
    with reader:
        feeder.start()
        drive(pipe, reader, live=True, timeout_s=0.2, stop=_ends_with(feeder))
    stats = reader.stats
    assert len(stats.gaps) >= 1 and stats.reopens >= 1
    assert_acknowledged_are_stored(pipe)
    assert [r.event["type"] for r in pipe.records if r.accepted] == ["reveal", "claim"]
    assert stored_scores(pipe.store, pipe.session_id) == true_scores(picmix_session)


class _ends_with:
    """A stop flag that rises once ``thread`` has finished and its frames are read."""

    def __init__(self, thread: threading.Thread) -> None:
        self.thread = thread
        self.seen_dead: float | None = None

    def is_set(self) -> bool:
        if self.thread.is_alive():
            return False
        if self.seen_dead is None:
            self.seen_dead = time.monotonic()
        return time.monotonic() - self.seen_dead > 1.0


def test_corrupt_frames_are_skipped_and_counted(
    picmix_session: RenderedSession, tmp_path: Path
) -> None:
    good = list(video_frames(picmix_session.video))
    junk: list[Any] = [
        None,
        np.zeros((0, 0, 3), np.uint8),
        np.zeros((720, 1280, 3), np.float64),
        "not a frame",
        np.zeros((720, 1280, 2), np.uint8),
        np.zeros((5,), np.uint8),
    ]
    items = []
    for i, frame in enumerate(good):
        items.append((frame, i / 10))
        if i % 7 == 3:
            items.append((junk[(i // 7) % len(junk)], (i + 0.5) / 10))
        if i == 30:
            items.append((cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (i + 0.5) / 10))
            items.append((cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA), (i + 0.6) / 10))
    pipe = pipeline(tmp_path, picmix_session)
    reader = LatestFrameReader(SyntheticSource(items, fps=10.0))
    with reader:
        drive(pipe, reader, live=False)
    stats = reader.stats
    assert stats.skipped_total >= 6
    assert stats.converted.get("gray") == 1 and stats.converted.get("bgra") == 1
    assert_acknowledged_are_stored(pipe)
    assert stored_scores(pipe.store, pipe.session_id) == true_scores(picmix_session)


HOSTILE = [
    b"PT1:../../etc/passwd:F",
    b"PT1:picmix-obj-99999999999999999999:F",
    b"'); DROP TABLE events; --",
    b'{"type": "claim", "player": "B", "visible": []}',
    bytes(range(256)) * 4,
    ("PT1:" + "x" * 1500 + ":F").encode(),
]


def _with_code(frame: np.ndarray, payload: bytes) -> np.ndarray:
    """``frame`` with a QR code of ``payload`` printed on the table, bottom right."""
    qr = segno.make(payload, micro=False, error="l")
    matrix = np.asarray(qr.matrix, np.uint8)
    img = np.pad(np.where(matrix > 0, 0, 255).astype(np.uint8), 4, constant_values=255)
    scale = max(1, 260 // img.shape[0])
    img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    out = frame.copy()
    h, w = img.shape[:2]
    out[-h - 10 : -10, -w - 10 : -10] = img[..., None]
    return out


def test_hostile_qr_payloads_on_the_table_change_nothing(
    picmix_session: RenderedSession, tmp_path: Path
) -> None:
    frames = list(video_frames(picmix_session.video))
    items = [(_with_code(f, HOSTILE[i % len(HOSTILE)]), i / 10) for i, f in enumerate(frames)]
    pipe = pipeline(tmp_path, picmix_session)
    with LatestFrameReader(SyntheticSource(items, fps=10.0)) as reader:
        drive(pipe, reader, live=False)
    assert_acknowledged_are_stored(pipe)
    assert [r.event["type"] for r in pipe.records] == ["reveal", "claim"]
    assert stored_scores(pipe.store, pipe.session_id) == true_scores(picmix_session)
    for rec in pipe.records:
        text = json.dumps(rec.event)
        assert "passwd" not in text and "DROP" not in text and "99999" not in text


def test_a_killed_session_resumes_without_losing_an_acknowledged_event(
    picasso_session: RenderedSession, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    cmd = [
        sys.executable,
        "-m",
        "pictable.cli",
        "play",
        "picasso",
        "--players",
        ",".join(picasso_session.players),
        "--db",
        str(db),
        "--no-page",
        "--headless",
    ]
    acknowledged = []
    with subprocess.Popen(
        [
            *cmd,
            "--video",
            str(picasso_session.video),
            "--realtime",
            "--out",
            str(tmp_path / "first.mp4"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    ) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "draws" in line:
                acknowledged.append(line)
                os.kill(proc.pid, signal.SIGKILL)  # no clean-up, mid-turn
                break
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert acknowledged, "the draw was never acknowledged"
    with EventStore(db, create=False) as store:
        kinds = [json.loads(x)["type"] for x in store.export(1)]
    assert kinds[:2] == ["start", "draw"]
    # The table goes on: the rest of the turn, filmed after the restart.
    rest = tmp_path / "rest"
    rest.mkdir()
    for i, frame in enumerate(video_frames(picasso_session.video)):
        if i >= 25:
            cv2.imwrite(str(rest / f"{i:04d}.png"), frame)
    done = subprocess.run(
        [
            *cmd[:4],
            "--resume",
            "1",
            "--db",
            str(db),
            "--no-page",
            "--headless",
            "--images",
            str(rest),
            "--fps",
            "10",
            "--out",
            str(tmp_path / "second.mp4"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    with EventStore(db, create=False) as store:
        assert stored_scores(store, 1) == true_scores(picasso_session)
        assert all(e.accepted for e in store.events(1))
