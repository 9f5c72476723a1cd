"""A deck learnt from photos of its faces (no retraining), then used with no codes at all."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from pictable.commands.picmix_deck import run_register
from tests.picmix.compose import Faces, chain, compose
from tests.picmix.test_exported import _steps
from vision.kit.picmix import ITEMS
from vision.picmix.decks import SCALES, load_registered
from vision.picmix.model import ItemModel
from vision.picmix.reader import verify_frame
from vision.picmix.reading import PicmixReading


def _photos(faces: Faces, folder: Path, colour: str) -> list[str]:
    """Each face of a set, slightly askew on a darker cloth, saved as LEFT+RIGHT.jpg."""
    rng = np.random.default_rng(3)
    paths = []
    for n in range(1, 5):
        for face in ("front", "back"):
            img = faces.image(f"picmix-{colour}-{n}", face)
            items = faces.cards[f"picmix-{colour}-{n}"]["faces"][face]["items"]
            h, w = img.shape[:2]
            bg = np.full((h + 160, w + 200, 3), (60, 80, 100), np.uint8)
            src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
            dst = src + np.float32([100, 80]) + rng.uniform(-15, 15, (4, 2)).astype(np.float32)
            hm = cv2.getPerspectiveTransform(src, dst)
            cv2.warpPerspective(
                img, hm, (bg.shape[1], bg.shape[0]), dst=bg, borderMode=cv2.BORDER_TRANSPARENT
            )
            path = folder / f"{items['left']}+{items['right']}.jpg"
            cv2.imwrite(str(path), bg, [cv2.IMWRITE_JPEG_QUALITY, 90])
            paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def decks_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("decks")


def test_register_and_verify_without_codes(
    faces: Faces,
    model: ItemModel,
    decks_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PICTABLE_DECKS", str(decks_dir))
    photos = _photos(faces, tmp_path, "teal")
    assert run_register(["my-deck", *photos]) == 0
    assert "16 items from 8 photos" in capsys.readouterr().out
    deck = load_registered("my-deck")
    assert sorted(deck.items) == sorted(ITEMS)
    # one prototype per item and size
    assert deck.prototypes is not None and deck.prototypes.shape == (16 * len(SCALES), 64)
    assert sorted(deck.prototype_items) == sorted(list(range(16)) * len(SCALES))
    # claims with another colour set, judged by prototypes alone (the deck has no codes)
    for obj, colour, correct in ((1, "red", True), (3, "teal", True), (5, "red", False)):
        steps = _steps(obj, colour)
        laid = chain(steps if correct else steps[1:], angle_deg=10)
        c = compose(faces, f"picmix-obj-{obj:02d}", laid)
        r = verify_frame(c.image, deck, model=model)
        assert isinstance(r, PicmixReading), r
        assert r.objective_method == "items"
        assert sorted(r.objective_items) == c.objective
        assert set(r.visible) == c.visible()
        assert r.verdict == ("correct" if correct else "wrong")


def test_register_refuses_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PICTABLE_DECKS", str(tmp_path / "decks"))
    assert run_register(["picmix", "x.jpg"]) == 2  # the kit's own name
    assert run_register(["../evil", "x.jpg"]) == 2
    assert run_register(["ok"]) == 2  # no IMAGES: a usage error, not an exception
    bad = tmp_path / "sun+fish.jpg"
    bad.write_bytes(b"no image")
    assert run_register(["ok", str(bad)]) == 1
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((200, 300, 3), 255, np.uint8))
    assert run_register(["ok", str(blank)]) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_register(["ok", str(empty)]) == 1  # a folder with no image in it
    err = capsys.readouterr().err
    assert "not 'picmix'" in err and "could not find the face's two items" in err
    assert "no image files in" in err
    assert not (tmp_path / "decks" / "picmix" / "ok.json").exists()


def test_register_json_and_folders(
    faces: Faces,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A folder of photos, unnamed ones numbered, and the JSON result."""
    monkeypatch.setenv("PICTABLE_DECKS", str(tmp_path / "decks"))
    taken, folder = tmp_path / "taken", tmp_path / "photos"
    taken.mkdir()
    folder.mkdir()
    for n, path in enumerate(_photos(faces, taken, "red")[:2]):
        Path(path).rename(folder / f"photo-{n}.jpg")
    (folder / "notes.txt").write_text("not a photo", encoding="utf-8")  # skipped
    assert run_register(["unnamed", str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deck"] == "unnamed" and out["faces"] == 2
    assert [i["name"] for i in out["items"]] == [f"item-{k:02d}" for k in range(1, 5)]
    assert Path(out["file"]) == tmp_path / "decks" / "picmix" / "unnamed.json"
