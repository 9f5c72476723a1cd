"""Seats from a calibration file, frame by frame (``calibration.seats.seat_mapper``): a point of
the image is named by the seat whose zone holds it once the play-area markers have been seen,
and the last table fit is kept while they are hidden."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from calibration.files import CalibrationFile
from calibration.intrinsics import Intrinsics
from calibration.seats import seat_mapper
from vision.synth import SceneSpec, random_cards_scene, render_scene

PLAYERS = ["Ana", "Ben", "Cy"]


@dataclasses.dataclass(frozen=True)
class Table:
    frame: np.ndarray  # (H, W, 3) uint8 BGR: markers 0-3, no card
    spec: SceneSpec
    size_mm: tuple[float, float]  # the play area between the markers' centres
    path: Path  # its calibration file

    def px(self, x_mm: float, y_mm: float) -> tuple[float, float]:
        """Where a point of the play area (mm from marker 0's centre) lies in the image."""
        origin = np.asarray(self.spec.markers[0].center_mm, np.float64)
        p = self.spec.camera.project(np.asarray([origin + np.array([x_mm, y_mm])]))[0]
        return float(p[0]), float(p[1])


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Table:
    spec = random_cards_scene(np.random.default_rng(3), "easy", n_cards=0, n_hands=0)
    spec = dataclasses.replace(spec, cards=())
    frame, _ = render_scene(spec, seed=3)
    centre = {m.marker_id: np.asarray(m.center_mm, np.float64) for m in spec.markers}
    size = (
        float(np.linalg.norm(centre[1] - centre[0])),
        float(np.linalg.norm(centre[3] - centre[0])),
    )
    cam = spec.camera
    intr = Intrinsics(np.asarray(cam.K, np.float64), np.asarray(cam.dist, np.float64), cam.size_wh)
    path = tmp_path_factory.mktemp("seats") / "table.json"
    CalibrationFile(intrinsics=intr, play_area_mm=size).save(str(path))
    return Table(frame, spec, size, path)


def test_points_are_named_by_their_seat_and_the_fit_is_kept(table: Table) -> None:
    mapper = seat_mapper(str(table.path), PLAYERS)
    assert mapper is not None
    blank = np.zeros_like(table.frame)
    assert mapper(blank) is None  # no markers seen yet: no table
    seat_of = mapper(table.frame)
    assert seat_of is not None
    w, h = table.size_mm
    # the first seat at the middle of the bottom edge, the others clockwise
    assert seat_of(table.px(w / 2, h - 20.0)) == "Ana"
    assert seat_of(table.px(20.0, h / 3)) == "Ben"
    assert seat_of(table.px(w - 20.0, h / 3)) == "Cy"
    hidden = mapper(blank)  # the markers under a hand: the last fit stands
    assert hidden is not None and hidden(table.px(w / 2, h - 20.0)) == "Ana"


def test_no_file_no_mapper_and_a_file_without_seats_is_refused(tmp_path: Path) -> None:
    assert seat_mapper(None, PLAYERS) is None
    path = tmp_path / "lens-only.json"
    CalibrationFile().save(str(path))
    with pytest.raises(ValueError, match="no seats and no play area"):
        seat_mapper(str(path), PLAYERS)
