"""Seats and zones (issue: calibration, item 4), the live guide, and `calibrate table`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.files import CalibrationFile, load
from calibration.guide import ENOUGH_VIEWS, CoverageGuide
from calibration.intrinsics import BoardSpec, View
from calibration.result import CalibrationError
from calibration.seats import layout_seats, seats_from_json, seats_to_json, zone_of


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_seats_go_clockwise_from_the_bottom_middle(n: int):
    names = [f"P{i}" for i in range(n)]
    seats = layout_seats(names, (800.0, 600.0))
    assert [s.name for s in seats] == names
    assert seats[0].anchor_mm == pytest.approx((400.0, 600.0))
    # Clockwise on screen (y down): the angle about the centre increases seat by seat.
    angles = [np.arctan2(s.anchor_mm[1] - 300, s.anchor_mm[0] - 400) for s in seats]
    turned = [(a - angles[0]) % (2 * np.pi) for a in angles]
    assert turned == sorted(turned) and len(set(turned)) == n
    # Each seat's anchor, and a card laid just in front of it, are in its own zone.
    for s in seats:
        ax, ay = s.anchor_mm
        inward = (400 + (ax - 400) * 0.8, 300 + (ay - 300) * 0.8)
        outward = (400 + (ax - 400) * 1.15, 300 + (ay - 300) * 1.15)
        assert zone_of(seats, inward) is s
        assert zone_of(seats, outward) is s


def test_zones_cover_the_play_area_without_overlap():
    seats = layout_seats(["A", "B", "C", "D"], (900.0, 600.0))
    rng = np.random.default_rng(0)
    for x, y in rng.uniform((1, 1), (899, 599), size=(300, 2)):
        owners = [s for s in seats if s.contains((x, y))]
        assert len(owners) <= 1
    covered = sum(
        zone_of(seats, (x, y)) is not None
        for x, y in rng.uniform((1, 1), (899, 599), size=(300, 2))
    )
    assert covered >= 297  # only points exactly on a boundary may fall between


def test_far_off_the_table_is_no_zone():
    seats = layout_seats(["A", "B", "C"], (800.0, 600.0))
    assert zone_of(seats, (5000.0, 5000.0)) is None


def test_seats_round_trip_in_the_calibration_file(tmp_path: Path):
    seats = layout_seats(["Ana", "Ben", "Chloe"], (800.0, 600.0))
    CalibrationFile(play_area_mm=(800.0, 600.0), seats=seats).save(str(tmp_path / "c.json"))
    back = load(str(tmp_path / "c.json"))
    assert [s.name for s in back.seats] == ["Ana", "Ben", "Chloe"]
    assert zone_of(back.seats, (400.0, 590.0)).name == "Ana"


@pytest.mark.parametrize(
    "bad",
    [
        {"x": 1},
        [{"name": "A"}],
        [{"name": "A", "anchor_mm": [1, 2], "zone_mm": [[0, 0]]}],
        [{"name": "A", "anchor_mm": [1, "x"], "zone_mm": [[0, 0], [1, 0], [1, 1]]}],
    ],
)
def test_bad_seats_refused(bad):
    with pytest.raises(CalibrationError):
        seats_from_json(bad)
    assert seats_to_json(()) == []


def test_guide_keeps_only_views_that_move_and_says_what_is_missing():
    board = BoardSpec.parse("chessboard:9x6:25")
    guide = CoverageGuide((640, 480))
    base = board.object_points()[:, :2] * 2 + 40
    assert guide.offer(View("a", base.astype(np.float32), board.object_points(), (640, 480)))
    assert not guide.offer(
        View("b", (base + 3).astype(np.float32), board.object_points(), (640, 480))
    )
    assert "move the board to the" in guide.advice()
    assert not guide.enough
    rng = np.random.default_rng(1)
    for i in range(40):
        shift = rng.uniform((0, 0), (640 - 450, 480 - 300))
        pts = (board.object_points()[:, :2] * 1.6 + shift).astype(np.float32)
        guide.offer(View(f"v{i}", pts, board.object_points(), (640, 480)))
    assert len(guide.views) >= ENOUGH_VIEWS
    assert guide.enough, guide.advice()


def test_calibrate_table_command_on_a_rendered_table(tmp_path: Path):
    from vision.synth import random_cards_scene, render_scene
    from vision.synth.textures import StandInTextures

    rng = np.random.default_rng(11)
    spec = random_cards_scene(rng, "easy", n_cards=3, provider=StandInTextures())
    frame, _ = render_scene(spec, seed=11, provider=StandInTextures())
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), frame)
    cam = spec.camera
    cal = tmp_path / "cam.json"
    from calibration.intrinsics import Intrinsics

    CalibrationFile(
        intrinsics=Intrinsics(np.asarray(cam.K), np.asarray(cam.dist), cam.size_wh, 0.2)
    ).save(str(cal))
    out = tmp_path / "table.json"
    annotated = tmp_path / "annotated.png"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pictable",
            "calibrate",
            "table",
            str(image),
            "--calibration",
            str(cal),
            "--players",
            "Ana,Ben,Chloe",
            "--out",
            str(out),
            "--annotate",
            str(annotated),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["table"]["markers"] == [0, 1, 2, 3]
    assert result["seats"] == ["Ana", "Ben", "Chloe"]
    written = load(str(out))
    assert written.intrinsics is not None and len(written.seats) == 3
    assert written.play_area_mm is not None
    assert cv2.imread(str(annotated)).shape == frame.shape


def test_calibrate_table_on_an_unreadable_image(tmp_path: Path):
    bad = tmp_path / "x.png"
    bad.write_bytes(b"\x89PNG broken")
    proc = subprocess.run(
        [sys.executable, "-m", "pictable", "calibrate", "table", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "not an image" in proc.stderr
