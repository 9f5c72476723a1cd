"""Running one runner over one task's samples: accuracy, time per frame and peak memory.

How the figures are taken (also written into BENCHMARKS.md):

- **One thread.** ``cv2.setNumThreads(1)``, and the OpenMP/BLAS thread variables are set to 1
  before the libraries load (the command does it; child processes inherit it).
- **Time** is ``time.perf_counter_ns`` around the runner call only: reading the file, the
  letterbox and the scoring are outside. Warm-up calls are not timed. Each sample is timed at
  its own size (``repeats`` passes) and, for real photos, letterboxed to 1280x720
  (``hd_repeats`` passes); the median and 95th percentile are over every timed call.
- **Memory** is the resident set size from the kernel, not ``tracemalloc`` (which cannot see
  what zbar, zxing-cpp or OpenCV allocate in C/C++). With isolation ``"process"`` every runner
  runs in a fresh interpreter (multiprocessing ``spawn``). Just before the runner is built its
  resident set is read (``VmRSS``) and the high-water mark is restarted (writing 5 to
  ``/proc/self/clear_refs``); afterwards ``VmHWM`` is the peak while the runner lived, and the
  delta is that peak minus the resident set before. ``ru_maxrss`` is not used on Linux: it
  survives ``exec``, so a spawned child would report its parent's peak (a parent that rendered
  scenes shows ~600 MB in every child). A runner that crashes the interpreter costs its own
  row, not the run.
"""

from __future__ import annotations

import math
import os
import queue as queue_mod
import resource
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pictable.bench.core import (
    NOT_BUILT,
    CallFailed,
    NotBuiltYet,
    RunnerSpec,
    Sample,
    Settings,
    Task,
    Unavailable,
)
from pictable.bench.data import HD_SIZE_WH, letterbox, spread
from pictable.bench.results import FAILED, OK, UNAVAILABLE, Memory, RunnerResult, Timing

#: Thread-count variables pinned to 1 for the run (OpenMP, OpenBLAS, MKL, numexpr, Accelerate).
THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)

Tick = Callable[[int], None]


def pin_threads_env() -> None:
    """Set the thread-count variables to 1 (effective for libraries loaded afterwards and for
    child processes)."""
    for name in THREAD_ENV_VARS:
        os.environ[name] = "1"


def single_thread_opencv() -> None:
    """``cv2.setNumThreads(1)``: OpenCV's own parallel loops on one thread."""
    import cv2

    cv2.setNumThreads(1)


def _status_kb(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (VmRSS, VmHWM), in bytes; None without /proc."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def current_rss_bytes() -> int | None:
    """Resident set size now (``VmRSS``); None where there is no /proc."""
    return _status_kb("VmRSS")


def reset_peak_rss() -> bool:
    """Restart the resident-set high-water mark (``VmHWM``) from the current resident set, by
    writing 5 to ``/proc/self/clear_refs`` (Linux 4.0+). False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def peak_rss_bytes() -> int:
    """High-water mark of the resident set: ``VmHWM`` where there is /proc (it belongs to this
    process image and can be reset), else ``getrusage`` ``ru_maxrss``. The latter is not used on
    Linux because it survives exec: a spawned child starts with its parent's peak."""
    hwm = _status_kb("VmHWM")
    if hwm is not None:
        return hwm
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return int(peak if sys.platform == "darwin" else peak * 1024)


def timed_repeats(n_samples: int, repeats: int, min_calls: int) -> int:
    """Passes needed so that at least ``min_calls`` calls are timed (never fewer than
    ``repeats``); small tasks such as two feature pairs get more passes."""
    if n_samples <= 0:
        return 0
    return max(repeats, math.ceil(min_calls / n_samples))


def hd_samples(task: Task, samples: Sequence[Sample], settings: Settings) -> list[Sample]:
    """The samples timed letterboxed to 1280x720 (none for tasks without an HD pass)."""
    if not task.hd_timing:
        return []
    return spread(samples, settings.hd_limit)


def planned_calls(task: Task, samples: Sequence[Sample], settings: Settings) -> int:
    """How many runner calls :func:`measure_runner` makes (the progress bar's units)."""
    n = len(samples)
    own = n * timed_repeats(n, settings.repeats, settings.min_timed_calls)
    hd = hd_samples(task, samples, settings)
    hd_calls = len(hd) * timed_repeats(len(hd), settings.hd_repeats, settings.min_timed_calls)
    return (settings.warmup if n else 0) + own + hd_calls


def _stats(times_ns: list[int], sizes: set[tuple[int, int]]) -> Timing | None:
    if not times_ns:
        return None
    ms = np.asarray(times_ns, dtype=np.float64) / 1e6
    return Timing(
        median_ms=float(np.median(ms)),
        p95_ms=float(np.percentile(ms, 95)),
        calls=len(times_ns),
        frame_size=_size_range(sizes),
    )


def _size_range(sizes: set[tuple[int, int]]) -> str:
    if not sizes:
        return ""
    ordered = sorted(sizes, key=lambda wh: (wh[0] * wh[1], wh))
    lo, hi = ordered[0], ordered[-1]
    if lo == hi:
        return f"{lo[0]}x{lo[1]}"
    return f"{lo[0]}x{lo[1]} to {hi[0]}x{hi[1]}"


def _call(runner: Any, frame: Any, sample: Sample) -> tuple[Any, int]:
    """Run one call; any exception becomes a ``CallFailed`` output (a reader that raises on a
    strange image is measured as a miss, it does not stop the run)."""
    t0 = time.perf_counter_ns()
    try:
        out = runner(frame, sample)
    except Exception as exc:
        out = CallFailed(_one_line(exc))
    return out, time.perf_counter_ns() - t0


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"


def runner_version(spec: RunnerSpec) -> str:
    """The library version a runner reports ("" when unknown)."""
    if spec.version is None:
        return ""
    try:
        return spec.version()
    except Exception:  # a version probe must never fail the run
        return ""


def measure_runner(
    task: Task,
    spec: RunnerSpec,
    samples: Sequence[Sample],
    settings: Settings,
    tick: Tick = lambda n: None,
    isolated: bool = False,
) -> RunnerResult:
    """Run ``spec`` over ``samples`` in this process and return its figures.

    ``tick(n)`` is called after each runner call (for the progress bar). ``isolated`` says
    whether this process runs nothing else (it decides how memory is read). Errors of the
    runner are results (status ``not built yet`` / ``unavailable`` / ``failed``), not raised.
    """
    started = time.perf_counter()
    result = RunnerResult(
        name=spec.name,
        label=spec.label,
        kind=spec.kind,
        status=OK,
        version=runner_version(spec),
        target=spec.target or "",
    )
    rss_before = current_rss_bytes()
    peak_reset = reset_peak_rss()
    peak_before = peak_rss_bytes()
    t0 = time.perf_counter_ns()
    try:
        runner = spec.build(samples)
    except NotBuiltYet as exc:
        result.status, result.reason = NOT_BUILT, str(exc)
        return result
    except Unavailable as exc:
        result.status, result.reason = UNAVAILABLE, str(exc)
        return result
    except Exception as exc:  # a broken setup (bad adapter, unreadable reference) is a result
        result.status, result.reason = FAILED, f"setup: {_one_line(exc)}"
        result.details["traceback"] = traceback.format_exc()
        return result
    result.setup_ms = (time.perf_counter_ns() - t0) / 1e6

    try:
        _run_passes(task, runner, samples, settings, tick, result)
    except Exception as exc:  # the harness reports a broken runner or scorer, then goes on
        result.status = FAILED
        result.reason = _one_line(exc)
        result.details["traceback"] = traceback.format_exc()

    peak_after = peak_rss_bytes()
    if peak_reset and rss_before is not None:
        result.memory = Memory(
            peak_rss_mb=peak_after / 2**20 if isolated else None,
            delta_mb=max(0, peak_after - rss_before) / 2**20,
            method=(
                "VmHWM reset before the runner was built (clear_refs); delta over VmRSS then"
                + ("" if isolated else "; shared process")
            ),
        )
    else:
        result.memory = Memory(
            peak_rss_mb=peak_after / 2**20 if isolated else None,
            delta_mb=max(0, peak_after - peak_before) / 2**20,
            method="growth of the process's peak RSS (cannot be reset here): a lower bound",
        )
    result.wall_s = time.perf_counter() - started
    return result


def _run_passes(
    task: Task,
    runner: Any,
    samples: Sequence[Sample],
    settings: Settings,
    tick: Tick,
    result: RunnerResult,
) -> None:
    n = len(samples)
    if n == 0:
        result.status, result.reason = FAILED, "no samples"
        return
    for i in range(settings.warmup):
        sample = samples[i % n]
        _call(runner, sample.load(), sample)
        tick(1)

    outputs: list[Any] = [None] * n
    times: list[int] = []
    sizes: set[tuple[int, int]] = set()
    for rep in range(timed_repeats(n, settings.repeats, settings.min_timed_calls)):
        for i, sample in enumerate(samples):
            frame = sample.load()
            sizes.add((frame.shape[1], frame.shape[0]))
            out, dt = _call(runner, frame, sample)
            times.append(dt)
            if rep == 0:
                outputs[i] = out
            tick(1)
    result.own = _stats(times, sizes)

    finished: Any = None
    finish = getattr(runner, "finish", None)
    if callable(finish):
        t0 = time.perf_counter_ns()
        try:
            finished = finish(outputs, samples)
        except Exception as exc:
            finished = CallFailed(_one_line(exc))
        result.finish_ms = (time.perf_counter_ns() - t0) / 1e6

    hd = hd_samples(task, samples, settings)
    hd_times: list[int] = []
    for _ in range(timed_repeats(len(hd), settings.hd_repeats, settings.min_timed_calls)):
        for sample in hd:
            frame = letterbox(sample.load(), HD_SIZE_WH)
            _, dt = _call(runner, frame, sample)
            hd_times.append(dt)
            tick(1)
    result.hd = _stats(hd_times, {HD_SIZE_WH} if hd_times else set())

    failures = [o for o in outputs if isinstance(o, CallFailed)]
    if isinstance(finished, CallFailed):
        failures.append(finished)
    result.errors = len(failures)
    result.error_examples = sorted({f.error for f in failures})[:3]

    score = task.score(samples, outputs, finished)
    result.metrics = dict(score.metrics)
    result.notes = list(score.notes)
    result.details.update(score.details)


# ---- process isolation -------------------------------------------------------------------


class _BatchedTick:
    """Progress ticks sent to the parent at most ten times a second, so that the queue's feeder
    thread stays quiet while calls are being timed."""

    def __init__(self, channel: Any) -> None:
        self._channel = channel
        self._pending = 0
        self._last = time.monotonic()

    def __call__(self, n: int) -> None:
        self._pending += n
        if time.monotonic() - self._last >= 0.1:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self._channel.put(("tick", self._pending))
            self._pending = 0
        self._last = time.monotonic()


def _child_main(
    task: Task, runner_name: str, samples: list[Sample], settings: Settings, channel: Any
) -> None:
    """Entry point of a runner's own process: measure, then send the result back."""
    try:
        single_thread_opencv()
        spec = task.runner(runner_name)
        tick = _BatchedTick(channel)
        result = measure_runner(task, spec, samples, settings, tick=tick, isolated=True)
        tick.flush()
        channel.put(("result", result))
    except BaseException:
        channel.put(("crash", traceback.format_exc()))


def measure_isolated(
    task: Task,
    spec: RunnerSpec,
    samples: Sequence[Sample],
    settings: Settings,
    tick: Tick = lambda n: None,
) -> RunnerResult:
    """:func:`measure_runner` in a fresh ``spawn`` process (one per runner).

    The task object is pickled to the child, so its loaders, factories and scorers must be
    module-level functions (or ``functools.partial`` of them).
    """
    import multiprocessing
    import pickle

    try:
        pickle.dumps((task, list(samples)))
    except Exception as exc:
        return RunnerResult(
            name=spec.name,
            label=spec.label,
            kind=spec.kind,
            status=FAILED,
            reason=f"task cannot be sent to a runner process ({exc}); use --isolation inline",
        )
    ctx = multiprocessing.get_context("spawn")
    channel = ctx.Queue()
    proc = ctx.Process(
        target=_child_main,
        args=(task, spec.name, list(samples), settings, channel),
        name=f"bench-{task.name}-{spec.name}",
        daemon=True,
    )
    started = time.perf_counter()
    proc.start()
    result: RunnerResult | None = None
    crash = ""
    try:
        while result is None and not crash:
            try:
                kind, payload = channel.get(timeout=0.5)
            except queue_mod.Empty:
                if proc.is_alive():
                    continue
                try:  # the child may have exited right after its last message
                    kind, payload = channel.get(timeout=1.0)
                except queue_mod.Empty:
                    break
            if kind == "tick":
                tick(payload)
            elif kind == "result":
                result = payload
            else:
                crash = str(payload)
        proc.join(timeout=60)
    finally:
        if proc.is_alive():
            proc.terminate()
            proc.join(timeout=10)
        channel.close()
    if result is not None:
        return result
    reason = crash.strip().splitlines()[-1] if crash else f"exit code {proc.exitcode}"
    failed = RunnerResult(
        name=spec.name,
        label=spec.label,
        kind=spec.kind,
        status=FAILED,
        reason=f"runner process failed: {reason}",
        version=runner_version(spec),
        wall_s=time.perf_counter() - started,
    )
    if crash:
        failed.details["traceback"] = crash
    return failed
