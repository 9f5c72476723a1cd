"""Step 5 of the Picmix reader (``vision.picmix.reader``): the verdict.

``player_items`` gives the items surely showing on the player's cards and those in doubt;
``decide`` judges them against the objective: ``wrong`` when an item outside the objective
surely shows or an objective item surely does not; ``correct`` when the visible items are
exactly the objective's and none is unsure; otherwise ``unsure``, naming the items in doubt.
Never a confident answer that an unsure item could overturn. ``decide_among`` (the objective
is one of several cards) and ``decide_in_doubt`` (its items' names are in doubt) answer
``wrong`` or ``correct`` only when it is so whichever the objective is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from vision.picmix.frame_items import FrameItems
from vision.picmix.ink import Blob
from vision.picmix.objective import OBJECTIVE_MAX_ITEMS
from vision.picmix.reading import NAME_MIN, ItemSighting, Verdict

UNNAMED = "?"
"""In the unsure set: an item whose name is in doubt (it could be any item)."""


#: An item in doubt as the reader saw it: the names it may have (``None``: any name).
Slot = frozenset[str] | None


def decide(
    objective: set[str],
    visible: set[str],
    unsure: set[str],
    slots: Sequence[Slot] | None = None,
) -> tuple[Verdict, list[str], list[str], list[str]]:
    """(verdict, missing, extra, reasons) from the surely visible and the unsure items
    (``UNNAMED`` among them: an item in view whose name is in doubt), and, when given, the
    items in doubt one by one (``slots``: each sighting in doubt is one item, whichever of
    its names it has; see :func:`doubt_slots`).

    ``wrong`` needs a sure reason: a surely visible extra item, or an objective item that is
    neither visible nor unsure (nor possibly the unnamed one), or, with ``slots``, more
    objective items not surely showing than the sightings in doubt could be (each is one
    item), by more than :data:`UNSEEN_MAX`. With no unsure item left that could change the
    answer, equal sets are ``correct``; otherwise ``unsure``."""
    extra = sorted(visible - objective)
    doubt = unsure - visible
    wildcard = UNNAMED in doubt
    doubt.discard(UNNAMED)
    missing = sorted(objective - visible - doubt)
    reasons: list[str] = []
    if extra or (missing and not wildcard):
        return "wrong", sorted(objective - visible), extra, reasons
    if slots is not None and wildcard and _uncovered(objective - visible, slots) > UNSEEN_MAX:
        return "wrong", sorted(objective - visible), extra, reasons
    if wildcard:
        reasons.append(
            "an item in view is not surely named"
            + (f" (maybe {', '.join(missing)})" if missing else "")
        )
    if doubt or wildcard:
        for item in sorted(doubt):
            if item in objective:
                reasons.append(f"{item}: objective item, not surely visible")
            else:
                reasons.append(f"{item}: other item, maybe visible")
        return "unsure", sorted(objective - visible), extra, reasons
    return "correct", [], [], reasons


#: Where names are in doubt (the items small or blurred), items of the player's that were
#: not seen at all, beside those seen: a claim is ``wrong`` by count only when more of the
#: objective's items than this can be none of the sightings in doubt. On rendered claims
#: whose player's items were 9-17 px, one true item in four was not seen at all.
UNSEEN_MAX = 1


def _uncovered(need: set[str], slots: Sequence[Slot]) -> int:
    """How many items of ``need`` are left over when each is taken to be a different one of
    ``slots`` (a slot is one item, of one of its names or, ``None``, of any), as few as can
    be: a largest matching, by augmenting paths."""
    owner: dict[int, str] = {}  # slot -> the item it is taken to be

    def place(item: str, seen: set[int]) -> bool:
        for k, names in enumerate(slots):
            if k in seen or (names is not None and item not in names):
                continue
            seen.add(k)
            if k not in owner or place(owner[k], seen):
                owner[k] = item
                return True
        return False

    return sum(not place(item, set()) for item in sorted(need))


def doubt_slots(sightings: Sequence[ItemSighting]) -> list[Slot]:
    """The player's items in doubt, one slot each: an unsure sighting surely named is that
    item; one not surely named (under ``NAME_MIN``) may be any item."""
    return [
        frozenset({s.item}) if s.confidence >= NAME_MIN else None
        for s in sightings
        if s.on == "player" and s.status == "unsure"
    ]


def decide_in_doubt(
    doubt: tuple[frozenset[str], ...], visible: set[str], unsure: set[str]
) -> tuple[Verdict, list[str], list[str], list[str]]:
    """(verdict, missing, extra, reasons) against an objective read from ``len(doubt)``
    distinct items whose names are in doubt (``doubt[i]``: the names item i may have). An
    item of the card may have been missed (under a finger, or merged), so it has at least
    ``len(doubt)`` items and at most ``OBJECTIVE_MAX_ITEMS``. Only ``wrong`` (surely) or
    ``unsure``: more items surely show than the card can have; or, when all of its items are
    read, one that it cannot have; or fewer could show than it has."""
    n = len(doubt)
    if n >= OBJECTIVE_MAX_ITEMS:
        maybe = set().union(*doubt)
        extra = sorted(visible - maybe)
        if extra:
            return "wrong", [], extra, [f"{', '.join(extra)}: not on the objective card"]
    most = max(n, OBJECTIVE_MAX_ITEMS)
    if len(visible) > most:
        return (
            "wrong",
            [],
            [],
            [f"{len(visible)} items show, an objective card has {most} or fewer"],
        )
    could = visible | (unsure - {UNNAMED})
    if UNNAMED not in unsure and len(could) < n:
        return "wrong", [], [], [f"at most {len(could)} items show, the objective card has {n}"]
    names = ", ".join("/".join(sorted(d)) for d in doubt if len(d) > 1)
    return "unsure", [], [], [f"objective items not surely named ({names})"]


def decide_among(
    cands: tuple[tuple[str, tuple[str, ...]], ...],
    visible: set[str],
    unsure: set[str],
    slots: Sequence[Slot] | None = None,
) -> tuple[Verdict, list[str], list[str], list[str]]:
    """(verdict, missing, extra, reasons) when the objective is one of the cards ``cands``
    ((card, items)): ``wrong`` or ``correct`` only when it is so whichever card it is."""
    got = [decide(set(items), visible, unsure, slots) for _, items in cands]
    verdicts = {g[0] for g in got}
    if verdicts == {"wrong"}:
        extra = sorted(set.intersection(*(set(g[2]) for g in got)))
        missing = sorted(set.intersection(*(set(g[1]) for g in got)))
        return "wrong", missing, extra, []
    if verdicts == {"correct"}:
        return "correct", [], [], []
    cards = ", ".join(c for c, _ in cands)
    return "unsure", [], [], [f"objective card not surely read (one of {cards})"]


def player_items(
    fi: FrameItems,
    exclude: frozenset[int] = frozenset(),
    keep: Callable[[Blob], bool] | None = None,
) -> tuple[list[ItemSighting], set[str], set[str]]:
    """(sightings, visible, unsure) of the items not in ``exclude`` (the objective's) and, when
    ``keep`` is given, whose blob it keeps (a seat's zone). A sighting named with low
    confidence makes its runner-up unsure too."""
    sightings: list[ItemSighting] = []
    visible: set[str] = set()
    unsure: set[str] = set()
    for i, (s, blob) in enumerate(fi.seen):
        if i in exclude:
            sightings.append(_replace_on(s, "objective"))
            continue
        if keep is not None and not keep(blob):
            continue
        sightings.append(s)
        if s.status == "visible":
            visible.add(s.item)
        elif s.status == "unsure":
            unsure.add(s.item)
            if s.confidence < NAME_MIN:
                unsure.update((s.runner_up, UNNAMED))
    return sightings, visible, unsure


def _replace_on(s: ItemSighting, on: Literal["player", "objective"]) -> ItemSighting:
    """``s`` on another card."""
    return replace(s, on=on)
