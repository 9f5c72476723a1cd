"""Identification on rendered tables with exact truth: by codes (face up and face down), by
pictures alone, overlapping cards, cards not in the deck, seat zones."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.files import CalibrationFile
from calibration.seats import layout_seats, zone_of
from tests.identify.conftest import mixed_scene, table_scene
from vision.identify import FrameCards, ReferenceDeck, identify_frame
from vision.synth import Truth


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance, px."""
    return float(np.linalg.norm(np.asarray(found) - np.asarray(truth), axis=1).max())


def named(result: FrameCards) -> dict[str, object]:
    return {c.card: c for c in result.cards}


def test_codes_name_every_card_face_up_and_down() -> None:
    frame, truth, _ = table_scene()
    result = identify_frame(frame)
    cards = named(result)
    assert set(cards) == {c.card_id for c in truth.cards}
    for t in truth.cards:
        c = result.card(t.card_id)
        assert c is not None
        assert c.method == "code"
        assert c.side == t.face
        assert c.face == ("up" if t.face == "front" else "down")
        assert 0.9 <= c.confidence <= 1.0
        # Fully visible cards within a few pixels (to a pixel where the edges show all round).
        limit = 3.0 if t.visible_fraction > 0.99 else 8.0
        assert corner_error(c.corners_px, t.corners_px) < limit, t.card_id


def test_face_down_cards_are_named_by_their_back_codes() -> None:
    frame, truth, _ = table_scene()
    result = identify_frame(frame)
    down = {c.card for c in result.cards if c.face == "down"}
    assert down == {t.card_id for t in truth.cards if t.face == "back"}
    for card in down:
        c = result.card(card)
        assert c is not None and "qr" in c.evidence  # the big QR code of the back


def test_pictures_alone_name_face_up_cards_and_no_others(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = table_scene()
    result = identify_frame(frame, pickpic, codes=None)
    up = {t.card_id for t in truth.cards if t.face == "front"}
    assert set(named(result)) == up  # backs are not pictures of the deck: no id
    for c in result.cards:
        assert c.method == "features" and c.face == "up"
        t = truth.card(c.card)
        limit = 3.0 if t.visible_fraction > 0.99 else 8.0
        assert corner_error(c.corners_px, t.corners_px) < limit, c.card
    # The two backs are card-shaped but match nothing: unknown, with their corners.
    backs = [t for t in truth.cards if t.face == "back"]
    for t in backs:
        centre = t.corners_px.mean(axis=0)
        assert any(np.linalg.norm(u.center_px - centre) < 10 for u in result.unknown), t.card_id


def test_overlapping_cards_are_both_named(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = table_scene()
    under, over = truth.card("pickpic-114"), truth.card("pickpic-115")
    assert 0.6 < under.visible_fraction < 0.95 and over.visible_fraction > 0.99
    for result in (identify_frame(frame, codes=None, deck=pickpic), identify_frame(frame)):
        assert result.card("pickpic-114") is not None
        assert result.card("pickpic-115") is not None


def test_cards_not_in_the_deck_are_unknown_not_guessed(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = mixed_scene()
    result = identify_frame(frame, pickpic, codes=None)
    assert set(named(result)) == {t.card_id for t in truth.cards if t.card_id.startswith("pickpic")}
    foreign = [t for t in truth.cards if t.card_id.startswith("picflip")]
    for t in foreign:
        centre = t.corners_px.mean(axis=0)
        assert any(np.linalg.norm(u.center_px - centre) < 10 for u in result.unknown), t.card_id
        assert not any(np.linalg.norm(c.center_px - centre) < 30 for c in result.cards)


def test_codes_and_pictures_vote_together(pickpic: ReferenceDeck) -> None:
    frame, truth, _ = table_scene()
    result = identify_frame(frame, pickpic)
    assert set(named(result)) == {t.card_id for t in truth.cards}
    for c in result.cards:
        assert c.method == "code"
        if c.side == "front":
            assert "picture" in c.evidence


def _calibration(
    truth: Truth, spec_markers: tuple[object, ...]
) -> tuple[CalibrationFile, np.ndarray]:
    """A table-only calibration (no intrinsics: play-area size given) whose seats are laid
    out round the rendered play area; and marker 0's centre in the scene's table mm."""
    centres = np.array([m.center_mm for m in spec_markers])  # type: ignore[attr-defined]
    w = float(np.linalg.norm(centres[1] - centres[0]))
    h = float(np.linalg.norm(centres[3] - centres[0]))
    seats = layout_seats(["Ana", "Ben", "Cleo", "Dev"], (w, h))
    return CalibrationFile(play_area_mm=(w, h), seats=seats), centres[0]


def test_each_card_gets_its_seat_zone() -> None:
    frame, truth, spec = table_scene()
    calibration, origin = _calibration(truth, spec.markers)
    result = identify_frame(frame, calibration=calibration)
    assert not result.warnings
    checked = 0
    for c in result.cards:
        t = truth.card(c.card)
        centre_mm = t.corners_mm.mean(axis=0) - origin
        seat = zone_of(calibration.seats, (float(centre_mm[0]), float(centre_mm[1])))
        expected = None if seat is None else seat.name
        assert c.zone == expected, c.card
        checked += expected is not None
    assert checked >= 4


def test_zones_without_the_play_area_give_a_warning_not_a_failure() -> None:
    frame, truth, spec = table_scene()
    calibration, _ = _calibration(truth, spec.markers)
    blank = frame.copy()
    for m in truth.markers:  # paint the play-area markers out
        lo = np.floor(m.corners_px.min(axis=0)).astype(int) - 12
        hi = np.ceil(m.corners_px.max(axis=0)).astype(int) + 12
        blank[max(lo[1], 0) : hi[1], max(lo[0], 0) : hi[0]] = 120
    result = identify_frame(blank, calibration=calibration)
    assert result.cards and all(c.zone is None for c in result.cards)
    assert result.warnings and "zone" in result.warnings[0]


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((10, 10, 3), np.uint8), "frame too small: 10 x 10 px, at least 16"),
        (
            np.zeros((100, 100, 3), np.float32),
            "frame must be (H, W, 3) uint8, got (100, 100, 3) float32",
        ),
        (np.zeros((100, 100, 2), np.uint8), "frame must be (H, W, 3) uint8, got (100, 100, 2)"),
        ("not an image", "frame must be an (H, W, 3) uint8 array, got str"),
    ],
)
def test_bad_frames_are_refused_clearly(frame: object, message: str) -> None:
    with pytest.raises(ValueError) as err:
        identify_frame(frame)  # type: ignore[arg-type]
    assert message in str(err.value)


def test_grey_and_bgra_frames_are_read() -> None:
    import cv2

    frame, truth, _ = table_scene()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    bgra = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA)
    assert {c.card for c in identify_frame(grey).cards} == {t.card_id for t in truth.cards}
    assert {c.card for c in identify_frame(bgra).cards} == {t.card_id for t in truth.cards}
