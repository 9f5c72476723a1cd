"""``pictable deck register|list|show``: the decks cards are identified against by picture."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

HELP = "register decks of cards to identify by their pictures"
DESCRIPTION = """\
A deck is what `pictable identify --deck NAME` compares cards with: each card's
picture (its whole look, and its local features). Decks live in the decks folder
(--decks DIR, else $PICTABLE_DECKS, else ~/.local/share/pictable/decks), one folder
per deck (deck.json, deck.npz and the reference images; vision/identify/README.md has the
format). Built-in decks, from the printable edition, need no registering: pickpic,
picflip, picasso, picmix.

  register NAME IMAGE...     one card per image: the image is the card's face (a scan
                             or a photo cropped to the card); the card's id is the
                             file name without extension (or --ids). Adds to NAME,
                             replacing cards with the same id.
  register NAME --camera N   cards laid several at a time under camera N (or from
  register NAME --video FILE a video, or --folder DIR of photos, one layout each):
  register NAME --folder DIR each layout is taken once it holds still, every card
                             outlined, turned upright and checked (blur, glare, too
                             small, already taken); ids numbered, typed (--ask) or
                             given (--ids), a contact sheet with --sheet; q or Ctrl-C
                             ends, and the cards taken are kept
                             (`pictable deck register --help`).
  register picmix NAME IMAGE...
                             a Picmix deck's items, from photos of its card faces
                             (`pictable deck register picmix --help`).
  list                       the registered decks
  show NAME                  a deck's cards
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "deck",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dsub = p.add_subparsers(dest="deck_command", metavar="ACTION", required=True)
    r = dsub.add_parser(
        "register",
        help="add cards to a deck from images or a camera",
        description="Add cards to deck NAME (created when new).",
    )
    r.add_argument("name", metavar="NAME")
    r.add_argument("images", nargs="*", metavar="IMAGE", help="one image per card (its face)")
    r.add_argument("--camera", metavar="INDEX", help="capture cards from this camera instead")
    r.add_argument(
        "--count",
        type=int,
        default=None,
        help="with --camera, --video, --folder: stop after N cards",
    )
    r.add_argument(
        "--ids",
        metavar="ID,...",
        help="card ids, in order (default: file names; with --camera, card-001, card-002, ...)",
    )
    r.add_argument("--decks", metavar="DIR", help="the decks folder")
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(func=run_register)
    # Many cards at a time (--camera, --video, --folder): pictable/commands/deck_capture.py.
    from pictable.commands import deck_capture

    deck_capture.attach(r)
    ls = dsub.add_parser("list", help="the registered decks")
    ls.add_argument("--decks", metavar="DIR", help="the decks folder")
    ls.add_argument("--json", action="store_true", help="print JSON")
    ls.set_defaults(func=run_list)
    sh = dsub.add_parser("show", help="a deck's cards")
    sh.add_argument("name", metavar="NAME")
    sh.add_argument("--decks", metavar="DIR", help="the decks folder")
    sh.add_argument("--json", action="store_true", help="print JSON")
    sh.set_defaults(func=run_show)


def _ids(args: argparse.Namespace) -> list[str] | None:
    if not args.ids:
        return None
    ids = [s.strip() for s in args.ids.split(",")]
    if any(not s for s in ids):
        raise ValueError("--ids: empty card id")
    return ids


def _register_picmix(args: argparse.Namespace) -> int:
    """``register picmix NAME IMAGE... [--json]``: handed to the Picmix deck command."""
    if args.camera is not None or args.ids or args.decks or args.count is not None:
        print(
            "pictable deck register picmix: takes NAME IMAGE... [--json] only "
            "(see `pictable deck register picmix --help`)",
            file=sys.stderr,
        )
        return 2
    try:
        from pictable.commands import picmix_deck
    except ImportError:
        print("pictable deck register: Picmix decks are not available", file=sys.stderr)
        return 2
    return int(picmix_deck.run_register([*args.images, *(["--json"] if args.json else [])]))


def run_register(args: argparse.Namespace) -> int:
    from vision.identify.deck import DeckError, card_id_of, check_name, register

    if args.name == "picmix":
        return _register_picmix(args)
    try:
        check_name(args.name)
        ids = _ids(args)
    except (DeckError, ValueError) as exc:
        print(f"pictable deck register: {exc}", file=sys.stderr)
        return 2
    # --camera, --video and --folder go to pictable/commands/deck_capture.py (attach).
    if not args.images:
        print(
            "pictable deck register: give IMAGE files (one per card), "
            "or --camera, --video or --folder",
            file=sys.stderr,
        )
        return 2
    if ids is not None and len(ids) != len(args.images):
        print(
            f"pictable deck register: --ids gives {len(ids)} ids for {len(args.images)} images",
            file=sys.stderr,
        )
        return 2
    cards = []
    from pictable.commands.images import read_image

    for k, path in enumerate(args.images):
        try:
            card_id = ids[k] if ids is not None else card_id_of(path)
            cards.append((card_id, _bgr(read_image(path))))
        except (ValueError, DeckError) as exc:
            print(f"pictable deck register: {path}: {exc}", file=sys.stderr)
            return 2
    seen: set[str] = set()
    for card_id, _ in cards:
        if card_id in seen:
            print(f"pictable deck register: card id {card_id!r} given twice", file=sys.stderr)
            return 2
        seen.add(card_id)
    if not cards:
        print("pictable deck register: no card captured; the deck is unchanged", file=sys.stderr)
        return 1
    try:
        deck, replaced = register(args.name, cards, args.decks)
    except (DeckError, OSError) as exc:
        print(f"pictable deck register: {exc}", file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        doc = {
            "deck": deck.name,
            "registered": [cid for cid, _ in cards],
            "replaced": replaced,
            "cards": len(deck),
            "folder": str(deck.folder),
        }
        print(json.dumps(doc))
        return 0
    print(
        f"deck {deck.name}: {len(cards)} card{'s' if len(cards) != 1 else ''} registered"
        + (f" ({len(replaced)} replaced: {', '.join(replaced)})" if replaced else "")
        + f", {len(deck)} in all, in {deck.folder}"
    )
    return 0


def _bgr(image: np.ndarray) -> np.ndarray:
    from vision.identify import check_frame

    bgr, _ = check_frame(image)
    return bgr


def run_list(args: argparse.Namespace) -> int:
    from vision.identify.deck import (
        BUILTIN_DECKS,
        DeckError,
        decks_dir,
        list_decks,
        load_deck_folder,
    )

    rows = []
    for name, folder in list_decks(args.decks):
        try:
            n: int | str = len(load_deck_folder(folder))
        except DeckError as exc:
            n = f"unusable: {exc}"
        rows.append({"name": name, "cards": n, "folder": str(folder)})
    if args.json:
        print(
            json.dumps(
                {
                    "decks_folder": str(decks_dir(args.decks)),
                    "decks": rows,
                    "builtin": list(BUILTIN_DECKS),
                }
            )
        )
        return 0
    print(f"decks in {decks_dir(args.decks)}:")
    if not rows:
        print("  (none registered)")
    for r in rows:
        print(
            f"  {r['name']:<24} {r['cards']} cards"
            if isinstance(r["cards"], int)
            else f"  {r['name']:<24} {r['cards']}"
        )
    print(f"built-in: {', '.join(BUILTIN_DECKS)}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from vision.identify.deck import DeckError, open_deck

    try:
        deck = open_deck(args.name, args.decks)
    except DeckError as exc:
        print(f"pictable deck show: {exc}", file=sys.stderr)
        return 2
    info = {
        "name": deck.name,
        "builtin": deck.builtin,
        "folder": None if deck.folder is None else str(deck.folder),
        "aspect": round(deck.aspect, 4),
        "border": [round(b, 4) for b in deck.border],
        "cards": [
            {"id": c.id, "size_wh": list(c.size_wh), "keypoints": int((deck.kp_card == i).sum())}
            for i, c in enumerate(deck.cards)
        ],
    }
    if args.json:
        print(json.dumps(info))
        return 0
    print(
        f"deck {deck.name}{' (built-in)' if deck.builtin else ''}: {len(deck)} cards"
        + (f", in {deck.folder}" if deck.folder else "")
    )
    for c in info["cards"]:
        print(f"  {c['id']:<28} {c['size_wh'][0]}x{c['size_wh'][1]} px, {c['keypoints']} keypoints")
    return 0
