"""Sequences of game turns: valid CONTRACTS.md events in time order, frames with truth."""

from __future__ import annotations

import itertools
import json
from typing import Any

import numpy as np
import pytest

from vision.synth import SEQUENCE_KINDS, StandInTextures, render_sequence

# CONTRACTS.md section 1: the keys each event type may carry (besides "t" and "meta")
KEYS: dict[str, set[str]] = {
    "start": {"game", "players"},
    "reveal": {"player", "card", "items"},
    "give": {"from", "to", "card"},
    "random": {"to", "card"},
    "rank": {"player", "order"},
    "draw": {"player", "card"},
    "build": {"pieces"},
    "guess": {"player"},
    "give_up": set(),
    "claim": {"player", "visible", "returned"},
    "lead": {"player", "card"},
    "describe": {"player", "phrase"},
    "play": {"player", "card"},
    "reject": set(),
}
# start options the sequences use
START_OPTIONS = {"hands"}


def _check_events(events: list[dict[str, Any]]) -> None:
    assert events and events[0]["type"] == "start"
    ts = [e["t"] for e in events]
    assert ts[0] == 0.0
    assert all(b > a for a, b in itertools.pairwise(ts)), ts
    for e in events:
        assert isinstance(json.loads(json.dumps(e)), dict)
        allowed = KEYS[e["type"]] | (START_OPTIONS if e["type"] == "start" else set())
        assert set(e) - {"type", "t", "meta"} <= allowed, e


@pytest.mark.parametrize("kind", SEQUENCE_KINDS)
@pytest.mark.parametrize("tier", ["easy", "normal", "hard"])
def test_events_are_valid_and_in_time_order(kind: str, tier: str, standin: StandInTextures) -> None:
    seq = render_sequence(kind, 3, tier, provider=standin)
    _check_events(seq.events)
    assert seq.events[-1]["t"] <= seq.duration_s
    if kind == "picasso_turn":
        types = [e["type"] for e in seq.events]
        assert types[1] == "draw" and types[-1] == "guess" and "build" in types
        for e in seq.events:
            if e["type"] == "build":
                p = e["pieces"]
                assert p["long_stick"] + p["short_stick"] + 2 * p["shape"] + 3 * p["string"] <= 10


def test_events_replay_in_the_engine(standin: StandInTextures) -> None:
    api = pytest.importorskip("engine.api")
    for kind in SEQUENCE_KINDS:
        api.replay(render_sequence(kind, 1, "normal", provider=standin).events)


def test_picmix_claim_frames_and_truth(standin: StandInTextures) -> None:
    seq = render_sequence("picmix_claim", 2, "easy", fps=2.0, provider=standin)
    frames = list(seq)
    assert len(frames) == seq.n_frames
    assert [f.t for f in frames] == [i / 2.0 for i in range(len(frames))]
    for f in frames:
        assert f.frame.shape == (720, 1280, 3) and f.frame.dtype == np.uint8
    claim = next(e for e in seq.events if e["type"] == "claim")
    last = frames[-1].truth
    (area,) = last.picmix_areas
    assert list(area.visible_items) == claim["visible"]
    assert any(f.truth.hands for f in frames) and not last.hands


def test_sequence_is_deterministic(standin: StandInTextures) -> None:
    a = render_sequence("picasso_turn", 4, "normal", fps=1.0, provider=standin)
    b = render_sequence("picasso_turn", 4, "normal", fps=1.0, provider=standin)
    assert a.events == b.events
    fa = [f.frame for _, f in zip(range(3), a, strict=False)]
    fb = [f.frame for _, f in zip(range(3), b, strict=False)]
    assert all(np.array_equal(x, y) for x, y in zip(fa, fb, strict=True))


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown sequence kind 'poker'"):
        render_sequence("poker", 0)


@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_pickpic_session_has_whole_rounds(n_players: int, standin: StandInTextures) -> None:
    api = pytest.importorskip("engine.api")
    seq = render_sequence(
        "pickpic_round",
        5,
        "normal",
        provider=standin,
        n_gives=None,
        n_players=n_players,
        n_rounds=2,
    )
    _check_events(seq.events)
    types = [e["type"] for e in seq.events]
    gives_per_round = n_players * (n_players - 1) * (2 if n_players == 3 else 1)
    one_round = (
        ["reveal"] * n_players
        + ["give"] * gives_per_round
        + ["random"] * n_players
        + ["rank"] * n_players
    )
    assert types == ["start", *one_round, *one_round]
    state = api.replay(seq.events)
    assert state.summary()["round"] == 3
    assert sum(state.scores().values()) > 0
    # each ranking is the player's whole stack: the cards given to them and their random card
    for rank in (e for e in seq.events if e["type"] == "rank"):
        p = rank["player"]
        start = max(
            i
            for i, e in enumerate(seq.events)
            if e["type"] == "reveal" and e["player"] == p and e["t"] < rank["t"]
        )
        got = {
            e["card"]
            for e in seq.events[start:]
            if e["type"] in ("give", "random") and e.get("to") == p and e["t"] < rank["t"]
        }
        assert set(rank["order"]) == got


def test_pickpic_session_follows_the_called_order(standin: StandInTextures) -> None:
    from engine.pickpic import give_calls

    seq = render_sequence(
        "pickpic_round", 2, "easy", provider=standin, n_gives=None, n_players=4, n_rounds=1
    )
    gives = [(e["from"], e["to"]) for e in seq.events if e["type"] == "give"]
    assert gives == give_calls(["A", "B", "C", "D"])


def test_pickpic_rankings_lie_at_increasing_distance(standin: StandInTextures) -> None:
    """The last frame before each rank event shows the row: every card face up, in view,
    and each further from the photo than the last (in the image too)."""
    seq = render_sequence(
        "pickpic_round",
        7,
        "normal",
        fps=4.0,
        provider=standin,
        n_gives=None,
        n_players=3,
        n_rounds=1,
    )
    ranks = {e["t"]: e for e in seq.events if e["type"] == "rank"}
    refs = {e["player"]: e["card"] for e in seq.events if e["type"] == "reveal"}
    checked = 0
    for f in seq:
        due = [t for t in ranks if f.t <= t < f.t + 0.25]
        for t in due:
            rank = ranks[t]
            cards = {c.card_id: c for c in f.truth.cards}
            ref = cards[refs[rank["player"]]].corners_px.mean(axis=0)
            d = [
                float(np.linalg.norm(cards[c].corners_px.mean(axis=0) - ref)) for c in rank["order"]
            ]
            assert all(b > a for a, b in itertools.pairwise(d)), d
            for c in rank["order"]:
                assert cards[c].face == "front" and cards[c].visible_fraction > 0.95
            checked += 1
    assert checked == 3


def test_picflip_game_is_a_whole_game(standin: StandInTextures) -> None:
    api = pytest.importorskip("engine.api")
    for seed in range(4):
        seq = render_sequence("picflip_game", seed, "normal", provider=standin, n_players=4)
        _check_events(seq.events)
        state = api.replay(seq.events)
        summary = state.summary()
        assert summary["finished"] and len(summary["winners"]) == 1
        assert summary["cards_left"][summary["winners"][0]] == 0


def test_session_arguments_are_checked(standin: StandInTextures) -> None:
    with pytest.raises(ValueError, match="3 to 5 players"):
        render_sequence("pickpic_round", 0, provider=standin, n_gives=None, n_players=6)
    with pytest.raises(ValueError, match="n_rounds"):
        render_sequence("pickpic_round", 0, provider=standin, n_gives=None, n_rounds=0)
    with pytest.raises(ValueError, match="2 to 6 players"):
        render_sequence("picflip_game", 0, provider=standin, n_players=1)


def test_pickpic_gives_out_of_turn_are_a_reordering(standin: StandInTextures) -> None:
    from collections import Counter

    from engine.pickpic import give_calls

    api = pytest.importorskip("engine.api")
    seq = render_sequence(
        "pickpic_session", 4, "normal", provider=standin, n_players=4, n_rounds=1, out_of_turn=0.4
    )
    gives = [(e["from"], e["to"]) for e in seq.events if e["type"] == "give"]
    calls = give_calls(["A", "B", "C", "D"])
    assert Counter(gives) == Counter(calls) and gives != calls
    api.replay(seq.events)
