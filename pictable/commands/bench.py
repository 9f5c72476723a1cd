"""``pictable bench``: measure pictable's readers beside the plain libraries and write
BENCHMARKS.md."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

HELP = "measure the readers beside the plain libraries; write BENCHMARKS.md"

DESCRIPTION = """\
Runs every benchmark task: pictable's readers and the plain libraries (pyzbar, zxing-cpp,
OpenCV) on the same images in the same run, over the real photos of the data folder and over
rendered table scenes per tier. Writes accuracy, milliseconds per frame (median and p95, one
thread, at the photos' own size and letterboxed to 1280x720) and peak memory to BENCHMARKS.md.
Readers that do not exist yet are listed as "not built yet".
"""

EPILOG = """\
examples:
  pictable bench --quick                       about a minute
  pictable bench --json out/bench.json --check-bars
  pictable bench --tasks qr-real --data ~/pictable-data
  pictable bench --list

The data folder is --data DIR, else $PICTABLE_DATA, else <repo>/../shared/data.
Exit status: 0 done, 1 a bar of benchmarks/bars.json failed (with --check-bars), 2 bad
arguments or no data folder.
"""


def register(subparsers: Any) -> None:
    """Add the ``bench`` subcommand."""
    p = subparsers.add_parser(
        "bench",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--quick", action="store_true", help="the one-minute profile")
    p.add_argument(
        "--tasks",
        metavar="PATTERNS",
        help="comma-separated task names or shell patterns (default: all), e.g. 'qr-real,synth-*'",
    )
    p.add_argument("--list", action="store_true", help="list the tasks and runners, run nothing")
    p.add_argument("--data", metavar="DIR", help="the real-photo data folder")
    p.add_argument(
        "--out", metavar="FILE", help="the Markdown report (default: <repo>/BENCHMARKS.md)"
    )
    p.add_argument("--json", metavar="FILE", help="also write the raw figures as JSON")
    p.add_argument(
        "--check-bars",
        nargs="?",
        const="",
        metavar="BARS",
        help="check the figures against benchmarks/bars.json (or BARS); exit 1 if one drops",
    )
    p.add_argument("--limit", type=int, metavar="N", help="at most N samples per task")
    p.add_argument("--repeats", type=int, metavar="N", help="timed passes at own size")
    p.add_argument("--scenes", type=int, metavar="N", help="rendered scenes per tier")
    p.add_argument("--seed", type=int, default=0, help="seed of the rendered scenes (default 0)")
    p.add_argument(
        "--cache",
        metavar="DIR",
        help="where rendered scenes are kept (default: <repo>/cache/bench)",
    )
    p.add_argument(
        "--isolation",
        choices=("process", "inline"),
        default="process",
        help="run each runner in its own process (default; honest peak memory) or inline",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _command_line(args: argparse.Namespace) -> str:
    parts = ["pictable", "bench"]
    if args.quick:
        parts.append("--quick")
    for flag in ("tasks", "data", "out", "json", "limit", "repeats", "scenes", "cache"):
        value = getattr(args, flag)
        if value is not None:
            parts += [f"--{flag}", str(value)]
    if args.seed:
        parts += ["--seed", str(args.seed)]
    if args.isolation != "process":
        parts += ["--isolation", args.isolation]
    if args.check_bars is not None:
        parts += ["--check-bars"] + ([args.check_bars] if args.check_bars else [])
    return shlex.join(parts)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark (see ``pictable bench --help``)."""
    # One thread for every library, set before numpy/OpenCV load here or in runner processes.
    from pictable.bench.measure import pin_threads_env

    pin_threads_env()

    from pictable.bench import (
        BenchError,
        DataMissing,
        Settings,
        check_bars,
        default_bars_path,
        find_data_dir,
        load_bars,
        readers,
        run_benchmarks,
        select_tasks,
        to_json,
        write_json,
        write_markdown,
    )
    from pictable.bench.core import resolve
    from pictable.bench.data import repo_root

    patterns = [p.strip() for p in args.tasks.split(",") if p.strip()] if args.tasks else None
    report_names, harness_patterns = readers.select(patterns)
    try:
        tasks = select_tasks(harness_patterns) if harness_patterns != [] else []
    except BenchError as exc:
        print(f"pictable bench: {exc}", file=sys.stderr)
        return 2
    for name in ("limit", "repeats", "scenes"):
        value = getattr(args, name)
        if value is not None and value < 1:
            print(f"pictable bench: --{name} must be at least 1, got {value}", file=sys.stderr)
            return 2

    if args.list:
        for name in report_names:
            target, title = readers.READER_REPORTS[name]
            print(f"{name}: {title}, measured by {target}")
        for task in tasks:
            print(f"{task.name}: {task.title} [{task.source.label}]")
            for spec in task.runners:
                status = ""
                if spec.target is not None:
                    try:
                        resolve(spec.target)
                        status = f"  ({spec.target})"
                    except BenchError as exc:
                        status = f"  (not built yet: {exc})"
                print(f"  {spec.name}: {spec.label}{status}")
        return 0

    out = Path(args.out) if args.out else repo_root() / "BENCHMARKS.md"
    if not tasks:
        return _run_reports(args, report_names, out)

    needs_data = any(t.source.kind == "real" for t in tasks)
    data_dir: Path | None = None
    try:
        data_dir = find_data_dir(args.data)
    except DataMissing as exc:
        if needs_data or args.data is not None:
            print(f"pictable bench: {exc}", file=sys.stderr)
            return 2

    profile = Settings.quick_profile if args.quick else Settings.full
    overrides: dict[str, Any] = {
        "data_dir": data_dir,
        "seed": args.seed,
        "isolation": args.isolation,
    }
    if args.limit is not None:
        overrides["limit"] = args.limit
    if args.repeats is not None:
        overrides["repeats"] = args.repeats
    if args.scenes is not None:
        overrides["scenes_per_tier"] = args.scenes
    if args.cache is not None:
        overrides["cache_dir"] = Path(args.cache)
    settings = profile(**overrides)

    result = run_benchmarks(
        tasks, settings, command=_command_line(args), progress=not args.no_progress
    )
    write_markdown(result, out)
    print(f"wrote {out} ({result.wall_s:.0f} s)")
    if report_names:
        _run_reports(args, report_names, out)
    else:  # the reader reports measured before stay in the file
        folder = repo_root() / "benchmarks" / "readers"
        if folder.is_dir() and any(folder.glob("*.json")):
            readers.splice(out, readers.block(folder))
    if args.json:
        write_json(result, Path(args.json))
        print(f"wrote {args.json}")

    if args.check_bars is not None:
        bars_path = Path(args.check_bars) if args.check_bars else default_bars_path()
        try:
            bars = load_bars(bars_path)
        except (OSError, ValueError) as exc:
            print(f"pictable bench: cannot read bars {bars_path}: {exc}", file=sys.stderr)
            return 2
        report = check_bars(to_json(result), bars)
        print(report.summary())
        if not report.ok:
            return 1
    return 0


def _run_reports(args: argparse.Namespace, names: list[str], out: Path) -> int:
    """Runs the reader reports ``names`` and writes their part of ``out``."""
    from pictable.bench import readers
    from pictable.bench.data import repo_root

    profile = "quick" if args.quick else "full"
    folder = repo_root() / "benchmarks" / "readers"
    fresh = []
    for name in names:
        print(f"{name}: measuring ({profile} profile)...", flush=True)
        entry = readers.run_report(name, profile)
        fresh.append(entry)
        readers.keep(entry, folder)
        if entry["status"] == "ok":
            print(f"{name}: done in {entry['seconds']} s")
            for row in entry["result"].get("summary", []):
                met = {True: "met", False: "NOT MET"}.get(row.get("met"), "")
                print(f"  {row.get('figure')}: {row.get('value')} (bar {row.get('target')}) {met}")
        else:
            print(f"{name}: {entry['status']} {entry.get('reason', '')}".rstrip())
    readers.splice(out, readers.block(folder, fresh))
    print(f"wrote the reader reports into {out}")
    return 1 if any(str(e["status"]).startswith("failed") for e in fresh) else 0
