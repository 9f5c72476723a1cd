"""An independent check: claims composed here from the faces `pictable kit export picmix`
writes (not the synthetic renderer), verified by the same reader as the command."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.picmix.compose import Composed, Faces, Laid, chain, compose, table_view
from vision.kit.picmix import OBJECTIVES, player_set_ids, solve_objective
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixFailure, PicmixReading


def _steps(objective: int, colour: str) -> list[tuple[str, str, str | None]]:
    sol = solve_objective(OBJECTIVES[objective - 1], player_set_ids(colour))
    assert sol is not None
    return [(p.card, p.face, p.shown[0] if len(p.shown) == 1 else None) for p in sol.placements]


def _check(c: Composed, model: ItemModel, deck: ItemDeck) -> PicmixReading:
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert sorted(r.objective_items) == c.objective
    return r


def test_correct_claim_with_turned_over_cards(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    steps = _steps(1, "red")
    assert any(face == "back" for _, face, _ in steps)  # a card turned over
    c = compose(faces, "picmix-obj-01", chain(steps, angle_deg=12))
    assert c.visible() == set(c.objective)
    r = _check(c, model, deck)
    assert (r.verdict, set(r.visible)) == ("correct", set(c.objective))
    assert r.objective_card == "picmix-obj-01" and r.objective_method == "code"


def test_half_covered_item_does_not_count(faces: Faces, model: ItemModel, deck: ItemDeck) -> None:
    c = compose(faces, "picmix-obj-03", chain(_steps(3, "teal"), angle_deg=-20))
    hidden = {k for k, v in c.shares.items() if v == 0.0}
    assert hidden  # some half lies under another card
    r = _check(c, model, deck)
    assert r.verdict == "correct"
    assert not hidden & set(r.visible)


def test_extra_item_showing(faces: Faces, model: ItemModel, deck: ItemDeck) -> None:
    steps = _steps(3, "red")
    laid = chain(steps, angle_deg=5)
    # one more card, lying apart, shows two items the objective does not have
    spare = next(
        f"picmix-red-{n}" for n in range(1, 5) if f"picmix-red-{n}" not in {s[0] for s in steps}
    )
    laid.append(Laid(spare, "front", (180.0, 120.0), 30.0))
    c = compose(faces, "picmix-obj-03", laid)
    extra = c.visible() - set(c.objective)
    assert extra
    r = _check(c, model, deck)
    assert r.verdict == "wrong"
    assert set(r.extra) == extra


def test_missing_item(faces: Faces, model: ItemModel, deck: ItemDeck) -> None:
    steps = _steps(1, "red")  # 3 items: one card showing one half, one showing both
    c = compose(faces, "picmix-obj-01", chain(steps[1:], angle_deg=90))
    missing = set(c.objective) - c.visible()
    assert missing and c.visible() < set(c.objective)
    r = _check(c, model, deck)
    assert r.verdict == "wrong"
    assert set(r.missing) == missing and not r.extra


def _threshold_layout(faces: Faces) -> tuple[Composed, str]:
    """Objective 1 with the red set, the top card slid back along the row until the item it
    covers shows about a quarter of its printed area."""
    steps = _steps(1, "red")
    base = compose(faces, "picmix-obj-01", chain(steps))
    covered = next(k for k, v in base.shares.items() if v == 0.0)
    lo, hi = 0.0, 44.0
    for _ in range(12):  # the share grows with the shift: bisect for 25%
        mid = (lo + hi) / 2
        share = compose(faces, "picmix-obj-01", chain(steps, shift_mm=mid)).shares[covered]
        lo, hi = (mid, hi) if share < 0.25 else (lo, mid)
    c = compose(faces, "picmix-obj-01", chain(steps, shift_mm=(lo + hi) / 2))
    return c, covered


def test_item_at_the_visibility_threshold_is_unsure(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    c, item = _threshold_layout(faces)
    assert abs(c.shares[item] - 0.25) < 0.03
    r = _check(c, model, deck)
    assert r.verdict == "unsure", r
    assert item in r.unsure
    assert any(reason.startswith(f"{item}:") for reason in r.reasons)


def test_no_objective_in_view(faces: Faces, model: ItemModel, deck: ItemDeck) -> None:
    c = compose(faces, None, chain(_steps(1, "red")))
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixFailure)
    assert "no objective" in r.reason


CASES = [  # objective, set, row angle, view turn, tilt, table colour, correct?
    (2, "red", 0.0, 10.0, 0.0, (60, 90, 130), True),
    (3, "teal", 35.0, -25.0, 0.25, (40, 100, 40), False),
    (4, "red", -60.0, 0.0, 0.15, (180, 180, 180), True),
    (5, "teal", 150.0, 40.0, 0.3, (50, 50, 55), False),
    (5, "red", 80.0, -10.0, 0.1, (90, 140, 190), True),
    (3, "red", 200.0, 5.0, 0.2, (120, 80, 60), True),
]


@pytest.mark.parametrize("case", CASES)
def test_composed_claims(case: tuple, faces: Faces, model: ItemModel, deck: ItemDeck) -> None:
    obj, colour, angle, turn, tilt, table, correct = case
    steps = _steps(obj, colour)
    laid = chain(steps, angle_deg=angle, start_mm=(-40.0, 60.0))
    if not correct:  # the first card slid out: its hidden half shows too
        a = math.radians(angle)
        first = laid[0]
        laid[0] = Laid(
            first.card,
            first.face,
            (first.centre_mm[0] - 60 * math.cos(a), first.centre_mm[1] - 60 * math.sin(a)),
            first.angle_deg,
        )
    view = table_view(
        px_per_mm=float(np.random.default_rng(obj).uniform(1.05, 1.35)), tilt=tilt, turn_deg=turn
    )
    c = compose(faces, f"picmix-obj-{obj:02d}", laid, view=view, table_bgr=table, seed=obj)
    truth = c.visible()
    assert all(v < 0.1 or v > 0.6 for v in c.shares.values())  # no item near the threshold
    r = _check(c, model, deck)
    assert set(r.visible) == truth
    assert r.verdict == ("correct" if truth == set(c.objective) else "wrong")


def test_close_up_photo_is_read_at_a_smaller_scale(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    size = (2400, 1600)
    view = table_view(size, px_per_mm=5.0, turn_deg=-15)
    laid = chain(_steps(1, "red"), angle_deg=10, start_mm=(-40.0, 40.0))
    c = compose(faces, "picmix-obj-01", laid, view=view, size_wh=size, objective_at=(-100, -90))
    r = _check(c, model, deck)
    assert (r.verdict, set(r.visible)) == ("correct", set(c.objective))
    x, y, w, h = next(s for s in r.sightings if s.on == "player").box_xywh
    assert max(w, h) > 90 and x + w <= size[0] and y + h <= size[1]  # in the photo's pixels
