"""QR payload bytes to text, the same way for every decoder.

A QR payload is input from the world: it is returned as data (a ``str``), never
interpreted. Byte-mode payloads carry no character set unless an ECI says so, so decoders
guess; zxing-cpp applies the ECI and its own guess itself, and for the other decoders the
bytes are decoded here:

1. UTF-8 (what almost every generator writes today);
2. Shift-JIS (Japanese codes commonly carry it without an ECI; ZXing's ground truth has
   them), when the result has no control characters but tab, CR and LF (binary data often
   decodes as Shift-JIS too: a lone byte 0xA1..0xDF is a half-width katakana);
3. ISO-8859-1, the QR standard's default, which maps every byte to one character, so
   binary payloads come back losslessly (``text.encode("latin-1")`` gives the bytes back).
"""

from __future__ import annotations

_TEXT_CONTROLS = frozenset("\t\r\n")


def payload_text(data: bytes) -> str:
    """Text of a payload's raw bytes (never raises; see the module docstring for the order)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("shift_jis")
    except UnicodeDecodeError:
        pass
    else:
        if all(ch.isprintable() or ch in _TEXT_CONTROLS for ch in text):
            return text
    return data.decode("latin-1")


def latin1_transcoded_text(data: bytes) -> str:
    """Text of a payload that a decoder already transcoded from ISO-8859-1 to UTF-8.

    OpenCV's QR decoder assumes ISO-8859-1 for byte-mode payloads without an ECI and returns
    the result as UTF-8, so Shift-JIS and UTF-8 payloads come back as mojibake (``ﾃﾞ`` as
    ``ÃÞ``). Undoing that step gives the raw bytes back, which :func:`payload_text` decodes;
    text with characters above U+00FF was real text already and is kept.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return payload_text(data)
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        return text
    return payload_text(raw)
