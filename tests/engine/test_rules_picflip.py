"""Pic Flip (rulebook pic-flip.en.txt, CONTRACTS.md section 1 Pic Flip)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

import engine
from engine import IllegalEvent, InvalidEvent
from engine.picflip import PicFlipState

from .helpers import expect_error, expect_start_error, picflip_start, run

AB = ["Ann", "Ben"]


def lead(player: str, card: str) -> dict[str, Any]:
    return {"type": "lead", "player": player, "card": card}


def describe(player: str, phrase: str = "red") -> dict[str, Any]:
    return {"type": "describe", "player": player, "phrase": phrase}


def play(player: str, card: str) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


REJECT: dict[str, Any] = {"type": "reject"}


def cards_left(*log: dict[str, Any]) -> dict[str, int]:
    return run(list(log)).summary()["cards_left"]


# --- players and the deal -------------------------------------------------------------------


@pytest.mark.rule("picflip.players")
@pytest.mark.parametrize("n", [0, 1, 7])
def test_picflip_takes_two_to_six_players(n: int) -> None:
    """Six Cover Cards, one per player: 2 to 6 players.

    > 110 cards (104 Playing Cards, 6 Cover Cards)
    > Pic Flip (picflip), 2 to 6 players
    """
    expect_start_error(picflip_start([f"P{i}" for i in range(n)]), "picflip.players")


@pytest.mark.rule("picflip.deal")
@pytest.mark.parametrize(
    ("n", "counts"),
    [
        (2, [52, 52]),
        (3, [35, 34, 34]),
        (4, [26, 26, 26, 26]),
        (5, [21, 21, 21, 20, 20]),
        (6, [18, 18, 17, 17, 17, 17]),
    ],
)
def test_the_whole_deck_is_dealt(n: int, counts: list[int]) -> None:
    """104 cards dealt as evenly as possible, earlier players first; with an odd number of
    players one card is set aside first (3 players: 103 = 35 + 34 + 34).

    > Deal the entire deck of Playing Cards evenly between players. If there are an odd
    > number of players, remove one random card from the deck and set it aside.
    > with an odd number of players one card is set aside, and the rest is dealt as evenly
    > as possible, earlier players first.
    """
    players = [f"P{i}" for i in range(n)]
    summary = engine.start(picflip_start(players)).summary()
    assert list(summary["cards_left"].values()) == counts
    assert list(summary["cards_left"]) == players
    assert sum(counts) == 104 - n % 2
    assert summary["scores"] == dict.fromkeys(players, 0)


@pytest.mark.rule("picflip.deal")
@pytest.mark.parametrize(
    ("n", "deck", "counts"),
    [
        (2, 7, [4, 3]),
        (3, 8, [3, 2, 2]),
        (3, 7, [2, 2, 2]),
        (5, 10, [2, 2, 2, 2, 1]),
        (4, 4, [1, 1, 1, 1]),
    ],
)
def test_deck_size_option(n: int, deck: int, counts: list[int]) -> None:
    """ "deck_size" replaces the 104 cards; the same dealing applies.

    > options "deck_size" (default 104), "hands"
    """
    players = [f"P{i}" for i in range(n)]
    summary = engine.start(picflip_start(players, deck_size=deck)).summary()
    assert list(summary["cards_left"].values()) == counts


@pytest.mark.rule("picflip.deal")
@pytest.mark.parametrize(
    "options",
    [
        {"deck_size": 0},
        {"deck_size": 2, "players": ["A", "B", "C"]},  # one set aside, one for three players
        {"deck_size": True},
        {"deck_size": "104"},
        {"hands": [26, 26]},
        {"hands": {"Ann": 3}},
        {"hands": {"Ann": 3, "Ben": 3, "Cy": 3}},
        {"hands": {"Ann": 3, "Ben": 0}},
        {"hands": {"Ann": 3, "Ben": True}},
        {"hands": {"Ann": 3, "Ben": 2.5}},
    ],
)
def test_bad_deals_are_refused(options: dict[str, Any]) -> None:
    """Every player is dealt at least one card; "hands" counts every player and nobody else.

    > hands ({"A": 26, ...}) sets each player's starting count instead.
    """
    start = {**picflip_start(AB), **options}
    expect_start_error(start, "picflip.deal", InvalidEvent)


@pytest.mark.rule("picflip.deal")
def test_hands_sets_the_starting_counts() -> None:
    """ "hands" gives each player's count instead of dealing.

    > hands ({"A": 26, ...}) sets each player's starting count instead.
    """
    summary = engine.start(
        picflip_start(["Ann", "Ben", "Cy"], hands={"Cy": 1, "Ann": 5, "Ben": 2})
    ).summary()
    assert summary["cards_left"] == {"Ann": 5, "Ben": 2, "Cy": 1}


# --- lead, describe, play -------------------------------------------------------------------


@pytest.mark.rule("picflip.lead")
@pytest.mark.parametrize("obj", [describe("Ann"), play("Ann", "c1")])
def test_the_game_starts_with_a_lead(obj: dict[str, Any]) -> None:
    """Nothing to describe or match before the first card is down.

    > The youngest player goes first, taking a random card from their deck and placing it
    > FACE UP in the middle of the playing area, creating a discard pile.
    """
    expect_error(run([picflip_start(AB)]), obj, "picflip.lead")


@pytest.mark.rule("picflip.lead")
def test_there_is_one_lead() -> None:
    """A second lead is refused, by anybody.

    > {"type": "lead", "player": P, "card": C}: the first card of the game.
    """
    state = run([picflip_start(AB), lead("Ben", "c1")])
    expect_error(state, lead("Ann", "c2"), "picflip.lead")
    expect_error(engine.apply_raw(state, describe("Ben")), lead("Ben", "c2"), "picflip.lead")
    assert state.summary()["cards_left"] == {"Ann": 52, "Ben": 51}
    assert state.summary()["scores"] == {"Ann": 0, "Ben": 1}


@pytest.mark.rule("picflip.describe")
def test_only_the_top_cards_player_describes() -> None:
    """The player whose card is on top describes it; nobody else.

    > The player who laid the card down chooses one of the two images on the card, then
    > calls out a descriptive word or phrase that describes that image.
    > only by the player whose card is on top of the pile.
    """
    state = run([picflip_start(AB), lead("Ann", "c1")])
    expect_error(state, describe("Ben"), "picflip.describe")
    state = run([picflip_start(AB), lead("Ann", "c1"), describe("Ann"), play("Ben", "c2")])
    expect_error(state, describe("Ann", "fast"), "picflip.describe")
    engine.apply_raw(state, describe("Ben", "fast"))


@pytest.mark.rule("picflip.play.when")
def test_a_play_answers_a_description() -> None:
    """Nobody plays on a card not yet described (the lead, or an accepted play).

    > If all players agree that it's a match, the player who just played the card chooses
    > one of the images on it and calls out a new descriptive word or phrase.
    """
    expect_error(
        run([picflip_start(AB), lead("Ann", "c1")]), play("Ben", "c2"), "picflip.play.when"
    )
    state = run([picflip_start(AB), lead("Ann", "c1"), describe("Ann"), play("Ben", "c2")])
    expect_error(state, play("Ann", "c3"), "picflip.play.when")


@pytest.mark.rule("picflip.play.when")
def test_anyone_plays_including_the_describer() -> None:
    """The describer may also play on their own description.

    > ALL PLAYERS (including the one who laid down the card) FLIP through their deck
    """
    state = run([picflip_start(AB), lead("Ann", "c1"), describe("Ann"), play("Ann", "c2")])
    assert state.summary()["cards_left"] == {"Ann": 50, "Ben": 52}
    assert state.summary()["scores"] == {"Ann": 2, "Ben": 0}


@pytest.mark.rule("picflip.no_cards")
def test_a_player_without_cards_cannot_lay_one() -> None:
    """A player with an empty deck has nothing to lay. Through a log this is unreachable (an
    empty deck ends the game); the check guards states built by hand.

    > Quickly, ALL PLAYERS (including the one who laid down the card) FLIP through their
    > deck
    """
    state = run([picflip_start(AB), lead("Ann", "c1"), describe("Ann")])
    assert isinstance(state, PicFlipState)
    empty = replace(state, cards_left={"Ann": 51, "Ben": 0})
    expect_error(empty, play("Ben", "c2"), "picflip.no_cards")
    fresh = engine.start(picflip_start(AB))
    assert isinstance(fresh, PicFlipState)
    expect_error(
        replace(fresh, cards_left={"Ann": 0, "Ben": 52}), lead("Ann", "c1"), "picflip.no_cards"
    )


# --- reject ---------------------------------------------------------------------------------


@pytest.mark.rule("picflip.reject")
def test_a_rejected_play_goes_back_to_its_player() -> None:
    """The card goes back: cards_left and score as before the play, the old top card's
    description stands and play goes on.

    > If there is a challenge and the Playing Card is ruled NOT to be a match (majority
    > opinion), the player who played it puts it back in their deck
    > {"type": "reject"}: the majority ruled the last play not a match; the card goes back to
    > its player.
    """
    before = run([picflip_start(AB), lead("Ann", "c1"), describe("Ann")])
    after = run([picflip_start(AB), lead("Ann", "c1"), describe("Ann"), play("Ben", "c2"), REJECT])
    assert after.summary()["cards_left"] == before.summary()["cards_left"] == {"Ann": 51, "Ben": 52}
    assert after.summary()["scores"] == {"Ann": 1, "Ben": 0}
    assert after.summary()["top"] == before.summary()["top"]
    engine.apply_raw(after, play("Ben", "c2"))


@pytest.mark.rule("picflip.reject")
@pytest.mark.parametrize(
    "log",
    [
        [],  # nothing on the pile
        [lead("Ann", "c1")],  # the lead is not a play
        [lead("Ann", "c1"), describe("Ann")],
        [lead("Ann", "c1"), describe("Ann"), play("Ben", "c2"), describe("Ben")],  # described
        [lead("Ann", "c1"), describe("Ann"), play("Ben", "c2"), REJECT],  # already rejected
    ],
)
def test_only_the_last_play_before_it_is_described_is_rejected(log: list[dict[str, Any]]) -> None:
    """A reject is of the last play, before its player describes it.

    > {"type": "reject"}: the majority ruled the last play not a match
    """
    expect_error(run([picflip_start(AB), *log]), REJECT, "picflip.reject")


# --- the end --------------------------------------------------------------------------------


@pytest.mark.rule("picflip.end")
def test_a_play_that_empties_a_deck_wins() -> None:
    """The last card played: finished, the player who played it wins.

    > The game ends when one player has discarded all the cards in their deck. That player is
    > the WINNER!
    > A play that empties a player's deck finishes the game with that player as the winner
    """
    state = run(
        [
            picflip_start(AB, hands={"Ann": 3, "Ben": 1}),
            lead("Ann", "c1"),
            describe("Ann"),
            play("Ben", "c2"),
        ]
    )
    summary = state.summary()
    assert summary["finished"] is True
    assert summary["winners"] == ["Ben"]
    assert summary["cards_left"] == {"Ann": 2, "Ben": 0}
    assert summary["scores"] == {"Ann": 1, "Ben": 1}


@pytest.mark.rule("picflip.end", "picflip.reject")
def test_a_reject_of_the_winning_play_undoes_the_win() -> None:
    """The winning play ruled no match: the card goes back and the game goes on.

    > unless a reject of that very play follows.
    """
    log = [
        picflip_start(AB, hands={"Ann": 3, "Ben": 1}),
        lead("Ann", "c1"),
        describe("Ann"),
        play("Ben", "c2"),
        REJECT,
    ]
    state = run(log)
    summary = state.summary()
    assert summary["finished"] is False
    assert summary["winners"] == []
    assert summary["cards_left"] == {"Ann": 2, "Ben": 1}
    state = engine.apply_raw(state, play("Ann", "c3"))
    assert not state.finished
    state = engine.apply_raw(state, describe("Ann", "blue"))
    state = engine.apply_raw(state, play("Ben", "c2"))
    assert state.summary()["winners"] == ["Ben"]


@pytest.mark.rule("picflip.end")
def test_score_is_cards_discarded() -> None:
    """Every card laid (lead included) counts for its player; rejected ones do not.

    > Score = cards discarded; the state also has cards_left.
    """
    log = [picflip_start(["Ann", "Ben", "Cy"], deck_size=12), lead("Cy", "c1"), describe("Cy")]
    log += [play("Ann", "c2"), REJECT, play("Ann", "c3"), describe("Ann"), play("Ann", "c4")]
    log += [describe("Ann"), play("Ben", "c5")]
    summary = run(log).summary()
    assert summary["scores"] == {"Ann": 2, "Ben": 1, "Cy": 1}
    assert summary["cards_left"] == {"Ann": 2, "Ben": 3, "Cy": 2}  # dealt 4, 4, 3


@pytest.mark.rule("picflip.end", "log.finished")
@pytest.mark.parametrize("obj", [describe("Ben"), play("Ann", "c3"), lead("Ann", "c3")])
def test_nothing_but_a_reject_after_the_winning_play(obj: dict[str, Any]) -> None:
    """After the winning play only its reject may follow.

    > The game ends when one player has discarded all the cards in their deck.
    """
    state = run(
        [
            picflip_start(AB, hands={"Ann": 3, "Ben": 1}),
            lead("Ann", "c1"),
            describe("Ann"),
            play("Ben", "c2"),
        ]
    )
    expect_error(state, obj, "log.finished", IllegalEvent)


@pytest.mark.rule("picflip.end")
def test_a_lead_of_the_only_card_wins() -> None:
    """A player dealt one card who leads it has discarded their whole deck.

    > The game ends when one player has discarded all the cards in their deck.
    """
    state = run([picflip_start(AB, hands={"Ann": 1, "Ben": 4}), lead("Ann", "c1")])
    assert state.finished
    assert state.summary()["winners"] == ["Ann"]
    expect_error(state, REJECT, "picflip.reject")
