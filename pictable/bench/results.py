"""What a benchmark run produces. Serialised to and from JSON in one place:
:mod:`pictable.bench.report`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Runner and task statuses.
OK = "ok"
UNAVAILABLE = "unavailable"
FAILED = "failed"
NO_DATA = "no data"


@dataclass
class Timing:
    """Milliseconds per call of one runner over one pass kind.

    Attributes:
        median_ms: Median over every timed call (warm-up excluded).
        p95_ms: 95th percentile (linear interpolation) over the same calls.
        calls: How many calls were timed.
        frame_size: The frame sizes timed, ``"1280x720"`` or ``"240x240 to 640x480"``.
    """

    median_ms: float
    p95_ms: float
    calls: int
    frame_size: str


@dataclass
class Memory:
    """Peak memory of one runner.

    Attributes:
        peak_rss_mb: Peak resident set of the process while the runner lived (``VmHWM``): the
            interpreter, numpy/OpenCV and the library included. None with isolation
            ``"inline"`` (the process is shared).
        delta_mb: That peak minus the resident set just before the runner was built: what
            the runner itself added at its peak (library initialisation, buffers, its working
            images).
        method: How it was measured, in words.
    """

    peak_rss_mb: float | None
    delta_mb: float | None
    method: str


@dataclass
class RunnerResult:
    """One runner's figures on one task."""

    name: str
    label: str
    kind: str
    status: str
    reason: str = ""
    version: str = ""
    target: str = ""
    metrics: dict[str, float | int | None] = field(default_factory=dict)
    own: Timing | None = None
    hd: Timing | None = None
    setup_ms: float | None = None
    finish_ms: float | None = None
    memory: Memory | None = None
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    wall_s: float = 0.0


@dataclass
class TaskResult:
    """One task: its samples and every runner's figures on them."""

    name: str
    title: str
    description: str
    source_kind: str
    source_label: str
    status: str
    reason: str = ""
    samples: int = 0
    sample_ids: list[str] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    runners: list[RunnerResult] = field(default_factory=list)
    hd_timing: bool = True


@dataclass
class BenchResult:
    """A whole run."""

    command: str
    date: str
    wall_s: float
    machine: dict[str, Any]
    settings: dict[str, Any]
    data_dir: str | None
    tasks: list[TaskResult]
