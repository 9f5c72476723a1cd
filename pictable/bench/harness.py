"""Running a set of tasks: load their samples, run every runner, collect the figures."""

from __future__ import annotations

import datetime as dt
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from pictable.bench.core import (
    NOT_BUILT,
    DataMissing,
    NotBuiltYet,
    RunnerSpec,
    Sample,
    Settings,
    Task,
    resolve,
)
from pictable.bench.measure import (
    measure_isolated,
    measure_runner,
    planned_calls,
    runner_version,
    single_thread_opencv,
)
from pictable.bench.results import NO_DATA, OK, BenchResult, RunnerResult, TaskResult


def run_benchmarks(
    tasks: Sequence[Task],
    settings: Settings,
    *,
    command: str = "pictable bench",
    progress: bool = True,
) -> BenchResult:
    """Run every runner of every task in ``tasks`` and return the figures.

    Samples of each task are loaded once and given to all its runners, so pictable and the
    plain libraries are measured on the same images in the same run. A task whose data is
    missing gets status ``no data``; one whose rendered source is not written yet, ``not built
    yet``. pictable runners that are not built yet are reported without starting a process.
    """
    from pictable.bench.report import machine_summary

    started = time.perf_counter()
    machine = machine_summary()
    single_thread_opencv()
    prepared = [_prepare(task, settings) for task in tasks]
    plan: list[tuple[TaskResult, Task, RunnerSpec, list[Sample]]] = []
    total = 0
    for task, task_result, samples, to_run in prepared:
        for spec in to_run:
            plan.append((task_result, task, spec, samples))
            total += planned_calls(task, samples, settings)
    bar = _progress_bar(total, progress)
    try:
        for task_result, task, spec, samples in plan:
            bar.set_description(f"{task.name}: {spec.name}")
            if settings.isolation == "process":
                result = measure_isolated(task, spec, samples, settings, tick=bar.update)
            else:
                result = measure_runner(task, spec, samples, settings, tick=bar.update)
            task_result.runners.append(result)
    finally:
        bar.close()
    for task, task_result, _, _ in prepared:
        order = {spec.name: i for i, spec in enumerate(task.runners)}
        task_result.runners.sort(key=lambda r: order.get(r.name, len(order)))
    return BenchResult(
        command=command,
        date=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        wall_s=time.perf_counter() - started,
        machine={**machine, "load_average_end": _load_average()},
        settings=_settings_summary(settings),
        data_dir=str(settings.data_dir) if settings.data_dir else None,
        tasks=[task_result for _, task_result, _, _ in prepared],
    )


def _prepare(
    task: Task, settings: Settings
) -> tuple[Task, TaskResult, list[Sample], list[RunnerSpec]]:
    """The task's result so far (not-built rows filled in), its samples, and the runners
    to measure."""
    result = TaskResult(
        name=task.name,
        title=task.title,
        description=task.description,
        source_kind=task.source.kind,
        source_label=task.source.label,
        status=OK,
        metrics=[asdict(m) for m in task.metrics],
        hd_timing=task.hd_timing,
    )
    early = [_not_built(spec) for spec in task.runners]
    result.runners = [e for e in early if e is not None]
    to_run = [spec for spec, e in zip(task.runners, early, strict=True) if e is None]
    if not to_run:
        # Nothing can run: do not read or render the samples.
        result.status, result.reason = NOT_BUILT, "no runner of this task is built yet"
        return task, result, [], []
    samples: list[Sample] = []
    try:
        samples = task.source.loader(settings)
    except DataMissing as exc:
        result.status, result.reason = NO_DATA, str(exc)
    except NotBuiltYet as exc:
        result.status, result.reason = NOT_BUILT, str(exc)
    if result.status == OK and not samples:
        result.status, result.reason = NO_DATA, "the data source yielded no samples"
    if result.status != OK:
        result.runners = [_skipped(spec, result.status, result.reason) for spec in task.runners]
        print(f"pictable bench: {task.name}: {result.status}: {result.reason}", file=sys.stderr)
        to_run = []
    result.samples = len(samples)
    result.sample_ids = [s.id for s in samples]
    return task, result, samples, to_run


def _skipped(spec: RunnerSpec, status: str, reason: str) -> RunnerResult:
    return RunnerResult(
        name=spec.name,
        label=spec.label,
        kind=spec.kind,
        status=status,
        reason=reason,
        version=runner_version(spec),
        target=spec.target or "",
    )


def _not_built(spec: RunnerSpec) -> RunnerResult | None:
    """A result for a planned runner whose code is absent; None when it resolves or is a
    plain-library runner."""
    if spec.target is None:
        return None
    try:
        resolve(spec.target)
    except NotBuiltYet as exc:
        return _skipped(spec, NOT_BUILT, str(exc))
    return None


def _settings_summary(settings: Settings) -> dict[str, Any]:
    summary = asdict(settings)
    for key in ("data_dir", "cache_dir"):
        summary.pop(key, None)
    return summary


def _load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def set_description(self, desc: str) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="call", file=sys.stderr, dynamic_ncols=True, leave=True)
