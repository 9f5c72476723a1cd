"""``pictable scoreboard --session ID``: follows a session that another process writes."""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from urllib.request import HTTPCookieProcessor, build_opener

import pytest

from pictable.commands import scoreboard as command
from pictable.store import EventStore
from tests.scoreboard.helpers import example, post_input, request

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PICTABLE_DB"] = str(tmp_path / "not-this.db")  # never the user's own
    return env


# The command with Ctrl+C (SIGINT) at its default: a suite run as a background job of a
# non-interactive shell inherits SIGINT ignored, and Python then keeps ignoring it.
_WITH_CTRL_C = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'pictable'; "
    "runpy.run_module('pictable.commands.scoreboard', run_name='__main__')"
)


# --lan listens on every interface, and the tests never open a network address: this child
# binds the same server, in the same token mode, to loopback instead.
_LAN_ON_LOOPBACK = (
    "import pictable.scoreboard as s; real = s.Scoreboard; "
    "s.Scoreboard = lambda host, port, token: real("
    "host='127.0.0.1' if host == '0.0.0.0' else host, port=port, token=token); "
) + _WITH_CTRL_C


class Served:
    """The command running in a child process, with the first lines it printed."""

    def __init__(self, tmp_path: Path, *args: str, code: str = _WITH_CTRL_C) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=_env(tmp_path),
            cwd=ROOT,
        )
        self.lines: list[str] = []
        assert self.proc.stdout is not None
        # readline with a deadline: a reader thread, so a stuck child fails the test.
        got = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("press Ctrl+C"):
                    got.set()
            got.set()

        self.reader = threading.Thread(target=read, daemon=True)
        self.reader.start()
        got.wait(timeout=20)

    @property
    def url(self) -> str:
        first = self.lines[0] if self.lines else ""
        assert ": http://" in first, (self.lines, self.stderr())
        return first.rsplit(": ", 1)[1]

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(timeout=10)
        self.reader.join(timeout=5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        return code


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
def session(db: Path) -> int:
    log = example("picasso")
    with EventStore(db) as store:
        sid = store.create_session(log[0]).id
        for obj in log[1:5]:
            store.append(sid, obj)
    return sid


@pytest.fixture
def served(tmp_path: Path, db: Path, session: int) -> Iterator[Served]:
    s = Served(tmp_path, "--session", str(session), "--db", str(db), "--port", "0")
    yield s
    s.stop()


def _wait_state(url: str, test: Any, timeout: float = 5.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        state = request(url, "/api/state").json()
        if test(state):
            return state  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, f"the page did not follow: {state['summary']}"
        time.sleep(0.05)


def test_follows_a_session_written_by_another_process(
    served: Served, db: Path, session: int
) -> None:
    state = request(served.url, "/api/state").json()
    assert state["title"] == "Picasso"
    assert state["summary"]["scores"] == {
        "Ana": 4,
        "Ben": 5,
        "Chloe": 0,
    }  # Ana built for 6, Ben guessed
    assert state["actions"] == ["undo"]
    log = example("picasso")
    with EventStore(db) as store:
        store.append(session, log[5])  # Ben draws
        appended = time.monotonic()
        state = _wait_state(
            served.url, lambda s: s["summary"]["builder"] == "Ben" and s["summary"]["card"]
        )
        assert time.monotonic() - appended < 2.0  # polled every 0.2 s
        store.append(session, {"type": "draw", "player": "Ana", "card": "zz"})  # out of turn
        state = _wait_state(served.url, lambda s: s["events"][-1]["status"] == "rejected")
        assert "turn" in state["events"][-1]["reason"]
    assert served.lines[-1] == "press Ctrl+C to stop"
    assert served.stop() == 0  # Ctrl+C stops it cleanly


def test_undo_from_the_page(served: Served, db: Path, session: int) -> None:
    answer = post_input(served.url, {"action": "undo"})
    assert answer.status == 202, answer.body
    assert answer.json()["message"] == "undone: event 4"
    with EventStore(db) as store:
        assert [e.status for e in store.events(session)][-1] == "undone"
    state = _wait_state(served.url, lambda s: s["events"][-1]["status"] == "undone")
    assert state["summary"]["scores"] == {"Ana": 0, "Ben": 0, "Chloe": 0}


def test_read_only_has_no_undo(tmp_path: Path, db: Path, session: int) -> None:
    s = Served(tmp_path, "--session", str(session), "--db", str(db), "--port", "0", "--read-only")
    try:
        assert request(s.url, "/api/state").json()["actions"] == []
        assert post_input(s.url, {"action": "undo"}).status == 409
    finally:
        s.stop()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--session", "99"], "no session 99"),
        (["--session", "1", "--db", "{tmp}/missing.db"], "no sessions database here"),
        (["--session", "1", "--port", "70000"], "a port is 0 to 65535"),
    ],
)
def test_errors(
    tmp_path: Path,
    db: Path,
    session: int,
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--db" not in argv:
        argv += ["--db", str(db)]
    assert command.main(argv) == command.EXIT_ERROR
    assert message in capsys.readouterr().err


def test_lan_prints_first_an_address_that_gets_in(tmp_path: Path, db: Path, session: int) -> None:
    """With --lan the first address printed opens the page from this machine: it carries
    the token (it was the bare loopback address, which answers 403 in token mode), and so
    does the network address printed after it."""
    s = Served(
        tmp_path, "--session", str(session), "--db", str(db), "--port", "0", "--lan",
        code=_LAN_ON_LOOPBACK,
    )  # fmt: skip
    try:
        url = s.url
        token = parse_qs(urlsplit(url).query).get("token", [""])[0]
        assert token, f"no token in the first address printed: {s.lines}"
        network = [line for line in s.lines if line.startswith("on the network: http://")]
        assert len(network) == 1 and network[0].endswith(f"/?token={token}"), s.lines
        # A browser: it opens the address, keeps the cookie set, follows the redirect.
        browser = build_opener(HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with browser.open(url, timeout=5) as page:
            assert page.status == 200
            assert b"<html" in page.read().lower()
            assert urlsplit(page.url).query == ""  # the token left the address bar
        with browser.open(url.split("?")[0] + "api/state", timeout=5) as answer:
            assert json.load(answer)["summary"]["game"] == "picasso"
        assert request(url, "/").status == 403  # without the token, loopback too
    finally:
        assert s.stop() == 0


def test_a_session_holding_strings_that_are_not_text_is_served(
    tmp_path: Path, db: Path, session: int
) -> None:
    """Events refused for a lone surrogate ("\\ud800" in their JSON) are kept as received;
    the page of that session is still served, the string sent as its escape."""
    with EventStore(db) as store:
        result = store.append(session, {"type": "draw", "player": "\ud800", "card": "x"})
        assert not result.accepted and "log.text" in (result.reason or "")
    s = Served(tmp_path, "--session", str(session), "--db", str(db), "--port", "0")
    try:
        answer = request(s.url, "/api/state")
        assert answer.status == 200
        assert b"\\ud800" in answer.body
        last = answer.json()["events"][-1]
        assert last["status"] == "rejected" and "log.text" in last["reason"]
    finally:
        assert s.stop() == 0
