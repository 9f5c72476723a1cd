"""What the Picmix reader says about one frame: the visibility rule's thresholds, the items
seen (``ItemSighting``), the reading of a claim (``PicmixReading``) and a frame that cannot be
verified (``PicmixFailure``, falsy). ``vision.picmix.reader.verify_frame`` returns them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

VISIBLE_MIN = 0.25
"""An item shows when at least this share of its printed area is visible (not covered by
another card, a hand or anything else)."""
UNSURE_BAND = (0.12, 0.45)
"""Estimated visible shares in this range are too close to ``VISIBLE_MIN`` to call: the item
is unsure. Below it the blob is a sliver of a covered item; above it the item shows."""
NAME_MIN = 0.90
"""An item that shows must be named with at least this probability, else it is unsure."""
ITEM_MIN = 0.5
"""A blob is an item (not a marker, text, hand...) when P(not an item) is below this."""

Verdict = Literal["correct", "wrong", "unsure"]
Status = Literal["visible", "unsure", "hidden"]


@dataclass(frozen=True)
class ItemSighting:
    """One item seen in the frame.

    ``item``: the deck's item name; ``box_xywh``: its blob's bounding box (px);
    ``visible_share``: estimated share of its printed area that shows (0..1), the smaller of
    the look's and the area's estimates (the area's when both agree it surely shows,
    ``_shows_by_area``); ``look_share``: the look's (the model's) alone;
    ``confidence``: probability of the name; ``runner_up``: the next likeliest name;
    ``status``: ``visible``, ``unsure`` or ``hidden`` (a sliver under the rule);
    ``on``: ``player`` or ``objective`` (the card it lies on); ``coded``: a player face whose
    code is read prints this item where the blob lies (so it is on the player's cards).
    """

    item: str
    box_xywh: tuple[int, int, int, int]
    visible_share: float
    look_share: float
    confidence: float
    runner_up: str
    status: Status
    on: Literal["player", "objective"]
    coded: bool = False


@dataclass(frozen=True)
class PicmixReading:
    """What one frame shows about a claim.

    ``objective_card``: its card id (None when read from items of an unknown deck);
    ``objective_items``: sorted; ``objective_method``: ``code`` or ``items``;
    ``objective_quad_px``: (4, 2) corners of the objective card when known (tuple of (x, y));
    ``visible``: distinct items surely showing on the player's cards, sorted;
    ``unsure``: items in doubt (near the visibility threshold or named with low confidence);
    ``verdict``, ``missing``, ``extra``: against the objective; ``sightings``: every item
    blob; ``reasons``: why the verdict is ``unsure``, or why a claim whose objective items are
    not all known is surely ``wrong`` (empty otherwise). With the objective card not read at
    all (``_wrong_whichever``), ``objective_card`` is None and ``objective_items`` empty.
    """

    objective_card: str | None
    objective_items: tuple[str, ...]
    objective_method: Literal["code", "items"]
    objective_quad_px: tuple[tuple[float, float], ...] | None
    visible: tuple[str, ...]
    unsure: tuple[str, ...]
    verdict: Verdict
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    sightings: tuple[ItemSighting, ...]
    reasons: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """docs/formats.md section 3 keys (``objective``, ``visible``, ``verdict``, ``missing``,
        ``extra``) plus ``unsure``, ``reasons``, ``objective_method`` and ``items``."""
        return {
            "objective": {"card": self.objective_card, "items": list(self.objective_items)},
            "visible": list(self.visible),
            "verdict": self.verdict,
            "missing": list(self.missing),
            "extra": list(self.extra),
            "unsure": list(self.unsure),
            "reasons": list(self.reasons),
            "objective_method": self.objective_method,
            "items": [
                {
                    "item": s.item,
                    "on": s.on,
                    "status": s.status,
                    "visible_share": round(s.visible_share, 3),
                    "confidence": round(s.confidence, 4),
                    "runner_up": s.runner_up,
                    "box": list(s.box_xywh),
                }
                for s in self.sightings
            ],
        }


@dataclass(frozen=True)
class PicmixFailure:
    """A frame that cannot be verified, and why. Falsy.

    ``covered``: a hand, an arm or an object lies over the cards in view, and what cannot be
    read may be under it: the claim is then ``unsure`` (no camera could judge it), not
    judged by guessing."""

    reason: str
    sightings: tuple[ItemSighting, ...] = ()
    covered: bool = False

    def __bool__(self) -> bool:
        return False

    def to_json(self) -> dict[str, Any]:
        """``{"error": reason}``; with ``"verdict": "unsure"`` and ``"reasons"`` when covered."""
        out: dict[str, Any] = {"error": self.reason}
        if self.covered:
            out.update(verdict="unsure", reasons=[self.reason])
        return out
