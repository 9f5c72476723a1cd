"""The code reader: every QR code and square fiducial (ArUco, AprilTag) in a frame.

``decode_frame(frame)`` is stateless: a frame in, a tuple of :class:`Code` out, each printed
code once, whatever printed it. QR codes are read by zxing-cpp, and where a code was seen
but not read, again with preprocessing and by zbar, and fused (:mod:`vision.codes.qr`); a QR
text without an error-correction margin comes with ``verified`` False. Markers are matched
against a set of dictionaries in one pass (:mod:`vision.codes.aruco`). The payloads are data,
never interpreted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from vision.codes.aruco import (
    DEFAULT_DICTIONARIES,
    PREDEFINED,
    MarkerDictionary,
    candidates,
    detect_markers,
    load_dictionary,
    resolve_dictionaries,
)
from vision.codes.image import MAX_SIDE_PX, Grey, to_grey
from vision.codes.payload import payload_text
from vision.codes.qr import QrTrace, read_qr
from vision.codes.reading import Code, inside

__all__ = [
    "DEFAULT_DICTIONARIES",
    "MAX_SIDE_PX",
    "PREDEFINED",
    "Code",
    "MarkerDictionary",
    "decode_frame",
    "load_dictionary",
    "payload_text",
    "to_grey",
]

DictionarySpec = str | os.PathLike[str] | MarkerDictionary


def decode_frame(
    frame: np.ndarray,
    dictionaries: Sequence[DictionarySpec] | None = None,
    *,
    qr: bool = True,
    fallbacks: bool = True,
    trace: QrTrace | None = None,
) -> tuple[Code, ...]:
    """Every QR code and marker in ``frame``, each once: QR codes top to bottom, then markers
    by dictionary (in the order asked) and id.

    ``frame``: an image array, normally (H, W, 3) uint8 BGR; grey, BGRA, 16-bit, float and
    bool images are converted as :func:`vision.codes.image.to_grey` documents, and frames
    larger than :data:`MAX_SIDE_PX` are shrunk for reading (corners are still in frame
    pixels). ``dictionaries``: marker dictionaries to look for, by name, dictionary file
    path or :class:`MarkerDictionary` (None: :data:`DEFAULT_DICTIONARIES`; empty: no
    markers). ``qr``: whether to read QR codes. ``fallbacks``: whether QR codes seen but
    not read by the fast pass (zxing-cpp) are looked at again with preprocessing and other
    decoders (nothing is run when every code seen was read; some 10 ms for each code seen
    that will not decode, such as one half covered by a hand; live video may prefer False
    and the next frame). ``trace``: collects the QR steps run.

    Raises ``ValueError`` when ``frame`` is not an image (not an array, no pixels, wrong
    number of dimensions or channels, non-numeric dtype) or a dictionary is unknown.
    """
    markers = resolve_dictionaries(dictionaries)
    grey = to_grey(frame)
    # One square search serves both readers: the markers' candidates, and QR finder patterns
    # that no read explains (codes seen but not read, which the QR fallbacks look at).
    squares = candidates(grey.pixels) if markers else None
    codes: list[Code] = []
    if qr:
        codes.extend(
            _to_frame(c, grey)
            for c in read_qr(grey.pixels, trace, fallbacks=fallbacks, squares=squares)
        )
    if markers:
        found = [_to_frame(c, grey) for c in detect_markers(grey.pixels, markers, quads=squares)]
        # A marker inside a QR code that was read is part of the QR code's pattern.
        codes.extend(
            m
            for m in found
            if not any(c.kind == "qr" and inside(m.center_px, c.corners_px) for c in codes)
        )
    return tuple(codes)


def _to_frame(code: Code, grey: Grey) -> Code:
    """``code`` with its corners scaled from the working image to frame pixels."""
    if grey.scale_xy == (1.0, 1.0):
        return code
    corners = code.corners_px * np.asarray(grey.scale_xy, np.float32)
    return Code(
        kind=code.kind,
        corners_px=corners,
        text=code.text,
        payload=code.payload,
        id=code.id,
        dictionary=code.dictionary,
        decoders=code.decoders,
        dissent=code.dissent,
        verified=code.verified,
    )
