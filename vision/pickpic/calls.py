"""The order in which the assistant calls Pick Pic players to give their cards.

Shared by the follower (which calls the players in this order and expects the cards in it)
and the synthetic camera (whose players follow the calls). Pure Python, no images.
"""

from __future__ import annotations


def cards_per_opponent(n_players: int) -> int:
    """Cards each player gives each opponent in a round: two with 3 players, else one."""
    if not 3 <= n_players <= 5:
        raise ValueError(f"Pick Pic is for 3 to 5 players, got {n_players}")
    return 2 if n_players == 3 else 1


def give_calls(players: list[str]) -> list[tuple[str, str]]:
    """The (giver, receiver) calls of one round, in order: everybody gives to the next
    player on their left, then to the one after, ...; with 3 players the whole turn twice,
    the second time starting with the second player.

    Consecutive calls have different givers and different receivers, so a card laid by the
    wrong player (or at the wrong place) shows at once.
    """
    n = len(players)
    per = cards_per_opponent(n)
    calls: list[tuple[str, str]] = []
    for rep in range(per):
        order = players[rep:] + players[:rep]
        calls += [(order[i], order[(i + k) % n]) for k in range(1, n) for i in range(n)]
    return calls
