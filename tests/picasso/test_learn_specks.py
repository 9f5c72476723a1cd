"""``kit learn picasso`` takes a piece's small holes for its own surface, not the canvas
(``learn._without_specks``). A development look of our renderer (dark wood under a hard,
warm light: look seed 5 of ``pictable.bench.readers.picasso_learn``'s development looks)
leaves specks of highlight in the dark sticks' half-contrast patches; each speck's rim
counted as ridge, so a stick 8.7 mm across measured half a millimetre wide, the string's
width, and the kit photo (every piece laid apart) was refused: "pieces touch"."""

from __future__ import annotations

import numpy as np
import pytest

from tests.picasso import helpers
from vision.picasso import learn as learn_module
from vision.picasso.learn import Failure, _ridge, _without_specks, learn_kit

LOOK_SEED = 5
S = 1.5


@pytest.fixture(scope="module")
def kit_photo() -> np.ndarray:
    return helpers.kit_photo(LOOK_SEED, "dark", "hard")


def test_the_kit_photo_of_dark_speckled_sticks_is_learned(kit_photo: np.ndarray) -> None:
    result = helpers.learned_kit(kit_photo)
    widths = [s.width_mm for s in result.profile.sticks]
    assert widths and all(7.0 <= w <= 9.5 for w in widths)


def test_without_the_fill_the_photo_is_refused(
    kit_photo: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The failure the fill mends: the same photo refused for touching pieces (with the
    bars' mean width, ``learn._bar_half_width``, not taken either: it mends this photo
    too)."""
    monkeypatch.setattr(learn_module, "_without_specks", lambda mask, s: mask)
    monkeypatch.setattr(learn_module, "_bar_half_width", lambda p, length: p.half_width_mm)
    result = learn_kit(kit_photo)
    assert isinstance(result, Failure)
    assert "pieces touch" in result.reason


def _bar(holes: list[tuple[int, int, int]]) -> np.ndarray:
    """A 60 x 12 px bar (40 x 8 mm at 1.5 px/mm) in a padded box, with square holes
    (x, y, side in px)."""
    m = np.zeros((24, 80), np.uint8)
    m[6:18, 10:70] = 1
    for x, y, side in holes:
        m[y : y + side, x : x + side] = 0
    return m


def test_specks_are_filled_and_the_bar_measures_its_width() -> None:
    speckled = _bar([(x, 8 + (x % 3) * 2, 2) for x in range(14, 66, 5)])
    half, _ = _ridge(speckled, S)
    assert half < learn_module.STRING_RADIUS_MM  # the specks' rims make it string-thin
    half, _ = _ridge(_without_specks(speckled, S), S)
    assert 3.5 <= half <= 4.5  # an 8 mm stick's half width


def test_a_loop_of_string_keeps_the_canvas_it_encloses() -> None:
    ring = np.zeros((60, 60), np.uint8)
    yy, xx = np.mgrid[:60, :60]
    r = np.hypot(yy - 30, xx - 30)
    ring[(r >= 18) & (r <= 21)] = 1
    assert np.array_equal(_without_specks(ring, S), ring)
