"""``pictable deck register picmix NAME IMAGES...``: learn a Picmix deck's items from photos of
its player card faces, with no retraining, for decks whose art pictable has never seen.

``run_register(argv)`` parses its own arguments (prog ``pictable deck register picmix``) and
returns the exit status; the ``deck`` command dispatches ``deck register picmix ...`` to it.
The work is ``vision.picmix.decks.register_deck``: each face's two items are found (ink blobs,
no card geometry needed), embedded by the item model, and kept as prototypes that
``pictable verify picmix --deck NAME`` names items by.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PROG = "pictable deck register picmix"
HELP = "learn a Picmix deck's items from photos of its card faces (no retraining)"
DESCRIPTION = """\
Learns the items of a Picmix deck from photos of its player card faces, one face per photo
(the whole face in view, flat, on a darker background if possible): each face's two items
are found, embedded by the item model, and kept as prototypes, so that
`pictable verify picmix --deck NAME` names them with no retraining.

Name the items in the file names, LEFT+RIGHT (for example `sun+fish.jpg` for a face with the
sun on its left half and the fish on its right); photos with other names give items numbered
item-01, item-02... (the same item photographed twice is kept once). Photos of objective
cards may be added, named by their 3 or 4 items (`sun+fish+moon.jpg`): the deck then knows
its objective cards, and an objective is read as the one its items match best (or the claim
is judged against each card they may be). A folder among IMAGES stands for the image files
in it.

The deck is saved to $PICTABLE_DECKS/picmix/NAME.json (default
~/.local/share/pictable/decks/picmix/NAME.json). Without printed codes, objectives are read
from their items.
"""
EPILOG = """\
examples:
  pictable deck register picmix party faces/*.jpg
  pictable deck register picmix party faces/ --json

Exit status: 0 saved; 1 a photo cannot be read or shows no two items (nothing is saved);
2 bad arguments (a deck name that is not allowed).
"""
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


def parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", metavar="NAME", help="the deck's name (letters, digits, - _ .)")
    p.add_argument(
        "images", nargs="+", metavar="IMAGES", help="photos of the card faces, or folders"
    )
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return p


def _expand(paths: list[str]) -> list[str]:
    """``paths`` with each folder replaced by its image files (sorted)."""
    out: list[str] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            out += sorted(str(f) for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        else:
            out.append(path)
    return out


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: {message}", file=sys.stderr)
    return status


def run_register(argv: list[str]) -> int:
    """``pictable deck register picmix NAME IMAGES... [--json]``; returns the exit status
    (0 saved, 1 an unusable photo, 2 bad arguments). Prints what was learnt on stdout
    (``{"deck", "file", "faces", "items": [{"name", "photos"}], "objectives": {card: items}}``
    with ``--json``; ``faces`` counts the photos)."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2): argparse has printed it
        return int(exc.code) if isinstance(exc.code, int) else 2

    from pictable.commands.images import read_image
    from vision.picmix.decks import deck_path, register_deck

    try:
        deck_path(args.name)
    except ValueError as exc:
        return _fail(str(exc), 2)
    images = _expand(args.images)
    if not images:
        return _fail("no image files in " + ", ".join(args.images), 1)
    photos = []
    for path in images:
        try:
            photos.append((path, read_image(path, bgr=True)))
        except ValueError as exc:
            return _fail(f"{path}: {exc}", 1)
    try:
        saved, deck = register_deck(args.name, photos)
    except ValueError as exc:
        return _fail(str(exc), 1)
    except OSError as exc:
        return _fail(f"cannot save the deck: {exc}", 1)
    doc = json.loads(saved.read_text(encoding="utf-8"))
    counts = {str(i["name"]): int(i["photos"]) for i in doc["items"]}
    result: dict[str, Any] = {
        "deck": args.name,
        "file": str(saved),
        "faces": len(photos),
        "items": [{"name": k, "photos": counts.get(k, 0)} for k in deck.items],
        "objectives": {k: list(v) for k, v in sorted(deck.objectives.items())},
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=True))
    else:
        print(f"deck {args.name!r}: {len(deck.items)} items from {len(photos)} photos")
        for k in deck.items:
            print(f"  {k} ({counts.get(k, 0)} photos)")
        if deck.objectives:
            print(f"{len(deck.objectives)} objective cards")
        print(f"saved to {saved}")
    return 0


if __name__ == "__main__":
    sys.exit(run_register(sys.argv[1:]))


__all__ = ["DESCRIPTION", "HELP", "PROG", "parser", "run_register"]
