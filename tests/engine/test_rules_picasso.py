"""Picasso (rulebook picasso.en.txt, CONTRACTS.md section 1 Picasso)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import IllegalEvent, InvalidEvent

from .helpers import build, expect_error, expect_start_error, picasso_start, run

AB = ["Ann", "Ben"]


def draw(player: str, card: str = "card") -> dict[str, Any]:
    return {"type": "draw", "player": player, "card": card}


def guess(player: str) -> dict[str, Any]:
    return {"type": "guess", "player": player}


GIVE_UP = {"type": "give_up"}


def one_turn(*events: dict[str, Any], **options: Any) -> dict[str, Any]:
    """The summary after Ann's first turn of a 2-player game."""
    return run([picasso_start(AB, **options), draw("Ann", "cat"), *events]).summary()


# --- players and options -------------------------------------------------------------------


@pytest.mark.rule("picasso.players")
@pytest.mark.parametrize("n", [0, 1])
def test_picasso_needs_two_players(n: int) -> None:
    """One builder needs at least one guesser.

    > Picasso (picasso), 2+ players
    """
    expect_start_error(picasso_start(AB[:n]), "picasso.players")


@pytest.mark.rule("picasso.players")
@pytest.mark.parametrize("n", [2, 7, 12])
def test_picasso_has_no_upper_limit(n: int) -> None:
    """Any number of players from 2 up.

    > Picasso (picasso), 2+ players
    """
    state = engine.start(picasso_start([f"P{i}" for i in range(n)]))
    assert state.summary()["turns"] == 3 * n


@pytest.mark.rule("picasso.options")
def test_cards_per_player_defaults_to_three() -> None:
    """Three cards per player by default: 2 players take 6 turns.

    > If this is your first game, start with 3 cards per player.
    > options "cards_per_player" (default 3), "kit"
    """
    log = [picasso_start(AB)]
    for turn in range(6):
        log += [draw(AB[turn % 2], f"c{turn}"), GIVE_UP]
    assert not run(log[:-1]).finished
    assert run(log).finished


@pytest.mark.rule("picasso.options")
@pytest.mark.parametrize("cpp", [0, -1, True, "2", 1.5, None])
def test_cards_per_player_is_a_positive_whole_number(cpp: object) -> None:
    """ "cards_per_player" is a whole number, at least 1.

    > Decide how many rounds you want to play and multiply that number by the number of
    > players – this is how many cards you select.
    """
    expect_start_error(picasso_start(AB, cards_per_player=cpp), "picasso.options", InvalidEvent)


# --- turns ----------------------------------------------------------------------------------


@pytest.mark.rule("picasso.turn")
def test_turns_go_round_the_seating_from_the_first_player() -> None:
    """Builders follow the start line's order, from its first player, round and round.

    > The oldest player starts, and play continues clockwise.
    > Turns go round the seating order, starting with the first player
    """
    players = ["Cy", "Ann", "Ben"]
    state = engine.start(picasso_start(players, cards_per_player=2))
    order = []
    for turn in range(6):
        builder = state.summary()["builder"]
        order.append(builder)
        for other in players:
            if other != builder:
                expect_error(state, draw(other, "x"), "picasso.turn")
        state = engine.apply_raw(state, draw(builder, f"c{turn}"))
        state = engine.apply_raw(state, GIVE_UP)
    assert order == ["Cy", "Ann", "Ben", "Cy", "Ann", "Ben"]
    assert state.finished


@pytest.mark.rule("picasso.turn")
def test_no_second_draw_during_a_turn() -> None:
    """While a card is being built, nobody draws another (the builder included).

    > {"type": "draw", "player": P, "card": C}: P must be the builder whose turn it is.
    """
    state = run([picasso_start(AB), draw("Ann", "cat")])
    expect_error(state, draw("Ann", "dog"), "picasso.turn")
    expect_error(state, draw("Ben", "dog"), "picasso.turn")


@pytest.mark.rule("picasso.turn")
def test_give_up_ends_the_turn_and_nobody_scores() -> None:
    """give_up discards the card: no points, no card, the next builder's turn.

    > {"type": "give_up"}: the turn ends, the card is discarded, nobody scores.
    """
    summary = one_turn(build(shape=2), GIVE_UP)
    assert summary["scores"] == {"Ann": 0, "Ben": 0}
    assert summary["cards_held"] == {"Ann": 0, "Ben": 0}
    assert summary["builder"] == "Ben"
    assert summary["card"] is None


@pytest.mark.rule("picasso.no_turn")
@pytest.mark.parametrize("obj", [build(shape=1), guess("Ben"), GIVE_UP])
def test_build_guess_and_give_up_need_a_drawn_card(obj: dict[str, Any]) -> None:
    """Before the first draw, and between turns, there is nothing to build or guess.

    > The player whose turn it is chooses a card, looks at it, and does not show it to the
    > other players.
    """
    expect_error(run([picasso_start(AB)]), obj, "picasso.no_turn")
    expect_error(run([picasso_start(AB), draw("Ann"), GIVE_UP]), obj, "picasso.no_turn")


# --- the kit --------------------------------------------------------------------------------


@pytest.mark.rule("picasso.kit")
@pytest.mark.parametrize(
    "pieces",
    [{"long_stick": 6}, {"short_stick": 6}, {"string": 2}, {"long_stick": 6, "shape": 0}],
)
def test_the_default_kit_caps_the_board(pieces: dict[str, int]) -> None:
    """5 long sticks, 5 short sticks and 1 string come in the box.

    > kit caps what may be on the board, default {"long_stick": 5, "short_stick": 5,
    > "string": 1, "shape": null} (null: no cap).
    > 5 long sticks ... 5 short sticks ... String
    """
    state = run([picasso_start(AB), draw("Ann")])
    expect_error(state, build(**pieces), "picasso.kit")


@pytest.mark.rule("picasso.kit")
def test_the_default_kit_does_not_cap_shapes() -> None:
    """Shapes are not capped: 5 shapes (cost 10) is a legal board; 6 costs 12 and loses the
    card rather than breaking the kit.

    > "shape": null} (null: no cap).
    """
    assert one_turn(build(long_stick=5, short_stick=5), guess("Ben"))["scores"]["Ann"] == 0
    assert one_turn(build(shape=5), guess("Ben"))["scores"]["Ann"] == 0
    summary = one_turn(build(shape=6))
    assert summary["scores"] == {"Ann": 0, "Ben": 0}
    assert summary["builder"] == "Ben"


@pytest.mark.rule("picasso.kit")
def test_a_custom_kit_replaces_the_caps_it_names() -> None:
    """ "kit" sets caps piece by piece; null lifts a cap, 0 forbids the piece.

    > options "cards_per_player" (default 3), "kit"
    > kit caps what may be on the board
    """
    kit = {"string": 0, "shape": 2, "long_stick": None}
    state = run([picasso_start(AB, kit=kit), draw("Ann")])
    expect_error(state, build(string=1), "picasso.kit")
    expect_error(state, build(shape=3), "picasso.kit")
    expect_error(state, build(short_stick=6), "picasso.kit")  # the default cap still holds
    engine.apply_raw(state, build(long_stick=9))


@pytest.mark.rule("picasso.kit")
@pytest.mark.parametrize(
    "kit", [[], "all", {"string": -1}, {"string": True}, {"string": 1.5}, {"string": "1"}]
)
def test_kit_caps_are_whole_numbers_or_null(kit: object) -> None:
    """A kit is an object of counts (0 or more) or null.

    > kit caps what may be on the board, default {"long_stick": 5, "short_stick": 5,
    > "string": 1, "shape": null} (null: no cap).
    """
    expect_start_error(picasso_start(AB, kit=kit), "picasso.kit", InvalidEvent)


# --- cost and points ------------------------------------------------------------------------


@pytest.mark.rule("picasso.cost")
def test_the_cat_example() -> None:
    """The rulebook's cat: 1 shape and 4 sticks cost 6, the builder scores 4, the guesser
    takes the card (5).

    > Example: You are trying to depict a cat. The word is guessed after you have used 1
    > shape (2 points) and 4 sticks (1 point each) – that is 6 in total. For the guessed
    > word, 10 – 6 = 4 points.
    """
    summary = one_turn(build(shape=1, long_stick=2, short_stick=2), guess("Ben"))
    assert summary["points"] == {"Ann": 4, "Ben": 0}
    assert summary["cards_held"] == {"Ann": 0, "Ben": 1}
    assert summary["scores"] == {"Ann": 4, "Ben": 5}


@pytest.mark.rule("picasso.cost")
@pytest.mark.parametrize(
    ("pieces", "cost"),
    [
        ({"long_stick": 1}, 1),
        ({"short_stick": 1}, 1),
        ({"shape": 1}, 2),
        ({"string": 1}, 3),
        ({"long_stick": 2, "short_stick": 3, "shape": 1, "string": 1}, 10),
        ({}, 0),
        ({"long_stick": 0, "shape": 0}, 0),
    ],
)
def test_piece_costs(pieces: dict[str, int], cost: int) -> None:
    """Sticks 1, shapes 2, string 3; missing keys are 0.

    > a short or long stick – 1 point, a geometric shape – 2 points, string – 3 points.
    > what lies on the board now (missing keys are 0). Cost = a + b + 2c + 3d.
    """
    state = run([picasso_start(AB), draw("Ann"), build(**pieces)])
    assert state.summary()["cost"] == cost
    assert engine.apply_raw(state, guess("Ben")).summary()["points"]["Ann"] == 10 - cost


@pytest.mark.rule("picasso.cost")
def test_cost_is_what_lies_on_the_board_now() -> None:
    """Pieces taken off the board no longer count: a build of 8 then one of 3 costs 3.

    > "pieces": {"long_stick": a, "short_stick": b, "shape": c, "string": d}}: what lies on
    > the board now
    """
    summary = one_turn(build(shape=4), build(shape=1, long_stick=1), guess("Ben"))
    assert summary["points"]["Ann"] == 7


@pytest.mark.rule("picasso.over_ten")
def test_a_build_over_ten_loses_the_card_at_once() -> None:
    """Cost 11: the card is lost at once, nobody scores, and it is the next builder's turn
    (a late guess finds no card).

    > If the builder has used building elements whose total value exceeds 10, the card is
    > lost, and nobody receives either points or the card.
    > A build whose cost exceeds 10 loses the card at once: the turn ends and nobody scores.
    """
    state = run([picasso_start(AB), draw("Ann"), build(shape=2), build(shape=4, string=1)])
    summary = state.summary()
    assert summary["scores"] == {"Ann": 0, "Ben": 0}
    assert summary["cards_held"] == {"Ann": 0, "Ben": 0}
    assert summary["builder"] == "Ben"
    expect_error(state, guess("Ben"), "picasso.no_turn")
    expect_error(state, build(shape=1), "picasso.no_turn")


@pytest.mark.rule("picasso.over_ten")
def test_a_build_of_exactly_ten_is_allowed() -> None:
    """Exactly 10 does not exceed 10: the turn goes on; a guess gives the builder 0.

    > whose total value exceeds 10
    """
    summary = one_turn(build(string=1, shape=2, short_stick=3), guess("Ben"))
    assert summary["scores"] == {"Ann": 0, "Ben": 5}


@pytest.mark.rule("picasso.over_ten")
def test_the_last_turn_lost_over_ten_ends_the_game() -> None:
    """A card lost over 10 on the last turn still ends the game.

    > The game ends when the cards set aside for the game have run out.
    """
    state = run(
        [picasso_start(AB, cards_per_player=1), draw("Ann"), GIVE_UP, draw("Ben"), build(shape=6)]
    )
    assert state.finished
    assert state.summary()["winners"] == AB


@pytest.mark.rule("picasso.guess")
def test_nothing_built_scores_ten() -> None:
    """A guess before any build: the builder scores the full 10.

    > Each card has an imaginary value of 10 before the word is guessed.
    > the builder scores 10 minus the cost of the last build (10 if nothing was built).
    """
    assert one_turn(guess("Ben"))["scores"] == {"Ann": 10, "Ben": 5}


@pytest.mark.rule("picasso.guess")
def test_the_guesser_keeps_the_card_worth_five() -> None:
    """Each card won counts 5 at the end, on top of the points.

    > If a player guesses the word the builder is depicting, that player receives a card
    > worth 5 points, which they keep.
    > Score = points + 5 x cards held.
    """
    log = [picasso_start(["Ann", "Ben", "Cy"], cards_per_player=1)]
    log += [draw("Ann", "c1"), build(shape=3), guess("Cy")]  # Ann 4, Cy a card
    log += [draw("Ben", "c2"), guess("Cy")]  # Ben 10, Cy a card
    log += [draw("Cy", "c3"), build(string=1), guess("Ann")]  # Cy 7, Ann a card
    summary = run(log).summary()
    assert summary["points"] == {"Ann": 4, "Ben": 10, "Cy": 7}
    assert summary["cards_held"] == {"Ann": 1, "Ben": 0, "Cy": 2}
    assert summary["scores"] == {"Ann": 9, "Ben": 10, "Cy": 17}
    assert summary["finished"]
    assert summary["winners"] == ["Cy"]


@pytest.mark.rule("picasso.guesser")
def test_the_builder_does_not_guess() -> None:
    """The builder knows the word: a guess by the builder is refused.

    > {"type": "guess", "player": Q}: Q (not the builder) guessed the word.
    """
    state = run([picasso_start(AB), draw("Ann"), build(shape=1)])
    expect_error(state, guess("Ann"), "picasso.guesser")
    engine.apply_raw(state, guess("Ben"))


# --- the end --------------------------------------------------------------------------------


@pytest.mark.rule("picasso.end")
def test_the_game_finishes_after_the_last_turn() -> None:
    """players x cards_per_player turns, then finished; not one turn sooner.

    > for players x cards_per_player turns.
    > The game is finished after the last turn.
    """
    log = [picasso_start(["Ann", "Ben", "Cy"], cards_per_player=2)]
    players = ["Ann", "Ben", "Cy"]
    for turn in range(6):
        builder = players[turn % 3]
        log += [draw(builder, f"c{turn}"), guess(players[(turn + 1) % 3])]
        assert run(log).finished == (turn == 5)
    summary = run(log).summary()
    assert summary["scores"] == {"Ann": 30, "Ben": 30, "Cy": 30}
    assert summary["winners"] == players


@pytest.mark.rule("picasso.end")
def test_the_most_points_win() -> None:
    """Points plus 5 per card: the highest total wins.

    > Add up the points each player has scored overall and add the values of the cards they
    > hold (5 points per card). The player who has won the most points wins.
    """
    log = [picasso_start(AB, cards_per_player=1)]
    log += [draw("Ann", "c1"), build(shape=1, long_stick=2), guess("Ben")]  # Ann 6, Ben 5
    log += [draw("Ben", "c2"), build(string=1, shape=3), guess("Ann")]  # Ben 1, Ann 5
    summary = run(log).summary()
    assert summary["scores"] == {"Ann": 11, "Ben": 6}
    assert summary["winners"] == ["Ann"]


@pytest.mark.rule("picasso.end", "log.finished")
@pytest.mark.parametrize("obj", [draw("Ann", "c9"), build(shape=1), guess("Ben"), GIVE_UP])
def test_no_turn_after_the_last(obj: dict[str, Any]) -> None:
    """Once the cards set aside have run out, nothing more happens.

    > The game ends when the cards set aside for the game have run out.
    """
    state = run([picasso_start(AB, cards_per_player=1), draw("Ann"), GIVE_UP, draw("Ben"), GIVE_UP])
    assert state.finished
    expect_error(state, obj, "log.finished", IllegalEvent)
