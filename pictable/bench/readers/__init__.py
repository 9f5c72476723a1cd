"""Reader reports: each reader measures itself against its issue's bars.

Each reader's report is a module of its own in this package (``READER_REPORTS`` names it,
e.g. ``pictable.bench.readers.picmix:report``; the live pipeline's is ``pictable.bench.live``)
with ``report(profile) -> dict`` (profile ``"quick"`` or ``"full"``) returning
``{"title", "summary": [{"figure", "value", "target", "met"}], "markdown"}``.
``pictable bench`` runs each in a fresh process with one thread, keeps its result under
``benchmarks/readers/NAME.json`` (with the date, the profile, the time it took and the
command), and writes every kept report into BENCHMARKS.md between two marker lines, so a
run of one reader (``pictable bench --tasks reader-picasso``) updates its section and leaves
the others as they were measured.
"""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

READER_REPORTS: dict[str, tuple[str, str]] = {
    "reader-identify": ("pictable.bench.readers.identify:report", "Card identification"),
    "reader-picasso": ("pictable.bench.readers.picasso:report", "Picasso board"),
    "reader-picmix": ("pictable.bench.readers.picmix:report", "Picmix verification"),
    "reader-pickpic": ("pictable.bench.readers.pickpic:report", "Pick Pic from the camera"),
    "reader-picflip": ("pictable.bench.readers.picflip:report", "Pic Flip from the camera"),
    "reader-decode": ("pictable.bench.readers.decode:report", "Code reader speed"),
    "live-play": ("pictable.bench.live:report", "The live pipeline"),
    "startup": ("pictable.bench.readers.startup:report", "Start-up"),
}
BEGIN = "<!-- reader reports: begin (written by pictable bench) -->"
END = "<!-- reader reports: end -->"
NOT_BUILT = "not built yet"

_CHILD = """
import json, sys
import cv2
cv2.setNumThreads(1)
from importlib import import_module
module, _, attr = sys.argv[1].partition(":")
try:
    fn = getattr(import_module(module), attr)
except (ImportError, AttributeError) as exc:
    json.dump({"status": "not built yet", "reason": str(exc)}, open(sys.argv[3], "w"))
    sys.exit(0)
result = fn(sys.argv[2])
json.dump({"status": "ok", "result": result}, open(sys.argv[3], "w"), default=str)
"""


def select(patterns: list[str] | None) -> tuple[list[str], list[str] | None]:
    """(reader report names, the remaining harness patterns) for ``--tasks`` patterns;
    ``None`` patterns select everything (harness patterns None)."""
    if patterns is None:
        return list(READER_REPORTS), None
    names: list[str] = []
    rest: list[str] = []
    for pattern in patterns:
        hits = [n for n in READER_REPORTS if fnmatch.fnmatchcase(n, pattern)]
        names += [n for n in hits if n not in names]
        if not hits or pattern in ("*",):
            rest.append(pattern)
    return names, rest


def run_report(name: str, profile: str, *, timeout_s: float = 3600.0) -> dict[str, Any]:
    """Runs one reader's report in a fresh single-threaded process."""
    target, title = READER_REPORTS[name]
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        try:
            proc = subprocess.run(
                [sys.executable, "-c", _CHILD, target, profile, str(out)],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                env=env,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            return {"name": name, "title": title, "status": f"failed: over {timeout_s:.0f} s"}
        elapsed = time.monotonic() - started
        if proc.returncode != 0 or not out.is_file():
            tail = (proc.stderr or "").strip().splitlines()[-3:]
            return {"name": name, "title": title, "status": "failed: " + " | ".join(tail)}
        data = json.loads(out.read_text("utf-8"))
    entry: dict[str, Any] = {"name": name, "title": title, "status": data["status"]}
    if data["status"] == "ok":
        entry.update(
            result=data["result"],
            profile=profile,
            seconds=round(elapsed, 1),
            date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            command=f"pictable bench --tasks {name}" + (" --quick" if profile == "quick" else ""),
        )
    else:
        entry["reason"] = data.get("reason", "")
    return entry


def keep(entry: dict[str, Any], folder: Path) -> None:
    """Stores a successful report (others leave the last good one in place)."""
    if entry.get("status") != "ok":
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{entry['name']}.json").write_text(json.dumps(entry, indent=1) + "\n", "utf-8")


def _mark(met: Any) -> str:
    return {True: "yes", False: "**no**"}.get(met, "-")


def block(folder: Path, fresh: list[dict[str, Any]] | None = None) -> str:
    """The BENCHMARKS.md part with every kept report (and this run's failures)."""
    entries: dict[str, dict[str, Any]] = {}
    for name in READER_REPORTS:
        path = folder / f"{name}.json"
        if path.is_file():
            entries[name] = json.loads(path.read_text("utf-8"))
    for entry in fresh or []:
        if entry.get("status") != "ok":
            entries.setdefault(entry["name"], entry)
    lines = [
        BEGIN,
        "",
        "# The readers against their issues' bars",
        "",
        "Each reader measures itself (`report` in its module of `pictable/bench/readers/`) "
        "in a fresh process on one thread; the figures below are from the run dated in each "
        "section (the machine's load then is not controlled: compare speeds with care).",
        "",
        "| reader | figure | measured | bar | met |",
        "|---|---|---|---|---|",
    ]
    for entry in entries.values():
        if entry.get("status") != "ok":
            lines.append(f"| {entry['title']} | {entry['status']} | | | |")
            continue
        for row in entry["result"].get("summary", []):
            lines.append(
                f"| {entry['title']} | {row.get('figure')} | {row.get('value')} | "
                f"{row.get('target')} | {_mark(row.get('met'))} |"
            )
    for entry in entries.values():
        if entry.get("status") != "ok":
            continue
        lines += [
            "",
            str(entry["result"].get("markdown", "")).strip(),
            "",
            f"*Measured {entry['date']} ({entry['profile']} profile, {entry['seconds']} s); "
            f"reproduce with `{entry['command']}`.*",
        ]
    lines += ["", END, ""]
    return "\n".join(lines)


def splice(markdown_path: Path, text: str) -> None:
    """Puts ``text`` (a ``block``) into ``markdown_path`` between the markers, or at the
    end when the file has none yet."""
    old = markdown_path.read_text("utf-8") if markdown_path.is_file() else ""
    if BEGIN in old and END in old:
        head = old[: old.index(BEGIN)]
        tail = old[old.index(END) + len(END) :].lstrip("\n")
        new = head + text + tail
    else:
        new = old.rstrip("\n") + ("\n\n" if old else "") + text
    markdown_path.write_text(new, "utf-8")
