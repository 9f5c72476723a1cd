"""``pictable analyze picasso``: the JSON of CONTRACTS.md section 3, annotated pictures, bad
input, exit codes."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from pictable.commands import analyze


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="pictable")
    analyze.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract_and_errors(
    board_a: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, truth = board_a
    good = tmp_path / "board.png"
    cv2.imwrite(str(good), frame)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 230, np.uint8))
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    missing = tmp_path / "missing.png"
    ann = tmp_path / "ann"
    code, out, _ = _run(
        [
            "analyze",
            "picasso",
            str(good),
            str(broken),
            str(blank),
            str(missing),
            "--json",
            "--annotate",
            str(ann),
        ],
        capsys,
    )
    assert code == 1  # some images could not be analysed; the others were
    doc = json.loads(out)
    images = doc["images"]
    assert [e["image"] for e in images] == [str(good), str(broken), str(blank), str(missing)]
    first = images[0]
    assert "error" not in first
    assert set(first) >= {"image", "pieces", "counts", "cost"}
    assert first["counts"] == truth.board.counts
    assert first["cost"] == truth.board.cost
    assert set(first["counts"]) == {"long_stick", "short_stick", "shape", "string"}
    kinds = {p["kind"] for p in first["pieces"]}
    assert kinds <= {"long_stick", "short_stick", "shape", "string"}
    for p in first["pieces"]:
        if p["kind"].endswith("stick"):
            assert np.asarray(p["ends_mm"]).shape == (2, 2)
        if p["kind"] == "shape":
            assert p["shape"] in {"circle", "square", "triangle", "half_circle"}
            assert p["colour"] in {"red", "blue", "yellow", "green"}
    for bad in images[1:]:
        assert isinstance(bad["error"], str) and bad["error"]
    assert "markers" in images[2]["error"]
    png = cv2.imread(str(ann / "board.picasso.png"))
    assert png is not None and png.shape[1] == 1080


def test_occluded_entry(
    board_b_hand: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), board_b_hand[0])
    code, out, _ = _run(["analyze", "picasso", str(path), "--json"], capsys)
    assert code == 0
    entry = json.loads(out)["images"][0]
    assert entry["occluded"] is True
    assert entry["counts"] is None and entry["cost"] is None
    assert 0 < entry["covered_fraction"] <= 1


def test_text_output(board_b: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "b.png"
    cv2.imwrite(str(path), board_b[0])
    code, out, _ = _run(["analyze", "picasso", str(path)], capsys)
    assert code == 0
    assert out.startswith(f"{path}: cost 6: 3 long, 1 short, 1 shape(s), no string")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyze", "picasso"], "give one or more IMAGE files"),
        (["analyze", "picasso", "x.png", "--players", "A,B"], "--players goes with --video"),
        (["analyze", "picasso", "--video", "nope.mp4", "--players", "A"], "at least two names"),
        (["analyze", "picasso", "x.png", "--kit", "/no/such/kit.json"], "cannot read"),
        (["analyze", "picasso", "x.png", "--calibration", "/no/such/cal.json"], "cannot read"),
    ],
)
def test_bad_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert message in err
