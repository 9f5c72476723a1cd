"""Small, blurred markers read by correlation with each marker as blur would show it
(issue 26: codes at low resolution, deblur-aware): what the cells' mean levels misread, a
matched template reads; what is no marker names nothing."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.identify import blur_read as br
from vision.identify import codes as c
from vision.identify import dark_squares
from vision.identify import likeness as lk
from vision.kit.codes import marker_bits, marker_id


def _marker(mid: int, cell_px: float, blur_cells: float, noise: float, seed: int) -> np.ndarray:
    """Marker ``mid`` on its white pad on a mid-grey table, ``cell_px`` a cell, blurred by
    ``blur_cells`` (a Gaussian's sigma, in cells), with grey-level noise: (H, W) uint8."""
    fine = 32
    bits = marker_bits(mid).astype(np.float64)  # 1 = black
    big = np.full((12 * fine, 12 * fine), 120.0)
    big[2 * fine : 10 * fine, 2 * fine : 10 * fine] = 225  # the pad, a cell wide
    big[3 * fine : 9 * fine, 3 * fine : 9 * fine] = (
        np.kron(1 - bits, np.ones((fine, fine))) * 195 + 30
    )
    size = round(12 * cell_px)
    small = cv2.resize(big, (size, size), interpolation=cv2.INTER_AREA)
    if blur_cells > 0:
        small = cv2.GaussianBlur(small, (0, 0), blur_cells * cell_px)
    rng = np.random.default_rng(seed)
    small += rng.normal(0, noise, small.shape)
    return np.clip(small, 0, 255).astype(np.uint8)


# Marker, and the cell size (px) and blur (a Gaussian's sigma, in cells) it is drawn with.
CASES = [
    ("pickpic-105", "front", 2.6, 0.55),
    ("pickpic-017", "front", 2.8, 0.45),
    ("pickpic-064", "back", 3.0, 0.6),
]


@pytest.mark.parametrize(("card", "side", "cell", "blur"), CASES)
def test_a_blurred_marker_the_cells_misread_is_named_by_correlation(
    card: str, side: str, cell: float, blur: float
) -> None:
    """Cells of 2.6-3 px blurred by half a cell, with noise (six draws): read cell by cell,
    the marker is mostly not named (bit for bit, or by its cells' likeness); correlated
    with the markers as blur shows them, it is, in its turn, and never as another."""
    mid = marker_id(card, side)  # type: ignore[arg-type]
    named = 0
    for seed in range(6):
        grey = _marker(mid, cell, blur, 4.0, seed)
        quads = dark_squares.marker_quads(grey)
        assert len(quads) >= 1
        exact, _ = c._read_quads(grey, quads)
        soft = lk.soft_markers(grey, quads, lk.game_marker_ids("pickpic"))
        found = br.blurred_markers(grey, quads, lk.game_marker_ids("pickpic"))
        assert [m for m, _ in found] in ([], [mid])  # never another marker
        if found:
            corners = found[0][1]
            # ArUco order: the first corner is the marker's top-left (upright here).
            assert corners[0].sum() == pytest.approx(corners.sum(axis=1).min())
        named += bool(found) and not exact and not soft
    assert named >= 3  # what it alone reads


def test_every_rendered_marker_correlates_best_with_itself() -> None:
    """The blurred templates, each sampled as a square is: every marker of the kit, drawn
    sharp at 4 px a cell, correlates best with itself in its own turn."""
    templates, ids = br._blurred()
    assert templates.shape == (len(br.BLUR_CELLS) * len(ids), br.GRID * br.GRID)
    for mid in (0, 7, marker_id("pickpic-001", "front"), marker_id("picmix-obj-01", "back")):
        grey = _marker(mid, 4.0, 0.0, 0.0, 0)
        (quad,) = [q for q in dark_squares.marker_quads(grey) if np.ptp(q[:, 0]) > 20]
        score = br.correlations(grey, quad[None])[0]
        assert ids[int(np.argmax(score))] == mid


def test_a_square_of_another_game_or_a_fiducial_names_no_card() -> None:
    """The board's and the play area's markers and other games' cards lie on the table too:
    a square most like one of them names none of the game's."""
    for mid in (4, marker_id("picflip-010", "front")):
        grey = _marker(mid, 2.6, 0.55, 4.0, 0)
        quads = dark_squares.marker_quads(grey)
        assert br.blurred_markers(grey, quads, lk.game_marker_ids("pickpic")) == []


@pytest.mark.parametrize("game", ["pickpic", "picflip", "picmix"])
def test_no_square_of_the_real_photos_is_named(shared_data: Path, game: str) -> None:
    """The real photos of ../shared/data (QR codes, chessboards, ArUco boards, pictures): no
    kit card on any, and no dark square of theirs is named by correlation."""
    photos = sorted(
        p for p in shared_data.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    named = []
    for p in photos:
        image = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if image is None:
            continue
        quads = dark_squares.marker_quads(image)
        named += [
            (p.name, m) for m, _ in br.blurred_markers(image, quads, lk.game_marker_ids(game))
        ]
    assert named == []
