"""write_render: frames plus truth.jsonl (and events.jsonl for sequences)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from vision.synth import StandInTextures, Truth, write_render


def test_still_frames_and_truth(tmp_path: Path, standin: StandInTextures) -> None:
    summary = write_render(tmp_path, "cards", "easy", 2, seed=7, provider=standin)
    assert summary["frames"] == 2
    lines = (tmp_path / "truth.jsonl").read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        obj = json.loads(line)
        img = cv2.imread(str(tmp_path / obj["frame"]))
        assert img is not None and img.shape == (720, 1280, 3)
        truth = Truth.from_json(obj["truth"])
        assert truth.tier == "easy" and truth.seed == obj["seed"]


def test_sequence_folder(tmp_path: Path, standin: StandInTextures) -> None:
    write_render(
        tmp_path, "pickpic_round", "easy", 1, seed=1, fps=1.0, image_format="jpg", provider=standin
    )
    folder = tmp_path / "seq_000"
    events = [json.loads(x) for x in (folder / "events.jsonl").read_text().splitlines()]
    assert events[0]["type"] == "start"
    truths = [json.loads(x) for x in (folder / "truth.jsonl").read_text().splitlines()]
    assert all((folder / t["frame"]).is_file() for t in truths)
    assert truths[-1]["frame"].endswith(".jpg")


def test_bad_kind_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown kind 'chess'"):
        write_render(tmp_path, "chess", "easy", 1)
    with pytest.raises(ValueError, match="unknown tier 'extreme'"):
        write_render(tmp_path, "cards", "extreme", 1)
