"""``pictable decode IMAGE... [--json] [--annotate DIR] [--dictionaries LIST]``: every printed
code in photos (docs/formats.md section 3)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pictable.commands.images import annotation_folder, annotation_path, open_image, write_png

if TYPE_CHECKING:
    import numpy as np

    from vision.codes import Code, MarkerDictionary

HELP = "read every QR code and ArUco/AprilTag marker in photos"
DESCRIPTION = """\
Reads every printed code in each image, whatever printed it: QR codes (zxing-cpp,
zbar and OpenCV, with preprocessing fallbacks; each code reported once) and square
markers (ArUco and AprilTag dictionaries). Payloads are shown as data, never acted on.

Output: one block per image, or with --json one JSON object (docs/formats.md section 3):
  {"images": [{"image": PATH, "codes": [{"kind": "qr"|"aruco", "text": str|null,
   "id": int|null, "dictionary": str|null, "corners": [[x, y] x 4]}]}]}
Corners are in image pixels, in the code's own order: its top-left, top-right,
bottom-right, bottom-left as printed. A QR text read without an error-correction
margin (it may be a damaged code corrected into another payload) also has
"unverified": true. An image that cannot be read gives
{"image": PATH, "error": "..."}; the others are still read, and the exit status is 1.

Marker dictionaries (--dictionaries, comma-separated, may be repeated): predefined
names such as DICT_4X4_50 (the table kit's), DICT_5X5_1000, DICT_6X6_250, DICT_7X7_1000,
DICT_ARUCO_ORIGINAL, DICT_APRILTAG_36h11 (case-insensitive, DICT_ optional); the path of
an OpenCV dictionary file (.yml, as written by cv2.aruco.Dictionary.writeDictionary);
`default` for the default set; `none` to skip markers.
Default: {defaults}.
"""
EPILOG = """\
examples:
  pictable decode photo.jpg
  pictable decode shots/*.png --json > codes.json
  pictable decode board.jpg --dictionaries DICT_6X6_250,my_dict.yml --annotate out/
"""

#: vision.codes.DEFAULT_DICTIONARIES, written out so that ``pictable --help`` does not import
#: OpenCV and the decoders (a test keeps the two equal).
DEFAULTS_SHOWN = ("DICT_4X4_50", "DICT_5X5_250", "DICT_6X6_250", "DICT_7X7_250",
                  "DICT_APRILTAG_36h11")  # fmt: skip


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "decode",
        help=HELP,
        description=DESCRIPTION.replace("{defaults}", ", ".join(DEFAULTS_SHOWN)),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (PNG, JPEG, ...)")
    p.add_argument("--json", action="store_true", help="print one JSON object (docs/formats.md 3)")
    p.add_argument(
        "--annotate",
        metavar="DIR",
        help="write each image with its codes outlined and labelled to DIR/<name>.codes.png",
    )
    p.add_argument(
        "--dictionaries",
        action="append",
        metavar="LIST",
        help="marker dictionaries: names or .yml files, comma-separated; "
        "'default', or 'none' for no markers",
    )
    p.add_argument("--no-qr", action="store_true", help="do not look for QR codes")
    p.set_defaults(func=run)


def parse_dictionaries(values: list[str] | None) -> tuple[MarkerDictionary, ...]:
    """The ``--dictionaries`` options as loaded dictionaries (``ValueError`` if unknown)."""
    from vision.codes.aruco import DEFAULT_DICTIONARIES, load_dictionary

    if not values:
        values = ["default"]
    names: list[str] = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item or item.lower() == "none":
                continue
            if item.lower() == "default":
                names.extend(DEFAULT_DICTIONARIES)
            else:
                names.append(item)
    loaded: dict[str, MarkerDictionary] = {}
    for name in names:
        d = load_dictionary(name)
        loaded.setdefault(d.name, d)
    return tuple(loaded.values())


def code_json(code: Code) -> dict[str, Any]:
    """One code as its docs/formats.md section 3 entry (the only serialisation of a Code).
    ``"unverified": true`` is added, and only then, for a text without an error-correction
    margin (``Code.verified`` False)."""
    entry: dict[str, Any] = {
        "kind": code.kind,
        "text": code.text,
        "id": code.id,
        "dictionary": code.dictionary,
        "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in code.corners_px],
    }
    if not code.verified:
        entry["unverified"] = True
    return entry


def run(args: argparse.Namespace) -> int:
    try:
        dictionaries = parse_dictionaries(args.dictionaries)
    except ValueError as exc:
        print(f"pictable decode: {exc}", file=sys.stderr)
        return 2
    try:
        annotate_dir = annotation_folder(args.annotate)
    except ValueError as exc:
        print(f"pictable decode: {exc}", file=sys.stderr)
        return 2
    if hasattr(sys.stdout, "reconfigure"):  # never fail on a payload the terminal can't show
        sys.stdout.reconfigure(errors="backslashreplace")
    results: list[dict[str, Any]] = []
    status = 0
    written: set[str] = set()
    for path in args.images:
        entry, codes, image = _decode_one(path, dictionaries, not args.no_qr)
        results.append(entry)
        if "error" in entry:
            status = 1
        elif annotate_dir is not None and image is not None:
            problem = _write_annotation(annotate_dir, path, image, codes, written)
            if problem:
                print(f"pictable decode: {_shown(path)}: {problem}", file=sys.stderr)
                status = 1
        if not args.json:
            _print_entry(entry, codes)
    if args.json:
        print(json.dumps({"images": results}, ensure_ascii=True))
    return status


def _decode_one(
    path: str, dictionaries: tuple[MarkerDictionary, ...], qr: bool
) -> tuple[dict[str, Any], tuple[Code, ...], np.ndarray | None]:
    """(JSON entry, codes, image) for one file; the entry carries "error" on failure."""
    from vision.codes import decode_frame

    image, problem = open_image(path)
    if image is None:
        return {"image": path, "error": problem}, (), None
    try:
        codes = decode_frame(image, dictionaries, qr=qr)
    except ValueError as exc:
        return {"image": path, "error": f"not an image: {exc}"}, (), None
    except Exception as exc:  # a decoder bug on one image must not end the run
        return {"image": path, "error": f"decoding failed: {type(exc).__name__}: {exc}"}, (), None
    return {"image": path, "codes": [code_json(c) for c in codes]}, codes, image


def _write_annotation(
    folder: Path, path: str, image: np.ndarray, codes: tuple[Code, ...], written: set[str]
) -> str | None:
    """Write the annotated image; a problem description, or None."""
    from vision.codes.draw import annotate

    return write_png(annotation_path(folder, path, ".codes.png", written), annotate(image, codes))


def printable(text: str, limit: int = 72) -> str:
    """``text`` safe for a terminal: control characters (and ESC sequences) escaped, never
    sent raw; long text cut, with its length."""
    escaped = "".join(ch if ch.isprintable() else _escape(ch) for ch in text)
    if len(escaped) > limit:
        return f"{escaped[: limit - 1]}… ({len(text)} chars)"
    return escaped


def _escape(ch: str) -> str:
    special = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if ch in special:
        return special[ch]
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def _shown(path: str) -> str:
    """A path for display (undecodable file-name bytes escaped)."""
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def _print_entry(entry: dict[str, Any], codes: tuple[Code, ...]) -> None:
    name = _shown(entry["image"])
    if "error" in entry:
        print(f"{name}: error: {entry['error']}")
        return
    if not codes:
        print(f"{name}: no codes")
        return
    print(f"{name}: {len(codes)} code{'s' if len(codes) != 1 else ''}")
    for c in codes:
        corners = " ".join(f"({x:.0f},{y:.0f})" for x, y in c.corners_px)
        if c.kind == "qr":
            what = f'qr     "{printable(c.text or "")}"'
            if not c.verified:
                what += "  (unverified: no error-correction margin)"
        else:
            what = f"aruco  {c.dictionary} id {c.id}"
        print(f"  {what}\n         at {corners}")
