"""The objective's code read when a hand hides one of its markers and a fingertip touches the
other, cutting off its corner: the marker and the finger are one ink blob, which neither the
blob reader nor OpenCV's whole-frame search reads; its dark core, with the corner rebuilt
from the four longest sides, is read (``vision.picmix.markers.dark_cores``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.picmix.compose import Composed, Faces, chain, compose
from tests.picmix.test_exported import _steps
from vision.picmix.frame_items import read_items
from vision.picmix.ink import MAX_SIDE_PX, ink_map
from vision.picmix.markers import dark_cores, search_frame
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixReading

SKIN = (120, 150, 200)


def _finger(img: np.ndarray, start: tuple[int, int], tip: tuple[int, int], width: int) -> None:
    """A finger from ``start`` to ``tip`` (px) drawn on ``img`` in place, its tip a disc of
    radius ``width // 2 + 4``."""
    cv2.line(img, start, tip, SKIN, width)
    cv2.circle(img, tip, width // 2 + 4, SKIN, -1)


@pytest.fixture(scope="module")
def claim(faces: Faces) -> Composed:
    return compose(faces, "picmix-obj-01", chain(_steps(1, "red"), angle_deg=12))


@pytest.fixture(scope="module", params=[6, 7, 8])
def touched(
    request: pytest.FixtureRequest, claim: Composed, model: ItemModel, deck: ItemDeck
) -> np.ndarray:
    """The claim with a sleeved arm over the objective's top-left marker and a fingertip
    (a disc of 11 px) ``request.param`` px beyond the outer corner of its bottom-right one,
    so that it covers that corner. (Farther out, the whole-frame search reads the marker.)"""
    fi = read_items(claim.image, deck, model)
    tl, br = (m.corners_px for m in fi.markers if m.card == "picmix-obj-01")
    if tl.mean(axis=0).sum() > br.mean(axis=0).sum():
        tl, br = br, tl
    card = (tl.mean(axis=0) + br.mean(axis=0)) / 2
    outer = br[int(np.argmax(np.hypot(*(br - card).T)))]
    out = (outer - br.mean(axis=0)) / np.hypot(*(outer - br.mean(axis=0)))
    img = claim.image.copy()
    tl_c = tuple(int(v) for v in tl.mean(axis=0))
    cv2.line(img, (tl_c[0] - 190, 0), tl_c, (60, 60, 140), 70)  # the sleeve
    _finger(img, (tl_c[0] - 190, 0), tl_c, 40)
    tip = tuple(round(float(v)) for v in outer + request.param * out)
    _finger(img, (tip[0] + 270, tip[1] + 195), tip, 14)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


def test_touched_marker_is_out_of_reach_of_the_blobs_and_the_search(
    touched: np.ndarray, model: ItemModel, deck: ItemDeck
) -> None:
    """The premise: without the dark cores no objective code is read."""
    grey = cv2.cvtColor(touched, cv2.COLOR_BGR2GRAY)
    assert not any(m.card.startswith("picmix-obj-") for m in search_frame(grey))
    im = ink_map(touched)
    side = np.maximum(im.stats[:, 2], im.stats[:, 3])
    large = [int(i) for i in np.flatnonzero(side > MAX_SIDE_PX) if i > 0]
    assert [(m.card, m.face) for m in dark_cores(grey, im, large)] == [("picmix-obj-01", "front")]


def test_touched_marker_gives_the_objective_by_its_code(
    touched: np.ndarray, claim: Composed, model: ItemModel, deck: ItemDeck
) -> None:
    r = verify_frame(touched, deck, model=model)
    assert isinstance(r, PicmixReading), r
    assert (r.objective_method, r.objective_card) == ("code", "picmix-obj-01")
    assert (r.verdict, set(r.visible)) == ("correct", set(claim.objective))


def test_dark_cores_checks_its_input() -> None:
    im = ink_map(np.full((64, 64, 3), 200, np.uint8))
    with pytest.raises(ValueError, match=r"grey must be \(H, W\) uint8"):
        dark_cores(np.zeros((64, 64, 3), np.uint8), im, [])
