"""Markers read by what is known (issue 26, codes at low resolution): the game played tells
which markers can be on the table; a small, blurred marker that reads a cell wrong is named
by its likeness to them; a pattern that is not a 4 x 4 marker, or a marker of another game,
names no card."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from vision.identify import codes as c
from vision.identify import dark_squares, deblur
from vision.identify import likeness as lk
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit.codes import marker_bits, marker_id

GAMES_WITHOUT_ARUCO_LOOKALIKES = ("pickpic", "picflip", "picmix")


def _marker_on_paper(
    mid: int, cell_px: float, flip: tuple[int, int] | None, blur: float, towards: float = 1.0
) -> np.ndarray:
    """Marker ``mid`` (6 cells with its border) on white paper, ``cell_px`` a cell, one inner
    cell (``flip``: row, column of the 4 x 4) moved ``towards`` the other colour (1: flipped;
    0.55: a little past grey, as a glare or a smear leaves it), blurred: (H, W) uint8."""
    cells = marker_bits(mid).astype(np.float64)  # 1 = black
    if flip is not None:
        v = cells[1 + flip[0], 1 + flip[1]]
        cells[1 + flip[0], 1 + flip[1]] = v + towards * (1 - 2 * v)
    fine = 40  # px a cell, then shrunk
    big = np.full((10 * fine, 10 * fine), 235.0)
    big[2 * fine : 8 * fine, 2 * fine : 8 * fine] = (
        np.kron(1 - cells, np.ones((fine, fine))) * 205 + 30
    )
    size = round(10 * cell_px)
    small = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
    if blur:
        small = cv2.GaussianBlur(small, (0, 0), blur)
    page = np.full((size + 40, size + 40), 235.0)
    page[20 : 20 + size, 20 : 20 + size] = small
    return np.clip(page, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("cell", [(0, 0), (2, 2), (3, 3)])
def test_a_marker_with_a_smeared_cell_is_named_by_its_likeness_to_the_games_markers(
    cell: tuple[int, int],
) -> None:
    mid = marker_id("pickpic-017", "front")
    grey = _marker_on_paper(mid, 3.0, flip=cell, blur=0.6, towards=0.6)
    quads = dark_squares.marker_quads(grey)
    read, _ = c._read_quads(grey, quads)
    assert read == []  # bit for bit, that cell reads wrong: no marker
    named = lk.soft_markers(grey, quads, lk.game_marker_ids("pickpic"))
    assert [m for m, _ in named] == [mid]
    # Its corners in ArUco order: the first is the marker's top-left (upright here).
    corners = named[0][1]
    assert corners[0, 0] < corners[2, 0] and corners[0, 1] < corners[2, 1]


def test_a_smear_towards_another_games_marker_names_nothing() -> None:
    """pickpic-017's marker is two cells from picasso-035's front marker, one of them the
    cell (1, 2): smeared there, it is as like the one as the other."""
    mid = marker_id("pickpic-017", "front")
    grey = _marker_on_paper(mid, 3.0, flip=(1, 2), blur=0.6, towards=0.6)
    assert (
        lk.soft_markers(grey, dark_squares.marker_quads(grey), lk.game_marker_ids("pickpic")) == []
    )


def test_a_cell_read_fully_wrong_is_not_corrected() -> None:
    """A cell of the other colour outright leaves the marker one cell from its own and two
    from the nearest other of the game (Pick Pic's markers are 3 apart): too close to
    call, so it names nothing."""
    mid = marker_id("pickpic-017", "front")
    grey = _marker_on_paper(mid, 3.0, flip=(1, 2), blur=0.6)
    assert (
        lk.soft_markers(grey, dark_squares.marker_quads(grey), lk.game_marker_ids("pickpic")) == []
    )


@pytest.mark.parametrize("cell", [None, (0, 0), (2, 1)])
def test_likeness_names_nothing_outside_the_game_and_never_a_fiducial(
    cell: tuple[int, int] | None,
) -> None:
    pickpic = lk.game_marker_ids("pickpic")
    # Pic Flip cards' markers, clean or smeared: while Pick Pic is played, they are no card
    # (some are two cells from a Pick Pic marker: every marker of the kit is a rival).
    for card in ("picflip-010", "picflip-057", "picflip-101"):
        grey = _marker_on_paper(marker_id(card, "back"), 3.0, flip=cell, blur=0.6, towards=0.6)
        assert lk.soft_markers(grey, dark_squares.marker_quads(grey), pickpic) == []
    # The play area's and the board's markers (fiducials): never read as a card's.
    for fiducial in (0, 2, 5):
        grey = _marker_on_paper(fiducial, 3.0, flip=cell, blur=0.6, towards=0.6)
        assert lk.soft_markers(grey, dark_squares.marker_quads(grey), pickpic) == []
    # No game, no likeness.
    grey = _marker_on_paper(marker_id("pickpic-017", "front"), 3.0, flip=(1, 2), blur=0.6)
    assert lk.soft_markers(grey, dark_squares.marker_quads(grey), frozenset()) == []


def test_the_games_markers_are_its_cards_both_faces() -> None:
    ids = lk.game_marker_ids("pickpic")
    assert marker_id("pickpic-001", "front") in ids and marker_id("pickpic-120", "back") in ids
    assert marker_id("picflip-001", "front") not in ids
    assert len(ids) == 240
    assert not ids & set(range(50))


@functools.cache
def _hard_scene(index: int):  # type: ignore[no-untyped-def]
    return make_scene("codes", "hard", scene_seed(0, index))


def test_small_blurred_cards_of_the_hard_tier_are_named_once_the_game_is_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hard tier, seed 0 (the benchmark's development seed), scene 18: pickpic-057's front
    and pickpic-114's back have no marker read bit for bit in the frame as it is; knowing
    the game names them, where their pictures agree, under the confidence of two exact
    codes, on their cards (pickpic-057 within the benchmark's placement bar; pickpic-114's
    back, 56 x 46 px, once 12% of its height off at one corner, its outline its lone
    marker's pose snapped to faint edges). The frame is smeared: with the smear taken out
    (vision.identify.deblur), pickpic-057's markers are read bit for bit, and that reading
    stands; left out here."""
    monkeypatch.setattr(deblur, "MIN_LENGTH", math.inf)
    frame, truth = _hard_scene(18)
    without = identify_frame(frame, None, codes="fast")
    found = identify_frame(frame, None, codes="fast", game="pickpic")
    for card_id in ("pickpic-057", "pickpic-114"):
        card = next(t for t in truth.cards if t.card_id == card_id)
        assert card_id not in {r.card for r in without.cards}
        reading = next(r for r in found.cards if r.card == card_id)
        assert reading.side == card.face
        assert reading.confidence < 0.99
        assert placement_error(reading.corners_px, card.corners_px) <= (
            PLACE_MAX if card_id == "pickpic-057" else 0.15
        )
    # Every card named is right.
    truth_ids = {(t.card_id, t.face) for t in truth.cards}
    assert {(r.card, r.side) for r in found.cards} <= truth_ids


def test_a_six_by_six_marker_is_no_card_marker(shared_data: Path) -> None:
    """OpenCV's own test photo of a 6 x 6 board: four of its markers, their 8 cells read as
    a card marker's 6, matched a kit card's marker bit for bit (pickpic-074 was named at
    0.70). Their cells are not of one level each (MAX_CELL_SPREAD)."""
    photo = cv2.imread(str(shared_data / "opencv-aruco" / "gboriginal.jpg"))
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
    assert c.read_markers(grey) == []
    assert identify_frame(photo, None, codes="fast").cards == ()


@pytest.mark.parametrize("game", GAMES_WITHOUT_ARUCO_LOOKALIKES)
def test_no_card_is_named_on_real_photos_without_cards(shared_data: Path, game: str) -> None:
    """The real photos of ../shared/data (QR codes, chessboards, ArUco boards, scenes of
    flat pictures): no kit card on any, so none is named by codes, exact or soft. (While
    Picasso is played, one 6 x 6 marker of singlemarkersoriginal.jpg still reads as
    picasso-034's back, cells of one level each: a known limit, in the issue's note.)"""
    photos = sorted(
        p for p in shared_data.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    assert len(photos) > 100
    named = []
    for p in photos:
        image = cv2.imread(str(p))
        if image is None:
            continue
        named += [
            (p.name, r.card) for r in identify_frame(image, None, codes="fast", game=game).cards
        ]
    assert named == []
