"""No wrong card on real photographs (issue 26): a card named by its picture alone must be
large enough for appearance to be safe, else its keypoints must confirm it; and a small
reading of the picture alone never overrides a larger keypoint-verified reading it lies on.

Real photos of ../shared/data: the deck is made of real photos (a QR code photographed on a
page among them), the queries are OpenCV's chessboard photos, which hold none of them. A few
chessboard squares rectified to the coarse cells of the appearance look like the QR photo's
black and white blocks: before the size rule, every chessboard photo named the QR photo by
its picture alone, at 1.0.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.identify import identify as ident
from vision.identify.candidates import _Candidate, _merge
from vision.identify.identify import identify_frame


def _deck(shared_data: Path) -> dict[str, np.ndarray]:
    files = {
        "qr-page": "zxing-qrcode/qrcode-2/1.png",
        "graf1": "opencv-features/graf1.png",
        "box": "opencv-features/box.png",
        "qr-hand": "zxing-qrcode/qrcode-1/1.png",
    }
    return {k: cv2.imread(str(shared_data / v), cv2.IMREAD_COLOR) for k, v in files.items()}


def _chessboards(shared_data: Path) -> list[Path]:
    photos = sorted((shared_data / "opencv-calib-left").glob("*.jpg"))
    assert len(photos) >= 5
    return photos


@pytest.mark.parametrize("as_table", [False, True])
def test_chessboard_photos_name_no_card(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch, as_table: bool
) -> None:
    # as_table: searched by outlines too, as a small deck is where the frame shows a table
    if as_table:
        monkeypatch.setattr(ident, "_shows_a_table", lambda *_: True)
    deck = _deck(shared_data)
    for photo in _chessboards(shared_data):
        found = identify_frame(cv2.imread(str(photo)), deck, codes=None)
        assert [c.card for c in found.cards] == [], photo.name


def test_the_size_rule_is_what_keeps_them_out(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the size rule the same photos, searched as a table is (by outlines too: a
    chessboard photo shows none, so a small deck is searched there by its keypoints alone),
    name the QR photo by appearance alone, small and sure: the test above would fail
    without it on a table."""
    monkeypatch.setattr(ident, "APPEARANCE_ALONE_MIN_PX", 0.0)
    monkeypatch.setattr(ident, "_shows_a_table", lambda *_: True)
    deck = _deck(shared_data)
    wrong = []
    for photo in _chessboards(shared_data):
        for c in identify_frame(cv2.imread(str(photo)), deck, codes=None).cards:
            q = c.corners_px
            side = min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[1]))
            wrong.append((c.card, c.evidence, c.confidence, side))
    assert len(wrong) >= 3
    assert all(ev == ("picture",) and conf > 0.99 and side < 100 for _, ev, conf, side in wrong)


def test_real_pictures_still_found(shared_data: Path) -> None:
    """graf1 in graf3 (a steep viewpoint) and the box in its scene, with that deck."""
    deck = _deck(shared_data)
    root = shared_data / "opencv-features"
    for scene, card in (("graf3.png", "graf1"), ("box_in_scene.png", "box")):
        found = identify_frame(cv2.imread(str(root / scene)), deck, codes=None)
        assert [c.card for c in found.cards] == [card], scene


def _quad(x: float, y: float, w: float, h: float) -> np.ndarray:
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def test_small_picture_reading_does_not_override_a_keypoint_reading() -> None:
    """A patch of a card's picture named as another card by appearance alone, more sure than
    the card's keypoint fit, does not push that reading out, whichever comes first; a picture
    reading of the same size still competes by confidence."""
    big = _Candidate("a", _quad(100, 100, 200, 300), 0.99, "features", "front", ("keypoints",))
    patch = _Candidate("b", _quad(150, 150, 110, 150), 1.0, "features", "front", ("picture",))
    assert [c.card for c in _merge([big], [patch])] == ["a"]
    assert [c.card for c in _merge([patch], [big])] == ["a"]
    alike = _Candidate("b", _quad(110, 110, 190, 290), 1.0, "features", "front", ("picture",))
    assert [c.card for c in _merge([big], [alike])] == ["b"]
    code = _Candidate("c", _quad(150, 150, 110, 150), 1.0, "code", "front", ("aruco",))
    assert [c.card for c in _merge([big], [code])] == ["c"]


def _photograph(
    picture: np.ndarray,
    background: np.ndarray,
    tilt_deg: float,
    blur: float,
    light: float,
    jpeg: int,
    width_px: int,
    seed: int,
) -> np.ndarray:
    """``picture`` lying flat on ``background`` (both real photos), seen by a plain pinhole
    camera tilted ``tilt_deg`` about the horizontal axis, the picture ``width_px`` wide, then
    blurred (Gaussian ``blur`` px), dimmed to ``light`` of its brightness with sensor noise,
    and saved as JPEG of quality ``jpeg``."""
    rng = np.random.default_rng(seed)
    frame = cv2.resize(background, (960, 720), interpolation=cv2.INTER_AREA)
    h, w = picture.shape[:2]
    ph = width_px * h / w
    t = np.deg2rad(tilt_deg)
    cx, cy = 480 + rng.uniform(-80, 80), 360 + rng.uniform(-60, 60)
    # the far edge shorter and nearer the middle: a flat picture tilted away from the camera
    top = width_px * np.cos(t) * 0.5 * (1 - 0.3 * np.sin(t))
    bottom = width_px * 0.5 * (1 + 0.3 * np.sin(t))
    half = ph * np.cos(t) / 2
    dst = np.array(
        [[cx - top, cy - half], [cx + top, cy - half], [cx + bottom, cy + half],
         [cx - bottom, cy + half]], np.float32,
    )  # fmt: skip
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(picture, m, (960, 720))
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (960, 720))
    frame[mask > 127] = warped[mask > 127]
    if blur > 0:
        frame = cv2.GaussianBlur(frame, (0, 0), blur)
    noisy = frame.astype(np.float32) * light + rng.normal(0, 3.0, frame.shape)
    frame = np.clip(noisy, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


#: (tilt degrees, blur px, light, JPEG quality, picture width px): each condition at its worst.
CONDITIONS = [
    (30.0, 0.0, 1.0, 90, 320),  # steep viewpoint
    (10.0, 2.5, 1.0, 90, 320),  # blur
    (10.0, 0.0, 0.3, 90, 320),  # dim light
    (10.0, 0.0, 1.0, 20, 320),  # JPEG
    (20.0, 1.5, 0.5, 35, 160),  # all of them, small
]


@pytest.mark.parametrize("condition", CONDITIONS, ids=["tilt", "blur", "dim", "jpeg", "all"])
def test_flat_pictures_photographed_badly_name_no_wrong_card(
    shared_data: Path, condition: tuple[float, float, float, int, int]
) -> None:
    """Real pictures not in the deck, photographed flat in bad conditions, are given no id;
    pictures of the deck are named right or not at all."""
    deck = _deck(shared_data)
    background = cv2.imread(str(shared_data / "zxing-qrcode" / "qrcode-1" / "2.png"))
    others = [*_chessboards(shared_data)[:3], *sorted((shared_data / "opencv-aruco").glob("*.*g"))]
    pictures = [(p.name, None, cv2.imread(str(p))) for p in others]
    pictures += [(k, k, deck[k]) for k in ("graf1", "box")]
    # (the background is a photo of the same page as "qr-hand": it may be named, right)
    for i, (name, card, picture) in enumerate(pictures):
        photo = _photograph(picture, background, *condition, seed=i)
        for c in identify_frame(photo, deck, codes=None).cards:
            assert c.card == card or c.card == "qr-hand", (name, c.card, c.evidence, c.confidence)


def test_a_few_shared_details_do_not_place_a_card_round_the_frame(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Photos of one QR code on a page registered as cards; frames of other QR codes share
    their finder patterns, on which a keypoint fit puts the whole page several times the
    frame's size round the code: no card (and one is placed so without the rule)."""
    root = shared_data / "zxing-qrcode"
    deck = {f"page-{k}": cv2.imread(str(root / "qrcode-1" / f"{k}.png")) for k in (1, 2, 4)}
    frames = [cv2.imread(str(root / "qrcode-3" / f"{k}.png")) for k in (11, 26, 37)]
    for frame in frames:
        assert identify_frame(frame, deck, codes=None).cards == ()
    monkeypatch.setattr(ident, "MIN_SHARE_IN_FRAME", 0.0)
    placed = [c for f in frames for c in identify_frame(f, deck, codes=None).cards]
    assert placed and all(c.evidence == ("keypoints",) for c in placed)
    # and the page is still found in another photo of it, wholly in the frame
    monkeypatch.undo()
    again = identify_frame(cv2.imread(str(root / "qrcode-1" / "5.png")), deck, codes=None)
    assert {c.card for c in again.cards} & set(deck)


def test_a_card_placed_by_keypoints_lies_on_its_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26: a reported outline lies on its card, every corner within 10% of the card's
    height. Small blurred cards of the hard tier (seed 0, scenes 2 and 10), their keypoints
    on one part of them, were fitted with corners up to 23% of their height off; their sides
    are now snapped to their edges."""
    from pictable.bench.readers.identify import PLACE_MAX, placement_error
    from vision.identify.deck import open_deck
    from vision.identify.scenes import make_scene, scene_seed

    deck = open_deck("pickpic")
    cases = [(2, "pickpic-005"), (10, "pickpic-062")]
    scenes = {i: make_scene("features", "hard", scene_seed(0, i)) for i, _ in cases}

    def off(i: int, card_id: str) -> float:
        frame, truth = scenes[i]
        card = truth.card(card_id)
        assert card is not None
        found = {c.card: c for c in identify_frame(frame, deck, codes=None).cards}
        return placement_error(found[card_id].corners_px, card.corners_px)

    assert all(off(i, c) < PLACE_MAX for i, c in cases)
    monkeypatch.setattr(ident, "_snap_fits", lambda readings, grads: (readings, []))
    monkeypatch.setattr(ident, "SETTLE_SUPPORT", 0.0)  # (nor placed by the picture after)
    monkeypatch.setattr(ident.placing, "AGREE_CHECK_BELOW", 0.0)
    monkeypatch.setattr(ident.table_plane, "MIN_ANCHORS", 10**6)  # (nor on the table's plane)
    # Without the snap, the keypoint fit is off on at least one of them: with the packages of
    # 2026-12-03 (opencv-python 5.0.0.93), scene 10's card is fitted within 1% of its height
    # by its keypoints alone, scene 2's is 20% off.
    assert any(off(i, c) > PLACE_MAX for i, c in cases)
