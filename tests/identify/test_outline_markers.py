"""Codes at low resolution read where the card's outline puts them (issue 26, part 3): a
small card's markers that no dark square shows (blur joins them to a dark picture) are read
at their known places on its outline, both at once, and name the card only when they lead
every other marker of the kit and the card's picture agrees at least as well with it as
with the runner-up's."""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np
import pytest

from vision.identify import dark_squares, deblur, outline_markers, quads
from vision.identify.codes import _lstsq_homographies, face_geometry
from vision.identify.identify import identify_frame
from vision.identify.scenes import make_scene, scene_seed
from vision.kit import render_face


@functools.cache
def _hard_scene(index: int) -> tuple[np.ndarray, object]:
    """Scene ``index`` of the hard codes tables of seed 0 (a development seed)."""
    return make_scene("codes", "hard", scene_seed(0, index))


def _named(frame: np.ndarray) -> dict[str, np.ndarray]:
    res = identify_frame(frame, None, codes="fast", game="pickpic")
    return {f"{r.card}/{r.side}": r.corners_px for r in res.cards}


def _grads_regions(grey: np.ndarray) -> tuple[quads.Gradients, tuple[np.ndarray, float]]:
    return quads.Gradients(grey), quads.silhouettes(grey)


def _truth_card(truth, card: str):
    return next(t for t in truth.cards if t.card_id == card)


def test_layout_of_a_game_whose_faces_carry_two_markers_at_opposite_corners() -> None:
    face, squares, _, _ = outline_markers._layouts("pickpic")[0]
    assert face[2].tolist() == [63.0, 88.0]
    # Turned half round, each square lands on the other.
    turned = np.array([63.0, 88.0]) - squares[0]
    assert np.allclose(np.sort(turned, axis=0), np.sort(squares[1], axis=0))
    size, markers, _ = face_geometry("pickpic-001", "back")
    assert len(markers) == 2 and size == (63.0, 88.0)


@pytest.mark.parametrize(
    ("index", "cards"),
    [
        (1, ["pickpic-087/front", "pickpic-108/front", "pickpic-023/back"]),
        (20, ["pickpic-044/front"]),
    ],
)
def test_small_cards_whose_markers_no_dark_square_shows_are_named_by_their_outline(
    index: int, cards: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    frame, truth = _hard_scene(index)
    named = _named(frame)
    for card in cards:
        assert card in named, f"{card} not named on scene {index}"
        t = _truth_card(truth, card.split("/")[0])
        height = np.linalg.norm(t.corners_px[0] - t.corners_px[3])
        off = np.linalg.norm(named[card] - t.corners_px, axis=1).max()
        assert off <= 0.1 * height  # placed on its card
    # Without the reading by outlines, none of them is named (nor read again with the
    # camera's smear taken out, vision.identify.deblur, which names some of them too).
    monkeypatch.setattr(outline_markers, "MIN_LEAD", 10.0)
    monkeypatch.setattr(outline_markers, "PICTURED_LEAD", 10.0)
    monkeypatch.setattr(deblur, "MIN_LENGTH", math.inf)
    without = _named(frame)
    assert not any(card in without for card in cards)


def test_the_squares_are_found_where_the_ring_every_marker_shares_is() -> None:
    frame, truth = _hard_scene(20)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    t = _truth_card(truth, "pickpic-044")
    face, squares, _, _ = outline_markers._layouts("pickpic")[0]
    true_sq = outline_markers._apply(
        _lstsq_homographies(face[None], t.corners_px.astype(np.float64)[None])[0],
        squares.reshape(-1, 2),
    ).reshape(1, 2, 4, 2)
    cell = np.linalg.norm(true_sq[0, 0, 1] - true_sq[0, 0, 0]) / 6
    # Half a cell off and 10% too large: moved back within a third of a cell.
    off = true_sq + 0.5 * cell
    centre = off.mean(axis=2, keepdims=True)
    off = centre + 1.1 * (off - centre)
    found = outline_markers._located(grey, off)
    assert np.abs(found - true_sq).max() <= 0.34 * cell + 0.5


def _plain_card_frame(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A face drawn small (56 px wide), blurred, on a mid-grey table: frame and corners."""
    frame = np.full((300, 400, 3), 120, np.uint8)
    w, h = 56, 78
    src = np.float32(
        [[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]]
    )
    dst = np.float32([[180, 110], [180 + w, 114], [176 + w, 114 + h], [176, 110 + h]])
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(face, m, (400, 300), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full(face.shape[:2], 255, np.uint8), m, (400, 300))
    frame[mask > 0] = warped[mask > 0]
    return cv2.GaussianBlur(frame, (0, 0), 0.7), dst.astype(np.float64)


def test_a_card_with_its_markers_painted_out_is_named_by_none() -> None:
    face = render_face("pickpic-044", "front", 8.0)
    _, markers, qr = face_geometry("pickpic-044", "front")
    for r in (*markers, *((qr,) if qr else ())):
        x0, y0 = (r.corners().min(axis=0) * 8).astype(int)
        x1, y1 = (r.corners().max(axis=0) * 8).astype(int)
        face[y0:y1, x0:x1] = 255
    frame, _ = _plain_card_frame(face)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    assert outline_markers.outline_sightings(grey, *_grads_regions(grey), [], "pickpic") == []
    assert identify_frame(frame, None, codes="fast", game="pickpic").cards == ()


def test_a_card_is_not_named_where_its_picture_agrees_better_with_the_runner_up() -> None:
    face = render_face("pickpic-044", "front", 8.0)
    frame, _ = _plain_card_frame(face)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = outline_markers.outline_sightings(
        grey, *_grads_regions(grey), [], "pickpic", lambda p, f: np.array([0.5, 0.4])
    )
    assert {(s.card, s.side) for s in found} == {("pickpic-044", "front")}
    assert len(found) == 2  # both squares
    refused = outline_markers.outline_sightings(
        grey, *_grads_regions(grey), [], "pickpic", lambda p, f: np.array([0.4, 0.5])
    )
    assert refused == []


def test_nothing_to_read_without_a_game_layout() -> None:
    grey = np.full((120, 160), 128, np.uint8)
    assert outline_markers.outline_sightings(grey, *_grads_regions(grey), [], "nogame") == []


def _pictures(agree: list[list[float]], likeness: list[list[float]] | None = None):
    """A ``pictures`` callable for three faces of the game: the agreements and likenesses
    given (pose as it lies, turned half round) whatever the outline (likeness: every face
    alike, unless given)."""
    faces = [("pickpic-001", "front"), ("pickpic-002", "front"), ("pickpic-003", "front")]
    like = np.zeros((2, 3)) if likeness is None else np.array(likeness, np.float64)
    return lambda poses: (faces, np.array(agree, np.float64)[: len(poses)], like[: len(poses)])


@pytest.mark.parametrize(
    ("agree", "named"),
    [
        ([[0.6, 0.4, 0.3], [0.2, 0.2, 0.2]], True),  # likest, either way up
        ([[0.6, 0.6, 0.3], [0.2, 0.2, 0.2]], False),  # a tie is no lead
        ([[0.6, 0.4, 0.3], [0.2, 0.65, 0.2]], False),  # another face, turned half round
        ([[0.6, 0.4, 0.3], [0.7, 0.2, 0.2]], False),  # its own face, turned half round
        ([[0.3, 0.2, 0.1], [0.1, 0.1, 0.1]], False),  # likest, but under PICTURE_MIN
    ],
)
def test_a_marker_leading_narrowly_needs_the_likest_picture_of_the_game(
    agree: list[list[float]], named: bool
) -> None:
    outline = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64)
    card = ("pickpic-001", "front")
    assert outline_markers._likest_picture(_pictures(agree), outline, card) is named
    assert not outline_markers._likest_picture(None, outline, card)
    assert not outline_markers._likest_picture(
        _pictures(agree), outline, ("pickpic-004", "front")
    )  # a face the comparison did not hold


@pytest.mark.parametrize(
    ("likeness", "named"),
    [
        ([[0.9, 0.85, 0.5], [0.6, 0.6, 0.6]], True),  # likest as a whole, by 0.05
        ([[0.9, 0.88, 0.5], [0.6, 0.6, 0.6]], False),  # by 0.02: under LIKENESS_LEAD
        ([[0.9, 0.5, 0.5], [0.6, 0.88, 0.6]], False),  # another face, turned half round
        ([[0.9, 0.5, 0.5], [0.88, 0.6, 0.6]], False),  # its own face, turned half round
    ],
)
def test_a_marker_leading_narrowly_names_the_face_whose_picture_is_likest_as_a_whole(
    likeness: list[list[float]], named: bool
) -> None:
    # The cells' agreement alone would not name it: another face agrees more (a small,
    # blurred card in pale ink agrees with many faces once the light is fitted).
    agree = [[0.5, 0.8, 0.3], [0.2, 0.2, 0.2]]
    outline = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64)
    card = ("pickpic-001", "front")
    assert not outline_markers._likest_picture(_pictures(agree), outline, card)
    assert outline_markers._likest_picture(_pictures(agree, likeness), outline, card) is named


@functools.cache
def _dev_scene(seed: int, index: int) -> tuple[np.ndarray, object]:
    """Scene ``index`` of the hard codes tables of ``seed`` in development looks."""
    return make_scene("codes", "hard", scene_seed(seed, index), "dev")


def _off(corners: np.ndarray, truth_card) -> float:
    """The farthest corner from the card's own, as a share of its height."""
    height = np.linalg.norm(truth_card.corners_px[0] - truth_card.corners_px[3])
    return float(np.linalg.norm(corners - truth_card.corners_px, axis=1).max() / height)


def test_a_marker_leading_narrowly_names_the_card_whose_picture_is_the_games_likest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Cards 40-47 px wide: the right marker leads every other of the kit, but by less
    # than MIN_LEAD; the card's picture agrees with it more than with the game's 239 other
    # faces.
    frame, truth = _dev_scene(2, 51)
    cards = ["pickpic-026/front", "pickpic-040/front", "pickpic-056/front"]
    named = _named(frame)
    for card in cards:
        assert card in named, f"{card} not named"
        assert _off(named[card], _truth_card(truth, card.split("/")[0])) <= 0.1
    monkeypatch.setattr(outline_markers, "PICTURED_LEAD", 10.0)
    without = _named(frame)
    assert not any(card in without for card in cards)


def test_a_marker_leading_narrowly_names_nothing_where_another_picture_is_likelier(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An outline's best marker is pickpic-055's, by a narrow lead; 055 is not on the
    # table, and the picture there is not 055's. Taken without the picture's test, the
    # reader named it.
    frame, truth = _dev_scene(2, 85)
    assert "pickpic-055" not in {t.card_id for t in truth.cards}
    assert "pickpic-055/front" not in _named(frame)
    monkeypatch.setattr(outline_markers, "_likest_picture", lambda *a, **k: True)
    assert "pickpic-055/front" in _named(frame)


def test_the_squares_are_fitted_by_an_affine_map() -> None:
    _, squares, _, _ = outline_markers._layouts("pickpic")[0]
    a = np.array([[0.4, -0.1], [0.15, 0.5]])
    exact = squares @ a.T + np.array([200.0, 100.0])
    found = np.stack([exact, exact])
    assert np.allclose(outline_markers._affine_squares(squares, found), found)
    # One corner a pixel off: the fit is again an affine image of the face's squares.
    found[1, 0, 2] += 1.0
    fitted = outline_markers._affine_squares(squares, found)
    src = np.hstack([squares.reshape(8, 2), np.ones((8, 1))])
    m = np.linalg.lstsq(src, fitted[1].reshape(8, 2), rcond=None)[0]
    assert np.allclose(src @ m, fitted[1].reshape(8, 2))
    assert np.abs(fitted[1] - exact).max() < 1.0


@pytest.mark.parametrize(
    ("seed", "index", "card"), [(2, 99, "pickpic-076"), (0, 26, "pickpic-075")]
)
def test_a_small_card_is_placed_by_the_affine_fit_of_its_squares(
    seed: int, index: int, card: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seed 2 in development looks, seed 0 in the kit's.
    frame, truth = _dev_scene(seed, index) if seed else _hard_scene(index)
    t = _truth_card(truth, card)
    named = _named(frame)
    assert _off(named[f"{card}/front"], t) <= 0.1
    # Placed by the homography of the squares as found, it lay more than 10% off.
    monkeypatch.setattr(outline_markers, "_affine_squares", lambda squares, found: found)
    assert _off(_named(frame)[f"{card}/front"], t) > 0.1


def _card_squares(a: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The face's two marker squares and its corners through the affine map ``a``, ``t``."""
    face, squares, _, _ = outline_markers._layouts("pickpic")[0]
    return squares @ a.T + t, face @ a.T + t


def test_two_dark_squares_lying_as_a_cards_markers_give_its_outline() -> None:
    face, squares, _, _ = outline_markers._layouts("pickpic")[0]
    a = np.array([[0.5, -0.2], [0.2, 0.5]])
    sq, corners = _card_squares(a, np.array([300.0, 200.0]))
    # The detector's corner order: any roll of each square, the same for both.
    dark = np.stack([np.roll(sq[1], 1, axis=0), np.roll(sq[0], 1, axis=0)])
    found = outline_markers.pair_outlines(dark, face, squares, [])
    assert len(found) == 1
    # The outline, or the same turned half round (the two poses the reading tries).
    assert min(np.abs(np.roll(found[0], -k, axis=0) - corners).max() for k in (0, 2)) < 1e-6


def test_dark_squares_not_lying_as_a_cards_markers_give_no_outline() -> None:
    face, squares, _, _ = outline_markers._layouts("pickpic")[0]
    a = np.array([[0.5, -0.2], [0.2, 0.5]])
    sq, corners = _card_squares(a, np.array([300.0, 200.0]))
    mirrored = sq.copy()
    mirrored[:, :, 0] = 600.0 - mirrored[:, :, 0]  # the face seen from below
    far = sq.copy()
    far[1] += 15.0  # the second square too far away
    small = sq.copy()
    small[1] = sq[1].mean(axis=0) + 0.6 * (sq[1] - sq[1].mean(axis=0))
    for dark in (mirrored, far, small, sq[:1]):
        assert len(outline_markers.pair_outlines(dark, face, squares, [])) == 0
    # Off the cards already placed only.
    assert len(outline_markers.pair_outlines(sq, face, squares, [corners])) == 0


def test_small_cards_on_a_pale_table_are_named_by_their_dark_squares_paired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Cards 49-50 px wide on light wood: their white frames show no edge all round, their
    # blurred markers are dark squares no marker matches bit for bit.
    frame, truth = _dev_scene(3, 44)
    cards = ["pickpic-083/front", "pickpic-116/front"]
    named = _named(frame)
    for card in cards:
        assert card in named, f"{card} not named"
        assert _off(named[card], _truth_card(truth, card.split("/")[0])) <= 0.1
    monkeypatch.setattr(outline_markers, "pair_outlines", lambda *a: np.zeros((0, 4, 2)))
    monkeypatch.setattr(deblur, "MIN_LENGTH", math.inf)  # nor read with the smear taken out
    without = _named(frame)
    assert not any(card in without for card in cards)


def test_samples_of_more_points_than_one_remap_takes_are_the_same() -> None:

    img = (np.arange(100 * 120) % 251).astype(np.uint8).reshape(100, 120)
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-2, 121, (50, 70)), rng.uniform(-2, 101, (50, 70))
    whole = dark_squares._sample_xy(img, x, y)
    # In pieces of 777 points, as past 16 M points (33 M and more stopped cv2.remap).
    assert np.array_equal(dark_squares._sample_xy(img, x, y, chunk=777), whole)


def test_a_cloth_of_hundreds_of_dark_marks_pairs_only_the_likest_markers() -> None:
    # A printed oilcloth of small dark squares left 1,100 outlines to read before the
    # dark squares were capped, and more samples than one remap takes.
    grey = np.full((720, 1280), 200, np.uint8)
    marks = []
    for yy in range(10, 700, 22):
        for xx in range(10, 1260, 22):
            grey[yy : yy + 11, xx : xx + 11] = 40
            marks.append([[xx, yy], [xx + 11, yy], [xx + 11, yy + 11], [xx, yy + 11]])
    dark = np.array(marks, np.float32)
    assert len(dark) > 1000
    assert len(outline_markers._ringed(grey, dark[: outline_markers.MAX_DARK])) == 48
    found = outline_markers.outline_sightings(grey, *_grads_regions(grey), [], "pickpic", dark=dark)
    assert found == []


def test_dark_squares_are_taken_most_like_a_markers_ring_first() -> None:
    grey = np.full((100, 200), 200, np.uint8)
    grey[30:60, 20:80] = 30  # a dark square run into a dark picture: no pad on one side
    grey[30:60, 120:150] = 30
    grey[35:55, 125:145] = 230  # a marker's ring: black border, light inside
    blot = [[20, 30], [50, 30], [50, 60], [20, 60]]
    ring = [[120, 30], [150, 30], [150, 60], [120, 60]]  # a marker: its white pad all round
    ordered = outline_markers._ringed(grey, np.array([blot, ring], np.float64))
    assert ordered[0].tolist() == ring
