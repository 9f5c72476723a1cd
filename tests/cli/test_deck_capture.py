"""``pictable deck register NAME --video FILE | --folder DIR | --camera N``: cards laid several
at a time, end to end on rendered layouts (a short video written with OpenCV, a folder of
photos, a fake camera), and bad input (a clear error, exit status 1, the cards taken so far
saved)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import pytest

from pictable.cli import main
from tests.identify.layouts import SIZE_WH, empty, layout
from vision.identify.deck import load_deck_folder

A = ("pickpic-001", "pickpic-002", "pickpic-003", "pickpic-004")
#: Three new cards and pickpic-002 again (a duplicate).
B = ("pickpic-005", "pickpic-006", "pickpic-002", "pickpic-007")
#: Two new cards, out of focus.
C = ("pickpic-008", "pickpic-009")
FPS = 10.0


@pytest.fixture
def decks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty decks folder (also ``$PICTABLE_DECKS``), and no display."""
    folder = tmp_path / "decks"
    monkeypatch.setenv("PICTABLE_DECKS", str(folder))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    yield folder


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["deck", "register", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def _video(path: Path, frames: list[np.ndarray]) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), FPS, SIZE_WH)
    assert writer.isOpened()
    for f in frames:
        writer.write(f)
    writer.release()
    return path


def _layouts_video(path: Path) -> Path:
    """Layout A still, a hand over it, A again, the table cleared; layout B (a card of A laid
    again); cleared; layout C out of focus; cleared."""
    frames = (
        [layout(A)] * 5
        + [layout(A, hand=True)] * 3
        + [layout(A)] * 3
        + [empty()] * 4
        + [layout(B)] * 5
        + [empty()] * 4
        + [layout(C, defocus=1.6)] * 5
        + [empty()] * 2
    )
    return _video(path, frames)


def test_a_video_of_layouts_registers_each_card_once(
    tmp_path: Path, decks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    video = _layouts_video(tmp_path / "layouts.avi")
    sheet = tmp_path / "sheet.png"
    status, out, err = _run(
        capsys, "mine", "--video", str(video), "--still", "0.3", "--sheet", str(sheet), "--json"
    )
    assert status == 0, err
    doc = json.loads(out.strip().splitlines()[-1])
    # 4 + 3 + 2 cards, numbered in the order taken; the duplicate skipped and said.
    assert doc["registered"] == [f"card-{k:03d}" for k in range(1, 10)]
    assert doc["cards"] == 9 and doc["errors"] == []
    assert doc["skipped"] == [{"like": "card-002", "layout": 2}]
    assert "is card-002 again" in out
    # The blurred layout's two cards are warned of.
    assert doc["warnings"] == {"card-008": ["blurred"], "card-009": ["blurred"]}
    assert "warning: card-008: blurred (sharpness" in out
    # The deck: the 9 faces, each a different card (no two alike).
    deck = load_deck_folder(decks / "mine")
    assert deck.ids == tuple(doc["registered"])
    d = deck.descriptors[: len(deck)]
    sims = d @ d.T - 2 * np.eye(len(deck))
    assert sims.max() < 0.9
    # The contact sheet: a grid of the 9 faces with their ids.
    image = cv2.imread(str(sheet))
    assert image is not None and image.shape[0] > 2 * 176 and image.shape[1] > 8 * 176
    assert doc["sheet"] == str(sheet)


def test_a_folder_of_photos_and_the_deck_grows_on_the_next_run(
    tmp_path: Path, decks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "IMG_0001.jpg"), layout(A))
    cv2.imwrite(str(photos / "IMG_0002.png"), layout(B))
    (photos / "notes.txt").write_text("not a photo")
    status, out, err = _run(capsys, "mine", "--folder", str(photos))
    assert status == 0, err
    assert "deck mine: 7 cards registered, 1 duplicate skipped, 7 in all" in out
    # Again with a photo of C and of A: A's cards are in the deck already (duplicates); new
    # cards are numbered after the deck's.
    again = tmp_path / "again"
    again.mkdir()
    cv2.imwrite(str(again / "1.png"), layout(C))
    cv2.imwrite(str(again / "2.png"), layout(A))
    status, out, err = _run(capsys, "mine", "--folder", str(again), "--json")
    assert status == 0, err
    doc = json.loads(out.strip().splitlines()[-1])
    assert doc["registered"] == ["card-008", "card-009"] and doc["cards"] == 9
    likes = sorted(s["like"] for s in doc["skipped"])
    assert likes == ["card-001", "card-002", "card-003", "card-004"]


def test_ids_typed_as_cards_are_taken(
    tmp_path: Path, decks: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "a.png"), layout(A))
    crops = tmp_path / "crops"
    # The first named, the second left out, the third numbered, the fourth named.
    monkeypatch.setattr("sys.stdin", io.StringIO("astronaut\n-\n\nrocket\n"))
    status, out, err = _run(
        capsys, "mine", "--folder", str(photos), "--ask", "--crops", str(crops), "--json"
    )
    assert status == 0, err
    doc = json.loads(out.strip().splitlines()[-1])
    assert doc["registered"] == ["astronaut", "card-001", "rocket"]
    assert len(list(crops.glob("*.png"))) == 4  # each face shown (written) when asked
    assert f"face in {crops}" in out


def test_a_duplicate_taken_when_the_user_says_so(
    tmp_path: Path, decks: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "1.png"), layout(A))
    cv2.imwrite(str(photos / "2.png"), layout(B))
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    status, out, err = _run(
        capsys, "mine", "--folder", str(photos), "--duplicates", "ask", "--crops",
        str(tmp_path / "c"), "--json",
    )  # fmt: skip
    assert status == 0, err
    doc = json.loads(out.strip().splitlines()[-1])
    assert len(doc["registered"]) == 8 and doc["skipped"] == []
    assert "looks like card-002: take it all the same?" in out
    assert list(doc["warnings"].values()) == [["duplicate"]]


class _FakeCamera:
    """A camera that plays frames (``vision.sources.CameraSource`` replaced), then stops
    (``fail``: its frames run out as a camera unplugged)."""

    frames: ClassVar[list[np.ndarray]] = []
    opens: ClassVar[bool] = True

    def __init__(self, index: object, **_: object) -> None:
        self.index = index
        self._k = 0
        self.fps = FPS

    def open(self) -> None:
        from vision.sources import SourceError

        if not self.opens:
            raise SourceError(f"cannot open camera {self.index}")
        self._k = 0

    def read(self) -> object:
        from vision.sources import Frame

        if self._k >= len(self.frames):
            return None
        self._k += 1
        return Frame(self.frames[self._k - 1], self._k / FPS, self._k - 1)

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"fake camera {self.index}"


def test_a_camera_that_stops_keeps_the_cards_taken(
    decks: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.sources

    _FakeCamera.frames = [layout(A)] * 5 + [empty()] * 2
    _FakeCamera.opens = True
    monkeypatch.setattr(vision.sources, "CameraSource", _FakeCamera)
    status, out, err = _run(capsys, "mine", "--camera", "0", "--still", "0.3")
    assert status == 1
    assert "camera 0 stopped giving frames" in err
    assert "deck mine: 4 cards registered" in out
    assert len(load_deck_folder(decks / "mine")) == 4


def test_count_stops_the_camera_after_so_many_cards(
    decks: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import vision.sources

    _FakeCamera.frames = [layout(A)] * 5 + [empty()] * 2
    _FakeCamera.opens = True
    monkeypatch.setattr(vision.sources, "CameraSource", _FakeCamera)
    status, _, err = _run(capsys, "mine", "--camera", "0", "--count", "3", "--ids", "x,y,z")
    assert status == 0, err
    assert load_deck_folder(decks / "mine").ids == ("x", "y", "z")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: ["--video", str(d / "missing.mp4")], "no such video file: "),
        (lambda d: ["--video", str(_junk(d / "junk.avi"))], "cannot open video "),
        (lambda d: ["--folder", str(_folder(d / "empty"))], "no images in "),
        (lambda d: ["--folder", str(d / "nowhere")], "not a directory: "),
        (lambda d: ["--camera", "3"], "cannot open camera 3"),
    ],
    ids=["missing video", "unreadable video", "folder without images", "no folder", "camera"],
)
def test_bad_input_is_said_with_status_1_and_nothing_written(
    make: object,
    message: str,
    tmp_path: Path,
    decks: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.sources

    _FakeCamera.opens = False
    monkeypatch.setattr(vision.sources, "CameraSource", _FakeCamera)
    status, _, err = _run(capsys, "mine", *make(tmp_path))  # type: ignore[operator]
    assert status == 1
    assert message in err and "no card taken; the deck is unchanged" in err
    assert not (decks / "mine").exists()


def test_an_unreadable_photo_is_said_and_the_others_saved(
    tmp_path: Path, decks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "1.png"), layout(A))
    (photos / "2.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    status, out, err = _run(capsys, "mine", "--folder", str(photos))
    assert status == 1
    assert "2.jpg: cannot decode image" in err or "2.jpg: " in err
    assert "deck mine: 4 cards registered" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--video", "v.mp4", "--folder", "d"], "give one of --camera, --video, --folder"),
        (["img.png", "--folder", "d"], "give IMAGE files or --camera/--video/--folder"),
        (["--folder", "d", "--ask", "--ids", "a,b"], "give --ask or --ids, not both"),
        (["--folder", "d", "--items", "i.txt"], "--items goes with --picmix"),
        (["img.png", "--sheet", "s.png"], "--sheet goes with --camera, --video or --folder"),
        (["--folder", "d", "--still", "0"], "--still must be more than 0 seconds"),
    ],
)
def test_bad_arguments_are_status_2(
    argv: list[str], message: str, decks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _run(capsys, "mine", *argv)
    assert status == 2
    assert message in err


def test_picmix_cards_both_faces_and_their_items(
    tmp_path: Path,
    decks: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Fronts laid, then each card turned over where it lies: every card's two faces, named
    by their items (``--items``), handed to the Picmix deck command as LEFT+RIGHT photos."""
    from pictable.commands import picmix_deck

    handed: list[list[str]] = []

    def hand_on(argv: list[str]) -> int:
        handed.append(argv)
        return 0

    monkeypatch.setattr(picmix_deck, "run_register", hand_on)
    cards = ("picmix-red-1", "picmix-red-2", "picmix-red-3")
    frames = [layout(cards, landscape=True)] * 4 + [layout(cards, landscape=True, face="back")] * 4
    video = _video(tmp_path / "picmix.avi", frames)
    items = tmp_path / "items.txt"
    # The faces in the order taken: the fronts left to right, then the backs.
    items.write_text(
        "# fronts\nsun+fish\nstar+tree\nhouse+drop\n# backs\nkey+moon\nheart+bell\numbrella+crown\n"
    )
    status, out, err = _run(
        capsys, "party", "--video", str(video), "--picmix", "--items", str(items), "--still",
        "0.2", "--sheet", str(tmp_path / "sheet.png"),
    )  # fmt: skip
    assert status == 0, err
    for k in (1, 2, 3):
        assert f"captured card-00{k} (front)" in out and f"captured card-00{k} (back)" in out
    faces = decks / "picmix" / "party-faces"
    names = ["sun+fish", "star+tree", "house+drop", "key+moon", "heart+bell", "umbrella+crown"]
    assert sorted(p.stem for p in faces.glob("*.png")) == sorted(names)
    (argv,) = handed
    assert argv[0] == "party" and [Path(p).stem for p in argv[1:]] == names
    for path in argv[1:]:
        image = cv2.imread(path)
        assert image is not None and image.shape[1] > image.shape[0]  # landscape faces


def test_picmix_faces_are_kept_when_the_items_cannot_be_learnt(
    tmp_path: Path,
    decks: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pictable.commands import picmix_deck

    def fails(argv: list[str]) -> int:
        raise RuntimeError("no model 'x' in models/manifest.json")

    monkeypatch.setattr(picmix_deck, "run_register", fails)
    cards = ("picmix-red-1", "picmix-red-2")
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "1.png"), layout(cards, landscape=True))
    status, _, err = _run(capsys, "party", "--folder", str(photos), "--picmix")
    assert status == 1
    assert "the faces are kept in" in err and "deck register picmix party" in err
    kept = sorted(p.name for p in (decks / "picmix" / "party-faces").glob("*.png"))
    assert kept == ["card-001-front.png", "card-002-front.png"]


def _junk(path: Path) -> Path:
    path.write_bytes(b"this is not a video" * 100)
    return path


def _folder(path: Path) -> Path:
    path.mkdir()
    (path / "readme.txt").write_text("no photos here")
    return path


def test_a_deck_that_cannot_be_added_to_is_said_before_any_card_is_taken(
    tmp_path: Path, decks: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (decks / "mine").mkdir(parents=True)
    (decks / "mine" / "deck.json").write_text("{not json")
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "1.png"), layout(A))
    status, out, err = _run(capsys, "mine", "--folder", str(photos))
    assert status == 2
    assert "cannot read the deck file" in err and "captured" not in out
