"""Small cards named where their outline puts their markers (issue 26, part 3), three rules
of :mod:`vision.identify.outline_markers`: the card's picture counts as its face's when it
is the likest of the game's faces as a whole (``LIKENESS_LEAD``), not only by its cells'
agreement; a marker that trails another of the kit's narrowly names the card when the
picture says so (``PICTURED_LEAD``), never where the rival is another game's card whose
picture agrees more; and two outlines on one card name it once, by the squares that score
best."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from tests.identify.conftest import named_by_codes
from vision.identify import dark_squares, outline_markers
from vision.identify.scenes import make_scene, scene_seed


@functools.cache
def _scene(seed: int, looks: str, index: int) -> tuple[np.ndarray, object]:
    """Scene ``index`` of the hard codes tables of ``seed`` in looks ``looks`` (development
    groups: ``dev``, ``wide``)."""
    return make_scene("codes", "hard", scene_seed(seed, index), looks)


def _placed_on_its_card(named: dict[str, np.ndarray], truth, card: str) -> bool:
    own = next(t for t in truth.cards if f"{t.card_id}/{t.face}" == card)
    return placement_error(named[card], own.corners_px) <= PLACE_MAX


def _named_only_by_the_rule(
    scene: tuple[int, str, int], card: str, rule: str, off: float, mp: pytest.MonkeyPatch
) -> None:
    """``card`` is named in ``scene`` (seed, looks, index), on its card, and nothing that is
    not on the table; with ``outline_markers``' ``rule`` set to ``off``, it is not named."""
    frame, truth = _scene(*scene)
    named = named_by_codes(frame)
    assert card in named and _placed_on_its_card(named, truth, card)
    assert set(named) <= {f"{t.card_id}/{t.face}" for t in truth.cards}
    mp.setattr(outline_markers, rule, off)
    # Markers traced to more than four corners are found as rounded squares and paired since
    # (tests/identify/test_rounded_squares.py); some of these cards are named that way too.
    # Without them, as when the rules were made, each card needs its rule.
    mp.setattr(dark_squares, "_ROUNDED_PX", (999, 999))
    assert card not in named_by_codes(frame)


@pytest.mark.parametrize(
    ("seed", "looks", "index", "card"),
    [
        (2, "wide", 55, "pickpic-093/front"),  # pale ink, 50 px wide
        (2, "dev", 45, "pickpic-017/front"),  # 40 px wide
    ],
)
def test_a_narrow_lead_names_the_card_whose_picture_is_the_likest_as_a_whole(
    seed: int, looks: str, index: int, card: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The marker leads narrowly; the cells' agreement ranks other faces of the game above
    # the card's own, its likeness as a whole ranks the card's first.
    _named_only_by_the_rule((seed, looks, index), card, "LIKENESS_LEAD", np.inf, monkeypatch)


@pytest.mark.parametrize(
    ("seed", "looks", "index", "card"),
    [
        (2, "wide", 62, "pickpic-118/front"),  # 43 px wide
        (2, "dev", 11, "pickpic-085/back"),  # 40 px wide: a back, told by its code
    ],
)
def test_a_marker_trailing_another_of_the_kit_narrowly_names_the_card_its_picture_confirms(
    seed: int, looks: str, index: int, card: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _named_only_by_the_rule((seed, looks, index), card, "PICTURED_LEAD", 0.0, monkeypatch)


def _agreement(scores: dict[tuple[str, str], float]):
    return lambda poses, faces: np.array([scores[tuple(f)] for f in faces], np.float64)


def test_a_trailing_marker_names_nothing_where_another_games_card_looks_likelier() -> None:
    outline = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64)
    named, foreign = ("pickpic-001", "front"), ("picflip-010", "front")
    likelier = _agreement({named: 0.5, foreign: 0.7})
    less = _agreement({named: 0.7, foreign: 0.5})
    check = outline_markers._likelier_than_foreign
    assert not check(likelier, outline, named, foreign, "pickpic")
    assert check(less, outline, named, foreign, "pickpic")
    assert not check(None, outline, named, foreign, "pickpic")  # no picture: not named
    # A rival of the game's own (a marker turned a quarter, another card's) is the game
    # picture test's to settle; a rival naming no card leaves nothing to compare.
    assert check(likelier, outline, named, ("pickpic-002", "front"), "pickpic")
    assert check(likelier, outline, named, None, "pickpic")


def test_two_outlines_on_one_card_name_it_once_on_its_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two outlines on pickpic-049 (wide looks, 44 px wide), their squares found a few
    # pixels apart: both named it, and its four soft markers placed it 14% of its height
    # off. The squares that score best place it alone.
    frame, truth = _scene(2, "wide", 40)
    seen: list[list] = []
    original = outline_markers.outline_sightings

    def spy(*args, **kwargs):
        seen.append(original(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(outline_markers, "outline_sightings", spy)
    named = named_by_codes(frame)
    assert seen and any(seen)
    for found in seen:
        cards = [(s.card, s.side) for s in found]
        assert all(cards.count(c) == 2 for c in cards)
    assert _placed_on_its_card(named, truth, "pickpic-049/front")


@pytest.mark.parametrize(
    ("seed", "looks", "index", "card"),
    [
        (2, "wide", 85, "pickpic-020/front"),  # 46 px wide
        (2, "wide", 27, "pickpic-001/back"),  # 39 px wide: a back, told by its code
    ],
)
def test_the_games_next_likest_marker_names_the_card_where_the_likest_fails_the_tests(
    seed: int, looks: str, index: int, card: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another marker of the game scores best at the outline, but the card's picture (or a
    # back's code) is not its face's; the card's own marker, a little behind, passes.
    _named_only_by_the_rule((seed, looks, index), card, "CANDIDATES", 1, monkeypatch)


def test_a_marker_behind_the_games_likest_needs_both_picture_tests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # At a card of 46 px (pickpic-079, development looks), the third likest marker of the
    # game is pickpic-066's: the cells agree with 066's face narrowly more than with any
    # other (0.73 against 0.70), the picture as a whole is far from it (0.40 against 0.66).
    frame, truth = _scene(2, "dev", 85)
    assert "pickpic-066" not in {t.card_id for t in truth.cards}
    assert "pickpic-066/front" not in named_by_codes(frame)
    likest = outline_markers._likest_picture
    monkeypatch.setattr(
        outline_markers, "_likest_picture", lambda p, o, n, both=False: likest(p, o, n)
    )
    assert "pickpic-066/front" in named_by_codes(frame)
