"""Picmix (rulebook picmix.en.txt, CONTRACTS.md section 1 Picmix)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import IllegalEvent, InvalidEvent

from .helpers import expect_error, expect_start_error, picmix_start, run

ABC = ["Ann", "Ben", "Cy"]


def reveal(card: str, items: list[str]) -> dict[str, Any]:
    return {"type": "reveal", "card": card, "items": items}


def claim(player: str, visible: list[str], returned: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "claim", "player": player, "visible": visible}
    if returned is not None:
        out["returned"] = returned
    return out


SUN = ["sun", "car", "dog"]
HAT = ["hat", "cup", "key", "fish"]


def wins(player: str, card: str, items: list[str] = SUN) -> list[dict[str, Any]]:
    return [reveal(card, items), claim(player, items[::-1])]


# --- players and options -------------------------------------------------------------------


@pytest.mark.rule("picmix.players")
@pytest.mark.parametrize("n", [0, 1, 7])
def test_picmix_takes_two_to_six_players(n: int) -> None:
    """6 sets of Player cards: 2 to 6 players.

    > 24 Player cards (6 sets of 4 cards)
    > Picmix (picmix), 2 to 6 players
    """
    expect_start_error(picmix_start([f"P{i}" for i in range(n)]), "picmix.players")


@pytest.mark.rule("picmix.players")
@pytest.mark.parametrize("n", [2, 6])
def test_picmix_two_and_six_players_play(n: int) -> None:
    """The limits themselves are fine.

    > Picmix (picmix), 2 to 6 players
    """
    players = [f"P{i}" for i in range(n)]
    state = run([picmix_start(players), *wins(players[-1], "o1")])
    assert state.summary()["scores"][players[-1]] == 1


@pytest.mark.rule("picmix.options")
@pytest.mark.parametrize("target", [0, -1, True, "5", 2.0, None])
def test_target_is_a_positive_whole_number(target: object) -> None:
    """ "target" counts Objective cards: a whole number, at least 1.

    > options "target" (default 5)
    """
    expect_start_error(picmix_start(ABC, target=target), "picmix.options", InvalidEvent)


@pytest.mark.rule("picmix.options")
def test_target_option_sets_the_number_of_objectives_to_win() -> None:
    """With "target": 2 the second objective won ends the game.

    > options "target" (default 5)
    """
    state = run([picmix_start(ABC, target=2), *wins("Ben", "o1")])
    assert not state.finished
    state = engine.apply_raw(engine.apply_raw(state, reveal("o2", SUN)), claim("Ben", SUN))
    assert state.finished
    assert state.summary()["winners"] == ["Ben"]


# --- objectives -----------------------------------------------------------------------------


@pytest.mark.rule("picmix.items")
@pytest.mark.parametrize(
    "items",
    [[], ["sun"], ["sun", "car"], ["sun", "car", "dog", "hat", "cup"], ["sun", "car", "sun"]],
)
def test_an_objective_shows_three_or_four_distinct_items(items: list[str]) -> None:
    """Two items, five items, or an item twice is not an Objective card.

    > line up the 3 or 4 items (and only those items) shown on the round's Objective card.
    > {"type": "reveal", "card": C, "items": [...]}: a new objective with 3 or 4 distinct items
    """
    expect_error(run([picmix_start(ABC)]), reveal("o1", items), "picmix.items")


@pytest.mark.rule("picmix.items")
@pytest.mark.parametrize("items", [SUN, HAT])
def test_three_and_four_item_objectives_are_revealed(items: list[str]) -> None:
    """Both sizes of objective are in the standard game.

    > line up the 3 or 4 items
    """
    state = run([picmix_start(ABC), reveal("o1", items)])
    assert state.summary()["objective"] == {"card": "o1", "items": sorted(items)}


@pytest.mark.rule("picmix.three_items_only")
def test_the_beginners_variant_uses_three_item_objectives() -> None:
    """With "three_items_only", a 4-item objective is refused and a 3-item one is fine.

    > For younger or beginner players, it is possible to sort the Objective cards so that
    > only those showing 3 items are used.
    """
    state = run([picmix_start(ABC, three_items_only=True)])
    expect_error(state, reveal("o1", HAT), "picmix.three_items_only")
    engine.apply_raw(state, reveal("o1", SUN))
    state = run([picmix_start(ABC, three_items_only=False)])
    engine.apply_raw(state, reveal("o1", HAT))


@pytest.mark.rule("picmix.three_items_only")
@pytest.mark.parametrize("value", [1, 0, "true", None, []])
def test_three_items_only_is_true_or_false(value: object) -> None:
    """The variant is on or off.

    > "three_items_only" (default false: the beginners' variant)
    """
    expect_start_error(picmix_start(ABC, three_items_only=value), "picmix.three_items_only")


@pytest.mark.rule("picmix.reveal.when")
def test_reveal_only_when_no_objective_is_open() -> None:
    """A second objective while one is open is refused; after a claim it is fine.

    > only when no objective is open.
    """
    state = run([picmix_start(ABC), reveal("o1", SUN)])
    expect_error(state, reveal("o2", HAT), "picmix.reveal.when")
    state = engine.apply_raw(state, claim("Ann", ["sun"]))
    engine.apply_raw(state, reveal("o2", HAT))


@pytest.mark.rule("picmix.claim.when")
def test_a_claim_needs_an_open_objective() -> None:
    """No claim before the first reveal, nor after the round's claim.

    > they tap the Objective card and shout "Picmix"
    """
    expect_error(run([picmix_start(ABC)]), claim("Ann", SUN), "picmix.claim.when")
    state = run([picmix_start(ABC), *wins("Ann", "o1")])
    expect_error(state, claim("Ben", SUN), "picmix.claim.when")


# --- claims ---------------------------------------------------------------------------------


@pytest.mark.rule("picmix.claim.correct")
@pytest.mark.parametrize("visible", [SUN, SUN[::-1], ["dog", "sun", "car"]])
def test_a_correct_claim_wins_the_objective(visible: list[str]) -> None:
    """Exactly the objective's items, in any order: the claimer wins the card.

    > The order of the items does not matter
    > If that player has indeed succeeded, they win the round's Objective card and place it
    > on the table in front of them.
    """
    summary = run([picmix_start(ABC), reveal("o1", SUN), claim("Ben", visible)]).summary()
    assert summary["scores"] == {"Ann": 0, "Ben": 1, "Cy": 0}
    assert summary["won"]["Ben"] == ["o1"]
    assert summary["objective"] is None


@pytest.mark.rule("picmix.claim.correct", "picmix.claim.wrong")
@pytest.mark.parametrize(
    "visible",
    [
        ["sun", "car"],
        ["sun", "car", "dog", "hat"],
        ["sun", "car", "hat"],
        [],
        ["SUN", "car", "dog"],
    ],
)
def test_no_more_and_no_less_than_the_objective(visible: list[str]) -> None:
    """A missing item, an extra item or a wrong one makes the claim wrong.

    > the combination of Player cards must show only the items shown on the Objective card,
    > no more and no less.
    """
    summary = run([picmix_start(ABC), reveal("o1", SUN), claim("Ben", visible)]).summary()
    assert summary["scores"] == {"Ann": 0, "Ben": 0, "Cy": 0}
    assert summary["pile_bottom"] == ["o1"]
    assert summary["last_claim"]["correct"] is False


@pytest.mark.rule("picmix.claim.wrong")
def test_a_wrong_claim_returns_the_most_recently_won_objective() -> None:
    """Without "returned", the last objective the claimer won goes under the pile with the
    round's objective.

    > If they were mistaken, they must return one previously won Objective card (if they
    > have any). That card, together with the round's Objective card, is placed at the
    > bottom of the Objective card pile.
    > Wrong: P returns one won objective (returned, or the most recently won when absent
    """
    log = [
        picmix_start(ABC),
        *wins("Ann", "o1"),
        *wins("Ann", "o2"),
        reveal("o3", HAT),
        claim("Ann", ["hat"]),
    ]
    summary = run(log).summary()
    assert summary["won"]["Ann"] == ["o1"]
    assert summary["pile_bottom"] == ["o2", "o3"]
    assert summary["scores"]["Ann"] == 1


@pytest.mark.rule("picmix.claim.wrong")
def test_a_wrong_claim_with_nothing_won_returns_nothing() -> None:
    """A player with no objective loses nothing; the round's objective still goes under.

    > nothing when P has none
    > they must return one previously won Objective card (if they have any)
    """
    log = [picmix_start(ABC), *wins("Ann", "o1"), reveal("o2", HAT), claim("Ben", SUN)]
    summary = run(log).summary()
    assert summary["scores"] == {"Ann": 1, "Ben": 0, "Cy": 0}
    assert summary["pile_bottom"] == ["o2"]
    assert summary["last_claim"]["returned"] is None


@pytest.mark.rule("picmix.claim.wrong")
def test_the_round_ends_after_a_wrong_claim() -> None:
    """After a wrong claim nobody can still win that objective: the next objective comes.

    > Either way the round is over.
    """
    state = run([picmix_start(ABC), reveal("o1", SUN), claim("Ann", ["sun"])])
    expect_error(state, claim("Ben", SUN), "picmix.claim.when")
    engine.apply_raw(state, reveal("o2", HAT))


@pytest.mark.rule("picmix.claim.wrong")
def test_a_returned_objective_can_come_back() -> None:
    """A card put under the pile is revealed again later and can be won again.

    > That card, together with the round's Objective card, is placed at the bottom of the
    > Objective card pile.
    """
    log = [picmix_start(ABC), *wins("Ann", "o1"), reveal("o2", HAT), claim("Ann", ["hat"])]
    log += wins("Ben", "o1") + wins("Cy", "o2", HAT)
    summary = run(log).summary()
    assert summary["won"] == {"Ann": [], "Ben": ["o1"], "Cy": ["o2"]}


@pytest.mark.rule("picmix.claim.returned")
def test_returned_chooses_which_won_objective_goes_back() -> None:
    """ "returned" names the won objective the claimer gives back (not the latest here).

    > P returns one won objective (returned, or the most recently won when absent
    """
    log = [picmix_start(ABC), *wins("Ann", "o1"), *wins("Ann", "o2"), reveal("o3", HAT)]
    summary = run([*log, claim("Ann", ["hat"], returned="o1")]).summary()
    assert summary["won"]["Ann"] == ["o2"]
    assert summary["pile_bottom"] == ["o1", "o3"]


@pytest.mark.rule("picmix.claim.returned")
@pytest.mark.parametrize(
    ("log", "returned"),
    [
        ([*wins("Ann", "o1"), reveal("o2", HAT)], "o9"),  # a card nobody won
        ([*wins("Ben", "o1"), reveal("o2", HAT)], "o1"),  # somebody else's card
        ([reveal("o2", HAT)], "o2"),  # the round's own objective
    ],
)
def test_returned_must_be_one_of_the_claimers_objectives(
    log: list[dict[str, Any]], returned: str
) -> None:
    """ "returned" must name one of the claimer's won objectives.

    > Wrong: P returns one won objective (returned, or the most recently won when absent;
    > nothing when P has none)
    """
    state = run([picmix_start(ABC), *log])
    expect_error(state, claim("Ann", ["hat"], returned=returned), "picmix.claim.returned")


# --- the end --------------------------------------------------------------------------------


@pytest.mark.rule("picmix.end")
def test_the_fifth_objective_wins_at_once() -> None:
    """By default the fifth objective won ends the game immediately, with one winner.

    > As soon as a player wins their fifth Objective card, they immediately win the game.
    """
    log = [picmix_start(ABC)]
    for i in range(4):
        log += wins("Cy", f"o{i}")
    log += wins("Ann", "oA")
    state = run(log)
    assert not state.finished
    state = run([*log, *wins("Cy", "o5")])
    assert state.finished
    assert state.summary()["winners"] == ["Cy"]
    assert state.summary()["scores"] == {"Ann": 1, "Ben": 0, "Cy": 5}


@pytest.mark.rule("picmix.end")
def test_the_fifth_counts_cards_held_not_cards_ever_won() -> None:
    """A returned card no longer counts: 5 wins with one returned is 4 held, not the end.

    > As soon as a player wins their fifth Objective card
    > Score = objective cards held.
    """
    log = [picmix_start(ABC)]
    for i in range(4):
        log += wins("Cy", f"o{i}")
    log += [reveal("x", HAT), claim("Cy", [])]
    log += wins("Cy", "o5")
    state = run(log)
    assert state.summary()["scores"]["Cy"] == 4
    assert not state.finished


@pytest.mark.rule("picmix.end", "log.finished")
@pytest.mark.parametrize("obj", [reveal("o9", SUN), claim("Ann", SUN)])
def test_nothing_after_the_winning_claim(obj: dict[str, Any]) -> None:
    """The game is over the moment it is won.

    > reaching target finishes the game at once.
    """
    state = run([picmix_start(ABC, target=1), *wins("Ben", "o1")])
    assert state.finished
    expect_error(state, obj, "log.finished", IllegalEvent)
