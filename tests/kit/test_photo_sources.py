"""The kit's photos are cut from scikit-image's sample images, read with OpenCV from its data
folder: the very pixels of ``skimage.data``'s loaders, without importing the image-reading
libraries those use (a live process's memory)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from vision.kit import photos


@pytest.mark.parametrize("name", sorted(photos.SOURCE_FILES))
def test_a_source_read_from_its_file_is_what_skimage_loads(name: str) -> None:
    from skimage import data

    loaded = getattr(data, "stereo_motorcycle" if name == "motorcycle" else name)()
    loaded = np.asarray(loaded[0] if name == "motorcycle" else loaded)
    if loaded.ndim == 2:
        loaded = np.repeat(loaded[..., None], 3, axis=2)
    ours = photos._read_source_file(name)
    assert ours is not None
    if ours.ndim == 2:
        ours = np.repeat(ours[..., None], 3, axis=2)
    np.testing.assert_array_equal(ours[..., :3], loaded[..., :3])


def test_every_source_of_the_kit_has_its_file() -> None:
    used = {spec.source for spec in photos.PHOTO_SPECS if spec.source != "landscape"}
    assert used <= set(photos.SOURCE_FILES)


def test_a_png_chunk_is_dropped_and_anything_else_left_alone() -> None:
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data).to_bytes(4, "big")
        return len(data).to_bytes(4, "big") + kind + data + crc

    sig = b"\x89PNG\r\n\x1a\n"
    png = sig + chunk(b"IHDR", b"x" * 13) + chunk(b"iCCP", b"profile") + chunk(b"IEND", b"")
    assert photos._without_png_chunk(png, b"iCCP") == sig + chunk(b"IHDR", b"x" * 13) + chunk(
        b"IEND", b""
    )
    assert photos._without_png_chunk(b"not a png", b"iCCP") == b"not a png"
    assert photos._without_png_chunk(png[:-3], b"iCCP") == png[:-3]  # cut short: unchanged


def test_rendering_the_kit_imports_no_image_reading_library() -> None:
    code = (
        "import sys\n"
        "from vision.kit.render import render_face\n"
        "from vision.kit.decks import load_deck\n"
        "for c in load_deck('pickpic').cards[:40]: render_face(c.id, 'front', 4.0)\n"
        "print(sorted(m for m in ('imageio', 'tifffile') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert "libpng warning" not in out.stderr
