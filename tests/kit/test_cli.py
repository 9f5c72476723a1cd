"""``pictable kit``: help, output, and clear errors (exit 2, no traceback) on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pictable.cli import main

REPO = Path(__file__).resolve().parents[2]


def test_help_lists_actions_and_what(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["kit", "print", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for what in ("pickpic", "picflip", "picasso", "picmix", "markers", "board", "calibration"):
        assert what in out
    assert "100 %" in out and "long" in out.lower()
    with pytest.raises(SystemExit):
        main(["kit", "export", "--help"])
    assert "manifest.json" in capsys.readouterr().out


def test_print_writes_a_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.pdf"
    assert main(["kit", "print", "markers", "--out", str(out), "--paper", "letter"]) == 0
    assert out.read_bytes().startswith(b"%PDF-1.4")
    assert "612.00 x 792.00 pt" in capsys.readouterr().out


def test_print_selected_cards(tmp_path: Path) -> None:
    out = tmp_path / "p.pdf"
    assert (
        main(["kit", "print", "picasso", "--out", str(out), "--cards", "picasso-003,picasso-010"])
        == 0
    )
    assert out.stat().st_size > 10_000


def test_export_selected_cards(tmp_path: Path) -> None:
    assert (
        main(
            [
                "kit",
                "export",
                "picasso",
                str(tmp_path / "x"),
                "--dpi",
                "100",
                "--cards",
                "picasso-001",
            ]
        )
        == 0
    )
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    assert [c["id"] for c in manifest["cards"]] == ["picasso-001"]
    assert sorted(p.name for p in (tmp_path / "x").glob("*.png")) == [
        "picasso-001_back.png",
        "picasso-001_front.png",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["kit", "print", "markers", "--out", "{tmp}/missing/x.pdf"], "cannot write"),
        (["kit", "print", "markers", "--out", "{tmp}"], "is a directory"),
        (
            ["kit", "print", "pickpic", "--out", "{tmp}/x.pdf", "--cards", "picasso-001"],
            "not in the pickpic deck",
        ),
        (
            ["kit", "print", "board", "--out", "{tmp}/x.pdf", "--cards", "pickpic-001"],
            "only applies to decks",
        ),
        (["kit", "export", "picmix", "{tmp}/file/sub"], "cannot write to"),
        (["kit", "export", "picmix", "{tmp}/d", "--dpi", "5"], "--dpi"),
        (["kit"], "choose an action"),
    ],
)
def test_bad_input_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    (tmp_path / "file").write_text("")
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["kit", "print", "chess", "--out", "x.pdf"],
        ["kit", "print", "markers"],
        ["kit", "print", "markers", "--out", "x.pdf", "--paper", "a3"],
        ["kit", "export", "uno", "d"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err or "required" in err


def test_unknown_what_from_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pictable",
            "kit",
            "print",
            "deck",
            "--out",
            str(tmp_path / "x.pdf"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 2
    assert "invalid choice: 'deck'" in proc.stderr and "Traceback" not in proc.stderr
