"""An arm over the objective card: when the items surely showing on the player's cards (their
faces' codes print them there) are on no objective card of the kit, the claim is `wrong`
whichever card the objective is (``reader._wrong_whichever``); when some card has them all,
it stays `unsure` (``test_covered``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.picmix.compose import Composed, Faces, Laid, chain, compose
from tests.picmix.test_covered import OBJECTIVE_CENTRE_PX, _arm
from tests.picmix.test_exported import _steps
from vision.kit.picmix import OBJECTIVES
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixFailure, PicmixReading
from vision.synth.picmix_claims import claim_scene, objective_hidden, truth_of


def _slid_under_arm(faces: Faces, objective: int, colour: str) -> Composed:
    """Objective ``objective``'s row of ``colour``, its first card slid 60 mm out (its hidden
    half shows too), the objective card under an arm."""
    laid = chain(_steps(objective, colour), start_mm=(-40.0, 60.0))
    first = laid[0]
    x, y = first.centre_mm
    laid[0] = Laid(first.card, first.face, (x - 60.0, y), first.angle_deg)
    c = compose(faces, f"picmix-obj-{objective:02d}", laid)
    return Composed(_arm(c.image, (0, 0), OBJECTIVE_CENTRE_PX, 120), c.shares, c.objective, laid)


def test_items_on_no_objective_card_make_the_claim_wrong(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    c = _slid_under_arm(faces, 1, "red")
    shows = c.visible()
    assert len(shows) == 4 and not any(shows <= set(card) for card in OBJECTIVES)  # premise
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert (r.verdict, r.objective_card, r.objective_items) == ("wrong", None, ())
    assert set(r.visible) == shows and not r.missing
    assert "no objective card has them all" in r.reasons[0]
    assert r.to_json()["verdict"] == "wrong"


def test_items_an_objective_card_has_leave_it_unsure(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    """The same with objective 2's row: its 4 items showing are those of card 2, which may be
    the one under the arm: `unsure`."""
    c = _slid_under_arm(faces, 2, "red")
    assert c.visible() == set(OBJECTIVES[1])
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixFailure) and r.covered


@pytest.mark.parametrize(("seed", "i"), [(0, 305), (0, 390)])
def test_rendered_claims_with_the_objective_under_an_arm(
    seed: int, i: int, tmp_path: Path, model: ItemModel, deck: ItemDeck
) -> None:
    """Rendered claims (``vision.synth``) with under a quarter of the objective in view."""
    frame, truth = claim_scene("normal", seed, i, cache=tmp_path)
    assert objective_hidden(truth)
    t_visible, _, t_verdict = truth_of(truth)
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert (r.verdict, set(r.visible)) == (t_verdict, t_visible)
