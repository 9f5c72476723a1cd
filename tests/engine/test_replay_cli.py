"""``pictable replay LOG [--json]`` as CONTRACTS.md section 2 describes it, run as the real
command (``python -m pictable``) in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine

from .helpers import GAMES_DIR, REPO, cli, contract_view, run, write_log

NO_GAME = {"game": None, "players": [], "scores": {}, "finished": False, "winners": []}

SMALL = {
    "pickpic": [
        {"type": "start", "game": "pickpic", "players": ["A", "B", "C"]},
        {"type": "reveal", "player": "A", "card": "x"},
        {"type": "reveal", "player": "B", "card": "y"},
    ],
    "picasso": [
        {"type": "start", "game": "picasso", "players": ["Ann", "Ben"]},
        {"type": "draw", "player": "Ann", "card": "cat"},
        {"type": "build", "pieces": {"shape": 1, "long_stick": 4}},
        {"type": "guess", "player": "Ben"},
    ],
    "picmix": [
        {"type": "start", "game": "picmix", "players": ["Ann", "Ben"]},
        {"type": "reveal", "card": "o1", "items": ["a", "b", "c"]},
        {"type": "claim", "player": "Ben", "visible": ["c", "b", "a"]},
    ],
    "picflip": [
        {"type": "start", "game": "picflip", "players": ["Ann", "Ben", "Cy"]},
        {"type": "lead", "player": "Cy", "card": "c1"},
        {"type": "describe", "player": "Cy", "phrase": "red"},
    ],
}
# A bad line for each game, illegal in the state SMALL leads to, and the rule it breaks.
BAD = {
    "pickpic": ({"type": "give", "from": "A", "to": "B", "card": "z"}, "pickpic.round_order"),
    "picasso": ({"type": "draw", "player": "Ann", "card": "dog"}, "picasso.turn"),
    "picmix": ({"type": "claim", "player": "Ann", "visible": ["a"]}, "picmix.claim.when"),
    "picflip": ({"type": "describe", "player": "Ann", "phrase": "blue"}, "picflip.describe"),
}


def replay_json(path: Path) -> tuple[int, dict[str, Any], str]:
    proc = cli("replay", str(path), "--json")
    assert "Traceback" not in proc.stderr, proc.stderr
    # One JSON object on one line (split at "\n" only: U+2028 in an id is not a line end).
    assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1, proc.stdout
    return proc.returncode, json.loads(proc.stdout), proc.stderr


def one_error_line(stderr: str, path: Path, line: int, rule_id: str) -> None:
    """stderr is ``LOG:LINE: reason``, the reason naming the rule."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"{path}:{line}: "), stderr
    assert f"{rule_id}:" in lines[0], stderr


@pytest.mark.parametrize("game", sorted(SMALL))
def test_json_fields(game: str, tmp_path: Path) -> None:
    """Exit 0 and one JSON object with game, players, scores (player -> int), finished
    (bool), winners (list; empty until finished), plus cards_left for Pic Flip."""
    path = write_log(tmp_path / f"{game}.jsonl", SMALL[game])
    code, summary, stderr = replay_json(path)
    assert code == 0, stderr
    assert stderr == ""
    assert summary["game"] == game
    assert summary["players"] == SMALL[game][0]["players"]
    assert list(summary["scores"]) == summary["players"]
    assert all(type(v) is int for v in summary["scores"].values())
    assert type(summary["finished"]) is bool
    assert isinstance(summary["winners"], list)
    assert set(summary["winners"]) <= set(summary["players"])
    if not summary["finished"]:
        assert summary["winners"] == []
    if game == "picflip":
        assert summary["cards_left"] == {"Ann": 35, "Ben": 34, "Cy": 33}
    assert contract_view(summary) == contract_view(run(SMALL[game]).summary())


@pytest.mark.parametrize("game", sorted(SMALL))
def test_a_bad_line_exits_2_with_the_state_before_it(game: str, tmp_path: Path) -> None:
    """At the first illegal line: exit 2, ``LOG:LINE: reason`` naming the rule on stderr, and
    on stdout the state as it stood before that line; later lines are not read."""
    bad, rule_id = BAD[game]
    good = SMALL[game]
    later = {"type": "what", "is": "this"}
    path = write_log(tmp_path / "bad.jsonl", [*good, bad, later])
    code, summary, stderr = replay_json(path)
    assert code == 2
    one_error_line(stderr, path, len(good) + 1, rule_id)
    assert summary == run(good).summary()


def test_the_text_view_also_exits_2(tmp_path: Path) -> None:
    """Without --json the exit status and stderr are the same."""
    bad, rule_id = BAD["picasso"]
    path = write_log(tmp_path / "bad.jsonl", [*SMALL["picasso"], bad])
    proc = cli("replay", str(path))
    assert proc.returncode == 2
    one_error_line(proc.stderr, path, 5, rule_id)
    assert "Ann" in proc.stdout


@pytest.mark.parametrize(
    "first",
    [
        {"type": "reveal", "player": "A", "card": "x"},
        {"type": "start", "game": "chess", "players": ["A", "B"]},
        {"type": "start", "game": "pickpic", "players": ["A", "B"]},
        {"type": "start", "game": "picflip", "players": ["A", "B"], "deck": 4},
    ],
    ids=["not-start", "unknown-game", "too-few-players", "unknown-option"],
)
def test_a_bad_first_line(first: dict[str, Any], tmp_path: Path) -> None:
    """A first line that is not a good start: exit 2 at line 1, and no game on stdout."""
    path = write_log(tmp_path / "first.jsonl", [first, SMALL["pickpic"][1]])
    code, summary, stderr = replay_json(path)
    assert code == 2
    assert stderr.startswith(f"{path}:1: ")
    with pytest.raises(engine.EngineError) as info:
        engine.start(first)
    assert info.value.rule.split(":")[0] + ":" in stderr
    assert summary == NO_GAME


@pytest.mark.parametrize("content", [b"", b"\n", b"\n  \n\t\n"], ids=["empty", "newline", "blank"])
def test_an_empty_log(content: bytes, tmp_path: Path) -> None:
    """A log without a line: exit 2 naming the start rule, no game on stdout."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    code, summary, stderr = replay_json(path)
    assert code == 2
    assert stderr.startswith(f"{path}:")
    assert "log.start_first:" in stderr
    assert summary == NO_GAME


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_a_log_that_cannot_be_read(kind: str, tmp_path: Path) -> None:
    """A missing file (or a folder): exit 2, stderr names the file, no traceback."""
    path = tmp_path / "nope.jsonl" if kind == "missing" else tmp_path
    code, summary, stderr = replay_json(path)
    assert code == 2
    assert str(path) in stderr
    assert summary == NO_GAME


@pytest.mark.parametrize(
    "line",
    [b"{not json}", b'{"type": "reveal", "player": "A"', b"reveal A x", b"[1, 2", b"\x00"],
)
def test_invalid_json(line: bytes, tmp_path: Path) -> None:
    """A line that is not JSON: exit 2 at that line (log.object), the state before it."""
    path = tmp_path / "junk.jsonl"
    good = SMALL["pickpic"][:2]
    path.write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in good) + line + b"\n")
    code, summary, stderr = replay_json(path)
    assert code == 2
    one_error_line(stderr, path, 3, "log.object")
    assert summary == run(good).summary()


@pytest.mark.parametrize(
    "junk", [b"\xff\xfe", b'{"type": "reveal", "player": "\xe9", "card": "x"}']
)
def test_non_utf8_bytes(junk: bytes, tmp_path: Path) -> None:
    """A line that is not UTF-8: exit 2 at that line, the state before it."""
    path = tmp_path / "latin1.jsonl"
    good = SMALL["picmix"][:2]
    path.write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in good) + junk + b"\n")
    code, summary, stderr = replay_json(path)
    assert code == 2
    assert stderr.startswith(f"{path}:3: ")
    assert "log.object:" in stderr
    assert summary == run(good).summary()


def test_blank_lines_are_skipped_and_still_counted(tmp_path: Path) -> None:
    """Blank and whitespace-only lines are skipped; line numbers count them."""
    log = SMALL["picflip"]
    # Lines: 1 blank, 2 start, 3 blank, 4 spaces, 5 lead, 6 tab, 7 describe, 8 blank.
    text = "\n" + json.dumps(log[0]) + "\n\n   \n" + json.dumps(log[1]) + "\n\t\n"
    text += json.dumps(log[2]) + "\n\n"
    good = tmp_path / "blank.jsonl"
    good.write_text(text, encoding="utf-8")
    code, summary, stderr = replay_json(good)
    assert code == 0, stderr
    assert summary == run(log).summary()
    bad = tmp_path / "blank-bad.jsonl"
    bad.write_text(text + json.dumps(BAD["picflip"][0]) + "\n", encoding="utf-8")
    code, summary, stderr = replay_json(bad)
    assert code == 2
    one_error_line(stderr, bad, 9, "picflip.describe")
    assert summary == run(log).summary()


def test_crlf_and_unicode(tmp_path: Path) -> None:
    """Windows line endings, no newline at the end, and ids with any Unicode (a line
    separator included) replay like the plain log."""
    log = [
        {"type": "start", "game": "picmix", "players": ["Zoë", "李"]},
        {"type": "reveal", "card": "o\u2028 1", "items": ["☀", "🚗", "dog"]},
        {"type": "claim", "player": "李", "visible": ["dog", "🚗", "☀"]},
    ]
    path = tmp_path / "crlf.jsonl"
    path.write_bytes("\r\n".join(json.dumps(o, ensure_ascii=False) for o in log).encode("utf-8"))
    code, summary, stderr = replay_json(path)
    assert code == 0, stderr
    assert summary["scores"] == {"Zoë": 0, "李": 1}


def test_events_after_the_finish(tmp_path: Path) -> None:
    """An event after the end: exit 2 naming log.finished, the finished state on stdout."""
    src = GAMES_DIR / "picmix-variant.jsonl"
    log = [json.loads(x) for x in src.read_text("utf-8").splitlines()]
    path = write_log(
        tmp_path / "after.jsonl", [*log, {"type": "reveal", "card": "v9", "items": ["a", "b", "c"]}]
    )
    code, summary, stderr = replay_json(path)
    assert code == 2
    one_error_line(stderr, path, len(log) + 1, "log.finished")
    assert summary["finished"] is True
    assert summary["winners"] == ["Noa"]


def test_a_line_nested_too_deeply(tmp_path: Path) -> None:
    """A line too deeply nested for the JSON parser is a bad line, not a crash."""
    path = tmp_path / "deep.jsonl"
    deep = '{"type": "reveal", "card": "o", "items": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text(json.dumps(SMALL["picmix"][0]) + "\n" + deep + "\n", encoding="utf-8")
    code, summary, stderr = replay_json(path)
    assert code == 2
    assert stderr.startswith(f"{path}:2: ")
    assert summary == run(SMALL["picmix"][:1]).summary()
    assert summary == run(SMALL["picmix"][:1]).summary()


def test_a_line_with_a_huge_number(tmp_path: Path) -> None:
    """A number with 5000 digits is valid JSON the engine cannot take: exit 2 at its line."""
    path = tmp_path / "huge.jsonl"
    huge = '{"type": "reveal", "card": "o", "items": ["a", "b", "c"], "t": ' + "9" * 5000 + "}"
    path.write_text(json.dumps(SMALL["picmix"][0]) + "\n" + huge + "\n", encoding="utf-8")
    code, summary, stderr = replay_json(path)
    assert code == 2
    assert stderr.startswith(f"{path}:2: ")
    assert summary == run(SMALL["picmix"][:1]).summary()


def test_a_line_with_a_huge_t(tmp_path: Path) -> None:
    """ "t": a 400-digit integer is not a usable number of seconds: exit 2 naming log.t."""
    path = tmp_path / "huge-t.jsonl"
    huge = '{"type": "reveal", "card": "o", "items": ["a", "b", "c"], "t": ' + "9" * 400 + "}"
    path.write_text(json.dumps(SMALL["picmix"][0]) + "\n" + huge + "\n", encoding="utf-8")
    code, summary, stderr = replay_json(path)
    assert code == 2
    one_error_line(stderr, path, 2, "log.t")
    assert summary == run(SMALL["picmix"][:1]).summary()


# --- issue 23: strings that are not text, options beyond any game, writers that never crash --

LONE_START = '{"type": "start", "game": "picasso", "players": ["\\ud800", "Ben"]}'


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_player_name_that_is_not_text(as_json: bool, tmp_path: Path) -> None:
    """A lone surrogate as a player name ("\\ud800" in the JSON) is a bad log like any other:
    ``LOG:1: reason`` naming log.text on stderr and exit 2, with and without --json (it was a
    UnicodeEncodeError traceback and exit 1)."""
    path = tmp_path / "lone.jsonl"
    path.write_text(LONE_START + "\n", encoding="ascii")
    proc = cli("replay", str(path), *(["--json"] if as_json else []))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2
    one_error_line(proc.stderr, path, 1, "log.text")
    assert "a player name must be valid text" in proc.stderr
    assert "\\ud800" in proc.stderr
    if as_json:
        assert json.loads(proc.stdout) == NO_GAME
    else:
        assert proc.stdout.strip() == "no game started"


def test_a_card_that_is_not_text_later_in_the_log(tmp_path: Path) -> None:
    """On a later line: exit 2 at that line, and the state before it on stdout."""
    path = tmp_path / "lone-card.jsonl"
    good = SMALL["picasso"][:1]
    bad = '{"type": "draw", "player": "Ann", "card": "c\\udc80t"}'
    path.write_text(json.dumps(good[0]) + "\n" + bad + "\n", encoding="ascii")
    code, summary, stderr = replay_json(path)
    assert code == 2
    one_error_line(stderr, path, 2, "log.text")
    assert "a card id must be valid text" in stderr
    assert summary == run(good).summary()


def test_a_huge_option_is_refused_naming_its_bound(tmp_path: Path) -> None:
    """ "cards_per_player": 99999999999999999999999999999 was taken (a game of 10**29 turns)."""
    path = write_log(
        tmp_path / "huge-option.jsonl",
        [{**SMALL["picasso"][0], "cards_per_player": 99999999999999999999999999999}],
    )
    code, summary, stderr = replay_json(path)
    assert code == 2
    one_error_line(stderr, path, 1, "picasso.cards_per_player.max")
    assert 'option "cards_per_player" must be at most 100' in stderr
    assert summary == NO_GAME


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_terminal_that_is_not_utf8_gets_the_output(as_json: bool, tmp_path: Path) -> None:
    """Names the terminal cannot show (stdout in ASCII) do not end the command with a
    traceback: the JSON comes in ASCII escapes (the same value), the text view with
    backslash escapes."""
    log = [{"type": "start", "game": "picmix", "players": ["Zoë", "李"]}]
    path = write_log(tmp_path / "names.jsonl", log)
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "pictable", "replay", str(path), *(["--json"] if as_json else [])],
        cwd=REPO,
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 0
    if as_json:
        assert json.loads(proc.stdout)["players"] == ["Zoë", "李"]
    else:
        assert b"Zo\\xeb" in proc.stdout and b"\\u674e" in proc.stdout
