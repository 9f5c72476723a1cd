"""The Picasso report's tables of what fails (``pictable.bench.readers.picasso``): failed
boards by look part and by kind, and boards read exactly by how finely the camera saw the
board."""

from __future__ import annotations

from typing import Any

from vision.picasso.board import frame_scale
from vision.picasso.reading import COUNT_KEYS, BoardReading

KINDS = COUNT_KEYS


def reading_scale(reading: BoardReading) -> float:
    """Frame pixels per board mm the camera saw the canvas at (NaN without its plane): the
    ``scales`` both drawers' runs keep for ``scale_lines``."""
    return frame_scale(reading.fit) if reading.fit is not None else float("nan")


#: The parts of a board's look, in the order of ``BoardLook.names()`` (and of the second
#: drawer's ``Look.name()``, parts joined by ``/``).
LOOK_PARTS = ("string", "wood", "shapes", "canvas", "texture", "light", "shadow")
#: The parts the "what still fails" table groups by: those held back from tuning.
FAIL_PARTS = ("string", "wood")


def _failure_look(f: dict[str, Any]) -> dict[str, str]:
    """A failure's look by part: ``bench_picasso`` gives a dict, the second drawer a name
    (``black/light/kit/...``); ``{}`` in the kit look."""
    look = f.get("look")
    if isinstance(look, dict):
        return {str(k): str(v) for k, v in look.items()}
    if isinstance(look, str):
        return dict(zip(LOOK_PARTS, look.split("/"), strict=False))
    return {}


def failure_kinds(f: dict[str, Any]) -> list[str]:
    """What went wrong on one failed board (a ``failures`` entry of ``bench_picasso`` or of
    the second drawer's ``measure``): ``no board``, ``false occlusion``, ``hand not
    reported``, or per piece kind whose count is off ``missed <kind>``/``extra <kind>``
    (kinds ``long``, ``short``, ``shape``, ``string``)."""
    if "want" not in f:
        if f.get("false_occlusion"):
            return ["false occlusion"]
        return ["hand not reported"] if f.get("occlusion_missed") else ["no board"]
    out = []
    for k in KINDS:
        d = int(f["got"].get(k, 0)) - int(f["want"].get(k, 0))
        if d:
            out.append(f"{'extra' if d > 0 else 'missed'} {k.replace('_stick', '')}")
    return out


def _kinds_text(failures: list[dict[str, Any]]) -> str:
    """``missed string 3, extra short 1``: the failures' kinds, most frequent first."""
    tally: dict[str, int] = {}
    for f in failures:
        for k in failure_kinds(f):
            tally[k] = tally.get(k, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(tally.items(), key=lambda kv: -kv[1])) or "-"


def look_failure_lines(res: dict[str, Any]) -> list[str]:
    """Per string colour and wood of a ``bench_picasso`` run in looks: wrong boards of the
    counted ones, and what went wrong."""
    lines = []
    for part in FAIL_PARTS:
        for name, boards in sorted(res["look_boards"].get(part, {}).items()):
            wrong = [f for f in res["failures"] if _failure_look(f).get(part) == name]
            lines.append(f"{part} {name}: {len(wrong)}/{boards} wrong ({_kinds_text(wrong)})")
    return lines


def what_fails(
    own: list[dict[str, Any]], drawn: list[dict[str, Any]], runs: dict[str, dict[str, Any]]
) -> list[str]:
    """The "what still fails" tables: failures of the runs in looks grouped by string
    colour and wood (the held-back parts), those of our renderer (``own``,
    ``bench_picasso`` normal runs) against its counted boards of that name, those of the
    second drawer (``drawn``, ``measure`` runs) as a count; then every run's failed boards
    by kind (``runs``: column name -> result)."""
    from vision.synth.looks import LOOK_GROUPS

    def group(part: str, name: str) -> str:
        return "/".join(g for g, parts in LOOK_GROUPS.items() if name in parts[part]) or "-"

    own_f = [f for r in own for f in r["failures"]]
    drawn_f = [f for r in drawn for f in r["failures"] if not f.get("occlusion_missed")]
    lines = [
        "| look part | name | group | our renderer: wrong / counted | second drawer: wrong "
        "| what goes wrong (both) |",
        "|---|---|---|---|---|---|",
    ]
    for part in FAIL_PARTS:
        names = {n for r in own for n in r.get("look_boards", {}).get(part, {})}
        names |= {_failure_look(f).get(part, "") for f in drawn_f} - {""}
        for name in sorted(names, key=lambda n: (group(part, n), n)):
            mine = [f for f in own_f if _failure_look(f).get(part) == name]
            theirs = [f for f in drawn_f if _failure_look(f).get(part) == name]
            counted = sum(r.get("look_boards", {}).get(part, {}).get(name, 0) for r in own)
            lines.append(
                f"| {part} | {name} | {group(part, name)} | {len(mine)} / {counted} "
                f"| {len(theirs)} | {_kinds_text(mine + theirs)} |"
            )
    tallies = {}
    for label, r in runs.items():
        tally: dict[str, int] = {}
        for f in r["failures"]:
            for k in set(failure_kinds(f)):
                tally[k] = tally.get(k, 0) + 1
        tallies[label] = tally
    kinds = sorted({k for t in tallies.values() for k in t})
    lines += [
        "",
        "Failed boards by kind (a board may fail in several ways; the second drawer's boards "
        "include hands not reported):",
        "",
        "| what goes wrong | " + " | ".join(tallies) + " |",
        "|---|" + "---|" * len(tallies),
        *(
            f"| {k} | " + " | ".join(str(t.get(k, 0)) for t in tallies.values()) + " |"
            for k in kinds
        ),
    ]
    return lines


#: Bands of how finely the camera saw the canvas (frame px per board mm), for the report.
SCALE_BANDS = ((0.0, 0.7), (0.7, 0.85), (0.85, 1.0), (1.0, 1.3), (1.3, float("inf")))


def scale_lines(runs: dict[str, dict[str, Any]]) -> list[str]:
    """A table of the boards read exactly by how finely the camera saw the canvas, one
    row per run of ``runs`` (name -> a result with ``scales``)."""

    def band(lo: float, hi: float) -> str:
        return (
            f"under {hi:g}"
            if lo == 0
            else (f"{lo:g} or more" if hi == float("inf") else f"{lo:g}-{hi:g}")
        )

    head = "| boards | " + " | ".join(band(lo, hi) for lo, hi in SCALE_BANDS) + " |"
    out = [head, "|---" * (len(SCALE_BANDS) + 1) + "|"]
    for name, r in runs.items():
        cells = []
        for lo, hi in SCALE_BANDS:
            sel = [ok for sc, ok in r.get("scales", []) if lo <= sc < hi]
            cells.append(f"{sum(sel)}/{len(sel)}" if sel else "-")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out
