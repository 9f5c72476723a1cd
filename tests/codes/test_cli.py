"""``pictable decode`` (CONTRACTS.md section 3): the JSON contract, error entries and exit
status, the table, --annotate and --dictionaries."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from pictable.commands import decode
from tests.codes.helpers import marker_scene, qr_image


def run_decode(argv: list[str]) -> int:
    """The subcommand through its own parser (as pictable.cli wires it)."""
    parser = argparse.ArgumentParser(prog="pictable")
    sub = parser.add_subparsers(dest="command")
    decode.register(sub)
    args = parser.parse_args(["decode", *argv])
    return int(args.func(args))


@pytest.fixture
def images(tmp_path: Path) -> dict[str, Path]:
    qr = tmp_path / "qr.png"
    cv2.imwrite(str(qr), qr_image("card:pickpic:001\r\n", scale=5))
    hostile = tmp_path / "hostile.png"
    cv2.imwrite(str(hostile), qr_image("\x1b[2J\x1b[31mgotcha\x07 " + "x" * 300))
    markers = tmp_path / "markers.jpg"
    cv2.imwrite(str(markers), marker_scene("DICT_4X4_50", [4, 5, 6, 7])[0])
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), np.full((50, 60, 3), 255, np.uint8))
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"this is not an image")
    zero = tmp_path / "zero.png"
    zero.write_bytes(b"")
    return {
        "qr": qr,
        "hostile": hostile,
        "markers": markers,
        "empty": empty,
        "junk": junk,
        "zero": zero,
        "missing": tmp_path / "missing.png",
        "folder": tmp_path,
    }


def test_json_matches_the_contract(images: dict[str, Path], capsys: pytest.CaptureFixture[str]):
    paths = [str(images[k]) for k in ("qr", "markers", "empty")]
    assert run_decode([*paths, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["images"]
    assert [e["image"] for e in out["images"]] == paths
    for entry in out["images"]:
        assert list(entry) == ["image", "codes"]
        for code in entry["codes"]:
            assert list(code) == ["kind", "text", "id", "dictionary", "corners"]
            assert code["kind"] in ("qr", "aruco")
            assert len(code["corners"]) == 4
            assert all(
                len(p) == 2 and all(isinstance(v, float) for v in p) for p in code["corners"]
            )
    qr, markers, empty = out["images"]
    assert qr["codes"] == [
        {
            **qr["codes"][0],
            "kind": "qr",
            "text": "card:pickpic:001\r\n",
            "id": None,
            "dictionary": None,
        }
    ]
    assert [(c["kind"], c["id"], c["dictionary"], c["text"]) for c in markers["codes"]] == [
        ("aruco", i, "DICT_4X4_50", None) for i in (4, 5, 6, 7)
    ]
    assert empty["codes"] == []


def test_unreadable_images_give_error_entries_and_exit_1(
    images: dict[str, Path], capsys: pytest.CaptureFixture[str]
):
    names = ["junk", "qr", "zero", "missing", "folder", "markers"]
    status = run_decode([*(str(images[k]) for k in names), "--json"])
    assert status == 1
    entries = json.loads(capsys.readouterr().out)["images"]
    assert [e["image"] for e in entries] == [str(images[k]) for k in names]
    by_name = dict(zip(names, entries, strict=True))
    for bad in ("junk", "zero", "missing", "folder"):
        assert list(by_name[bad]) == ["image", "error"]
        assert isinstance(by_name[bad]["error"], str) and by_name[bad]["error"]
    assert by_name["qr"]["codes"][0]["text"] == "card:pickpic:001\r\n"
    assert len(by_name["markers"]["codes"]) == 4


def test_hostile_payload_is_data_in_json_and_escaped_in_the_table(
    images: dict[str, Path], capsys: pytest.CaptureFixture[str]
):
    assert run_decode([str(images["hostile"]), "--json"]) == 0
    raw = capsys.readouterr().out
    assert "\x1b" not in raw and "\x07" not in raw  # JSON escapes control characters
    text = json.loads(raw)["images"][0]["codes"][0]["text"]
    assert text == "\x1b[2J\x1b[31mgotcha\x07 " + "x" * 300
    assert run_decode([str(images["hostile"])]) == 0
    table = capsys.readouterr().out
    assert "\x1b" not in table and "\x07" not in table
    assert "\\x1b[2J" in table and "(317 chars)" in table


def test_table_and_annotations(
    images: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    out_dir = tmp_path / "annotated"
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copy(images["qr"], twin / "qr.png")
    status = run_decode(
        [
            str(images["qr"]),
            str(twin / "qr.png"),
            str(images["markers"]),
            str(images["junk"]),
            "--annotate",
            str(out_dir),
        ]
    )
    assert status == 1
    table = capsys.readouterr().out
    assert 'qr     "card:pickpic:001\\r\\n"' in table
    assert "aruco  DICT_4X4_50 id 7" in table
    assert f"{images['junk']}: error: not an image file" in table
    written = sorted(p.name for p in out_dir.iterdir())
    assert written == ["markers.codes.png", "qr-2.codes.png", "qr.codes.png"]
    drawn = cv2.imread(str(out_dir / "qr.codes.png"))
    assert drawn.shape == cv2.imread(str(images["qr"])).shape


def test_dictionaries_option(
    images: dict[str, Path], shared_data: Path, capsys: pytest.CaptureFixture[str]
):
    custom = shared_data / "opencv-aruco" / "tutorial_dict.yml"
    board = shared_data / "opencv-aruco" / "gboriginal.jpg"
    assert run_decode([str(board), "--json", "--dictionaries", f"DICT_6X6_250,{custom}"]) == 0
    codes = json.loads(capsys.readouterr().out)["images"][0]["codes"]
    assert len(codes) == 35 and {c["dictionary"] for c in codes} == {"tutorial_dict.yml"}
    assert run_decode([str(images["markers"]), "--json", "--dictionaries", "none"]) == 0
    assert json.loads(capsys.readouterr().out)["images"][0]["codes"] == []
    assert run_decode([str(images["markers"]), "--dictionaries", "DICT_NOPE"]) == 2
    assert "unknown marker dictionary 'DICT_NOPE'" in capsys.readouterr().err


def test_help_explains_the_output(capsys: pytest.CaptureFixture[str]):
    from vision.codes import DEFAULT_DICTIONARIES

    assert decode.DEFAULTS_SHOWN == DEFAULT_DICTIONARIES
    with pytest.raises(SystemExit):
        run_decode(["--help"])
    text = capsys.readouterr().out
    for needle in (
        "--json",
        "--annotate",
        "--dictionaries",
        "docs/formats.md",
        "DICT_4X4_50",
        "exit status is 1",
    ):
        assert needle in text


def test_odd_image_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """16-bit, transparent and 1x1 PNGs are images: read, never an error."""
    grey = cv2.cvtColor(qr_image("odd file", scale=4), cv2.COLOR_BGR2GRAY)
    deep = tmp_path / "deep.png"
    cv2.imwrite(str(deep), grey.astype(np.uint16) * 257)
    clear = tmp_path / "clear.png"
    bgra = np.zeros((*grey.shape, 4), np.uint8)
    bgra[:, :, 3] = 255 - grey  # black ink on a transparent sheet
    cv2.imwrite(str(clear), bgra)
    dot = tmp_path / "dot.png"
    cv2.imwrite(str(dot), np.zeros((1, 1, 3), np.uint8))
    assert run_decode([str(deep), str(clear), str(dot), "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)["images"]
    assert [[c["text"] for c in e["codes"]] for e in entries] == [["odd file"], ["odd file"], []]
