"""``pictable kit``: print the printable kit as PDF, export its card faces as PNG, or learn
the pieces of another Picasso kit from a photo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

# Kept here, not imported from vision.kit, so that `pictable --help` stays instant (tests check
# they agree with vision.kit.printing.PRINTABLES and vision.kit.decks.GAMES).
GAMES = ("pickpic", "picflip", "picasso", "picmix")
PRINTABLES = (*GAMES, "markers", "board", "calibration")
PAPERS = ("a4", "letter")

KIT_DESCRIPTION = """\
The printable edition of the four games: decks whose cards carry their id in printed codes
(two ArUco markers per face, DICT_4X4_1000, a different id on each face, plus a QR code
PT1:<CARD-ID>:<F|B>), the play-area markers, the Picasso board markers and a calibration
chessboard.
"""

PRINT_DESCRIPTION = """\
Write a PDF to print at 100 % ("actual size", no "fit to page"): cards are 63 x 88 mm, nine
to a page, with cut marks; a 50 mm scale bar on each page lets you check the scale.

Decks print fronts and backs on alternate pages: print double-sided, flipping on the LONG
edge (back pages have their columns mirrored so each back lands behind its front), or print
the odd pages, put the stack back in the tray and print the even pages.

WHAT is one of:
  pickpic      Pick Pic: 120 photo cards (codes on the back: cards are handed over face down)
  picflip      Pic Flip: 104 cards with two pictures, and 6 cover cards
  picasso      Picasso: word cards, a word and a pictogram each
  picmix       Picmix: 25 objective cards, and 6 coloured player sets of 4 double-sided cards
  markers      the play-area markers 0-3 (40 mm), one page
  board        the Picasso board markers 4-7 (30 mm) and where to lay them round the canvas
  calibration  a 7 x 10 chessboard of 25 mm squares for `pictable calibrate camera`
"""

PRINT_EPILOG = """\
examples:
  pictable kit print pickpic --out pickpic.pdf
  pictable kit print picmix --out picmix.pdf --paper letter
"""

LEARN_GAMES = ("picasso",)

LEARN_DESCRIPTION = """\
Measure the pieces of your own kit and write a kit profile that `pictable analyze picasso
--kit FILE` then uses (owners of the retail game use their own sticks and shapes).

Lay the board with its markers 4-7, and on its canvas, apart from each other (not touching,
not crossing): at least one stick of each length, one shape of each kind (circle, square,
triangle, half-circle) in each colour you have, and the string in a loose curve. Then give a
photo of it, or --camera to take a frame from a camera. The lengths, widths and colours are
measured; a colour is written into the profile only where it helps the reader (the measured
colours are kept under "seen" for the record). A photo that cannot be learned from is
refused with the reason: a piece missing, pieces touching (where, in board mm), or light
too dim.
"""

LEARN_EPILOG = """\
examples:
  pictable kit learn picasso pieces.jpg --out retail.json
  pictable kit learn picasso --camera 0 --calibration cam.json --out retail.json
  pictable analyze picasso board.jpg --kit retail.json
"""

EXPORT_DESCRIPTION = """\
Write one PNG per card face (RGB, 300 dpi by default, with the resolution in the file's
metadata) named <card-id>_<front|back>.png, and a manifest.json listing every card: its
codes (marker id per face, QR payload), Picasso word, Pic Flip pictures, Picmix objective
items and player-card items per face and half.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``pictable kit`` (``print``, ``export``, ``learn``) to the top-level subcommands."""
    kit = subparsers.add_parser(
        "kit",
        help="print the printable kit (PDF), export its card faces (PNG), or learn your own kit",
        description=KIT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = kit.add_subparsers(dest="kit_action", metavar="ACTION", title="actions")

    pr = actions.add_parser(
        "print",
        help="write a PDF of a deck or of the table markers, true size",
        description=PRINT_DESCRIPTION,
        epilog=PRINT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pr.add_argument(
        "what", metavar="WHAT", choices=PRINTABLES, help="what to print: " + ", ".join(PRINTABLES)
    )
    pr.add_argument("--out", metavar="FILE.pdf", required=True, type=Path, help="the PDF to write")
    pr.add_argument("--paper", choices=PAPERS, default="a4", help="paper size (default: a4)")
    pr.add_argument(
        "--cards",
        metavar="ID,ID...",
        type=_id_list,
        help="print only these cards of the deck (e.g. to replace a lost card)",
    )
    pr.set_defaults(func=run_print)

    ex = actions.add_parser(
        "export",
        help="write one PNG per card face and a manifest.json",
        description=EXPORT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ex.add_argument("game", metavar="GAME", choices=GAMES, help="one of " + ", ".join(GAMES))
    ex.add_argument("dir", metavar="DIR", type=Path, help="output directory (created if needed)")
    ex.add_argument(
        "--dpi",
        type=float,
        default=300.0,
        help="resolution of the PNGs in dots per inch (default: 300)",
    )
    ex.add_argument(
        "--cards", metavar="ID,ID...", type=_id_list, help="export only these cards of the deck"
    )
    ex.set_defaults(func=run_export)

    le = actions.add_parser(
        "learn",
        help="measure your own Picasso pieces from a photo and write a kit profile",
        description=LEARN_DESCRIPTION,
        epilog=LEARN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    le.add_argument(
        "game", metavar="GAME", choices=LEARN_GAMES, help="one of " + ", ".join(LEARN_GAMES)
    )
    le.add_argument("images", nargs="*", metavar="IMAGE", help="photos of the pieces laid apart")
    le.add_argument(
        "--camera", metavar="INDEX", help="take a frame from this camera instead of a photo"
    )
    le.add_argument("--calibration", metavar="FILE", help="camera calibration file (lens)")
    le.add_argument("--name", help="the profile's name (default: the file name of --out)")
    le.add_argument(
        "--out", metavar="FILE.json", required=True, type=Path, help="the kit profile to write"
    )
    le.set_defaults(func=run_learn)

    def no_action(args: argparse.Namespace) -> int:
        kit.print_usage(sys.stderr)
        print("pictable kit: choose an action: print, export or learn", file=sys.stderr)
        return 2

    kit.set_defaults(func=no_action)


def _id_list(text: str) -> list[str]:
    ids = [t.strip() for t in text.split(",") if t.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("give card ids separated by commas")
    return ids


def _fail(message: str) -> int:
    print(f"pictable kit: {message}", file=sys.stderr)
    return 2


def _check_writable_file(path: Path) -> str | None:
    """Why ``path`` cannot be written, or None. Creates (then keeps) an empty file."""
    if path.is_dir():
        return f"cannot write {path}: it is a directory"
    try:
        with path.open("ab"):
            pass
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    return None


def run_print(args: argparse.Namespace) -> int:
    """``pictable kit print WHAT --out FILE.pdf [--paper a4|letter]``."""
    if args.what not in PRINTABLES:  # argparse checks too; kept for direct callers
        return _fail(f"unknown WHAT {args.what!r}; choose from {', '.join(PRINTABLES)}")
    if args.cards is not None and args.what not in GAMES:
        return _fail(f"--cards only applies to decks ({', '.join(GAMES)}), not {args.what}")
    out: Path = args.out
    from vision.kit.decks import select_cards

    if args.cards is not None:
        try:
            select_cards(args.what, args.cards)
        except ValueError as exc:
            return _fail(str(exc))
    problem = _check_writable_file(out)
    if problem:
        return _fail(problem)
    from vision.kit.geometry import PAPER_SIZES_MM
    from vision.kit.pdf import PT_PER_MM
    from vision.kit.printing import print_kit

    try:
        pages = print_kit(args.what, out, paper=args.paper, progress=True, cards=args.cards)
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror or exc}")
    w, h = PAPER_SIZES_MM[args.paper]
    duplex = "; print double-sided, flip on the long edge" if args.what in GAMES else ""
    print(
        f"wrote {out}: {pages} page{'s' if pages != 1 else ''} "
        f"({args.paper}, {w * PT_PER_MM:.2f} x {h * PT_PER_MM:.2f} pt); "
        f"print at 100 % (actual size){duplex}"
    )
    return 0


def run_export(args: argparse.Namespace) -> int:
    """``pictable kit export GAME DIR [--dpi N]``."""
    if args.game not in GAMES:
        return _fail(f"unknown GAME {args.game!r}; choose from {', '.join(GAMES)}")
    if not 50 <= args.dpi <= 1200:
        return _fail(f"--dpi must be between 50 and 1200, got {args.dpi:g}")
    out: Path = args.dir
    from vision.kit.decks import select_cards

    if args.cards is not None:
        try:
            select_cards(args.game, args.cards)
        except ValueError as exc:
            return _fail(str(exc))
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".pictable-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return _fail(f"cannot write to {out}: {exc.strerror or exc}")
    from vision.kit.export import export_deck

    try:
        manifest = export_deck(
            args.game, out, px_per_mm=args.dpi / 25.4, progress=True, cards=args.cards
        )
    except OSError as exc:
        return _fail(f"cannot write to {out}: {exc.strerror or exc}")
    print(f"wrote {manifest.parent}: PNG faces at {args.dpi:g} dpi and {manifest.name}")
    return 0


def run_learn(args: argparse.Namespace) -> int:
    """``pictable kit learn picasso IMAGE|--camera INDEX --out FILE.json``: exit 0 written,
    1 nothing learnable in the photos, 2 bad arguments or files."""
    if args.game not in LEARN_GAMES:  # argparse checks too; kept for direct callers
        return _fail(f"unknown GAME {args.game!r}; choose from {', '.join(LEARN_GAMES)}")
    if bool(args.images) == (args.camera is not None):
        return _fail("learn: give IMAGE files or --camera INDEX (one of them)")
    out: Path = args.out
    if out.is_dir():
        return _fail(f"cannot write {out}: it is a directory")
    from vision.picasso.learn import run_kit_learn

    return run_kit_learn(
        [str(p) for p in args.images],
        str(out),
        camera=args.camera,
        calibration=args.calibration,
        name=args.name,
    )
