"""A card named by one marker: its other marker, where each of the card's two possible poses
puts it, is read by its likeness to the marker (issue 26: codes read by what is known, and
a reported outline on its card). The pose whose partner is seen is the card's, and the card
is placed by both markers; where no partner is seen, the picture alone does not overrule the
card's edges."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np
import pytest

from pictable.bench.readers.identify import PLACE_MAX, placement_error
from vision.identify import code_cards, deblur, marker_pairs, outline_markers
from vision.identify.codes import read_sightings, vote
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit import render_face
from vision.kit.codes import marker_bits, marker_id

PX_PER_MM = 4.0  # the face drawn at this, then shrunk SHRINK times
SHRINK = 4.0
MARGIN_MM = 80


def _smear_cell(
    face: np.ndarray, rect_xy_mm: tuple[float, float], row: int, col: int, black: bool
) -> None:
    """Move one inner cell (``black`` or not) of the face's marker at ``rect_xy_mm`` (its
    top-left, 20 mm wide) 60% of the way to the other colour, as a smear or a glare leaves
    it: read bit for bit, the marker reads wrong."""
    cell = 20.0 / 6 * PX_PER_MM
    x0 = round(rect_xy_mm[0] * PX_PER_MM + (1 + col) * cell)
    y0 = round(rect_xy_mm[1] * PX_PER_MM + (1 + row) * cell)
    face[y0 : y0 + round(cell), x0 : x0 + round(cell)] = 153 if black else 102


def _table(decoy: bool) -> tuple[np.ndarray, np.ndarray]:
    """pickpic-042's front on a grey table, about 1 px/mm, its bottom-right marker with one
    cell smeared; ``decoy``: another card's marker lying on the table where the face's
    other pose would put that partner (beyond its top-left corner). The frame (H, W, 3) and
    the face's outline (4, 2) px."""
    face = render_face("pickpic-042", "front", PX_PER_MM)
    bits = marker_bits(marker_id("pickpic-042", "front"))
    _smear_cell(face, (40.0, 65.0), 1, 1, bool(bits[2, 2]))
    m = round(MARGIN_MM * PX_PER_MM)
    table = cv2.copyMakeBorder(face, m, m, m, m, cv2.BORDER_CONSTANT, value=(95, 110, 120))
    if decoy:
        other = marker_bits(marker_id("pickpic-077", "front"))
        assert (other != bits).any()
        size = round(20 * PX_PER_MM)
        # The wrong pose puts the partner 37 mm left and 62 mm up of the top-left marker.
        x0 = m + round((3 - 37) * PX_PER_MM)
        y0 = m + round((3 - 62) * PX_PER_MM)
        pad = round(2 * PX_PER_MM)
        table[y0 - pad : y0 + size + pad, x0 - pad : x0 + size + pad] = 245
        cells = cv2.resize(
            ((1 - other) * 230 + 15).astype(np.uint8), (size, size), interpolation=cv2.INTER_NEAREST
        )
        table[y0 : y0 + size, x0 : x0 + size] = cells[..., None]
    small = cv2.resize(
        table,
        (round(table.shape[1] / SHRINK), round(table.shape[0] / SHRINK)),
        interpolation=cv2.INTER_AREA,
    )
    frame = cv2.GaussianBlur(small, (0, 0), 0.5)
    h, w = face.shape[:2]
    outline = (np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) + m) / SHRINK - 0.5
    return frame, outline


@pytest.mark.parametrize("decoy", [False, True], ids=["plain table", "a marker on the table"])
def test_a_lone_markers_partner_is_read_where_the_true_pose_puts_it(decoy: bool) -> None:
    frame, outline = _table(decoy)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    cards = [c for c in vote(read_sightings(frame, grey)) if c.card == "pickpic-042"]
    assert len(cards) == 1 and len(cards[0].codes) == 1  # one marker read bit for bit
    (found,) = marker_pairs.partners(grey, cards)
    # At the face's bottom-right marker (40, 65 mm, 20 mm wide), in ArUco order.
    expected = (np.array([[40, 65], [60, 65], [60, 85], [40, 85]], np.float64)) * PX_PER_MM
    expected = (expected + MARGIN_MM * PX_PER_MM) / SHRINK - 0.5
    assert np.abs(found.corners_px - expected).max() < 1.5
    (reading,) = [
        r for r in identify_frame(frame, None, codes="fast").cards if r.card == "pickpic-042"
    ]
    assert reading.evidence[:2] == ("marker", "marker")
    assert placement_error(reading.corners_px, outline) < 0.03


def test_a_partner_of_another_marker_is_not_seen() -> None:
    """The partner's square must be more like the marker than like any other of the kit: the
    decoy (pickpic-077's marker) where the wrong pose puts it is not taken for pickpic-042's
    partner, whatever its border and dark cells share with it."""
    frame, _ = _table(decoy=True)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    (card,) = [c for c in vote(read_sightings(frame, grey)) if c.card == "pickpic-042"]
    poses = np.concatenate([card.corners_px[None], card.alternatives])
    score, lead, _ = marker_pairs.partner_reads(
        grey,
        card.card,
        card.side,
        marker_id("pickpic-042", "front"),
        card.codes[0].corners_px,
        poses,
    )
    centre = card.codes[0].corners_px.mean(axis=0)
    # The pose whose card lies down and right of the marker read is the true one.
    true = int(np.argmax([(p.mean(axis=0) - centre).sum() for p in poses]))
    assert score[true] >= marker_pairs.PARTNER_MIN_SCORE
    assert lead[true] >= marker_pairs.PARTNER_MIN_LEAD
    assert lead[1 - true] < 0


@functools.cache
def _hard_scene(index: int):  # type: ignore[no-untyped-def]
    return make_scene("codes", "hard", scene_seed(0, index))


def test_a_partner_seen_places_a_card_its_lone_marker_put_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hard tier, seed 0, scene 93: pickpic-011 is read by one marker; placed by that marker
    alone, a corner lay 12% of the card's height off (over the benchmark's 10%); its partner,
    read by its likeness, places it within the bar."""
    frame, truth = _hard_scene(93)
    card = next(t for t in truth.cards if t.card_id == "pickpic-011")

    def placed() -> float:
        found = identify_frame(frame, None, codes="fast", game="pickpic")
        reading = next(r for r in found.cards if r.card == "pickpic-011")
        return placement_error(reading.corners_px, card.corners_px)

    assert placed() <= PLACE_MAX
    # Its partner unread by any means, it is placed by its lone marker (and its far side not
    # looked for further out than the snap reaches: code_cards.REACH_SHARE finds it too).
    monkeypatch.setattr(code_cards, "REACH_SHARE", 0.0)
    monkeypatch.setattr(marker_pairs, "partners", lambda grey, cards: [])
    monkeypatch.setattr(marker_pairs, "blurred_markers", lambda grey, quads, ids: [])
    monkeypatch.setattr(marker_pairs, "paired_markers", lambda grey, quads, ids: [])
    assert placed() > PLACE_MAX


def test_the_picture_alone_does_not_overrule_the_cards_edges(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hard tier, seed 0, scene 15: pickpic-041 lies 70% under an arm, one marker in view and
    its partner hidden. The pose the other way put the card on bare wood, whose grain agreed
    with the card's picture (0.57 against 0.17 under the arm), and the card was named 0.91
    where no card is; the edges seen favour the true pose, so the place is not known and the
    card is not named. (With the picture's colours fitted in their saturation too, the
    picture under the arm agrees enough for the true pose to win: the card is named there.
    The scene shows the rule with the agreement as it was, colours by an offset alone.)"""
    frame, truth = _hard_scene(15)
    found = identify_frame(frame, None, codes="fast", game="pickpic")
    reading = next(r for r in found.cards if r.card == "pickpic-041")
    card = next(t for t in truth.cards if t.card_id == "pickpic-041")
    assert placement_error(reading.corners_px, card.corners_px) <= PLACE_MAX
    monkeypatch.setattr(code_cards, "PRINT_CHROMA", (1.0, 1.0))
    found = identify_frame(frame, None, codes="fast", game="pickpic")
    for r in found.cards:
        t = next((t for t in truth.cards if t.card_id == r.card), None)
        assert t is not None
        assert placement_error(r.corners_px, t.corners_px) < 0.5, r.card
    assert "pickpic-041" not in {r.card for r in found.cards}


@pytest.mark.parametrize("reader", ["paired_markers", "blurred_markers"])
def test_a_card_no_marker_names_alone_is_named_with_its_partner_or_as_blur_shows_it(
    monkeypatch: pytest.MonkeyPatch, reader: str
) -> None:
    """Hard tier, seed 0, scene 63: pickpic-087's front, 64 px wide and blurred, has no
    marker read bit for bit or by its cells' likeness (one square is like a few markers
    alike). Read with its partner, where the square's place on the card puts it, or by its
    correlation with the markers blurred (vision.identify.blur_read), each alone, it is
    named, under the confidence of exact codes and where its picture agrees, and placed
    within the bar; with neither (nor its two markers read where its outline puts them,
    vision.identify.outline_markers, which names it too), it is not named. Every card named
    is right. The frame is smeared (5.1 px): read again with the smear taken out
    (vision.identify.deblur), the card is named there by markers read bit for bit, and that
    reading stands; the second reading is switched off throughout."""
    monkeypatch.setattr(deblur, "MIN_LENGTH", math.inf)
    frame, truth = _hard_scene(63)
    card = next(t for t in truth.cards if t.card_id == "pickpic-087")
    other = "blurred_markers" if reader == "paired_markers" else "paired_markers"
    monkeypatch.setattr(marker_pairs, other, lambda grey, quads, ids: [])
    found = identify_frame(frame, None, codes="fast", game="pickpic")
    reading = next(r for r in found.cards if r.card == "pickpic-087")
    assert reading.side == card.face
    assert reading.confidence < 0.99 and "picture" in reading.evidence
    assert placement_error(reading.corners_px, card.corners_px) <= PLACE_MAX
    truth_ids = {(t.card_id, t.face) for t in truth.cards}
    assert {(r.card, r.side) for r in found.cards} <= truth_ids
    monkeypatch.setattr(marker_pairs, reader, lambda grey, quads, ids: [])
    monkeypatch.setattr(outline_markers, "MIN_LEAD", 10.0)
    monkeypatch.setattr(outline_markers, "PICTURED_LEAD", 10.0)
    without = identify_frame(frame, None, codes="fast", game="pickpic")
    assert "pickpic-087" not in {r.card for r in without.cards}


def _dark_square_with_specks(speck: float) -> tuple[np.ndarray, np.ndarray]:
    """A dark square 18 px wide on a white pad, its two cells where pickpic-043's back
    marker (two light cells of 16) is light lifted ``speck`` of the way to white, blurred:
    the grey image and the square's corners (1, 4, 2)."""
    w, x0 = 18, 30
    grey = np.full((80, 80), 150.0)
    grey[x0 - 3 : x0 + w + 3, x0 - 3 : x0 + w + 3] = 235
    grey[x0 : x0 + w, x0 : x0 + w] = 25
    bits = marker_bits(marker_id("pickpic-043", "back"))
    cell = w / 6
    for row, col in np.argwhere(bits == 0):
        if 0 < row < 5 and 0 < col < 5:
            y, x = round(x0 + row * cell), round(x0 + col * cell)
            grey[y : y + round(cell), x : x + round(cell)] = 25 + speck * 210
    square = np.array([[[x0, x0], [x0 + w, x0], [x0 + w, x0 + w], [x0, x0 + w]]], float) - 0.5
    return cv2.GaussianBlur(grey, (0, 0), 1.2).astype(np.uint8), square


@pytest.mark.parametrize("speck", [0.3, 0.5])
def test_a_dark_blob_with_faint_specks_is_no_marker_nearly_all_dark(speck: float) -> None:
    """A square dark all over with two faint specks (a knot of wood grain: on hard scene 54
    of seed 0 it named pickpic-043's back where no card is, before this rule) is more like
    that marker than like any other marker of the kit, but not more than like a square dark
    all over: it is no partner, and no square to pair."""
    grey, square = _dark_square_with_specks(speck)
    templates, ids = marker_pairs._templates()
    row = int(np.flatnonzero(ids == marker_id("pickpic-043", "back"))[0])
    _, lead, _ = marker_pairs.likeness_and_lead(grey, square, np.array([row]))
    ratios, _ = marker_pairs.cells_bilinear(grey, square)
    every = (2 * ratios[0] - 1) @ templates.T / templates.shape[1]
    others = np.where(ids == ids[row], -np.inf, every)[:-1]  # every marker, not the dark square
    assert every[row] - others.max() >= marker_pairs.PARTNER_MIN_LEAD
    assert lead[0] < marker_pairs.PARTNER_MIN_LEAD


def test_that_marker_itself_still_leads_a_dark_square() -> None:
    grey, square = _dark_square_with_specks(1.0)
    _, ids = marker_pairs._templates()
    row = int(np.flatnonzero(ids == marker_id("pickpic-043", "back"))[0])
    own, lead, _ = marker_pairs.likeness_and_lead(grey, square, np.array([row]))
    assert own[0] >= marker_pairs.PARTNER_MIN_SCORE and lead[0] >= marker_pairs.PARTNER_MIN_LEAD


def test_no_card_is_named_on_the_wood_grain_of_hard_scene_54() -> None:
    """Hard tier, seed 0, scene 54: every card named is there (the knot of wood grain above
    pickpic-095 once named pickpic-043's back at 0.83)."""
    frame, truth = _hard_scene(54)
    found = identify_frame(frame, None, codes="fast", game="pickpic")
    for r in found.cards:
        t = next((t for t in truth.cards if t.card_id == r.card), None)
        assert t is not None, r.card
        assert placement_error(r.corners_px, t.corners_px) < 0.5, r.card


def test_no_partner_is_looked_for_without_the_game() -> None:
    """Without the game known, only markers read bit for bit name cards: the pairing (by
    likeness) is not run."""
    frame, _ = _hard_scene(63)
    found = identify_frame(frame, None, codes="fast")
    assert "pickpic-087" not in {r.card for r in found.cards}
