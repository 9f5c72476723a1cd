"""Codes from the world: payloads outside pictable's scheme are ignored by ``identify``, never
interpreted, whatever they hold; marker ids on no card are ignored."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import segno

from vision.identify import identify_frame
from vision.identify.codes import read_sightings, vote
from vision.kit import marker_id, render_face
from vision.kit.codes import format_payload, marker_bits

HOSTILE: tuple[str | bytes, ...] = (
    "https://example.com/pickpic-007",
    "PT1:PICKPIC-999:F",  # no such card
    "PT1:PICKPIC-007:X",  # no such face
    "PT2:PICKPIC-007:F",  # another scheme version
    "PT1:../../etc/passwd:F",
    "PT1:PICKPIC-007:F; DROP TABLE cards",
    "PT1:PICKPIC-007:F\x00\x1b[2J",
    "PT1:" + "A" * 300 + ":F",
    b"\xff\xfe\x00PT1:PICKPIC-007:F",  # binary, not UTF-8
    "\u202ePT1:PICKPIC-007:F",  # a right-to-left override
)


def _qr(payload: str | bytes, module_px: int = 6) -> np.ndarray:
    q = segno.make(payload, micro=False, error="m")
    m = np.array([list(row) for row in q.matrix], np.uint8)
    img = np.where(np.pad(m, 4) > 0, 0, 255).astype(np.uint8)
    img = cv2.resize(img, None, fx=module_px, fy=module_px, interpolation=cv2.INTER_NEAREST)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)


def _sheet(payloads: tuple[str | bytes, ...]) -> np.ndarray:
    """The QR codes side by side on a light grey sheet."""
    tiles = [_qr(p) for p in payloads]
    h = max(t.shape[0] for t in tiles)
    row = np.full(
        (h + 40, sum(t.shape[1] for t in tiles) + 20 * (len(tiles) + 1), 3), 210, np.uint8
    )
    x = 20
    for t in tiles:
        row[20 : 20 + t.shape[0], x : x + t.shape[1]] = t
        x += t.shape[1] + 20
    return row


@pytest.mark.parametrize("reader", ["fast", "full"])
def test_hostile_payloads_are_ignored(reader: str) -> None:
    top, bottom = _sheet(HOSTILE[:5]), _sheet(HOSTILE[5:])
    width = max(top.shape[1], bottom.shape[1])
    frame = np.vstack(
        [
            cv2.copyMakeBorder(
                s, 0, 0, 0, width - s.shape[1], cv2.BORDER_CONSTANT, value=(210,) * 3
            )
            for s in (top, bottom)
        ]
    )
    from vision.codes import decode_frame

    read = [c for c in decode_frame(frame, []) if c.kind == "qr"]
    assert len(read) >= 8  # the payloads do reach the reader...
    result = identify_frame(frame, codes=reader)  # type: ignore[arg-type]
    assert result.cards == ()  # ...and none is taken for a card


@pytest.mark.parametrize("reader", ["fast", "full"])
def test_a_kit_payload_among_hostile_ones_is_read(reader: str) -> None:
    good = format_payload("pickpic-007", "back")
    frame = _sheet((HOSTILE[0], good, HOSTILE[8]))
    sightings = read_sightings(frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), reader)  # type: ignore[arg-type]
    assert [(s.kind, s.card, s.side) for s in sightings] == [("qr", "pickpic-007", "back")]
    cards = vote(sightings)
    assert len(cards) == 1 and cards[0].card == "pickpic-007" and cards[0].side == "back"


def test_marker_ids_on_no_card_are_ignored() -> None:
    """Fiducials (ids 0-49) and DICT_4X4_1000 ids that no card carries give no card."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000)
    used = {marker_id(f"pickpic-{i:03d}", f) for i in range(1, 121) for f in ("front", "back")}
    from vision.kit.codes import marker_table

    free = [i for i in range(50, 1000) if i not in marker_table()][:3]
    ids = [0, 3, 7, *free]
    assert not set(ids) & used
    canvas = np.full((260, 140 * len(ids) + 20, 3), 230, np.uint8)
    for k, i in enumerate(ids):
        m = cv2.aruco.generateImageMarker(d, i, 96)
        canvas[60:156, 30 + 140 * k : 126 + 140 * k] = m[..., None]
    assert identify_frame(canvas).cards == ()


def test_a_lone_marker_not_backed_by_its_card_is_dropped() -> None:
    """A card's marker printed alone (no card round it) names no card: neither its picture
    nor its edges back it."""
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000)
    m = cv2.aruco.generateImageMarker(d, marker_id("pickpic-010", "front"), 60)
    canvas = np.full((300, 300, 3), 120, np.uint8)
    canvas[100:160, 120:180] = np.where(m[..., None] > 0, 255, 0)
    frame = cv2.GaussianBlur(canvas, (3, 3), 0.8)
    sightings = read_sightings(frame, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert [s.card for s in sightings] == ["pickpic-010"]  # read...
    assert identify_frame(frame).cards == ()  # ...but not taken for a card


def test_an_exported_face_is_named_with_its_corners() -> None:
    """A kit face as exported (300 dpi), on a margin: both markers and the QR code vote."""
    face = render_face("pickpic-042", "front", 4.0)
    frame = cv2.copyMakeBorder(face, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(90, 90, 90))
    result = identify_frame(frame, codes="full")
    (card,) = result.cards
    assert card.card == "pickpic-042" and card.face == "up" and card.method == "code"
    h, w = face.shape[:2]
    expected = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) + 40 - 0.5
    assert np.abs(card.corners_px - expected).max() < 2.0


@pytest.mark.parametrize(
    ("speck", "x", "y"),
    [("picmix-obj-02", 150, 200), ("picmix-obj-02", 200, 280), ("picasso-040", 150, 200)],
)
def test_a_small_marker_in_a_cards_picture_is_not_a_card(speck: str, x: int, y: int) -> None:
    """A kit marker a quarter the size of a card's own, printed in the picture of a card that
    its codes name (a letter of a card's lettering read at 150 dpi was one), is part of that
    card: a card on another is as far from the camera, its markers as large."""
    px_per_mm = 6.0  # about 150 dpi: the card's markers 120 px wide
    face = render_face("picasso-012", "front", px_per_mm)
    bits = cv2.resize(
        (1 - marker_bits(marker_id(speck, "front"))) * 255,
        (30, 30),
        interpolation=cv2.INTER_NEAREST,
    ).astype(np.uint8)
    face[y - 5 : y + 35, x - 5 : x + 35] = 255
    face[y : y + 30, x : x + 30] = bits[..., None]
    frame = cv2.GaussianBlur(
        cv2.copyMakeBorder(face, 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=(70, 105, 150)),
        (3, 3),
        0.6,
    )
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert speck in {s.card for s in read_sightings(frame, grey)}  # read...
    cards = identify_frame(frame).cards
    assert [(c.card, c.side) for c in cards] == [("picasso-012", "front")]  # ...not a card
