"""A small card back told by its big QR code read by likeness (issue 26, part 3): the game's
backs are one picture, so a back whose markers are too small to read surely is told by the
blurred pattern of its code, compared with every back's where its markers place it."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from vision.identify import back_qr
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit import geometry as g
from vision.kit import render_face

PX_PER_MM = 8.0


def _face_to_frame(width_px: float, angle_deg: float, at: tuple[float, float]) -> np.ndarray:
    """(3, 2) affine map of face mm to frame px: a card ``width_px`` wide, turned
    ``angle_deg``, its centre at ``at``."""
    s = width_px / g.CARD_W_MM
    a = np.radians(angle_deg)
    rot = s * np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])  # rows: x, y of mm
    centre_mm = np.array([g.CARD_W_MM, g.CARD_H_MM]) / 2
    shift = np.asarray(at) - centre_mm @ rot
    return np.vstack([rot, shift])


@functools.cache
def _table(card: str, side: str, width_px: float, blur_px: float, angle: float = 23.0):
    """A grey frame with ``card``'s ``side`` laid ``width_px`` wide on a mid-grey table,
    blurred by ``blur_px`` and noisy, and the face's map to it."""
    m = _face_to_frame(width_px, angle, (160.0, 120.0))
    face = cv2.cvtColor(render_face(card, side, PX_PER_MM), cv2.COLOR_BGR2GRAY)
    # face px -> mm -> frame px
    to_mm = np.diag([1 / PX_PER_MM, 1 / PX_PER_MM])
    a = np.vstack([to_mm @ m[:2], m[2] + np.array([0.5, 0.5]) / PX_PER_MM @ m[:2]]).T
    frame = cv2.warpAffine(
        face, a.astype(np.float64), (320, 240), flags=cv2.INTER_AREA, borderValue=110
    )
    frame = cv2.GaussianBlur(frame.astype(np.float32), (0, 0), blur_px)
    rng = np.random.default_rng(len(card) + int(width_px))
    frame = np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    return frame, m


def test_every_back_of_a_game_with_big_codes_has_a_template() -> None:
    cards, t, common = back_qr.templates("pickpic")
    assert len(cards) == 120 and cards[0] == "pickpic-001"
    assert t.shape == (len(back_qr.BLUR_MODULES), 120, back_qr.face_points().shape[0])
    # Unit norm, and nothing of the pattern all the codes share.
    assert np.allclose(np.linalg.norm(t, axis=2), 1, atol=1e-4)
    assert np.abs(np.einsum("bkp,bp->bk", t, common)).max() < 1e-4
    # Picmix player cards carry no QR code: only the objective cards' backs are told so.
    picmix, _, _ = back_qr.templates("picmix")
    assert picmix and all(c.startswith("picmix-obj-") for c in picmix)
    assert back_qr.templates("nogame") is None


@pytest.mark.parametrize(("width", "blur"), [(60.0, 0.7), (40.0, 0.8), (32.0, 0.7)])
def test_a_small_blurred_back_is_told_by_its_code(width: float, blur: float) -> None:
    frame, m = _table("pickpic-086", "back", width, blur)
    assert back_qr.confirms(frame, m, 0, "pickpic-086", "pickpic")
    cards, scores = back_qr.back_scores(frame, m[None], "pickpic")
    assert cards[int(np.argmax(scores[0, 0]))] == "pickpic-086"
    # Another back's code is not there.
    for other in ("pickpic-085", "pickpic-001", "pickpic-120"):
        assert not back_qr.confirms(frame, m, 0, other, "pickpic")


def test_turned_half_round_the_code_is_read_the_other_way() -> None:
    frame, _ = _table("pickpic-040", "back", 48.0, 0.7, angle=23.0 + 180.0)
    # The map of the card as it lies turned back by half a turn: the same points reversed.
    turned = _face_to_frame(48.0, 23.0, (160.0, 120.0))
    assert back_qr.confirms(frame, turned, 1, "pickpic-040", "pickpic")
    assert not back_qr.confirms(frame, turned, 0, "pickpic-040", "pickpic")


@pytest.mark.parametrize("card", ["pickpic-086", "pickpic-013", "pickpic-050", "pickpic-100"])
def test_no_back_is_told_where_a_front_or_the_bare_table_lies(card: str) -> None:
    frame, m = _table(card, "front", 44.0, 0.8)
    # The card's own back (what a misread marker of its front would most likely name: the
    # same card) is not there; a front's picture correlates weakly with every code (at most
    # about 0.4), and only by chance does one lead the others (a marker must also name it).
    assert not any(back_qr.confirms(frame, m, p, card, "pickpic") for p in (0, 1))
    cards, scores = back_qr.back_scores(frame, m[None], "pickpic")
    assert scores.max() < 0.45
    bare = np.full_like(frame, 110)
    cards, scores = back_qr.back_scores(bare, m[None], "pickpic")
    assert not any(back_qr.confirms(bare, m, p, c, "pickpic") for p in (0, 1) for c in cards)


def test_a_map_off_the_frame_reads_nothing() -> None:
    frame, m = _table("pickpic-086", "back", 40.0, 0.8)
    far = m.copy()
    far[2] += 5000.0
    assert not back_qr.confirms(frame, far, 0, "pickpic-086", "pickpic")
    _, scores = back_qr.back_scores(frame, np.zeros((0, 3, 2)), "pickpic")
    assert scores.shape[:2] == (0, 2)


@pytest.mark.parametrize(("index", "card"), [(11, "pickpic-086"), (97, "pickpic-026")])
def test_a_small_back_on_a_hard_table_is_named_when_its_code_backs_its_markers(
    index: int, card: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Development looks, hard tier, seed 2: a back 33 px wide (scene 11) and one 28 px
    wide (scene 97), in full view. Their markers, read where their outline puts them, name
    them but lead the kit's other markers by too little to stand alone, and a back's picture
    cannot tell which back it is; their codes do. Without the code's test neither is named."""
    frame, truth = make_scene("codes", "hard", scene_seed(2, index), "dev")
    true = next(t for t in truth.cards if t.card_id == card)
    assert true.face == "back" and true.visible_fraction == 1.0
    read = identify_frame(frame, None, codes="fast", game="pickpic")
    assert {(r.card, r.side) for r in read.cards} <= {(t.card_id, t.face) for t in truth.cards}
    reading = read.card(card)
    assert reading is not None and reading.side == "back"
    assert placement_error(reading.corners_px, true.corners_px) <= PLACE_MAX
    monkeypatch.setattr(back_qr, "confirms", lambda *args: False)
    assert identify_frame(frame, None, codes="fast", game="pickpic").card(card) is None
