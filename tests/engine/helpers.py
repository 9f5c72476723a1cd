"""Helpers of the engine suite: building logs, expecting errors, running the real CLI."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import EngineError, State
from engine.errors import quote
from engine.rules import ALL

REPO = Path(engine.__file__).resolve().parents[1]
GAMES_DIR = Path(__file__).resolve().parents[1] / "data" / "games"

# CONTRACTS 2: the fields `pictable replay --json` promises, plus cards_left for Pic Flip.
CONTRACT_FIELDS = ("game", "players", "scores", "finished", "winners")

Obj = dict[str, Any]


def contract_view(summary: dict[str, Any]) -> dict[str, Any]:
    """The part of a summary CONTRACTS 2 promises (the rest is free to change)."""
    keys = [*CONTRACT_FIELDS, *(["cards_left"] if summary.get("game") == "picflip" else [])]
    return {k: summary[k] for k in keys}


def run(log: Sequence[Obj]) -> State:
    """The state a log of raw objects leads to, event by event."""
    state = engine.start(log[0])
    for obj in log[1:]:
        state = engine.apply_raw(state, obj)
    return state


def rule_ids_in(text: str) -> list[str]:
    """The rule ids of ``engine.rules.ALL`` that ``text`` names as ``[id: ...`` or ``; id:``."""
    return [rid for rid in ALL if f"[{rid}:" in text or f"; {rid}:" in text]


def check_error(exc: EngineError, rule_id: str | None = None) -> None:
    """An engine error quotes its event and names a rule (``rule_id`` when given)."""
    text = str(exc)
    assert exc.rule, f"no rule named: {text}"
    first = exc.rule.split(":", 1)[0]
    assert first in ALL, f"{first!r} is not a rule id: {text}"
    assert rule_ids_in(text), text
    if exc.event is not None:
        assert quote(exc.event) in text, text
    if rule_id is not None:
        assert rule_id in ALL, f"the test names an unknown rule {rule_id!r}"
        assert f"{rule_id}:" in exc.rule, f"expected rule {rule_id}, got: {text}"


def expect_error(
    state: State,
    obj: Any,
    rule_id: str,
    cls: type[EngineError] = engine.IllegalEvent,
) -> EngineError:
    """``apply_raw(state, obj)`` raises exactly ``cls`` naming ``rule_id``, quotes ``obj``,
    and leaves ``state`` as it was."""
    before = copy.deepcopy(state)
    summary = state.summary()
    with pytest.raises(EngineError) as info:
        engine.apply_raw(state, obj)
    assert type(info.value) is cls, f"expected {cls.__name__}, got {info.value!r}"
    check_error(info.value, rule_id)
    assert state == before
    assert state.summary() == summary
    return info.value


def expect_start_error(
    obj: Any, rule_id: str, cls: type[EngineError] = engine.InvalidEvent
) -> EngineError:
    with pytest.raises(EngineError) as info:
        engine.start(obj)
    assert type(info.value) is cls, f"expected {cls.__name__}, got {info.value!r}"
    check_error(info.value, rule_id)
    return info.value


# Pick Pic logs. Card ids say where a card comes from: "R1-A" is A's reference in round 1,
# "1:B>A" the card B gave A (".2" for the second one with 3 players), "1:?A" A's random card.


def pp_start(players: Sequence[str] = ("A", "B", "C", "D"), **options: Any) -> Obj:
    return {"type": "start", "game": "pickpic", "players": list(players), **options}


def pp_per(players: Sequence[str]) -> int:
    return 2 if len(players) == 3 else 1


def pp_card(giver: str, to: str, k: int = 1, rnd: int = 1) -> str:
    return f"{rnd}:{giver}>{to}" + (f".{k}" if k > 1 else "")


def pp_random(player: str, rnd: int = 1) -> str:
    return f"{rnd}:?{player}"


def pp_reveals(players: Sequence[str], rnd: int = 1) -> list[Obj]:
    return [{"type": "reveal", "player": p, "card": f"R{rnd}-{p}"} for p in players]


def pp_gives(players: Sequence[str], rnd: int = 1) -> list[Obj]:
    return [
        {"type": "give", "from": g, "to": t, "card": pp_card(g, t, k, rnd)}
        for g in players
        for t in players
        if t != g
        for k in range(1, pp_per(players) + 1)
    ]


def pp_randoms(players: Sequence[str], rnd: int = 1) -> list[Obj]:
    return [{"type": "random", "to": p, "card": pp_random(p, rnd)} for p in players]


def pp_stack(players: Sequence[str], player: str, rnd: int = 1) -> list[str]:
    """``player``'s stack, the givers in seating order from the player's left neighbour
    (so that in a round of ``pp_round`` each player gets one first-card bonus), the random
    card last."""
    i = list(players).index(player)
    givers = [*players[i + 1 :], *players[:i]]
    given = [pp_card(g, player, k, rnd) for g in givers for k in range(1, pp_per(players) + 1)]
    return [*given, pp_random(player, rnd)]


def pp_rank(player: str, order: Iterable[str]) -> Obj:
    return {"type": "rank", "player": player, "order": list(order)}


def pp_round(
    players: Sequence[str], orders: dict[str, Sequence[str]] | None = None, rnd: int = 1
) -> list[Obj]:
    """A whole round; each player ranks ``orders[p]`` or else their stack as dealt (random
    last, so every given card scores)."""
    orders = orders or {}
    ranks = [pp_rank(p, orders.get(p, pp_stack(players, p, rnd))) for p in players]
    return [*pp_reveals(players, rnd), *pp_gives(players, rnd), *pp_randoms(players, rnd), *ranks]


def pp_until_rank(players: Sequence[str], rnd: int = 1) -> list[Obj]:
    return [*pp_reveals(players, rnd), *pp_gives(players, rnd), *pp_randoms(players, rnd)]


# The other games' start lines.


def picasso_start(players: Sequence[str] = ("A", "B", "C"), **options: Any) -> Obj:
    return {"type": "start", "game": "picasso", "players": list(players), **options}


def picmix_start(players: Sequence[str] = ("A", "B", "C"), **options: Any) -> Obj:
    return {"type": "start", "game": "picmix", "players": list(players), **options}


def picflip_start(players: Sequence[str] = ("A", "B"), **options: Any) -> Obj:
    return {"type": "start", "game": "picflip", "players": list(players), **options}


def build(**pieces: int) -> Obj:
    return {"type": "build", "pieces": pieces}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m pictable ARGS`` in a subprocess, from the repository root."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONIOENCODING"] = "utf-8"
    proc = subprocess.run(
        [sys.executable, "-m", "pictable", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
    return proc


def write_log(path: Path, log: Sequence[Any]) -> Path:
    path.write_text("".join(json.dumps(obj) + "\n" for obj in log), encoding="utf-8")
    return path
