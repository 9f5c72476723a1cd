"""A hand over the cards: the claim is `unsure` with the reason when the objective cannot be
read, and read by its code when only its items are covered."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from pictable.commands.verify import verify_one
from tests.picmix.compose import Composed, Faces, chain, compose
from tests.picmix.test_exported import _steps
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixFailure, PicmixReading

OBJECTIVE_CENTRE_PX = (460, 168)  # compose()'s objective at (-150, -160) mm, 1.2 px/mm


def _arm(img: np.ndarray, start: tuple[int, int], tip: tuple[int, int], width: int) -> np.ndarray:
    """``img`` with a sleeved arm from ``start`` to the fingertip ``tip`` (px) laid over it."""
    out = img.copy()
    cv2.line(out, start, tip, (60, 60, 140), width + 30)  # the sleeve
    cv2.line(out, start, tip, (120, 150, 200), width)  # skin
    cv2.circle(out, tip, width // 2 + 8, (120, 150, 200), -1)
    return cv2.GaussianBlur(out, (0, 0), 1.0)


@pytest.fixture(scope="module")
def claim(faces: Faces) -> Composed:
    return compose(faces, "picmix-obj-01", chain(_steps(1, "red"), angle_deg=12))


def test_arm_over_the_objective_is_unsure_with_the_reason(
    claim: Composed, model: ItemModel, deck: ItemDeck, tmp_path: pytest.TempPathFactory
) -> None:
    covered = _arm(claim.image, (0, 0), OBJECTIVE_CENTRE_PX, 120)
    r = verify_frame(covered, deck, model=model)
    assert isinstance(r, PicmixFailure) and r.covered
    assert r.reason.startswith("no objective card found") and "hand or arm" in r.reason
    assert r.to_json()["verdict"] == "unsure"
    path = tmp_path / "arm.png"  # type: ignore[operator]
    cv2.imwrite(str(path), covered)
    entry, _, _ = verify_one(str(path), deck)
    assert entry["verdict"] == "unsure" and entry["error"] == r.reason
    assert entry["reasons"] == [r.reason]


def test_finger_over_the_objective_items_is_read_by_its_code(
    claim: Composed, model: ItemModel, deck: ItemDeck
) -> None:
    cx, cy = OBJECTIVE_CENTRE_PX
    touched = _arm(claim.image, (0, cy + 10), (cx - 5, cy + 12), 34)
    r = verify_frame(touched, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert (r.objective_method, r.objective_card) == ("code", "picmix-obj-01")
    assert (r.verdict, set(r.visible)) == ("correct", set(claim.objective))


def test_no_hand_no_objective_says_so_plainly(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    c = compose(faces, None, chain(_steps(1, "red")))
    r = verify_frame(c.image, deck, model=model)
    assert isinstance(r, PicmixFailure) and not r.covered
    assert "verdict" not in r.to_json()


def test_a_noise_image_says_what_was_not_found(
    model: ItemModel, deck: ItemDeck, tmp_path: pytest.TempPathFactory
) -> None:
    """Grey noise passes for a hand: the answer says first that no objective card was found
    (it began with the hand, "may cover it", as if a card were there)."""
    noise = np.random.default_rng(1).integers(0, 256, (720, 1280), dtype=np.uint8)
    path = tmp_path / "noise.png"  # type: ignore[operator]
    cv2.imwrite(str(path), noise)
    entry, _, _ = verify_one(str(path), deck)
    assert entry["error"].startswith("no objective card found"), entry["error"]


def test_an_arm_and_no_player_cards_says_what_was_not_found(
    faces: Faces, model: ItemModel, deck: ItemDeck
) -> None:
    """The objective alone and an arm in view: no player cards found, said first."""
    alone = compose(faces, "picmix-obj-01", [])
    r = verify_frame(_arm(alone.image, (1280, 720), (700, 450), 120), deck, model=model)
    assert isinstance(r, PicmixFailure) and r.covered
    assert r.reason.startswith("no player cards found"), r.reason
