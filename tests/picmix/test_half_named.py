"""A missing objective item that a blob among the player's cards may be, named in doubt, is
no sure absence: the claim is ``unsure``, not ``wrong`` (``reader._half_named``; issue 26,
part 6: art the model never saw, a right claim must not be rejected)."""

from __future__ import annotations

from typing import Any

import pytest

from pictable.bench.readers.picmix import new_art_deck
from vision.picmix import reader
from vision.picmix.frame_items import read_items
from vision.picmix.model import ItemModel
from vision.picmix.objective import find_objective
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixFailure, PicmixReading
from vision.synth.picmix_claims import claim_scene


@pytest.fixture(scope="module")
def deck() -> Any:
    """The new-art deck registered from photos of one colour set and the objective cards
    (seed 2: a development seed)."""
    return new_art_deck(2, objectives=True)[0]


def _claim(i: int) -> Any:
    return claim_scene("normal", 2, i, None, new_art=True, looks="dev")[0]


def test_a_chevron_named_in_doubt_keeps_a_right_claim_from_rejection(
    deck: Any, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claim 17: the player's cards show the objective's four items; the new art's chevron,
    plainly in view, is scored 0.43 chevron and 0.57 no item. The claim was rejected."""
    frame = _claim(17)
    r = verify_frame(frame, deck=deck, model=model)
    assert isinstance(r, PicmixReading)
    assert r.verdict == "unsure" and r.missing == ("chevron",)
    assert "chevron: a blob among the player's cards may be it" in r.reasons[0]
    monkeypatch.setattr(reader, "HALF_NAMED_MIN", 1.1)
    again = verify_frame(frame, deck=deck, model=model)
    assert isinstance(again, PicmixReading) and again.verdict == "wrong"


def test_a_wrong_claim_whose_missing_items_no_blob_may_be_stays_wrong(
    deck: Any, model: ItemModel
) -> None:
    """Claim 0: the player shows pacman, gear, hourglass and ell against arrow, cross,
    halfdisc and hourglass."""
    r = verify_frame(_claim(0), deck=deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict == "wrong"
    assert set(r.missing) == {"arrow", "cross", "halfdisc"}


def test_only_blobs_among_the_players_cards_and_off_the_objective_count(
    deck: Any, model: ItemModel
) -> None:
    frame = _claim(17)
    fi = read_items(frame, deck, model, use_codes=False)
    obj = find_objective(frame, fi, deck)
    assert not isinstance(obj, PicmixFailure) and obj.indices
    keep = reader._near_player_items(fi, obj.indices)
    assert "chevron" in reader._half_named(fi, obj, keep, deck)
    assert reader._half_named(fi, obj, lambda blob: False, deck) == set()
    # The objective card's items are not counted, though its chevron is named in doubt there
    # (read from its items: no outline known).
    assert obj.quad_px is None and "chevron" in obj.items
    mine = {id(b) for i, (_, b) in enumerate(fi.seen) if i in obj.indices}
    assert reader._half_named(fi, obj, lambda blob: id(blob) in mine, deck) == set()
