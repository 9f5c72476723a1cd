"""``docs/formats.md`` stays honest: every event type the engine knows is described, the
options table holds the engine's defaults and bounds, and every key the commands print in a
sample run (replay, the photo commands, sessions, the scoreboard state) is named in it; the
help texts point to it."""

from __future__ import annotations

import argparse
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import engine
from engine import EngineError, EventKind
from pictable.cli import build_parser, main
from pictable.scoreboard import Scoreboard

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")


def named(key: str) -> bool:
    """Whether the document names ``key`` as code or as a JSON string."""
    return re.search(rf"[`\"]{re.escape(key)}[`\"]", DOC) is not None


def keys_of(value: Any, skip: frozenset[str] = frozenset()) -> set[str]:
    """The keys of a JSON value, nested objects and lists of objects included; the objects
    under ``skip`` keys are keyed by data (players, cards), not by names."""
    out: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            out.add(key)
            if key not in skip:
                out |= keys_of(item, skip)
    elif isinstance(value, list):
        for item in value:
            out |= keys_of(item, skip)
    return out


def missing(keys: set[str]) -> list[str]:
    return sorted(k for k in keys if not named(k))


def example(game: str) -> list[dict[str, Any]]:
    text = resources.files("pictable").joinpath("examples", f"{game}.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# --- section 1: events and options -----------------------------------------------------------


@pytest.mark.parametrize("kind", [k.value for k in EventKind])
def test_every_event_type_is_described(kind: str) -> None:
    assert f"`{kind}`" in DOC, f"event type {kind!r} is not in docs/formats.md"


def test_every_game_is_described() -> None:
    for game in engine.GameKind:
        assert f"(`{game.value}`)" in DOC, game


OPTION_ROW = re.compile(r"^\| `(\w+)` \| `(\w+)`( \([^)]*\))? \| ([^|]+) \| ([^|]+) \|$", re.M)


def _start(game: str, option: str, value: Any) -> dict[str, Any]:
    players = ["A", "B", "C", "D"] if game == "pickpic" else ["A", "B"]
    if option == "kit":
        value = {"long_stick": value}
    elif option == "hands":
        value = {"A": value, "B": 1}
    return {"type": "start", "game": game, "players": players, option: value}


def _taken(obj: dict[str, Any]) -> bool:
    try:
        engine.start(obj)
    except EngineError:
        return False
    return True


def test_the_options_table_holds_the_engines_bounds_and_defaults() -> None:
    rows = OPTION_ROW.findall(DOC)
    assert {(g, o) for g, o, *_ in rows} == {
        ("pickpic", "target"),
        ("picasso", "cards_per_player"),
        ("picasso", "kit"),
        ("picmix", "target"),
        ("picflip", "deck_size"),
        ("picflip", "hands"),
    }
    for game, option, _, default, accepted in rows:
        if option == "hands":
            assert accepted.strip() == "each at least 1, 104 in all at most"
            assert _taken(_start(game, option, 103)) and not _taken(_start(game, option, 104))
            assert not _taken(_start(game, option, 0))
            continue
        bounds = re.search(r"(\d+) to (\d+)", accepted)
        assert bounds is not None, accepted
        low, high = int(bounds[1]), int(bounds[2])
        if option == "deck_size":  # the deal needs a card for each of the two players
            assert accepted.strip().endswith("at least a card for each player")
            assert not _taken(_start(game, option, 1)) and _taken(_start(game, option, 2))
            low = 2
        assert _taken(_start(game, option, low)) and _taken(_start(game, option, high))
        assert not _taken(_start(game, option, low - 1)), (game, option, low - 1)
        assert not _taken(_start(game, option, high + 1)), (game, option, high + 1)
        if default.strip().isdigit():
            summary = engine.start(_start(game, option, low)).summary()  # the option's effect
            plain = {"type": "start", "game": game, "players": _start(game, option, low)["players"]}
            got = engine.start(plain).summary()
            value = int(default)
            if option == "target":
                assert got["target"] == value and summary["target"] == low
            elif option == "cards_per_player":
                assert got["turns"] == value * len(plain["players"])
            elif option == "deck_size":
                assert sum(got["cards_left"].values()) == value
                assert sum(summary["cards_left"].values()) == low
    assert '`{"long_stick": 5, "short_stick": 5, "string": 1, "shape": null}`' in DOC


# --- section 2: replay -----------------------------------------------------------------------

PLAYER_KEYED = frozenset(
    {"scores", "points", "cards_held", "won", "cards_left", "last_round_points"}
)


@pytest.mark.parametrize("game", [g.value for g in engine.GameKind])
def test_every_key_of_the_replay_output_is_named(game: str) -> None:
    log = example(game)
    keys: set[str] = set()
    for n in range(1, len(log) + 1):  # the state along the way: the open turn, the top card
        keys |= keys_of(engine.replay(log[:n]).summary(), PLAYER_KEYED)
    assert not missing(keys), f"replay --json keys not in docs/formats.md: {missing(keys)}"


# --- section 3: the photo commands -----------------------------------------------------------


def _json_of(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    main(list(argv))
    return json.loads(capsys.readouterr().out)


def test_every_key_of_decode_and_identify_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.codes.helpers import qr_image
    from vision.kit.render import render_face_readonly

    qr = tmp_path / "qr.png"
    cv2.imwrite(str(qr), qr_image("PT1:PICKPIC-007:B", scale=5))
    card = render_face_readonly("pickpic-007", "back", 4.0)
    table = np.full((card.shape[0] + 200, card.shape[1] + 200, 3), (90, 120, 150), np.uint8)
    table[100 : 100 + card.shape[0], 100 : 100 + card.shape[1]] = card
    shot = tmp_path / "card.png"
    cv2.imwrite(str(shot), table)
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")

    decoded = _json_of(capsys, "decode", str(qr), str(broken), "--json")
    assert decoded["images"][0]["codes"], decoded
    identified = _json_of(capsys, "identify", str(shot), "--json")
    assert identified["images"][0]["cards"], identified
    keys = keys_of(decoded) | keys_of(identified)
    assert {"error", "codes", "cards", "evidence"} <= keys
    assert not missing(keys), missing(keys)


def test_every_key_of_verify_is_named() -> None:
    from vision.picmix.reading import ItemSighting, PicmixFailure, PicmixReading

    sighting = ItemSighting(
        item="moon",
        box_xywh=(1, 2, 3, 4),
        visible_share=0.9,
        look_share=0.9,
        confidence=0.99,
        runner_up="key",
        status="visible",
        on="player",
    )
    reading = PicmixReading(
        objective_card="picmix-obj-01",
        objective_items=("flower", "lightning", "moon"),
        objective_method="code",
        objective_quad_px=None,
        visible=("moon",),
        unsure=(),
        verdict="wrong",
        missing=("flower", "lightning"),
        extra=(),
        sightings=(sighting,),
    )
    keys = keys_of(reading.to_json()) | keys_of(PicmixFailure("why", covered=True).to_json())
    assert not missing(keys), missing(keys)


def test_every_key_of_analyze_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.picasso.helpers import board_scene, scene_a
    from vision.synth import StandInTextures, render_scene

    frame, _ = render_scene(
        board_scene(scene_a(), seed=5, tier="normal"), seed=5, provider=StandInTextures()
    )
    board = tmp_path / "board.png"
    cv2.imwrite(str(board), frame)
    out = _json_of(
        capsys, "analyze", "picasso", str(board), "--json", "--annotate", str(tmp_path / "a")
    )
    entry = out["images"][0]
    assert {"shape", "string", "long_stick"} <= {p["kind"] for p in entry["pieces"]}, entry
    assert not missing(keys_of(out, frozenset({"counts"}))), missing(keys_of(out))


# --- section 4: sessions and the scoreboard ---------------------------------------------------


def test_every_key_of_the_sessions_output_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    db = str(tmp_path / "s.db")
    log = example("picasso")
    lines = "".join(json.dumps(e) + "\n" for e in log[1:4]) + '{"type": "draw"}\n'
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(lines.encode())))
    main(["sessions", "new", "--db", db, "--start", json.dumps(log[0]), "--stdin"])
    state_line = json.loads(capsys.readouterr().out.splitlines()[1])
    listed = _json_of(capsys, "sessions", "list", "--db", db, "--json")
    shown = _json_of(capsys, "sessions", "show", "1", "--db", db, "--json")
    keys = keys_of(state_line, PLAYER_KEYED) | keys_of(listed, PLAYER_KEYED)
    keys |= keys_of(shown, PLAYER_KEYED)
    assert {"received", "session", "rejected"} <= keys
    assert not missing(keys), missing(keys)


def test_every_key_of_the_scoreboard_state_is_named() -> None:
    log = example("picasso")
    board = Scoreboard()  # not started: its state is all this needs
    board.publish(engine.replay(log[:3]).summary(), log[:3], {"banner": "GO!"})
    keys = keys_of(board.state(), PLAYER_KEYED)
    assert {"ranking", "turn", "events", "extra", "cost"} <= keys
    assert not missing(keys), missing(keys)


# --- pointers --------------------------------------------------------------------------------


def _helps() -> dict[str, str]:
    """Every command's --help text, by its command line (``"pictable sessions new"``)."""
    out: dict[str, str] = {}

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        out[path] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")

    walk(build_parser(), "pictable")
    return out


def test_help_texts_point_to_the_formats_not_elsewhere() -> None:
    helps = _helps()
    mine = ("pictable replay", "pictable sessions new", "pictable sessions export")
    for path in mine:
        assert "docs/formats.md" in helps[path], path
    for path in ("pictable replay", "pictable sessions", "pictable verify picmix"):
        assert "CONTRACTS" not in helps[path], path
