"""The start-up report (``pictable bench --tasks startup``): commands timed in fresh processes,
a failing command reported with its error, and the issue's bars judged from the figures (the
figures themselves are measured by the benchmark, not asserted here)."""

from __future__ import annotations

import os
import sys

import pytest

from pictable.bench.readers import READER_REPORTS, startup


def test_the_report_is_one_of_pictable_bench_s() -> None:
    assert READER_REPORTS["startup"][0] == "pictable.bench.readers.startup:report"


def test_commands_are_timed_in_fresh_processes_after_an_untimed_run() -> None:
    env = dict(os.environ)
    times = startup.wall_s([sys.executable, "-c", "pass"], 2, env)
    assert len(times) == 2 and all(wall > 0 and cpu >= 0 for wall, cpu in times)
    failing = "import sys; print('the reader fell over', file=sys.stderr); sys.exit(3)"
    with pytest.raises(RuntimeError, match=r"exited 3: the reader fell over"):
        startup.wall_s([sys.executable, "-c", failing], 1, env)


def _photo(cards: int, size: str, ms: float, orb_ms: float) -> dict[str, object]:
    return {
        "deck": "d", "cards": cards, "photo": "p.png", "size": size, "ms": ms, "plain_ms": 2 * ms,
        "orb_ms": orb_ms,
        "found": True, "orb_found": True, "steps": {"identify_frame": ms},
    }  # fmt: skip


def test_the_bars_are_judged_from_the_figures() -> None:
    walls = {
        "pictable --help": [(0.1, 0.05), (0.2, 0.05), (0.4, 0.05)],
        startup.LARGE_LABEL: [(0.9, 0.8), (1.0, 0.9), (0.7, 0.7)],
    }
    phases = dict.fromkeys(("imports_s", "open_deck_s", "first_photo_s", "second_photo_s"), 0.1)
    photos = [
        _photo(1, "800x640", 40.0, 25.0),
        _photo(1, "512x384", 40.0, 15.0),
        _photo(12, "1000x700", 99.0, 25.0),
        _photo(12, "800x640", 500.0, 25.0),  # not at the bar's size: no row
    ]
    result = startup._summary(walls, phases, photos, 3, True, [1.0, 1.0])
    met = {row["figure"].split(",")[0]: row["met"] for row in result["summary"]}
    assert met == {
        "pictable --help": True,  # median 0.2 s
        "pictable identify PHOTO --deck": False,  # median 0.9 s
        "1-card deck on p.png (800x640)": True,  # 40 ms <= 2 x 25
        "1-card deck on p.png (512x384)": False,  # 40 ms > 2 x 15
        "12-card deck on p.png": True,  # 99 ms
    }
    assert "| `pictable --help` | 0.20 s | 0.10 s | 0.40 s | 0.05 s |" in result["markdown"]
