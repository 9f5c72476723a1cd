"""Tables of the identification benchmark's readings (``pictable.bench.readers.identify``):
how right its readings are by confidence (the reliability table, issue 26: 0.99 means right
99 times in 100), and by the look of the cards and the room (development and held-back
looks, issue 26, part 7)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

#: How the reports name each look group (the default looks are ``kit``).
LOOK_LABEL = {
    "kit": "default looks",
    "dev": "development looks",
    "wide": "wide development looks",
    "held": "held-back looks",
}


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


#: Confidence bins of the reliability table: [lower, upper) bounds.
CONFIDENCE_BINS = (0.0, 0.9, 0.99, 0.999, 1.0 + 1e-9)


def reliability(
    said: Sequence[tuple[float, bool] | tuple[float, bool, bool]],
) -> list[dict[str, Any]]:
    """Readings by confidence bin (``CONFIDENCE_BINS``): for each, how many readings, how
    many named the card right (id and, with codes, face), how many of those were also placed
    on it (``placed``: every corner within ``PLACE_MAX`` of the card's height of its own; a
    reading given as (confidence, right) counts as placed when right), and their mean
    confidence."""
    out = []
    for lo, hi in pairwise(CONFIDENCE_BINS):
        inside = [(s[0], s[1], s[2] if len(s) > 2 else s[1]) for s in said if lo <= s[0] < hi]
        out.append(
            {
                "from": lo,
                "to": min(hi, 1.0),
                "readings": len(inside),
                "right": sum(ok for _, ok, _ in inside),
                "placed": sum(placed for _, _, placed in inside),
                "mean_confidence": float(np.mean([c for c, _, _ in inside])) if inside else None,
            }
        )
    return out


def looks_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """Cards identified right by look part and name, for each drawer and look group (the
    runs under development and held-back looks, tiers and methods pooled): where a reader
    fails, by what the cards and the room look like."""
    tally: dict[tuple[str, str, str, str], list[int]] = {}
    for r in runs:
        group = r.get("looks", "kit")
        for part, names in r.get("by_look", {}).items():
            for name, (cards, right) in names.items():
                t = tally.setdefault((r.get("drawer", "synth"), group, part, name), [0, 0])
                t[0] += cards
                t[1] += right
    if not tally:
        return []
    out = [
        "Cards identified right by look (runs under development and held-back looks, tiers "
        "and methods pooled; `vision.synth.card_looks` for the project's camera, the second "
        "drawer's own `CARD_LOOKS`):",
        "",
        "| drawer | looks | part | name | cards | right |",
        "|---|---|---|---|---|---|",
    ]
    for (drawer, group, part, name), (cards, right) in sorted(tally.items()):
        who = "second" if drawer == "second" else "project"
        rate = f"{_pct(right / cards)} ({right})" if cards else "-"
        out.append(f"| {who} | {group} | {part} | {name} | {cards} | {rate} |")
    return out


def reliability_markdown(runs: list[dict[str, Any]]) -> list[str]:
    """The reliability table of every reading of ``runs`` together (their ``reliability``
    bins summed), as Markdown lines."""
    bins = [dict(b, sum=0.0) for b in reliability([])]
    for r in runs:
        for k, b in enumerate(r.get("reliability") or []):
            bins[k]["readings"] += b["readings"]
            bins[k]["right"] += b["right"]
            bins[k]["placed"] += b.get("placed", b["right"])
            bins[k]["sum"] += (b["mean_confidence"] or 0.0) * b["readings"]
    lines = [
        "Reliability: every reading of the runs above, by its confidence (right: the id, and "
        "with codes the face, is the card's at that place; placed too: and every corner lies "
        "within 10% of the card's height of its own, on cards at least 60% in view).",
        "",
        "| confidence | readings | right | share right | right and placed | share "
        "| mean confidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for b in bins:
        n = b["readings"]
        share = f"{b['right'] / n:.2%}" if n else "-"
        placed = f"{b['placed'] / n:.2%}" if n else "-"
        mean = f"{b['sum'] / n:.4f}" if n else "-"
        lines.append(
            f"| {b['from']:g} to {b['to']:g} | {n} | {b['right']} | {share} | {b['placed']} "
            f"| {placed} | {mean} |"
        )
    return lines
