"""``pictable analyze picasso`` reads its images like the other photo commands
(``pictable.commands.images``): the same reasons for a file it cannot read, annotated copies
that never overwrite each other, and a reader error on one image that leaves the others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

import vision.picasso.reader as reader
from tests.picasso.test_contract import _run


def test_same_named_images_get_their_own_annotation(
    board_a: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for sub in ("left", "right"):
        (tmp_path / sub).mkdir()
        paths.append(tmp_path / sub / "board.png")
        cv2.imwrite(str(paths[-1]), board_a[0])
    ann = tmp_path / "ann"
    code, out, _ = _run(
        ["analyze", "picasso", *map(str, paths), "--json", "--annotate", str(ann)], capsys
    )
    assert code == 0
    images = json.loads(out)["images"]
    assert [e["annotated"] for e in images] == [
        str(ann / "board.picasso.png"),
        str(ann / "board-2.picasso.png"),
    ]
    assert all(cv2.imread(e["annotated"]) is not None for e in images)


def test_a_folder_and_a_reader_error_are_reported_and_the_rest_read(
    board_a: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    good = tmp_path / "board.png"
    cv2.imwrite(str(good), board_a[0])
    strange = tmp_path / "strange.png"
    cv2.imwrite(str(strange), board_a[0][:, ::-1].copy())
    plain = reader.read_board

    def fails_on_mirrored(frame: Any, **kw: Any) -> Any:
        if (frame == board_a[0][:, ::-1]).all():
            raise RuntimeError("a bug in the reader")
        return plain(frame, **kw)

    monkeypatch.setattr(reader, "read_board", fails_on_mirrored)
    code, out, _ = _run(
        ["analyze", "picasso", str(tmp_path), str(strange), str(good), "--json"], capsys
    )
    assert code == 1
    folder, bad, ok = json.loads(out)["images"]
    assert folder["error"] == "is a directory"
    assert bad["error"] == "analysis failed: RuntimeError: a bug in the reader"
    assert "error" not in ok and ok["cost"] == board_a[1].board.cost
