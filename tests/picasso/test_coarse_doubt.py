"""A board seen too coarsely is read in doubt (a wrong answer is worse than none): the
reading says why (``BoardReading.doubt``), the JSON and the annotated picture say it, and
the turn tracker's build asks the players to check the pieces counted (``meta.ask``)."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine import replay
from pictable.commands import analyze
from tests.picasso import helpers
from vision.picasso import BoardReading, read_board, reading_to_json
from vision.picasso.annotate import annotate
from vision.picasso.dataset import render_board, scene_seed
from vision.picasso.reader import COARSE_PX_PER_MM, coarse_doubt
from vision.synth import render_sequence


def test_doubt_below_the_coarse_scale_only() -> None:
    said = coarse_doubt(0.62, 8.0)
    assert said is not None
    assert "0.62 px/mm" in said and "5.0 px wide" in said and "closer" in said
    assert coarse_doubt(COARSE_PX_PER_MM, 8.0) is None
    assert coarse_doubt(1.3, 8.0) is None
    assert coarse_doubt(math.nan, 8.0) is None


def test_a_board_seen_at_half_a_pixel_per_mm_is_read_in_doubt() -> None:
    """Our renderer's hard tier, run seed 0, board 0: the camera sees the canvas at 0.47
    frame px per mm (a stick under 4 px wide)."""
    frame, _truth = render_board("hard", scene_seed(0, 0))
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.doubt is not None and "coarsely" in reading.doubt
    out = reading_to_json(reading)
    assert out["doubt"] == reading.doubt
    picture = annotate(reading)
    assert picture.ndim == 3 and picture.dtype == np.uint8


def test_a_board_seen_as_a_webcam_sees_it_is_not_in_doubt() -> None:
    frame, _truth = render_board("normal", scene_seed(0, 0))
    reading = read_board(frame)
    assert isinstance(reading, BoardReading)
    assert reading.doubt is None
    assert "doubt" not in reading_to_json(reading)


@pytest.mark.slow
def test_a_build_read_in_doubt_asks_the_players(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rendered turn of ``tests/tracker/test_picasso.py``, every board reading made
    doubtful: each build event carries ``meta.ask`` with the reason, and the scores are
    the same (the page's question: ``tests/live/test_pipeline.py``)."""
    seq = render_sequence("picasso_turn", 2, "easy", fps=6.0, provider=helpers.CodedCards())
    folder = tmp_path / "turn"
    folder.mkdir()
    for fr in seq:
        cv2.imwrite(str(folder / f"frame_{fr.index:04d}.png"), fr.frame)
    monkeypatch.setattr("vision.tracker.picasso.kit_marker_table", lambda: helpers.table)
    why = coarse_doubt(0.6, 8.0)

    def doubtful(frame, **kwargs):
        r = read_board(frame, **kwargs)
        return replace(r, doubt=why) if isinstance(r, BoardReading) else r

    monkeypatch.setattr("vision.tracker.picasso.read_board", doubtful)
    parser = argparse.ArgumentParser(prog="pictable")
    analyze.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["analyze", "picasso", "--video", str(folder), "--players", "A,B,C", "--fps", "6"]
    )
    assert args.func(args) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    builds = [e for e in events if e["type"] == "build"]
    assert builds and all(b.get("meta", {}).get("ask") == why for b in builds)
    assert replay(events).scores() == replay(seq.events).scores()


def test_the_command_says_to_check_the_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``pictable analyze picasso`` on the board at 0.47 px/mm: the line says to check the
    counts and why; ``--json`` carries the doubt."""
    from pictable.cli import main

    frame, _truth = render_board("hard", scene_seed(0, 0))
    path = tmp_path / "far.png"
    assert cv2.imwrite(str(path), frame)
    assert main(["analyze", "picasso", str(path)]) == 0
    text = capsys.readouterr().out
    assert "check the counts: the camera sees the board coarsely (0.47 px/mm" in text
    assert main(["analyze", "picasso", str(path), "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)["images"][0]
    assert "coarsely" in entry["doubt"] and entry["cost"] is not None
