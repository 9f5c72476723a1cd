"""A minimal Chrome DevTools Protocol client for the page tests: standard library only.

``Browser`` starts headless Chromium with ``--remote-debugging-port=0``, reads the port it
picked from ``DevToolsActivePort`` in its profile folder, and speaks CDP over a WebSocket
(RFC 6455, client side: masked text frames out, unfragmented or fragmented frames in).
``Browser.new_page()`` opens a tab attached in flat mode (``Target.attachToTarget`` with
``flatten``), whose commands carry its ``sessionId``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ENV_CHROMIUM = "PICTABLE_CHROMIUM"
START_TIMEOUT_S = 20.0
COMMAND_TIMEOUT_S = 15.0
_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",  # root in a container: no user namespaces for the sandbox
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


class CDPError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


def find_chromium() -> str | None:
    """The Chromium binary: ``$PICTABLE_CHROMIUM``, else the first of ``CHROMIUM_NAMES`` on
    the PATH; None when there is none."""
    env = os.environ.get(ENV_CHROMIUM)
    if env:
        return env if Path(env).is_file() else shutil.which(env)
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class WebSocket:
    """A blocking WebSocket client for one ``ws://`` URL (no TLS, no extensions)."""

    def __init__(self, url: str, timeout: float = COMMAND_TIMEOUT_S) -> None:
        parts = urlsplit(url)
        if parts.scheme != "ws" or parts.hostname is None:
            raise ValueError(f"not a ws:// URL: {url!r}")
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=timeout)
        try:
            self._handshake(parts.netloc, parts.path or "/")
        except BaseException:
            self.sock.close()
            raise

    def _handshake(self, host: str, path: str) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket handshake")
            head += chunk
        head, self._rest = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise ConnectionError(f"WebSocket handshake refused: {lines[0]}")
        expected = base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest()).decode()
        headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        if headers.get("sec-websocket-accept") != expected:
            raise ConnectionError("WebSocket handshake: wrong Sec-WebSocket-Accept")

    def _recv_exact(self, n: int) -> bytes:
        data = self._rest[:n]
        self._rest = self._rest[n:]
        while len(data) < n:
            chunk = self.sock.recv(max(65536, n - len(data)))
            if not chunk:
                raise ConnectionError("the browser closed the WebSocket")
            data += chunk
        if len(data) > n:
            self._rest = data[n:] + self._rest
            data = data[:n]
        return data

    def send_frame(self, opcode: int, payload: bytes) -> None:
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, text: str) -> None:
        self.send_frame(0x1, text.encode())

    def recv(self) -> str:
        """The next text message (pings answered, fragments joined)."""
        parts: list[bytes] = []
        while True:
            b0, b1 = self._recv_exact(2)
            fin, opcode = b0 & 0x80, b0 & 0x0F
            n = b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._recv_exact(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._recv_exact(8))
            mask = self._recv_exact(4) if b1 & 0x80 else None
            payload = self._recv_exact(n)
            if mask is not None:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            if opcode == 0x9:
                self.send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            parts.append(payload)
            if fin:
                return b"".join(parts).decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send_frame(0x8, struct.pack("!H", 1000))
        self.sock.close()


class Browser:
    """Headless Chromium under CDP; a context manager that always ends the process."""

    def __init__(self, binary: str, *, window: tuple[int, int] = (1280, 720)) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="pictable-chromium-")
        profile = Path(self._profile.name)
        self._log = open(profile / "chromium.log", "wb")  # noqa: SIM115 (closed in close())
        args = [
            binary,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile / 'data'}",
            f"--window-size={window[0]},{window[1]}",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT
        )
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        try:
            self.ws = WebSocket(self._devtools_url(profile / "data"))
        except BaseException:
            self.close()
            raise

    def _devtools_url(self, data: Path) -> str:
        marker = data / "DevToolsActivePort"
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CDPError(f"chromium exited with {self.proc.returncode}: {self.log_tail()}")
            with contextlib.suppress(OSError):
                lines = marker.read_text().split("\n")
                if len(lines) >= 2 and lines[0].strip().isdigit() and lines[1].strip():
                    return f"ws://127.0.0.1:{lines[0].strip()}{lines[1].strip()}"
            time.sleep(0.05)
        raise CDPError(f"chromium did not open its DevTools port: {self.log_tail()}")

    def log_tail(self, n: int = 2000) -> str:
        """The end of Chromium's own output, for error messages."""
        self._log.flush()
        with contextlib.suppress(OSError):
            return (
                (Path(self._profile.name) / "chromium.log")
                .read_bytes()[-n:]
                .decode(errors="replace")
            )
        return ""

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        session: str | None = None,
        timeout: float = COMMAND_TIMEOUT_S,
    ) -> dict[str, Any]:
        """Runs one CDP command and returns its result; events seen meanwhile are kept in
        ``events``."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            self.ws.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                reply = json.loads(self.ws.recv())
            except TimeoutError:
                raise CDPError(f"{method}: no answer in {timeout} s") from None
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            if "method" in reply:
                self.events.append(reply)

    def new_page(self, width: int = 1280, height: int = 720) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, target, session)
        page.send("Page.enable")
        page.send("Runtime.enable")
        page.resize(width, height)
        return page

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            with contextlib.suppress(OSError, CDPError, ConnectionError):
                self.send("Browser.close", timeout=3)
            ws.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self._log.close()
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    """One tab of a ``Browser``."""

    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def resize(self, width: int, height: int, mobile: bool = False, scale: float = 1) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": mobile},
        )

    def goto(self, url: str) -> None:
        answer = self.send("Page.navigate", {"url": url})
        if answer.get("errorText"):
            raise CDPError(f"navigating to {url}: {answer['errorText']}")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited)."""
        answer = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in answer:
            raise CDPError(f"{expression}: {answer['exceptionDetails']}")
        return answer.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 5.0, interval: float = 0.02) -> Any:
        """Polls ``expression`` until it is truthy; returns its value or raises CDPError."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except CDPError:  # a page still loading has no context to evaluate in yet
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"timed out after {timeout} s waiting for {expression}")
            time.sleep(interval)

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the middle of the element."""
        box = self.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def screenshot(self) -> bytes:
        """A PNG of the viewport."""
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        return base64.b64decode(data)

    def close(self) -> None:
        with contextlib.suppress(CDPError):
            self.browser.send("Target.closeTarget", {"targetId": self.target})


def browser_or_skip(what: str) -> Iterator[Browser]:
    """A started ``Browser`` for a module's ``what`` tests ("page tests"), closed after them:
    skipped where Chromium is not installed, failed in CI, which must run them."""
    binary = find_chromium()
    if binary is None:
        reason = (
            "Chromium is not installed (Debian: apt-get install --no-install-recommends "
            "chromium; or set PICTABLE_CHROMIUM to the binary)"
        )
        import pytest  # only here: the client itself is standard library only

        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{reason}: CI must run the {what}")
        pytest.skip(reason)
    with Browser(binary) as b:
        yield b
