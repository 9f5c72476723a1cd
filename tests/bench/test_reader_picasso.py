"""``bench_picasso``: the benchmark function ``pictable bench`` can call."""

from __future__ import annotations

from pathlib import Path

import pytest

from pictable.bench.readers import picasso as bench
from pictable.bench.readers.picasso_learn import learn_lines


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


def test_report_hook_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """``report(profile)`` returns the title, the summary rows and a Markdown section built
    from the measurements (faked here: the real ones take minutes)."""

    def fake_bench(tier: str, n: int, seed: int = 0, **_: object) -> dict:
        errs = {k: {"boards": 0, "missed": 0, "extra": 0} for k in bench.KINDS}
        errs["short_stick"] = {"boards": 1, "missed": 1, "extra": 0}
        return {
            "tier": tier, "seed": seed, "boards": n, "counted": n - 1, "counts_right": n - 2,
            "cost_right": n - 2, "no_board": 0, "false_occlusion": 0, "occluded": 1,
            "occlusion_found": 1, "kind_errors": errs, "ms_median": 40.0, "cpu_ms_median": 35.0,
            "doubted": 1, "doubted_right": 0,
            "scales": [(0.6, False)] + [(1.1, True)] * (n - 2),
            "shape_kinds": {"shapes": 10, "found": 10, "geometry_right": 9, "model_right": 10,
                            "asked": 1},
            "failures": [{"index": 3, "seed": 3, "want": {"long_stick": 1, "short_stick": 2,
                          "shape": 0, "string": 0},
                          "got": {"long_stick": 1, "short_stick": 1, "shape": 0, "string": 0}}],
        }  # fmt: skip

    monkeypatch.setattr(bench, "bench_picasso", fake_bench)
    monkeypatch.setattr(
        bench,
        "bench_speed",
        lambda n, seed: {"boards": n, "repeats": 3, "ms_median_best": 25.0,
                         "cpu_ms_median_best": 24.0, "ms_p95_best": 30.0},
    )  # fmt: skip
    monkeypatch.setattr(
        bench,
        "bench_turns",
        lambda seeds: [{"seed": s, "frames": 80, "scores": {"A": 4}, "true_scores": {"A": 4},
                        "right": True, "card_right": True, "guesser_right": True,
                        "last_build_right": True, "builds": 1, "true_builds": 5}
                       for s in seeds],
    )  # fmt: skip
    out = bench.report("quick")
    assert out["title"] and out["markdown"].startswith("## ")
    rows = {r["figure"]: r for r in out["summary"]}
    counts = rows["Picasso normal: exact counts"]
    assert counts["value"] == "90.9% (10/11)" and counts["met"] is False
    assert rows["Picasso time per 1280x720 frame (median thread CPU, one thread)"]["met"] is True
    assert "short stick: 1 boards (1 missed, 0 extra)" in out["markdown"]
    # the boards in doubt, and the boards by how finely the camera saw them
    assert "| counted in doubt (of them right) |" in out["markdown"]
    assert "| 1 (0 right) |" in out["markdown"]
    assert "| hard (run seed 0) | 0/1 | - | - | 2/2 | - |" in out["markdown"]
    with pytest.raises(ValueError, match="profile"):
        bench.report("medium")


def test_speed_keeps_each_boards_fastest_read_over_passes() -> None:
    """Each board is read once per pass; the fastest of its reads is kept, so the median
    of the fastest is at most the median of the first pass's reads."""
    r = bench.bench_speed(2, 0, repeats=2)
    assert (r["boards"], r["repeats"]) == (2, 2)
    assert 0 < r["ms_median_best"] <= r["ms_median_first"]
    assert r["cpu_ms_median_best"] > 0 and r["ms_median_best"] <= r["ms_p95_best"]


def test_the_learned_kit_section_and_the_hard_no_board_bar() -> None:
    """The learned-kit rows give each drawer's default and learned figures, the looks read
    worse and the refusals; the hard tier's "no board found" bar sums every hard run."""
    fig = dict.fromkeys(bench.TALLY, 0)
    default = {**fig, "counted": 20, "counts_right": 18, "occluded": 4, "occlusion_found": 4}
    learned = {**default, "counts_right": 19, "false_occlusion": 1}
    res = {
        "totals": {
            "drawer": {
                "looks": 3,
                "default": default,
                "learned": learned,
                "refused": [{"look": "white/light", "reason": "no string found"}],
                "worse": ["grey/dark"],
            }
        }
    }
    lines = learn_lines({"held": res})
    row = next(line for line in lines if line.startswith("| held-back | second drawer"))
    assert "| 2/3 | 90.0% (18/20) | 95.0% (19/20) | 0 -> 1 |" in row
    assert "| 1 | white/light: no string found |" in row
    assert learn_lines({}) == []
    (nb,) = bench._hard_no_board(
        {"counted": 60, "no_board": 0}, {"drawn_hard_dev": {"counted": 40, "no_board": 1}}
    )
    assert nb["value"] == "our renderer 0.0% (0/60), second drawer 2.5% (1/40)"
    assert nb["met"] is False
    (nb,) = bench._hard_no_board({"counted": 60, "no_board": 1}, {})
    assert nb["met"] is True


def test_the_learn_bench_draws_wide_looks_on_our_renderer_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--looks wide`` exists on our renderer only: asked of the second drawer, the command
    says so and stops before drawing anything."""
    from pictable.bench.readers.picasso_learn import main

    with pytest.raises(SystemExit) as stop:
        main(["--looks", "wide", "--n-looks", "1", "--boards", "1"])
    assert stop.value.code == 2
    assert "--drawers renderer" in capsys.readouterr().err
