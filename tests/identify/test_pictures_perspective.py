"""The table's perspective from the cards already named (``local.TablePerspective``): a far
card seen obliquely looks squarer than the card, and its keypoints' fit is card-shaped once
that foreshortening is taken away; a shape no card on that table could have is still refused.
Also the keypoint index's lookup and the overlap test, against their plain definitions."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision.identify import ReferenceDeck, identify_frame, local, quads
from vision.identify.candidates import _overlap, _overlaps_any
from vision.identify.verification import (
    VERIFY_MIN_INLIERS,
    _fit_accepted,
    _named_by_fit,
    _table_perspective,
    verify_outline,
)
from vision.synth import Camera, CardSpec, EffectsSpec, SceneSpec, TableSpec, Truth, render_scene

ASPECT = 63 / 88
#: Five cards near the camera, then a Pick Pic card and a Pic Flip card far off (250 mm beyond
#: the table's centre, their long side away from the camera): (card, centre mm, turn deg).
NEAR = (
    ("pickpic-010", (-150.0, -60.0), 0.0),
    ("pickpic-020", (0.0, -60.0), 90.0),
    ("pickpic-030", (150.0, -60.0), 30.0),
    ("pickpic-040", (-100.0, 120.0), 0.0),
    ("pickpic-050", (100.0, 120.0), 0.0),
)
FAR = (("pickpic-060", (-120.0, -250.0), 0.0), ("picflip-061", (120.0, -250.0), 0.0))


@functools.cache
def oblique_scene() -> tuple[np.ndarray, Truth]:
    """A camera 800 mm up, tilted 30 degrees (the normal tier's most): the far cards are about
    54 px wide and look nearly square (short / long side 0.94 against the card's 0.72)."""
    cam = Camera.from_pose(height_mm=800.0, tilt_deg=30.0, hfov_deg=70.0)
    spec = SceneSpec(
        camera=cam,
        table=TableSpec("wood", (95, 140, 185), 3),
        markers=(),
        cards=tuple(
            CardSpec.flat(cid, "front", centre, turn, height_mm=0.3 * k)
            for k, (cid, centre, turn) in enumerate(NEAR + FAR)
        ),
        effects=EffectsSpec(
            light_gain=0.95, noise_sigma=2.0, defocus_sigma_px=0.4, jpeg_quality=90
        ),
        tier="custom",
    )
    return render_scene(spec, seed=3)


def _corners(truth: Truth, card: str) -> np.ndarray:
    return next(t.corners_px for t in truth.cards if t.card_id == card).astype(np.float64)


def _near(truth: Truth) -> list[np.ndarray]:
    return [_corners(truth, cid) for cid, _, _ in NEAR]


def test_cards_seen_square_on_give_no_foreshortening() -> None:
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64)
    turn = np.array([[0.6, -0.8], [0.8, 0.6]])
    table = local.TablePerspective(np.stack([card + 100, card @ turn.T + 400]), ASPECT)
    np.testing.assert_allclose(table.metric(np.array([300.0, 300.0])), np.eye(2), atol=1e-6)


def test_a_far_card_seen_obliquely_is_card_shaped_on_the_table() -> None:
    _, truth = oblique_scene()
    far = _corners(truth, "pickpic-060")
    assert not local.card_shaped(far, ASPECT)  # as seen: too square for the card
    table = local.TablePerspective(np.stack(_near(truth)), ASPECT)
    assert local.card_shaped(far, ASPECT, table)


def test_a_shape_no_card_has_is_refused_on_the_table_too() -> None:
    _, truth = oblique_scene()
    table = local.TablePerspective(np.stack(_near(truth)), ASPECT)
    far = _corners(truth, "pickpic-060")
    centre = far.mean(axis=0)
    across = (far[1] - far[0]) / np.linalg.norm(far[1] - far[0])
    # 15% wider across (its short side): too square as seen, and on the table too (much
    # wider and it would look like a card lying across, which the shape as seen accepts).
    wide = centre + (far - centre) + 0.15 * np.outer((far - centre) @ across, across)
    assert not local.card_shaped(wide, ASPECT, table)
    # The square-on table of test_keypoints: a card 1.6 x too wide stays refused.
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64) * 1.2 + 100
    flat = local.TablePerspective(np.stack([card, card + 200]), ASPECT)
    assert not local.card_shaped(card * np.array([1.6, 1.0]), ASPECT, flat)


def test_the_fit_of_a_far_card_is_accepted_through_the_tables_perspective(
    pickpic: ReferenceDeck,
) -> None:
    frame, truth = oblique_scene()
    grey = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    far = _corners(truth, "pickpic-060")
    named = _near(truth)
    table = _table_perspective(named, pickpic)
    found = verify_outline(
        grey, far, [pickpic.ids.index("pickpic-060")], pickpic, VERIFY_MIN_INLIERS, table=table
    )
    assert found is not None and pickpic.ids[found.card] == "pickpic-060"
    assert found.inliers >= VERIFY_MIN_INLIERS
    assert np.abs(found.corners - far).max() < 4.0  # the fit's own corners, foreshortened
    aspect = pickpic.aspect
    assert _fit_accepted(found, pickpic, named)
    assert local.card_shaped(found.corners, aspect, table)
    assert not local.card_shaped(found.corners, aspect)  # not by the shape as seen
    assert _named_by_fit(frame, found, pickpic, named, table, False)


def test_a_foreign_card_at_the_far_place_gets_no_id(pickpic: ReferenceDeck) -> None:
    frame, truth = oblique_scene()
    grey = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    named = _near(truth)
    table = _table_perspective(named, pickpic)
    found = verify_outline(
        grey, _corners(truth, "picflip-061"), list(range(5)), pickpic, VERIFY_MIN_INLIERS,
        retrieve=set(), table=table,
    )  # fmt: skip
    assert found is None or not _named_by_fit(
        frame, found, pickpic, named, table, found.card not in range(5)
    ), found


@pytest.mark.parametrize(
    ("tables", "key_bits"),
    [
        (local.INDEX_TABLES, local.INDEX_KEY_BITS),  # the frame search's index
        (local.WINDOW_INDEX_TABLES, local.WINDOW_INDEX_KEY_BITS),  # the windows'
    ],
)
def test_index_lookup_is_its_plain_definition(tables: int, key_bits: int) -> None:
    rng = np.random.default_rng(9)
    base = rng.integers(0, 256, (30, 32), dtype=np.uint8)
    cards = [
        local.Keypoints(
            rng.uniform(0, 100, (60, 2)).astype(np.float32),
            # Noisy copies of a few shared patterns: keys shared by several entries.
            base[rng.integers(0, 30, 60)] ^ (rng.random((60, 32)) < 0.02).astype(np.uint8),
        )
        for _ in range(5)
    ]
    index = local.KeypointIndex(cards, tables, key_bits)
    query = local.Keypoints(
        np.zeros((80, 2), np.float32),
        base[rng.integers(0, 30, 80)] ^ (rng.random((80, 32)) < 0.03).astype(np.uint8),
    )
    q, e = index.nearest(query)
    keys, indexed = index._keys(query.desc), index._keys(index.desc)
    assert keys.shape == (tables, len(query)) and int(keys.max()) < 1 << key_bits
    expected = {}
    for i in range(len(query)):
        best = None
        for t in range(len(keys)):
            same = np.flatnonzero(indexed[t] == keys[t, i])
            if len(same) > local.INDEX_MAX_BUCKET:
                continue  # a key too common is left out of the index
            for j in same:
                d = int(np.unpackbits(query.desc[i] ^ index.desc[j]).sum())
                best = min(best or (d, j), (d, j))
        if best is not None and best[0] <= local.VERIFY_HAMMING:
            expected[i] = best[1]
    assert len(expected) > 20
    assert dict(zip(q.tolist(), e.tolist(), strict=True)) == expected


def test_overlaps_any_is_any_overlap() -> None:
    rng = np.random.default_rng(2)
    card = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64) - (31.5, 44)
    quads_px = []
    for _ in range(60):  # cards of any size and turn, a few folded (corners out of order)
        turn = rng.uniform(0, np.pi)
        rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
        q = card @ rotation.T * rng.uniform(0.5, 1.5) + rng.uniform(0, 300, 2)
        quads_px.append(q[[0, 2, 1, 3]] if rng.random() < 0.1 else q)
    hits = 0
    for q in quads_px[:20]:
        for n in (2, 6, 40):  # (fewer and more quads than are set apart in one pass)
            others = quads_px[20 : 20 + n]
            for share in (0.0, 0.3, 0.4, 0.5, 0.6):
                expected = any(_overlap(q, o) > share for o in others)
                assert _overlaps_any(q, others, share) is expected
                hits += expected
    assert 50 < hits < 250
    assert not _overlaps_any(quads_px[0], [], 0.3)


def test_a_far_card_seen_nearly_square_has_an_outline_both_ways() -> None:
    # 0.94 short / long as seen: an outline is given (it was refused as a square), with
    # either pair of sides first (which pair is the card's short one is not known).
    frame, truth = oblique_scene()
    grey = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    far = _corners(truth, "pickpic-060")
    round_it = [o for o in quads.find_outlines(grey) if _overlap(o.corners_px, far) > 0.8]
    assert len(round_it) >= 2
    firsts = {int(np.argmin(np.linalg.norm(o.corners_px - far[0], axis=1))) % 2 for o in round_it}
    assert firsts == {0, 1}  # the face's top-left corner first in one, second in the other


def test_a_far_card_seen_nearly_square_is_named_by_its_picture(pickpic: ReferenceDeck) -> None:
    frame, truth = oblique_scene()
    result = identify_frame(frame, pickpic, codes=None)
    named = {c.card: c for c in result.cards}
    assert "pickpic-060" in named
    assert np.abs(named["pickpic-060"].corners_px - _corners(truth, "pickpic-060")).max() < 4.0
    assert not any(c.startswith("picflip") for c in named)


def test_the_tables_markers_give_its_perspective_with_no_card_named() -> None:
    # The play area's markers are squares on the table: their shape alone makes the far card
    # card-shaped on the table, as the cards named near it do.
    _, truth = oblique_scene()
    far = _corners(truth, "pickpic-060")
    centre = far.mean(axis=0)
    # Squares foreshortened as the table is there: the far card's own map applied to a square.
    src = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float32)
    to_frame = cv2.getPerspectiveTransform(src, far.astype(np.float32))
    square = np.array([[0, 0], [40, 0], [40, 40], [0, 40]], np.float32) + np.float32([11.5, 24])
    marker = cv2.perspectiveTransform(square.reshape(-1, 1, 2), to_frame).reshape(4, 2)
    step = np.array([150.0, 0.0])
    markers = np.stack([marker, marker + step, marker - step]).astype(np.float64)
    table = local.TablePerspective(np.zeros((0, 4, 2)), ASPECT, markers)
    assert len(table) == 3
    assert local.card_shaped(far, ASPECT, table)
    # Squares seen square on say the table is not foreshortened: the far card stays refused.
    flat = np.array([[0, 0], [40, 0], [40, 40], [0, 40]], np.float64) + centre
    assert not local.card_shaped(
        far, ASPECT, local.TablePerspective(np.zeros((0, 4, 2)), ASPECT, flat[None])
    )
