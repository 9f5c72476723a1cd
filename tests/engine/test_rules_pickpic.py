"""Pick Pic (rulebook pick-pic.en.txt, its French FAQ, CONTRACTS.md section 1 Pick Pic)."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalEvent, InvalidEvent
from engine.pickpic import score_ranking

from .helpers import (
    expect_error,
    expect_start_error,
    pp_card,
    pp_gives,
    pp_random,
    pp_randoms,
    pp_rank,
    pp_reveals,
    pp_round,
    pp_stack,
    pp_start,
    pp_until_rank,
    run,
)

P4 = ["A", "B", "C", "D"]
P3 = ["A", "B", "C"]
P5 = ["A", "B", "C", "D", "E"]


def ranked(players: list[str], orders: dict[str, list[str]], **options: object) -> dict[str, int]:
    """Scores after one round where each player ranks ``orders[p]`` (else random last)."""
    return run([pp_start(players, **options), *pp_round(players, orders)]).summary()["scores"]


# --- players and options -------------------------------------------------------------------


@pytest.mark.rule("pickpic.players")
@pytest.mark.parametrize("n", [0, 1, 2, 6, 7])
def test_pickpic_needs_three_to_five_players(n: int) -> None:
    """Fewer than 3 or more than 5 players is not a Pick Pic table.

    > Pick Pic (pickpic), 3 to 5 players
    """
    expect_start_error(pp_start([f"P{i}" for i in range(n)]), "pickpic.players")


@pytest.mark.rule("pickpic.players")
@pytest.mark.parametrize("n", [3, 4, 5])
def test_pickpic_takes_three_four_and_five(n: int) -> None:
    """3, 4 and 5 players each play a whole round.

    > Pick Pic (pickpic), 3 to 5 players
    """
    players = P5[:n]
    state = run([pp_start(players), *pp_round(players)])
    assert state.summary()["round"] == 2


@pytest.mark.rule("pickpic.target")
def test_default_target_is_twenty() -> None:
    """Without "target" the game is played to 20 points.

    > The first player to reach 20 points will win.
    > option "target" (default 20)
    """
    state = engine.start(pp_start())
    assert state.summary()["target"] == 20
    # Four rounds with every card ranked above the random card: 3 + 1 (last-place bonus)
    # for ranking, 3 as a giver, 1 first-card bonus = 8 a round each.
    log = [pp_start()]
    for rnd in (1, 2):
        log += pp_round(P4, rnd=rnd)
    assert run(log).summary()["scores"] == dict.fromkeys(P4, 16)
    assert not run(log).finished
    log += pp_round(P4, rnd=3)
    assert run(log).finished


@pytest.mark.rule("pickpic.target")
@pytest.mark.parametrize("target", [0, -3, "5", True, 2.5, None, [5]])
def test_target_is_a_positive_whole_number(target: object) -> None:
    """ "target" is a whole number of points, at least 1 (not a boolean, not a string).

    > option "target" (default 20)
    """
    expect_start_error(pp_start(target=target), "pickpic.target", InvalidEvent)


@pytest.mark.rule("pickpic.target")
def test_target_option_ends_the_game_sooner() -> None:
    """With "target": 8 the first round (8 points each) already ends the game.

    > At the end of a round, if anyone has reached target, the game is finished
    """
    state = run([pp_start(target=8), *pp_round(P4)])
    assert state.finished
    state = run([pp_start(target=9), *pp_round(P4)])
    assert not state.finished


# --- the order of a round -------------------------------------------------------------------


@pytest.mark.rule("pickpic.reveal")
def test_one_reference_per_player_per_round() -> None:
    """A player reveals one reference a round; a second reveal is refused.

    > Draw one card and place it face-up in front of each player.
    > {"type": "reveal", "player": P, "card": C}: P's reference photo for this round.
    """
    state = run([pp_start(), {"type": "reveal", "player": "A", "card": "R1"}])
    expect_error(state, {"type": "reveal", "player": "A", "card": "R2"}, "pickpic.reveal")


@pytest.mark.rule("pickpic.reveal")
def test_every_round_starts_with_new_references() -> None:
    """After a round, the next one begins with every player's reveal again.

    > Then continue to the next card. ... After each player's cards have been evaluated,
    > discard all the cards used during this round.
    """
    state = run([pp_start(), *pp_round(P4)])
    expect_error(state, pp_gives(P4, rnd=2)[0], "pickpic.round_order")
    state = run([pp_start(), *pp_round(P4), *pp_reveals(P4, rnd=2)])
    assert state.summary()["phase"] == "give"


@pytest.mark.rule("pickpic.round_order")
def test_gives_wait_for_every_reference() -> None:
    """No card is given before every player's reference is revealed.

    > A round is: every player's reveal, then the gives, then one random per player,
    > then one rank per player.
    """
    state = run([pp_start(), *pp_reveals(P4)[:3]])
    expect_error(state, pp_gives(P4)[0], "pickpic.round_order")


@pytest.mark.rule("pickpic.round_order")
def test_no_reveal_once_every_reference_is_out() -> None:
    """A fifth reveal with four players, during the gives, is out of order.

    > A round is: every player's reveal, then the gives
    """
    state = run([pp_start(), *pp_reveals(P4)])
    expect_error(state, {"type": "reveal", "player": "A", "card": "again"}, "pickpic.round_order")
    state = run([pp_start(), *pp_reveals(P4), *pp_gives(P4)[:5]])
    expect_error(state, {"type": "reveal", "player": "B", "card": "again"}, "pickpic.round_order")


@pytest.mark.rule("pickpic.round_order")
def test_random_and_rank_wait_for_the_reveals() -> None:
    """Neither a random card nor a ranking comes before the references.

    > A round is: every player's reveal, then the gives, then one random per player
    """
    state = run([pp_start(), *pp_reveals(P4)[:2]])
    expect_error(state, {"type": "random", "to": "A", "card": "r"}, "pickpic.random.when")
    expect_error(state, pp_rank("A", ["r"]), "pickpic.rank.when")


@pytest.mark.rule("pickpic.give.self")
def test_nobody_gives_to_themselves() -> None:
    """A card given by P to P is refused.

    > {"type": "give", "from": P, "to": Q, "card": C}: P != Q.
    """
    state = run([pp_start(), *pp_reveals(P4)])
    expect_error(state, {"type": "give", "from": "B", "to": "B", "card": "x"}, "pickpic.give.self")


@pytest.mark.rule("pickpic.give.count")
def test_four_players_give_exactly_one_card_to_each_opponent() -> None:
    """With 4 players, a second card from A to B is refused; A still gives to C and D.

    > Then the players give each other player exactly one card from their hand.
    """
    state = run(
        [pp_start(), *pp_reveals(P4), {"type": "give", "from": "A", "to": "B", "card": "x1"}]
    )
    expect_error(
        state, {"type": "give", "from": "A", "to": "B", "card": "x2"}, "pickpic.give.count"
    )
    engine.apply_raw(state, {"type": "give", "from": "A", "to": "C", "card": "x2"})


@pytest.mark.rule("pickpic.give.count")
def test_five_players_give_exactly_one_card_to_each_opponent() -> None:
    """With 5 players, 20 gives complete the round's giving; a 21st is refused.

    > each player gives exactly one card to every other player
    """
    state = run([pp_start(P5), *pp_reveals(P5), *pp_gives(P5)])
    assert state.summary()["phase"] == "random"
    expect_error(state, {"type": "give", "from": "E", "to": "A", "card": "x"}, "pickpic.give.count")


@pytest.mark.rule("pickpic.give.count")
def test_three_players_give_two_cards_to_each_opponent() -> None:
    """With 3 players each gives two cards to each opponent: a third card is refused, and
    the random card waits for the second.

    > In a 3-player game, each player draws 4 cards to their hand and gives 2 cards to each
    > of the other players.
    > Chaque joueur pioche une main de quatre cartes et donne deux photos à chacun de ses deux
    > adversaires.
    """
    gives = pp_gives(P3)
    assert len(gives) == 12
    state = run([pp_start(P3), *pp_reveals(P3), *gives])
    assert state.summary()["phase"] == "random"
    expect_error(state, {"type": "give", "from": "A", "to": "B", "card": "x"}, "pickpic.give.count")
    one_each = [g for g in gives if not g["card"].endswith(".2")]
    state = run([pp_start(P3), *pp_reveals(P3), *one_each])
    assert state.summary()["phase"] == "give"
    expect_error(state, {"type": "random", "to": "A", "card": "r"}, "pickpic.random.when")


@pytest.mark.rule("pickpic.give.count")
def test_three_player_stack_is_five_cards() -> None:
    """A 3-player stack holds two cards from each opponent plus the random card.

    > Il ne faut pas appliquer la distribution normale d’une seule photo par adversaire
    > utilisée à quatre ou cinq.
    """
    state = run([pp_start(P3), *pp_until_rank(P3)])
    short = ["1:B>A", "1:C>A", "1:?A"]
    expect_error(state, pp_rank("A", short), "pickpic.rank.stack")
    engine.apply_raw(state, pp_rank("A", pp_stack(P3, "A")))


@pytest.mark.rule("pickpic.card_once")
@pytest.mark.parametrize(
    ("prefix", "obj"),
    [
        (pp_reveals(P4)[:1], {"type": "reveal", "player": "B", "card": "R1-A"}),
        (pp_reveals(P4), {"type": "give", "from": "A", "to": "B", "card": "R1-C"}),
        (
            [*pp_reveals(P4), *pp_gives(P4)[:1]],
            {"type": "give", "from": "C", "to": "D", "card": "1:A>B"},
        ),
        ([*pp_reveals(P4), *pp_gives(P4)], {"type": "random", "to": "A", "card": "1:B>A"}),
        ([*pp_reveals(P4), *pp_gives(P4)], {"type": "random", "to": "A", "card": "R1-D"}),
        (
            [*pp_reveals(P4), *pp_gives(P4), *pp_randoms(P4)[:1]],
            {"type": "random", "to": "B", "card": "1:?A"},
        ),
    ],
)
def test_a_card_appears_once_a_round(prefix: list[dict[str, object]], obj: object) -> None:
    """The same card id twice in one round (reference, given or random) is refused.

    > A card id may appear only once in a round.
    """
    expect_error(run([pp_start(), *prefix]), obj, "pickpic.card_once")


@pytest.mark.rule("pickpic.card_once")
def test_card_ids_may_return_in_a_later_round() -> None:
    """The cards are discarded at the end of a round; the same ids may come back later.

    > A card id may appear only once in a round.
    """
    state = run([pp_start(), *pp_round(P4), *pp_round(P4)])
    assert state.summary()["round"] == 3


@pytest.mark.rule("pickpic.random.when")
def test_random_waits_for_all_cards_given_to_that_player() -> None:
    """B's random card comes after the three cards given to B, not before.

    > {"type": "random", "to": P, "card": C}: the random card shuffled into P's stack,
    > allowed only once P has received all the cards given to them.
    """
    gives = [g for g in pp_gives(P4) if not (g["to"] == "B" and g["from"] == "D")]
    state = run([pp_start(), *pp_reveals(P4), *gives])
    expect_error(state, {"type": "random", "to": "B", "card": "rB"}, "pickpic.random.when")
    state = engine.apply_raw(state, {"type": "random", "to": "A", "card": "rA"})
    state = engine.apply_raw(state, {"type": "give", "from": "D", "to": "B", "card": "1:D>B"})
    engine.apply_raw(state, {"type": "random", "to": "B", "card": "rB"})


@pytest.mark.rule("pickpic.random.when")
def test_random_for_a_complete_stack_while_others_still_give() -> None:
    """A's random card may come as soon as A has all three cards, before others have theirs.

    > allowed only once P has received all the cards given to them.
    """
    to_a = [g for g in pp_gives(P4) if g["to"] == "A"]
    state = run([pp_start(), *pp_reveals(P4), *to_a, {"type": "random", "to": "A", "card": "rA"}])
    assert state.summary()["phase"] == "give"


@pytest.mark.rule("pickpic.random.once")
def test_one_random_card_per_player() -> None:
    """A second random card for the same player is refused.

    > then one random per player
    """
    state = run(
        [pp_start(), *pp_reveals(P4), *pp_gives(P4), {"type": "random", "to": "C", "card": "r1"}]
    )
    expect_error(state, {"type": "random", "to": "C", "card": "r2"}, "pickpic.random.once")


@pytest.mark.rule("pickpic.rank.when")
def test_a_stack_is_ranked_once_its_random_card_is_in() -> None:
    """A ranking before the player's random card is refused.

    > When all players have received exactly one card from each of the other players, draw
    > one random card from the deck and shuffle it into your stack of cards without
    > revealing it. Now look at the cards in your stack and rank them.
    """
    state = run([pp_start(), *pp_reveals(P4), *pp_gives(P4)])
    expect_error(state, pp_rank("A", pp_stack(P4, "A")[:-1]), "pickpic.rank.when")
    state = engine.apply_raw(state, pp_randoms(P4)[0])
    engine.apply_raw(state, pp_rank("A", pp_stack(P4, "A")))


@pytest.mark.rule("pickpic.rank.once")
def test_one_ranking_per_player() -> None:
    """A player ranks once a round; a second ranking (even a different order) is refused.

    > then one rank per player.
    """
    state = run([pp_start(), *pp_until_rank(P4), pp_rank("A", pp_stack(P4, "A"))])
    expect_error(state, pp_rank("A", pp_stack(P4, "A")[::-1]), "pickpic.rank.once")


@pytest.mark.rule("pickpic.rank.stack")
@pytest.mark.parametrize(
    "order",
    [
        ["1:B>A", "1:C>A", "1:D>A"],  # the random card left out
        ["1:B>A", "1:C>A", "1:?A"],  # a given card left out
        ["1:B>A", "1:C>A", "1:D>A", "1:?A", "R1-A"],  # the reference is not in the stack
        ["1:B>A", "1:C>A", "1:D>A", "1:?A", "1:A>B"],  # another player's card
        ["1:B>A", "1:C>A", "1:D>A", "1:?A", "1:B>A"],  # a card twice
        ["1:B>A", "1:C>A", "1:?A", "1:?A"],  # a card twice instead of another
        [],
    ],
)
def test_a_ranking_is_the_whole_stack(order: list[str]) -> None:
    """The order lists exactly the player's stack: the given cards and the random card.

    > {"type": "rank", "player": P, "order": [C, ...]}: P's whole stack, closest to the
    > reference first.
    """
    state = run([pp_start(), *pp_until_rank(P4)])
    expect_error(state, pp_rank("A", order), "pickpic.rank.stack")


# --- scoring --------------------------------------------------------------------------------


@pytest.mark.rule("pickpic.score")
def test_scoring_stops_at_the_random_card() -> None:
    """A ranks B's card, then the random card, then C's and D's: only B's card scores
    (B 1 + first-card bonus 1, A 1); C and D get nothing from A's ranking.

    > However, when you reach the card that was given at random, stop (you will know,
    > because nobody claims it). No more points are given
    > Dès que la carte ajoutée au hasard apparaît, on arrête : les cartes situées après elle
    > ne rapportent rien dans ce classement.
    """
    order = ["1:B>A", "1:?A", "1:C>A", "1:D>A"]
    assert score_ranking("A", tuple(order), {"1:B>A": "B", "1:C>A": "C", "1:D>A": "D"}, "1:?A") == {
        "B": 2,
        "A": 1,
    }
    # Only A's ranking scores: the others put the random card first.
    others = {p: [pp_random(p), *pp_stack(P4, p)[:-1]] for p in "BCD"}
    assert ranked(P4, {"A": order, **others}) == {"A": 1, "B": 2, "C": 0, "D": 0}


@pytest.mark.rule("pickpic.score")
def test_the_random_card_first_scores_nothing() -> None:
    """With the random card ranked first nobody scores from that ranking, and there is no
    bonus for anyone.

    > However, when you reach the card that was given at random, stop
    """
    orders = {p: [pp_random(p), *pp_stack(P4, p)[:-1]] for p in P4}
    assert ranked(P4, orders) == dict.fromkeys(P4, 0)


@pytest.mark.rule("pickpic.score")
def test_the_first_card_bonus_goes_to_the_giver_only() -> None:
    """The giver of the highest-ranked card scores 2, the ranker 1 for it.

    > The player who played the highest ranked card (if it wasn't the random card)
    > receives 2 points instead of 1.
    > Le point supplémentaire de première position revient seulement à celui qui l’a
    > attribuée : il gagne donc deux points pour cette carte.
    """
    order = ["1:C>A", "1:?A", "1:B>A", "1:D>A"]
    others = {p: [pp_random(p), *pp_stack(P4, p)[:-1]] for p in "BCD"}
    assert ranked(P4, {"A": order, **others}) == {"A": 1, "B": 0, "C": 2, "D": 0}


@pytest.mark.rule("pickpic.score")
def test_the_random_card_last_gives_the_ranker_a_bonus() -> None:
    """A ranks every given card above the random card, which is last: A scores 3 + 1,
    B 2 (first card), C and D 1 each.

    > A player who manages to place the random card at the very last position gets 1
    > bonus point.
    > Le joueur qui a réalisé ce classement reçoit un point supplémentaire.
    """
    others = {p: [pp_random(p), *pp_stack(P4, p)[:-1]] for p in "BCD"}
    assert ranked(P4, {"A": pp_stack(P4, "A"), **others}) == {"A": 4, "B": 2, "C": 1, "D": 1}


@pytest.mark.rule("pickpic.score")
def test_the_random_card_second_to_last_gives_no_bonus() -> None:
    """Random card third of four: two cards score, no last-place bonus.

    > A player who manages to place the random card at the very last position gets 1
    > bonus point.
    """
    order = ["1:D>A", "1:C>A", "1:?A", "1:B>A"]
    others = {p: [pp_random(p), *pp_stack(P4, p)[:-1]] for p in "BCD"}
    assert ranked(P4, {"A": order, **others}) == {"A": 2, "B": 0, "C": 1, "D": 2}


@pytest.mark.rule("pickpic.score")
def test_three_player_ranking_scores_both_cards_of_a_giver() -> None:
    """With 3 players, B's two cards above the random card score B 1 each (2 for the first).

    > Each card before it scores 1 point for its giver and 1 for P; the giver of the first
    > card (when it is not the random card) scores 1 more; if the random card is the very
    > last, P scores 1 more.
    """
    order = ["1:B>A.2", "1:B>A", "1:C>A", "1:?A", "1:C>A.2"]
    others = {p: [pp_random(p), *pp_stack(P3, p)[:-1]] for p in "BC"}
    assert ranked(P3, {"A": order, **others}) == {"A": 3, "B": 3, "C": 1}


@pytest.mark.rule("pickpic.score")
def test_a_round_is_scored_only_when_its_last_rank_arrives() -> None:
    """Scores stay as they were until every player has ranked; then all rankings count.

    > When the last rank of a round arrives the round is scored.
    > All players do this simultaneously, and when everybody is ready, you move on to the
    > evaluation.
    """
    state = run([pp_start(), *pp_until_rank(P4)])
    for p in ["A", "B", "C"]:
        state = engine.apply_raw(state, pp_rank(p, pp_stack(P4, p)))
        assert state.summary()["scores"] == dict.fromkeys(P4, 0)
        assert state.summary()["round"] == 1
    state = engine.apply_raw(state, pp_rank("D", pp_stack(P4, "D")))
    assert state.summary()["scores"] == dict.fromkeys(P4, 8)
    assert state.summary()["round"] == 2
    assert state.summary()["last_round_points"] == dict.fromkeys(P4, 8)


@pytest.mark.rule("pickpic.score")
def test_ranks_may_arrive_in_any_player_order() -> None:
    """Rankings are simultaneous: the order the rank events arrive in changes nothing.

    > All players do this simultaneously
    """
    orders = {
        "A": ["1:C>A", "1:?A", "1:B>A", "1:D>A"],
        "B": ["1:A>B", "1:C>B", "1:D>B", "1:?B"],
        "C": ["1:?C", "1:A>C", "1:B>C", "1:D>C"],
        "D": ["1:B>D", "1:A>D", "1:?D", "1:C>D"],
    }
    forward = [pp_start(), *pp_until_rank(P4), *(pp_rank(p, orders[p]) for p in P4)]
    backward = [pp_start(), *pp_until_rank(P4), *(pp_rank(p, orders[p]) for p in reversed(P4))]
    # A: C 2, A 1. B: A 2, C 1, D 1, B 3 + 1. C: nothing. D: B 2, A 1, D 2.
    expected = {"A": 1 + 2 + 1, "B": 4 + 2, "C": 2 + 1, "D": 1 + 2}
    assert run(forward).summary()["scores"] == expected
    assert run(backward).summary()["scores"] == expected


@pytest.mark.rule("pickpic.score")
@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_points_of_a_ranking_are_twice_the_cards_before_random_plus_bonuses(k: int) -> None:
    """The random card at position k: 2k points, +1 when k > 0, +1 when it is last.

    > Both players receive one point. Then continue to the next card.
    """
    given = ["1:B>A", "1:C>A", "1:D>A"]
    order = (*given[:k], "1:?A", *given[k:])
    points = score_ranking("A", order, {c: c[2] for c in given}, "1:?A")
    assert sum(points.values()) == 2 * k + (k > 0) + (k == 3)
    assert points.get("A", 0) == k + (k == 3)


# --- the end of the game --------------------------------------------------------------------


@pytest.mark.rule("pickpic.end")
def test_the_game_ends_only_at_the_end_of_a_round() -> None:
    """With target 3, A's ranking alone would take the lead past 3, but the game goes on
    until every ranking of the round is in.

    > At the end of the round, if one or more players have reached 20 points, the game ends
    > On termine le décompte de la manche pour tous les joueurs.
    """
    state = run([pp_start(target=3), *pp_until_rank(P4)])
    for p in ["A", "B", "C"]:
        state = engine.apply_raw(state, pp_rank(p, pp_stack(P4, p)))
        assert not state.finished
        assert state.summary()["winners"] == []
    state = engine.apply_raw(state, pp_rank("D", pp_stack(P4, "D")))
    assert state.finished


@pytest.mark.rule("pickpic.end")
def test_the_highest_total_wins_not_the_first_to_reach_target() -> None:
    """Several players pass the target in the same round: the highest total wins.

    > the game ends and the player with the highest points is the winner.
    > Le plus grand total gagne
    """
    orders = {
        "A": pp_stack(P4, "A"),  # A 4, B 2, C 1, D 1
        "B": ["1:?B", "1:A>B", "1:C>B", "1:D>B"],
        "C": ["1:A>C", "1:?C", "1:B>C", "1:D>C"],  # A 2, C 1
        "D": ["1:?D", "1:A>D", "1:B>D", "1:C>D"],
    }
    state = run([pp_start(target=2), *pp_round(P4, orders)])
    assert state.summary()["scores"] == {"A": 6, "B": 2, "C": 2, "D": 1}
    assert state.finished
    assert state.summary()["winners"] == ["A"]


@pytest.mark.rule("pickpic.end")
def test_a_tie_shares_the_victory() -> None:
    """Two or more highest totals share the victory (here all four, 8 each).

    > In case of a tie, share the victory.
    > en cas d’égalité, la victoire est partagée.
    """
    state = run([pp_start(target=8), *pp_round(P4)])
    assert state.finished
    assert state.summary()["winners"] == P4


@pytest.mark.rule("pickpic.end")
def test_below_target_the_next_round_begins() -> None:
    """Nobody at target after a round: not finished, no winners, the next round begins.

    > A game of PickPic is made up of several rounds.
    """
    state = run([pp_start(target=9), *pp_round(P4)])
    assert not state.finished
    assert state.summary()["winners"] == []
    engine.apply_raw(state, pp_reveals(P4, rnd=2)[0])


@pytest.mark.rule("pickpic.end", "log.finished")
def test_no_new_round_after_the_end() -> None:
    """After the winning round, a new reference is refused.

    > At the end of the round, if one or more players have reached 20 points, the game ends
    """
    state = run([pp_start(target=8), *pp_round(P4)])
    expect_error(state, pp_reveals(P4, rnd=2)[0], "log.finished", IllegalEvent)


def test_card_names_used_by_the_helpers() -> None:
    """The helpers' ids are what the tests above spell out by hand."""
    assert pp_card("B", "A") == "1:B>A"
    assert pp_card("B", "A", 2) == "1:B>A.2"
    assert pp_stack(P4, "A") == ["1:B>A", "1:C>A", "1:D>A", "1:?A"]
