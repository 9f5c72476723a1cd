"""A claim is the player's cards, not the table's print: on a tablecloth printed with dark
dots and squares (development claims of the wide looks, normal tier, seeds 2 and 3) the look
names hundreds of the cloth's dots cloud, bell or heart surely, and right claims were
rejected for those extra items.

- Where the codes of the player's faces are read and four or more items are surely seen
  where none of those faces prints one, only the items where a read face prints one count
  (``reader.PRINT_MIN``, ``reader.on_read_faces``, ``FrameItems.printed``).
- A face has the same marker in both halves; the look settles which half a marker was read
  in (``frame_items.HALF_LOOK_MIN``): the other reading puts the face beside the card, on
  the cloth, whose dots would then count as the face's items.
- Then a hand or object over the player's cards may hide a card's code while its item
  shows: a claim that would be `correct` is asked about (`unsure`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.picmix import frame_items, reader
from vision.picmix.frame_items import FrameItems, read_items
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import ItemSighting, PicmixReading
from vision.synth.picmix_claims import claim_scene, truth_of

PRINTED_CLOTH = ((2, 1), (2, 39), (3, 25))
"""(seed, claim) of right claims on a cloth printed with dots and squares, once rejected."""
HAND_OVER = (2, 66)
"""A right claim on the printed cloth with a hand over the player's cards."""


def _reading(
    seed: int, index: int, deck: ItemDeck, model: ItemModel
) -> tuple[np.ndarray, dict, PicmixReading]:
    frame, truth = claim_scene("normal", seed, index, None, looks="wide")
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading)
    return frame, truth, r


@pytest.mark.parametrize(("seed", "index"), PRINTED_CLOTH)
def test_the_tables_print_is_not_the_players_items(
    seed: int, index: int, deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth, r = _reading(seed, index, deck, model)
    visible, objective, verdict = truth_of(truth)
    assert verdict == "correct"
    assert r.verdict == "correct" and set(r.visible) == objective == visible
    # the cloth's dots are seen as items, surely, by the dozen
    fi = read_items(frame, deck, model)
    off = [s for s, b in fi.seen if s.status == "visible" and id(b) not in fi.printed]
    assert len(off) >= 4 * reader.PRINT_MIN
    monkeypatch.setattr(reader, "PRINT_MIN", 10**6)  # every item in view counts again
    crowd = verify_frame(frame, deck, model=model)  # too many: asked about
    assert isinstance(crowd, PicmixReading) and crowd.verdict == "unsure"
    monkeypatch.setattr(reader, "CROWD_MIN", 10**6)  # and judged on them: rejected
    again = verify_frame(frame, deck, model=model)
    assert isinstance(again, PicmixReading) and again.verdict == "wrong" and again.extra


def test_the_look_settles_which_half_a_marker_was_read_in(
    deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed, index = PRINTED_CLOTH[0]
    frame, _ = claim_scene("normal", seed, index, None, looks="wide")
    settled = read_items(frame, deck, model)
    monkeypatch.setattr(frame_items, "HALF_LOOK_MIN", 2.0)  # no reading is ever settled
    both = read_items(frame, deck, model)
    assert settled.printed and len(both.printed) > len(settled.printed)
    # settled, the item places of the faces read hold the player's own items only
    on_faces = {s.item for s, b in settled.seen if id(b) in settled.printed}
    assert on_faces == {s.item for s, _ in settled.seen if s.coded and s.status == "visible"}
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict == "unsure"


def test_a_hand_over_the_cards_on_a_printed_table_leaves_the_claim_asked_about(
    deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed, index = HAND_OVER
    frame, truth, r = _reading(seed, index, deck, model)
    assert truth_of(truth)[2] == "correct"
    assert r.verdict == "unsure" and "may hide a code" in r.reasons[0]
    monkeypatch.setattr(reader, "_covered", lambda *a, **k: False)
    again = verify_frame(frame, deck, model=model)
    assert isinstance(again, PicmixReading) and again.verdict == "correct"


def _fi(off_faces: int, on_faces: int = 3) -> FrameItems:
    """Sightings surely visible: ``on_faces`` where a read face prints an item, the rest not."""
    seen = []
    for i in range(on_faces + off_faces):
        s = ItemSighting("cloud", (10 * i, 0, 8, 8), 1.0, 1.0, 1.0, "heart", "visible", "player")
        seen.append((s, object()))
    printed = frozenset(id(b) for _, b in seen[:on_faces])
    return FrameItems(seen, [], None, printed)  # type: ignore[arg-type]


def test_a_few_items_off_the_faces_read_still_count() -> None:
    """A card whose code is not read (a fingertip on its marker) shows its item: up to
    ``PRINT_MIN - 1`` items off the faces read leave every item in view counting."""
    assert reader.on_read_faces(_fi(reader.PRINT_MIN - 1), frozenset()) is None
    keep = reader.on_read_faces(_fi(reader.PRINT_MIN), frozenset())
    assert keep is not None
    fi = _fi(reader.PRINT_MIN)
    keep = reader.on_read_faces(fi, frozenset())
    assert keep is not None
    assert [keep(b) for _, b in fi.seen] == [True] * 3 + [False] * reader.PRINT_MIN
    # the objective's own items are not counted off the faces
    exclude = frozenset(range(3, 3 + reader.PRINT_MIN))
    assert reader.on_read_faces(fi, exclude) is None


def test_no_face_read_no_restriction() -> None:
    """A deck without codes (a retail deck registered from photos) reads no face: every item
    in view counts, as before."""
    fi = _fi(10, on_faces=0)
    assert not fi.printed and reader.on_read_faces(fi, frozenset()) is None


FAINT = ((2, 55), (3, 1))
"""(seed, claim) of right claims whose pale key (pale ink, wide looks) breaks at its thin
neck into a ring and a shaft that the look names no item: the key was missing, the claim
rejected."""


@pytest.mark.parametrize(("seed", "index"), FAINT)
def test_an_item_printed_where_its_code_is_read_and_faint_there_is_asked_about(
    seed: int, index: int, deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An objective item not seen, printed in the half of a marker read (which shows, as its
    marker does), with ink there that is not surely an item: `unsure`, not `wrong`."""
    frame, truth, r = _reading(seed, index, deck, model)
    assert truth_of(truth)[2] == "correct"
    assert r.verdict == "unsure" and r.missing == ("key",)
    assert "faint ink" in r.reasons[0]
    assert "key" in read_items(frame, deck, model).faint

    def no_faint(*a: object, **k: object) -> FrameItems:
        return replace(read_items(*a, **k), faint=frozenset())  # type: ignore[arg-type]

    monkeypatch.setattr(reader, "read_items", no_faint)
    again = verify_frame(frame, deck, model=model)
    assert isinstance(again, PicmixReading) and again.verdict == "wrong"


def test_by_looks_alone_a_printed_table_leaves_the_claim_asked_about(
    deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codes ignored (a retail deck has none), no face tells which items are the player's:
    with ``CROWD_MIN`` or more items surely seen beyond the objective, more than a player's
    cards show, the claim is `unsure`, where the cloth's dots had it rejected."""
    seed, index = PRINTED_CLOTH[0]
    frame, truth = claim_scene("normal", seed, index, None, looks="wide")
    assert truth_of(truth)[2] == "correct"
    r = verify_frame(frame, deck, model=model, use_codes=False)
    assert isinstance(r, PicmixReading) and r.verdict == "unsure"
    assert "more than a player's cards show" in r.reasons[0]
    monkeypatch.setattr(reader, "CROWD_MIN", 10**6)
    again = verify_frame(frame, deck, model=model, use_codes=False)
    assert isinstance(again, PicmixReading) and again.verdict == "wrong" and again.extra


def test_a_players_cards_are_not_a_crowd() -> None:
    """Up to ``CROWD_MIN - 1`` items surely seen beyond the objective are a claim's; the
    objective's own do not count."""
    assert not reader._crowded(_fi(reader.CROWD_MIN - 1, on_faces=0), frozenset())
    assert reader._crowded(_fi(reader.CROWD_MIN, on_faces=0), frozenset())
    assert not reader._crowded(_fi(reader.CROWD_MIN, on_faces=0), frozenset({0}))


def test_a_plain_claim_is_no_crowd(deck: ItemDeck, model: ItemModel) -> None:
    """The kit's normal claims on plain tables, by looks alone: none is a crowd."""
    for index in range(6):
        frame, _ = claim_scene("normal", 2, index, None)
        r = verify_frame(frame, deck, model=model, use_codes=False)
        assert not any("more than a player's cards show" in x for x in getattr(r, "reasons", ()))


def test_a_missing_item_seen_where_no_code_is_read_is_asked_about(
    deck: ItemDeck, model: ItemModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hard tier on the printed cloth (wide looks, seed 2, claim 36): only items where a read
    face prints one count, and the tree, on a card whose code is not read, was missing: the
    claim was rejected. A missing item seen elsewhere makes it `unsure`."""
    frame, truth = claim_scene("hard", 2, 36, None, looks="wide")
    assert truth_of(truth)[2] == "correct"
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict == "unsure"
    assert "seen where no card's code is read" in r.reasons[0] and "tree" in r.reasons[0]
    monkeypatch.setattr(reader, "_seen_elsewhere", lambda *a: set())
    again = verify_frame(frame, deck, model=model)
    assert isinstance(again, PicmixReading) and again.verdict == "wrong"
    assert again.missing == ("tree",)
