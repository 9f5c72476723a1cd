"""Decks on disk (format, versions, damage), the built-in deck, and registering cards from a
camera (the capture logic, fed rendered frames)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from tests.identify.conftest import small_deck
from vision.identify import DeckError, identify_frame, load_deck_folder, open_deck
from vision.identify.deck import (
    DECK_VERSION,
    build_deck,
    builtin_deck,
    plain_border,
    reference_images,
    register,
    save_deck,
)
from vision.kit import render_face
from vision.synth import Camera, CardSpec, EffectsSpec, SceneSpec, TableSpec, render_scene


def _faces(*ids: str) -> list[tuple[str, np.ndarray]]:
    return [(cid, render_face(cid, "front", 3.0)) for cid in ids]


def test_saved_deck_reads_back_the_same(tmp_path: Path) -> None:
    deck, _ = register("mine", _faces("pickpic-001", "picflip-002"), tmp_path)
    again = load_deck_folder(tmp_path / "mine")
    assert again.ids == ("pickpic-001", "picflip-002")
    np.testing.assert_array_equal(again.cells, deck.cells)
    np.testing.assert_array_equal(again.kp_desc, deck.kp_desc)
    assert again.border == deck.border and again.aspect == pytest.approx(63 / 88, abs=0.01)
    meta = json.loads((tmp_path / "mine" / "deck.json").read_text())
    assert meta["format"] == "pictable-deck" and meta["version"] == DECK_VERSION
    assert set(reference_images(again)) == {"pickpic-001", "picflip-002"}


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: (d / "deck.json").write_text("{not json"), "cannot read the deck file"),
        (lambda d: (d / "deck.json").write_text('{"format": "other"}'), "not a pictable deck"),
        (lambda d: (d / "deck.npz").write_bytes(b"junk"), "damaged deck"),
        (lambda d: (d / "deck.json").unlink(), "not a deck folder"),
    ],
)
def test_damaged_decks_are_refused_with_the_reason(
    tmp_path: Path, damage: object, message: str
) -> None:
    register("mine", _faces("pickpic-001"), tmp_path)
    damage(tmp_path / "mine")  # type: ignore[operator]
    with pytest.raises(DeckError, match=message):
        load_deck_folder(tmp_path / "mine")


def test_open_deck_names_what_is_there(tmp_path: Path) -> None:
    register("alpha", _faces("pickpic-001"), tmp_path)
    with pytest.raises(DeckError, match=r"no deck 'beta'.*decks: alpha.*built-in: pickpic"):
        open_deck("beta", tmp_path)


def test_plain_border_of_kit_cards_is_their_white_frame() -> None:
    bx, by = plain_border(render_face("pickpic-003", "front", 5.0))
    assert bx == pytest.approx(3 / 63, abs=0.008) and by == pytest.approx(3 / 88, abs=0.006)
    photo = np.random.default_rng(0).integers(0, 255, (400, 300, 3), dtype=np.uint8)
    assert plain_border(photo) == (0.0, 0.0)


def test_builtin_pickpic_deck_is_built_once_then_read(builtin_decks: Path) -> None:
    assert (builtin_decks / "_builtin" / "pickpic" / "deck.json").is_file()
    deck = builtin_deck("pickpic", builtin_decks)
    assert len(deck) == 120 and deck.builtin and deck.ids[0] == "pickpic-001"
    assert deck.folder == builtin_decks / "_builtin" / "pickpic"  # read, not built again
    from vision.identify.deck import build_deck, kit_faces

    fresh = build_deck("pickpic", dict(list(kit_faces("pickpic").items())[:3]))
    np.testing.assert_allclose(deck.cells[:3], fresh.cells, atol=1e-4)


def test_an_in_memory_deck_of_images_is_accepted_by_identify() -> None:
    """``identify_frame(frame, {id: image})`` (the benchmark's one-card decks)."""
    face = render_face("pickpic-020", "front", 4.0)
    frame = np.full((600, 800, 3), 70, np.uint8)  # the card close up: found by its keypoints
    frame[100 : 100 + face.shape[0], 200 : 200 + face.shape[1]] = face
    result = identify_frame(frame, {"mine": face}, codes=None)
    assert [c.card for c in result.cards] == ["mine"]


def _held_card_frames(n_moving: int, n_still: int) -> list[np.ndarray]:
    """A card slid in over a few frames, then held still, close to the camera (about 160 px
    wide); then taken away."""
    cam = Camera.from_pose(height_mm=350.0, tilt_deg=5.0)
    frames = []
    for k in range(n_moving + n_still + 2):
        if k >= n_moving + n_still:
            cards: tuple[CardSpec, ...] = ()
        else:
            x = -30.0 + 10.0 * min(k, n_moving)
            cards = (CardSpec.flat("pickpic-077", "front", (x, 0.0), 8.0),)
        spec = SceneSpec(camera=cam, table=TableSpec("cloth", (60, 110, 40), 1), cards=cards,
                         effects=EffectsSpec(noise_sigma=1.5))  # fmt: skip
        frames.append(render_scene(spec, seed=k)[0])
    return frames


def test_a_small_deck_is_portrait_with_a_border_and_no_mean() -> None:
    deck = small_deck()
    assert deck.border[0] > 0.03 and not any(c.turned for c in deck.cards)
    few = build_deck("few", dict(_faces("pickpic-001", "pickpic-002")))
    assert not few.mean_descriptor.any() and few.distinct_cells.all()


def test_saving_over_a_deck_replaces_it_whole(tmp_path: Path) -> None:
    register("d", _faces("pickpic-001", "pickpic-002"), tmp_path)
    faces = dict(_faces("pickpic-003"))
    from vision.identify.deck import build_deck

    save_deck(build_deck("d", faces), tmp_path / "d", faces)
    assert load_deck_folder(tmp_path / "d").ids == ("pickpic-003",)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # no temporary folders left


class _FakeCamera:
    """A camera that plays rendered frames (what ``deck register --camera`` opens)."""

    frames: ClassVar[list[np.ndarray]] = []

    def __init__(self, index: object, **_: object) -> None:
        self.index = index
        self._k = 0

    def open(self) -> None:
        self._k = 0

    def read(self) -> object:
        from vision.sources import Frame

        if self._k >= len(self.frames):
            return None
        self._k += 1
        return Frame(self.frames[self._k - 1], float(self._k) / 10, self._k - 1)

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"fake camera {self.index}"


def test_register_from_a_camera_adds_the_captured_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_window: None
) -> None:
    import vision.sources
    from tests.identify.conftest import run_cli

    _FakeCamera.frames = _held_card_frames(n_moving=1, n_still=9)
    monkeypatch.setattr(vision.sources, "CameraSource", _FakeCamera)
    status, out, err = run_cli(
        "deck", "register", "cam", "--camera", "0", "--ids", "my-card", "--decks", str(tmp_path)
    )
    assert status == 0, err
    assert "captured my-card" in out and "1 card registered" in out
    deck = load_deck_folder(tmp_path / "cam")
    assert deck.ids == ("my-card",)
