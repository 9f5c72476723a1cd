"""``kit learn picasso``: a kit whose sticks are 150 x 10 and 75 x 10 mm and whose red is
pink, measured from a photo of its pieces laid apart, then read with the learned profile."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.picasso.helpers import board_scene, laid_apart
from vision.picasso import BoardReading, read_board
from vision.picasso.learn import LearnedKit, learn_kit, run_kit_learn
from vision.picasso.profile import DEFAULT_PROFILE, load_profile
from vision.synth import ShapeSpec, StandInTextures, StickSpec, render_scene

LONG, SHORT, WIDTH = 150.0, 75.0, 10.0
PINK = (180, 90, 235)


@pytest.fixture(scope="module")
def other_kit() -> Iterator[None]:
    import vision.synth.spec as spec
    import vision.synth.sprites as sprites

    mp = pytest.MonkeyPatch()
    mp.setitem(spec.STICK_LW_MM, "long_stick", (LONG, WIDTH))
    mp.setitem(spec.STICK_LW_MM, "short_stick", (SHORT, WIDTH))
    mp.setitem(sprites.SHAPE_BGR, "red", PINK)
    yield
    mp.undo()


@pytest.fixture(scope="module")
def laid_apart_frame(other_kit: None) -> np.ndarray:
    frame, _ = render_scene(
        board_scene(laid_apart(), seed=11, tier="normal"), seed=11, provider=StandInTextures()
    )
    return frame


@pytest.fixture(scope="module")
def learned(laid_apart_frame: np.ndarray) -> LearnedKit:
    result = learn_kit(laid_apart_frame, name="retail")
    assert isinstance(result, LearnedKit), result
    return result


def test_measures_the_sticks_shapes_and_colours(learned: LearnedKit) -> None:
    p = learned.profile
    sticks = {s.kind: s for s in p.sticks}
    assert sticks["long_stick"].length_mm == pytest.approx(LONG, abs=4)
    assert sticks["short_stick"].length_mm == pytest.approx(SHORT, abs=4)
    assert sticks["long_stick"].width_mm == pytest.approx(WIDTH, abs=1.5)
    assert {s.kind for s in p.shapes} == {"circle", "square", "triangle", "half_circle"}
    for s in p.shapes:
        want = {"circle": 40, "square": 35, "triangle": 40, "half_circle": 40}[s.kind]
        assert s.size_mm == pytest.approx(want, rel=0.12)
    # the reader's colour classes stay the default's; the measured colours name the shapes,
    # and pink is not the default red
    assert p.colours == DEFAULT_PROFILE.colours
    assert p.seen is not None
    names = dict(p.seen.colours)
    assert len(names) == 4 and "red" not in names and "pink" in names
    assert learned.string_thickness_mm == pytest.approx(2.5, abs=1.0)


def _build() -> list[Any]:
    return [
        StickSpec("long_stick", (120.0, 90.0), 5.0),
        StickSpec("long_stick", (130.0, 100.0), 80.0),
        StickSpec("short_stick", (270.0, 170.0), 30.0),
        ShapeSpec("circle", "red", (280.0, 80.0), 0.0),
    ]


def test_the_learned_profile_reads_that_kit(other_kit: None, learned: LearnedKit) -> None:
    frame, truth = render_scene(
        board_scene(_build(), seed=12, tier="normal"), seed=12, provider=StandInTextures()
    )
    reading = read_board(frame, profile=learned.profile)
    assert isinstance(reading, BoardReading)
    assert (
        reading.counts
        == truth.board.counts
        == {"long_stick": 2, "short_stick": 1, "shape": 1, "string": 0}
    )
    assert [sh.colour for sh in reading.shapes] == ["pink"]  # named after the kit's colours
    lengths = sorted(s.length_mm for s in reading.sticks)
    assert lengths == pytest.approx([SHORT, LONG, LONG], abs=6)
    # the default profile takes the 75 mm stick for a long one (nearer 100 than 50)
    default = read_board(frame)
    assert isinstance(default, BoardReading)
    assert default.counts != truth.board.counts


def test_too_few_sticks_is_a_failure() -> None:
    frame, _ = render_scene(
        board_scene([], seed=13, tier="easy"), seed=13, provider=StandInTextures()
    )
    result = learn_kit(frame)
    assert not result and "stick" in str(result)


def test_the_command_body_writes_the_profile(
    laid_apart_frame: np.ndarray, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2

    photo = tmp_path / "pieces.png"
    cv2.imwrite(str(photo), laid_apart_frame)
    out = tmp_path / "retail.json"
    assert run_kit_learn([str(photo)], str(out)) == 0
    profile = load_profile(out)
    assert {s.kind for s in profile.sticks} == {"long_stick", "short_stick"}
    printed = capsys.readouterr().out
    assert "learned from" in printed and "pink" in printed  # the kit's colours, as named
    assert profile.seen is not None and "pink" in dict(profile.seen.colours)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 230, np.uint8))
    assert run_kit_learn([str(blank)], str(tmp_path / "x.json")) == 1
    assert "markers" in capsys.readouterr().err
    assert run_kit_learn([], str(out)) == 2


def test_kit_learn_through_the_cli(
    other_kit: None,
    laid_apart_frame: np.ndarray,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``pictable kit learn picasso IMAGE --out FILE``, then ``analyze picasso --kit FILE``
    reads a build of that kit right (and the default kit does not)."""
    import json

    import cv2

    from pictable.cli import main

    photo = tmp_path / "pieces.png"
    cv2.imwrite(str(photo), laid_apart_frame)
    out = tmp_path / "retail.json"
    assert main(["kit", "learn", "picasso", str(photo), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "learned from" in printed and "pink" in printed  # the kit's colours, as named
    profile = load_profile(out)
    assert profile.seen is not None and "pink" in dict(profile.seen.colours)
    lengths = sorted(s.length_mm for s in profile.sticks)
    assert lengths == pytest.approx([SHORT, LONG], abs=4)
    frame, _ = render_scene(
        board_scene(_build(), seed=12, tier="normal"), seed=12, provider=StandInTextures()
    )
    board = tmp_path / "build.png"
    cv2.imwrite(str(board), frame)
    assert main(["analyze", "picasso", str(board), "--kit", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["images"][0]
    assert got["counts"] == {"long_stick": 2, "short_stick": 1, "shape": 1, "string": 0}
    assert got["cost"] == 5
    assert [p["colour"] for p in got["pieces"] if p["kind"] == "shape"] == ["pink"]
    # bad arguments: exit 2 with a message, no traceback
    assert main(["kit", "learn", "picasso", "--out", str(out)]) == 2
    assert "IMAGE" in capsys.readouterr().err
    assert main(["kit", "learn", "picasso", str(photo), "--camera", "0", "--out", str(out)]) == 2
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main(["kit", "learn", "picmix", str(photo), "--out", str(out)])
    assert exc.value.code == 2
    # a photo without the board: exit 1, the reason on stderr
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((360, 640, 3), 230, np.uint8))
    assert main(["kit", "learn", "picasso", str(blank), "--out", str(tmp_path / "x.json")]) == 1
    assert "markers" in capsys.readouterr().err


def test_kit_learn_help_says_how_to_lay_the_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    from pictable.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["kit", "learn", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "apart" in out and "--camera" in out and "--kit" in out
