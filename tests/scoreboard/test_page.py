"""The scoreboard page end to end in headless Chromium, driven over the DevTools protocol.

Chromium is Debian's ``chromium`` (``./setup.sh test`` installs it). Without it these tests
are skipped locally, and fail in CI (``CI=true``), where it must be there.

``PICTABLE_SCREENSHOTS=DIR`` also writes the screenshots taken to DIR (``docs/scoreboard.png``
is made that way).
"""

from __future__ import annotations

import json
import os
import queue
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pictable.scoreboard import Scoreboard
from tests.scoreboard.cdp import Browser, CDPError, Page, browser_or_skip
from tests.scoreboard.helpers import played

TOKEN = "page-test-token-0123456789"
RENDER_BOUND_S = 2.0  # generous for a loaded machine; the target is 0.5 s (measured: ~10 ms)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

RANKING_JS = """Array.from(document.querySelectorAll('#ranking li')).map(li => [
  li.dataset.player, Number(li.querySelector('.score').textContent),
  li.classList.contains('winner')])"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from browser_or_skip("page tests")


@pytest.fixture
def board() -> Iterator[Scoreboard]:
    with Scoreboard() as b:
        yield b


@pytest.fixture
def inputs(board: Scoreboard) -> queue.Queue[dict[str, Any]]:
    got: queue.Queue[dict[str, Any]] = queue.Queue()

    def take(obj: dict[str, Any]) -> str:
        got.put(obj)
        return f"got {obj['action']}"

    board.on_input(take)
    return got


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    p = browser.new_page(1280, 720)
    p.send("Log.enable")
    yield p
    p.close()


def open_board(page: Page, url: str, version: int = 1) -> None:
    page.goto(url)
    page.wait_for(f"window.pictable && window.pictable.version >= {version}")
    page.wait_for("window.pictable.link === 'live'")


def page_errors(browser: Browser, page: Page) -> list[str]:
    """Errors the page logged: script exceptions, CSP refusals, failed loads."""
    out = []
    for event in browser.events:
        if event.get("sessionId") != page.session:
            continue
        params = event.get("params", {})
        if event["method"] == "Runtime.exceptionThrown":
            out.append(json.dumps(params.get("exceptionDetails", {}))[:300])
        elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
            out.append(params["entry"].get("text", ""))
    return out


def save(name: str, png: bytes, tmp_path: Path) -> Path:
    (tmp_path / name).write_bytes(png)
    wanted = os.environ.get("PICTABLE_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        (Path(wanted) / name).write_bytes(png)
    return tmp_path / name


def test_page_shows_each_publish_within_the_bound(
    browser: Browser, board: Scoreboard, page: Page, record_property: Any
) -> None:
    summary, events = played("picasso", 10)
    board.publish(summary, events)
    open_board(page, board.url)
    shown = page.evaluate(RANKING_JS)
    assert {name: score for name, score, _ in shown} == summary["scores"]
    assert [score for _, score, _ in shown] == sorted(summary["scores"].values(), reverse=True)
    delays = []
    for n in range(11, 24):
        summary, events = played("picasso", n)
        published = time.time()
        version = board.publish(summary, events)
        rendered_ms = page.wait_for(f"window.pictable.renderedAt[{version}]", timeout=10)
        delays.append(rendered_ms / 1000 - published)
        shown = page.evaluate(RANKING_JS)
        assert {name: score for name, score, _ in shown} == summary["scores"]
        assert [w for w in shown if w[2]] == [
            [p, summary["scores"][p], True] for p in summary["winners"]
        ]
    median, worst = statistics.median(delays), max(delays)
    record_property("publish_to_render_median_s", round(median, 4))
    record_property("publish_to_render_max_s", round(worst, 4))
    print(
        f"publish-to-render over {len(delays)} publishes: median {median * 1000:.1f} ms, "
        f"max {worst * 1000:.1f} ms"
    )
    assert worst < RENDER_BOUND_S, delays
    assert page.evaluate("document.getElementById('status').textContent") == "finished"
    assert page_errors(browser, page) == []


def test_undo_confirm_and_vote_buttons_reach_the_callback(
    board: Scoreboard, inputs: queue.Queue[dict[str, Any]], page: Page
) -> None:
    board.publish(*played("picflip", 6))
    open_board(page, board.url)
    assert page.evaluate("document.getElementById('undo').hidden") is False
    page.click("#undo")
    assert inputs.get(timeout=5) == {"action": "undo"}
    page.wait_for("document.getElementById('message').textContent === 'got undo'")

    summary, events = played("picflip", 7)
    ask = {"id": "play-7", "text": "Ben's play: is it a match?", "kind": "vote"}
    version = board.publish(summary, events, {"ask": ask})
    page.wait_for(f"window.pictable.version >= {version}")
    visible = page.evaluate(
        "['confirm', 'reject', 'vote-yes', 'vote-no']"
        ".map(id => !document.getElementById(id).hidden)"
    )
    assert visible == [False, False, True, True]
    assert page.evaluate("document.getElementById('ask').textContent") == ask["text"]
    page.click("#vote-no")
    assert inputs.get(timeout=5) == {"action": "vote", "ask": "play-7", "choice": "no"}
    # The buttons are disabled until the page has the answer to the vote: a click before
    # that is (rightly) lost.
    page.wait_for("document.getElementById('message').dataset.kind !== 'pending'")

    ask = {"id": "guess-3", "text": "Did Ben guess it?", "kind": "confirm"}
    version = board.publish(summary, events, {"ask": ask})
    page.wait_for(f"window.pictable.version >= {version}")
    page.click("#confirm")
    assert inputs.get(timeout=5) == {"action": "confirm", "ask": "guess-3"}


def test_names_and_card_ids_are_shown_as_text(board: Scoreboard, page: Page) -> None:
    evil = '<img src=x onerror="window.__pwned=1">'
    card = "<script>window.__pwned=2</script>"
    summary = {
        "game": "picflip",
        "players": [evil, "Zoë & <b>Bo</b>"],
        "scores": {evil: 3, "Zoë & <b>Bo</b>": 1},
        "finished": False,
        "winners": [],
        "cards_left": {evil: 1, "Zoë & <b>Bo</b>": 4},
        "pile": 4,
        "top": {"player": evil, "card": card, "phrase": "<i>red</i>"},
    }
    events = [{"type": "play", "player": evil, "card": card}]
    board.publish(summary, events, {"banner": "<marquee>GO</marquee>", "call": evil})
    open_board(page, board.url)
    names = page.evaluate(
        "Array.from(document.querySelectorAll('#ranking .name')).map(n => n.textContent)"
    )
    assert names == [evil, "Zoë & <b>Bo</b>"]
    assert page.evaluate("window.__pwned === undefined")
    assert page.evaluate("document.querySelectorAll('img, b, i, marquee, main script').length") == 0
    assert card in page.evaluate("document.getElementById('events').textContent")
    assert page.evaluate("document.getElementById('banner').textContent") == "<marquee>GO</marquee>"


def test_the_page_says_point_and_card_in_the_right_number(board: Scoreboard, page: Page) -> None:
    """One point and one card, as the page shows them ("1 pts" before)."""
    summary = {
        "game": "picasso",
        "players": ["Ann", "Ben"],
        "scores": {"Ann": 6, "Ben": 20},
        "finished": False,
        "winners": [],
        "points": {"Ann": 1, "Ben": 10},
        "cards_held": {"Ann": 1, "Ben": 2},
        "turn": 3,
        "turns": 4,
        "builder": "Ann",
        "card": "cat",
        "cost": 9,
    }
    board.publish(summary, [])
    open_board(page, board.url)
    details = page.evaluate(
        "Object.fromEntries(Array.from(document.querySelectorAll('#ranking li')).map("
        "li => [li.dataset.player, li.querySelector('.detail').textContent]))"
    )
    assert details == {"Ann": "1 point + 1 card", "Ben": "10 points + 2 cards"}
    shown = page.evaluate("document.getElementById('details').textContent")
    assert shown == "A guess now scores Ann 1 point"


def test_token_mode_in_the_browser(browser: Browser, page: Page) -> None:
    with Scoreboard(token=TOKEN) as locked:
        page.goto(locked.url)  # no token: refused
        page.wait_for("document.body && document.body.textContent.includes('token')")
        locked.publish(*played("picmix", 5))
        open_board(page, locked.page_url)  # the token once; then the cookie
        assert page.evaluate("location.search") == ""  # the token left the address bar
        version = locked.publish(*played("picmix", 6))
        page.wait_for(f"window.pictable.version === {version}")


def test_page_reconnects_after_the_server_restarts(page: Page) -> None:
    first = Scoreboard().start()
    port = first.port
    try:
        first.publish(*played("pickpic", 10))
        open_board(page, first.url)
        boot = page.evaluate("window.pictable.boot")
    finally:
        first.stop()
    page.wait_for("window.pictable.link === 'lost'")
    with Scoreboard(port=port) as second:
        summary, events = played("pickpic", 12)
        second.publish(summary, events)  # version 1 again, from a new boot
        page.wait_for(f"window.pictable.boot !== {json.dumps(boot)}", timeout=10)
        page.wait_for("window.pictable.link === 'live'")
        assert page.evaluate("window.pictable.version") == 1


@pytest.mark.parametrize(
    ("name", "size", "scheme"),
    [
        ("scoreboard.png", (1280, 720), "light"),
        ("scoreboard-dark.png", (1280, 720), "dark"),
        ("scoreboard-phone.png", (390, 844), "light"),
    ],
)
def test_screenshot_of_a_picasso_game(
    browser: Browser,
    board: Scoreboard,
    inputs: queue.Queue[dict[str, Any]],
    page: Page,
    tmp_path: Path,
    name: str,
    size: tuple[int, int],
    scheme: str,
) -> None:
    width, height = size
    page.resize(width, height, mobile=width < 600)
    page.send(
        "Emulation.setEmulatedMedia",
        {
            "features": [
                {"name": "prefers-color-scheme", "value": scheme},
                {"name": "prefers-reduced-motion", "value": "reduce"},
            ]
        },
    )
    summary, events = played("picasso", 15)
    board.publish(summary, events, {"call": "Ana: build! The others guess"})
    open_board(page, board.url)
    # Readable: nothing wider than the screen; on a laptop screen, no scrolling either.
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    if width >= 1000:
        assert page.evaluate("document.documentElement.scrollHeight <= innerHeight")
    dark = page.evaluate(
        "getComputedStyle(document.body).backgroundColor.match(/\\d+/g).slice(0, 3)"
        ".map(Number).reduce((a, b) => a + b) < 200"
    )
    assert dark == (scheme == "dark")
    assert page.evaluate("document.getElementById('headline').textContent") == (
        "Turn 4 of 6: Ana builds"
    )
    png = page.screenshot()
    assert png.startswith(PNG_MAGIC)
    save(name, png, tmp_path)
    assert page_errors(browser, page) == []


def test_cdp_errors_are_reported(page: Page) -> None:
    with pytest.raises(CDPError):
        page.evaluate("no_such_name.x")
