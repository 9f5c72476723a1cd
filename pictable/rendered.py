"""Rendered sessions for the demo and the live benchmark: the synthetic camera's frame
sequences of a game, written once as a video file beside their true event log and reused.

``rendered_session(game, seed)`` returns a ``RenderedSession`` whose ``video`` is played
through the same frame source as any video (``vision.sources``), so the live pipeline runs
on it exactly as on a camera, and whose ``events`` are what a perfect follower would emit.
The cache (``$PICTABLE_CACHE``, else ``$XDG_CACHE_HOME/pictable``, else
``~/.cache/pictable``) is keyed by a hash of the renderer's and the kit's sources, so a change
to either renders afresh.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEQUENCE_FOR_GAME: dict[str, tuple[str, ...]] = {
    # Preferred first: whole sessions, then single turns.
    "picasso": ("picasso_game", "picasso_turn"),
    "picmix": ("picmix_game", "picmix_claim"),
    "pickpic": ("pickpic_session", "pickpic_game", "pickpic_round"),
    "picflip": ("picflip_session", "picflip_game"),
}
FOURCC = "mp4v"
RENDER_FPS = 10.0
RENDER_OPTIONS: dict[str, dict[str, Any]] = {
    # A Pick Pic session is long (every player reveals, gives, ranks): one round of three
    # players keeps the demo short; 4 frames per second is what its follower is measured at.
    "pickpic_session": {"fps": 4.0, "n_rounds": 1, "n_players": 3},
}
"""Per sequence kind: ``fps`` and keywords of ``render_sequence`` for the demo's sessions."""


@dataclass(frozen=True)
class RenderedSession:
    game: str
    kind: str
    seed: int
    tier: str
    video: Path
    events: list[dict[str, Any]]
    cached: bool

    @property
    def players(self) -> list[str]:
        return [str(p) for p in self.events[0].get("players", [])]


def cache_root() -> Path:
    env = os.environ.get("PICTABLE_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pictable"


def sequence_kind(game: str) -> str | None:
    """The synthetic camera's sequence kind for ``game``, or None when it has none."""
    from vision.synth import SEQUENCE_KINDS

    for kind in SEQUENCE_FOR_GAME.get(game, ()):
        if kind in SEQUENCE_KINDS:
            return kind
    return None


def _source_hash() -> str:
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for folder in ("vision/synth", "vision/kit"):
        for path in sorted((root / folder).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def rendered_session(
    game: str,
    seed: int = 1,
    tier: str = "normal",
    *,
    cache: Path | None = None,
    progress: Callable[[str], Any] | None = None,
    fps: float | None = None,
) -> RenderedSession:
    """The rendered session of ``game`` (rendered now, or reused from the cache).
    Raises ``LookupError`` when the synthetic camera has no sequence for the game."""
    import cv2

    from vision.synth import render_sequence

    kind = sequence_kind(game)
    if kind is None:
        raise LookupError(f"the synthetic camera has no rendered session of {game} yet")
    folder = (cache or cache_root()) / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    options = dict(RENDER_OPTIONS.get(kind, {}))
    default_fps = float(options.pop("fps", RENDER_FPS))
    fps = default_fps if fps is None else float(fps)
    rate = "" if fps == RENDER_FPS else f"-{fps:g}fps"
    extra = "".join(f"-{k}{v}" for k, v in sorted(options.items()))
    stem = f"{kind}-{tier}-s{seed}{rate}{extra}-{_source_hash()}"
    video, truth = folder / f"{stem}.mp4", folder / f"{stem}.jsonl"
    if video.is_file() and truth.is_file():
        events = [json.loads(line) for line in truth.read_text("utf-8").splitlines() if line]
        return RenderedSession(game, kind, seed, tier, video, events, True)
    seq = render_sequence(kind, seed, tier, fps=fps, **options)
    part = video.with_suffix(".part.mp4")
    writer = None
    bar = _bar(seq.n_frames, f"rendering {game}", progress)
    try:
        for item in seq:
            image = item.frame
            if writer is None:
                h, w = image.shape[:2]
                writer = cv2.VideoWriter(str(part), cv2.VideoWriter_fourcc(*FOURCC), fps, (w, h))
                if not writer.isOpened():
                    raise OSError(f"cannot write {part}")
            writer.write(image)
            bar.update(1)
    finally:
        bar.close()
        if writer is not None:
            writer.release()
    truth.with_suffix(".part").write_text(
        "".join(json.dumps(e) + "\n" for e in seq.events), "utf-8"
    )
    os.replace(truth.with_suffix(".part"), truth)
    os.replace(part, video)
    return RenderedSession(game, kind, seed, tier, video, list(seq.events), False)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(total: int, desc: str, progress: Callable[[str], Any] | None) -> Any:
    if progress is not None:
        progress(f"{desc}: {total} frames")
    if not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="frame", leave=False)


def truth_state(events: list[dict[str, Any]]) -> Any:
    """The engine state the true events lead to."""
    import engine

    state = engine.start(events[0])
    for e in events[1:]:
        state = engine.apply_raw(state, e)
    return state


def video_frames(path: Path) -> Iterator[Any]:
    """The frames of a rendered session's video (or any video file), (H, W, 3) uint8 BGR,
    one at a time."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                return
            yield frame
    finally:
        cap.release()
