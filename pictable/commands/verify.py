"""``pictable verify picmix``: verify "Picmix!" claims in photos, a video or the live camera
(docs/formats.md, sections 1 and 3)."""

from __future__ import annotations

import argparse
import json
import sys
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

HELP = "verify Picmix claims: the objective, the items showing, the verdict"
DESCRIPTION = """\
Photos (IMAGE...): each shows the objective card and one player's cards. For each it reads
the objective (by its printed code, or by reading its items when it has none), every item
showing on the player's cards, and the verdict:

  correct  exactly the objective's items show, none in doubt;
  wrong    an item outside the objective surely shows (extra), or an objective item
           surely does not (missing);
  unsure   an item is in doubt: near the visibility threshold, or not surely named.

Visibility rule: an item shows when at least 25% of its printed area is visible (not under
another card or a hand). Items estimated between 12% and 45% are in doubt, and named.

With --json: {"images": [{"image": PATH, "objective": {"card": ID, "items": [...]},
"visible": [...], "verdict": ..., "missing": [...], "extra": [...], "unsure": [...],
"reasons": [...], "objective_method": "code"|"items", "items": [...]}]} (docs/formats.md 3).
An image that cannot be read or verified gives {"image": PATH, "error": "..."}; the others
are still verified and the exit status is 1. When a hand or arm covers the objective card (or
all of the player's cards) the entry also has "verdict": "unsure" and "reasons": no camera
could judge that claim, and it is not guessed.

A sequence (--video FILE|DIR, or --camera N with --calibration FILE): the claim events of a
game (docs/formats.md 1) as JSON Lines on stdout: `start`, `reveal` when a new objective
appears, and `claim` (with the visible items) when a player's hand taps the objective card,
or, live, when the seat's key is pressed (1-9 for the seats in --players order).
"""
EPILOG = """\
examples:
  pictable verify picmix claim.jpg
  pictable verify picmix shots/*.png --json --annotate out/
  pictable verify picmix claim.jpg --deck mydeck      # a deck registered from photos
  pictable verify picmix --video game.mp4 --players Ana,Ben > game.jsonl
  pictable verify picmix --camera 0 --calibration table.json --players Ana,Ben,Cy
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``verify`` (with its game ``picmix``) to the CLI's subcommands."""
    p = sub.add_parser(
        "verify",
        help=HELP,
        description="Verify game claims from the camera. Games: picmix.",
    )
    games = p.add_subparsers(dest="game", metavar="GAME", title="games")
    q = games.add_parser(
        "picmix",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    q.add_argument("images", nargs="*", metavar="IMAGE", help="photos of claims (PNG, JPEG, ...)")
    q.add_argument("--json", action="store_true", help="print one JSON object (docs/formats.md 3)")
    q.add_argument(
        "--annotate",
        metavar="DIR",
        help="write each image with its items boxed and named and the verdict to "
        "DIR/<name>.picmix.png",
    )
    q.add_argument(
        "--deck",
        metavar="NAME",
        default="picmix",
        help="the deck: 'picmix' (the printable kit, default) or a deck registered with "
        "`pictable deck register picmix NAME IMAGES...`",
    )
    src = q.add_mutually_exclusive_group()
    src.add_argument("--video", metavar="FILE", help="a video file or a folder of frames")
    src.add_argument("--camera", metavar="N", help="a camera index (live)")
    q.add_argument("--calibration", metavar="FILE", help="calibration file with seats (live)")
    q.add_argument("--players", metavar="A,B", help="players in seating order, comma-separated")
    q.add_argument("--fps", type=float, default=None, help="frame rate of a folder of frames")
    q.set_defaults(func=run)
    p.set_defaults(func=lambda args: _no_game(p))


def _no_game(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2


def load_deck_arg(name: str) -> Any:
    """The ``--deck`` as an ``ItemDeck`` (``ValueError`` for an unknown name)."""
    from vision.picmix.decks import load_registered
    from vision.picmix.model import kit_deck, load_item_model

    if name == "picmix":
        return kit_deck(load_item_model())
    return load_registered(name)


def verify_one(path: str, deck: Any) -> tuple[dict[str, Any], Any, np.ndarray | None]:
    """(JSON entry, reading, image) for one file; the entry carries "error" on failure."""
    from vision.picmix.reader import verify_frame
    from vision.picmix.reading import PicmixFailure

    image, problem = open_image(path, bgr=True)
    if image is None:
        return {"image": path, "error": problem}, None, None
    try:
        reading = verify_frame(image, deck)
    except ValueError as exc:
        return {"image": path, "error": f"cannot verify: {exc}"}, None, image
    except Exception as exc:  # a reader bug on one image must not end the run
        return (
            {"image": path, "error": f"verification failed: {type(exc).__name__}: {exc}"},
            None,
            image,
        )
    entry: dict[str, Any] = {"image": path}
    entry.update(reading.to_json())
    if isinstance(reading, PicmixFailure):  # {"error"}, and "verdict": "unsure" when covered
        entry = {"image": path, **reading.to_json()}
    return entry, reading, image


def _print_entry(entry: dict[str, Any]) -> None:
    if "error" in entry:
        kind = "UNSURE" if entry.get("verdict") == "unsure" else "error"
        print(f"{entry['image']}: {kind}: {entry['error']}")
        return
    obj = entry["objective"]
    print(f"{entry['image']}: {entry['verdict'].upper()}")
    card = obj["card"] or "(unknown card)"
    print(f"  objective {card} ({entry['objective_method']}): {', '.join(obj['items'])}")
    print(f"  visible: {', '.join(entry['visible']) or '-'}")
    if entry["missing"]:
        print(f"  missing: {', '.join(entry['missing'])}")
    if entry["extra"]:
        print(f"  extra: {', '.join(entry['extra'])}")
    for reason in entry["reasons"]:
        print(f"  unsure: {reason}")


def run(args: argparse.Namespace) -> int:
    """``pictable verify picmix``: photos, or a sequence (``--video``/``--camera``)."""
    if args.video or args.camera is not None:
        if args.images:
            print(
                "pictable verify picmix: give IMAGE... or --video/--camera, not both",
                file=sys.stderr,
            )
            return 2
        return run_sequence(args)
    if not args.images:
        print(
            "pictable verify picmix: give IMAGE... (or --video FILE / --camera N)", file=sys.stderr
        )
        return 2
    try:
        deck = load_deck_arg(args.deck)
    except (ValueError, OSError) as exc:
        print(f"pictable verify picmix: {exc}", file=sys.stderr)
        return 2
    try:
        folder = annotation_folder(args.annotate)
    except ValueError as exc:
        print(f"pictable verify picmix: {exc}", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    status = 0
    written: set[str] = set()
    for path in kernels_by_photo(args.images):
        entry, reading, image = verify_one(path, deck)
        results.append(entry)
        if "error" in entry:
            status = 1
        if folder is not None and image is not None and reading is not None:
            from vision.picmix.draw import annotate

            out = annotation_path(folder, path, ".picmix.png", written)
            problem = write_png(out, annotate(image, reading))
            if problem:
                print(f"pictable verify picmix: {problem}", file=sys.stderr)
                status = 1
        if not args.json:
            _print_entry(entry)
    if args.json:
        print(json.dumps({"images": results}, ensure_ascii=True))
    return status


# ---- sequences: a video, a folder of frames, the live camera --------------------------------


def run_sequence(args: argparse.Namespace) -> int:
    """Frames of a video, a folder or the camera -> the game's events as JSON Lines."""
    from calibration.seats import seat_mapper
    from vision.picmix.model import load_item_model
    from vision.sources import LatestFrameReader, iter_frames, open_source
    from vision.tracker.picmix import ClaimWatcher

    players = [p.strip() for p in (args.players or "A,B").split(",") if p.strip()]
    if not 2 <= len(players) <= 6:
        print("pictable verify picmix: --players needs 2 to 6 names", file=sys.stderr)
        return 2
    live = args.camera is not None
    if live and not args.calibration:
        print("pictable verify picmix: --camera needs --calibration FILE (seats)", file=sys.stderr)
        return 2
    try:
        deck = load_deck_arg(args.deck)
        mapper = seat_mapper(args.calibration, players)
        source = open_source(args.camera if live else args.video, fps=args.fps)
    except (ValueError, OSError) as exc:
        print(f"pictable verify picmix: {exc}", file=sys.stderr)
        return 2
    watcher = ClaimWatcher(players, deck, load_item_model())

    def emit(events: list[dict[str, Any]]) -> None:
        for e in events:
            print(json.dumps(e), flush=True)

    emit([watcher.start_event()])
    if not live:
        t = 0.0
        for frame in iter_frames(source):
            if mapper is not None:
                watcher.seat_of = mapper(frame.image)
            emit(watcher.update(frame.image, frame.t))
            t = frame.t
        emit(watcher.finish(t))
        return 0
    import cv2

    with LatestFrameReader(source, live=True) as reader:
        while True:
            frame = reader.read(timeout=2.0)
            if frame is None:
                continue
            watcher.seat_of = mapper(frame.image) if mapper is not None else None
            emit(watcher.update(frame.image, frame.t))
            cv2.imshow("pictable verify picmix (1-9: seat claims, q: quit)", frame.image)
            key = cv2.waitKey(1) & 0xFF
            if key in (ord("q"), 27):
                return 0
            if ord("1") <= key <= ord("9"):
                emit(watcher.key(key - ord("1"), frame.image, frame.t))
