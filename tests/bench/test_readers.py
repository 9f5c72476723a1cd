"""Reader reports: selection by --tasks, the child process, keeping and splicing into
BENCHMARKS.md without touching the rest of the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pictable.bench import readers


def test_tasks_patterns_split_between_reports_and_the_harness() -> None:
    names, rest = readers.select(None)
    assert names == list(readers.READER_REPORTS) and rest is None
    names, rest = readers.select(["reader-pic*", "qr-real"])
    assert names == ["reader-picasso", "reader-picmix", "reader-pickpic", "reader-picflip"]
    assert rest == ["qr-real"]
    assert readers.select(["live-play"]) == (["live-play"], [])
    assert readers.select(["*"])[1] == ["*"]


@pytest.fixture
def fake_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pkg = tmp_path / "fake_reader_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        "def report(profile):\n"
        "    return {'title': 'Fake', 'markdown': '## Fake\\n\\nmeasured ' + profile,\n"
        "            'summary': [{'figure': 'right', 'value': '9/10', 'target': '10/10',"
        " 'met': False}]}\n"
        "def broken(profile):\n"
        "    raise RuntimeError('the reader fell over')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(
        readers,
        "READER_REPORTS",
        {
            "reader-fake": ("fake_reader_pkg:report", "Fake reader"),
            "reader-broken": ("fake_reader_pkg:broken", "Broken reader"),
            "reader-absent": ("no_such_pkg.bench:report", "Absent reader"),
        },
    )
    return tmp_path


def test_reports_run_in_a_child_and_are_kept_and_spliced(fake_reader: Path) -> None:
    ok = readers.run_report("reader-fake", "quick")
    assert ok["status"] == "ok" and ok["result"]["summary"][0]["value"] == "9/10"
    assert ok["command"] == "pictable bench --tasks reader-fake --quick"
    broken = readers.run_report("reader-broken", "quick")
    assert broken["status"].startswith("failed") and "fell over" in broken["status"]
    absent = readers.run_report("reader-absent", "quick")
    assert absent["status"] == readers.NOT_BUILT

    folder = fake_reader / "kept"
    for entry in (ok, broken, absent):
        readers.keep(entry, folder)
    assert [p.name for p in folder.iterdir()] == ["reader-fake.json"]
    assert json.loads((folder / "reader-fake.json").read_text())["profile"] == "quick"

    md = fake_reader / "BENCHMARKS.md"
    md.write_text("# pictable benchmarks\n\nthe harness part\n")
    readers.splice(md, readers.block(folder, [ok, broken, absent]))
    first = md.read_text()
    assert first.startswith("# pictable benchmarks\n\nthe harness part\n")
    assert "| Fake reader | right | 9/10 | 10/10 | **no** |" in first
    assert "| Broken reader | failed:" in first and "not built yet" in first
    assert "measured quick" in first
    # A second splice replaces the block, and keeps what follows it.
    md.write_text(first + "a footnote\n")
    readers.splice(md, readers.block(folder))
    second = md.read_text()
    assert second.count(readers.BEGIN) == 1 and second.endswith("a footnote\n")
    assert "Broken reader" not in second  # a failure is shown only in its own run
