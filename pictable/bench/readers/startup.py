"""Start-up: how long a command keeps its user waiting, interpreter and imports included.

*Commands*: the median wall time of several runs of ``python -m pictable ...``, each in a fresh
process, after one untimed run (which fills what a first run fills once: numba's compiled
kernels, a deck's stored arrays, Python's bytecode cache, which is left on as it is by
default): ``pictable --help``, ``pictable identify PHOTO`` without a
deck, and with ``--deck`` for a deck of 120 cards (the Pick Pic fronts, registered as
pictures the way ``pictable deck register`` does), one-card decks (``graf1``, ``box`` of the
``opencv-features`` photos) and a 12-card deck (``graf1``, ``box`` and ten Pick Pic fronts).
The photos: a rendered table (1280x720 JPEG, 11 Pick Pic cards), ``graf3`` and
``box_in_scene`` at their size and resized to 1000x700.

*Phases*: one more run of ``identify --deck`` split in a fresh process: the imports, opening
the deck, the first photo (its indexes loaded then), a second photo, with the kernels' forms
the command uses for them (numpy: ``pictable.commands.images.kernels_by_photo``).

*Per photo*: in one process, the deck open and one photo read before timing, the median wall
time of ``identify_frame`` as ``pictable identify`` calls it (with the compiled kernels, as
from a command's fifth photo on and in the live loop; and with their numpy forms, as for a
command's first photos), beside OpenCV's ORB + ratio test + RANSAC
(:class:`pictable.bench.tasks.features.LocalFeatures`, its reference's features found before
timing) on the same photo, their calls alternated (a slow spell of a shared machine slows
both alike), and where the reader's time goes (the profiler's cumulative time of its steps).

Decks are registered in a temporary decks folder (``$PICTABLE_DECKS``), never the user's.

    python -m pictable.bench.readers.startup --profile full
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: Runs of each command (after the untimed one) and identify_frame calls per photo.
PROFILES: dict[str, dict[str, int]] = {
    "quick": {"runs": 3, "calls": 3},
    "full": {"runs": 7, "calls": 7},
}
#: The issue's bars: seconds of wall time, and per photo.
HELP_BAR_S = 0.3
DECK_BAR_S = 0.8
ONE_CARD_BAR_X_ORB = 2.0
TWELVE_CARDS_BAR_MS = 100.0
#: The large deck's game (all its fronts), and the table photo's render (scene 0 of this seed).
LARGE_GAME = "pickpic"
TABLE_SEED = 0
#: The row of the 120-card deck's command.
LARGE_LABEL = "pictable identify TABLE --deck (120 cards)"
#: The size the 12-card bar is stated at.
BAR_SIZE_WH = (1000, 700)

#: Run in a fresh process: the phases of ``pictable identify PHOTO... --deck D`` (JSON).
_PHASES = """
import json, sys, time
t0 = time.perf_counter()
import cv2
from vision.identify import identify_frame, open_deck
from vision.identify.threads import single_thread
from pictable.commands.images import kernels_by_photo
t1 = time.perf_counter()
single_thread()
deck = open_deck(sys.argv[1])
t2 = time.perf_counter()
out = {"imports_s": t1 - t0, "open_deck_s": t2 - t1}
for key, path in zip(("first_photo_s", "second_photo_s"), kernels_by_photo([sys.argv[2]] * 2)):
    t = time.perf_counter()
    identify_frame(cv2.imread(path), deck, codes="fast", features=True, precise=True)
    out[key] = time.perf_counter() - t
print(json.dumps(out))
"""


def wall_s(argv: Sequence[str], runs: int, env: dict[str, str]) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of ``runs`` runs of ``argv`` in fresh processes, after one untimed
    run (CPU: the child's user and system time, the figure to compare on a busy machine,
    where wall time also counts the waits for a core); a run that fails raises
    ``RuntimeError`` with its error output."""
    times = []
    for k in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(
            list(argv), env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        elapsed = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            tail = " | ".join((proc.stderr or "").strip().splitlines()[-3:])
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {tail}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if k:
            times.append((elapsed, cpu))
    return times


def _pictable(*args: str) -> list[str]:
    return [sys.executable, "-m", "pictable", *args]


def make_inputs(folder: Path, data_dir: Path | None) -> dict[str, Any]:
    """Registers the decks in ``folder/decks`` and writes the photos to ``folder``: returns
    ``{"decks": folder, "table": path, "pairs": [(deck, photo path, reference path)]}``
    (no pairs without the ``opencv-features`` photos)."""
    import cv2

    from pictable.bench.data import read_image
    from vision.identify.deck import kit_faces, register
    from vision.identify.scenes import make_scene, scene_seed

    decks = folder / "decks"
    fronts = kit_faces(LARGE_GAME)
    register("large", list(fronts.items()), decks)
    frame, _ = make_scene("features", "normal", scene_seed(TABLE_SEED, 0))
    table = folder / "table.jpg"
    cv2.imwrite(str(table), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    out: dict[str, Any] = {"decks": decks, "table": table, "pairs": []}
    features = None if data_dir is None else data_dir / "opencv-features"
    if features is None or not (features / "graf1.png").is_file():
        return out
    refs = {"graf1": features / "graf1.png", "box": features / "box.png"}
    images = {k: read_image(p) for k, p in refs.items()}
    for name, image in images.items():
        register(name, [(name, image)], decks)
    register("twelve", [*images.items(), *list(fronts.items())[:10]], decks)
    for ref, scene in (("graf1", "graf3"), ("box", "box_in_scene")):
        photo = read_image(features / f"{scene}.png")
        resized = folder / f"{scene}_{BAR_SIZE_WH[0]}x{BAR_SIZE_WH[1]}.png"
        cv2.imwrite(str(resized), cv2.resize(photo, BAR_SIZE_WH, interpolation=cv2.INTER_AREA))
        out["pairs"] += [
            (ref, features / f"{scene}.png", refs[ref]),
            ("twelve", features / f"{scene}.png", refs[ref]),
            ("twelve", resized, refs[ref]),
        ]
    return out


def per_photo(
    deck_name: str, photo: Path, reference: Path, decks: Path, calls: int
) -> dict[str, Any]:
    """In this process: the median wall time (ms) of ``identify_frame`` on ``photo`` with the
    deck, and of ORB + ratio test + RANSAC with ``reference``; where the reader's time goes
    (the profiler's cumulative ms of its steps, one call); whether each found the picture."""
    from pictable.bench.core import Sample
    from pictable.bench.data import read_image
    from pictable.bench.tasks.features import LocalFeatures
    from vision.identify import identify_frame, kernels, open_deck

    deck = open_deck(deck_name, decks)
    frame = read_image(photo)
    ref_id = reference.stem

    def ours() -> Any:
        return identify_frame(frame, deck, codes="fast", features=True, precise=True)

    sample = Sample(
        id=photo.name, path=photo, extra={"reference": reference, "reference_id": ref_id}
    )
    orb = LocalFeatures([sample])
    found = ours()
    orb_found = orb(frame, sample)
    # ours and ORB's calls alternated: a slow spell of a shared machine slows both alike
    ms, orb_ms = _median_ms_alternated(ours, lambda: orb(frame, sample), calls)
    kernels.use_plain(True)
    try:
        ours()
        plain_ms = _median_ms(ours, calls)
    finally:
        kernels.use_plain(False)
    prof = cProfile.Profile()
    prof.enable()
    ours()
    prof.disable()
    return {
        "deck": deck_name,
        "cards": len(deck),
        "photo": photo.name,
        "size": f"{frame.shape[1]}x{frame.shape[0]}",
        "ms": ms,
        "plain_ms": plain_ms,
        "orb_ms": orb_ms,
        "found": ref_id in [c.card for c in found.cards],
        "orb_found": bool(orb_found["cards"]),
        "steps": steps(prof),
    }


def _median_ms_alternated(a: Any, b: Any, calls: int) -> tuple[float, float]:
    """The median wall ms of ``calls`` calls of ``a`` and of ``b``, called in turn."""
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(calls):
        for fn, times in ((a, ta), (b, tb)):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return 1000.0 * statistics.median(ta), 1000.0 * statistics.median(tb)


def _median_ms(fn: Any, calls: int) -> float:
    times = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000.0 * statistics.median(times)


#: The reader's steps whose cumulative time is reported (module: function), in order.
STEPS = (
    ("identify.py", "identify_frame"),
    ("code_cards.py", "_by_codes"),
    ("identify.py", "_by_pictures"),
    ("outlines.py", "card_outlines"),
    ("quads.py", "_side_support"),
    ("quads.py", "_dedupe"),
    ("quads.py", "rectangles_from_lines"),
    ("keypoint_pass.py", "_frame_pass"),
    ("identify.py", "_by_keypoints"),
    ("outlines.py", "match_outlines"),
    ("leftovers.py", "_by_leftovers"),
    ("frame_search.py", "_by_frame_search"),
)


def steps(prof: cProfile.Profile) -> dict[str, float]:
    """Cumulative ms of each of :data:`STEPS` in one profiled call (those that ran)."""
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    out: dict[str, float] = {}
    for (path, _, func), (_, _, _, cum, _) in stats.items():
        for module, name in STEPS:
            if func == name and path.replace("\\", "/").endswith(f"vision/identify/{module}"):
                out[name] = out.get(name, 0.0) + 1000.0 * cum
    return {name: round(out[name], 1) for _, name in STEPS if name in out}


def report(profile: str = "quick") -> dict[str, Any]:
    """The start-up figures for ``pictable bench --tasks startup``: ``{"title", "summary":
    [{"figure", "value", "target", "met"}], "markdown", "raw"}``."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; expected one of {list(PROFILES)}")
    from pictable.bench.core import DataMissing
    from pictable.bench.data import find_data_dir
    from vision.identify.threads import single_thread

    n = PROFILES[profile]
    try:
        data_dir: Path | None = find_data_dir()
    except DataMissing:
        data_dir = None
    single_thread()
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="pictable-startup-") as tmp:
        inputs = make_inputs(Path(tmp), data_dir)
        # Python's bytecode cache as a user has it: on (an environment that turns it off
        # makes every command compile pictable's modules again, about 0.25 s).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
            "PICTABLE_DECKS": str(inputs["decks"])
        }
        runs = n["runs"]
        table = str(inputs["table"])
        commands: list[tuple[str, list[str]]] = [
            ("pictable --help", _pictable("--help")),
            ("pictable identify TABLE (no deck)", _pictable("identify", table)),
            (LARGE_LABEL, _pictable("identify", table, "--deck", "large")),
        ]
        pairs = inputs["pairs"]
        for deck_name, photo, _ in pairs:
            label = "1 card" if deck_name != "twelve" else "12 cards"
            commands.append(
                (
                    f"pictable identify {Path(photo).name} --deck ({label})",
                    _pictable("identify", str(photo), "--deck", deck_name),
                )
            )
        walls = {label: wall_s(argv, runs, env) for label, argv in commands}
        phases = json.loads(
            subprocess.run(
                [sys.executable, "-c", _PHASES, "large", table],
                env=env, capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
            ).stdout
        )  # fmt: skip
        photos = [per_photo(d, Path(p), Path(r), inputs["decks"], n["calls"]) for d, p, r in pairs]
    load.append(os.getloadavg()[0])
    return _summary(walls, phases, photos, runs, data_dir is not None, load)


def _summary(
    walls: dict[str, list[tuple[float, float]]],
    phases: dict[str, float],
    photos: list[dict[str, Any]],
    runs: int,
    have_photos: bool,
    load: list[float],
) -> dict[str, Any]:
    med = {k: statistics.median(w for w, _ in v) for k, v in walls.items()}
    summary: list[dict[str, Any]] = [
        {
            "figure": "pictable --help, wall (median)",
            "value": f"{med['pictable --help']:.2f} s",
            "target": f"<= {HELP_BAR_S} s",
            "met": med["pictable --help"] <= HELP_BAR_S,
        },
        {
            "figure": "pictable identify PHOTO --deck, 120-card deck, wall (median)",
            "value": f"{med[LARGE_LABEL]:.2f} s",
            "target": f"<= {DECK_BAR_S} s",
            "met": med[LARGE_LABEL] <= DECK_BAR_S,
        },
    ]
    for p in photos:
        if p["cards"] == 1:
            summary.append(
                {
                    "figure": f"1-card deck on {p['photo']} ({p['size']}), per photo",
                    "value": f"{p['ms']:.0f} ms ({p['ms'] / p['orb_ms']:.1f} x ORB+RANSAC's "
                    f"{p['orb_ms']:.0f} ms)",
                    "target": f"<= {ONE_CARD_BAR_X_ORB:g} x ORB+RANSAC",
                    "met": p["ms"] <= ONE_CARD_BAR_X_ORB * p["orb_ms"],
                }
            )
        elif p["size"] == f"{BAR_SIZE_WH[0]}x{BAR_SIZE_WH[1]}":
            summary.append(
                {
                    "figure": f"12-card deck on {p['photo']}, per photo",
                    "value": f"{p['ms']:.0f} ms",
                    "target": f"<= {TWELVE_CARDS_BAR_MS:g} ms",
                    "met": p["ms"] <= TWELVE_CARDS_BAR_MS,
                }
            )
    md = [
        "## Start-up (`pictable` from the shell)",
        "",
        "Wall time of each command in a fresh process (`python -m pictable ...`, interpreter "
        "start and imports included, Python's bytecode cache on as by default), median of "
        f"{runs} runs after one untimed run (CPU: the "
        "process's user and system time, what to compare when the machine is busy); decks "
        "registered in a temporary decks folder: 120 cards (the Pick Pic fronts, as "
        "pictures), one card (`graf1`, `box` of `opencv-features`), 12 cards (those two and "
        "ten Pick Pic fronts). TABLE: a rendered table, 1280x720 JPEG, 11 Pick Pic cards. "
        f"Machine load (1-minute average) {load[0]:.1f} at the start, {load[-1]:.1f} at the "
        f"end, for {os.cpu_count()} cores.",
        "",
        "| command | wall median | min | max | CPU median |",
        "|---|---|---|---|---|",
    ]
    for label, v in walls.items():
        wall = [w for w, _ in v]
        md.append(
            f"| `{label}` | {statistics.median(wall):.2f} s | {min(wall):.2f} s | "
            f"{max(wall):.2f} s | {statistics.median(c for _, c in v):.2f} s |"
        )
    md += [
        "",
        "Where a run of `pictable identify TABLE --deck` (120 cards) spends its time, in a "
        f"fresh process: imports {phases['imports_s']:.2f} s, opening the deck "
        f"{phases['open_deck_s']:.3f} s, the first photo {phases['first_photo_s']:.2f} s "
        f"(its indexes loaded then; the kernels' numpy forms, as the command's first photos "
        "use them), the same photo again "
        f"{phases['second_photo_s']:.2f} s.",
    ]
    if photos:
        md += [
            "",
            "Per photo, in one process (deck open, warmed up): `identify_frame` as `pictable "
            "identify` calls it, with the compiled kernels (ms) and with their numpy forms "
            "(as a command's first four photos), beside OpenCV ORB (1000) + ratio test + "
            "RANSAC with the reference's features found before timing; median wall ms. Steps: the "
            "profiler's cumulative ms of one call (nested: `card_outlines` holds "
            "`_side_support`, `_dedupe` and `rectangles_from_lines`).",
            "",
            "| deck | photo | size | ms | numpy forms ms | ORB+RANSAC ms | found (ORB) | steps |",
            "|---|---|---|---|---|---|---|---|",
        ]
        md += [
            f"| {p['cards']} card{'s' if p['cards'] > 1 else ''} | {p['photo']} | {p['size']} "
            f"| {p['ms']:.0f} | {p['plain_ms']:.0f} | {p['orb_ms']:.1f} | "
            f"{'yes' if p['found'] else 'no'} ({'yes' if p['orb_found'] else 'no'}) | "
            + ", ".join(f"{k} {v:.0f}" for k, v in p["steps"].items())
            + " |"
            for p in photos
        ]
    elif not have_photos:
        md += ["", "No data folder with `opencv-features`: the per-photo figures are left out."]
    return {
        "title": "Start-up",
        "summary": summary,
        "markdown": "\n".join(md),
        "raw": {"walls_s": walls, "phases_s": phases, "photos": photos},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    args = ap.parse_args(argv)
    result = report(args.profile)
    print(result["markdown"])
    for row in result["summary"]:
        print(f"{row['figure']}: {row['value']} (bar {row['target']}, met {row['met']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
