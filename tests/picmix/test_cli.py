"""`pictable verify picmix IMAGE...`: the JSON contract (CONTRACTS.md 3), annotations, bad input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import pytest

from pictable.commands import verify
from tests.picmix.compose import Faces, chain, compose
from vision.kit.picmix import OBJECTIVES, player_set_ids, solve_objective


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="pictable")
    sub = parser.add_subparsers(dest="command")
    verify.register(sub)
    args = parser.parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def claim_png(faces: Faces, tmp_path_factory: pytest.TempPathFactory) -> Path:
    sol = solve_objective(OBJECTIVES[0], player_set_ids("red"))
    assert sol is not None
    steps = [(p.card, p.face, p.shown[0] if len(p.shown) == 1 else None) for p in sol.placements]
    c = compose(faces, "picmix-obj-01", chain(steps, angle_deg=15))
    path = tmp_path_factory.mktemp("claims") / "claim.png"
    assert cv2.imwrite(str(path), c.image)
    return path


@pytest.fixture(scope="module")
def no_objective_png(faces: Faces, tmp_path_factory: pytest.TempPathFactory) -> Path:
    sol = solve_objective(OBJECTIVES[0], player_set_ids("red"))
    assert sol is not None
    steps = [(p.card, p.face, p.shown[0] if len(p.shown) == 1 else None) for p in sol.placements]
    c = compose(faces, None, chain(steps))
    path = tmp_path_factory.mktemp("claims") / "no-objective.png"
    assert cv2.imwrite(str(path), c.image)
    return path


def test_json_contract(claim_png: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["verify", "picmix", str(claim_png), "--json"], capsys)
    assert code == 0, out + err
    doc = json.loads(out)
    assert list(doc) == ["images"]
    (entry,) = doc["images"]
    assert entry["image"] == str(claim_png)
    assert entry["objective"] == {"card": "picmix-obj-01", "items": ["flower", "lightning", "moon"]}
    assert entry["verdict"] == "correct"
    assert entry["visible"] == ["flower", "lightning", "moon"]
    assert entry["missing"] == [] and entry["extra"] == []
    for key in ("visible", "missing", "extra"):
        assert all(isinstance(i, str) for i in entry[key])
    assert entry["verdict"] in ("correct", "wrong", "unsure")
    for item in entry["items"]:
        assert {"item", "on", "status", "visible_share", "box"} <= set(item)


def test_bad_inputs_give_error_entries_and_exit_1(
    claim_png: Path, no_objective_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png at all")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    missing = tmp_path / "nowhere.png"
    argv = [
        "verify",
        "picmix",
        str(broken),
        str(claim_png),
        str(empty),
        str(missing),
        str(no_objective_png),
        "--json",
    ]
    code, out, _ = _run(argv, capsys)
    assert code == 1
    entries = json.loads(out)["images"]
    assert [e["image"] for e in entries] == argv[2:-1]
    assert "not an image" in entries[0]["error"]
    assert entries[1]["verdict"] == "correct"  # the good image is still verified
    assert entries[2]["error"] == "empty file"
    assert "cannot read file" in entries[3]["error"]
    assert "no objective card in view" in entries[4]["error"]
    for e in entries[:1] + entries[2:]:
        assert set(e) == {"image", "error"}


def test_annotate_writes_boxes_and_verdict(
    claim_png: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        ["verify", "picmix", str(claim_png), "--annotate", str(tmp_path / "ann")], capsys
    )
    assert code == 0
    assert "CORRECT" in out
    written = tmp_path / "ann" / "claim.picmix.png"
    img = cv2.imread(str(written))
    src = cv2.imread(str(claim_png))
    assert img is not None and img.shape == src.shape
    assert (img != src).any()


def test_unknown_deck_is_refused(
    claim_png: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("PICTABLE_DECKS", str(tmp_path))
    code, _, err = _run(["verify", "picmix", str(claim_png), "--deck", "nosuch"], capsys)
    assert code == 2
    assert "no deck 'nosuch'" in err
