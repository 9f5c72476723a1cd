"""(b) A file that is not a usable sessions database is refused with a clear one-line error,
never a traceback, and left as it was; the CLI exits with status 2 (issue 2 item 5)."""

from __future__ import annotations

import io
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from pictable.cli import main
from pictable.store import BadDatabase, EventStore

from .games import PICASSO_EVENTS, PICASSO_START, pictable

_GOOD: list[bytes] = []


def good_db(path: Path) -> None:
    """A real sessions database with one game in it, closed cleanly (made once, copied)."""
    if _GOOD:
        path.write_bytes(_GOOD[0])
        return
    with EventStore(path) as store:
        session_id = store.create_session(PICASSO_START).id
        for _ in range(20):  # enough events to span several pages
            for obj in PICASSO_EVENTS:
                store.append(session_id, obj)
    assert not Path(f"{path}-wal").exists()  # all in the file itself
    _GOOD.append(path.read_bytes())


def random_bytes(path: Path) -> None:
    path.write_bytes(random.Random(7).randbytes(8192))


def text_file(path: Path) -> None:
    path.write_text('{"type": "start", "game": "picasso", "players": ["A", "B"]}\n')


def truncated_to_half(path: Path) -> None:
    good_db(path)
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)


def truncated_to_one_page(path: Path) -> None:
    good_db(path)
    with path.open("r+b") as f:
        f.truncate(4096)


def truncated_in_the_header(path: Path) -> None:
    good_db(path)
    with path.open("r+b") as f:
        f.truncate(50)


def scribbled_first_page(path: Path) -> None:
    good_db(path)
    with path.open("r+b") as f:
        f.seek(100)
        f.write(random.Random(3).randbytes(300))


def foreign_tables(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE notes (id INTEGER, body TEXT); CREATE TABLE tags (name);")
    conn.close()


def foreign_application(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.executescript("PRAGMA application_id = 1196444487; CREATE TABLE gpkg_contents (x);")
    conn.close()


def newer_schema(path: Path) -> None:
    good_db(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()


def lost_table(path: Path) -> None:
    good_db(path)
    conn = sqlite3.connect(path)
    conn.execute("DROP TABLE events")
    conn.close()


def a_folder(path: Path) -> None:
    path.mkdir()


CASES: list[tuple[Callable[[Path], None], str]] = [
    (random_bytes, "not a sessions database (not an SQLite file)"),
    (text_file, "not a sessions database (not an SQLite file)"),
    (truncated_to_half, "the database is damaged: database disk image is malformed"),
    (truncated_to_one_page, "the database is damaged: database disk image is malformed"),
    (truncated_in_the_header, "the database is truncated (50 bytes)"),
    (scribbled_first_page, "the database is damaged: database disk image is malformed"),
    (
        foreign_tables,
        "an SQLite database of another application (tables: notes, tags), "
        "not a pictable sessions database",
    ),
    (
        foreign_application,
        "an SQLite database of another application (application_id 0x47504b47), "
        "not a pictable sessions database",
    ),
    (
        newer_schema,
        "sessions database schema version 99 is newer than this pictable reads (1); "
        "upgrade pictable",
    ),
    (lost_table, "the database is damaged (missing table events)"),
    (a_folder, "is a folder, not a sessions database"),
]
IDS = [make.__name__ for make, _ in CASES]


def snapshot(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


@pytest.mark.parametrize(("make", "message"), CASES, ids=IDS)
def test_the_store_refuses_it_and_leaves_it_alone(
    tmp_path: Path, make: Callable[[Path], None], message: str
) -> None:
    path = tmp_path / "sessions.db"
    make(path)
    before = snapshot(path)
    with pytest.raises(BadDatabase) as caught:
        EventStore(path)
    assert str(caught.value) == f"{path}: {message}"
    assert snapshot(path) == before


@pytest.mark.parametrize(("make", "message"), CASES, ids=IDS)
@pytest.mark.parametrize(
    "command",
    [["list"], ["list", "--json"], ["export", "1"], ["show", "1"], ["resume", "1"], ["undo", "1"]],
    ids=" ".join,
)
def test_the_cli_says_so_in_one_line_and_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    make: Callable[[Path], None],
    message: str,
    command: list[str],
) -> None:
    path = tmp_path / "sessions.db"
    make(path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["sessions", *command, "--db", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"pictable sessions: {path}: {message}\n"


def test_new_refuses_a_bad_file_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sessions.db"
    foreign_tables(path)
    code = main(["sessions", "new", "--db", str(path), "--game", "picasso", "--players", "A,B"])
    assert code == 2
    assert capsys.readouterr().err.startswith(f"pictable sessions: {path}: an SQLite database")


@pytest.mark.parametrize(
    "make", [random_bytes, truncated_to_half, newer_schema], ids=lambda make: make.__name__
)
def test_no_traceback_from_the_real_command(tmp_path: Path, make: Callable[[Path], None]) -> None:
    path = tmp_path / "sessions.db"
    make(path)
    done = pictable("sessions", "export", "1", "--db", str(path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"pictable sessions: {path}: ")
    assert done.stdout == ""


def test_unknown_session_and_missing_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.db"
    assert main(["sessions", "export", "1", "--db", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"pictable sessions: {path}: no sessions database here (no session recorded yet)\n"
    )
    assert not path.exists()
    good_db(path)
    assert main(["sessions", "resume", "42", "--db", str(path)]) == 2
    assert capsys.readouterr().err == f"pictable sessions: no session 42 in {path}\n"
