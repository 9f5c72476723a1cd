"""The sink: a run's figures as JSON and as BENCHMARKS.md, and the machine summary."""

from __future__ import annotations

import json
import math
import os
import platform
from collections import Counter
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from pictable.bench.core import NOT_BUILT
from pictable.bench.results import OK, BenchResult, RunnerResult, TaskResult

#: Version of the JSON layout; bump when keys change meaning.
SCHEMA = 1


# ---- machine ---------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gb() -> float | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except (OSError, ValueError):
        pass
    return None


def _dist(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _zbar_version() -> str:
    """The zbar shared library's package version where dpkg knows it, else its file name."""
    import ctypes.util
    import shutil
    import subprocess

    lib = ctypes.util.find_library("zbar")
    if lib is None:
        return "not found"
    if shutil.which("dpkg-query"):
        try:
            out = subprocess.run(
                ["dpkg-query", "-W", "-f=${Version}", "libzbar0"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            out = None
        if out is not None and out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return lib


def machine_summary() -> dict[str, Any]:
    """Cores, memory, OS, Python and the versions of the libraries measured."""
    try:
        import cv2

        opencv = str(cv2.__version__)
    except ImportError:
        opencv = "not installed"
    try:
        available = len(os.sched_getaffinity(0))
    except AttributeError:
        available = os.cpu_count() or 0
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {
        "load_average": load,
        "os": platform.platform(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "cores_available": available,
        "memory_gb": _memory_gb(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "libraries": {
            "numpy": _dist("numpy"),
            "opencv": opencv,
            "zxing-cpp": _dist("zxing-cpp"),
            "pyzbar": _dist("pyzbar"),
            "zbar": _zbar_version(),
            "tqdm": _dist("tqdm"),
        },
    }


# ---- JSON ------------------------------------------------------------------------------------


def to_json(result: BenchResult) -> dict[str, Any]:
    """The run as a JSON-able dict (``schema``, ``command``, ``date``, ``machine``,
    ``settings``, ``tasks`` with each runner's ``metrics``, ``own``/``hd`` timings and
    ``memory``)."""
    return {"schema": SCHEMA, **_jsonable(asdict(result))}


def _jsonable(obj: Any) -> Any:
    """Plain JSON values: non-finite floats become None (JSON has no NaN), paths and other
    objects their string."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, str | int | bool):
        return obj
    return str(obj)


def write_json(result: BenchResult, path: Path) -> None:
    """Write :func:`to_json` to ``path`` (UTF-8, indented)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(to_json(result), indent=1, ensure_ascii=False, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")


def load_json(path: Path) -> dict[str, Any]:
    """A JSON file written by :func:`write_json`; ``ValueError`` for another schema."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ValueError(f"{path} is not a pictable bench JSON file of schema {SCHEMA}")
    return data


# ---- Markdown --------------------------------------------------------------------------------


def _fmt_metric(value: Any, metric: dict[str, Any], totals: dict[str, Any]) -> str:
    if value is None:
        return "—"
    fmt = metric["fmt"]
    if fmt == "count":
        of = metric.get("of")
        total = totals.get(of) if of else None
        return f"{int(value)}/{int(total)}" if total is not None else str(int(value))
    if fmt == "int":
        return str(int(value))
    if fmt == "px":
        return f"{value:.2f} px"
    if fmt == "pct":
        return f"{value:.1f}%"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _ms(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _mb(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def _runner_cell(r: RunnerResult) -> str:
    if r.kind == "pictable":
        return f"**{r.label}**"
    return f"{r.name} {r.version}".strip()


def _status_text(r: RunnerResult) -> str:
    return {NOT_BUILT: "not built yet"}.get(r.status, r.status)


def _task_table(task: TaskResult) -> list[str]:
    metrics = task.metrics
    has_hd = task.hd_timing and any(r.hd for r in task.runners)
    has_finish = any(r.finish_ms is not None for r in task.runners)
    has_errors = any(r.errors for r in task.runners)
    own_label = "own size" if task.source_kind == "real" else "1280x720"
    head = ["runner", *(m["label"] for m in metrics)]
    head += [f"ms median ({own_label})", f"ms p95 ({own_label})"]
    if has_hd:
        head += ["ms median (1280x720)", "ms p95 (1280x720)"]
    if has_finish:
        head.append("set step ms")
    if has_errors:
        head.append("exceptions")
    head += ["peak RSS MB", "runner Δ MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in task.runners:
        cells = [_runner_cell(r)]
        if r.status != OK:
            cells.append(_status_text(r))
            cells += [""] * (len(head) - 2)
            lines.append("| " + " | ".join(cells) + " |")
            continue
        totals: dict[str, Any] = {"samples": task.samples, **r.metrics}
        cells += [_fmt_metric(r.metrics.get(m["key"]), m, totals) for m in metrics]
        cells += [_ms(r.own.median_ms if r.own else None), _ms(r.own.p95_ms if r.own else None)]
        if has_hd:
            cells += [_ms(r.hd.median_ms if r.hd else None), _ms(r.hd.p95_ms if r.hd else None)]
        if has_finish:
            cells.append(_ms(r.finish_ms))
        if has_errors:
            cells.append(str(r.errors))
        mem = r.memory
        cells += [_mb(mem.peak_rss_mb if mem else None), _mb(mem.delta_mb if mem else None)]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _task_section(task: TaskResult) -> list[str]:
    out = [f"## {task.title} (`{task.name}`)", ""]
    source = f"Source: {task.source_label}"
    if task.status == OK:
        source += f"; {task.samples} samples"
        own = next((r.own.frame_size for r in task.runners if r.own), "")
        if own:
            source += f" ({own})"
    source += "."
    out += [source, ""]
    if task.description:
        out += [task.description, ""]
    if task.status != OK:
        out += [f"**{_status_text_task(task)}**: {task.reason}", ""]
    out += _task_table(task)
    notes: list[tuple[str, str]] = []
    for r in task.runners:
        who = r.name
        if r.kind == "pictable":
            who = f"{r.label} (`{r.target}`)" if r.target else r.label
        elif r.status == OK:
            notes.append((who, r.label))
        if r.status != OK:
            notes.append((who, f"{_status_text(r)} ({r.reason})"))
            continue
        notes += [(who, n) for n in r.notes]
        if r.error_examples:
            notes.append((who, "exceptions, e.g. " + "; ".join(r.error_examples)))
    # A note that every measured runner got (the task's reference values) is said once.
    measured = [r for r in task.runners if r.status == OK]
    counts = Counter(text for _, text in notes)
    shared = {t for t, n in counts.items() if len(measured) > 1 and n == len(measured)}
    lines = [f"- {t}" for t in dict.fromkeys(t for _, t in notes if t in shared)]
    lines += [f"- {who}: {t}" for who, t in notes if t not in shared]
    if lines:
        out += ["", *lines]
    return [*out, ""]


def _status_text_task(task: TaskResult) -> str:
    return "Not built yet" if task.status == NOT_BUILT else task.status.capitalize()


def _settings_text(result: BenchResult) -> str:
    s = result.settings
    profile = "quick profile" if s.get("quick") else "full profile"
    limit = s.get("limit")
    parts = [
        profile,
        "all samples" if limit is None else f"at most {limit} samples per task (evenly spaced)",
        f"{s.get('repeats')} timed pass(es) at own size",
        (
            f"{s.get('hd_repeats')} pass(es) letterboxed to 1280x720 over "
            + ("all samples" if s.get("hd_limit") is None else f"{s.get('hd_limit')} samples")
        ),
        f"small tasks repeated to at least {s.get('min_timed_calls')} timed calls",
        f"{s.get('warmup')} warm-up call(s) not timed",
        f"{s.get('scenes_per_tier')} rendered scenes per tier (seed {s.get('seed')})",
        (
            "each runner in its own process"
            if s.get("isolation") == "process"
            else "all runners in one process"
        ),
    ]
    return "; ".join(parts) + "."


HOW_TO_READ = """\
How the figures are taken:

- **Same images, same run.** Every runner of a task gets the same files, read from disk before
  each call; pictable's reader is the bold row, the plain libraries follow.
- **Accuracy** uses each task's own scoring against the ground truth, described under its title.
- **Speed**: milliseconds per call of the runner alone (file reading, letterboxing and scoring
  not included), on **one thread** (`cv2.setNumThreads(1)`, `OMP_NUM_THREADS`,
  `OPENBLAS_NUM_THREADS`, `MKL_NUM_THREADS` = 1), warm-up excluded; median and 95th percentile
  over every timed call. Real photos are timed at their own size (stated per task), and again
  letterboxed to 1280x720 (scaled to fit, centred on grey), the webcam frame size the speed bars
  are quoted at. Rendered scenes are 1280x720 already.
- **Memory** is the resident set from the kernel, not `tracemalloc`, which cannot see what
  zbar, zxing-cpp or OpenCV allocate natively. Each runner runs in its own fresh process; its
  high-water mark is restarted just before the runner is built (`/proc/self/clear_refs`).
  *peak RSS* is that process's peak while the runner lived (`VmHWM`: interpreter, numpy and
  OpenCV included, about 90 MB of it); *runner Δ* is the peak minus the resident set just
  before the runner was built (library loading and initialisation, buffers, working images).
- **Machine load** is stated above: other work on the machine slows the timings (not the
  accuracy); compare speeds only between rows of one run.
- **not built yet**: a pictable reader registered by its dotted path whose code does not exist
  (or does not import) yet; it is measured as soon as it does.
"""


def to_markdown(result: BenchResult) -> str:
    """BENCHMARKS.md: command, date, machine, settings, then one table per task."""
    m = result.machine
    libs = ", ".join(f"{k} {v}" for k, v in m.get("libraries", {}).items())
    cores = f"{m.get('cores')} logical cores ({m.get('cores_available')} available to the run)"
    lines = [
        "# pictable benchmarks",
        "",
        f"Produced by `{result.command}` on {result.date}, in {result.wall_s:.0f} s.",
        "",
        f"Machine: {m.get('cpu')}, {cores}, {m.get('memory_gb')} GB RAM; {m.get('os')}; "
        f"{m.get('python')}; {libs}.",
        "",
        _load_text(m),
        "",
        f"Settings: {_settings_text(result)}",
        "",
        HOW_TO_READ,
    ]
    if result.data_dir:
        lines += [
            f"Real photos: the development set ({Path(result.data_dir).name}/, see its "
            "README.md); held-out items are not in it.",
            "",
        ]
    summary = _summary_table(result)
    if summary:
        lines += summary
    for task in result.tasks:
        lines += _task_section(task)
    return "\n".join(lines).rstrip() + "\n"


def _load_text(machine: dict[str, Any]) -> str:
    start, end = machine.get("load_average") or [], machine.get("load_average_end") or []
    if not start:
        return "Machine load: unknown."
    text = f"Machine load (1-minute load average): {start[0]} at the start"
    if end:
        text += f", {end[0]} at the end"
    cores = machine.get("cores_available") or machine.get("cores")
    return text + f", for {cores} cores (above the core count, timings are inflated)."


def _summary_table(result: BenchResult) -> list[str]:
    """One line per task: its headline accuracy for pictable and for the best plain library."""
    rows = []
    for task in result.tasks:
        if not task.metrics:
            continue
        headline = next((m for m in task.metrics if m.get("better") == "higher"), task.metrics[0])
        ours = next((r for r in task.runners if r.kind == "pictable"), None)
        libs = [r for r in task.runners if r.kind == "library" and r.status == OK]
        best = max(libs, key=lambda r: r.metrics.get(headline["key"]) or 0, default=None)

        def cell(
            r: RunnerResult | None, task: TaskResult = task, m: dict[str, Any] = headline
        ) -> str:
            if r is None:
                return "—"
            if r.status != OK:
                return _status_text(r)
            totals = {"samples": task.samples, **r.metrics}
            return _fmt_metric(r.metrics.get(m["key"]), m, totals)

        theirs = f"{cell(best)} ({best.name})" if best else "—"
        rows.append(f"| `{task.name}` | {headline['label']} | {cell(ours)} | {theirs} |")
    if not rows:
        return []
    head = [
        "## Summary",
        "",
        "| task | figure | pictable | best plain library |",
        "|---|---|---|---|",
    ]
    return [*head, *rows, ""]


def write_markdown(result: BenchResult, path: Path) -> None:
    """Write :func:`to_markdown` to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_markdown(result), encoding="utf-8")
