"""The photo commands' image files (``pictable.commands.images``): what is read, the
reasons given for what is not, and how annotated copies are named and written."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from pictable.commands.images import (
    annotation_folder,
    annotation_path,
    open_image,
    read_image,
    write_png,
)


def test_colour_alpha_and_16_bit_images_are_read(tmp_path: Path) -> None:
    rgba = np.zeros((20, 30, 4), np.uint8)
    rgba[..., 1] = 200
    rgba[..., 3] = 255
    cv2.imwrite(str(tmp_path / "alpha.png"), rgba)
    deep = np.full((20, 30), 40000, np.uint16)
    cv2.imwrite(str(tmp_path / "deep.png"), deep)
    assert read_image(str(tmp_path / "alpha.png")).shape == (20, 30, 4)  # as stored
    assert read_image(str(tmp_path / "deep.png")).dtype == np.uint16
    bgr = read_image(str(tmp_path / "alpha.png"), bgr=True)
    assert bgr.shape == (20, 30, 3) and bgr.dtype == np.uint8 and bgr[0, 0, 1] == 200
    assert read_image(str(tmp_path / "deep.png"), bgr=True).shape == (20, 30, 3)


def test_a_non_ascii_path_is_read(tmp_path: Path) -> None:
    path = tmp_path / "tablée à 4.png"
    assert write_png(path, np.full((8, 8, 3), 99, np.uint8)) is None
    assert read_image(str(path))[0, 0].tolist() == [99, 99, 99]


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b""), "empty file"),
        (lambda p: p.write_bytes(b"no picture here"), "not an image file that OpenCV can read"),
        (lambda p: None, "cannot read file"),
    ],
)
def test_what_cannot_be_read_says_why(tmp_path: Path, make: object, reason: str) -> None:
    path = tmp_path / "x.png"
    make(path)  # type: ignore[operator]
    with pytest.raises(ValueError, match=reason):
        read_image(str(path))
    image, problem = open_image(str(path), bgr=True)
    assert image is None and problem is not None and reason in problem


def test_a_huge_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pictable.commands.images as images

    path = tmp_path / "big.png"
    path.write_bytes(b"\0" * 2000)
    monkeypatch.setattr(images, "MAX_FILE_BYTES", 1000)
    assert open_image(str(path)) == (None, "file too large (2000 bytes, limit 1000)")


def test_annotated_copies_are_numbered_not_overwritten(tmp_path: Path) -> None:
    written: set[str] = set()
    names = [
        annotation_path(tmp_path, p, ".cards.png", written).name
        for p in ("a/shot.jpg", "b/shot.png", "shot", "c/other.jpg", "")
    ]
    assert names == [
        "shot.cards.png",
        "shot-2.cards.png",
        "shot-3.cards.png",
        "other.cards.png",
        "image.cards.png",
    ]


def test_a_copy_that_cannot_be_written_says_why(tmp_path: Path) -> None:
    problem = write_png(tmp_path / "no" / "such" / "x.png", np.zeros((4, 4, 3), np.uint8))
    assert problem is not None and problem.startswith("cannot write")


def test_the_annotate_folder_is_made_or_refused(tmp_path: Path) -> None:
    assert annotation_folder(None) is None
    made = annotation_folder(str(tmp_path / "new" / "dir"))
    assert made is not None and made.is_dir()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="cannot create"):
        annotation_folder(str(tmp_path / "file" / "sub"))
