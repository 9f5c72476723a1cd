"""The second card drawer (``pictable.bench.drawers.cards`` and ``picmix_claims``: plain
OpenCV from KIT.md, not the synthetic camera): deterministic, its truth where the cards are
drawn, visibility measured on what covers a card, no import of ``vision.synth``, and the
card reader naming its cards."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from pictable.bench.drawers.cards import (
    FACE_PX_PER_MM,
    Art,
    CardScene,
    DrawnCard,
    draw_card_scene,
)
from pictable.bench.drawers.picmix_claims import ITEM_SHOWS_MIN, claim_truth, draw_claim
from pictable.bench.readers.identify import kit_art

ROOT = Path(__file__).resolve().parents[2]
DRAWERS = [
    ROOT / "pictable/bench/drawers/cards.py",
    ROOT / "pictable/bench/drawers/picmix_claims.py",
]


@pytest.fixture(scope="module")
def art() -> Art:
    return kit_art()


def _face_to_frame(card: DrawnCard, art: Art) -> tuple[np.ndarray, tuple[float, float]]:
    """(3, 3) face mm -> frame px of a drawn card, and the face's size (mm)."""
    h, w = art.face(card.card_id, card.face, FACE_PX_PER_MM).shape[:2]
    size = (w / FACE_PX_PER_MM, h / FACE_PX_PER_MM)
    src = np.array([[0, 0], [size[0], 0], size, [0, size[1]]], np.float32)
    return cv2.getPerspectiveTransform(src, card.corners_px.astype(np.float32)), size


def _grey_at(frame: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Grey levels of ``frame`` at (N, 2) float pixel points (bilinear)."""
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.float32)
    mx = pts[:, 0].reshape(1, -1).astype(np.float32)
    my = pts[:, 1].reshape(1, -1).astype(np.float32)
    return np.asarray(cv2.remap(grey, mx, my, cv2.INTER_LINEAR)).ravel()


def test_a_seed_draws_the_same_scene(art: Art) -> None:
    a, b = (draw_card_scene(11, "codes", "hard", art) for _ in range(2))
    assert a.frame.shape == (720, 1280, 3) and a.frame.dtype == np.uint8
    assert np.array_equal(a.frame, b.frame)
    assert a.truth_json() == b.truth_json()
    c = draw_card_scene(12, "codes", "hard", art)
    assert not np.array_equal(a.frame, c.frame)


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_truth_corners_lie_on_the_drawn_card(art: Art, seed: int) -> None:
    """One card on a dark table: its white frame (3 mm wide on the kit's faces) shows 1.5 mm
    inside the truth's outline, the table 4 mm outside it; the frame warped back to the face
    by the truth's corners matches the art better than by corners 2 px off."""
    s = draw_card_scene(seed, "features", "normal", art, n_cards=1, n_hands=0, table="slate")
    (card,) = s.cards
    assert card.visible_fraction > 0.99
    to_frame, (w, h) = _face_to_frame(card, art)

    def ring(d: float) -> np.ndarray:  # points d mm inside (d > 0) or outside the edges
        t = np.linspace(0.2, 0.8, 7)
        pts = [np.stack([t * w, np.full(7, d)], 1), np.stack([t * w, np.full(7, h - d)], 1)]
        pts += [np.stack([np.full(7, d), t * h], 1), np.stack([np.full(7, w - d), t * h], 1)]
        on_face = np.concatenate(pts).reshape(-1, 1, 2).astype(np.float32)
        return cv2.perspectiveTransform(on_face, to_frame).reshape(-1, 2)

    inside, outside = _grey_at(s.frame, ring(1.5)), _grey_at(s.frame, ring(-4.0))
    assert inside.min() > outside.max() + 40, (inside.min(), outside.max())

    face = cv2.cvtColor(art.face(card.card_id, card.face, 4.0), cv2.COLOR_BGR2GRAY)
    fh, fw = face.shape

    def match(corners: np.ndarray) -> float:
        dst = np.array(
            [[-0.5, -0.5], [fw - 0.5, -0.5], [fw - 0.5, fh - 0.5], [-0.5, fh - 0.5]], np.float32
        )
        hm = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
        back = cv2.warpPerspective(cv2.cvtColor(s.frame, cv2.COLOR_BGR2GRAY), hm, (fw, fh))
        a = cv2.GaussianBlur(back.astype(np.float32), (0, 0), 6).ravel()
        b = cv2.GaussianBlur(face.astype(np.float32), (0, 0), 6).ravel()
        return float(np.corrcoef(a, b)[0, 1])

    best = match(card.corners_px)
    assert best > 0.95
    for shift in ([2, 0], [-2, 0], [0, 2], [0, -2]):
        assert match(card.corners_px + np.array(shift, np.float32)) < best - 0.02


def test_a_hand_takes_its_share_of_a_cards_visibility(art: Art) -> None:
    """The same cards with and without a hand (hands are drawn after every card): a card the
    hand covers loses what it hides and says so in ``hand_fraction``; the others keep theirs."""
    bare = draw_card_scene(21, "codes", "normal", art, n_cards=6, n_hands=0)
    hand = draw_card_scene(21, "codes", "normal", art, n_cards=6, n_hands=1)
    assert [c.card_id for c in bare.cards] == [c.card_id for c in hand.cards]
    assert len(hand.hands) == 1 and not bare.hands
    covered = [
        (b, c) for b, c in zip(bare.cards, hand.cards, strict=True) if c.hand_fraction > 0.02
    ]
    assert covered
    for b, c in zip(bare.cards, hand.cards, strict=True):
        assert b.hand_fraction == 0
        assert c.visible_fraction <= b.visible_fraction + 1e-3
        # what the hand took was either showing or already under a card
        assert b.visible_fraction - c.visible_fraction <= c.hand_fraction + 1e-3
        if c.hand_fraction == 0:
            assert c.visible_fraction == pytest.approx(b.visible_fraction, abs=1e-3)
    assert any(c.visible_fraction < b.visible_fraction - 0.02 for b, c in covered)


def _hidden_by_later(cards: tuple[DrawnCard, ...], k: int) -> float:
    """The share of card ``k`` under the cards laid after it, by rasterising their table
    outlines (mm, 4 px a mm)."""
    quads = [c.corners_mm.astype(np.float64) for c in cards]
    lo = np.min(np.concatenate(quads), 0) - 5
    size = tuple(int(v) for v in (np.max(np.concatenate(quads), 0) - lo + 5) * 4)
    mine = np.zeros(size[::-1], np.uint8)
    later = np.zeros_like(mine)
    cv2.fillPoly(mine, [np.round((quads[k] - lo) * 4).astype(np.int32)], 1)
    for q in quads[k + 1 :]:
        cv2.fillPoly(later, [np.round((q - lo) * 4).astype(np.int32)], 1)
    return float((mine & later).sum() / max(int(mine.sum()), 1))


def test_a_card_laid_over_another_hides_its_share(art: Art) -> None:
    """Without hands, what a card loses is what the cards laid after it cover (their table
    outlines; perspective makes image areas a little uneven), never over 40% by the layout."""
    hidden_seen = []
    for seed in (31, 32, 33, 34):
        s = draw_card_scene(seed, "features", "normal", art, n_cards=12, n_hands=0)
        for k, c in enumerate(s.cards):
            assert c.in_frame_fraction > 0.99 and c.hand_fraction == 0
            hidden = _hidden_by_later(s.cards, k)
            assert 1 - c.visible_fraction == pytest.approx(hidden, abs=0.03)
            assert hidden <= 0.4 + 0.01
            hidden_seen.append(hidden)
    assert max(hidden_seen) > 0.1  # the scenes do overlap cards


def test_a_claims_row_hides_one_half_of_each_card_but_the_last(art: Art) -> None:
    s = draw_claim(5, "normal", art, correct=True, n_hands=0)
    truth = claim_truth(s)
    area = truth["picmix_areas"][0]
    row = [c for c in s.cards if c.card_id in s.area]
    assert len(row) >= 2 and [c.card_id for c in row] == list(area["card_ids"])
    for c in row[:-1]:
        shares = sorted(v for _, _, v in c.halves)
        assert shares[0] < 0.1 and shares[1] > 0.95
    assert min(v for _, _, v in row[-1].halves) > 0.95
    objective = next(c for c in truth["cards"] if c["items"])
    assert area["visible_items"] == sorted(objective["items"])
    shown = {x["item"] for x in area["items"] if x["visible_fraction"] >= ITEM_SHOWS_MIN}
    assert sorted(shown) == area["visible_items"]
    wrong = claim_truth(draw_claim(6, "normal", art, correct=False, n_hands=0))
    objective = next(c for c in wrong["cards"] if c["items"])
    assert wrong["picmix_areas"][0]["visible_items"] != sorted(objective["items"])


def test_the_drawers_import_neither_the_synthetic_camera_nor_the_kit() -> None:
    for path in DRAWERS:
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.add(node.module or "")
        assert not {n for n in names if n.startswith(("vision.synth", "vision.kit"))}, path


def test_drawing_a_scene_loads_no_synthetic_camera() -> None:
    """With the kit's art handed in, drawing card scenes and a claim never imports
    ``vision.synth`` (checked in a fresh interpreter)."""
    code = (
        "import sys\n"
        "from vision.kit import get_card, load_deck, render_face\n"
        "from pictable.bench.drawers.cards import Art, draw_card_scene\n"
        "from pictable.bench.drawers.picmix_claims import draw_claim\n"
        "def items(c, s):\n"
        "    card = get_card(c)\n"
        "    if card.faces:\n"
        "        return card.faces[0 if s == 'front' else 1].items\n"
        "    return tuple(card.items) if s == 'front' else ()\n"
        "art = Art(render_face, lambda g: load_deck(g).ids, items)\n"
        "draw_card_scene(1, 'unknown', 'hard', art)\n"
        "draw_claim(1, 'normal', art)\n"
        "print(sorted(m for m in sys.modules if m.startswith('vision.synth')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_faces_from_a_kit_export_are_the_kits(art: Art, tmp_path: Path) -> None:
    from vision.kit.export import export_deck

    export_deck("picmix", tmp_path / "picmix", px_per_mm=8.0, cards=["picmix-red-2"], workers=1)
    exported = Art.from_export([tmp_path / "picmix"])
    assert tuple(exported.ids("picmix")) == ("picmix-red-2",)
    assert exported.items("picmix-red-2", "back") == art.items("picmix-red-2", "back")
    a = exported.face("picmix-red-2", "front", FACE_PX_PER_MM).astype(np.float32)
    b = art.face("picmix-red-2", "front", FACE_PX_PER_MM).astype(np.float32)
    assert a.shape == b.shape and float(np.abs(a - b).mean()) < 6


def test_the_code_reader_names_the_second_drawers_cards() -> None:
    """A behaviour check of the reader on another renderer: three normal scenes read by
    codes through the benchmark, every card at least 60% visible named right, none wrong."""
    from pictable.bench.readers.identify import bench_identify

    r = bench_identify("normal", 3, 0, "codes", drawer="second")
    assert r["drawer"] == "second" and r["cards"] >= 10
    assert r["wrong"] == 0, r["mistakes"]
    assert r["right"] == r["cards"], r["missed"]
    assert r["misplaced"] == 0, r["mistakes"]


def test_scenes_hold_their_kind(art: Art) -> None:
    codes = [draw_card_scene(s, "codes", "normal", art) for s in (40, 41, 42)]
    sides = {c.face for s in codes for c in s.cards}
    assert sides == {"front", "back"}
    unknown = draw_card_scene(43, "unknown", "normal", art, n_cards=10)
    games = {c.card_id.split("-")[0] for c in unknown.cards}
    assert games == {"pickpic", "picflip"} and {c.face for c in unknown.cards} == {"front"}
    assert isinstance(unknown, CardScene)


#: Scene seed 5, codes, normal tier, as drawn before looks existed: the mean of each
#: channel over a 9 x 16 grid of blocks. (An exact hash of the frame held on one machine and
#: not on another: OpenCV's optimised paths, IPP among them, differ by a level here and
#: there between processors. On one machine the code before looks, 11e94e5^, and the code
#: after draw the same frame to the byte; with IPP or all optimisations off the block means
#: move by less than 0.001, and a development look moves them by up to 146.)
KIT_LOOK_MEANS = Path(__file__).parent / "data" / "card_drawer_kit_look.json"


def test_the_default_look_draws_as_before_looks_existed(art: Art) -> None:
    import json

    ref = json.loads(KIT_LOOK_MEANS.read_text(encoding="utf-8"))
    frame = draw_card_scene(*ref["scene"], art).frame
    rows, cols = ref["grid"]
    h, w = frame.shape[:2]
    means = frame.reshape(rows, h // rows, cols, w // cols, 3).astype(np.float64).mean(axis=(1, 3))
    assert np.abs(means - np.asarray(ref["means"])).max() < 0.05


def test_a_look_group_moves_no_card_and_draws_from_its_own_names(art: Art) -> None:
    """Issue 26, part 7: development and held-back looks. A seed lays the same cards under
    every look of the groups; the truth names the look, drawn only from the group's names."""
    from pictable.bench.drawers.cards import CARD_LOOKS

    base = draw_card_scene(21, "codes", "hard", art, looks="dev")
    for group in ("held", "dev"):
        names: dict[str, set[str]] = {}
        for seed in range(21, 27):
            scene = draw_card_scene(seed, "codes", "hard", art, looks=group)
            for part in CARD_LOOKS[group]:
                names.setdefault(part, set()).add(scene.look[part])
            if seed == 21 and group == "held":
                assert [c.card_id for c in scene.cards] == [c.card_id for c in base.cards]
                for a, b in zip(scene.cards, base.cards, strict=True):
                    assert np.allclose(a.corners_px, b.corners_px)
                assert not np.array_equal(scene.frame, base.frame)
        for part, seen in names.items():
            assert seen <= set(CARD_LOOKS[group][part]), (group, part)
    for part in ("table", "paper"):
        assert not set(CARD_LOOKS["dev"][part]) & set(CARD_LOOKS["held"][part])
    with pytest.raises(ValueError, match="looks"):
        draw_card_scene(21, "codes", "hard", art, looks="wide")


def test_a_sleeve_hazes_the_card(art: Art) -> None:
    """A matt sleeve lays a white haze over the card: the same card, drawn the same way,
    is lighter in the sleeve, never darker."""
    from pictable.bench.drawers import cards as drawer

    looks = [drawer.scene_look(s, "dev") for s in range(200)]
    seed = next(s for s, lk in enumerate(looks) if lk["sleeve"] == "matt" and lk["haze"] > 0.1)
    bare = dict(looks[seed], sleeve="none", haze=0.0, reach=0.0)
    scenes = []
    for look in (bare, looks[seed]):
        rng = np.random.default_rng([seed, drawer.CARDS_STREAM])
        s = drawer._Scene(rng, "normal", "felt", False, look)
        face = drawer._face(art, "pickpic-001", "front")
        s.lay("pickpic-001", "front", face, drawer._rect_mm(np.zeros(2), 20.0, (63.0, 88.0)))
        scenes.append(s.d.img)
    diff = scenes[1] - scenes[0]
    # a white haze lightens; only paper lit above white (up to 3%) moves down towards it
    assert diff.max() > 10 and diff.min() > -0.03 * 255
