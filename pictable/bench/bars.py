"""The metrics that may only improve: ``benchmarks/bars.json`` and the check of a run against it.

Layout of the bars file::

    {"tasks": {"qr-real": {"samples": 121,
                           "runners": {"zxing-cpp": {"correct": {"min": 112},
                                                     "misreads": {"max": 0}},
                                       "pictable": {"correct": {"min_of_runners":
                                                                ["zxing-cpp", "pyzbar"]}}}}}}

A bar is ``{"min": x}`` (the figure must be at least x), ``{"max": x}`` (at most x) or
``{"min_of_runners": [names]}`` (at least the best of those runners' figures in the same run).
Bars are for the full run: a task run on another number of samples (``--quick``, ``--limit``)
is skipped, not judged; so is a runner that is not built yet, so a bar can be written before
the reader exists and starts to bite the day it does. A runner that failed, or a figure that
is missing, fails its bar. When a figure improves, raise the bar in the same change.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pictable.bench.core import NOT_BUILT
from pictable.bench.data import repo_root

PASS, FAIL, SKIP = "pass", "fail", "skip"


def default_bars_path() -> Path:
    """``<repo>/benchmarks/bars.json``."""
    return repo_root() / "benchmarks" / "bars.json"


def load_bars(path: Path | None = None) -> dict[str, Any]:
    """The bars file (default :func:`default_bars_path`); ``ValueError`` when malformed."""
    path = path or default_bars_path()
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict):
        raise ValueError(f"{path}: a bars file is an object with a 'tasks' object")
    return data


@dataclass(frozen=True)
class BarCheck:
    """One bar against one figure."""

    task: str
    runner: str
    metric: str
    bar: str
    value: float | int | None
    status: str
    reason: str = ""

    def __str__(self) -> str:
        where = f"{self.task} / {self.runner} / {self.metric}"
        text = f"{self.status.upper()} {where}: {self.value} (bar: {self.bar})"
        return f"{text}: {self.reason}" if self.reason else text


@dataclass
class BarReport:
    """Every check made; ``ok`` is False when any failed."""

    checks: list[BarCheck] = field(default_factory=list)

    @property
    def failures(self) -> list[BarCheck]:
        """The checks that failed."""
        return [c for c in self.checks if c.status == FAIL]

    @property
    def ok(self) -> bool:
        """No check failed (skipped ones do not count)."""
        return not self.failures

    def summary(self) -> str:
        """One line per check, failures first, then a count line."""
        order = {FAIL: 0, PASS: 1, SKIP: 2}
        lines = [str(c) for c in sorted(self.checks, key=lambda c: order[c.status])]
        n = {s: sum(c.status == s for c in self.checks) for s in (PASS, FAIL, SKIP)}
        lines.append(f"bars: {n[PASS]} passed, {n[FAIL]} failed, {n[SKIP]} skipped")
        return "\n".join(lines)


def _describe(rule: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in rule.items())


def check_bars(result: Mapping[str, Any], bars: Mapping[str, Any]) -> BarReport:
    """Check a run (the JSON of :func:`pictable.bench.report.to_json`) against ``bars``."""
    report = BarReport()
    tasks = {t["name"]: t for t in result.get("tasks", [])}
    for task_name, task_bars in bars.get("tasks", {}).items():
        runners_bars: Mapping[str, Any] = task_bars.get("runners", {})
        task = tasks.get(task_name)
        skip_reason = ""
        if task is None:
            skip_reason = "task not in this run"
        elif task.get("status") != "ok":
            skip_reason = f"task {task.get('status')}: {task.get('reason', '')}"
        elif "samples" in task_bars and task.get("samples") != task_bars["samples"]:
            skip_reason = (
                f"ran on {task.get('samples')} samples, the bar is for {task_bars['samples']} "
                "(a --quick or partial run)"
            )
        runs = {r["name"]: r for r in task.get("runners", [])} if task else {}
        for runner_name, metric_bars in runners_bars.items():
            for metric, rule in metric_bars.items():
                report.checks.append(
                    _check_one(task_name, runner_name, metric, rule, runs, skip_reason)
                )
    return report


def _check_one(
    task: str,
    runner: str,
    metric: str,
    rule: Mapping[str, Any],
    runs: Mapping[str, Any],
    skip_reason: str,
) -> BarCheck:
    def make(status: str, value: Any = None, reason: str = "") -> BarCheck:
        return BarCheck(task, runner, metric, _describe(rule), value, status, reason)

    if skip_reason:
        return make(SKIP, reason=skip_reason)
    run = runs.get(runner)
    if run is None:
        return make(FAIL, reason="runner not in this run")
    if run.get("status") == NOT_BUILT:
        return make(SKIP, reason="not built yet")
    if run.get("status") != "ok":
        return make(FAIL, reason=f"runner {run.get('status')}: {run.get('reason', '')}")
    value = run.get("metrics", {}).get(metric)
    if value is None:
        return make(FAIL, reason="no figure")
    unknown = set(rule) - {"min", "max", "min_of_runners"}
    if unknown:
        raise ValueError(f"bar for {task}/{runner}/{metric} has unknown keys {sorted(unknown)}")
    if "min" in rule and value < rule["min"]:
        return make(FAIL, value, f"below the bar {rule['min']}")
    if "max" in rule and value > rule["max"]:
        return make(FAIL, value, f"above the bar {rule['max']}")
    if "min_of_runners" in rule:
        others = {
            name: runs[name]["metrics"].get(metric)
            for name in rule["min_of_runners"]
            if name in runs and runs[name].get("status") == "ok"
        }
        others = {k: v for k, v in others.items() if v is not None}
        if not others:
            return make(SKIP, value, "none of the compared runners has a figure")
        best_name = max(others, key=lambda k: others[k])
        if value < others[best_name]:
            return make(FAIL, value, f"below {best_name} ({others[best_name]}) in the same run")
    return make(PASS, value)
