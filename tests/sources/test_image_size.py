"""Images over 40 megapixels are refused from their header, before a pixel is decoded
(``vision.sources.limits``), by the photo commands and the image-folder source alike: a
20,000 x 20,000 picture is a few hundred kilobytes on disk and 1-4 GB decoded."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from pictable.commands import images as image_files
from vision.sources import ImageFolderSource
from vision.sources.limits import MAX_IMAGE_PIXELS, header_size_wh, too_large

ROOT = Path(__file__).resolve().parents[2]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def huge_png(path: Path, width: int = 20_000, height: int = 20_000) -> Path:
    """A valid, all-black 1-bit PNG of ``width`` x ``height``: tens of kilobytes on disk,
    ``width * height`` bytes once decoded to 8 bits. Written row by row (no big buffer)."""
    packer = zlib.compressobj(9)
    row = b"\x00" * (1 + (width + 7) // 8)  # filter byte, then the packed bits
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", body)
    path.write_bytes(data + _chunk(b"IEND", b""))
    return path


def jpeg_claiming(path: Path, width: int, height: int) -> Path:
    """A small real JPEG (with an EXIF segment before its frame) whose frame header is then
    made to claim ``width`` x ``height``: what the header says is all the check reads."""
    small = Image.new("RGB", (16, 8), (200, 30, 30))
    exif = Image.Exif()
    exif[0x0112] = 1  # orientation: an APP1 segment to walk past
    small.save(path, "JPEG", exif=exif.tobytes(), progressive=True)  # SOF2
    data = bytearray(path.read_bytes())
    sof = data.index(b"\xff\xc2")
    struct.pack_into(">HH", data, sof + 5, height, width)
    path.write_bytes(bytes(data))
    return path


def test_header_sizes(tmp_path: Path) -> None:
    png = tmp_path / "a.png"
    cv2.imwrite(str(png), np.zeros((30, 40, 3), np.uint8))
    jpg = tmp_path / "a.jpg"
    cv2.imwrite(str(jpg), np.zeros((30, 40, 3), np.uint8))
    webp = tmp_path / "a.webp"
    Image.new("RGB", (41, 31)).save(webp)
    assert header_size_wh(png.read_bytes()) == (40, 30)
    assert header_size_wh(np.fromfile(jpg, np.uint8)) == (40, 30)  # numpy's bytes, not copied
    assert header_size_wh(jpeg_claiming(tmp_path / "b.jpg", 123, 45).read_bytes()) == (123, 45)
    assert header_size_wh(webp.read_bytes()) is None  # not read without the file: no Pillow
    assert header_size_wh(webp.read_bytes(), webp) == (41, 31)
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n not really")
    assert header_size_wh(junk.read_bytes(), junk) is None


def test_the_refusal_is_one_line_with_the_size(tmp_path: Path) -> None:
    path = huge_png(tmp_path / "huge.png")
    assert path.stat().st_size < 1_000_000
    reason = too_large(path.read_bytes(), path)
    assert reason == (
        "image too large to read: 20000 x 20000 pixels (400.0 megapixels; at most 40 are read)"
    )
    assert too_large(huge_png(tmp_path / "edge.png", 8000, 5000).read_bytes()) is None
    assert MAX_IMAGE_PIXELS == 8000 * 5000


@pytest.mark.parametrize("kind", ["png", "jpeg", "webp"])
def test_read_image_refuses_before_decoding(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not a pixel decoded: OpenCV is never asked."""
    if kind == "png":
        path = huge_png(tmp_path / "huge.png")
    elif kind == "jpeg":
        path = jpeg_claiming(tmp_path / "huge.jpg", 20_000, 20_000)
    else:
        path = tmp_path / "huge.webp"
        Image.new("L", (6_500, 6_500)).save(path, lossless=True)

    def no_decoding(*args: object) -> None:
        raise AssertionError("the pixels were decoded")

    monkeypatch.setattr(cv2, "imdecode", no_decoding)
    image, problem = image_files.open_image(str(path), bgr=True)
    assert image is None
    assert problem is not None and problem.startswith("image too large to read: ")


def test_the_folder_source_skips_a_huge_image(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    huge_png(folder / "f1.png")
    cv2.imwrite(str(folder / "f2.png"), np.full((12, 16, 3), 7, np.uint8))
    with ImageFolderSource(folder, fps=10) as source:
        frame = source.read()
        assert frame is not None and frame.index == 1 and frame.image.shape == (12, 16, 3)
        assert source.read() is None
        assert [p.name for p in source.unreadable] == ["f1.png"]


def test_decode_gives_an_error_entry_and_reads_the_others(tmp_path: Path) -> None:
    """Section 3: an "error" entry for the huge image, the other image read, exit 1; run as
    the real command, so memory would show (the old reader decoded all 400 megapixels)."""
    huge = huge_png(tmp_path / "huge.png")
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), np.full((40, 50, 3), 255, np.uint8))
    proc = subprocess.run(
        [sys.executable, "-m", "pictable", "decode", str(huge), str(small), "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    entries = json.loads(proc.stdout)["images"]
    assert entries[0] == {
        "image": str(huge),
        "error": "image too large to read: 20000 x 20000 pixels "
        "(400.0 megapixels; at most 40 are read)",
    }
    assert entries[1] == {"image": str(small), "codes": []}


def test_calibration_images_are_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibration.intrinsics import read_image
    from calibration.result import Failure

    def no_decoding(*args: object) -> None:
        raise AssertionError("the pixels were decoded")

    path = huge_png(tmp_path / "huge.png")
    monkeypatch.setattr(cv2, "imdecode", no_decoding)
    found = read_image(str(path))
    assert isinstance(found, Failure)
    assert found.reason.startswith("image too large to read: 20000 x 20000 pixels")
