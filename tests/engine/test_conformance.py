"""The conformance suite, over all four games: seeded random legal play (``players.py``)
against the engine.

For every seed: random legal play never crashes and ends; after every event the engine's
scores, ``finished`` and ``winners`` match the player's own model of the rules; scores never
go negative; replaying the log equals the state built event by event; illegal events are
refused with a rule named and leave the state given to ``apply`` untouched; in every Pick
Pic ranking the points awarded are 2 x the cards before the random card plus the bonuses.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field

import pytest

import engine
from engine import EngineError, State
from engine.log import replay_lines
from engine.pickpic import score_ranking

from .helpers import check_error
from .players import PLAYERS, PicFlipPlayer, PickPicPlayer, RandomPlayer

SEEDS = range(30)
MAX_EVENTS = 3000
PROBE_RATE = 0.25


@dataclass
class Game:
    player: RandomPlayer
    log: list[dict[str, object]]
    states: list[State] = field(default_factory=list)
    probes: int = 0


def probe(player: RandomPlayer, state: State, game: Game) -> None:
    """An event the rules forbid raises an ``EngineError`` naming a rule, and the state
    passed to ``apply`` is exactly as it was."""
    obj = player.rng.choice(player.illegal())
    before = copy.deepcopy(state)
    summary = state.summary()
    with pytest.raises(EngineError) as info:
        engine.apply_raw(state, obj)
    check_error(info.value)
    assert state == before, obj
    assert state.summary() == summary, obj
    game.probes += 1


def play(name: str, seed: int) -> Game:
    rng = random.Random(f"{name}-{seed}")
    player = PLAYERS[name](rng)
    state = engine.start(player.start)
    game = Game(player, [player.start], [state])
    while (obj := player.next_event()) is not None:
        assert len(game.log) < MAX_EVENTS, "the game does not end"
        if len(game.log) == 1 or rng.random() < PROBE_RATE:
            probe(player, state, game)
        state = engine.apply_raw(state, obj)
        player.apply(obj)
        game.log.append(obj)
        game.states.append(state)
        summary = state.summary()
        assert summary["scores"] == player.scores(), (len(game.log), obj)
        assert all(isinstance(v, int) and v >= 0 for v in summary["scores"].values())
        assert summary["finished"] == player.finished, obj
        assert summary["winners"] == player.winners, obj
        if isinstance(player, PicFlipPlayer):
            assert summary["cards_left"] == player.cards_left()
            assert all(v >= 0 for v in summary["cards_left"].values())
    assert state.finished, "random legal play ends with a finished game"
    return game


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_random_legal_play(name: str, seed: int) -> None:
    """Random legal play never crashes, follows the model event by event, and ends."""
    game = play(name, seed)
    assert game.probes > 0
    final = game.states[-1]
    for obj in game.player.after_finish():
        before = copy.deepcopy(final)
        with pytest.raises(EngineError) as info:
            engine.apply_raw(final, obj)
        check_error(info.value, "log.finished")
        assert final == before


@pytest.mark.parametrize("seed", SEEDS[:12])
@pytest.mark.parametrize("name", sorted(PLAYERS))
def test_replay_equals_the_incremental_state(name: str, seed: int) -> None:
    """The log, replayed whole (as objects, as JSON text, with blank lines) or cut at any
    point, rebuilds exactly the state built event by event."""
    game = play(name, seed)
    final = game.states[-1]
    assert engine.replay(game.log) == final
    text = [json.dumps(obj, ensure_ascii=False) for obj in game.log]
    assert engine.replay(json.loads(line) for line in text) == final
    result = replay_lines(line + ("\n\n" if i % 3 == 0 else "\n") for i, line in enumerate(text))
    assert result.error is None
    assert result.state == final
    assert result.events == len(game.log)
    rng = random.Random(seed)
    for cut in sorted(rng.sample(range(1, len(game.log) + 1), min(6, len(game.log)))):
        assert engine.replay(game.log[:cut]) == game.states[cut - 1]
        assert engine.replay(game.log[:cut]).summary() == game.states[cut - 1].summary()


@pytest.mark.rule("pickpic.score")
@pytest.mark.parametrize("seed", SEEDS)
def test_pickpic_ranking_points_invariant(seed: int) -> None:
    """In every Pick Pic ranking the points awarded equal 2 x the cards ranked before the
    random card, plus 1 when the first card is not the random card, plus 1 when the random
    card is last; each round's points are the sum of its rankings.

    > Each card before it scores 1 point for its giver and 1 for P; the giver of the first
    > card (when it is not the random card) scores 1 more; if the random card is the very
    > last, P scores 1 more.
    """
    game = play("pickpic", seed)
    player = game.player
    assert isinstance(player, PickPicPlayer)
    assert player.rankings
    for ranking in player.rankings:
        k = ranking.order.index(ranking.random_card)
        expected = 2 * k + (k > 0) + (k == len(ranking.order) - 1)
        points = score_ranking(
            ranking.ranker, tuple(ranking.order), ranking.givers, ranking.random_card
        )
        assert sum(points.values()) == expected
        assert points == ranking.points
    # The engine's own totals of each round ("last_round_points" once the round is scored)
    # agree with the model's, and each is the sum of its rankings' points.
    ends = [
        after.summary()["last_round_points"]
        for before, after in zip(game.states, game.states[1:], strict=False)
        if after.summary()["round"] != before.summary()["round"]
        or (after.finished and not before.finished)
    ]
    assert ends == player.round_points
    n = len(player.players)
    per_round = [player.rankings[i : i + n] for i in range(0, len(player.rankings), n)]
    for rankings, points in zip(per_round, player.round_points, strict=True):
        assert sum(points.values()) == sum(sum(r.points.values()) for r in rankings)
