"""Shared helpers of the scoreboard tests: example games and raw HTTP requests."""

from __future__ import annotations

import http.client
import json
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import engine

GAMES = ("picasso", "picflip", "pickpic", "picmix")


def example(game: str) -> list[dict[str, Any]]:
    """The bundled example log of ``game`` (``pictable/examples/GAME.jsonl``)."""
    text = resources.files("pictable").joinpath("examples", f"{game}.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def played(game: str, n: int | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(summary, events) after the first ``n`` lines of the example (all when None)."""
    log = example(game)[:n]
    state = engine.start(log[0])
    for obj in log[1:]:
        state = engine.apply_raw(state, obj)
    return state.summary(), log


class Answer:
    """One HTTP answer, read whole."""

    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = response.headers
        self.body = response.read()

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    url: str,
    path: str,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 5.0,
) -> Answer:
    """``method path`` on the server at ``url``, the path sent as given (not normalised)."""
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        return Answer(conn.getresponse())
    finally:
        conn.close()


def post_input(url: str, obj: Any, headers: dict[str, str] | None = None) -> Answer:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    return request(url, "/api/input", "POST", body, sent)
