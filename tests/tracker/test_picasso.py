"""A rendered Picasso turn scores itself: ``pictable analyze picasso --video FOLDER`` prints
events that the engine replays to the same scores as the turn's true events."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import pytest

from engine import replay
from pictable.commands import analyze
from tests.picasso import helpers
from vision.synth import render_sequence

FPS = 6.0


@pytest.mark.slow
def test_rendered_turn_scores_right(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seq = render_sequence("picasso_turn", 2, "easy", fps=FPS, provider=helpers.CodedCards())
    folder = tmp_path / "turn"
    folder.mkdir()
    for fr in seq:
        cv2.imwrite(str(folder / f"frame_{fr.index:04d}.png"), fr.frame)
    # The stand-in cards carry the test's own codes (the printable kit is another issue's).
    monkeypatch.setattr("vision.tracker.picasso.kit_marker_table", lambda: helpers.table)
    parser = argparse.ArgumentParser(prog="pictable")
    analyze.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["analyze", "picasso", "--video", str(folder), "--players", "A,B,C", "--fps", str(FPS)]
    )
    assert args.func(args) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    truth = seq.events
    assert events[0] == {"type": "start", "game": "picasso", "players": ["A", "B", "C"]}
    draws = [e for e in events if e["type"] == "draw"]
    assert [(d["player"], d["card"]) for d in draws] == [
        (e["player"], e["card"]) for e in truth if e["type"] == "draw"
    ]
    builds = [e for e in events if e["type"] == "build"]
    assert (
        builds and builds[-1]["pieces"] == [e for e in truth if e["type"] == "build"][-1]["pieces"]
    )
    guesses = [e["player"] for e in events if e["type"] == "guess"]
    assert guesses == [e["player"] for e in truth if e["type"] == "guess"]
    # events come in time order, after the draw
    times = [e["t"] for e in events[1:]]
    assert times == sorted(times)
    assert replay(events).scores() == replay(truth).scores()
    # and `pictable replay` scores the printed log the same way
    log = tmp_path / "turn.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in events) + "\n", encoding="utf-8")
    from pictable.cli import main

    assert main(["replay", str(log), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["scores"] == replay(truth).scores()
    assert summary["game"] == "picasso"
