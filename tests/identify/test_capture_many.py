"""Registering many cards at a time (``vision.identify.capture_many``): the session fed
rendered layouts (small frames, a few cards), the checks of a face, and the frame reading."""

from __future__ import annotations

import numpy as np
import pytest

from tests.identify.layouts import empty, layout, truth_of
from vision.identify import local
from vision.identify.capture_many import (
    LayoutCapture,
    LayoutProgress,
    check_face,
    face_keypoints,
    find_cards,
    upright,
)
from vision.identify.deck import ReferenceDeck, build_deck

A = ("pickpic-001", "pickpic-002", "pickpic-003", "pickpic-004")
#: The next layout: three new cards and pickpic-002 again (a duplicate), elsewhere.
B = ("pickpic-005", "pickpic-006", "pickpic-002", "pickpic-007")


def _feed(session: LayoutCapture, frames: list[np.ndarray]) -> list[LayoutProgress]:
    return [session.feed(f) for f in frames]


def test_a_still_layout_is_taken_once_then_waits() -> None:
    session = LayoutCapture(needed=3)
    states = _feed(session, [layout(A)] * 6)
    kinds = [s.state for s in states]
    assert kinds == ["settling", "settling", "captured", "waiting", "waiting", "waiting"]
    taken = states[2].taken
    assert len(taken) == 4 and [c.number for c in taken] == [1, 2, 3, 4]
    # Reading order (left to right in the row), each card its own, upright and portrait.
    assert [truth_of(A, c.corners_px) for c in taken] == list(A)
    for c in taken:
        assert c.face.shape == (440, 315, 3) and not c.landscape and c.layout == 1
        assert c.check.warnings == () and c.duplicate_of is None
    assert states[-1].total == 4 and states[-1].marks == ("taken",) * 4


def test_the_same_card_laid_again_is_skipped_not_taken_twice() -> None:
    session = LayoutCapture(needed=2, clear_frames=2)
    _feed(session, [layout(A)] * 3 + [empty()] * 3)
    states = _feed(session, [layout(B)] * 3)
    captured = [s for s in states if s.state == "captured"]
    assert len(captured) == 1
    got = captured[0]
    assert [truth_of(B, c.corners_px) for c in got.taken] == [
        "pickpic-005", "pickpic-006", "pickpic-007"
    ]  # fmt: skip
    (skipped,) = got.skipped
    assert skipped.like == "#2" and skipped.layout == 2  # card #2 of layout 1 is pickpic-002
    assert truth_of(B, skipped.corners_px) == "pickpic-002"
    assert len(session.taken) == 7 and session.layout == 2


def test_a_card_seen_again_where_it_was_taken_is_neither_retaken_nor_a_duplicate() -> None:
    """A hand over a card of a layout taken, then gone: that card is the same card."""
    session = LayoutCapture(needed=2, clear_frames=2)
    frames = [layout(A)] * 3 + [layout(A, hand=True)] * 4 + [layout(A)] * 4
    states = _feed(session, frames)
    assert sum(len(s.taken) for s in states) == 4
    assert not any(s.skipped for s in states)
    assert states[-1].state == "waiting" and session.layout == 1


def test_a_photo_is_a_layout_of_its_own_and_its_cards_are_taken_at_once() -> None:
    session = LayoutCapture()
    first = session.take(layout(A))
    assert first.state == "captured" and len(first.taken) == 4 and first.layout == 1
    again = session.take(layout(A))  # the same cards photographed again: all duplicates
    assert again.layout == 2 and not again.taken and len(again.skipped) == 4
    assert session.take(empty()).state == "searching"


def test_a_duplicate_is_taken_when_the_user_says_so() -> None:
    asked: list[tuple[str, float]] = []

    def confirm(face: np.ndarray, like: str, similarity: float) -> bool:
        asked.append((like, similarity))
        return True

    session = LayoutCapture(confirm_duplicate=confirm)
    session.take(layout(A))
    out = session.take(layout(B))
    assert [a[0] for a in asked] == ["#2"]
    assert len(out.taken) == 4 and not out.skipped
    assert [c.duplicate_of for c in out.taken].count("#2") == 1


def test_cards_registered_already_are_duplicates() -> None:
    first = LayoutCapture()
    faces = {f"mine-{c.number}": c.face for c in first.take(layout(A)).taken}
    deck = build_deck("mine", faces)
    session = LayoutCapture()
    session.know(list(deck.ids), deck.cells, lambda i: _keypoints(deck, i))
    out = session.take(layout(B))
    assert len(out.taken) == 3
    assert [s.like for s in out.skipped] == ["mine-2"]


def _keypoints(deck: ReferenceDeck, i: int) -> local.Keypoints:
    assert deck.images is not None
    return face_keypoints(deck.images[i])


def test_a_card_left_out_is_no_duplicate_and_numbers_go_on() -> None:
    session = LayoutCapture()
    session.take(layout(A))
    session.discard(2)
    out = session.take(layout(B))
    assert len(out.taken) == 4 and not out.skipped
    assert [c.number for c in session.taken] == [1, 3, 4, 5, 6, 7, 8]
    with pytest.raises(ValueError, match="no card number 2"):
        session.discard(2)


def test_blurred_faces_are_warned_and_sharp_ones_not() -> None:
    cards = ("pickpic-009", "pickpic-010", "pickpic-011")
    sharp = LayoutCapture().take(layout(cards))
    blurred = LayoutCapture().take(layout(cards, defocus=1.6))
    assert len(sharp.taken) == len(blurred.taken) == 3
    assert not any("blurred" in c.check.warnings for c in sharp.taken)
    assert all("blurred" in c.check.warnings for c in blurred.taken)
    assert any("blurred (sharpness" in line for line in blurred.taken[0].check.describe())


def test_small_cards_and_glare_are_warned() -> None:
    frame = layout(A)
    (q, *_) = find_cards(frame)
    corners, landscape = upright(q)
    assert check_face(frame, corners, landscape).warnings == ()
    # The same frame shrunk to half: the card is about 33 px across.
    small = np.ascontiguousarray(frame[::2, ::2])
    assert "small" in check_face(small, corners / 2, landscape).warnings
    # A white spot fading out over the card: glare.
    glared = frame.copy()
    centre = corners.mean(axis=0)
    yy, xx = np.mgrid[: frame.shape[0], : frame.shape[1]]
    r = np.hypot(xx - centre[0], yy - centre[1])
    glow = np.clip(1.6 - r / 12.0, 0, 1)[..., None]
    glared = np.clip(glared * (1 - glow) + 255 * glow, 0, 255).astype(np.uint8)
    check = check_face(glared, corners, landscape)
    assert "glare" in check.warnings and check.glare > 0.01


def test_picmix_cards_are_taken_landscape_and_their_backs_known_by_place() -> None:
    cards = ("picmix-red-1", "picmix-red-2", "picmix-red-3")
    session = LayoutCapture(orientation="landscape", needed=2, clear_frames=4)
    fronts = _feed(session, [layout(cards, landscape=True)] * 3)
    backs = _feed(session, [layout(cards, landscape=True, face="back")] * 3)
    taken_fronts = [c for s in fronts for c in s.taken]
    taken_backs = [c for s in backs for c in s.taken]
    assert len(taken_fronts) == len(taken_backs) == 3
    assert all(c.landscape and c.face.shape == (315, 440, 3) for c in taken_fronts)
    assert [c.flipped_from for c in taken_backs] == [c.number for c in taken_fronts]


@pytest.mark.parametrize(
    ("orientation", "landscape"), [("portrait", False), ("landscape", True), ("auto", True)]
)
def test_upright_puts_the_top_side_along_the_frame_s_rows(
    orientation: str, landscape: bool
) -> None:
    # A card lying landscape in the frame: 140 wide, 100 tall; corners clockwise from the
    # top-left, the first side a short one (the left side, going up).
    q = np.array([[0, 100], [0, 0], [140, 0], [140, 100]], np.float64)
    got, is_landscape = upright(q, orientation)  # type: ignore[arg-type]
    assert is_landscape is landscape
    if landscape:
        np.testing.assert_array_equal(got[0], [0, 0])
        np.testing.assert_array_equal(got[1], [140, 0])  # the top side runs left to right
    else:
        assert got[1][0] >= got[0][0] - 1e-9  # a short side on top, running rightwards


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (np.zeros((40, 50), np.uint8), r"\(H, W, 3\) uint8 BGR, got \(40, 50\) uint8"),
        (np.zeros((40, 50, 3), np.float32), r"got \(40, 50, 3\) float32"),
        ("frame.png", "got str"),
    ],
)
def test_frames_are_checked(frame: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_cards(frame)  # type: ignore[arg-type]


def test_a_session_is_checked() -> None:
    with pytest.raises(ValueError, match="orientation must be one of"):
        LayoutCapture(orientation="sideways")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needed must be at least 1"):
        LayoutCapture(needed=0)
