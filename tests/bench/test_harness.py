"""The harness end to end on tiny tasks: figures, "not built yet" rows, the report files."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from pictable.bench import (
    NOT_BUILT,
    DataMissing,
    RunnerSpec,
    Sample,
    Settings,
    Task,
    find_data_dir,
    load_json,
    run_benchmarks,
    to_markdown,
    write_json,
    write_markdown,
)
from pictable.bench.core import resolve
from pictable.bench.data import letterbox, spread
from pictable.bench.results import FAILED, OK, UNAVAILABLE
from pictable.bench.tasks import qr
from pictable.cli import main

TEXTS = ("card:pickpic:001", "hello world", "ﾃﾞｻﾞｲﾝQR")
TINY = Settings(
    repeats=1, hd_repeats=1, warmup=1, hd_limit=1, min_timed_calls=1, isolation="inline"
)


def _qr_image(text: str) -> np.ndarray:
    encoder = cv2.QRCodeEncoder.create()
    code = encoder.encode(text)
    code = cv2.resize(code, None, fx=6, fy=6, interpolation=cv2.INTER_NEAREST)
    code = cv2.copyMakeBorder(code, 24, 24, 24, 24, cv2.BORDER_CONSTANT, value=255)
    return cv2.cvtColor(code, cv2.COLOR_GRAY2BGR)


@pytest.fixture(scope="module")
def qr_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("qr") / "zxing-qrcode" / "qrcode-1"
    folder.mkdir(parents=True)
    for i, text in enumerate(TEXTS, start=1):
        cv2.imwrite(str(folder / f"{i}.png"), _qr_image(text))
        (folder / f"{i}.txt").write_bytes(text.encode("utf-8"))
    return folder.parents[1]


def failing_runner(samples: Sequence[Sample]) -> Any:
    """A runner that raises on every frame."""

    def run(frame: np.ndarray, sample: Sample) -> Any:
        raise RuntimeError("decoder exploded")

    return run


def broken_setup(samples: Sequence[Sample]) -> Any:
    raise ValueError("cannot read the reference deck")


def missing_library(samples: Sequence[Sample]) -> Any:
    import pictable_no_such_library  # type: ignore[import-not-found]  # noqa: F401

    raise AssertionError("unreachable")


def tiny_qr_task(*extra: RunnerSpec) -> Task:
    zxing = next(r for r in qr.RUNNERS if r.name == "zxing-cpp")
    return dataclasses.replace(
        qr.TASK,
        name="tiny-qr",
        runners=(
            RunnerSpec.planned("pictable_no_such_module.codes:decode_frame", "pictable decode"),
            RunnerSpec.planned("pictable.bench.core:no_such_reader", "pictable half-built"),
            zxing,
            *extra,
        ),
    )


def test_tiny_task_end_to_end_writes_a_valid_report(qr_folder: Path, tmp_path: Path) -> None:
    task = tiny_qr_task(
        RunnerSpec.library("exploding", "raises on every frame", failing_runner),
        RunnerSpec.library("absent", "a library that is not installed", missing_library),
        RunnerSpec.library("broken", "a setup that raises", broken_setup),
    )
    settings = dataclasses.replace(TINY, data_dir=qr_folder)
    result = run_benchmarks([task], settings, command="pictable bench --test", progress=False)

    (task_result,) = result.tasks
    assert task_result.status == OK
    assert task_result.samples == 3
    runners = {r.name: r for r in task_result.runners}
    assert [r.name for r in task_result.runners] == [
        "pictable",
        "pictable",
        "zxing-cpp",
        "exploding",
        "absent",
        "broken",
    ]
    not_built = [r for r in task_result.runners if r.kind == "pictable"]
    assert [r.status for r in not_built] == [NOT_BUILT, NOT_BUILT]
    assert "does not exist yet" in not_built[0].reason
    assert "has no no_such_reader yet" in not_built[1].reason

    zxing = runners["zxing-cpp"]
    assert zxing.status == OK
    assert zxing.metrics["correct"] == 3
    assert zxing.metrics["misreads"] == 0
    assert zxing.own is not None and zxing.own.calls == 3
    assert zxing.hd is not None and zxing.hd.frame_size == "1280x720"
    assert zxing.memory is not None and zxing.memory.delta_mb is not None

    exploding = runners["exploding"]
    assert exploding.status == OK
    assert exploding.errors == 3
    assert exploding.metrics["correct"] == 0
    assert exploding.error_examples == ["RuntimeError: decoder exploded"]

    assert runners["absent"].status == UNAVAILABLE
    assert runners["broken"].status == FAILED
    assert runners["broken"].reason == "setup: ValueError: cannot read the reference deck"

    md_path, json_path = tmp_path / "BENCH.md", tmp_path / "bench.json"
    write_markdown(result, md_path)
    write_json(result, json_path)
    markdown = md_path.read_text(encoding="utf-8")
    assert "`pictable bench --test`" in markdown
    assert "| **pictable decode** | not built yet |" in markdown
    assert "| zxing-cpp " in markdown and "| 3/3 |" in markdown
    data = load_json(json_path)
    assert data["command"] == "pictable bench --test"
    assert data["machine"]["cores"] >= 1
    (task_json,) = data["tasks"]
    assert task_json["runners"][2]["metrics"]["correct"] == 3
    assert json.loads(json.dumps(data)) == data


def test_runner_in_its_own_process(qr_folder: Path) -> None:
    settings = dataclasses.replace(TINY, data_dir=qr_folder, isolation="process")
    result = run_benchmarks([tiny_qr_task()], settings, progress=False)
    zxing = next(r for r in result.tasks[0].runners if r.name == "zxing-cpp")
    assert zxing.status == OK, zxing.reason
    assert zxing.metrics["correct"] == 3
    assert zxing.memory is not None and zxing.memory.peak_rss_mb is not None
    assert zxing.memory.peak_rss_mb > 0


def crashing_runner(samples: Sequence[Sample]) -> Any:
    """A runner that takes its whole process down, as a native library's segfault would."""
    import os

    def run(frame: np.ndarray, sample: Sample) -> Any:
        os._exit(3)

    return run


def test_a_runner_that_kills_its_process_costs_only_its_row(qr_folder: Path) -> None:
    crash = RunnerSpec.library("crash", "exits the interpreter", crashing_runner)
    task = dataclasses.replace(tiny_qr_task(), runners=(crash,))
    settings = dataclasses.replace(TINY, data_dir=qr_folder, isolation="process")
    (task_result,) = run_benchmarks([task], settings, progress=False).tasks
    assert task_result.status == OK
    (row,) = task_result.runners
    assert row.status == FAILED
    assert row.reason == "runner process failed: exit code 3"


def test_a_task_that_cannot_be_sent_to_a_process_fails_its_rows(qr_folder: Path) -> None:
    local = RunnerSpec.library("local", "a closure", lambda samples: lambda f, s: {"codes": []})
    settings = dataclasses.replace(TINY, data_dir=qr_folder, isolation="process")
    result = run_benchmarks([tiny_qr_task(local)], settings, progress=False)
    row = next(r for r in result.tasks[0].runners if r.name == "local")
    assert row.status == FAILED
    assert "--isolation inline" in row.reason


def test_real_qr_photos_three_images(shared_data: Path) -> None:
    zxing = next(r for r in qr.RUNNERS if r.name == "zxing-cpp")
    task = dataclasses.replace(qr.TASK, runners=(qr.RUNNERS[0], zxing))
    settings = dataclasses.replace(TINY, data_dir=shared_data, limit=3)
    result = run_benchmarks([task], settings, progress=False)
    (task_result,) = result.tasks
    assert task_result.sample_ids == ["qrcode-1/1", "qrcode-3/34", "qrcode-6/14"]
    row = task_result.runners[1]
    assert row.status == OK
    assert row.metrics["correct"] == 3
    assert "not built yet" in to_markdown(result)


def test_missing_data_is_a_task_status_not_a_crash(tmp_path: Path) -> None:
    settings = dataclasses.replace(TINY, data_dir=tmp_path)
    result = run_benchmarks([qr.TASK], settings, progress=False)
    (task_result,) = result.tasks
    assert task_result.status == "no data"
    assert "zxing-qrcode" in task_result.reason
    assert "no data" in to_markdown(result)


def test_find_data_dir_errors_name_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(DataMissing, match=r"nowhere \(from --data\) does not exist"):
        find_data_dir(tmp_path / "nowhere")
    monkeypatch.setenv("PICTABLE_DATA", str(tmp_path / "elsewhere"))
    with pytest.raises(DataMissing, match=r"elsewhere \(from \$PICTABLE_DATA\)"):
        find_data_dir()
    assert find_data_dir(tmp_path) == tmp_path.resolve()


def test_cli_reports_a_missing_data_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["bench", "--tasks", "qr-real", "--data", str(tmp_path / "nope"), "--no-progress"])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_list_names_not_built_readers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--list", "--tasks", "qr-real"]) == 0
    out = capsys.readouterr().out
    assert "qr-real" in out and "zxing-cpp" in out and "pictable" in out


def test_cli_unknown_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--tasks", "no-such-task"]) == 2
    assert "no benchmark task matches 'no-such-task'" in capsys.readouterr().err


def test_resolve_reports_not_built() -> None:
    from pictable.bench import NotBuiltYet

    with pytest.raises(NotBuiltYet, match="does not exist yet"):
        resolve("pictable_no_such_module:fn")
    assert callable(resolve("pictable.bench.data:letterbox"))


def test_letterbox_and_spread() -> None:
    frame = np.zeros((240, 240, 3), np.uint8)
    out = letterbox(frame)
    assert out.shape == (720, 1280, 3) and out.dtype == np.uint8
    assert out[0, 0, 0] == 128 and out[360, 640, 0] == 0
    with pytest.raises(ValueError, match=r"frame must be \(H, W, 3\) uint8, got \(4, 4\)"):
        letterbox(np.zeros((4, 4), np.uint8))
    assert spread(list(range(10)), 3) == [0, 4, 9]  # round(4.5) is 4: banker's rounding
    assert spread(list(range(3)), None) == [0, 1, 2]


def test_rendered_tasks_say_not_built_without_a_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pictable.bench.tasks import synth

    monkeypatch.setitem(synth.GENERATORS, "cards", ("pictable_no_such_module:scene",))
    task = next(t for t in synth.TASKS if t.name == "synth-markers-normal")
    settings = dataclasses.replace(TINY, cache_dir=tmp_path, scenes_per_tier=2)
    result = run_benchmarks([task], settings, progress=False)
    (task_result,) = result.tasks
    assert task_result.status == NOT_BUILT
    assert "no cards scene generator" in task_result.reason
    assert all(r.status == NOT_BUILT for r in task_result.runners)


def _never_called(**kwargs: Any) -> Any:
    raise AssertionError("scenes must not be rendered when no runner is built")


def test_a_task_without_a_built_runner_renders_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pictable.bench.tasks import synth

    monkeypatch.setitem(synth.GENERATORS, "cards", (f"{__name__}:_never_called",))
    task = next(t for t in synth.TASKS if t.name == "synth-identify-easy")
    # A reader that does not exist (yet): its dotted path does not import.
    planned = RunnerSpec.planned("vision.not_written_yet:read", "later", synth.cards_adapter)
    task = dataclasses.replace(task, runners=(planned,))
    settings = dataclasses.replace(TINY, cache_dir=tmp_path, scenes_per_tier=2)
    (task_result,) = run_benchmarks([task], settings, progress=False).tasks
    assert task_result.status == NOT_BUILT
    assert task_result.reason == "no runner of this task is built yet"


def _fake_scene(rng: np.random.Generator, tier: str) -> tuple[np.ndarray, dict[str, Any]]:
    """A grey frame with kit marker 3 at a known place (what vision.synth will provide)."""
    frame = np.full((720, 1280, 3), 200, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    marker = cv2.aruco.generateImageMarker(dictionary, 3, 120)
    x0, y0 = 300 + int(rng.integers(0, 100)), 200
    frame[y0 : y0 + 120, x0 : x0 + 120] = marker[:, :, None]
    corners = [[x0 - 0.5, y0 - 0.5], [x0 + 119.5, y0 - 0.5], [x0 + 119.5, y0 + 119.5]]
    corners.append([x0 - 0.5, y0 + 119.5])
    truth = {"markers": [{"marker_id": 3, "corners_px": corners, "visible_fraction": 1.0}]}
    return frame, truth


def test_rendered_task_with_a_generator(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pictable.bench.tasks import synth

    monkeypatch.setitem(synth.GENERATORS, "cards", (f"{__name__}:_fake_scene",))
    task = next(t for t in synth.TASKS if t.name == "synth-markers-easy")
    settings = dataclasses.replace(TINY, cache_dir=tmp_path, scenes_per_tier=2)
    result = run_benchmarks([task], settings, progress=False)
    (task_result,) = result.tasks
    assert task_result.status == OK, task_result.reason
    assert task_result.sample_ids == ["easy/0000", "easy/0001"]
    opencv = task_result.runners[1]
    assert opencv.metrics["markers"] == 2
    assert opencv.metrics["read"] == 2
    assert opencv.metrics["misreads"] == 0
    corner_err = opencv.metrics["corner_err_median_px"]
    assert corner_err is not None and corner_err < 1.0
