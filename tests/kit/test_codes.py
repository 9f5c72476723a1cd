"""Marker ids and QR payloads: the id scheme, its Hamming distance, payload parsing."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.kit import codes
from vision.kit.codes import (
    MARKER_ORDER,
    card_for_marker,
    face_codes,
    format_payload,
    marker_bits,
    marker_id,
    marker_table,
    parse_payload,
)
from vision.kit.decks import all_cards, load_deck


def test_marker_order_is_the_documented_greedy_selection() -> None:
    assert codes.select_marker_ids() == MARKER_ORDER
    assert len(MARKER_ORDER) == codes.N_SLOTS == len(set(MARKER_ORDER))
    assert min(MARKER_ORDER) >= 50 and max(MARKER_ORDER) < 1000


def test_min_hamming_distance_as_documented() -> None:
    used = sorted(marker_table())
    assert codes.min_distance(list(MARKER_ORDER)) == codes.MIN_HAMMING_DISTANCE == 2
    assert codes.min_distance(used) == 2
    first = list(MARKER_ORDER[:343])
    assert codes.min_distance(first) == codes.MIN_HAMMING_DISTANCE_FIRST_343 == 3
    # Pick Pic and Picmix faces all sit in that better part
    for game in ("pickpic", "picmix"):
        for card in load_deck(game):
            assert marker_id(card.id, "front") in first and marker_id(card.id, "back") in first


def test_slots_do_not_overlap_and_fit_the_decks() -> None:
    spans = sorted(codes.SLOTS.values())
    for (a, n), (b, _) in itertools.pairwise(spans):
        assert a + n == b
    assert spans[-1][0] + spans[-1][1] == codes.N_SLOTS
    for game, (_, n) in codes.SLOTS.items():
        assert 2 * len(load_deck(game)) <= n


def test_every_face_has_its_own_marker_id() -> None:
    table = marker_table()
    assert len(table) == 2 * len(all_cards())
    for card in all_cards():
        front, back = marker_id(card.id, "front"), marker_id(card.id, "back")
        assert front != back and front >= 50 and back >= 50
        assert card_for_marker(front) == (card.id, "front")
        assert card_for_marker(back) == (card.id, "back")
    assert card_for_marker(0) is None and card_for_marker(7) is None
    with pytest.raises(KeyError):
        marker_id("pickpic-999", "front")


def test_marker_bits_have_a_black_border() -> None:
    bits = marker_bits(MARKER_ORDER[0])
    assert bits.shape == (6, 6)
    assert bits[0].all() and bits[-1].all() and bits[:, 0].all() and bits[:, -1].all()
    with pytest.raises(ValueError):
        marker_bits(1000)


def test_payload_round_trip_for_every_face() -> None:
    for card in all_cards():
        for face in ("front", "back"):
            text = format_payload(card.id, face)
            assert text == f"PT1:{card.id.upper()}:{'F' if face == 'front' else 'B'}"
            assert len(text) <= 25  # fits a version-1 QR code in alphanumeric mode
            assert parse_payload(text) == (card.id, face)
            assert parse_payload(text.encode()) == (card.id, face)
            assert parse_payload(text.lower()) is None  # printed in capitals only


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PT1:PICKPIC-001:F", ("pickpic-001", "front")),
        ("  PT1:PICFLIP-COVER-6:B\n", ("picflip-cover-6", "back")),
        # Case-sensitive, as printed: a lower-case payload is on no card.
        ("pt1:pickpic-007:b", None),
        ("  pt1:picflip-cover-6:b\n", None),
        ("PT1:pickpic-007:B", None),
        ("PT1:PICKPIC-007:b", None),
        ("pt1:PICKPIC-007:B", None),
        (b"pt1:picmix-teal-4:b", None),
        (b"PT1:PICMIX-TEAL-4:B", ("picmix-teal-4", "back")),
        (bytearray(b"PT1:PICASSO-072:F"), ("picasso-072", "front")),
        ("PT1:PICKPIC-121:F", None),  # no such card
        ("PT2:PICKPIC-001:F", None),  # unknown scheme
        ("PT1:PICKPIC-001:X", None),  # unknown face
        ("PT1:PICKPIC-001", None),
        ("PT1:PICKPIC--001:F", None),
        ("PT1:PICKPIC-001:F:F", None),
        ("PT1:PİCKPİC-001:F", None),  # non-ASCII that upper-cases to ASCII
        ("PT1:PICKPIC-001:F" + " " * 100, None),
        (b"\xff\xfePT1", None),
        ("", None),
        (None, None),
        (42, None),
        (["PT1:PICKPIC-001:F"], None),
    ],
)
def test_parse_payload_table(text: object, expected: tuple[str, str] | None) -> None:
    assert parse_payload(text) == expected


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(st.one_of(st.text(), st.binary(), st.text(alphabet="PT1:-ABCDEFKLMOPRSUX0123456789 ")))
def test_parse_payload_never_raises(data: str | bytes) -> None:
    result = parse_payload(data)
    assert result is None or (isinstance(result, tuple) and result[1] in ("front", "back"))


def test_face_codes_say_where_qr_codes_are() -> None:
    assert face_codes("pickpic-001", "front").qr_payload == "PT1:PICKPIC-001:F"
    assert face_codes("pickpic-001", "back").qr_rect is not None
    assert face_codes("picflip-001", "front").qr_payload is None
    assert face_codes("picmix-red-1", "back").qr_payload is None
    assert face_codes("picmix-obj-01", "front").qr_payload is not None


def test_qr_is_version_1() -> None:
    assert codes.qr_matrix("PT1:PICFLIP-COVER-1:B").shape == (21, 21)
