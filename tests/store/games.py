"""A real Picasso game for the store's tests, and helpers to run ``python -m pictable``."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

PICASSO_START: dict[str, Any] = {"type": "start", "game": "picasso", "players": ["A", "B"]}

# Six turns (2 players x 3 cards), CONTRACTS 1 Picasso. Final: A 16 points + 2 cards = 26,
# B 12 points + 2 cards = 22; A wins.
PICASSO_EVENTS: list[dict[str, Any]] = [
    {"type": "draw", "player": "A", "card": "c1", "t": 1.0},
    {"type": "build", "pieces": {"long_stick": 2}, "t": 5.5},
    {"type": "build", "pieces": {"long_stick": 3, "short_stick": 1}, "t": 9.0},
    {"type": "guess", "player": "B", "t": 12.0},  # A +6, B takes c1
    {"type": "draw", "player": "B", "card": "c2"},
    {"type": "build", "pieces": {"shape": 2, "string": 1}},
    {"type": "guess", "player": "A", "meta": {"note": "fast"}},  # B +3, A takes c2
    {"type": "draw", "player": "A", "card": "c3"},
    {"type": "give_up"},
    {"type": "draw", "player": "B", "card": "c4"},
    {"type": "build", "pieces": {"long_stick": 5, "short_stick": 5, "string": 1}},  # 13 > 10
    {"type": "draw", "player": "A", "card": "c5"},
    {"type": "guess", "player": "B"},  # nothing built: A +10, B takes c5
    {"type": "draw", "player": "B", "card": "c6"},
    {"type": "build", "pieces": {"short_stick": 1}},
    {"type": "guess", "player": "A"},  # B +9, A takes c6; the last turn: finished
]
PICASSO_FINAL_SCORES = {"A": 26, "B": 22}

# Illegal where it is inserted (after the first draw): B draws while A builds.
OUT_OF_TURN: dict[str, Any] = {"type": "draw", "player": "B", "card": "zz"}


def line(obj: Any) -> str:
    return json.dumps(obj) + "\n"


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), out.get("PYTHONPATH")]))
    out.pop("PICTABLE_DB", None)
    return out


def pictable(*args: str, stdin: str = "", timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``python -m pictable ARGS`` in a child process, stdin given, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "pictable", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env(),
        timeout=timeout,
        check=False,
    )


class Writer:
    """``pictable sessions new ... --stdin`` as a live child process: write events to it and
    read its output line by line, with a timeout (a thread drains its stdout)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pictable", "sessions", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=ROOT,
            env=env(),
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for text in self.proc.stdout:
            self.lines.put(text.rstrip("\n"))
        self.lines.put(None)

    def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line(obj))
        self.proc.stdin.flush()

    def read(self, timeout: float = 15) -> str:
        text = self.lines.get(timeout=timeout)
        if text is None:
            assert self.proc.stderr is not None
            raise AssertionError(f"the writer ended early: {self.proc.stderr.read()}")
        return text

    def kill(self) -> int:
        self.proc.kill()  # SIGKILL: no handler, no clean close of the database
        code = self.proc.wait(timeout=15)
        self._reader.join(timeout=15)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                # closing stdin flushes nothing that matters: the child is dead
                with contextlib.suppress(BrokenPipeError):
                    stream.close()
        return code
