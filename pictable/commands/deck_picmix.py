"""``pictable deck register picmix NAME IMAGES...``: learn a Picmix deck's items from photos of
its player card faces (no retraining), for decks whose art pictable has never seen.

Wired under the ``deck`` command (``pictable/commands/deck.py``): call
``add_arguments(parser)`` on the ``register picmix`` parser and run
``register_picmix(args.name, args.images, json_output=args.json)``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

HELP = "learn a Picmix deck's items from photos of its card faces"
DESCRIPTION = """\
Learns the items of a Picmix deck from photos of its player card faces, one face per photo
(the whole face in view, on a darker background if possible): each face's two items are
found, embedded by the item model, and kept as prototypes, so that
`pictable verify picmix --deck NAME` names them with no retraining.

Name the items in the file names, LEFT+RIGHT (for example `sun+fish.jpg` for a face with
the sun on its left half and the fish on its right); photos with other names give items
numbered item-01, item-02... (the same item photographed twice is kept once).

The deck is saved to $PICTABLE_DECKS/picmix/NAME.json (default
~/.local/share/pictable/decks/picmix/NAME.json). Without printed codes, objectives are read
from their items. Exit status 1 when a photo cannot be used (nothing is saved).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``deck register picmix``: NAME, IMAGES..., --json."""
    p.add_argument("name", metavar="NAME", help="the deck's name (letters, digits, - _ .)")
    p.add_argument("images", nargs="+", metavar="IMAGES", help="photos of the card faces")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


def register_picmix(name: str, images: Sequence[str], *, json_output: bool = False) -> int:
    """Register deck ``name`` from the photos ``images``; print what was learnt. Returns the
    exit status (0, 1 when a photo cannot be used, 2 for a bad name)."""
    from pictable.commands.verify import read_image
    from vision.picmix.decks import deck_path, register_deck

    try:
        deck_path(name)
    except ValueError as exc:
        print(f"pictable deck register picmix: {exc}", file=sys.stderr)
        return 2
    photos = []
    for path in images:
        try:
            photos.append((path, read_image(path)))
        except ValueError as exc:
            print(f"pictable deck register picmix: {path}: {exc}", file=sys.stderr)
            return 1
    try:
        saved, deck = register_deck(name, photos)
    except ValueError as exc:
        print(f"pictable deck register picmix: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"pictable deck register picmix: cannot save the deck: {exc}", file=sys.stderr)
        return 1
    result: dict[str, Any] = {"deck": name, "file": str(saved), "items": list(deck.items)}
    if json_output:
        print(json.dumps(result))
    else:
        print(f"deck {name!r}: {len(deck.items)} items ({', '.join(deck.items)})")
        print(f"saved to {saved}")
    return 0


def run(args: argparse.Namespace) -> int:
    """``func`` for an argparse parser set up by ``add_arguments``."""
    return register_picmix(args.name, args.images, json_output=bool(getattr(args, "json", False)))


def _main(argv: Sequence[str] | None = None) -> int:  # for trying it before it is wired
    p = argparse.ArgumentParser(prog="pictable deck register picmix", description=DESCRIPTION)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(_main())


__all__ = ["DESCRIPTION", "HELP", "add_arguments", "register_picmix", "run"]
