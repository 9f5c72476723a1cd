"""The follower on a rendered session (the live pipeline's path: frames in, events out)."""

from __future__ import annotations

import engine
from pictable.bench.follow import judge
from pictable.bench.readers.pickpic import run_session


def test_a_rendered_three_player_session_scores_true() -> None:
    r = run_session(11, 3, rounds=1)
    assert r.right, r.wrong
    assert r.refused == []
    assert r.true_scores == r.got_scores and sum(r.true_scores.values()) > 0


def test_judge_skips_refused_events_like_the_live_session() -> None:
    start = {"type": "start", "game": "pickpic", "players": ["A", "B", "C"]}
    events = [
        start,
        {"type": "give", "from": "A", "to": "B", "card": "x"},  # before the reveals
        {"type": "reveal", "player": "A", "card": "r1"},
    ]
    state, refused = judge(events)
    assert len(refused) == 1 and refused[0].startswith("give")
    assert state.summary()["phase"] == "reveal"
    assert engine.replay([start, events[2]]).summary() == state.summary()


def test_gives_out_of_turn_are_named_by_their_side() -> None:
    r = run_session(12, 4, rounds=1, out_of_turn=0.35)
    assert r.right, r.wrong


def test_a_random_card_nearer_a_neighbours_photo_joins_its_own_stack() -> None:
    # held-out session 7002, first round: C's stack fans towards B's photo, and its random
    # card settles nearer B's photo than C's (it was taken for B's, and no round closed)
    r = run_session(7002, 5, rounds=1)
    assert r.right, r.wrong
    assert r.events_matched == r.events_true
