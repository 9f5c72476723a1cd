"""A correct claim is never rejected on a guess: development claims of the hard tier
(development looks, seed 2) that the reader had rejected, now `unsure`, each by the rule that
names why its reading was in doubt.

- A face's code names what is printed on it, not what lies on top: a name the codes give a
  blob that the look gives far less than another item is in doubt
  (``vision.picmix.sightings.HINT_AGREE``).
- An arm over the player's cards on the table (no ink blob: it lies on the table too) may
  hide an objective item (``vision.picmix.ink.hand_mask``, ``reader._covered``).
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.picmix import ink, reader, sightings
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixReading
from vision.synth.picmix_claims import claim_scene, truth_of

SEED = 2
HINTED = (58, 146)
"""A player's item read by the code of the card beneath it: a blue apple named moon (the
code's name, the look's 0.08 against umbrella 0.75) and a drop named key (0.009 against
0.45), each surely, so the claim had an extra item and was rejected."""
UNDER_ARM = (41, 68)
"""An arm lies over the edge of the player's cards: the crown (41) or the bell (68) under
it is joined to it and not found, so the claim had an objective item missing."""


def _verdict(frame: np.ndarray, deck: ItemDeck, model: ItemModel) -> str:
    r = verify_frame(frame, deck, model=model)
    return r.verdict if isinstance(r, PicmixReading) else "unsure"


def _right_claim_asked(
    index: int, deck: ItemDeck, model: ItemModel
) -> tuple[np.ndarray, PicmixReading]:
    """(frame, reading) of hard development claim ``index``: right by its truth, and asked
    about (``unsure``) by the reader."""
    frame, truth = claim_scene("hard", SEED, index, None, looks="dev")
    assert truth_of(truth)[2] == "correct"
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict == "unsure"
    return frame, r


@pytest.mark.parametrize("index", HINTED)
def test_a_code_that_the_look_flatly_doubts_leaves_the_name_in_doubt(
    index: int, deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, r = _right_claim_asked(index, deck, model)
    doubted = [s for s in r.sightings if s.on == "player" and s.confidence < 0.9]
    assert doubted and all(s.status == "unsure" for s in doubted)
    monkeypatch.setattr(sightings, "HINT_AGREE", 0.0)  # the code's name taken surely
    assert _verdict(frame, deck, model) == "wrong"


@pytest.mark.parametrize("index", UNDER_ARM)
def test_an_arm_over_the_players_cards_may_hide_the_missing_item(
    index: int, deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, r = _right_claim_asked(index, deck, model)
    assert any("may be under it" in reason for reason in r.reasons)
    mask, step = ink.hand_mask(frame)
    assert mask.any() and step == ink.HAND_STEP

    def no_hand(f: np.ndarray, table: np.ndarray | None = None) -> tuple[np.ndarray, int]:
        return np.zeros_like(ink.hand_mask(f, table)[0]), ink.HAND_STEP

    monkeypatch.setattr(reader, "hand_mask", no_hand)
    assert _verdict(frame, deck, model) == "wrong"


def test_the_hand_mask_is_the_hand_in_view() -> None:
    """``hand_in_view`` is whether ``hand_mask`` holds any region; a bare table holds none."""
    frame, _ = claim_scene("hard", SEED, UNDER_ARM[0], None, looks="dev")
    assert ink.hand_in_view(frame)
    mask, step = ink.hand_mask(frame)
    assert mask.shape == (frame.shape[0] // step, frame.shape[1] // step)
    table = np.full((720, 1280, 3), (90, 120, 140), np.uint8)
    assert not ink.hand_in_view(table) and not ink.hand_mask(table)[0].any()


def test_a_hand_hides_no_more_items_than_the_card_halves_it_covers(
    deck: ItemDeck, model: ItemModel
) -> None:
    """The arm of claim 41 covers the player's cards' edge: it may hide the one objective item
    not seen, never as many items as would need more card halves than it covers."""
    from vision.picmix.frame_items import read_items

    frame, _ = claim_scene("hard", SEED, UNDER_ARM[0], None, looks="dev")
    fi = read_items(frame, deck, model)
    seen = [s for s, _ in fi.seen]
    assert reader._covered(frame, fi, seen, missing=1)
    assert not reader._covered(frame, fi, seen, missing=40)


def test_a_shadow_and_the_cards_own_paper_are_not_a_hand(deck: ItemDeck, model: ItemModel) -> None:
    """Kit look, normal tier, seed 0, claim 346: an arm's shadow lies on the table by the
    player's cards (the hand over 19% of one card), and under the warm light their paper is
    no paper to ``hand_mask``. The claim is wrong (two objective items under other cards):
    judged so, not asked about."""
    from vision.picmix.frame_items import read_items

    frame, truth = claim_scene("normal", 0, 346, None)
    assert truth_of(truth)[2] == "wrong"
    assert _verdict(frame, deck, model) == "wrong"
    fi = read_items(frame, deck, model)
    mask, _ = ink.hand_mask(frame)
    kept = mask & ~reader._paper_cells(fi.blobs.im, mask.shape)
    assert kept.sum() < mask.sum()  # the cards' paper and printing taken off
    shadow = reader._shadow_cells(frame, mask.shape, ink.table_colour(frame))
    assert (kept & ~shadow).sum() < kept.sum()
