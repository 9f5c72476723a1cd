"""The Picmix solver: every objective card can be shown with one set, impossible ones cannot."""

from __future__ import annotations

import itertools

import pytest

from vision.kit import picmix
from vision.kit.picmix import OBJECTIVES, SET_COLOURS, Solution, solve_objective


def _check(solution: Solution, items: tuple[str, ...]) -> None:
    """A solution obeys the layout model of vision.kit.picmix, independently of the solver."""
    cards = [p.card for p in solution.placements]
    assert len(cards) == len(set(cards)), "a card is used twice"
    shown: list[str] = []
    for p in solution.placements:
        front, back = picmix.player_card_faces(p.card)
        face = front if p.face == "front" else back
        assert 1 <= len(p.shown) <= 2 and len(set(p.shown)) == len(p.shown)
        assert p.items == tuple(face.item(h) for h in p.shown)
        shown += p.items
    assert any(len(p.shown) == 2 for p in solution.placements), "nothing on top"
    assert len(solution.placements[-1].shown) == 2, "the last card laid shows both halves"
    assert set(shown) == set(items) == solution.visible


@pytest.mark.parametrize("colour", SET_COLOURS)
def test_every_objective_is_solvable_with_every_set(colour: str) -> None:
    assert len(OBJECTIVES) == 25
    for items in OBJECTIVES:
        solution = solve_objective(items, colour)
        assert solution is not None, items
        _check(solution, items)
        assert all(p.card.startswith(f"picmix-{colour}-") for p in solution.placements)


def test_objectives_are_varied() -> None:
    sizes = [len(o) for o in OBJECTIVES]
    assert 10 <= sizes.count(3) <= 15 and sizes.count(3) + sizes.count(4) == 25
    assert len({frozenset(o) for o in OBJECTIVES}) == 25
    used = [solve_objective(o, "red").cards_used for o in OBJECTIVES]  # type: ignore[union-attr]
    assert {2, 3} <= set(used)
    counts = [sum(i in o for o in OBJECTIVES) for i in picmix.ITEMS]
    assert min(counts) >= 4 and max(counts) <= 7
    assert picmix.generate_objectives() == OBJECTIVES


@pytest.mark.parametrize(
    "items",
    [
        ("sun", "key", "star"),  # sun and key are on the two faces of the same card
        ("sun",),  # one item: the top card always shows two
        ("sun", "star", "heart", "house", "drop"),  # the set can show it, but a card shows 1 face
        ("star", "house", "cloud"),  # three halves of three cards, none can be on top
        ("sun", "fish", "dragon"),  # an item the set does not have
        (),
    ],
)
def test_impossible_objectives_are_rejected(items: tuple[str, ...]) -> None:
    assert solve_objective(items, "blue") is None


def test_solver_agrees_with_the_closed_form_on_all_3_and_4_item_objectives() -> None:
    """Solvable iff no two wanted items sit on different faces of one card, and some face
    holds two wanted items (that card goes on top)."""
    where = {}
    for n, (front, back) in enumerate(picmix.PLAYER_LAYOUT):
        for face_name, face in (("front", front), ("back", back)):
            for item in face.items:
                where[item] = (n, face_name)
    for size in (3, 4):
        for combo in itertools.combinations(picmix.ITEMS, size):
            faces = {where[i] for i in combo}
            cards = [n for n, _ in faces]
            expected = len(cards) == len(set(cards)) and len(faces) < size
            solution = solve_objective(combo, "green")
            assert (solution is not None) == expected, combo
            if solution is not None:
                _check(solution, combo)
                assert solution.cards_used == len(faces)


def test_solution_describes_the_layout() -> None:
    solution = solve_objective(("apple", "cloud", "moon"), "red")
    assert solution is not None
    text = solution.describe()
    assert "picmix-red-1 back up showing moon" in text and "on top" in text


def test_player_set_given_as_card_ids_and_bad_sets() -> None:
    ids = picmix.player_set_ids("teal")
    assert solve_objective(OBJECTIVES[0], ids) is not None
    assert solve_objective(OBJECTIVES[0], ids[:1]) is None  # needs cards 3 and 4
    with pytest.raises(ValueError, match="unknown Picmix set colour"):
        solve_objective(OBJECTIVES[0], "pink")
    with pytest.raises(ValueError, match="not a Picmix player card"):
        solve_objective(OBJECTIVES[0], ["picmix-obj-01"])
