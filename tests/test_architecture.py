"""The layers hold (docs/architecture.md): who may import whom, read from the source itself.

- ``engine/`` imports nothing but the standard library (and itself);
- ``calibration/`` imports neither the readers, the tracker nor the app;
- the readers (every package of ``vision/`` but the tracker) import neither the tracker nor
  the app, and the synthetic camera imports no follower;
- the tracker does not import the app;
- no module of the project runs over 1,000 lines.

Every import counts, those inside functions too (lazy imports are imports all the same).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "calibration", "vision", "pictable", "models")
MAX_LINES = 1000


def modules(*folders: str) -> Iterator[Path]:
    for folder in folders:
        yield from sorted((ROOT / folder).rglob("*.py"))


def imported(path: Path) -> set[str]:
    """Every module name ``path`` imports (absolute, relative ones resolved)."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join((*base, node.module) if node.module else base)
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def under(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_engine_uses_the_standard_library_alone() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    bad = {
        rel(p): sorted(n for n in imported(p) if n.split(".")[0] not in stdlib | {"engine"})
        for p in modules("engine")
    }
    assert {k: v for k, v in bad.items() if v} == {}


def test_calibration_knows_no_reader_tracker_or_app() -> None:
    bad = {
        rel(p): sorted(
            n
            for n in imported(p)
            if under(n, "pictable", "vision.tracker", "vision.identify", "vision.picasso")
            or under(n, "vision.picmix", "vision.codes", "vision.synth")
        )
        for p in modules("calibration")
    }
    assert {k: v for k, v in bad.items() if v} == {}


def reader_files() -> Iterator[Path]:
    for p in modules("vision"):
        if not under(".".join(p.relative_to(ROOT).with_suffix("").parts), "vision.tracker"):
            yield p


def test_readers_import_neither_the_tracker_nor_the_app() -> None:
    bad = {
        rel(p): sorted(n for n in imported(p) if under(n, "vision.tracker", "pictable"))
        for p in reader_files()
    }
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_tracker_does_not_import_the_app() -> None:
    bad = {
        rel(p): sorted(n for n in imported(p) if under(n, "pictable"))
        for p in modules("vision/tracker")
    }
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_second_drawers_owe_nothing_to_the_synthetic_camera() -> None:
    """A second renderer checks the reader only if it shares no drawing code with the first:
    ``pictable/bench/drawers`` draws from KIT.md with plain OpenCV (the reader itself is
    imported only to measure it)."""
    bad = {
        rel(p): sorted(n for n in imported(p) if under(n, "vision.synth", "vision.kit"))
        for p in modules("pictable/bench/drawers")
    }
    assert {k: v for k, v in bad.items() if v} == {}


def test_no_module_runs_over_a_thousand_lines() -> None:
    long = {
        rel(p): n
        for p in modules(*PACKAGES)
        if (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "import os\nfrom vision.tracker import Debouncer\n",
            {"os", "vision.tracker", "vision.tracker.Debouncer"},
        ),
        ("def f():\n    from pictable import cli\n", {"pictable", "pictable.cli"}),
        ("from .cards import X\n", {"vision.tracker.cards", "vision.tracker.cards.X"}),
        ("from . import cards\n", {"vision.tracker", "vision.tracker.cards"}),
    ],
)
def test_the_check_sees_every_kind_of_import(
    tmp_path: Path, source: str, expected: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "vision" / "tracker"
    folder.mkdir(parents=True)
    path = folder / "x.py"
    path.write_text(source, "utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert imported(path) == expected
