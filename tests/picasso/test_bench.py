"""``bench_picasso``: the benchmark function ``pictable bench`` can call."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.picasso import bench


def test_bench_picasso_reports_accuracy_and_speed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "iter_boards", _small(tmp_path))
    res = bench.bench_picasso("easy", 2, seed=7)
    assert res["boards"] == 2
    assert res["counted"] + res["occluded"] == 2
    for key in ("counts_right_pct", "cost_right_pct", "ms_median", "ms_p95", "kind_errors"):
        assert key in res
    assert set(res["kind_errors"]) == {"long_stick", "short_stick", "shape", "string"}
    assert res["counts_right"] == res["counted"]  # easy boards, no hands: all right


def _small(tmp_path: Path):  # type: ignore[no-untyped-def]
    from vision.picasso.dataset import iter_boards

    def it(tier: str, n: int, seed: int = 0):  # type: ignore[no-untyped-def]
        return iter_boards(tier, n, seed, cache_dir=tmp_path)

    return it
