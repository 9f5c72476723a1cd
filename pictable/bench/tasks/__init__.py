"""The built-in benchmark tasks, registered on import (real photos first, then the rendered
scenes per tier)."""

from __future__ import annotations

from pictable.bench.core import register
from pictable.bench.tasks import aruco, chessboard, features, qr, synth

for _task in (qr.TASK, aruco.TASK, chessboard.TASK, features.TASK, *synth.TASKS):
    register(_task)
