"""``bench_learn(looks_group, n_looks, boards_per_look, seed)``: does a kit profile learned
from one photo read boards at least as well as the default profile (issue 25)?

    .venv/bin/python -m pictable.bench.readers.picasso_learn --looks dev --n-looks 6 --boards 15
    .venv/bin/python -m pictable.bench.readers.picasso_learn --looks held --n-looks 6 --boards 15

For each of ``n_looks`` fixed looks of a group (look ``k`` of a run with seed ``s`` has seed
``s * LOOK_STRIDE + k``), on each of two independent drawers:

- **drawer**: the second drawer (``pictable.bench.drawers``: plain OpenCV, its look from
  ``pick_look``), the kit photo ``picasso_kit.draw_kit_photo``, boards ``draw_board`` in that
  one look;
- **renderer**: the project's renderer (``vision.synth``: the look ``board_look``, the
  pieces laid apart as ``kit_scene`` lays them, boards ``random_picasso_board(..., look=)``
  of the normal tier), cached as PNG under ``cache/picasso/learn``;

the kit photo is learned from (``learn_kit``; a refusal is recorded with its reason), and
``boards_per_look`` boards of that look (board ``i`` of look seed ``L`` has seed
``L * BOARD_STRIDE + i``) are read with the default profile and with the learned one. A
board whose canvas a hand covers must be reported occluded and is not counted; the others
must be counted exactly (as ``bench_picasso`` and the drawer's ``measure`` score).

Development looks are the only ones to tune on; held-back looks are measured, never tuned on.
``--looks wide --drawers renderer``: our renderer's wide looks (``vision.synth.looks``,
``random_wide_look``: development looks whose string, sticks and shapes take any colour away
from the held-back ones), a development probe of kits unlike any named look:

    .venv/bin/python -m pictable.bench.readers.picasso_learn --looks wide --drawers renderer \
        --n-looks 8 --boards 12 --seed 0

``--palette deep`` draws the looks' shapes in a palette of no look group (lime, sky, magenta,
navy: ``PROBE_PALETTES``), a development probe of learned shape colours (the development
looks' shapes are the kit's colours only):

    .venv/bin/python -m pictable.bench.readers.picasso_learn --looks dev --n-looks 8 \
        --boards 12 --seed 1 --palette deep
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.result import Failure
from pictable.bench.readers.picasso import TALLY, _pct
from vision.picasso.learn import LearnedKit, learn_kit
from vision.picasso.profile import DEFAULT_PROFILE, KitProfile
from vision.picasso.reader import read_board
from vision.picasso.reading import COST, COUNT_KEYS

#: Look ``k`` of a run with seed ``s`` has seed ``s * LOOK_STRIDE + k``; board ``i`` of the
#: look of seed ``L``, ``L * BOARD_STRIDE + i``.
LOOK_STRIDE = 100_003
BOARD_STRIDE = 1_000
#: The two drawers measured.
DRAWERS = ("drawer", "renderer")
#: The renderer's kit photo layout's random stream: ``default_rng([look seed, KIT_STREAM])``.
KIT_STREAM = 27
#: The figures of a tally that are summed over looks.
FIGURES = TALLY


@dataclass
class Tally:
    """One profile's score on one look's boards: ``FIGURES`` and the wrong boards."""

    boards: int = 0
    counted: int = 0
    counts_right: int = 0
    cost_right: int = 0
    no_board: int = 0
    false_occlusion: int = 0
    occluded: int = 0
    occlusion_found: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)

    def add(self, index: int, reading: Any, want: dict[str, int], hand: bool) -> None:
        """Score one reading (a ``BoardReading`` or a ``Failure``) of board ``index``
        against its true counts ``want`` and whether a hand covers the canvas."""
        self.boards += 1
        if hand:
            self.occluded += 1
            found = not isinstance(reading, Failure) and reading.occluded
            self.occlusion_found += int(found)
            if not found:
                self.failures.append({"index": index, "occlusion_missed": True})
            return
        self.counted += 1
        if isinstance(reading, Failure):
            self.no_board += 1
            self.failures.append({"index": index, "error": reading.reason})
            return
        if reading.occluded:
            self.false_occlusion += 1
            self.failures.append({"index": index, "false_occlusion": True})
            return
        got = reading.counts or {}
        ok = all(got.get(k, 0) == want.get(k, 0) for k in COUNT_KEYS)
        self.counts_right += ok
        self.cost_right += reading.cost == sum(COST[k] * want.get(k, 0) for k in COUNT_KEYS)
        if not ok:
            self.failures.append({"index": index, "want": want, "got": dict(got)})

    def figures(self) -> dict[str, int]:
        return {k: int(getattr(self, k)) for k in FIGURES}


def worse(learned: dict[str, int], default: dict[str, int]) -> bool:
    """Whether the learned profile's figures are worse than the default's on one look: fewer
    boards counted right or costed right, more false occlusions, fewer hands found."""
    return (
        learned["counts_right"] < default["counts_right"]
        or learned["cost_right"] < default["cost_right"]
        or learned["false_occlusion"] > default["false_occlusion"]
        or learned["occlusion_found"] < default["occlusion_found"]
    )


# ---------------------------------------------------------------------------- drawer


#: Shape palettes in no look group, for probing the learned kit on development looks
#: (``--palette``): the looks' shapes are drawn in this palette of the second drawer's
#: ``SHAPE_LOOKS`` instead (on our renderer as ``BoardLook.shape_bgr``, in the order of the
#: kit's red, blue, yellow, green).
PROBE_PALETTES = ("deep",)


def _drawer_look(group: str, look_seed: int, palette: str | None = None) -> Any:
    from pictable.bench.drawers.picasso_board import KIT_LOOK, pick_look

    look = KIT_LOOK if group == "kit" else pick_look(look_seed, group)
    return look if palette is None else replace(look, shapes=palette)


def _drawer_kit(look_seed: int, look: Any) -> NDArray[np.uint8]:
    from pictable.bench.drawers.picasso_kit import draw_kit_photo

    return draw_kit_photo(look_seed, look)


def _drawer_boards(
    look_seed: int, look: Any, n: int
) -> Iterator[tuple[NDArray[np.uint8], dict[str, int], bool]]:
    from pictable.bench.drawers.picasso_board import draw_board

    for i in range(n):
        b = draw_board(look_seed * BOARD_STRIDE + i, look=look)
        yield b.frame, dict(b.counts), bool(b.hand)


# ---------------------------------------------------------------------------- renderer


def _renderer_look(group: str, look_seed: int, palette: str | None = None) -> Any:
    from pictable.bench.drawers.picasso_board import SHAPE_LOOKS
    from vision.synth import board_look

    look = board_look(look_seed, group)
    if palette is None:
        return look
    return replace(look, shapes=palette, shape_bgr=tuple(SHAPE_LOOKS[palette].items()))


def kit_scene(look_seed: int, look: Any) -> Any:
    """A ``vision.synth`` scene of the kit's pieces laid apart on the board in ``look``
    (the normal tier's camera, no hands, no supply): one or two long and one or two short
    sticks along the top, the four shape kinds in a row (each in a colour of the look's
    palette), the string in a wave along the bottom, all apart; jittered from
    ``default_rng([look_seed, KIT_STREAM])``."""
    from vision.synth import ShapeSpec, StickSpec, StringSpec, picasso_board_with

    rng = np.random.default_rng([look_seed, KIT_STREAM])
    pieces: list[Any] = []
    for k in range(int(rng.integers(1, 3))):
        c = (float(rng.uniform(75, 90)), float(28 + 26 * k + rng.uniform(-3, 3)))
        pieces.append(StickSpec("long_stick", c, float(rng.uniform(-6, 6))))
    for k in range(int(rng.integers(1, 3))):
        c = (float(rng.uniform(195, 215) + 70 * k), float(rng.uniform(30, 60)))
        pieces.append(StickSpec("short_stick", c, float(rng.uniform(-8, 8) + 90 * (k % 2))))
    kit_colours = ("red", "blue", "yellow", "green")
    order = rng.permutation(4)
    kinds = ("circle", "square", "triangle", "half_circle")
    for k, kind in enumerate(kinds):
        colour = look.shape_colour(int(order[k])) or kit_colours[int(order[k])]
        c = (float(50 + 87 * k + rng.uniform(-5, 5)), float(125 + rng.uniform(-6, 6)))
        pieces.append(ShapeSpec(kind, colour, c, float(rng.uniform(0, 360))))  # type: ignore[arg-type]
    x0, x1 = float(rng.uniform(35, 50)), 360.0 - float(rng.uniform(35, 50))
    amp, waves, phase = rng.uniform(12, 20), rng.uniform(1.2, 1.8), rng.uniform(0, 2 * math.pi)
    y0 = float(rng.uniform(205, 215))
    xs = np.arange(x0, x1, 2.0)
    ys = y0 + amp * np.sin(2 * math.pi * waves * (xs - x0) / (x1 - x0) + phase)
    pieces.append(StringSpec(tuple(zip(xs.tolist(), ys.tolist(), strict=True)), 2.5))
    return picasso_board_with(np.random.default_rng(look_seed), pieces, look=look)


def _cached(folder: Path | None, name: str, make: Any) -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """``make() -> (frame, meta)``, kept as ``name``.png/.json in ``folder`` (None: not
    kept)."""
    if folder is not None:
        image, meta_file = folder / f"{name}.png", folder / f"{name}.json"
        if image.is_file() and meta_file.is_file():
            frame = cv2.imread(str(image), cv2.IMREAD_COLOR)
            if frame is not None:
                return np.asarray(frame, np.uint8), json.loads(meta_file.read_text("utf-8"))
    frame, meta = make()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(folder / f"{name}.png"), frame):
            raise OSError(f"cannot write {folder / name}.png")
        (folder / f"{name}.json").write_text(json.dumps(meta), "utf-8")
    return frame, meta


def _renderer_kit(look_seed: int, look: Any, folder: Path | None) -> NDArray[np.uint8]:
    from vision.synth import render_scene

    def make() -> tuple[NDArray[np.uint8], dict[str, Any]]:
        frame, _ = render_scene(kit_scene(look_seed, look), seed=look_seed)
        return frame, {"look": look.names()}

    return _cached(folder, f"{look_seed}-kit", make)[0]


def _renderer_boards(
    look_seed: int, look: Any, n: int, folder: Path | None
) -> Iterator[tuple[NDArray[np.uint8], dict[str, int], bool]]:
    from vision.synth import random_picasso_board, render_scene

    for i in range(n):
        s = look_seed * BOARD_STRIDE + i

        def make(s: int = s) -> tuple[NDArray[np.uint8], dict[str, Any]]:
            spec = random_picasso_board(np.random.default_rng(s), "normal", look=look)
            frame, truth = render_scene(spec, seed=s)
            board = truth.board
            assert board is not None
            return frame, {
                "counts": dict(board.counts),
                "hand": float(board.canvas_hand_fraction) > 0,
                "look": look.names(),
            }

        frame, meta = _cached(folder, f"{s}", make)
        yield frame, {k: int(v) for k, v in meta["counts"].items()}, bool(meta["hand"])


# ---------------------------------------------------------------------------- the bench


def profile_summary(p: KitProfile) -> dict[str, Any]:
    """The learned profile's measured figures, short (for the report)."""
    return {
        "sticks_mm": {s.kind: [round(s.length_mm, 1), round(s.width_mm, 1)] for s in p.sticks},
        "wood_lab": [round(v, 1) for v in p.wood_lab],
        "string_lab": [round(v, 1) for v in p.string_lab],
        "string_mm": round(p.string_thickness_mm, 2),
        "colours": {k: [round(v, 1) for v in lab] for k, lab in p.colours.items()},
        "shapes": {s.kind: round(s.size_mm, 1) for s in p.shapes},
        "seen": None
        if p.seen is None
        else {
            "wood_lab": [round(v, 1) for v in p.seen.wood_lab],
            "string_lab": [round(v, 1) for v in p.seen.string_lab],
            "string_mm": round(p.seen.string_thickness_mm, 2),
        },
    }


def bench_look(
    drawer: str,
    group: str,
    look_seed: int,
    n_boards: int,
    cache_dir: Path | None = None,
    palette: str | None = None,
) -> dict[str, Any]:
    """One look of ``group`` (seed ``look_seed``) on ``drawer`` (``DRAWERS``): its name, the
    learned profile (or ``refused``: learn's reason), and the default and learned profiles'
    tallies on ``n_boards`` boards of that look (``learned`` None when refused); with
    ``palette`` (``PROBE_PALETTES``), its shapes in that palette."""
    if drawer == "drawer":
        look = _drawer_look(group, look_seed, palette)
        kit = _drawer_kit(look_seed, look)
        boards = _drawer_boards(look_seed, look, n_boards)
    elif drawer == "renderer":
        name = group if palette is None else f"{group}-{palette}"
        folder = (cache_dir or _default_cache()) / "picasso" / "learn" / f"{name}-{look_seed}"
        look = _renderer_look(group, look_seed, palette)
        kit = _renderer_kit(look_seed, look, folder)
        boards = _renderer_boards(look_seed, look, n_boards, folder)
    else:
        raise ValueError(f"drawer {drawer!r}: one of {DRAWERS}")
    learned = learn_kit(kit, name=f"look-{look_seed}")
    out: dict[str, Any] = {"drawer": drawer, "look_seed": look_seed, "look": look.name()}
    profile: KitProfile | None = None
    if isinstance(learned, LearnedKit):
        profile = learned.profile
        out["profile"] = profile_summary(profile)
        out["notes"] = list(learned.notes)
    else:
        out["refused"] = learned.reason
    default, mine = Tally(), Tally()
    for i, (frame, want, hand) in enumerate(boards):
        default.add(i, read_board(frame, profile=DEFAULT_PROFILE), want, hand)
        if profile is not None:
            mine.add(i, read_board(frame, profile=profile), want, hand)
    out["default"] = {**default.figures(), "failures": default.failures}
    out["learned"] = None if profile is None else {**mine.figures(), "failures": mine.failures}
    if profile is not None:
        out["worse"] = worse(out["learned"], out["default"])
    return out


def _default_cache() -> Path:
    from vision.picasso.dataset import default_cache_dir

    return default_cache_dir()


def bench_learn(
    looks_group: str = "dev",
    n_looks: int = 6,
    boards_per_look: int = 15,
    seed: int = 0,
    *,
    drawers: tuple[str, ...] = DRAWERS,
    cache_dir: Path | None = None,
    palette: str | None = None,
) -> dict[str, Any]:
    """Default against learned profile on ``n_looks`` looks of ``looks_group`` (``dev``,
    ``held``, or ``kit``: KIT.md's look), ``boards_per_look`` boards each, on each of
    ``drawers`` (module docstring); ``palette``: the shapes in a probe palette
    (``PROBE_PALETTES``, in no look group) instead of the looks' own.

    Returns a JSON-able dict: ``looks`` (one ``bench_look`` result per drawer and look),
    and per drawer ``totals``: ``default`` and ``learned`` figures summed over the looks
    learned from (``FIGURES``), ``looks``, ``refused`` (looks learn refused, with the
    reasons), ``worse`` (looks where the learned profile read worse)."""
    cv2.setNumThreads(1)
    rows: list[dict[str, Any]] = []
    totals: dict[str, Any] = {}
    for drawer in drawers:
        t_default = dict.fromkeys(FIGURES, 0)
        t_learned = dict.fromkeys(FIGURES, 0)
        refused: list[dict[str, Any]] = []
        bad: list[str] = []
        for k in range(n_looks):
            r = bench_look(
                drawer, looks_group, seed * LOOK_STRIDE + k, boards_per_look, cache_dir, palette
            )
            rows.append(r)
            if r["learned"] is None:
                refused.append({"look": r["look"], "reason": r["refused"]})
                continue
            for f in FIGURES:
                t_default[f] += r["default"][f]
                t_learned[f] += r["learned"][f]
            if r["worse"]:
                bad.append(r["look"])
        totals[drawer] = {
            "looks": n_looks,
            "default": t_default,
            "learned": t_learned,
            "refused": refused,
            "worse": bad,
        }
    return {
        "looks_group": looks_group,
        "n_looks": n_looks,
        "boards_per_look": boards_per_look,
        "seed": seed,
        "looks": rows,
        "totals": totals,
    }


def _cells(f: dict[str, int] | None) -> str:
    if f is None:
        return "refused"
    return (
        f"{f['counts_right']}/{f['counted']} counts, {f['cost_right']} cost, "
        f"{f['false_occlusion']} false occ., hands {f['occlusion_found']}/{f['occluded']}"
    )


def table(res: dict[str, Any]) -> str:
    """The result as a Markdown table: per drawer and look, default against learned."""
    lines = [
        f"{res['looks_group']} looks, {res['n_looks']} looks x {res['boards_per_look']} "
        f"boards, seed {res['seed']}",
        "",
        "| drawer | look | default | learned | |",
        "|---|---|---|---|---|",
    ]
    for r in res["looks"]:
        flag = (
            "refused: " + r["refused"] if r["learned"] is None else ("WORSE" if r["worse"] else "")
        )
        lines.append(
            f"| {r['drawer']} | {r['look']} | {_cells(r['default'])} | "
            f"{_cells(r['learned'])} | {flag} |"
        )
    for drawer, t in res["totals"].items():
        lines.append(
            f"| {drawer} | **total** ({t['looks'] - len(t['refused'])} learned) | "
            f"{_cells(t['default'])} | {_cells(t['learned'])} | "
            f"{len(t['worse'])} worse, {len(t['refused'])} refused |"
        )
    return "\n".join(lines)


#: Looks per group and boards per look of the learned-kit runs (full report).
LEARN_LOOKS = 6
LEARN_BOARDS = 15


def learn_lines(learned: dict[str, Any]) -> list[str]:
    """The learned-kit section of the report (``pictable.bench.readers.picasso.report``):
    per look group and drawer, the default profile's figures against the learned one's,
    the looks read worse, the refusals."""
    if not learned:
        return []
    names = {"drawer": "second drawer", "renderer": "our renderer"}
    groups = {"dev": "development", "held": "held-back"}
    rows = []
    for g, res in learned.items():
        for drawer, tot in res["totals"].items():
            d, k = tot["default"], tot["learned"]
            refused = "; ".join(f"{r['look']}: {r['reason']}" for r in tot["refused"]) or "-"
            rows.append(
                f"| {groups[g]} | {names.get(drawer, drawer)} | "
                f"{tot['looks'] - len(tot['refused'])}/{tot['looks']} "
                f"| {_pct(d['counts_right'], d['counted'])} "
                f"| {_pct(k['counts_right'], k['counted'])} "
                f"| {d['false_occlusion']} -> {k['false_occlusion']} "
                f"| {_pct(d['occlusion_found'], d['occluded'])} -> "
                f"{_pct(k['occlusion_found'], k['occluded'])} "
                f"| {len(tot['worse'])} | {refused} |"
            )
    return [
        "**The learned kit against the default** (`pictable kit learn picasso`, "
        "`pictable.bench.readers.picasso_learn`): for each of "
        f"{LEARN_LOOKS} looks of a group (look seeds 0-{LEARN_LOOKS - 1}), one photo of the "
        "pieces laid apart in that look (the second drawer's `picasso_kit`, our renderer's "
        f"`kit_scene`) is learned from, and {LEARN_BOARDS} boards of that look are read with "
        "the default profile and with the learned one. A look is worse when the learned "
        "profile counts or costs fewer boards right, falsely reports more occlusions or "
        "finds fewer hands. Totals over the looks learned from; a refused photo says why.",
        "",
        "| looks | drawer | looks learned | default: exact counts | learned: exact counts "
        "| false occlusions | hands reported occluded | looks worse | refused |",
        "|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
    ]


def learn_runs() -> dict[str, Any]:
    """``kit learn picasso`` against the default profile for the report
    (``pictable.bench.readers.picasso.report``, full profile): ``bench_learn`` on
    ``LEARN_LOOKS`` looks of each group, ``LEARN_BOARDS`` boards each, on both drawers."""
    return {g: bench_learn(g, LEARN_LOOKS, LEARN_BOARDS, 0) for g in ("dev", "held")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--looks",
        default="dev",
        choices=("kit", "dev", "held", "wide"),
        help="look group; wide (development looks of any colour, our renderer's "
        "random_wide_look) with --drawers renderer only",
    )
    parser.add_argument("--n-looks", type=int, default=6)
    parser.add_argument("--boards", type=int, default=15, help="boards per look")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--drawers", default=",".join(DRAWERS), help=f"comma-separated, of {', '.join(DRAWERS)}"
    )
    parser.add_argument("--json", type=Path, help="also write the whole result here")
    parser.add_argument("--failures", action="store_true", help="list the wrong boards")
    parser.add_argument(
        "--palette",
        choices=PROBE_PALETTES,
        help="draw the shapes in this palette of no look group (a development probe of "
        "learned shape colours: lime, sky, magenta, navy)",
    )
    args = parser.parse_args(argv)
    drawers = tuple(d for d in args.drawers.split(",") if d)
    if any(d not in DRAWERS for d in drawers):
        parser.error(f"--drawers: of {', '.join(DRAWERS)}")
    if args.looks == "wide" and drawers != ("renderer",):
        parser.error("--looks wide: our renderer's looks only; add --drawers renderer")
    res = bench_learn(
        args.looks, args.n_looks, args.boards, args.seed, drawers=drawers, palette=args.palette
    )
    print(table(res))
    if args.failures:
        for r in res["looks"]:
            for which in ("default", "learned"):
                for f in (r[which] or {}).get("failures", []):
                    print(f"  {r['drawer']} {r['look_seed']} {which}: {f}")
    for r in res["looks"]:
        if "profile" in r:
            print(f"  {r['drawer']} {r['look_seed']} {r['look']}: {json.dumps(r['profile'])}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
