"""The scoreboard server without a browser: state JSON, Server-Sent Events, the token,
static files, and the validation of inputs."""

from __future__ import annotations

import http.client
import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from pictable import scoreboard
from pictable.scoreboard import InputRefused, Scoreboard, page_state, validate_input
from tests.scoreboard.helpers import GAMES, played, post_input, request

TOKEN = "test-token-0123456789abcdef"


@pytest.fixture
def board() -> Iterator[Scoreboard]:
    with Scoreboard() as b:
        yield b


@pytest.fixture
def inputs(board: Scoreboard) -> queue.Queue[dict[str, Any]]:
    """The inputs the board delivers, in a queue; the board takes every action."""
    got: queue.Queue[dict[str, Any]] = queue.Queue()

    def take(obj: dict[str, Any]) -> str:
        got.put(obj)
        return f"got {obj['action']}"

    board.on_input(take)
    return got


@pytest.fixture
def locked() -> Iterator[Scoreboard]:
    """A board in token mode, on loopback (tests never open a network address)."""
    with Scoreboard(token=TOKEN) as b:
        yield b


# The state.


def test_state_before_any_publish(board: Scoreboard) -> None:
    state = request(board.url, "/api/state").json()
    assert state["version"] == 0
    assert state["title"] == "pictable"
    assert state["status"] == "waiting for a game"
    assert state["ranking"] == [] and state["events"] == [] and state["turn"] is None
    assert state["actions"] == []


def test_state_after_publish(board: Scoreboard) -> None:
    summary, events = played("picasso", 15)
    version = board.publish(summary, events, {"banner": "3... 2... 1... GO!"})
    answer = request(board.url, "/api/state")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("application/json")
    assert answer.headers["Cache-Control"] == "no-store"
    state = answer.json()
    assert state["version"] == version == 1
    assert state["summary"] == summary
    assert state["title"] == "Picasso" and state["status"] == "in progress"
    assert [(r["name"], r["score"], r["rank"]) for r in state["ranking"]] == [
        ("Chloe", 10, 1),
        ("Ana", 9, 2),
        ("Ben", 9, 2),  # a tie shares the rank and keeps seating order
    ]
    assert state["turn"]["headline"] == "Turn 4 of 6: Ana builds"
    assert state["turn"]["cost"] == 7
    assert len(state["events"]) == scoreboard.RECENT_EVENTS
    assert state["events"][-1]["seq"] == 14
    assert state["events"][-1]["text"] == "build: 3 long sticks, 4 short sticks (cost 7)"
    assert state["events"][-1]["t"] == 83.0
    assert state["extra"] == {"banner": "3... 2... 1... GO!"}
    assert board.publish(summary, events) == 2


def test_secret_meta_never_reaches_the_page(board: Scoreboard) -> None:
    summary, events = played("picasso", 2)  # the draw's meta holds the word to guess
    assert events[1]["meta"] == {"word": "cat"}
    board.publish(summary, events)
    assert b"cat" not in request(board.url, "/api/state").body


def test_finished_game_marks_the_winners(board: Scoreboard) -> None:
    summary, events = played("picasso")
    assert summary["finished"]
    board.publish(summary, events)
    state = request(board.url, "/api/state").json()
    winners = [r["name"] for r in state["ranking"] if r["winner"]]
    assert winners == summary["winners"]
    assert state["status"] == "finished"
    assert "wins" in state["turn"]["headline"] or "share" in state["turn"]["headline"]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("part", [0.5, 1.0])
def test_every_game_has_a_turn_and_ranking(game: str, part: float) -> None:
    summary, events = played(game)
    summary, events = played(game, max(2, int(len(events) * part)))
    state = page_state(summary, events, None)
    assert {r["name"]: r["score"] for r in state["ranking"]} == summary["scores"]
    assert state["turn"]["headline"]
    assert all(e["text"] for e in state["events"])
    if game == "picflip":
        assert all(r["detail"].endswith("left") for r in state["ranking"])


@pytest.mark.parametrize(
    ("points", "held", "detail"),
    [
        (1, 1, "1 point + 1 card"),
        (0, 0, "0 points + 0 cards"),
        (4, 2, "4 points + 2 cards"),
    ],
)
def test_picasso_details_say_point_and_card_in_the_right_number(
    points: int, held: int, detail: str
) -> None:
    """The ranking said "1 pts": one point, one card; any other number, plural."""
    summary = {
        "game": "picasso",
        "players": ["Ann", "Ben"],
        "scores": {"Ann": points + 5 * held, "Ben": 0},
        "finished": False,
        "winners": [],
        "points": {"Ann": points, "Ben": 0},
        "cards_held": {"Ann": held, "Ben": 0},
    }
    rows = {r["name"]: r["detail"] for r in scoreboard.ranking(summary)}
    assert rows["Ann"] == detail
    assert rows["Ben"] == "0 points + 0 cards"


def test_a_pick_pic_target_of_one_point() -> None:
    """ "Playing to 1 point", not "1 points"."""
    summary, _ = played("pickpic", 1)
    turn = scoreboard.current_turn({**summary, "target": 1})
    assert turn is not None and "Playing to 1 point" in turn["details"]


def test_a_lone_surrogate_in_an_event_does_not_stop_the_page(board: Scoreboard) -> None:
    """A stored event refused for a lone surrogate (``"\\ud800"`` in its JSON, parsed back
    from the store) is published and served, as its escape: UTF-8 cannot carry it."""
    summary, events = played("picasso", 2)
    bad = {"type": "draw", "player": "\ud800", "card": "x\udfff"}
    records = [*events, {"event": bad, "seq": 2, "status": "rejected", "reason": "log.text"}]
    version = board.publish(summary, records)
    answer = request(board.url, "/api/state")
    assert answer.status == 200
    state = answer.json()
    assert state["version"] == version
    assert state["events"][-1]["status"] == "rejected"
    assert "\\ud800" in answer.body.decode("utf-8")


def test_events_from_the_store_with_status_and_reason() -> None:
    records: list[dict[str, Any]] = [
        {"event": {"type": "start", "game": "picasso", "players": ["A", "B"]}, "seq": 0},
        {
            "event": {"type": "draw", "player": "B", "card": "x"},
            "seq": 1,
            "status": "rejected",
            "reason": "it is A's turn to build",
        },
        {"event": None, "line": "{not json", "seq": 2, "status": "rejected", "reason": "not JSON"},
        {"event": {"type": "draw"}, "seq": 3, "status": "undone"},  # malformed: no crash
    ]
    events = page_state(None, records, None)["events"]
    assert [e["status"] for e in events] == ["accepted", "rejected", "rejected", "undone"]
    assert events[1]["reason"] == "it is A's turn to build"
    assert events[2]["text"] == "{not json"
    assert events[3]["text"] == "draw"


def test_a_non_loopback_address_needs_a_token() -> None:
    with pytest.raises(ValueError, match="token is required"):
        Scoreboard(host="0.0.0.0")
    for bad in ("short", "sixteen-chars-ok; Path=/evil", "sixteen chars with spaces"):
        with pytest.raises(ValueError, match="at least 16"):
            Scoreboard(token=bad)


# Server-Sent Events.


class Stream:
    """A raw client of /api/events that reads one message or comment at a time."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        self.conn.request("GET", "/api/events", headers=headers or {})
        self.response = self.conn.getresponse()

    def next_block(self) -> str:
        lines: list[str] = []
        while True:
            line = self.response.fp.readline()
            if not line:
                raise EOFError("the stream ended")
            if line == b"\n":
                return "".join(lines)
            lines.append(line.decode())

    def next_state(self) -> dict[str, Any]:
        while True:
            block = self.next_block()
            for line in block.splitlines():
                if line.startswith("data: "):
                    return json.loads(line[len("data: ") :])  # type: ignore[no-any-return]

    def close(self) -> None:
        self.response.close()
        self.conn.close()


@pytest.fixture
def stream(board: Scoreboard) -> Iterator[Stream]:
    s = Stream(board.url)
    yield s
    s.close()


def test_sse_sends_the_state_then_each_publish(board: Scoreboard, stream: Stream) -> None:
    assert stream.response.status == 200
    assert stream.response.headers["Content-Type"].startswith("text/event-stream")
    first = stream.next_block()
    assert first.startswith("retry: 1000\nid: 0\ndata: ")
    summary, events = played("picflip", 6)
    sent = time.monotonic()
    board.publish(summary, events, {"banner": "3... 2... 1... GO!"})
    state = stream.next_state()
    assert time.monotonic() - sent < 2.0  # pushed, not polled (typically ~1 ms)
    assert state["version"] == 1
    assert state["summary"]["cards_left"] == summary["cards_left"]
    assert state["extra"]["banner"] == "3... 2... 1... GO!"


def test_sse_coalesces_a_burst_into_the_latest(board: Scoreboard, stream: Stream) -> None:
    stream.next_state()
    summary, events = played("pickpic", 5)
    for _ in range(20):
        board.publish(summary, events)
    versions = [stream.next_state()["version"]]
    while versions[-1] < 20:
        versions.append(stream.next_state()["version"])
    assert versions == sorted(versions) and versions[-1] == 20


def test_sse_keep_alive(board: Scoreboard, stream: Stream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scoreboard, "KEEPALIVE_S", 0.05)
    stream.next_state()
    board.publish(*played("picmix", 3))  # wakes the stream so it picks up the short period
    stream.next_state()
    assert stream.next_block() == ": keep-alive\n"


def test_stop_ends_open_streams() -> None:
    board = Scoreboard().start()
    s = Stream(board.url)
    try:
        s.next_state()
        started = time.monotonic()
        board.stop()
        with pytest.raises(EOFError):
            s.next_block()
        assert time.monotonic() - started < 3
    finally:
        s.close()
        board.stop()


def test_stop_closes_idle_keep_alive_connections() -> None:
    """A browser would otherwise send its next request down an idle connection to the
    stopped server instead of to a new one on the same port."""
    board = Scoreboard().start()
    parts = urlsplit(board.url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as conn:
            conn.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert conn.recv(65536).startswith(b"HTTP/1.1 200")
            board.stop()
            started = time.monotonic()
            while conn.recv(65536):  # the rest of the answer, then the end
                pass
            assert time.monotonic() - started < 2
    finally:
        board.stop()


def test_a_stalled_client_does_not_block_others(board: Scoreboard) -> None:
    """Half a request line sent and then silence: other clients are served at once."""
    parts = urlsplit(board.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as stalled:
        stalled.sendall(b"GET /api/sta")
        with socket.create_connection((parts.hostname, parts.port), timeout=5):
            started = time.monotonic()
            for _ in range(5):
                assert request(board.url, "/api/state").status == 200
            assert time.monotonic() - started < 2


def test_a_stream_that_never_reads_does_not_slow_publish(board: Scoreboard) -> None:
    parts = urlsplit(board.url)
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as lazy:
        lazy.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        summary, events = played("pickpic")
        started = time.monotonic()
        for _ in range(200):
            board.publish(summary, events)
        assert time.monotonic() - started < 2
        assert request(board.url, "/api/state").json()["version"] == 200


# Access: loopback and token mode.


def test_loopback_refuses_foreign_host_names(board: Scoreboard) -> None:
    """DNS rebinding: a page of evil.example resolving to 127.0.0.1 gets nothing."""
    assert request(board.url, "/api/state", headers={"Host": "evil.example:80"}).status == 403
    port = urlsplit(board.url).port
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert request(board.url, "/api/state", headers={"Host": host}).status == 200


@pytest.mark.parametrize("path", ["/", "/api/state", "/api/events", "/static/app.js"])
def test_token_mode_refuses_requests_without_the_token(locked: Scoreboard, path: str) -> None:
    answer = request(locked.url, path)
    assert answer.status == 403
    assert "token" in answer.json()["error"]
    wrong = request(locked.url, path, headers={"Authorization": "Bearer nope-nope-nope-nope"})
    assert wrong.status == 403
    assert request(locked.url, f"{path}?token=wrong-token-0123456789").status == 403


def test_token_mode_bearer_header(locked: Scoreboard) -> None:
    answer = request(locked.url, "/api/state", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status == 200
    assert answer.json()["version"] == 0


def test_token_mode_first_load_sets_a_cookie(locked: Scoreboard) -> None:
    assert locked.page_url == f"{locked.url}?token={TOKEN}"
    first = request(locked.url, f"/?token={TOKEN}")
    assert first.status == 303 and first.headers["Location"] == "/"
    cookie = first.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    pair = cookie.split(";")[0]
    page = request(locked.url, "/", headers={"Cookie": pair})
    assert page.status == 200 and b"<html" in page.body
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert request(locked.url, "/api/state", headers={"Cookie": pair}).status == 200
    assert request(locked.url, "/api/state", headers={"Cookie": pair + "x"}).status == 403


def test_token_mode_input_needs_the_token(locked: Scoreboard) -> None:
    got: list[dict[str, Any]] = []

    def take(obj: dict[str, Any]) -> None:
        got.append(obj)

    locked.on_input(take)
    assert post_input(locked.url, {"action": "undo"}).status == 403
    answer = post_input(locked.url, {"action": "undo"}, {"Authorization": f"Bearer {TOKEN}"})
    assert answer.status == 202
    assert got == [{"action": "undo"}]


# Static files.


@pytest.mark.parametrize(
    ("name", "ctype"),
    [("index.html", "text/html"), ("app.js", "text/javascript"), ("style.css", "text/css")],
)
def test_static_files(board: Scoreboard, name: str, ctype: str) -> None:
    answer = request(board.url, f"/static/{name}")
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith(ctype)
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.body == (scoreboard.WEB_DIR / name).read_bytes()


@pytest.mark.parametrize(
    "path",
    [
        "/static/../scoreboard.py",
        "/static/%2e%2e/scoreboard.py",
        "/static/..%2fscoreboard.py",
        "/static/%2e%2e%2f%2e%2e%2fpyproject.toml",
        "/static/../../../../etc/passwd",
        "/static//etc/passwd",
        "/static/%2fetc%2fpasswd",
        "/static/..\\scoreboard.py",
        "/static/.hidden",
        "/static/app.js%00.css",
        "/static/",
        "/static/nope.js",
        "/static/__init__.py",
        "/../pictable/scoreboard.py",
        "/nowhere",
    ],
)
def test_traversal_and_unknown_paths_are_refused(board: Scoreboard, path: str) -> None:
    answer = request(board.url, path)
    assert answer.status == 404
    assert b"import" not in answer.body and b"root:" not in answer.body


# Inputs.


def test_input_reaches_the_callback(board: Scoreboard, inputs: queue.Queue[dict[str, Any]]) -> None:
    answer = post_input(board.url, {"action": "vote", "choice": "no", "ask": "play-12"})
    assert answer.status == 202
    assert answer.json() == {"ok": True, "message": "got vote"}
    assert inputs.get(timeout=1) == {"action": "vote", "choice": "no", "ask": "play-12"}
    assert request(board.url, "/api/state").json()["actions"] == [
        "confirm",
        "reject",
        "undo",
        "vote",
    ]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[1, 2]", "JSON object"),
        (b'"undo"', "JSON object"),
        (b"{}", "unknown action None"),
        (b'{"action": "shuffle"}', "unknown action 'shuffle'"),
        (b'{"action": 3}', "unknown action 3"),
        (b'{"action": "undo", "seq": 4}', "unknown key 'seq'"),
        (b'{"action": "vote"}', "'choice'"),
        (b'{"action": "vote", "choice": "maybe"}', "'choice'"),
        (b'{"action": "confirm", "ask": 12}', "'ask' must be a string"),
        (b'{"action": "confirm", "ask": "' + b"x" * 300 + b'"}', "'ask' must be a string"),
        (b"[" * 2000 + b"]" * 2000, "nested too deeply"),
        (b"[" * 5000 + b"]" * 5000, "too large"),  # refused before any parsing
    ],
)
def test_bad_input_is_refused_with_a_reason(
    board: Scoreboard, inputs: queue.Queue[dict[str, Any]], body: bytes, reason: str
) -> None:
    answer = post_input(board.url, body)
    assert answer.status in (400, 413)
    assert reason in answer.json()["error"]
    assert inputs.empty()


def test_validate_input_refuses_deep_nesting() -> None:
    with pytest.raises(ValueError, match="not JSON"):
        validate_input(b"[" * 100_000)


def test_oversized_body_is_refused_unread(
    board: Scoreboard, inputs: queue.Queue[dict[str, Any]]
) -> None:
    body = json.dumps({"action": "undo", "pad": "x" * 10_000}).encode()
    answer = post_input(board.url, body)
    assert answer.status == 413
    assert "at most 4096" in answer.json()["error"]
    # A client claiming a huge body but sending none is answered at once, not waited for.
    started = time.monotonic()
    huge = request(
        board.url,
        "/api/input",
        "POST",
        None,
        {"Content-Type": "application/json", "Content-Length": str(10**12)},
    )
    assert huge.status == 413 and time.monotonic() - started < 2


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Content-Type": "text/plain"}, 415),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415),
        ({"Origin": "http://evil.example"}, 403),
    ],
)
def test_cross_site_posts_are_refused(
    board: Scoreboard, inputs: queue.Queue[dict[str, Any]], headers: dict[str, str], status: int
) -> None:
    answer = post_input(board.url, {"action": "undo"}, headers)
    assert answer.status == status
    assert inputs.empty()


def test_same_origin_post_is_taken(board: Scoreboard, inputs: queue.Queue[dict[str, Any]]) -> None:
    origin = board.url.rstrip("/")
    assert post_input(board.url, {"action": "confirm"}, {"Origin": origin}).status == 202
    assert inputs.get(timeout=1) == {"action": "confirm"}


def test_input_without_a_callback_or_not_taken(board: Scoreboard) -> None:
    answer = post_input(board.url, {"action": "undo"})
    assert answer.status == 409
    assert "does not take 'undo'" in answer.json()["error"]
    board.on_input(lambda obj: None, actions=["undo"])
    assert post_input(board.url, {"action": "undo"}).status == 202
    assert post_input(board.url, {"action": "confirm"}).status == 409
    with pytest.raises(ValueError, match="unknown actions"):
        board.on_input(lambda obj: None, actions=["redo"])


def test_callback_refusal_and_failure(board: Scoreboard) -> None:
    def refuse(obj: dict[str, Any]) -> str:
        if obj["action"] == "undo":
            raise InputRefused("nothing to undo")
        raise RuntimeError("boom")

    board.on_input(refuse)
    refused = post_input(board.url, {"action": "undo"})
    assert refused.status == 409 and refused.json() == {"error": "nothing to undo"}
    failed = post_input(board.url, {"action": "confirm"})
    assert failed.status == 500
    assert "boom" not in failed.json()["error"]  # internals stay in the log


def test_publish_is_thread_safe(board: Scoreboard) -> None:
    summary, events = played("picmix")
    threads = [
        threading.Thread(target=lambda: [board.publish(summary, events) for _ in range(50)])
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert board.version == 200
    assert request(board.url, "/api/state").json()["version"] == 200
