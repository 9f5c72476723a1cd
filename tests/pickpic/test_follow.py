"""PickPicFollower's logic, with a stand-in card reader (what each frame shows is scripted)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import engine
import vision.pickpic.follow as follow
from tests.pickpic.fake import BLANK, Clock, Table
from vision.pickpic.calls import give_calls
from vision.pickpic.follow import PickPicFollower

PLAYERS = ["A", "B", "C"]


def _ref_place(i: int, n: int) -> tuple[float, float]:
    a = math.radians(90.0 + 360.0 * i / n)
    return (640.0 + 480.0 * math.cos(a), 360.0 + 270.0 * math.sin(a))


def _plain(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in ("t", "meta")} for e in events]


def play_round(
    table: Table,
    clock: Clock,
    players: list[str],
    rnd: int,
    *,
    gives: list[tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Scripts one round on the stand-in table; returns its true events."""
    n = len(players)
    truth: list[dict[str, Any]] = []
    refs = {p: _ref_place(i, n) for i, p in enumerate(players)}
    for p in players:
        card = f"ref-{rnd}-{p}"
        table.put(card, "up", refs[p])
        clock.run(1.0)
        truth.append({"type": "reveal", "player": p, "card": card})
    stacks: dict[str, list[str]] = {p: [] for p in players}
    for k, (g, q) in enumerate(gives or give_calls(players)):
        card = f"give-{rnd}-{k}"
        x, y = refs[q]
        table.put(card, "down", (x + 80 + 20 * len(stacks[q]), y))
        stacks[q].append(card)
        clock.run(1.0)
        truth.append({"type": "give", "from": g, "to": q, "card": card})
    for p in players:
        card = f"random-{rnd}-{p}"
        x, y = refs[p]
        table.put(card, "down", (x + 80 + 20 * len(stacks[p]), y))
        stacks[p].append(card)
        clock.run(1.0)
        truth.append({"type": "random", "to": p, "card": card})
    for i, p in enumerate(players):
        order = stacks[p][::-1] if i % 2 else stacks[p][1:] + stacks[p][:1]
        for c in stacks[p]:
            table.take(c)
        clock.run(0.5)
        x, y = refs[p]
        towards = (640 - x, 360 - y)
        norm = math.hypot(*towards)
        for k, c in enumerate(order):
            d = 100.0 + 70.0 * k
            table.put(c, "up", (x + towards[0] / norm * d, y + towards[1] / norm * d))
            clock.run(0.75)
        clock.run(0.5)
        truth.append({"type": "rank", "player": p, "order": order})
        for c in [*order, f"ref-{rnd}-{p}"]:
            table.take(c)
        clock.run(0.5)
    return truth


@pytest.mark.parametrize("players", [PLAYERS, ["A", "B", "C", "D"], list("ABCDE")])
def test_called_rounds_give_the_true_log(players: list[str], monkeypatch: Any) -> None:
    table = Table()
    table.install(monkeypatch, follow)
    f = PickPicFollower(players)
    clock = Clock(f)
    truth = [f.start_event()]
    for rnd in range(2):
        truth += play_round(table, clock, players, rnd)
    clock.events += f.finish(clock.t)
    assert _plain(clock.events) == _plain(truth)
    for e in clock.events[1:]:
        assert isinstance(e["t"], float) and e["meta"]["frames"] >= 2
        assert 0.0 <= e["meta"]["confidence"] <= 1.0
    assert engine.replay(clock.events).scores() == engine.replay(truth).scores()


def test_a_card_given_out_of_turn_is_named_by_the_side_it_came_from(monkeypatch: Any) -> None:
    table = Table()
    table.install(monkeypatch, follow)
    f = PickPicFollower(PLAYERS)
    clock = Clock(f)
    for i, p in enumerate(PLAYERS):
        table.put(f"ref-{p}", "up", _ref_place(i, 3))
        clock.run(1.0)
    # called: A gives to B. Instead B's card lands by A's photo (C also owes A one), and
    # B's arm was seen reaching in.
    x, y = _ref_place(0, 3)
    bx, by = _ref_place(1, 3)
    arm = [(x + 80 + (bx - x - 80) * k / 10, y + (by - y) * k / 10) for k in range(3, 8)]
    f.arms.add(clock.t - 0.5, np.array(arm, np.float32))
    table.put("g1", "down", (x + 80, y))
    out = clock.run(1.0)
    assert _plain(out) == [{"type": "give", "from": "B", "to": "A", "card": "g1"}]
    assert out[0]["meta"]["giver"] == "side"
    # the call is still A -> B; a card by C's photo with no arm seen: A or B owe C a card
    f.arms.history.clear()
    x, y = _ref_place(2, 3)
    table.put("g2", "down", (x + 80, y))
    out = clock.run(1.0)
    assert out[0]["to"] == "C" and out[0]["meta"]["ask"] == "giver"
    assert f.prompt() == "A: give a card face down to B"


def test_a_carried_card_does_not_count_until_it_lies_still(monkeypatch: Any) -> None:
    table = Table()
    table.install(monkeypatch, follow)
    f = PickPicFollower(PLAYERS)
    events = []
    for k in range(12):
        table.put("ref", "up", (100.0 + 40.0 * k, 600.0))
        events += f.update(BLANK, k * 0.25)
    assert events == []
    events += f.update(BLANK, 3.0) + f.update(BLANK, 3.25)
    assert _plain(events) == [{"type": "reveal", "player": "A", "card": "ref"}]


def test_prompts_walk_through_the_round(monkeypatch: Any) -> None:
    table = Table()
    table.install(monkeypatch, follow)
    f = PickPicFollower(PLAYERS)
    assert f.prompt() == "A: lay your reference photo face up in front of you"
    clock = Clock(f)
    for i, p in enumerate(PLAYERS):
        table.put(f"ref-{p}", "up", _ref_place(i, 3))
        clock.run(1.0)
    assert f.prompt() == "A: give a card face down to B"
    items = f.overlay()
    quads = [o for o in items if o["kind"] == "quad"]
    assert sorted(o["label"] for o in quads) == ["A's photo", "B's photo", "C's photo"]
    assert all(len(o["corners_px"]) == 4 for o in quads)
    assert items[-1] == {"kind": "text", "xy": [20.0, 30.0], "label": f.prompt()}


@pytest.mark.parametrize(
    ("players", "message"),
    [(["A", "B"], "3 to 5"), (list("ABCDEF"), "3 to 5"), (["A", "A", "B"], "distinct")],
)
def test_bad_players_are_refused(players: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PickPicFollower(players)


def test_frames_are_checked() -> None:
    f = PickPicFollower(PLAYERS)
    with pytest.raises(ValueError, match="frame"):
        f.update(BLANK[:, :, 0], 0.0)


def test_start_event_carries_the_target() -> None:
    assert PickPicFollower(PLAYERS, target=12).start_event() == {
        "type": "start",
        "game": "pickpic",
        "players": PLAYERS,
        "target": 12,
    }


def test_inputs_by_name_are_opened(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="nowhere"):
        PickPicFollower(PLAYERS, calibration=str(tmp_path / "nowhere.json"))


def test_a_hand_clearly_from_another_side_overrules_the_call(monkeypatch: Any) -> None:
    table = Table()
    table.install(monkeypatch, follow)
    players = ["A", "B", "C", "D"]
    f = PickPicFollower(players)
    clock = Clock(f)
    for i, p in enumerate(players):
        table.put(f"ref-{p}", "up", _ref_place(i, 4))
        clock.run(1.0)
    assert f.prompt() == "A: give a card face down to B"
    # the card lands by B's photo, but the arm comes from C's side (C owes B a card too)
    x, y = _ref_place(1, 4)
    cx, cy = _ref_place(2, 4)
    sx, sy = 2 * cx - 640, 2 * cy - 360  # towards C's seat, beyond C's photo
    arm = [(x + 80 + (sx - x - 80) * k / 10, y + (sy - y) * k / 10) for k in range(3, 7)]
    f.arms.add(clock.t - 0.5, np.array(arm, np.float32))
    table.put("g1", "down", (x + 80, y))
    out = clock.run(1.0)
    assert (out[0]["from"], out[0]["to"]) == ("C", "B")
    assert out[0]["meta"] == {**out[0]["meta"], "giver": "side, not called", "ask": "giver"}
    assert f.prompt() == "A: give a card face down to B"
