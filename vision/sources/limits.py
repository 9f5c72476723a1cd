"""How large an image pictable decodes, checked on the file's header before any pixel is.

A 20,000 x 20,000 picture compresses to a few hundred kilobytes and decodes to 1.2 GB of
BGR pixels (more for 16 bits or alpha), so the byte size of a file says nothing about the
memory it takes: the header's width and height do. PNG and JPEG headers (what cameras,
phones and ``pictable kit export`` write) are read here directly; other formats through
Pillow, which also reads only their header. A file whose header neither can read is left to
OpenCV, and its decoded size is checked afterwards (``too_large_decoded``).
"""

from __future__ import annotations

import os
import warnings
from typing import TypeAlias

import numpy as np

#: An image file's bytes: read whole (``bytes``) or as numpy reads them (uint8, 1-D).
FileBytes: TypeAlias = bytes | bytearray | memoryview | np.ndarray

#: The largest image decoded, in pixels (40 megapixels: 7,300 x 5,480, about 120 MB as
#: 8-bit BGR). The readers work on a table seen by a webcam; photos of cards need far less.
MAX_IMAGE_PIXELS = 40_000_000

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# JPEG start-of-frame markers (SOF0-SOF15) carry the size; C4 (DHT), C8 (JPG) and CC (DAC)
# share their range but are not frames.
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers that stand alone, without a length: TEM and RST0-RST7 (SOI is read first).
_JPEG_BARE = frozenset({0x01, *range(0xD0, 0xD8)})


def _png_size_wh(data: memoryview) -> tuple[int, int] | None:
    """PNG: the IHDR chunk comes first, width and height big-endian at bytes 16 and 20."""
    if len(data) < 24 or bytes(data[:8]) != _PNG_MAGIC or bytes(data[12:16]) != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _jpeg_size_wh(data: memoryview) -> tuple[int, int] | None:
    """JPEG: walk the marker segments from SOI to the first start-of-frame, skipping the
    others (EXIF and its thumbnail included) by their lengths."""
    n = len(data)
    if n < 4 or data[0] != 0xFF or data[1] != 0xD8:
        return None
    i = 2
    while i < n:
        if data[i] != 0xFF:
            return None  # not at a marker: a damaged header
        while i < n and data[i] == 0xFF:  # fill bytes
            i += 1
        if i >= n:
            return None
        marker = data[i]
        i += 1
        if marker in _JPEG_BARE:
            continue
        if marker in (0xD9, 0xDA) or i + 2 > n:  # the image ends or its scan starts: no frame
            return None
        length = int.from_bytes(data[i : i + 2], "big")
        if length < 2:
            return None
        if marker in _JPEG_SOF:
            if i + 7 > n:
                return None
            height = int.from_bytes(data[i + 3 : i + 5], "big")
            width = int.from_bytes(data[i + 5 : i + 7], "big")
            # A height of 0 is set later in the stream (a DNL marker): not known here.
            return (width, height) if height else None
        i += length
    return None


def _pillow_size_wh(path: str | os.PathLike[str]) -> tuple[int, int] | str | None:
    """The size Pillow reads from the header of the file at ``path`` (it decodes nothing
    until asked), the refusal when Pillow itself finds it too large to open, or None."""
    import struct

    from PIL import Image

    try:
        # Pillow warns above its own bound (89 megapixels), which is above ours: the size
        # it reads is what matters here, the warning would only be noise.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as im:
                width, height = im.size
    except Image.DecompressionBombError:
        # Pillow refuses above twice its bound, without telling the size: say what is known.
        bound = 2 * (Image.MAX_IMAGE_PIXELS or MAX_IMAGE_PIXELS)
        return refusal(None, at_least=bound)
    except (OSError, ValueError, SyntaxError, EOFError, IndexError, struct.error):
        return None  # not a format Pillow knows, or a header it cannot read: OpenCV decides
    return int(width), int(height)


def _size_wh(data: FileBytes, path: str | os.PathLike[str] | None) -> tuple[int, int] | str | None:
    """The header's (width, height), Pillow's own refusal, or None (not known)."""
    buffer = np.ascontiguousarray(data).data if isinstance(data, np.ndarray) else data
    view = memoryview(buffer).cast("B")  # no copy: the header is a few bytes of the file
    size = _png_size_wh(view) or _jpeg_size_wh(view)
    if size is None and path is not None:
        return _pillow_size_wh(path)
    return size


def header_size_wh(
    data: FileBytes, path: str | os.PathLike[str] | None = None
) -> tuple[int, int] | None:
    """(width, height) in pixels as the image file's header gives them, or None when it cannot
    be read from it. ``data``: the file's bytes (not copied); ``path``: the file, for formats
    other than PNG and JPEG (read by Pillow)."""
    size = _size_wh(data, path)
    return size if isinstance(size, tuple) else None


def refusal(size_wh: tuple[int, int] | None, *, at_least: int = MAX_IMAGE_PIXELS) -> str:
    """The one-line refusal of an image of ``size_wh`` pixels (None: its size unknown, only
    that it is over ``at_least`` pixels)."""
    limit = MAX_IMAGE_PIXELS / 1e6
    if size_wh is None:
        return (
            f"image too large to read: over {at_least / 1e6:.0f} megapixels "
            f"(at most {limit:g} are read)"
        )
    width, height = size_wh
    return (
        f"image too large to read: {width} x {height} pixels ({width * height / 1e6:.1f} "
        f"megapixels; at most {limit:g} are read)"
    )


def too_large(data: FileBytes, path: str | os.PathLike[str] | None = None) -> str | None:
    """Why the image file (its bytes ``data``, and its ``path`` for formats read by Pillow)
    must not be decoded, from its header, or None when its size is within
    ``MAX_IMAGE_PIXELS`` or not known before decoding."""
    size = _size_wh(data, path)
    if isinstance(size, str):
        return size
    if size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        return refusal(size)
    return None


def too_large_decoded(shape: tuple[int, ...]) -> str | None:
    """``too_large`` for an image already decoded (a format whose header was not read):
    ``shape`` is the array's, (H, W) or (H, W, C)."""
    height, width = int(shape[0]), int(shape[1])
    return refusal((width, height)) if width * height > MAX_IMAGE_PIXELS else None
