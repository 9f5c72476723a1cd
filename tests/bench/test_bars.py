"""The bar checker: figures that may only improve."""

from __future__ import annotations

from typing import Any

import pytest

from pictable.bench import check_bars, load_bars, registered_tasks

BARS = {
    "tasks": {
        "qr": {
            "samples": 10,
            "runners": {
                "lib": {"correct": {"min": 8}, "misreads": {"max": 0}},
                "pictable": {"correct": {"min_of_runners": ["lib", "other"]}},
            },
        }
    }
}


def _run(
    lib: dict[str, Any], pictable: dict[str, Any] | None = None, samples: int = 10
) -> dict[str, Any]:
    runners = [{"name": "lib", "status": "ok", "metrics": lib}]
    runners.append({"name": "other", "status": "ok", "metrics": {"correct": 5}})
    if pictable is None:
        runners.append({"name": "pictable", "status": "not built yet", "metrics": {}})
    else:
        runners.append({"name": "pictable", "status": "ok", "metrics": pictable})
    return {"tasks": [{"name": "qr", "status": "ok", "samples": samples, "runners": runners}]}


def _statuses(report: Any) -> dict[tuple[str, str], str]:
    return {(c.runner, c.metric): c.status for c in report.checks}


def test_figures_at_their_bars_pass_and_not_built_is_skipped() -> None:
    report = check_bars(_run({"correct": 8, "misreads": 0}), BARS)
    assert report.ok
    assert _statuses(report) == {
        ("lib", "correct"): "pass",
        ("lib", "misreads"): "pass",
        ("pictable", "correct"): "skip",
    }


def test_a_figure_below_its_bar_fails() -> None:
    report = check_bars(_run({"correct": 7, "misreads": 0}), BARS)
    assert not report.ok
    (failure,) = report.failures
    assert (failure.runner, failure.metric, failure.value) == ("lib", "correct", 7)
    assert "below the bar 8" in str(failure)
    assert "1 failed" in report.summary()


def test_a_lower_is_better_figure_above_its_bar_fails() -> None:
    report = check_bars(_run({"correct": 9, "misreads": 1}), BARS)
    assert [(c.metric, c.reason) for c in report.failures] == [("misreads", "above the bar 0")]


def test_pictable_must_match_the_best_library_of_the_same_run() -> None:
    assert check_bars(_run({"correct": 9, "misreads": 0}, {"correct": 9}), BARS).ok
    report = check_bars(_run({"correct": 9, "misreads": 0}, {"correct": 8}), BARS)
    (failure,) = report.failures
    assert failure.runner == "pictable"
    assert "below lib (9) in the same run" in failure.reason


def test_a_missing_figure_or_a_failed_runner_fails() -> None:
    assert not check_bars(_run({"misreads": 0}), BARS).ok
    run = _run({"correct": 9, "misreads": 0})
    run["tasks"][0]["runners"][0]["status"] = "failed"
    assert not check_bars(run, BARS).ok


def test_a_run_on_other_samples_is_skipped_not_judged() -> None:
    report = check_bars(_run({"correct": 1, "misreads": 5}, samples=3), BARS)
    assert report.ok
    assert set(_statuses(report).values()) == {"skip"}


def test_unknown_rule_is_an_error() -> None:
    bars = {"tasks": {"qr": {"runners": {"lib": {"correct": {"at_least": 3}}}}}}
    with pytest.raises(ValueError, match="unknown keys"):
        check_bars(_run({"correct": 9}), bars)


def test_the_recorded_bars_name_real_tasks_runners_and_metrics() -> None:
    bars = load_bars()
    tasks = {t.name: t for t in registered_tasks()}
    for task_name, task_bars in bars["tasks"].items():
        task = tasks[task_name]
        metric_keys = {m.key for m in task.metrics}
        runner_names = {r.name for r in task.runners}
        for runner, metric_bars in task_bars["runners"].items():
            assert runner in runner_names, (task_name, runner)
            for metric, rule in metric_bars.items():
                assert metric in metric_keys, (task_name, runner, metric)
                assert set(rule) <= {"min", "max", "min_of_runners"}
                assert set(rule.get("min_of_runners", [])) <= runner_names
