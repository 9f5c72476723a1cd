"""Items far from the claim's cards: a sliver in doubt there (a card elsewhere on the table,
mostly covered) is not on the player's cards and leaves the verdict alone; an item surely
seen there still counts."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.picmix.compose import Composed, Faces, Laid, chain, compose
from tests.picmix.test_exported import _steps
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixReading

PX_PER_MM = 1.2  # compose()'s table view: 1.2 px/mm, origin at the photo's centre
STRAY_MM = (420.0, -200.0)  # about 450 mm from the claim's cards
NEAR_MM = (120.0, 150.0)  # just beside the claim's cards


def _stray(faces: Faces, at_mm: tuple[float, float], shown: float) -> Composed:
    """The correct claim of objective 1 with a teal card at ``at_mm`` covered by a sheet of
    paper but for a strip of ``shown`` of its left half (its left item partly in view)."""
    laid = chain(_steps(1, "red"), angle_deg=12)
    c = compose(faces, "picmix-obj-01", [*laid, Laid("picmix-teal-1", "front", at_mm, 0.0)])
    cx, cy = 640 + at_mm[0] * PX_PER_MM, 360 + at_mm[1] * PX_PER_MM
    w, h = 88 * PX_PER_MM, 63 * PX_PER_MM
    img = c.image.copy()
    x0 = round(cx - w / 2 + shown * w / 2)
    cv2.rectangle(img, (x0, round(cy - h / 2 - 8)), (round(cx + w / 2 + 8), round(cy + h / 2 + 8)),
                  (228, 232, 235), -1)  # fmt: skip
    return Composed(img, c.shares, c.objective, c.laid)


def _far(r: PicmixReading, at_mm: tuple[float, float]) -> list[str]:
    """Items of ``r`` seen within 60 px of the stray card's centre."""
    cx, cy = 640 + at_mm[0] * PX_PER_MM, 360 + at_mm[1] * PX_PER_MM
    return [
        s.item
        for s in r.sightings
        if np.hypot(s.box_xywh[0] + s.box_xywh[2] / 2 - cx, s.box_xywh[1] + s.box_xywh[3] / 2 - cy)
        < 60
    ]


@pytest.mark.parametrize("shown", [0.45, 0.5, 0.55])
def test_a_sliver_far_from_the_cards_leaves_the_claim_correct(
    faces: Faces, model: ItemModel, deck: ItemDeck, shown: float
) -> None:
    c = _stray(faces, STRAY_MM, shown)
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert (r.verdict, set(r.visible)) == ("correct", set(c.objective)), r.reasons
    assert _far(r, STRAY_MM) == []


def test_a_sliver_beside_the_cards_still_counts(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    """Next to the claim's cards the same sliver may be on them: it stays in doubt."""
    c = _stray(faces, NEAR_MM, 0.5)
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert r.verdict == "unsure" and _far(r, NEAR_MM), r.to_json()


def test_an_item_surely_seen_far_away_still_counts(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    """Only items in doubt are left out: one surely seen makes the claim wrong, as before."""
    c = _stray(faces, STRAY_MM, 0.75)
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert r.verdict == "wrong" and _far(r, STRAY_MM) == ["sun"], r.to_json()
