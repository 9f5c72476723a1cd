"""The rules every event log shares (CONTRACTS.md section 1), one test or more per rule id."""

from __future__ import annotations

import pytest

import engine
from engine import IllegalEvent, InvalidEvent

from .helpers import (
    build,
    check_error,
    expect_error,
    expect_start_error,
    picasso_start,
    picflip_start,
    picmix_start,
    pp_round,
    pp_start,
    run,
)

REVEAL = {"type": "reveal", "player": "A", "card": "x"}
STARTS = [
    pp_start(),
    picasso_start(),
    picmix_start(),
    picflip_start(),
]


@pytest.mark.rule("log.object")
@pytest.mark.parametrize("obj", [[], "reveal", 3, None, True, [REVEAL]])
def test_an_event_is_a_json_object(obj: object) -> None:
    """Anything but a JSON object is malformed, as the start line or later.

    > One JSON object per line, each with a "type".
    """
    expect_start_error(obj, "log.object")
    expect_error(run([pp_start()]), obj, "log.object", InvalidEvent)


@pytest.mark.rule("log.object")
@pytest.mark.parametrize(
    "obj", [{}, {"player": "A", "card": "x"}, {"type": 5}, {"type": None}, {"type": ["reveal"]}]
)
def test_an_event_has_a_type_string(obj: dict[str, object]) -> None:
    """An object without a "type" string is not an event.

    > One JSON object per line, each with a "type".
    """
    expect_start_error(obj, "log.object")
    expect_error(run([pp_start()]), obj, "log.object", InvalidEvent)


@pytest.mark.rule("log.start_first")
@pytest.mark.parametrize("obj", [REVEAL, {"type": "draw", "player": "A", "card": "c"}])
def test_the_first_line_is_start(obj: dict[str, object]) -> None:
    """A log that opens with anything but start is rejected, and so is an empty one.

    > The first line is always start.
    """
    expect_start_error(obj, "log.start_first")
    with pytest.raises(engine.EngineError) as info:
        engine.replay([])
    check_error(info.value, "log.start_first")


@pytest.mark.rule("log.start_first")
@pytest.mark.parametrize("first", STARTS, ids=lambda s: s["game"])
def test_a_second_start_is_rejected(first: dict[str, object]) -> None:
    """A start in the middle of a log is an error, even one identical to the first.

    > The first line is always start.
    """
    state = run([first])
    expect_error(state, first, "log.start_first", IllegalEvent)
    with pytest.raises(engine.EngineError) as info:
        engine.replay([first, first])
    check_error(info.value, "log.start_first")


@pytest.mark.rule("log.unknown_key")
@pytest.mark.parametrize(
    ("log", "obj"),
    [
        ([pp_start()], {**REVEAL, "plyer": "A"}),
        (
            [picasso_start(), {"type": "draw", "player": "A", "card": "c"}],
            {"type": "give_up", "x": 1},
        ),
        ([picmix_start()], {"type": "reveal", "card": "o", "items": ["a", "b", "c"], "iems": []}),
        (
            [picflip_start(), {"type": "lead", "player": "A", "card": "c"}],
            {"type": "reject", "player": "B"},
        ),
    ],
    ids=["pickpic", "picasso", "picmix", "picflip"],
)
def test_unknown_keys_in_events_are_errors(log: list[dict[str, object]], obj: object) -> None:
    """A misspelt or extra key never passes silently.

    > any other unknown key is an error (typos must not pass silently)
    """
    expect_error(run(log), obj, "log.unknown_key", InvalidEvent)


@pytest.mark.rule("log.unknown_key")
@pytest.mark.parametrize(
    "obj",
    [
        pp_start(targt=5),
        picasso_start(cards=2),
        picmix_start(three_items=True),
        picflip_start(deck=10),
        picasso_start(kit={"strings": 1}),
    ],
    ids=["pickpic", "picasso", "picmix", "picflip", "picasso-kit"],
)
def test_unknown_options_of_start_are_errors(obj: dict[str, object]) -> None:
    """Options are keys of the start line: a misspelt option is an unknown key.

    > start: {"type": "start", "game": G, "players": [...], ...options}
    > any other unknown key is an error (typos must not pass silently)
    """
    expect_start_error(obj, "log.unknown_key")


@pytest.mark.rule("log.unknown_key")
def test_unknown_piece_in_a_build_is_an_unknown_key() -> None:
    """The keys of a build's pieces are the four pieces; "long_sticks" is a typo.

    > {"type": "build", "pieces": {"long_stick": a, "short_stick": b, "shape": c, "string": d}}
    > any other unknown key is an error (typos must not pass silently)
    """
    state = run([picasso_start(), {"type": "draw", "player": "A", "card": "cat"}])
    expect_error(state, build(long_sticks=2), "log.unknown_key", InvalidEvent)


@pytest.mark.rule("log.unknown_type")
@pytest.mark.parametrize(
    ("first", "kind"),
    [
        (pp_start(), "draw"),
        (pp_start(), "claim"),
        (picasso_start(), "reveal"),
        (picasso_start(), "lead"),
        (picmix_start(), "give"),
        (picmix_start(), "play"),
        (picflip_start(), "rank"),
        (picflip_start(), "guess"),
        (picflip_start(), "tap"),
        (picmix_start(), ""),
    ],
)
def test_each_game_takes_only_its_own_event_types(first: dict[str, object], kind: str) -> None:
    """Another game's event type, or no game's, is rejected by name.

    > Pick Pic (pickpic), 3 to 5 players ... A round is: every player's reveal, then the gives,
    > then one random per player, then one rank per player.
    """
    expect_error(run([first]), {"type": kind, "player": "A"}, "log.unknown_type", InvalidEvent)


@pytest.mark.rule("log.field")
@pytest.mark.parametrize(
    ("log", "obj"),
    [
        ([pp_start()], {"type": "reveal", "player": "A"}),
        ([pp_start()], {"type": "give", "to": "B", "card": "c"}),
        ([picasso_start(), {"type": "draw", "player": "A", "card": "c"}], {"type": "build"}),
        ([picasso_start(), {"type": "draw", "player": "A", "card": "c"}], {"type": "guess"}),
        ([picmix_start()], {"type": "reveal", "card": "o"}),
        (
            [picflip_start(), {"type": "lead", "player": "A", "card": "c"}],
            {"type": "describe", "player": "A"},
        ),
    ],
)
def test_missing_fields_are_errors(log: list[dict[str, object]], obj: object) -> None:
    """Every field an event's form lists is required.

    > {"type": "reveal", "player": P, "card": C}: P's reference photo for this round.
    """
    expect_error(run(log), obj, "log.field", InvalidEvent)


@pytest.mark.rule("log.field")
@pytest.mark.parametrize(
    ("log", "obj"),
    [
        (
            [pp_start(), *pp_round(["A", "B", "C", "D"])[:-4]],
            {"type": "rank", "player": "A", "order": "1:B>A"},
        ),
        ([picasso_start(), {"type": "draw", "player": "A", "card": "c"}], build(shape=1.5)),  # type: ignore[arg-type]
        ([picasso_start(), {"type": "draw", "player": "A", "card": "c"}], build(shape=True)),
        ([picasso_start(), {"type": "draw", "player": "A", "card": "c"}], build(shape=-1)),
        (
            [picasso_start(), {"type": "draw", "player": "A", "card": "c"}],
            {"type": "build", "pieces": [1]},
        ),
        ([picmix_start()], {"type": "reveal", "card": "o", "items": "a,b,c"}),
        (
            [picflip_start(), {"type": "lead", "player": "A", "card": "c"}],
            {"type": "describe", "player": "A", "phrase": " "},
        ),
    ],
)
def test_fields_of_the_wrong_type_are_errors(log: list[dict[str, object]], obj: object) -> None:
    """Lists are lists, counts are whole numbers (not booleans), phrases are not blank.

    > {"type": "rank", "player": P, "order": [C, ...]}: P's whole stack
    > Cost = a + b + 2c + 3d.
    """
    expect_error(run(log), obj, "log.field", InvalidEvent)


@pytest.mark.rule("log.ids")
@pytest.mark.parametrize(
    ("log", "obj"),
    [
        ([pp_start()], {"type": "reveal", "player": "", "card": "x"}),
        ([pp_start()], {"type": "reveal", "player": "A", "card": ""}),
        ([pp_start()], {"type": "reveal", "player": 1, "card": "x"}),
        ([pp_start()], {"type": "reveal", "player": "A", "card": 7}),
        ([pp_start()], {"type": "reveal", "player": ["A"], "card": "x"}),
        ([picmix_start()], {"type": "reveal", "card": "o", "items": ["a", "", "c"]}),
        ([picmix_start()], {"type": "reveal", "card": "o", "items": ["a", 2, "c"]}),
    ],
)
def test_card_ids_and_names_are_non_empty_strings(
    log: list[dict[str, object]], obj: object
) -> None:
    """An empty or non-string id or name is malformed.

    > Card ids and player names are non-empty strings.
    """
    expect_error(run(log), obj, "log.ids", InvalidEvent)


@pytest.mark.rule("log.ids")
@pytest.mark.parametrize("players", [["A", ""], ["A", 2, "C"], [None, "B", "C"]])
def test_player_names_in_start_are_non_empty_strings(players: list[object]) -> None:
    """The start line's players are names too.

    > Card ids and player names are non-empty strings.
    """
    expect_start_error({"type": "start", "game": "picmix", "players": players}, "log.ids")


@pytest.mark.rule("log.t")
@pytest.mark.parametrize("t", ["1.5", True, None, [1], float("nan"), float("inf")])
def test_t_is_a_number_of_seconds(t: object) -> None:
    """ "t" is a finite number; booleans, strings and NaN are not.

    > Any event may carry "t" (seconds, a number)
    """
    expect_start_error({**picmix_start(), "t": t}, "log.t")
    expect_error(
        run([picmix_start()]),
        {"type": "reveal", "card": "o", "items": ["a", "b", "c"], "t": t},
        "log.t",
        InvalidEvent,
    )


@pytest.mark.rule("log.t", "log.meta")
def test_t_and_meta_are_accepted_on_any_event() -> None:
    """ "t" (int or float) and a free "meta" object ride on every event, start included.

    > Any event may carry "t" (seconds, a number) and "meta" (an object, free)
    """
    extra = {"t": 12, "meta": {"camera": 2, "anything": [None, {"x": 1}]}}
    log = [
        {**picflip_start(), **extra},
        {"type": "lead", "player": "A", "card": "c1", **extra},
        {"type": "describe", "player": "A", "phrase": "red", "t": 13.5},
        {"type": "play", "player": "B", "card": "c2", "meta": {}},
        {"type": "reject", **extra},
    ]
    assert run(log).summary()["scores"] == {"A": 1, "B": 0}


@pytest.mark.rule("log.meta")
@pytest.mark.parametrize("meta", [[], "x", 1, None, True])
def test_meta_is_an_object(meta: object) -> None:
    """ "meta" is free inside, but it is an object.

    > and "meta" (an object, free)
    """
    expect_start_error({**picasso_start(), "meta": meta}, "log.meta")
    state = run([picasso_start()])
    expect_error(
        state, {"type": "draw", "player": "A", "card": "c", "meta": meta}, "log.meta", InvalidEvent
    )


@pytest.mark.rule("log.game")
@pytest.mark.parametrize(
    "game", ["chess", "PickPic", "pick pic", "", 3, None, ["pickpic"], {"a": 1}]
)
def test_the_game_is_one_of_the_four(game: object) -> None:
    """Only the four games' names (exactly spelt) start a game.

    > with G one of pickpic, picflip, picasso, picmix.
    """
    expect_start_error({"type": "start", "game": game, "players": ["A", "B", "C"]}, "log.game")


@pytest.mark.rule("log.game")
@pytest.mark.parametrize("game", ["pickpic", "picflip", "picasso", "picmix"])
def test_each_of_the_four_games_starts(game: str) -> None:
    """Each of the four names starts its game, with scores at zero.

    > with G one of pickpic, picflip, picasso, picmix.
    """
    summary = engine.start({"type": "start", "game": game, "players": ["A", "B", "C"]}).summary()
    assert summary["game"] == game
    assert summary["players"] == ["A", "B", "C"]
    assert summary["scores"] == {"A": 0, "B": 0, "C": 0}
    assert summary["finished"] is False
    assert summary["winners"] == []


@pytest.mark.rule("log.players")
@pytest.mark.parametrize("game", ["pickpic", "picflip", "picasso", "picmix"])
def test_players_are_distinct(game: str) -> None:
    """One seat per player: a name listed twice is an error.

    > Players are listed in seating order, clockwise.
    """
    expect_start_error({"type": "start", "game": game, "players": ["A", "B", "A"]}, "log.players")


@pytest.mark.rule("log.players")
def test_players_keep_their_seating_order() -> None:
    """The order of the start line is the seating order (Picasso's turns follow it).

    > Players are listed in seating order, clockwise.
    """
    state = run(
        [picasso_start(["Zoe", "Al", "Mo"]), {"type": "draw", "player": "Zoe", "card": "c"}]
    )
    assert state.summary()["players"] == ["Zoe", "Al", "Mo"]
    assert list(state.summary()["scores"]) == ["Zoe", "Al", "Mo"]


@pytest.mark.rule("log.players")
@pytest.mark.parametrize("players", ["ABC", None, {"A": 1}])
def test_players_is_a_list(players: object) -> None:
    """ "players" is a list of names.

    > start: {"type": "start", "game": G, "players": [...], ...options}
    """
    expect_start_error({"type": "start", "game": "picmix", "players": players}, "log.field")


FINISHED_LOGS = {
    "pickpic": [pp_start(["A", "B", "C", "D"], target=1), *pp_round(["A", "B", "C", "D"])],
    "picasso": [
        picasso_start(["A", "B"], cards_per_player=1),
        {"type": "draw", "player": "A", "card": "c1"},
        {"type": "guess", "player": "B"},
        {"type": "draw", "player": "B", "card": "c2"},
        {"type": "give_up"},
    ],
    "picmix": [
        picmix_start(["A", "B"], target=1),
        {"type": "reveal", "card": "o1", "items": ["a", "b", "c"]},
        {"type": "claim", "player": "B", "visible": ["c", "b", "a"]},
    ],
    "picflip": [
        picflip_start(["A", "B"], hands={"A": 2, "B": 1}),
        {"type": "lead", "player": "A", "card": "c1"},
        {"type": "describe", "player": "A", "phrase": "red"},
        {"type": "play", "player": "B", "card": "c2"},
    ],
}
AFTER_FINISH = {
    "pickpic": [{"type": "reveal", "player": "A", "card": "new"}],
    "picasso": [{"type": "draw", "player": "A", "card": "c3"}, {"type": "give_up"}],
    "picmix": [
        {"type": "reveal", "card": "o2", "items": ["a", "b", "c"]},
        {"type": "claim", "player": "A", "visible": ["a", "b", "c"]},
    ],
    "picflip": [
        {"type": "describe", "player": "B", "phrase": "blue"},
        {"type": "play", "player": "A", "card": "c3"},
    ],
}


@pytest.mark.rule("log.finished")
@pytest.mark.parametrize(
    ("game", "obj"), [(g, obj) for g, objs in AFTER_FINISH.items() for obj in objs]
)
def test_a_finished_game_takes_no_more_events(game: str, obj: dict[str, object]) -> None:
    """Once a game is won, any further event is illegal (Pic Flip's reject aside).

    > At the end of a round, if anyone has reached target, the game is finished
    > The game is finished after the last turn.
    """
    state = run(FINISHED_LOGS[game])
    assert state.finished
    expect_error(state, obj, "log.finished")


NON_PLAYER_CASES = [
    ([pp_start()], {"type": "reveal", "player": "Z", "card": "x"}),
    (
        [pp_start(), *pp_round(["A", "B", "C", "D"])[:4]],
        {"type": "give", "from": "Z", "to": "A", "card": "x"},
    ),
    (
        [pp_start(), *pp_round(["A", "B", "C", "D"])[:4]],
        {"type": "give", "from": "A", "to": "Z", "card": "x"},
    ),
    (
        [pp_start(), *pp_round(["A", "B", "C", "D"])[:16]],
        {"type": "random", "to": "Z", "card": "x"},
    ),
    (
        [pp_start(), *pp_round(["A", "B", "C", "D"])[:20]],
        {"type": "rank", "player": "Z", "order": []},
    ),
    ([picasso_start()], {"type": "draw", "player": "Z", "card": "x"}),
    (
        [picasso_start(), {"type": "draw", "player": "A", "card": "c"}],
        {"type": "guess", "player": "Z"},
    ),
    (
        [picmix_start(), {"type": "reveal", "card": "o", "items": ["a", "b", "c"]}],
        {"type": "claim", "player": "Z", "visible": ["a", "b", "c"]},
    ),
    ([picflip_start()], {"type": "lead", "player": "Z", "card": "x"}),
    (
        [picflip_start(), {"type": "lead", "player": "A", "card": "c"}],
        {"type": "describe", "player": "Z", "phrase": "red"},
    ),
    (
        [
            picflip_start(),
            {"type": "lead", "player": "A", "card": "c"},
            {"type": "describe", "player": "A", "phrase": "red"},
        ],
        {"type": "play", "player": "Z", "card": "x"},
    ),
    (
        [
            picflip_start(),
            {"type": "lead", "player": "A", "card": "c"},
            {"type": "describe", "player": "A", "phrase": "red"},
        ],
        {"type": "play", "player": "a", "card": "x"},
    ),
]


@pytest.mark.rule("log.player")
@pytest.mark.parametrize(("log", "obj"), NON_PLAYER_CASES)
def test_only_players_at_the_table_act(log: list[dict[str, object]], obj: object) -> None:
    """A name not on the start line (names are case-sensitive) is rejected.

    > Players are listed in seating order, clockwise.
    """
    expect_error(run(log), obj, "log.player")
