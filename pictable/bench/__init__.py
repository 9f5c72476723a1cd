"""``pictable bench``: pictable's readers beside the plain libraries, on the same images.

Public API:

- :class:`Task`, :class:`RunnerSpec`, :class:`DataSource`, :class:`Sample`, :class:`Metric`,
  :class:`Score`, :class:`Settings` and :func:`register` to define tasks
  (:mod:`pictable.bench.core` explains the runner protocol and planned runners);
- :func:`run_benchmarks` to run them, :func:`write_markdown` / :func:`write_json` to report;
- :func:`load_bars` / :func:`check_bars` for the metrics that may only improve.

The built-in tasks live in :mod:`pictable.bench.tasks`. Importing this package is cheap: the
libraries measured are imported by the runners, in the process that runs them.

Plugging in:

- *a pictable reader*: its task already lists it as
  ``RunnerSpec.planned("vision.codes:decode_frame", "pictable decode", codes_adapter)``; the
  row says "not built yet" until that callable imports, then it is measured. The adapters in
  :mod:`pictable.bench.adapters` turn the reader's output (docs/formats.md section 3 JSON, or
  dataclasses with the same fields) into what the task scores; point the dotted path at a thin
  wrapper if the reader's signature differs.
- *a task*: a :class:`Task` with a :class:`DataSource` loader, a scoring function and its
  runners, passed to :func:`register` (module-level functions only: tasks are pickled to the
  runner processes). Rendered tasks follow :mod:`pictable.bench.tasks.synth`.
"""

from pictable.bench.bars import BarReport, check_bars, default_bars_path, load_bars
from pictable.bench.core import (
    NOT_BUILT,
    BenchError,
    DataMissing,
    DataSource,
    Metric,
    NotBuiltYet,
    RunnerSpec,
    Sample,
    Score,
    Settings,
    Task,
    register,
    registered_tasks,
    select_tasks,
)
from pictable.bench.data import find_data_dir
from pictable.bench.harness import run_benchmarks
from pictable.bench.report import load_json, to_json, to_markdown, write_json, write_markdown

__all__ = [
    "NOT_BUILT",
    "BarReport",
    "BenchError",
    "DataMissing",
    "DataSource",
    "Metric",
    "NotBuiltYet",
    "RunnerSpec",
    "Sample",
    "Score",
    "Settings",
    "Task",
    "check_bars",
    "default_bars_path",
    "find_data_dir",
    "load_bars",
    "load_json",
    "register",
    "registered_tasks",
    "run_benchmarks",
    "select_tasks",
    "to_json",
    "to_markdown",
    "write_json",
    "write_markdown",
]
