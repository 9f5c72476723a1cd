"""``pictable identify IMAGE... [--deck NAME] [--json] [--annotate DIR] [--calibration FILE]``:
the cards in photos, by their printed codes and by their pictures (docs/formats.md section 3)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pictable.commands.images import (
    annotation_folder,
    annotation_path,
    kernels_by_photo,
    open_image,
    write_png,
)

if TYPE_CHECKING:
    import numpy as np

    from calibration.files import CalibrationFile
    from vision.identify import FrameCards, ReferenceDeck

HELP = "identify the cards in photos (printed codes, registered pictures)"
DESCRIPTION = """\
Names every card in each image. Cards of the printable edition are named by their
printed codes (ArUco markers and QR codes, front or back: so face up or face down);
with --deck, cards are also named by their pictures against a deck (a built-in one:
pickpic, picflip, picasso, picmix; or one made with `pictable deck register`).
A card that is not in the deck, or too covered to tell, gets no id: it is listed
under "unknown" with its corners.

Output: one block per image, or with --json one JSON object (docs/formats.md section 3):
  {"images": [{"image": PATH, "cards": [{"card": ID, "corners": [[x, y] x 4],
   "face": "up"|"down", "method": "code"|"features", "confidence": 0..1,
   "side": "front"|"back", "zone": SEAT|null, "evidence": [...]}],
   "unknown": [{"corners": [[x, y] x 4], "outline": 0..1, "zone": SEAT|null}]}]}
Corners are in image pixels: the card face's top-left, top-right, bottom-right,
bottom-left as printed. With --calibration (a file from `pictable calibrate`, with
seats), each card gets the seat zone it lies in when the play-area markers are seen.
An image that cannot be read gives {"image": PATH, "error": "..."}; the others are
still read, and the exit status is 1. A deck or calibration that cannot be used
stops the command with status 2.
"""
EPILOG = """\
examples:
  pictable identify table.jpg
  pictable identify table.jpg --deck pickpic --json
  pictable identify table.jpg --game pickpic
  pictable deck register mine photos/*.jpg && pictable identify shot.jpg --deck mine
  pictable identify shots/*.png --deck pickpic --calibration table.json --annotate out/
"""


#: vision.kit.GAMES, written out so that ``pictable --help`` does not import the kit.
GAMES_SHOWN = ("pickpic", "picflip", "picasso", "picmix")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "identify",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (PNG, JPEG, ...)")
    p.add_argument("--deck", metavar="NAME", help="identify pictures against this deck too")
    p.add_argument(
        "--decks",
        metavar="DIR",
        help="the decks folder (default: $PICTABLE_DECKS or ~/.local/share/pictable/decks)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (docs/formats.md 3)")
    p.add_argument(
        "--annotate",
        metavar="DIR",
        help="write each image with its cards outlined to DIR/<name>.cards.png",
    )
    p.add_argument("--calibration", metavar="FILE", help="calibration file with seats: seat zones")
    p.add_argument(
        "--codes",
        choices=("fast", "full", "none"),
        default="fast",
        help="code reader: fast (default), full (the fast reader, then every decoder "
        "and fallback: every code fast reads and more; slower, for photos), none "
        "(pictures only)",
    )
    p.add_argument("--no-pictures", action="store_true", help="do not match pictures (codes only)")
    p.add_argument(
        "--game",
        choices=GAMES_SHOWN,
        help="the game whose cards are on the table: markers of other games' cards are "
        "ignored (a pattern that happens to match one), and the game's own markers are "
        "also read when a cell is unclear, where the card's picture agrees",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vision.identify import DeckError, open_deck
    from vision.identify.threads import single_thread

    single_thread()
    deck: ReferenceDeck | None = None
    if args.deck:
        try:
            deck = open_deck(args.deck, args.decks)
        except DeckError as exc:
            print(f"pictable identify: {exc}", file=sys.stderr)
            return 2
    calibration: CalibrationFile | None = None
    if args.calibration:
        from calibration.files import load
        from calibration.result import CalibrationError

        try:
            calibration = load(args.calibration)
        except CalibrationError as exc:
            print(f"pictable identify: {exc}", file=sys.stderr)
            return 2
    try:
        annotate_dir = annotation_folder(args.annotate)
    except ValueError as exc:
        print(f"pictable identify: {exc}", file=sys.stderr)
        return 2
    codes = None if args.codes == "none" else args.codes
    results: list[dict[str, Any]] = []
    status = 0
    written: set[str] = set()
    for path in kernels_by_photo(args.images):
        entry, found, image = _identify_one(
            path, deck, codes, not args.no_pictures, calibration, args.game
        )
        results.append(entry)
        if "error" in entry:
            status = 1
        elif annotate_dir is not None and image is not None and found is not None:
            problem = _write_annotation(annotate_dir, path, image, found, written)
            if problem:
                print(f"pictable identify: {_shown(path)}: {problem}", file=sys.stderr)
                status = 1
        if not args.json:
            _print_entry(entry)
    if args.json:
        print(json.dumps({"images": results}, ensure_ascii=True))
    return status


def _identify_one(
    path: str,
    deck: ReferenceDeck | None,
    codes: str | None,
    pictures: bool,
    calibration: CalibrationFile | None,
    game: str | None = None,
) -> tuple[dict[str, Any], FrameCards | None, np.ndarray | None]:
    from vision.identify import identify_frame
    from vision.identify.sink import frame_json

    image, problem = open_image(path)
    if image is None:
        return {"image": path, "error": problem}, None, None
    try:
        image = _eight_bit(image)
        found = identify_frame(
            image,
            deck,
            codes=codes,  # type: ignore[arg-type]
            features=pictures,
            calibration=calibration,
            precise=True,
            game=game,
        )
    except ValueError as exc:
        return {"image": path, "error": f"not an image: {exc}"}, None, None
    except Exception as exc:  # a reader bug on one image must not end the run
        return (
            {"image": path, "error": f"identification failed: {type(exc).__name__}: {exc}"},
            None,
            None,
        )
    return frame_json(path, found), found, image


def _eight_bit(image: np.ndarray) -> np.ndarray:
    """16-bit or float images scaled to 8 bits (what the reader takes); others unchanged."""
    import numpy as np

    if image.dtype == np.uint8:
        return image
    if image.dtype == np.uint16:
        return (image >> 8).astype(np.uint8)
    if np.issubdtype(image.dtype, np.floating):
        return np.clip(np.nan_to_num(image) * 255.0, 0, 255).astype(np.uint8)
    raise ValueError(f"unsupported pixel type {image.dtype}")


def _write_annotation(
    folder: Path, path: str, image: np.ndarray, found: FrameCards, written: set[str]
) -> str | None:
    from vision.identify import check_frame
    from vision.identify.draw import annotate

    try:
        bgr, _ = check_frame(image)
    except ValueError as exc:
        return f"cannot annotate: {exc}"
    return write_png(annotation_path(folder, path, ".cards.png", written), annotate(bgr, found))


def _shown(path: str) -> str:
    return path.encode("utf-8", "backslashreplace").decode("utf-8")


def _print_entry(entry: dict[str, Any]) -> None:
    name = _shown(entry["image"])
    if "error" in entry:
        print(f"{name}: error: {entry['error']}")
        return
    cards, unknown = entry["cards"], entry["unknown"]
    if not cards and not unknown:
        print(f"{name}: no cards")
    else:
        print(
            f"{name}: {len(cards)} card{'s' if len(cards) != 1 else ''}"
            + (f", {len(unknown)} unknown" if unknown else "")
        )
    for c in cards:
        x, y = (sum(p[i] for p in c["corners"]) / 4 for i in (0, 1))
        zone = f" zone {c['zone']}" if c["zone"] else ""
        print(
            f"  {c['card']:<20} face {c['face']:<4} by {c['method']:<8} "
            f"{c['confidence']:.2f} at ({x:.0f}, {y:.0f}){zone}"
        )
    for u in unknown:
        x, y = (sum(p[i] for p in u["corners"]) / 4 for i in (0, 1))
        print(f"  {'(unknown card)':<20} at ({x:.0f}, {y:.0f})")
    for w in entry.get("warnings", []):
        print(f"  warning: {w}")
