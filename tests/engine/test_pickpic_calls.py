"""The order in which players are called to give."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from engine.pickpic import cards_per_opponent, give_calls


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_player_gives_every_opponent_the_rulebook_count(n: int) -> None:
    players = list("ABCDE"[:n])
    calls = give_calls(players)
    per = 2 if n == 3 else 1
    assert Counter(calls) == {(g, q): per for g in players for q in players if g != q}
    for (g1, q1), (g2, q2) in itertools.pairwise(calls):
        assert g1 != g2 and q1 != q2


@pytest.mark.parametrize("n", [2, 6])
def test_player_counts_outside_the_game_are_refused(n: int) -> None:
    with pytest.raises(ValueError, match="3 to 5 players"):
        cards_per_opponent(n)
