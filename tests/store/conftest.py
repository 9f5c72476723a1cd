"""Fixtures of the store's tests: a fresh database path, never the user's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pictable.store import EventStore


@pytest.fixture(autouse=True)
def _no_user_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a test forgets, it never touches ~/.local/share/pictable."""
    monkeypatch.setenv("PICTABLE_DB", str(tmp_path / "default-sessions.db"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
def store(db: Path) -> Iterator[EventStore]:
    with EventStore(db) as s:
        yield s
