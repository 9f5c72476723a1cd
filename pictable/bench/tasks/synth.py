"""Rendered table scenes from ``vision.synth``, per difficulty tier: printed markers, card
identification, the Picasso board and Picmix verification.

Scenes are rendered once and kept as PNG (lossless) plus their truth as JSON, so every runner
of a task reads the same 1280x720 frames. The cache folder is keyed by a hash of the
``vision/synth`` and ``vision/kit`` sources and this file, so a change to the renderer renders
afresh (the hash is taken once per run; see :func:`scenes_folder`).
Wiring to ``vision.synth`` is in two places only:

- :data:`GENERATORS` / :data:`RENDER`: per scene kind, the dotted paths tried in order for a
  generator ``f(rng=..., tier=..., [n_cards=...])`` (only the keywords it accepts are passed)
  returning a scene spec, which ``render_scene(spec, seed=...)`` turns into
  ``(frame, truth)``; a generator may also return ``(frame, truth)`` itself;
- the ``truth_*`` readers, which take from the truth (as JSON: ``Truth.to_json()``) what each
  scorer needs and raise a ``KeyError`` naming the field when it has another shape.

Until ``vision.synth`` has a generator these tasks report "not built yet"; a task none of
whose runners is built is not rendered at all (the harness skips it).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pictable.bench.adapters import as_plain, codes_adapter, entries
from pictable.bench.core import (
    CallFailed,
    DataSource,
    Metric,
    NotBuiltYet,
    Runner,
    RunnerSpec,
    Sample,
    Score,
    Settings,
    Task,
    resolve,
)
from pictable.bench.data import repo_root
from pictable.bench.tasks.common import opencv_version

TIERS = ("easy", "normal", "hard")

#: Scene generators tried in order, per scene kind.
GENERATORS: dict[str, tuple[str, ...]] = {
    "cards": (
        "vision.synth:random_cards_scene",
        "vision.synth.generators:random_cards_scene",
    ),
    "picasso": (
        "vision.synth:random_picasso_board",
        "vision.synth.generators:random_picasso_board",
    ),
    "picmix": (
        "vision.synth:random_picmix_claim",
        "vision.synth.generators:random_picmix_claim",
    ),
}
RENDER: tuple[str, ...] = ("vision.synth:render_scene", "vision.synth.render:render_scene")
#: Sources whose change invalidates cached scenes.
SOURCE_DIRS = ("vision/synth", "vision/kit")
#: Cards per scene are drawn from this range (issue 5: 1 to 12 cards).
CARDS_PER_SCENE = (1, 12)
#: A marker counts as in view (readable) when at least this share of it shows.
MARKER_VISIBLE_MIN = 0.99
#: A card is scored when at least this share of it shows (issue 5: 60% uncovered).
CARD_VISIBLE_MIN = 0.6
#: The dictionary of the kit's fiducials (KIT.md).
KIT_DICTIONARY = "DICT_4X4_50"


# ---- scenes ----------------------------------------------------------------------------------


def _first(targets: Sequence[str], what: str) -> Callable[..., Any]:
    reasons = []
    for target in targets:
        try:
            return resolve(target)
        except NotBuiltYet as exc:
            reasons.append(str(exc))
    raise NotBuiltYet(f"no {what}: " + "; ".join(reasons))


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with only the keywords ``fn`` accepts."""
    params = inspect.signature(fn).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        kwargs = {k: v for k, v in kwargs.items() if k in params}
    return fn(*args, **kwargs)


def _source_hash() -> str:
    digest = hashlib.sha256()
    root = repo_root()
    files = [Path(__file__)]
    for folder in SOURCE_DIRS:
        files += sorted((root / folder).rglob("*.py"))
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


_CURRENT: dict[Path, Path] = {}


def scenes_folder(cache: Path) -> Path:
    """This run's scene folder under ``cache``: ``synth-<hash of the renderer's sources>``.

    Decided once per process, so that a renderer edited during a long run does not move the
    scenes under the runners' feet; folders of other hashes are removed then (scenes of an
    older renderer)."""
    if cache not in _CURRENT:
        current = cache / f"synth-{_source_hash()}"
        for stale in cache.glob("synth-*"):
            if stale != current and stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
        _CURRENT[cache] = current
    return _CURRENT[cache]


def _render_one(kind: str, tier: str, seed: int) -> tuple[np.ndarray, Any]:
    generate = _first(GENERATORS[kind], f"{kind} scene generator in vision.synth")
    extra: dict[str, Any] = {}
    if kind == "cards":
        lo, hi = CARDS_PER_SCENE
        extra["n_cards"] = int(np.random.default_rng([seed, 1]).integers(lo, hi + 1))
    scene = _call(generate, rng=np.random.default_rng(seed), tier=tier, **extra)
    if isinstance(scene, tuple) and len(scene) == 2 and isinstance(scene[0], np.ndarray):
        return scene[0], scene[1]
    frame, truth = _call(_first(RENDER, "render_scene in vision.synth"), scene, seed=seed)
    return frame, truth


def render_samples(settings: Settings, kind: str, tier: str) -> list[Sample]:
    """``settings.scenes_per_tier`` scenes of ``kind`` at ``tier``: rendered (or found in the
    cache), written as PNG with their truth. Deterministic from ``settings.seed``."""
    import cv2

    _first(GENERATORS[kind], f"{kind} scene generator in vision.synth")  # fail fast
    cache = settings.cache_dir if settings.cache_dir is not None else default_cache_dir()
    folder = scenes_folder(cache) / f"{kind}-{tier}-seed{settings.seed}"
    folder.mkdir(parents=True, exist_ok=True)
    samples = []
    for i in range(settings.scenes_per_tier):
        seed = settings.seed * 1_000_003 + i
        image, truth_file = folder / f"{i:04d}.png", folder / f"{i:04d}.json"
        if image.is_file() and truth_file.is_file():
            truth = json.loads(truth_file.read_text(encoding="utf-8"))
        else:
            frame, raw_truth = _render_one(kind, tier, seed)
            truth = as_plain(raw_truth)
            if not cv2.imwrite(str(image), frame):
                raise OSError(f"cannot write {image}")
            truth_file.write_text(json.dumps(truth), encoding="utf-8")
        samples.append(Sample(id=f"{tier}/{i:04d}", path=image, truth=truth, extra={"seed": seed}))
    return samples


def default_cache_dir() -> Path:
    """``<repo>/cache/bench`` (ignored by git)."""
    return repo_root() / "cache" / "bench"


# ---- truth readers ---------------------------------------------------------------------------


def _field(obj: Any, *names: str) -> Any:
    if isinstance(obj, Mapping):
        for name in names:
            if name in obj:
                return obj[name]
    raise KeyError(
        f"rendered truth has none of {names} (wire pictable/bench/tasks/synth.py to "
        "vision.synth's truth)"
    )


def truth_markers(truth: Any) -> tuple[list[dict[str, Any]], set[int]]:
    """The kit markers in view (``{"id", "corners"}``, at least MARKER_VISIBLE_MIN showing)
    and the ids of every marker in the scene, however covered."""
    shown, every = [], set()
    for marker in _field(truth, "markers"):
        marker_id = int(_field(marker, "marker_id", "id"))
        every.add(marker_id)
        if float(marker.get("visible_fraction", 1.0)) >= MARKER_VISIBLE_MIN:
            shown.append({"id": marker_id, "corners": _field(marker, "corners_px", "corners")})
    return shown, every


def truth_cards(truth: Any) -> list[dict[str, Any]]:
    """Every card: ``{"card", "corners" (4, 2) px, "visible"}``."""
    return [
        {
            "card": str(_field(card, "card_id", "card", "id")),
            "corners": _field(card, "corners_px", "corners"),
            "visible": float(card.get("visible_fraction", 1.0)),
        }
        for card in _field(truth, "cards")
    ]


def truth_picasso(truth: Any) -> tuple[dict[str, int], int]:
    """The board's piece counts and cost."""
    board = _field(truth, "board")
    return dict(_field(board, "counts")), int(_field(board, "cost"))


def truth_picmix(truth: Any) -> tuple[set[str], str]:
    """The items showing in the player's area, and the verdict a perfect reader gives."""
    area = _field(truth, "picmix_areas")[0]
    visible = set(_field(area, "visible_items"))
    objectives = [c for c in _field(truth, "cards") if c.get("items")]
    if not objectives:
        raise KeyError("rendered Picmix truth has no face-up objective card (a card with items)")
    verdict = "correct" if visible == set(objectives[0]["items"]) else "wrong"
    return visible, verdict


# ---- plain-library runner and adapters ----------------------------------------------------------


def aruco_runner(samples: Sequence[Sample], subpix: bool = False) -> Runner:
    """OpenCV alone: ``ArucoDetector`` with the kit's dictionary (DICT_4X4_50), default
    parameters, or with ``cornerRefinementMethod = CORNER_REFINE_SUBPIX``."""
    import cv2

    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, KIT_DICTIONARY))
    params = cv2.aruco.DetectorParameters()
    if subpix:
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary, params)

    def run(frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        corners, ids, _ = detector.detectMarkers(frame)
        codes = [
            {
                "kind": "aruco",
                "id": int(marker_id),
                "dictionary": KIT_DICTIONARY,
                "corners": np.asarray(quad, float).reshape(4, 2).tolist(),
            }
            for quad, marker_id in zip(corners, [] if ids is None else ids.ravel(), strict=True)
        ]
        return {"codes": codes}

    return run


def cards_adapter(fn: Callable[..., Any], samples: Sequence[Sample]) -> Runner:
    """For ``pictable identify``: ``fn(frame)`` -> ``{"cards": [...]}``."""

    def run(frame: Any, sample: Sample) -> dict[str, Any]:
        return {"cards": entries(fn(frame), "cards")}

    return run


def plain_adapter(fn: Callable[..., Any], samples: Sequence[Sample]) -> Runner:
    """For ``analyze picasso`` / ``verify picmix``: ``fn(frame)`` -> its JSON entry."""

    def run(frame: Any, sample: Sample) -> Any:
        return as_plain(fn(frame))

    return run


# ---- scoring ---------------------------------------------------------------------------------


def score_markers(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Kit markers (DICT_4X4_50) in view read with the right id, ids read that are in no
    marker of the scene (misreads), and the mean-corner error of the markers read."""
    total = read = misreads = 0
    errors: list[float] = []
    wrong: list[str] = []
    for sample, output in zip(samples, outputs, strict=True):
        shown, every = truth_markers(sample.truth)
        codes = [] if isinstance(output, CallFailed) else entries(output, "codes")
        got = [
            c
            for c in codes
            if c.get("kind") == "aruco"
            and c.get("id") is not None
            and c.get("dictionary") in (None, KIT_DICTIONARY)
        ]
        total += len(shown)
        strange = [int(c["id"]) for c in got if int(c["id"]) not in every]
        misreads += len(strange)
        wrong += [f"{sample.id} id {i}" for i in strange]
        for marker in shown:
            same = [c for c in got if int(c["id"]) == marker["id"] and c.get("corners")]
            if not same:
                continue
            read += 1
            want = np.asarray(marker["corners"], float).reshape(4, 2)
            dists = [
                float(
                    np.linalg.norm(
                        np.asarray(c["corners"], float).reshape(4, 2) - want, axis=1
                    ).mean()
                )
                for c in same
            ]
            errors.append(min(dists))
    return Score(
        metrics={
            "markers": total,
            "read": read,
            "misreads": misreads,
            "corner_err_median_px": float(np.median(errors)) if errors else None,
        },
        notes=[f"misreads: {', '.join(wrong)}"] if wrong else [],
        details={"misreads": wrong},
    )


def score_cards(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Cards showing at least CARD_VISIBLE_MIN: named right, or missed; any card reported
    with the wrong id (or where there is none) is *named wrong*. A reported card is matched to
    the truth card whose outline centre is nearest its own, within half a card width."""
    total = right = wrong = 0
    for sample, output in zip(samples, outputs, strict=True):
        cards = truth_cards(sample.truth)
        got = [] if isinstance(output, CallFailed) else entries(output, "cards")
        total += sum(c["visible"] >= CARD_VISIBLE_MIN for c in cards)
        used: set[int] = set()
        for card in got:
            if not card.get("corners") or card.get("card") in (None, "unknown"):
                continue  # "I don't know" is not a wrong id
            centre = np.asarray(card["corners"], float).reshape(-1, 2).mean(axis=0)
            best, best_d = None, np.inf
            for i, t in enumerate(cards):
                quad = np.asarray(t["corners"], float).reshape(-1, 2)
                d = float(np.linalg.norm(quad.mean(axis=0) - centre))
                width = float(np.linalg.norm(quad[1] - quad[0]))
                if i not in used and d < 0.5 * width and d < best_d:
                    best, best_d = i, d
            if best is None:
                wrong += 1
                continue
            used.add(best)
            if str(card["card"]) != cards[best]["card"]:
                wrong += 1
            elif cards[best]["visible"] >= CARD_VISIBLE_MIN:
                right += 1
    return Score(metrics={"cards": total, "right": right, "wrong": wrong})


def score_picasso(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Scenes whose piece counts are all right, and whose cost is right."""
    counts_ok = cost_ok = 0
    for sample, output in zip(samples, outputs, strict=True):
        want, cost = truth_picasso(sample.truth)
        if isinstance(output, CallFailed) or not isinstance(output, Mapping):
            continue
        got = output.get("counts") or {}
        counts_ok += all(int(got.get(k, 0)) == int(v) for k, v in want.items())
        cost_ok += output.get("cost") == cost
    return Score(metrics={"counts_right": counts_ok, "cost_right": cost_ok})


def score_picmix(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Scenes whose verdict is right, and whose set of visible items is exactly right."""
    verdict_ok = visible_ok = 0
    for sample, output in zip(samples, outputs, strict=True):
        visible, verdict = truth_picmix(sample.truth)
        if isinstance(output, CallFailed) or not isinstance(output, Mapping):
            continue
        verdict_ok += output.get("verdict") == verdict
        visible_ok += set(output.get("visible") or []) == visible
    return Score(metrics={"verdict_right": verdict_ok, "visible_right": visible_ok})


# ---- tasks -----------------------------------------------------------------------------------


def _source(kind: str, tier: str, what: str) -> DataSource:
    loader = functools.partial(render_samples, kind=kind, tier=tier)
    return DataSource("rendered", f"vision.synth {what}, {tier} tier", loader)


def _tasks_for(tier: str) -> list[Task]:
    cards = _source("cards", tier, "card scenes (1 to 12 cards, play-area markers 0-3)")
    return [
        Task(
            name=f"synth-markers-{tier}",
            title=f"Kit markers on rendered tables ({tier})",
            source=cards,
            score=score_markers,
            metrics=(
                Metric("markers", "markers in view", "int", None),
                Metric("read", "read", "count", "higher", of="markers"),
                Metric("misreads", "misreads", "int", "lower"),
                Metric("corner_err_median_px", "corner error median", "px", "lower"),
            ),
            runners=(
                RunnerSpec.planned("vision.codes:decode_frame", "pictable decode", codes_adapter),
                RunnerSpec.library(
                    "opencv-aruco",
                    "OpenCV ArucoDetector (DICT_4X4_50, default parameters)",
                    aruco_runner,
                    version=opencv_version,
                ),
                RunnerSpec.library(
                    "opencv-aruco-subpix",
                    "OpenCV ArucoDetector (DICT_4X4_50, CORNER_REFINE_SUBPIX)",
                    functools.partial(aruco_runner, subpix=True),
                    version=opencv_version,
                ),
            ),
            description=(
                f"The play-area markers ({KIT_DICTIONARY}) at least "
                f"{MARKER_VISIBLE_MIN:.0%} visible; *misreads*: ids read that no marker of "
                "the scene has; *corner error*: mean distance of the 4 corners to the "
                "rendered truth."
            ),
            hd_timing=False,
        ),
        Task(
            name=f"synth-identify-{tier}",
            title=f"Card identification on rendered tables ({tier})",
            source=cards,
            score=score_cards,
            metrics=(
                Metric("cards", "cards in view", "int", None),
                Metric("right", "named right", "count", "higher", of="cards"),
                Metric("wrong", "named wrong", "int", "lower"),
            ),
            runners=(
                RunnerSpec.planned(
                    "vision.identify:identify_frame", "pictable identify", cards_adapter
                ),
            ),
            description=(
                f"Cards at least {CARD_VISIBLE_MIN:.0%} visible: named right, or missed; "
                "*named wrong* counts every wrong id (worse than none)."
            ),
            hd_timing=False,
        ),
        Task(
            name=f"synth-picasso-{tier}",
            title=f"Picasso board on rendered tables ({tier})",
            source=_source("picasso", tier, "Picasso boards"),
            score=score_picasso,
            metrics=(
                Metric("counts_right", "piece counts right", "count", "higher", of="samples"),
                Metric("cost_right", "cost right", "count", "higher", of="samples"),
            ),
            runners=(
                RunnerSpec.planned(
                    "vision.picasso:analyze_frame", "pictable analyze picasso", plain_adapter
                ),
            ),
            hd_timing=False,
        ),
        Task(
            name=f"synth-picmix-{tier}",
            title=f"Picmix verification on rendered tables ({tier})",
            source=_source("picmix", tier, "Picmix claims"),
            score=score_picmix,
            metrics=(
                Metric("verdict_right", "verdict right", "count", "higher", of="samples"),
                Metric("visible_right", "visible items exact", "count", "higher", of="samples"),
            ),
            runners=(
                RunnerSpec.planned(
                    "vision.picmix:verify_frame", "pictable verify picmix", plain_adapter
                ),
            ),
            hd_timing=False,
        ),
    ]


TASKS: tuple[Task, ...] = tuple(task for tier in TIERS for task in _tasks_for(tier))
