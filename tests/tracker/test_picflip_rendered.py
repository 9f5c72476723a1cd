"""The follower on a rendered Pic Flip game (frames in, events out, rejects entered)."""

from __future__ import annotations

from pictable.bench.readers.picflip import run_game


def test_a_rendered_game_ends_with_the_true_outcome() -> None:
    r = run_game(2, 4)
    assert r.right, r.wrong
    assert r.refused == []
    assert r.true_winners == r.got_winners and len(r.true_winners) == 1
