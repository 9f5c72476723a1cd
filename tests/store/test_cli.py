"""``pictable sessions``: new, resume (acks), list, export (replayable), show, undo, help."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

import engine
from pictable.cli import main

from .games import OUT_OF_TURN, PICASSO_EVENTS, PICASSO_FINAL_SCORES, PICASSO_START, line


def stdin_of(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def jsonl(objs: Sequence[object]) -> bytes:
    return "".join(line(obj) for obj in objs).encode()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_new_with_stdin_acknowledges_each_event(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    events = [PICASSO_EVENTS[0], OUT_OF_TURN, PICASSO_EVENTS[1]]
    stdin_of(monkeypatch, jsonl(events[:2]) + b"\n   \nnot json\n\xff\xfe\n" + jsonl(events[2:]))
    code, out, err = run(
        capsys, "sessions", "new", "--db", str(db), "--game", "picasso", "--players", "A, B",
        "--stdin",
    )  # fmt: skip
    assert (code, err) == (0, "")
    assert out[0] == "1"
    first = json.loads(out[1])
    assert first == {
        "session": 1,
        "status": "open",
        "events": 0,
        "rejected": 0,
        "state": engine.start(PICASSO_START).summary(),
    }
    assert out[2] == "ok 1"
    assert out[3].startswith('rejected 2: illegal event {"type": "draw", "player": "B"')
    assert out[4] == (
        "rejected 3: not JSON (Expecting value at column 1) "
        '[log.object: CONTRACTS 1: "One JSON object per line, each with a type"]'
    )
    assert out[5].startswith("rejected 4: not UTF-8 text (invalid start byte)")
    assert out[6] == "ok 5"
    last = json.loads(out[7])
    assert (last["events"], last["rejected"]) == (2, 3)
    assert last["state"] == engine.replay([PICASSO_START, *PICASSO_EVENTS[:2]]).summary()
    assert len(out) == 8


def test_new_resume_list_export_replay(
    db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    start = json.dumps({**PICASSO_START, "cards_per_player": 3})
    code, out, _ = run(capsys, "sessions", "new", "--db", str(db), "--start", start)
    assert (code, out) == (0, ["1"])
    code, out, _ = run(
        capsys, "sessions", "new", "--db", str(db), "--game", "picmix", "--players", "A,B,C",
        "--option", "target=2", "--option", "three_items_only=true", "--note", "beginners",
    )  # fmt: skip
    assert (code, out) == (0, ["2"])

    stdin_of(monkeypatch, jsonl(PICASSO_EVENTS))
    code, out, _ = run(capsys, "sessions", "resume", "1", "--db", str(db))
    assert code == 0
    assert out[1:-1] == [f"ok {n}" for n in range(1, 17)]
    assert json.loads(out[-1])["state"]["scores"] == PICASSO_FINAL_SCORES

    code, out, _ = run(capsys, "sessions", "list", "--db", str(db), "--json")
    listed = json.loads("\n".join(out))["sessions"]
    assert [(s["id"], s["game"], s["players"], s["events"], s["status"]) for s in listed] == [
        (1, "picasso", ["A", "B"], 16, "finished"),
        (2, "picmix", ["A", "B", "C"], 0, "open"),
    ]
    assert listed[0]["scores"] == PICASSO_FINAL_SCORES
    assert listed[0]["winners"] == ["A"]
    assert listed[1]["note"] == "beginners"

    code, out, _ = run(capsys, "sessions", "list", "--db", str(db))
    assert out[0].split() == [
        "ID", "GAME", "PLAYERS", "EVENTS", "STATUS", "UPDATED", "(UTC)", "SCORES",
    ]  # fmt: skip
    assert out[1].split()[:5] == ["1", "picasso", "A,B", "16", "finished"]
    assert out[1].endswith("A 26*, B 22")
    assert out[2].endswith("A 0, B 0, C 0")
    assert out[3] == "(* winner)"

    code, out, _ = run(capsys, "sessions", "export", "1", "--db", str(db))
    assert code == 0
    assert [json.loads(x) for x in out] == [json.loads(start), *PICASSO_EVENTS]
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(out) + "\n")
    code, out, _ = run(capsys, "replay", str(log), "--json")
    assert code == 0
    assert (
        json.loads("\n".join(out)) == engine.replay([json.loads(start), *PICASSO_EVENTS]).summary()
    )


def test_show_and_undo(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin_of(monkeypatch, jsonl([PICASSO_EVENTS[0], OUT_OF_TURN, PICASSO_EVENTS[1]]))
    run(capsys, "sessions", "new", "--db", str(db), "--start", json.dumps(PICASSO_START), "--stdin")

    code, out, _ = run(capsys, "sessions", "undo", "1", "--db", str(db))
    assert code == 0
    assert out[0] == 'undone 3: {"type": "build", "pieces": {"long_stick": 2}, "t": 5.5}'
    assert json.loads(out[1])["state"]["cost"] == 0

    code, out, _ = run(capsys, "sessions", "show", "1", "--db", str(db), "--json")
    shown = json.loads("\n".join(out))
    assert [(e["seq"], e["status"]) for e in shown["received"]] == [
        (0, "accepted"),
        (1, "accepted"),
        (2, "rejected"),
        (3, "undone"),
    ]
    assert "[picasso.turn:" in shown["received"][2]["reason"]
    code, out, _ = run(capsys, "sessions", "show", "1", "--db", str(db))
    assert out[0] == "session 1: picasso (A,B), open"
    assert out[3].split()[:2] == ["2", "rejected"]
    assert out[4].strip().startswith("-> illegal event")

    run(capsys, "sessions", "undo", "1", "--db", str(db))
    code, _, err = run(capsys, "sessions", "undo", "1", "--db", str(db))
    assert code == 2
    assert err == "pictable sessions: session 1: nothing to undo (only its start is left)\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "picasso"], "--game needs --players A,B,..."),
        (["--game", "picasso", "--players", "A"], "picasso is for at least 2 players, got 1"),
        (["--game", "pickpic", "--players", "A,B,C", "--option", "target"], "expected KEY=VALUE"),
        (["--game", "pickpic", "--players", "A,B,C", "--option", "players=1"], "not an option"),
        (["--game", "pickpic", "--players", "A,B,C", "--option", "goal=3"], 'unknown key "goal"'),
        (["--start", "{"], "--start is not JSON"),
        (["--start", "[]"], "--start must be a JSON object"),
        (["--start", '{"type": "draw"}'], 'the first line must be "start"'),
    ],
)
def test_new_explains_a_bad_start(
    db: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = run(capsys, "sessions", "new", "--db", str(db), *args)
    assert (code, out) == (2, [])
    assert err.startswith("pictable sessions: ")
    assert message in err
    assert len(err.splitlines()) == 1


def test_list_without_a_database(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "sessions", "list", "--db", str(db)) == (
        0,
        [f"no sessions yet ({db} does not exist)"],
        "",
    )
    assert run(capsys, "sessions", "list", "--db", str(db), "--json")[1] == ['{"sessions": []}']
    assert not db.exists()


def test_pictable_db_environment_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PICTABLE_DB", str(tmp_path / "env.db"))
    assert run(capsys, "sessions", "new", "--game", "picasso", "--players", "A,B")[0] == 0
    assert (tmp_path / "env.db").exists()


@pytest.mark.parametrize("action", ["list", "export", "show", "new", "resume", "undo"])
def test_help_explains_each_action(capsys: pytest.CaptureFixture[str], action: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sessions", action, "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "--db PATH" in out
    assert len(out.splitlines()) > 6


def test_sessions_alone_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "sessions")
    assert code == 0
    assert any(row.strip().startswith("resume") for row in out)


def test_strings_that_are_not_text_are_refused_and_every_output_still_works(
    db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone surrogate ("\\ud800" in the JSON) was a traceback at the SQLite insert. A start
    holding one is refused in one line and nothing is stored; events holding one are recorded
    as rejected naming log.text, kept as received (escaped), and list, show and export work."""
    lone_start = '{"type": "start", "game": "picasso", "players": ["\\ud800", "B"]}'
    code, out, err = run(capsys, "sessions", "new", "--db", str(db), "--start", lone_start)
    assert (code, out) == (2, [])
    assert err.startswith("pictable sessions: invalid event") and err.count("\n") == 1
    assert "a player name must be valid text" in err and "[log.text:" in err
    code, out, _ = run(capsys, "sessions", "list", "--db", str(db), "--json")
    assert (code, json.loads(out[0])) == (0, {"sessions": []})

    lines = [
        '{"type": "draw", "player": "\\ud800", "card": "x"}',
        '{"type": "draw", "player": "A", "card": "c\\udc00"}',
        '{"type": "give_up", "meta": {"\\udfff": 1}}',
        json.dumps(PICASSO_EVENTS[0]),
    ]
    stdin_of(monkeypatch, ("\n".join(lines) + "\n").encode())
    code, out, err = run(
        capsys, "sessions", "new", "--db", str(db), "--game", "picasso", "--players", "A,B",
        "--note", "from a shell: \udcff", "--stdin",
    )  # fmt: skip
    assert (code, err) == (0, "")
    sid = out[0]
    for n, ack in enumerate(out[2:5], start=1):
        assert ack.startswith(f"rejected {n}: invalid event") and "[log.text:" in ack, ack
    assert out[5] == "ok 4"
    for args in (["list"], ["list", "--json"], ["show", sid], ["show", sid, "--json"]):
        code, out, err = run(capsys, "sessions", *args, "--db", str(db))
        assert (code, err) == (0, ""), args
        "\n".join(out).encode("utf-8")
    received = json.loads(out[0])["received"]
    assert json.loads(received[1]["line"]) == json.loads(lines[0])  # kept as received
    assert json.loads(out[0])["note"] == "from a shell: \\udcff"
    code, out, _ = run(capsys, "sessions", "export", sid, "--db", str(db))
    assert code == 0
    assert [json.loads(x) for x in out] == [PICASSO_START, PICASSO_EVENTS[0]]
