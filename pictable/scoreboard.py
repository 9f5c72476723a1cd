"""The scoreboard page: a small HTTP server that shows a game's state to the table.

The live pipeline calls ``Scoreboard.publish(summary, events, extra)`` after each event; the
page (``pictable/web/``: plain HTML, one script, one style sheet) hears of it at once over
Server-Sent Events and redraws. The page sends corrections back (undo, confirm, reject, a
vote) with ``POST /api/input``; they reach the callback registered with ``on_input``.

Endpoints::

    GET  /                the page (``?token=`` on the first load in token mode)
    GET  /static/NAME     the page's files (only the files directly in pictable/web/)
    GET  /api/state       the state as JSON (see ``Scoreboard.state``)
    GET  /api/events      Server-Sent Events: one ``data:`` message with the state at once
                          and after each publish, a keep-alive comment every 15 s
    POST /api/input       {"action": "undo"|"confirm"|"reject"|"vote", ...}: 202, or
                          400/403/409/411/413/415 with {"error": reason}

Security. By default the server binds to 127.0.0.1 and needs no token; it then answers only
requests whose ``Host`` is a loopback name (a web page elsewhere cannot reach it by DNS
rebinding). Binding to any other address (``--lan``) needs a token: every request must then
carry it, as ``?token=`` (the page's first load: it sets a cookie and redirects to drop the
token from the address bar), the cookie, or an ``Authorization: Bearer`` header; without it
the answer is 403. ``POST /api/input`` also needs ``Content-Type: application/json`` and,
when the browser sends one, an ``Origin`` of the page itself, so that another site open in
the same browser cannot post to it (a cross-site JSON post needs a preflight we never
grant). Each connection has its own thread and a socket timeout, so a slow or stalled
client holds only its own thread; bodies over ``MAX_INPUT_BYTES`` are refused unread.

Standard library only.
"""

from __future__ import annotations

import contextlib
import hmac
import http.server
import ipaddress
import json
import logging
import re
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from engine.errors import escape_surrogates
from pictable.textboard import GAME_NAMES, event_line

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).resolve().parent / "web"
LOOPBACK_HOST = "127.0.0.1"
RECENT_EVENTS = 8  # events the page lists
MAX_INPUT_BYTES = 4096  # a correction is a few dozen bytes
MAX_TEXT = 200  # characters of one string field of an input
MAX_SSE_CLIENTS = 64  # open event streams; more get 503 (each holds a thread)
KEEPALIVE_S = 15.0  # comment lines on an idle stream, so proxies and the client see it alive
SOCKET_TIMEOUT_S = 10.0  # a client that neither sends nor reads for this long is dropped
SSE_RETRY_MS = 1000  # how soon EventSource reconnects after losing the stream

ACTIONS = frozenset({"undo", "confirm", "reject", "vote"})
VOTE_CHOICES = frozenset({"yes", "no"})
# Fields an input may carry besides "action"; any other key is refused (typos must not pass).
INPUT_FIELDS: dict[str, frozenset[str]] = {
    "undo": frozenset(),
    "confirm": frozenset({"ask"}),
    "reject": frozenset({"ask"}),
    "vote": frozenset({"ask", "choice", "player"}),
}

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}
_STATIC_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,256}")
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})

# The page loads only its own files and talks only to its own server.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

InputCallback = Callable[[dict[str, Any]], str | None]


def json_bytes(obj: Any) -> bytes:
    """``obj`` as UTF-8 JSON. A lone surrogate (a stored event's ``"\\ud800"``, refused by the
    engine but kept in the session as received) goes out as its escape: UTF-8 cannot encode
    it, and one such string must not stop the page from being served."""
    text = json.dumps(obj, ensure_ascii=False, allow_nan=False, default=str)
    return escape_surrogates(text).encode()


class InputRefused(ValueError):
    """Raised by an ``on_input`` callback to refuse an input that is well-formed but cannot
    be carried out now (nothing to undo, no question pending); the page shows the reason and
    the client gets 409."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) names this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh token for ``--lan`` mode (``secrets.token_urlsafe``, 128 bits)."""
    return secrets.token_urlsafe(16)


def lan_address() -> str | None:
    """This machine's address on the local network (the one its default route uses), or
    None. Connecting a UDP socket sends nothing; it only picks the outgoing interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address = str(probe.getsockname()[0])
        except OSError:
            return None
    return None if ipaddress.ip_address(address).is_loopback else address


# Turning a summary and events into what the page shows.


def _event_text(obj: Any) -> str:
    """One event as a sentence; a malformed object (a rejected line) as best we can."""
    if not isinstance(obj, dict):
        return "(not an event)"
    # The time is shown apart; meta is free-form (and may hold a secret, such as the word
    # a Picasso builder draws), so neither goes through event_line.
    shown = {k: v for k, v in obj.items() if k not in ("t", "meta")}
    try:
        return event_line(shown)
    except (KeyError, TypeError, ValueError, AttributeError):
        return str(obj.get("type") or "(unknown event)")


def event_entry(item: Mapping[str, Any], index: int) -> dict[str, Any]:
    """One item of ``publish``'s ``events`` as the page lists it: ``seq``, ``type``,
    ``text``, ``t`` (seconds or None), ``status`` (accepted, rejected, undone) and
    ``reason``. The raw event is not passed on (its ``meta`` is free-form)."""
    if "event" in item or "line" in item:
        obj = item.get("event")
        status = str(item.get("status") or "accepted")
        reason = item.get("reason")
        seq = item.get("seq", index)
    else:
        obj, status, reason, seq = item, "accepted", None, index
    t = obj.get("t") if isinstance(obj, dict) else None
    if isinstance(t, bool) or not isinstance(t, int | float):
        t = None
    text = _event_text(obj) if obj is not None else str(item.get("line", ""))[:MAX_TEXT]
    return {
        "seq": seq if isinstance(seq, int) and not isinstance(seq, bool) else index,
        "type": str(obj.get("type")) if isinstance(obj, dict) else None,
        "text": text,
        "t": t,
        "status": status if status in ("accepted", "rejected", "undone") else "accepted",
        "reason": str(reason) if reason else None,
    }


def ranking(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The players best first (ties keep seating order and share a rank): ``name``,
    ``score``, ``rank``, ``winner``, and ``detail`` (a short line: cards left, points and
    cards held, objectives won) when the game has one."""
    players = [str(p) for p in summary.get("players", [])]
    scores = summary.get("scores", {}) or {}
    winners = set(summary.get("winners", []) or [])
    order = sorted(players, key=lambda p: (-int(scores.get(p, 0)), players.index(p)))
    rows: list[dict[str, Any]] = []
    last_score: int | None = None
    rank = 0
    for position, player in enumerate(order, start=1):
        score = int(scores.get(player, 0))
        if score != last_score:
            rank, last_score = position, score
        rows.append(
            {
                "name": player,
                "score": score,
                "rank": rank,
                "winner": player in winners,
                "detail": _player_detail(summary, player),
            }
        )
    return rows


def _plural(n: int, word: str) -> str:
    """``n`` and ``word``, singular for one (and minus one), plural otherwise: "1 point",
    "0 points", "5 points"."""
    return f"{n} {word}" if abs(n) == 1 else f"{n} {word}s"


def _player_detail(summary: Mapping[str, Any], player: str) -> str | None:
    game = summary.get("game")
    if game == "picflip":
        left = (summary.get("cards_left") or {}).get(player)
        return None if left is None else f"{_plural(int(left), 'card')} left"
    if game == "picasso":
        points = (summary.get("points") or {}).get(player)
        held = (summary.get("cards_held") or {}).get(player)
        if points is None or held is None:
            return None
        return f"{_plural(int(points), 'point')} + {_plural(int(held), 'card')}"
    if game == "picmix":
        won = (summary.get("won") or {}).get(player)
        return None if not won else "won " + ", ".join(str(c) for c in won)
    if game == "pickpic":
        last = (summary.get("last_round_points") or {}).get(player)
        return None if last is None else f"+{last} last round"
    return None


def current_turn(summary: Mapping[str, Any]) -> dict[str, Any] | None:
    """What is going on now, as ``{"headline": str, "details": [str, ...]}`` (None before
    a game or when the game has nothing to say): the Picasso builder and running cost, the
    Picmix objective, the Pick Pic round and phase, the card on top of the Pic Flip pile."""
    game = summary.get("game")
    if game is None:
        return None
    if summary.get("finished"):
        winners = list(summary.get("winners") or [])
        if not winners:
            return {"headline": "Game over", "details": []}
        verb = "wins" if len(winners) == 1 else "share the victory"
        return {"headline": f"{' and '.join(winners)} {verb}!", "details": []}
    details: list[str] = []
    if game == "picasso":
        builder = summary.get("builder")
        headline = f"Turn {summary.get('turn')} of {summary.get('turns')}: {builder} builds"
        if summary.get("card") is None:
            details.append(f"{builder} draws a card")
        else:
            cost = int(summary.get("cost") or 0)
            points = 10 - cost
            details.append(f"A guess now scores {builder} {_plural(points, 'point')}")
        return {"headline": headline, "details": details, "cost": summary.get("cost")}
    if game == "picmix":
        objective = summary.get("objective")
        target = summary.get("target")
        if objective:
            items = ", ".join(str(i) for i in objective.get("items", []))
            headline = f"Find: {items}"
            details.append(f"Objective card {objective.get('card')}")
        else:
            headline = "Waiting for the next objective"
        last = summary.get("last_claim")
        if last:
            verdict = "right" if last.get("correct") else "wrong"
            details.append(f"Last claim: {last.get('player')} was {verdict}")
        if target is not None:
            details.append(f"First to {_plural(int(target), 'objective')} wins")
        return {"headline": headline, "details": details}
    if game == "pickpic":
        phase = str(summary.get("phase") or "")
        headline = f"Round {summary.get('round')}: {PICKPIC_PHASES.get(phase, phase)}"
        if summary.get("target") is not None:
            details.append(f"Playing to {_plural(int(summary['target']), 'point')}")
        return {"headline": headline, "details": details}
    if game == "picflip":
        top = summary.get("top")
        if not top:
            headline = "Waiting for the first card"
        else:
            headline = f"On top: {top.get('player')}'s card {top.get('card')}"
            if top.get("phrase"):
                details.append(f"\u201c{top.get('phrase')}\u201d")
        pile = summary.get("pile")
        if pile is not None:
            details.append(f"{_plural(int(pile), 'card')} on the pile")
        return {"headline": headline, "details": details}
    return None


PICKPIC_PHASES = {
    "reveal": "reveal the reference photos",
    "give": "give your cards",
    "random": "add the random cards",
    "rank": "rank your stacks",
}


def page_state(
    summary: Mapping[str, Any] | None,
    events: Sequence[Mapping[str, Any]],
    extra: Mapping[str, Any] | None,
    *,
    recent: int = RECENT_EVENTS,
) -> dict[str, Any]:
    """The part of ``/api/state`` built from one ``publish``: ``summary`` as given,
    ``title``, ``status``, ``ranking``, ``turn``, the last ``recent`` ``events`` (newest
    last), and ``extra`` (``banner``, ``call``, ``ask``) as given."""
    summary = dict(summary or {})
    game = summary.get("game")
    if game is None:
        title, status = "pictable", "waiting for a game"
    else:
        title = GAME_NAMES.get(str(game), str(game))
        status = "finished" if summary.get("finished") else "in progress"
    start = max(0, len(events) - recent)
    return {
        "summary": summary,
        "title": title,
        "status": status,
        "ranking": ranking(summary) if game is not None else [],
        "turn": current_turn(summary),
        "events": [event_entry(e, start + i) for i, e in enumerate(events[start:])],
        "extra": dict(extra or {}),
    }


def validate_input(body: bytes) -> dict[str, Any]:
    """The input a page posted, checked: a JSON object with a known ``action`` and only that
    action's fields, each a short string (``choice`` yes or no). Raises ``ValueError`` with
    the reason."""
    try:
        obj = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("the body is not UTF-8") from None
    except (json.JSONDecodeError, RecursionError) as exc:
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise ValueError(f"the body is not JSON ({detail})") from None
    if not isinstance(obj, dict):
        raise ValueError("the body must be a JSON object")
    action = obj.get("action")
    if not isinstance(action, str) or action not in ACTIONS:
        known = ", ".join(sorted(ACTIONS))
        raise ValueError(f"unknown action {action!r} (actions: {known})")
    allowed = INPUT_FIELDS[action]
    unknown = sorted(k for k in obj if k != "action" and k not in allowed)
    if unknown:
        raise ValueError(f"unknown key {', '.join(map(repr, unknown))} for {action!r}")
    for key in allowed & obj.keys():
        value = obj[key]
        if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
            raise ValueError(f"{key!r} must be a string of 1 to {MAX_TEXT} characters")
    if action == "vote" and obj.get("choice") not in VOTE_CHOICES:
        raise ValueError("a vote needs 'choice': 'yes' or 'no'")
    return obj


class Scoreboard:
    """The scoreboard server. ``start()`` serves in a background thread, ``stop()`` ends it
    (open event streams included); also a context manager.

    ``host``: the address to bind, 127.0.0.1 by default; any non-loopback address needs a
    ``token``. ``port``: 0 picks a free one (see ``url``). ``token``: when given, every
    request must carry it (even on loopback: that is how the tests check token mode).
    ``publish`` and ``on_input`` may be called from any thread.
    """

    def __init__(
        self,
        host: str = LOOPBACK_HOST,
        port: int = 0,
        token: str | None = None,
        *,
        recent: int = RECENT_EVENTS,
    ) -> None:
        if not is_loopback(host) and not token:
            raise ValueError(
                f"binding to {host} opens the scoreboard to the network: a token is required"
            )
        if token is not None and not _TOKEN.fullmatch(token):
            # It travels in a URL and a cookie: only characters safe in both.
            raise ValueError("the token must be at least 16 characters of A-Z a-z 0-9 - _")
        self.host = host
        self.port = port
        self.token = token
        self.recent = recent
        self._cond = threading.Condition()
        self._version = 0
        self._boot = secrets.token_hex(4)  # a restarted server's versions start again
        self._published = time.time()
        self._state = page_state(None, [], None, recent=recent)
        self._callback: InputCallback | None = None
        self._actions: frozenset[str] = frozenset()
        self._payload = self._encode()
        self._stopping = False
        self._streams = 0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # Life cycle.

    def start(self) -> Scoreboard:
        """Binds and serves in a daemon thread; returns self. Raises ``OSError`` when the
        address cannot be bound."""
        if self._httpd is not None:
            raise RuntimeError("the scoreboard is already started")
        self._stopping = False
        httpd = _Server((self.host, self.port), _Handler, board=self)
        self._httpd = httpd
        self.port = int(httpd.server_address[1])
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scoreboard:{self.port}",
            daemon=True,
        )
        self._thread.start()
        log.info("scoreboard at %s", self.url)
        return self

    def stop(self) -> None:
        """Stops serving and closes the socket; open event streams end within a moment."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Scoreboard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The page's address (without the token): ``http://HOST:PORT/``."""
        host = self.host
        if host in ("0.0.0.0", "", "::"):
            host = LOOPBACK_HOST  # reachable from this machine; see lan_address()
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    @property
    def page_url(self) -> str:
        """``url`` with ``?token=`` when a token is needed: the address to open or print.
        In token mode loopback needs the token too: one rule for every request, with no
        exception a local proxy or port forward would open to the network."""
        return f"{self.url}?token={self.token}" if self.token else self.url

    @property
    def network_url(self) -> str | None:
        """The address other machines open, with its token: ``http://ADDRESS:PORT/?token=``
        on this machine's network address (``lan_address()``); None when the board listens on
        loopback only or the machine has no network address."""
        if is_loopback(self.host) or not self.token:
            return None
        address = lan_address() if self.host in ("0.0.0.0", "", "::") else self.host
        if address is None:
            return None
        host = f"[{address}]" if ":" in address else address
        return f"http://{host}:{self.port}/?token={self.token}"

    # Publishing.

    def publish(
        self,
        summary: Mapping[str, Any],
        events: Sequence[Mapping[str, Any]],
        extra: Mapping[str, Any] | None = None,
    ) -> int:
        """Shows a new state: ``summary`` is ``State.summary()``; ``events`` the session's
        events oldest first (only the last few are kept), each a raw event object
        (docs/formats.md section 1) or a record ``{"event": obj, "seq": N, "status":
        "accepted"|"rejected"|"undone", "reason": str}``; ``extra`` optional page
        announcements: ``{"banner": "3... 2... 1... GO!"}``, ``{"call": "Ana: give your card
        to Ben"}``, ``{"ask": {"id": str, "text": str, "kind": "confirm"|"vote"}}``.
        Returns the new version number. Thread-safe; the encoding is done once here, not
        per client."""
        state = page_state(summary, events, extra, recent=self.recent)
        with self._cond:
            self._version += 1
            self._published = time.time()
            self._state = state
            self._payload = self._encode()
            self._cond.notify_all()
            return self._version

    def on_input(self, callback: InputCallback | None, actions: Iterable[str] = ACTIONS) -> None:
        """Registers the function that receives the page's inputs (a validated dict such as
        ``{"action": "undo"}``), called in the request's thread, so it must be thread-safe;
        ``actions`` are the ones this board takes (the page hides the others, the server
        answers 409 to them). It may return a short message for the page, or raise
        ``InputRefused`` with a reason (409). ``None`` unregisters."""
        wanted = frozenset(actions)
        unknown = wanted - ACTIONS
        if unknown:
            raise ValueError(f"unknown actions: {', '.join(sorted(unknown))}")
        with self._cond:
            self._callback = callback
            self._actions = wanted if callback is not None else frozenset()
            self._payload = self._encode()
            self._cond.notify_all()

    @property
    def version(self) -> int:
        with self._cond:
            return self._version

    def state(self) -> dict[str, Any]:
        """What ``/api/state`` answers: ``version``, ``boot`` (changes when the server
        restarts), ``published`` (Unix time of the publish, seconds), ``actions`` (the inputs
        taken), and ``page_state``'s keys."""
        with self._cond:
            return json.loads(self._payload)  # type: ignore[no-any-return]

    def _encode(self) -> bytes:
        """The state as JSON bytes; call with the lock held."""
        out = {
            "version": self._version,
            "boot": self._boot,
            "published": self._published,
            "actions": sorted(self._actions),
            **self._state,
        }
        return json_bytes(out)

    def _wait(self, seen: int, timeout: float) -> tuple[int, bytes] | None:
        """The newest (version, payload) once it differs from ``seen`` or ``timeout`` passes;
        None when the server stops."""
        with self._cond:
            self._cond.wait_for(lambda: self._stopping or self._version != seen, timeout)
            if self._stopping:
                return None
            return self._version, self._payload

    def _snapshot(self) -> tuple[int, bytes]:
        with self._cond:
            return self._version, self._payload

    def _open_stream(self) -> bool:
        with self._cond:
            if self._streams >= MAX_SSE_CLIENTS or self._stopping:
                return False
            self._streams += 1
            return True

    def _close_stream(self) -> None:
        with self._cond:
            self._streams -= 1

    def _deliver(self, obj: dict[str, Any]) -> tuple[HTTPStatus, dict[str, Any]]:
        """Hands a validated input to the callback: (status, JSON answer)."""
        with self._cond:
            callback, actions = self._callback, self._actions
        action = obj["action"]
        if callback is None or action not in actions:
            return HTTPStatus.CONFLICT, {"error": f"this scoreboard does not take {action!r}"}
        try:
            message = callback(obj)
        except InputRefused as exc:
            return HTTPStatus.CONFLICT, {"error": str(exc) or "refused"}
        except Exception:
            log.exception("the input callback failed on %r", obj)
            return HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "the input could not be handled"}
        return HTTPStatus.ACCEPTED, {"ok": True, "message": message}


class _Server(http.server.ThreadingHTTPServer):
    """One thread per connection (daemon threads: a stuck client never blocks exit)."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 64

    def __init__(self, address: tuple[str, int], handler: type[_Handler], board: Scoreboard):
        self.board = board
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Ends every open connection. Needed because a browser keeps idle connections
        alive and would send its next request (its reconnecting event stream, say) down one
        to a handler of this stopped server rather than to a new server on the same port."""
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "pictable-scoreboard"
    sys_version = ""
    timeout = SOCKET_TIMEOUT_S  # applies to reading the request and to every write

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    @property
    def board(self) -> Scoreboard:
        return self.server.board

    # Answers.

    def _headers(self, status: HTTPStatus, ctype: str, length: int | None, **extra: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        for key, value in extra.items():
            self.send_header(key.replace("_", "-"), value)
        self.end_headers()

    def _send(self, status: HTTPStatus, body: bytes, ctype: str, **extra: str) -> None:
        extra.setdefault("Cache_Control", "no-store")
        self._headers(status, ctype, len(body), **extra)
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: HTTPStatus, obj: dict[str, Any]) -> None:
        self._send(status, json_bytes(obj), "application/json; charset=utf-8")

    def _error(self, status: HTTPStatus, reason: str) -> None:
        self.close_connection = True
        self._json(status, {"error": reason})

    # Access.

    def _token_given(self, query: dict[str, list[str]]) -> tuple[str | None, bool]:
        """(the token this request carries, whether it came in the query)."""
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip(), False
        if "token" in query:
            return query["token"][0], True
        raw = self.headers.get("Cookie")
        if raw:
            try:
                jar = SimpleCookie(raw)
            except CookieError:
                return None, False
            morsel = jar.get(self._cookie_name())
            if morsel is not None:
                return morsel.value, False
        return None, False

    def _cookie_name(self) -> str:
        # Cookies ignore ports: two boards on one machine must not overwrite each other's.
        return f"pictable_token_{self.board.port}"

    def _allowed(self, query: dict[str, list[str]]) -> tuple[bool, bool]:
        """(whether the request may go on, whether its token came in the query); answers
        403 itself when not."""
        token = self.board.token
        if token is None:
            host = (self.headers.get("Host") or "").rsplit(":", 1)[0].lower()
            if self.headers.get("Host", "").startswith("[::1]"):
                host = "[::1]"
            if host not in _LOOPBACK_NAMES:
                self._error(HTTPStatus.FORBIDDEN, "this scoreboard answers only on localhost")
                return False, False
            return True, False
        given, in_query = self._token_given(query)
        if given is None or not hmac.compare_digest(given.encode(), token.encode()):
            self._error(
                HTTPStatus.FORBIDDEN,
                "a token is required: open the address printed when the scoreboard started",
            )
            return False, False
        return True, in_query

    # Methods.

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query, max_num_fields=8)
        ok, token_in_query = self._allowed(query)
        if not ok:
            return
        path = parts.path
        if path in ("/", "/index.html"):
            if token_in_query:
                # Keep the token out of the address bar, history and screenshots.
                cookie = (
                    f"{self._cookie_name()}={self.board.token}; Path=/; HttpOnly; SameSite=Strict"
                )
                self._send(HTTPStatus.SEE_OTHER, b"", "text/plain", Location="/", Set_Cookie=cookie)
                return
            self._static("index.html")
        elif path.startswith("/static/"):
            self._static(unquote(path[len("/static/") :]))
        elif path == "/api/state":
            _, payload = self.board._snapshot()
            self._send(HTTPStatus.OK, payload, "application/json; charset=utf-8")
        elif path == "/api/events":
            self._stream()
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon", Cache_Control="max-age=86400")
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such page")

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        ok, _ = self._allowed(parse_qs(parts.query, max_num_fields=8))
        if not ok:
            return
        if parts.path != "/api/input":
            self._error(HTTPStatus.NOT_FOUND, "no such endpoint")
            return
        origin = self.headers.get("Origin")
        if origin is not None and origin != "null":
            expected = f"http://{self.headers.get('Host', '')}"
            if origin != expected:
                self._error(HTTPStatus.FORBIDDEN, f"input from another site ({origin}) refused")
                return
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "the body must be application/json")
            return
        if self.headers.get("Transfer-Encoding"):
            self._error(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
            return
        raw_length = self.headers.get("Content-Length")
        if raw_length is None or not raw_length.isdigit():
            self._error(HTTPStatus.LENGTH_REQUIRED, "a Content-Length is required")
            return
        length = int(raw_length)
        if length > MAX_INPUT_BYTES:
            self._error(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"the body is too large ({length} bytes; at most {MAX_INPUT_BYTES})",
            )
            return
        body = self.rfile.read(length)
        if len(body) != length:
            self._error(HTTPStatus.BAD_REQUEST, "the body ended early")
            return
        try:
            obj = validate_input(body)
        except ValueError as exc:
            self._error(HTTPStatus.BAD_REQUEST, str(exc))
            return
        status, answer = self.board._deliver(obj)
        self._json(status, answer)

    def _static(self, name: str) -> None:
        # Only plain file names of the web folder: no separators, no "..", no hidden files,
        # so no path can lead outside it whatever its encoding.
        if not _STATIC_NAME.fullmatch(name) or ".." in name:
            self._error(HTTPStatus.NOT_FOUND, "no such file")
            return
        path = WEB_DIR / name
        ctype = CONTENT_TYPES.get(path.suffix)
        if ctype is None or not path.is_file():
            self._error(HTTPStatus.NOT_FOUND, "no such file")
            return
        body = path.read_bytes()
        extra = {"Cache_Control": "no-cache"}
        if name == "index.html":
            extra["Content_Security_Policy"] = CSP
        self._send(HTTPStatus.OK, body, ctype, **extra)

    def _stream(self) -> None:
        board = self.board
        if not board._open_stream():
            self._error(HTTPStatus.SERVICE_UNAVAILABLE, "too many open pages")
            return
        try:
            self.close_connection = True
            self._headers(
                HTTPStatus.OK,
                "text/event-stream; charset=utf-8",
                None,
                Cache_Control="no-store",
                X_Accel_Buffering="no",
                Connection="close",
            )
            if self.command == "HEAD":
                return
            version, payload = board._snapshot()
            self._message(version, payload, first=True)
            while True:
                got = board._wait(version, KEEPALIVE_S)
                if got is None:
                    return
                if got[0] == version:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
                    continue
                version, payload = got
                self._message(version, payload)
        except (OSError, ValueError):
            return  # the client went away (or timed out): its stream ends
        finally:
            board._close_stream()

    def _message(self, version: int, payload: bytes, *, first: bool = False) -> None:
        head = f"retry: {SSE_RETRY_MS}\n" if first else ""
        # JSON from json.dumps holds no raw newline, so the payload is one data line.
        self.wfile.write(f"{head}id: {version}\ndata: ".encode() + payload + b"\n\n")
        self.wfile.flush()
