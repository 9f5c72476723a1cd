"""Art the item model never saw (``vision.picmix.newart``), named by the matching model
(``models/picmix_match``): a deck registered from photos of one colour set's faces and of the
objective cards, each item drawn under many looks (``vision.picmix.looks``), then rendered
new-art claims of other colour sets verified with it, with no codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.picmix.decks import LOOKS_FACE, load_registered, register_deck
from vision.picmix.looks import item_looks
from vision.picmix.model import MATCH_MODEL_NAME, ItemDeck, ItemModel
from vision.picmix.newart import NEW_ITEMS, NewArtTextures, register_photos
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixReading
from vision.synth.picmix_claims import claim_scene, truth_of

SEED = 11
"""Claims of this seed (never used to tune the reader) and registration photos of seed 5."""
RIGHT = (0, 1, 3, 5, 6)
"""Claims of ``SEED`` judged right with the registered deck: correct and wrong ones."""


@pytest.fixture(scope="module")
def registered(model: ItemModel, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ItemDeck]:
    folder = tmp_path_factory.mktemp("new-art-deck")
    photos = register_photos(NewArtTextures(), "teal", seed=5, objectives=True)
    return register_deck("new-art", photos, model, path=folder / "new-art.json")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("new-art-scenes")


def test_deck_keeps_looks_of_every_item(registered: tuple[Path, ItemDeck]) -> None:
    _, deck = registered
    assert deck.matcher == MATCH_MODEL_NAME and sorted(deck.items) == sorted(NEW_ITEMS)
    assert deck.looks is not None and deck.looks.shape == (len(deck.look_items), 64)
    assert np.allclose(np.linalg.norm(deck.looks, axis=1), 1.0, atol=1e-3)
    per_item = np.bincount(deck.look_items, minlength=len(deck.items))
    # the face's looks of every item, and most items also seen on objective cards
    assert (per_item >= LOOKS_FACE * 3 // 4).all()
    assert (per_item > LOOKS_FACE).sum() >= 12
    assert len(deck.objectives) == 25


def test_looks_are_the_run_time_crops() -> None:
    face = np.full((200, 300, 3), 235, np.uint8)
    cv2.circle(face, (150, 100), 40, (40, 40, 160), -1)
    crops = item_looks(face, (150.0, 100.0, 80.0), 6, seed=1)
    again = item_looks(face, (150.0, 100.0, 80.0), 6, seed=1)
    assert crops.shape == (6, 2, 32, 32) and crops.dtype == np.float32
    assert np.array_equal(crops, again)  # seeded
    assert (crops[:, 1].mean(axis=(1, 2)) > 0.2).all()  # the blob's own pixels fill the crop


def test_deck_of_another_matching_model_is_refused(
    registered: tuple[Path, ItemDeck], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, _ = registered
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["matcher"]["sha256"] = "0" * 64
    monkeypatch.setenv("PICTABLE_DECKS", str(tmp_path))
    (tmp_path / "picmix").mkdir()
    (tmp_path / "picmix" / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="register it again"):
        load_registered("old")


@pytest.mark.parametrize("i", RIGHT)
def test_new_art_claims_judged_right(
    registered: tuple[Path, ItemDeck], model: ItemModel, scenes: Path, i: int
) -> None:
    _, deck = registered
    frame, truth = claim_scene("normal", SEED, i, scenes, new_art=True)
    visible, objective, verdict = truth_of(truth)
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert r.verdict == verdict, (r.verdict, r.reasons, visible, objective)
    if verdict == "correct":
        assert set(r.visible) == visible and set(r.objective_items) == objective


def test_an_item_the_look_hides_but_its_area_shows_is_not_taken_for_hidden(
    registered: tuple[Path, ItemDeck], model: ItemModel, scenes: Path
) -> None:
    """A correct claim (seed 2, claim 16) whose thick frame shows whole on the player's card:
    the look, trained on the kit's art, puts 3% of it in view, its area all of it. It was
    taken for hidden and the right claim rejected; the item is now in doubt, so the claim
    is not rejected."""
    _, deck = registered
    frame, truth = claim_scene("normal", 2, 16, scenes, new_art=True)
    assert truth_of(truth)[2] == "correct"
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict != "wrong", r
    frame_seen = [s for s in r.sightings if s.on == "player" and s.item == "frame"]
    assert frame_seen and frame_seen[0].look_share < 0.12 and frame_seen[0].status == "unsure"


def test_a_claim_whose_objective_is_unread_is_wrong_when_no_card_has_what_shows(
    registered: tuple[Path, ItemDeck], model: ItemModel, scenes: Path
) -> None:
    """A wrong claim (seed 4, claim 39) whose objective card lies half under a sleeve, its
    items unread: the deck knows its objective cards, and none has the four items surely
    showing on the player's cards, so the claim is wrong whichever card it is. A right claim
    whose objective is unread (claim 79) is not judged."""
    _, deck = registered
    frame, truth = claim_scene("normal", 4, 39, scenes, new_art=True)
    assert truth_of(truth)[2] == "wrong"
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict == "wrong", r
    assert r.objective_card is None and "no objective card has them all" in r.reasons[0]
    frame, truth = claim_scene("normal", 4, 79, scenes, new_art=True)
    assert truth_of(truth)[2] == "correct"
    r = verify_frame(frame, deck, model=model)
    assert not (isinstance(r, PicmixReading) and r.verdict == "wrong")


def _paint_over(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """``frame`` with the item in ``box`` (x, y, w, h) painted out in its card's paper and a
    star, a picture no registered item is, drawn in its ink in its place."""
    x, y, w, h = box
    out = frame.copy()
    g = 3
    patch = frame[y - g : y + h + g, x - g : x + w + g].reshape(-1, 3).astype(np.float32)
    bright = patch.sum(axis=1)
    paper = np.median(patch[bright >= np.percentile(bright, 80)], axis=0)
    ink = np.median(patch[bright <= np.percentile(bright, 15)], axis=0)
    out[y - g : y + h + g, x - g : x + w + g] = paper.astype(np.uint8)
    cx, cy, r = x + w / 2, y + h / 2, 0.5 * max(w, h)
    ang = np.arange(10) * np.pi / 5
    rad = np.where(np.arange(10) % 2 == 0, r, 0.42 * r)
    pts = np.stack([cx + rad * np.sin(ang), cy - rad * np.cos(ang)], axis=1)
    cv2.fillPoly(out, [np.int32(np.round(pts))], tuple(int(v) for v in ink), cv2.LINE_AA)
    return out


def test_an_item_of_no_registered_kind_is_not_accepted(
    registered: tuple[Path, ItemDeck], model: ItemModel, scenes: Path
) -> None:
    """A correct claim, one of its player items replaced by a star that is none of the
    deck's items: the claim is not accepted (the star is not surely any item, and the item
    it replaced no longer shows)."""
    _, deck = registered
    for i in RIGHT:
        frame, truth = claim_scene("normal", SEED, i, scenes, new_art=True)
        if truth_of(truth)[2] == "correct":
            break
    else:
        pytest.fail("no correct claim among RIGHT")
    r = verify_frame(frame, deck, model=model)
    assert isinstance(r, PicmixReading) and r.verdict == "correct"
    shown = [s for s in r.sightings if s.on == "player" and s.status == "visible"]
    assert shown
    for s in shown:
        painted = verify_frame(_paint_over(frame, s.box_xywh), deck, model=model)
        assert not (isinstance(painted, PicmixReading) and painted.verdict == "correct"), s.item
