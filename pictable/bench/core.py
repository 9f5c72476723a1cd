"""The benchmark vocabulary: samples, runners, tasks, settings and the task registry.

A *task* is one measurable job (read the QR codes in ZXing's photos, find the ArUco markers in
OpenCV's tutorial photos, ...). It owns a data source that yields *samples* (an image file plus
its ground truth), a scoring function, and the *runners* that do the job: pictable's reader and
the plain libraries, all run on the same samples in the same run.

Runner protocol: a runner is a callable ``runner(frame, sample) -> output`` where ``frame`` is
the sample's image as (H, W, 3) uint8 BGR and ``output`` is whatever the task's scoring function
reads (for vision readers: the per-image object of the matching docs/formats.md section 3 command).
It may also have ``finish(outputs, samples) -> object``, a set-level step run once after all
frames (camera calibration), timed separately.

pictable's readers plug in as *planned* runners: a dotted path such as
``"vision.codes:decode_frame"`` looked up when the benchmark runs. Until the module and the
callable exist the runner reports "not built yet"; once they exist the same entry measures
them, with no change to the harness.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

NOT_BUILT = "not built yet"


class BenchError(RuntimeError):
    """Root of the benchmark errors (bad settings, unknown task names, ...)."""


class DataMissing(BenchError, FileNotFoundError):
    """A data folder or a task's part of it is not there. The message says where it looked."""


class NotBuiltYet(BenchError):
    """The code a runner or a data source needs does not exist yet (or does not import)."""


class Unavailable(BenchError):
    """A plain library a baseline runner needs is not installed or does not load."""


@dataclass(frozen=True)
class Sample:
    """One benchmark item: an image file and its ground truth.

    Attributes:
        id: Stable, human-readable name, e.g. ``"qrcode-2/17"``.
        path: The image file; frames are always read from disk so every runner, in every
            process, sees byte-identical input.
        truth: Ground truth in the task's own (JSON-able) form.
        extra: Other inputs the task needs (a reference image path, a dictionary name, ...).
    """

    id: str
    path: Path
    truth: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    def load(self) -> Any:
        """The image as (H, W, 3) uint8 BGR; ``ValueError`` when it cannot be read."""
        from pictable.bench.data import read_image

        return read_image(self.path)


class Runner(Protocol):
    """What a runner factory returns: ``runner(frame, sample) -> output``."""

    def __call__(self, frame: Any, sample: Sample, /) -> Any: ...


#: Builds a runner for the given samples (setup work here is not timed: building a detector,
#: registering a reference deck). Raise ``Unavailable`` when a library is missing.
RunnerFactory = Callable[[Sequence[Sample]], Runner]
#: Wraps a resolved pictable callable into a runner (translating its output if needed).
RunnerAdapter = Callable[[Callable[..., Any], Sequence[Sample]], Runner]


@dataclass(frozen=True)
class RunnerSpec:
    """A registered runner: a plain-library baseline or a (planned) pictable reader.

    Build with :meth:`library` or :meth:`planned`.
    """

    name: str
    label: str
    kind: Literal["pictable", "library"]
    factory: RunnerFactory | None = None
    target: str | None = None
    adapter: RunnerAdapter | None = None
    version: Callable[[], str] | None = None

    @classmethod
    def library(
        cls,
        name: str,
        label: str,
        factory: RunnerFactory,
        version: Callable[[], str] | None = None,
    ) -> RunnerSpec:
        """A plain-library baseline built by ``factory(samples)``."""
        return cls(name=name, label=label, kind="library", factory=factory, version=version)

    @classmethod
    def planned(
        cls,
        target: str,
        label: str,
        adapter: RunnerAdapter | None = None,
        name: str = "pictable",
    ) -> RunnerSpec:
        """A pictable reader found at ``target`` ("package.module:callable") when run.

        Without ``adapter`` the callable is called as ``fn(frame)``.
        """
        if ":" not in target:
            raise ValueError(f"target must look like 'package.module:callable', got {target!r}")
        return cls(name=name, label=label, kind="pictable", target=target, adapter=adapter)

    def build(self, samples: Sequence[Sample]) -> Runner:
        """The runner, ready to call. Raises ``NotBuiltYet`` or ``Unavailable``."""
        if self.target is not None:
            fn = resolve(self.target)
            if self.adapter is not None:
                return self.adapter(fn, samples)
            return _call_with_frame(fn)
        if self.factory is None:
            raise BenchError(f"runner {self.name!r} has neither a factory nor a target")
        try:
            return self.factory(samples)
        except ImportError as exc:
            raise Unavailable(f"{type(exc).__name__}: {exc}") from exc


def _call_with_frame(fn: Callable[..., Any]) -> Runner:
    def run(frame: Any, sample: Sample) -> Any:
        return fn(frame)

    return run


def resolve(target: str) -> Callable[..., Any]:
    """The callable at ``"package.module:attr.attr"``; ``NotBuiltYet`` when it is not there.

    A module that exists but fails to import (it is being written, or a dependency is missing)
    also counts as not built yet; the reason carries the error so it is not hidden.
    """
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise NotBuiltYet(f"module {module_name} does not exist yet") from exc
        raise NotBuiltYet(f"importing {module_name} failed: {exc}") from exc
    except Exception as exc:  # any import-time error of code in progress: report, do not crash
        raise NotBuiltYet(f"importing {module_name} failed: {type(exc).__name__}: {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise NotBuiltYet(f"{module_name} has no {attr} yet") from exc
    if not callable(obj):
        raise NotBuiltYet(f"{target} is not callable")
    return obj  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Metric:
    """One accuracy column of a task.

    Attributes:
        key: Name in the JSON figures and in bars.json.
        label: Column header in BENCHMARKS.md.
        fmt: ``"count"`` (shown as k/n when ``of`` names the total), ``"int"``, ``"px"``,
            ``"pct"`` (a 0..1 fraction shown as a percentage), ``"float"``.
        better: ``"higher"``, ``"lower"`` or ``None`` (informative only).
        of: Key of another metric (or ``"samples"``) that is this count's denominator.
    """

    key: str
    label: str
    fmt: Literal["count", "int", "px", "pct", "float"] = "count"
    better: Literal["higher", "lower"] | None = "higher"
    of: str | None = None


@dataclass(frozen=True)
class Settings:
    """How much to run. :meth:`quick` and :meth:`full` give the two standard profiles.

    Attributes:
        quick: The one-minute profile (fewer samples and repeats).
        repeats: Timed passes over the samples at their own size.
        hd_repeats: Timed passes over the samples letterboxed to 1280x720.
        warmup: Untimed calls before timing starts.
        limit: At most this many samples per task (evenly spaced, deterministic); None: all.
        hd_limit: At most this many samples for the 1280x720 timing; None: all.
        min_timed_calls: Tasks with few samples repeat until at least this many timed calls.
        isolation: ``"process"`` (each runner in its own fresh process: honest peak memory,
            a crash costs one row) or ``"inline"`` (in this process; memory is a lower bound).
        data_dir: The real-photo folder; None when not found (real tasks then error).
        cache_dir: Where rendered scenes are written for the run.
        seed: Seed of the rendered scenes.
        scenes_per_tier: Rendered scenes per tier.
    """

    quick: bool = False
    repeats: int = 3
    hd_repeats: int = 2
    warmup: int = 2
    limit: int | None = None
    hd_limit: int | None = None
    min_timed_calls: int = 20
    isolation: Literal["process", "inline"] = "process"
    data_dir: Path | None = None
    cache_dir: Path | None = None
    seed: int = 0
    scenes_per_tier: int = 40

    @classmethod
    def full(cls, **overrides: Any) -> Settings:
        """Every sample, three timed passes at own size and two at 1280x720."""
        return replace(cls(), **overrides)

    @classmethod
    def quick_profile(cls, **overrides: Any) -> Settings:
        """About one minute: a third of the QR photos, one timed pass, few rendered scenes."""
        base = cls(
            quick=True,
            repeats=1,
            hd_repeats=1,
            warmup=1,
            limit=41,
            hd_limit=12,
            min_timed_calls=6,
            scenes_per_tier=3,
        )
        return replace(base, **overrides)


#: Loads a task's samples. Raises ``DataMissing`` or ``NotBuiltYet``.
SampleLoader = Callable[[Settings], list[Sample]]


@dataclass(frozen=True)
class DataSource:
    """Where a task's samples come from.

    Attributes:
        kind: ``"real"`` (photos in the data folder) or ``"rendered"`` (vision.synth scenes).
        label: One line for the report, e.g. ``"zxing-qrcode/qrcode-1..6 (real photos)"``.
        loader: ``loader(settings) -> list[Sample]``.
    """

    kind: Literal["real", "rendered"]
    label: str
    loader: SampleLoader


@dataclass(frozen=True)
class Score:
    """What a task's scoring function returns.

    Attributes:
        metrics: Figures by metric key (None when not computable, e.g. no detection at all).
        notes: Short lines for the report (misreads, per-folder breakdowns, ...).
        details: JSON-able per-sample outcomes, kept in the raw JSON.
    """

    metrics: dict[str, float | int | None]
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


#: ``score(samples, outputs, finished) -> Score``. ``outputs[i]`` is the runner's output for
#: ``samples[i]``, or a :class:`CallFailed` when the call raised; ``finished`` is what the
#: runner's ``finish`` step returned (None when it has none).
ScoreFn = Callable[[Sequence[Sample], Sequence[Any], Any], Score]


@dataclass(frozen=True)
class CallFailed:
    """Stands in for the output of a runner call that raised."""

    error: str


@dataclass(frozen=True)
class Task:
    """A registered benchmark task.

    Attributes:
        name: Short id used on the command line, e.g. ``"qr-real"``.
        title: Heading in BENCHMARKS.md.
        source: Where the samples come from.
        score: The task's scoring function against ground truth.
        metrics: Its accuracy columns, in display order.
        runners: pictable's reader(s) first, then the plain libraries.
        description: A paragraph for the report (what is measured, and how).
        hd_timing: Also time every runner on the frames letterboxed to 1280x720 (for real
            photos of other sizes; rendered scenes are 1280x720 already).
    """

    name: str
    title: str
    source: DataSource
    score: ScoreFn
    metrics: tuple[Metric, ...]
    runners: tuple[RunnerSpec, ...]
    description: str = ""
    hd_timing: bool = True

    def runner(self, name: str) -> RunnerSpec:
        """The runner called ``name``; ``KeyError`` naming the known ones otherwise."""
        for spec in self.runners:
            if spec.name == name:
                return spec
        known = ", ".join(r.name for r in self.runners)
        raise KeyError(f"task {self.name!r} has no runner {name!r} (known: {known})")


_REGISTRY: dict[str, Task] = {}


def register(task: Task) -> Task:
    """Add ``task`` to the registry (replacing one of the same name) and return it."""
    _REGISTRY[task.name] = task
    return task


def registered_tasks() -> list[Task]:
    """Every registered task, in registration order (the built-in ones loaded first)."""
    import pictable.bench.tasks  # noqa: F401  (registers the built-in tasks)

    return list(_REGISTRY.values())


def select_tasks(patterns: Iterable[str] | None) -> list[Task]:
    """Registered tasks whose names match any of the shell-style ``patterns`` (all if None).

    Raises ``BenchError`` for a pattern that matches nothing.
    """
    from fnmatch import fnmatchcase

    tasks = registered_tasks()
    if not patterns:
        return tasks
    chosen: list[Task] = []
    for pattern in patterns:
        hits = [t for t in tasks if fnmatchcase(t.name, pattern)]
        if not hits:
            names = ", ".join(t.name for t in tasks)
            raise BenchError(f"no benchmark task matches {pattern!r} (tasks: {names})")
        chosen.extend(t for t in hits if t not in chosen)
    return chosen
