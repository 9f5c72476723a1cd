"""Rendered Picasso boards on disk, for the benchmark, the tests and model training.

Boards are drawn the way ``pictable bench`` draws them (scene ``i`` of a run with seed ``s``
uses ``seed_i = s * 1_000_003 + i``: ``random_picasso_board(default_rng(seed_i), tier)``
rendered with ``render_scene(spec, seed=seed_i)``), and kept as PNG (lossless) plus the
board truth as JSON, in ``<cache>/picasso/<tier>-seed<s>/``, so a second run reads them back.

Runs in other looks than the kit's (issue 25: ``looks="dev"`` or ``"held"``) draw the same
pieces (the scene's generator is the same) in a random look of that group drawn from a
stream of its own (``vision.synth.board_look(seed_i, looks)``), cached in
``<tier>-<looks>-seed<s>/``; their JSON also holds the look's part names (``look``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

#: Scene ``i`` of a run with seed ``s`` uses seed ``s * SEED_STRIDE + i`` (as ``pictable bench``).
SEED_STRIDE = 1_000_003


@dataclass(frozen=True)
class RenderedBoard:
    """One rendered board: the frame (H, W, 3) uint8 BGR, its seed, and the truth of the
    board as plain JSON (``vision.synth.BoardTruth`` as ``Truth.to_json()`` writes it), with
    the camera (``K``, ``dist``) for runs that pretend to have a calibration file."""

    index: int
    seed: int
    frame: NDArray[np.uint8]
    board: dict[str, Any]
    camera: dict[str, Any]
    look: dict[str, str] | None = None


def default_cache_dir() -> Path:
    """``<repo>/cache`` (ignored by git)."""
    return Path(__file__).resolve().parents[2] / "cache"


def scene_seed(seed: int, index: int) -> int:
    """The seed of scene ``index`` of a run with ``seed``."""
    return seed * SEED_STRIDE + index


#: Look groups of a run: the kit look (``None`` or ``"kit"``), development or held-back looks,
#: or the training looks (``wide``: any colour outside the held-back ones, ``vision.synth.looks``).
LOOKS = ("kit", "dev", "held", "wide")


def _kit(looks: str | None) -> bool:
    """True for a run in the kit look; refuses unknown groups."""
    if looks is not None and looks not in LOOKS:
        raise ValueError(f"looks must be one of {LOOKS} or None, got {looks!r}")
    return looks is None or looks == "kit"


def render_board(
    tier: str, scene: int, *, looks: str | None = None, **kwargs: Any
) -> tuple[NDArray[np.uint8], Any]:
    """Render one board: ``(frame, Truth)`` for scene seed ``scene`` in a look of ``looks``
    (``None``/``"kit"``, ``"dev"``, ``"held"``; other keyword arguments go to
    ``random_picasso_board``)."""
    from vision.synth import board_look, random_picasso_board, render_scene

    if not _kit(looks):
        kwargs["look"] = board_look(scene, looks)
    spec = random_picasso_board(np.random.default_rng(scene), tier, **kwargs)
    return render_scene(spec, seed=scene)


def board_with(
    pieces: list[Any],
    seed: int = 0,
    tier: str = "easy",
    *,
    n_hands: int = 0,
    supply: bool = False,
) -> Any:
    """A board scene (``vision.synth.SceneSpec``) of ``tier`` whose camera, light and table
    are drawn from ``seed`` and whose board holds exactly ``pieces`` (``vision.synth`` piece
    specs, board mm), with ``n_hands`` hands and, with ``supply``, the spare pieces beside
    the board that the seed draws: the boards of hand-built cases."""
    from dataclasses import replace

    from vision.synth import random_picasso_board

    spec = random_picasso_board(
        np.random.default_rng(seed),
        tier,
        n_sticks=0,
        n_shapes=0,
        string=False,
        supply=supply,
        n_hands=n_hands,
    )
    assert spec.board is not None
    extra = list(spec.board.pieces) if supply else []
    return replace(spec, board=replace(spec.board, pieces=tuple(list(pieces) + extra)))


def board_folder(tier: str, seed: int, looks: str | None = None) -> str:
    """The cache folder's name of a run: ``<tier>-seed<s>`` in the kit look (the folders
    of before looks existed), ``<tier>-<looks>-seed<s>`` otherwise; the hard tier's end in
    ``-glare`` (its boards have had a lamp's reflection on half of them since 2026-12-04:
    a cache of before is not read)."""
    name = f"{tier}-seed{seed}" if _kit(looks) else f"{tier}-{looks}-seed{seed}"
    return f"{name}-glare" if tier == "hard" else name


def iter_boards(
    tier: str,
    n: int,
    seed: int = 0,
    cache_dir: Path | None = None,
    looks: str | None = None,
) -> Iterator[RenderedBoard]:
    """``n`` rendered boards of ``tier`` in looks of ``looks`` (``None``/``"kit"``: the kit
    look; ``"dev"`` or ``"held"``: a random look of that group per board), rendered once,
    then read from the cache."""
    kit = _kit(looks)
    folder = (cache_dir or default_cache_dir()) / "picasso" / board_folder(tier, seed, looks)
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        s = scene_seed(seed, i)
        image, truth_file = folder / f"{i:04d}.png", folder / f"{i:04d}.json"
        frame: NDArray[np.uint8] | None = None
        if image.is_file() and truth_file.is_file():
            frame = cv2.imread(str(image), cv2.IMREAD_COLOR)
            meta = json.loads(truth_file.read_text(encoding="utf-8"))
        if frame is None:
            frame, truth = render_board(tier, s, looks=looks)
            full = truth.to_json()
            meta = {"board": full["board"], "camera": full["camera"]}
            if not kit:
                from vision.synth import board_look

                meta["look"] = board_look(s, looks).names()
            if not cv2.imwrite(str(image), frame):
                raise OSError(f"cannot write {image}")
            truth_file.write_text(json.dumps(meta), encoding="utf-8")
        yield RenderedBoard(
            i, s, np.asarray(frame, np.uint8), meta["board"], meta["camera"], meta.get("look")
        )
