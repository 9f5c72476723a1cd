"""The live pipeline: frames -> follower -> events -> event store -> engine -> view and page.

The follower (``pictable.followers``) is the game-specific part: stateless readers under a
tracker that confirms what the table shows over time. ``LivePipeline`` does the rest the
same way for every game:

- each event is appended to the session in the SQLite event store (committed before it
  counts) and judged by the engine there: a rejected event is recorded with its reason,
  shown, and the game goes on with the state it had;
- the scoreboard page (``pictable.scoreboard``), when given, is published after every change;
- corrections come from keys, the terminal or the page as short commands (``command``):
  undo the last event, confirm or reject the last guess / claim / play, or a missed event
  typed as one JSON line. They may be posted from any thread (``post``) and are carried out
  in the pipeline's own thread (``drain``), which owns the SQLite connection.

Timing: ``feed`` records, per frame, the milliseconds the follower and the store took; per
event, the frame time that confirmed it and the wall-clock delay from the frame's arrival to
the event being stored (``Record.delay_ms``).
"""

from __future__ import annotations

import json
import logging
import queue
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

import engine
from pictable.followers import Follower
from pictable.store import EventStore, one_line

log = logging.getLogger("pictable.live")

ASKED = {"guess": "confirm", "claim": "confirm", "play": "vote"}
"""Events the players may contest, and how the page asks about them. An event a follower
marks ``"meta": {"ask": WHAT}`` (Pick Pic's giver when the calls and the hand disagree) is
asked about too."""


def _asks(event: Any) -> bool:
    meta = event.get("meta") if isinstance(event, dict) else None
    return isinstance(meta, dict) and bool(meta.get("ask"))


BANNER_S = 4.0
"""How long a rejection or a correction stays on the live view and the page (seconds)."""

GAP_S = 1.0
"""A live source silent this long is reported as away on the view and the page."""
HELP_KEYS = "u undo · y confirm · n reject · e enter an event · 1-9 seat claims · q quit"


@dataclass
class Record:
    """One event the pipeline handled."""

    event: dict[str, Any]
    seq: int
    accepted: bool
    reason: str | None
    by: str  # "camera" or "person"
    frame_t: float | None  # time of the frame that confirmed it (camera events)
    delay_ms: float | None  # frame handed in -> event stored, wall clock

    @property
    def status(self) -> str:
        return "accepted" if self.accepted else "rejected"


@dataclass
class PipelineStats:
    """Counts and timings of a run."""

    frames: int = 0
    events: int = 0
    rejected: int = 0
    corrections: int = 0
    step_ms: list[float] = field(default_factory=list)

    def median_ms(self) -> float:
        return float(np.median(self.step_ms)) if self.step_ms else 0.0

    def fps(self) -> float:
        """Frames per second the pipeline sustains: 1000 / median milliseconds per frame."""
        m = self.median_ms()
        return 1000.0 / m if m > 0 else 0.0


class LivePipeline:
    """Runs ``follower`` over frames and keeps the session ``session_id`` of ``store``.

    ``board``: a started ``Scoreboard`` to publish to (optional). ``clock``: seconds,
    monotonic (tests may pass their own)."""

    def __init__(
        self,
        store: EventStore,
        session_id: int,
        follower: Follower,
        *,
        board: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.follower = follower
        self.board = board
        self.clock = clock
        self.state: engine.State = store.load(session_id)
        self.game = store.session(session_id).game
        self.records: list[Record] = []
        self.stats = PipelineStats()
        self.ask: dict[str, Any] | None = None
        self.banner: tuple[str, float] | None = None  # (text, since)
        self.last_frame: NDArray[np.uint8] | None = None
        self.last_t = 0.0
        self._inbox: queue.Queue[tuple[str, queue.Queue[str] | None]] = queue.Queue()
        self._published: tuple[str | None, str | None, str | None] | None = None
        resume = getattr(follower, "resume", None)
        stored = store.session(session_id).events
        if callable(resume) and stored:
            # The summary says where the game stands; the log says what the table held
            # (a round's cards, the last build), which a summary does not list.
            log_events = [
                dict(e.obj) for e in store.events(session_id) if e.in_force and e.obj is not None
            ]
            resume(self.state.summary(), log_events)
        self.publish()

    # ------------------------------------------------------------------ frames
    def feed(self, frame: NDArray[np.uint8], t: float) -> list[Record]:
        """One frame: the follower's events are stored and applied, in order; corrections
        posted meanwhile are carried out first."""
        self.drain()
        started = self.clock()
        events = self.follower.update(frame, t)
        handled = [self.submit(e, by="camera", frame_t=t, since=started) for e in events]
        self.stats.frames += 1
        self.stats.step_ms.append((self.clock() - started) * 1000.0)
        self.last_frame = frame
        self.last_t = t
        if not handled and self._announcements() != self._published:
            self.publish()  # a new prompt or countdown, or a banner that ran out
        return handled

    def finish(self) -> list[Record]:
        """The end of the frames: what the follower completes then."""
        self.drain()
        started = self.clock()
        return [
            self.submit(e, by="camera", frame_t=self.last_t, since=started)
            for e in self.follower.finish(self.last_t)
        ]

    def run(self, frames: Iterable[tuple[NDArray[np.uint8], float]]) -> Iterator[list[Record]]:
        """``feed`` over ``(frame, t)`` pairs, yielding each frame's records; then
        ``finish``."""
        for frame, t in frames:
            yield self.feed(frame, t)
        yield self.finish()

    # ------------------------------------------------------------------ events
    def submit(
        self,
        event: dict[str, Any],
        *,
        by: str = "person",
        frame_t: float | None = None,
        since: float | None = None,
    ) -> Record:
        """Stores one event and applies it (the store judges it with the engine)."""
        result = self.store.append(self.session_id, event)
        self.state = result.state
        delay = None if since is None else (self.clock() - since) * 1000.0
        record = Record(
            dict(event) if isinstance(event, dict) else {"raw": event},
            result.seq,
            result.accepted,
            result.reason,
            by,
            frame_t,
            delay,
        )
        self.records.append(record)
        self.stats.events += 1
        kind = event.get("type") if isinstance(event, dict) else None
        if not result.accepted:
            self.stats.rejected += 1
            self.say(f"rejected {kind}: {one_line(result.reason or '')}")
            log.warning("event %d rejected: %s", result.seq, result.reason)
        elif kind in ASKED or _asks(event):
            self.ask = self._ask_for(record)
        self.publish()
        return record

    def _ask_for(self, record: Record) -> dict[str, Any]:
        e = record.event
        kind = str(e.get("type"))
        if kind not in ASKED:  # a follower unsure of what it saw (Pick Pic's giver)
            what = e.get("meta", {}).get("ask")
            if kind == "give":
                text = f"Did {e.get('from')} give {e.get('to')} this card?"
            elif kind == "build":  # the Picasso reader doubts its counts (a coarse view)
                pieces = e.get("pieces") if isinstance(e.get("pieces"), dict) else {}
                seen = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in pieces.items() if n)
                text = (
                    f"The build was counted as {seen or 'nothing'}, but {what}. Right? "
                    "(n rejects it; e enters the right one)"
                )
            else:
                text = f"{kind}: is the {what or 'reading'} right?"
            return {"id": f"{kind}-{record.seq}", "text": text, "kind": "confirm"}
        if kind == "guess" and _asks(e):
            text = (
                f"{e.get('player')} guessed the word, but no build was seen on the board: "
                "scored as an empty board (10 to the builder). Right? (n withdraws the guess)"
            )
        elif kind == "guess":
            text = f"{e.get('player')} guessed the word: right?"
        elif kind == "claim":
            last = self.state.summary().get("last_claim") or {}
            verdict = "right" if last.get("correct") else "wrong"
            text = f"{e.get('player')}'s Picmix was judged {verdict}: keep it?"
        else:
            text = f"{e.get('player')}'s card: is it a match?"
        return {"id": f"{kind}-{record.seq}", "text": text, "kind": ASKED[kind]}

    # ------------------------------------------------------------------ corrections
    def post(self, text: str) -> queue.Queue[str]:
        """Queues a command from another thread (the page, the terminal); its answer
        arrives on the returned queue once the pipeline's thread has carried it out."""
        answer: queue.Queue[str] = queue.Queue(maxsize=1)
        self._inbox.put((text, answer))
        return answer

    def drain(self) -> list[str]:
        """Carries out the commands posted so far (in this thread); returns their answers."""
        answers = []
        while True:
            try:
                text, answer = self._inbox.get_nowait()
            except queue.Empty:
                return answers
            reply = self.command(text)
            answers.append(reply)
            if answer is not None:
                answer.put(reply)

    def command(self, text: str) -> str:
        """A correction: ``undo`` (``u``), ``confirm`` (``y``), ``reject`` (``n``),
        ``vote yes|no``, ``claim SEAT`` (a Picmix claim for seat 1-9 on the last frame), or
        one event as a JSON object. Returns what was done, in words; never raises for bad
        input."""
        words = text.strip().split()
        if not words:
            return "nothing to do"
        head = words[0].lower()
        self.stats.corrections += 1
        if head in ("u", "undo"):
            return self.say(self.undo())
        if head in ("y", "yes", "confirm"):
            return self.say(self.confirm())
        if head in ("n", "no", "reject"):
            return self.say(self.reject())
        if head == "vote" and len(words) == 2 and words[1] in ("yes", "no"):
            return self.say(self.confirm() if words[1] == "yes" else self.reject())
        if head == "claim" and len(words) == 2 and words[1].isdigit():
            return self.say(self.claim_key(int(words[1]) - 1))
        if text.lstrip().startswith("{"):
            return self.say(self.enter(text))
        self.stats.corrections -= 1
        return f"unknown command {one_line(text)[:60]!r} ({HELP_KEYS})"

    def undo(self) -> str:
        """Withdraws the last accepted event."""
        from pictable.store import StoreError

        try:
            undone = self.store.undo_last(self.session_id)
        except (StoreError, ValueError) as exc:
            return f"cannot undo: {exc}"
        self.state = undone.state
        self.ask = None
        self.publish()
        return f"undone: {one_line(undone.line)[:120]}"

    def confirm(self) -> str:
        if self.ask is None:
            return "nothing to confirm"
        text, self.ask = self.ask["text"], None
        self.publish()
        return f"confirmed: {text}"

    def reject(self) -> str:
        """The players contest the last guess, claim or play: a Pic Flip play gets the
        game's ``reject`` event; a guess or a claim is withdrawn when it is still the last
        event."""
        if self.ask is None:
            return "nothing to reject"
        kind, _, seq = str(self.ask["id"]).partition("-")
        self.ask = None
        if kind == "play":
            # The follower takes the card back off its pile when it can (Pic Flip's does).
            take_back = getattr(self.follower, "reject", None)
            event = take_back(self.last_t) if callable(take_back) else None
            if event is None:
                event = {"type": "reject", "t": round(self.last_t, 3)}
            record = self.submit(event, by="person")
            return "play rejected" if record.accepted else f"reject refused: {record.reason}"
        events = [e for e in self.store.events(self.session_id) if e.in_force]
        if not events or str(events[-1].seq) != seq:
            self.publish()
            return f"cannot reject the {kind}: later events stand; undo them first"
        return self.undo().replace("undone", f"{kind} withdrawn", 1)

    def enter(self, text: str) -> str:
        """A missed event typed by a person (one JSON object)."""
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            return f"not an event: {exc}"
        if not isinstance(obj, dict):
            return "not an event: a JSON object is needed"
        record = self.submit(obj, by="person")
        return f"entered {obj.get('type')}" if record.accepted else "entered event rejected"

    def claim_key(self, seat: int) -> str:
        key = getattr(self.follower, "key", None)
        if key is None or self.last_frame is None:
            return "claims by key are for Picmix, once a frame has been seen"
        if not 0 <= seat < len(self.state.summary().get("players", [])):
            return f"no seat {seat + 1}"
        started = self.clock()
        records = [
            self.submit(e, by="person", frame_t=self.last_t, since=started)
            for e in key(seat, self.last_frame, self.last_t)
        ]
        return f"claim read for seat {seat + 1}" if records else "no claim could be read"

    # ------------------------------------------------------------------ display
    def say(self, text: str) -> str:
        """Shows ``text`` on the live view and the page for a few seconds."""
        self.banner = (text, self.clock())
        log.info("%s", text)
        self.publish()
        return text

    def banner_text(self) -> str | None:
        if self.banner is None:
            return None
        text, since = self.banner
        return text if self.clock() - since < BANNER_S else None

    def prompt(self) -> str | None:
        if self.state.finished:
            return None
        try:
            return self.follower.prompt()
        except Exception as exc:  # a display helper never stops the game
            log.debug("prompt failed: %s", exc)
            return None

    def follower_banner(self) -> str | None:
        """What the follower announces in large (the Pic Flip countdown), if anything."""
        banner = getattr(self.follower, "banner", None)
        if not callable(banner):
            return None
        try:
            text = banner()
        except Exception as exc:  # a display helper never stops the game
            log.debug("banner failed: %s", exc)
            return None
        return str(text) if text else None

    def _announcements(self) -> tuple[str | None, str | None, str | None]:
        return (self.follower_banner() or self.banner_text(), self.prompt(), str(self.ask))

    def publish(self) -> None:
        self._published = self._announcements()
        if self.board is None:
            return
        extra: dict[str, Any] = {}
        banner, call, _ = self._published
        if banner:
            extra["banner"] = banner
        if call:
            extra["call"] = call
        if self.ask is not None:
            extra["ask"] = self.ask
        events = [
            {"event": e.obj, "line": e.line, "seq": e.seq, "status": e.status, "reason": e.reason}
            for e in self.store.events(self.session_id)
        ]
        self.board.publish(self.state.summary(), events, extra)

    def page_input(self, obj: dict[str, Any]) -> str | None:
        """The scoreboard page's callback (runs in a request thread): queues the command
        and waits briefly for its answer."""
        action = obj.get("action")
        text = {"undo": "undo", "confirm": "confirm", "reject": "reject"}.get(str(action))
        if action == "vote":
            text = f"vote {obj.get('choice')}"
        if text is None:
            return None
        try:
            return self.post(text).get(timeout=2.0)
        except queue.Empty:
            return f"{text}: queued"


def drive(
    pipeline: LivePipeline,
    reader: Any,
    *,
    live: bool,
    stop: Any = None,
    on_frame: Callable[[NDArray[np.uint8], list[Record]], bool] | None = None,
    timeout_s: float = 0.5,
) -> list[Record]:
    """Feeds ``pipeline`` with the frames of a started ``LatestFrameReader`` until the
    source ends, ``stop`` (a ``threading.Event``) is set, or ``on_frame(image, records)``
    returns False; then ``finish``. A live source's clock times are made relative to its
    first frame (a session's times start at 0). While a camera is away ``read`` gives None:
    corrections are still carried out. Returns the records of ``finish``."""
    t0: float | None = None
    last_frame = time.monotonic()
    away = False
    while stop is None or not stop.is_set():
        frame = reader.read(timeout=timeout_s)
        if frame is None:
            pipeline.drain()
            if reader.ended:
                break
            if live and not away and time.monotonic() - last_frame > GAP_S:
                away = True
                pipeline.say("no frames from the camera: reconnecting (the game is kept)")
            continue
        if away:
            pipeline.say(f"the camera is back after {time.monotonic() - last_frame:.1f} s")
            away = False
        last_frame = time.monotonic()
        if t0 is None:
            t0 = frame.t if live else 0.0
        records = pipeline.feed(frame.image, frame.t - t0)
        if on_frame is not None and not on_frame(frame.image, records):
            break
    return pipeline.finish()


#: Allocations at least this large are mapped apart and given back to the system when freed.
BIG_BUFFER_BYTES = 1 << 20


def give_back_big_buffers() -> bool:
    """Makes the C allocator map every buffer of at least ``BIG_BUFFER_BYTES`` apart and give
    it back to the system when freed (glibc's ``M_MMAP_THRESHOLD``; others: nothing done).

    A live process allocates and frees a few frame-sized buffers per frame (6 MB at
    1920x1080) from several threads (the video encoder's among them). glibc raises its
    threshold for mapping buffers apart after the first such buffer is freed, so later ones
    come from heaps that grow to their high-water mark and stay there. Fixing the threshold
    keeps a 1080p session's peak memory some 40 MB lower (``pictable.bench.live``). Returns
    whether it was set."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    m_mmap_threshold = -3
    return bool(mallopt(m_mmap_threshold, BIG_BUFFER_BYTES))
