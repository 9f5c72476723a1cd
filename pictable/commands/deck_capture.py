"""``pictable deck register NAME --camera N | --video FILE | --folder DIR``: a deck registered
from cards laid under a camera several at a time.

The command's glue: options (:func:`add_arguments`, added to ``deck register``), the frame
loop, ids (typed with ``--ask``, given with ``--ids``, or numbered ``card-001``...), the
progress on the terminal (and in a window when there is a display), the contact sheet, and
the deck written (:func:`vision.identify.deck.register`; with ``--picmix``, a Picmix deck's
items: :mod:`pictable.commands.picmix_deck`). The work is
:class:`vision.identify.capture_many.LayoutCapture`.

Imports of OpenCV, numpy and the readers stay inside the functions: ``pictable --help``
must not load them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from vision.identify.capture_many import LayoutCapture, LayoutProgress, TakenCard

PROG = "pictable deck register"
#: Seconds a layout must hold still before its cards are taken (camera and video).
STILL_S = 0.3
#: The frame rate assumed when a source declares none.
FALLBACK_FPS = 30.0
#: ``--orientation`` choices (:data:`vision.identify.capture_many.ORIENTATIONS`).
ORIENTATIONS = ("portrait", "landscape", "auto")
WINDOW = "pictable deck register"
#: Faces across the contact sheet, and each face's long side there (px).
SHEET_COLUMNS = 8
SHEET_FACE_PX = 176

EPILOG = """\
Many cards at a time (--camera, --video, --folder):
  Lay cards face up under the camera, a finger's width apart, on a plain surface that
  contrasts with the cards' edges (a dark cloth for white-edged cards), and hold still:
  every card seen whole is taken once the layout has held still (--still seconds). Then
  take them away (or turn them over, with --picmix) and lay the next ones. A card laid
  again (the same card seen in an earlier layout, or already in the deck) is warned of
  and skipped (--duplicates). A card is warned of when its face is blurred, shows glare,
  or is too small in the frame (bring the camera closer, or lay fewer cards). q in the
  window or Ctrl-C ends; the cards taken are saved. --folder takes every photo of a folder
  as one layout (phone photos of the cards laid out).
  Ids: card-001, card-002... after those already in the deck (check them on the contact
  sheet, --sheet), or --ids in order, or typed as each card is taken (--ask: its face is
  shown in a window, or written to --crops DIR).

  Picmix player cards (--picmix): lay them landscape, fronts up; once taken, turn each over
  where it lies (the backs are taken); each face's two items are typed (--ask) or read from
  --items FILE (one line per face in the order taken, LEFT+RIGHT), else numbered. The
  faces are written to $PICTABLE_DECKS/picmix/NAME-faces/ as LEFT+RIGHT.png and the deck
  is learnt from them as by `pictable deck register picmix NAME FOLDER`.

Exit status: 0 saved; 1 a source that cannot be read (a missing or unreadable file, a
folder without images, a camera that cannot be opened or stops), or no card taken (the
cards taken before the problem are saved); 2 bad arguments.
"""


def add_arguments(r: argparse.ArgumentParser) -> None:
    """The options of the many-cards flow, added to ``deck register``'s parser (its
    ``--camera``, ``--count``, ``--ids``, ``--decks`` and ``--json`` are shared)."""
    r.description = (
        "Add cards to deck NAME (created when new): from IMAGE files (one card each), or\n"
        "from cards laid several at a time under a camera (--camera), in a video (--video)\n"
        "or in photos (--folder)."
    )
    helps = {
        "camera": "take the cards from camera INDEX (several at a time)",
        "count": "with --camera, --video, --folder: stop after N cards",
        "ids": "card ids, in order (default: file names; from a camera, video or photos: "
        "card-001, card-002, ... after the deck's)",
    }
    for action in r._actions:
        if action.dest in helps:
            action.help = helps[action.dest]
    r.epilog = ((r.epilog or "") + "\n" + EPILOG).strip()
    r.formatter_class = argparse.RawDescriptionHelpFormatter
    g = r.add_argument_group("many cards at a time (--camera, --video, --folder)")
    g.add_argument("--video", metavar="FILE", help="take the cards from a video file")
    g.add_argument(
        "--folder", metavar="DIR", help="take the cards from the photos in DIR (one layout each)"
    )
    g.add_argument("--ask", action="store_true", help="type each card's id as it is taken")
    g.add_argument("--crops", metavar="DIR", help="with --ask and no window: write faces here")
    g.add_argument(
        "--sheet", metavar="FILE", help="write a contact sheet (PNG) of the faces and their ids"
    )
    g.add_argument(
        "--duplicates",
        choices=("skip", "ask", "take"),
        default="skip",
        help="a card seen before: skipped (default), asked, or taken all the same",
    )
    g.add_argument(
        "--orientation",
        choices=ORIENTATIONS,
        default=None,
        help="faces taken portrait (default), landscape (--picmix's default), or each as it lies",
    )
    g.add_argument(
        "--still",
        type=float,
        default=STILL_S,
        metavar="SECONDS",
        help=f"how long a layout holds still before it is taken (default {STILL_S:g})",
    )
    g.add_argument(
        "--picmix", action="store_true", help="Picmix player cards: both faces, items per half"
    )
    g.add_argument("--items", metavar="FILE", help="with --picmix: each face's LEFT+RIGHT items")


def attach(r: argparse.ArgumentParser) -> None:
    """Adds the options to ``deck register``'s parser and routes a register with
    ``--camera``, ``--video`` or ``--folder`` to :func:`run` (the rest as before)."""
    add_arguments(r)
    before = r.get_default("func")
    r.set_defaults(func=lambda args: _dispatch(args, before))


#: The options that only the many-cards flow reads.
_OWN = ("ask", "crops", "sheet", "items", "orientation")


def _dispatch(args: argparse.Namespace, before: Any) -> int:
    if args.name == "picmix" or not wanted(args):
        own = [k for k in _OWN if getattr(args, k, None)] + ["picmix"] * bool(args.picmix)
        if own and args.name != "picmix":
            _err(f"--{own[0]} goes with --camera, --video or --folder")
            return 2
        return int(before(args))
    from vision.identify.deck import DeckError, check_name

    try:
        check_name(args.name)
        ids = None if not args.ids else [s.strip() for s in args.ids.split(",")]
        if ids is not None and any(not s for s in ids):
            raise ValueError("--ids: empty card id")
    except (DeckError, ValueError) as exc:
        _err(str(exc))
        return 2
    return run(args, ids)


def wanted(args: argparse.Namespace) -> bool:
    """Whether ``deck register`` was asked for the many-cards flow."""
    return any(getattr(args, k, None) is not None for k in ("camera", "video", "folder"))


class CaptureError(Exception):
    """The source failed: what to tell the user (the cards taken so far are kept)."""


@dataclass
class _Run:
    """What a run has done: the cards kept (id, card), problems, and how it ended."""

    cards: list[tuple[str, TakenCard]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)


def _err(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def run(args: argparse.Namespace, ids: list[str] | None) -> int:
    """``deck register NAME`` with ``--camera``, ``--video`` or ``--folder``; returns the exit
    status (see the epilog)."""
    sources = [k for k in ("camera", "video", "folder") if getattr(args, k, None) is not None]
    usage = _usage_problem(args, sources, ids)
    if usage:
        _err(usage)
        return 2
    if args.picmix:
        try:
            from vision.picmix.decks import deck_path

            deck_path(args.name)
        except ValueError as exc:
            _err(str(exc))
            return 2
    orientation = args.orientation or ("landscape" if args.picmix else "portrait")
    try:
        items = _read_items(args.items) if args.items else None
    except (OSError, ValueError) as exc:
        _err(f"--items {args.items}: {exc}")
        return 1
    from vision.identify.capture_many import LayoutCapture
    from vision.identify.deck import DeckError

    session = LayoutCapture(orientation=orientation)  # type: ignore[arg-type]
    try:  # the deck is added to: checked before any card is taken
        deck = None if args.picmix else _existing(args)
    except DeckError as exc:
        _err(str(exc))
        return 2
    if deck is not None and len(deck):  # a card registered already is a duplicate
        session.know(list(deck.ids), deck.cells, _deck_keypoints(deck))
    namer = _Namer(args, ids, [] if deck is None else list(deck.ids), session)
    if args.duplicates == "ask":
        session.confirm_duplicate = namer.confirm
    elif args.duplicates == "take":
        session.confirm_duplicate = lambda face, like, sim: True
    out = _Run()
    window = _window() if not args.json else False
    namer.window = window
    try:
        _loop(args, sources[0], session, namer, out, window)
    except CaptureError as exc:
        out.problems.append(str(exc))
        _err(str(exc))
    finally:
        if window:
            import cv2

            cv2.destroyAllWindows()
    out.cards = namer.cards
    sheet = None
    if args.sheet and out.cards:
        try:
            sheet = write_sheet(args.sheet, out.cards, args.picmix)
        except (OSError, ValueError) as exc:
            out.problems.append(f"cannot write the contact sheet {args.sheet}: {exc}")
            _err(out.problems[-1])
    if not out.cards:
        _err("no card taken; the deck is unchanged")
        if args.json:
            print(json.dumps({"deck": args.name, "registered": [], "errors": out.problems}))
        return 1
    save = _save_picmix(args, out, items, namer) if args.picmix else _save_deck(args, out, sheet)
    return save if save else (1 if out.problems else 0)


def _usage_problem(args: argparse.Namespace, sources: list[str], ids: list[str] | None) -> str:
    if len(sources) > 1:
        return "give one of --camera, --video, --folder"
    if args.images:
        return "give IMAGE files or --camera/--video/--folder, not both"
    if args.picmix and (ids is not None or args.decks):
        return "--picmix takes neither --ids nor --decks (Picmix decks live in $PICTABLE_DECKS)"
    if args.items and not args.picmix:
        return "--items goes with --picmix"
    if args.ask and ids is not None:
        return "give --ask or --ids, not both"
    if args.count is not None and args.count < 1:
        return "--count must be at least 1"
    if not args.still > 0:
        return "--still must be more than 0 seconds"
    return ""


def _existing(args: argparse.Namespace) -> Any:
    """The deck NAME as registered already (a ``ReferenceDeck``), or None when there is none;
    ``DeckError`` when it cannot be read (it could not be added to)."""
    from vision.identify.deck import decks_dir, load_deck_folder

    folder = decks_dir(args.decks) / args.name
    if not (folder / "deck.json").is_file():
        return None
    return load_deck_folder(folder)


def _deck_keypoints(deck: Any) -> Any:
    """Card i of a registered deck -> its keypoints as a face taken is compared by
    (:func:`vision.identify.capture_many.face_keypoints` of its reference image)."""
    import numpy as np

    from vision.identify import local
    from vision.identify.capture_many import face_keypoints

    def keypoints(i: int) -> local.Keypoints:
        image = deck.image(i)
        if image is None:
            return local.Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
        return face_keypoints(image)

    return keypoints


def _read_items(path: str) -> list[tuple[str, str]]:
    """``--items FILE``: one ``LEFT+RIGHT`` a line (blank lines and ``#`` comments skipped)."""
    pairs = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = [p.strip() for p in text.split("+")]
        if len(parts) != 2 or not all(parts):
            raise ValueError(f"line {n}: {line.strip()!r} is not LEFT+RIGHT")
        pairs.append((parts[0], parts[1]))
    if not pairs:
        raise ValueError("no LEFT+RIGHT line")
    return pairs


# ---- ids ----------------------------------------------------------------------------------


class _Namer:
    """Gives each card taken its id (``--ids``, ``--ask``, or the next ``card-NNN``), prints
    it, and keeps the cards; asks about duplicates with ``--duplicates ask``."""

    def __init__(
        self,
        args: argparse.Namespace,
        ids: list[str] | None,
        known: list[str],
        session: LayoutCapture,
    ) -> None:
        self.args = args
        self.ids = ids
        self.session = session
        self.used = set(known)
        self.next = 1 + max(
            (int(k[5:]) for k in known if k.startswith("card-") and k[5:].isdigit()), default=0
        )
        self.cards: list[tuple[str, TakenCard]] = []
        self.window = False
        self.asking = bool(args.ask)
        self.crops: Path | None = None

    @property
    def limit(self) -> int | None:
        if self.args.count is not None:
            return int(self.args.count)
        return len(self.ids) if self.ids is not None else None

    def done(self) -> bool:
        return self.limit is not None and len(self.cards) >= self.limit

    def auto(self) -> str:
        while f"card-{self.next:03d}" in self.used:
            self.next += 1
        card_id = f"card-{self.next:03d}"
        self.next += 1
        return card_id

    def take(self, card: TakenCard) -> None:
        if self.done():
            self.session.discard(card.number)
            return
        back_of = self.back_of(card)
        if back_of is not None:  # Picmix: the back of a card taken, named as its front
            card_id: str | None = back_of
        elif self.ids is not None:
            card_id = self.ids[len(self.cards)]
        elif self.asking:
            card_id = self.ask(card)
        else:
            card_id = self.auto()
        if card_id is None:  # the user did not want it
            self.session.discard(card.number)
            print(f"\rcard #{card.number} left out" + " " * 30, flush=True)
            return
        self.used.add(card_id)
        self.cards.append((card_id, card))
        side = ""
        if self.args.picmix:
            side = " (back)" if back_of is not None else " (front)"
        total = f"{len(self.cards)}" + (f"/{self.limit}" if self.limit else "")
        print(f"\rcaptured {card_id}{side} ({total} taken)" + " " * 30, flush=True)
        for line in card.check.describe():
            print(f"  warning: {card_id}: {line}", flush=True)

    def back_of(self, card: TakenCard) -> str | None:
        """With ``--picmix``: the id of the card whose front lay where this face was taken
        (turned over in place), when that card has no back yet; else None."""
        if not self.args.picmix or card.flipped_from is None:
            return None
        for cid, c in self.cards:
            if c.number == card.flipped_from:
                faces = [x for x, _ in self.cards if x == cid]
                return cid if len(faces) == 1 else None
        return None

    def show(self, face: np.ndarray, what: str) -> str:
        """The face shown in a window, or written to ``--crops`` (a temporary folder):
        where to look at it."""
        if self.window:
            import cv2

            cv2.imshow(f"{WINDOW}: card", face)
            cv2.waitKey(1)
            return "shown in the window"
        import cv2

        if self.crops is None:
            self.crops = Path(self.args.crops or tempfile.mkdtemp(prefix="pictable-faces-"))
            self.crops.mkdir(parents=True, exist_ok=True)
        path = self.crops / f"{what}.png"
        if not cv2.imwrite(str(path), face):
            return "(its face could not be written)"
        return f"face in {path}"

    def ask(self, card: TakenCard) -> str | None:
        where = self.show(card.face, f"taken-{card.number:04d}")
        default = self.auto_peek()
        for _ in range(3):
            answer = self.prompt(
                f"\rcard #{card.number} ({where}): id [{default}], - to leave it out: "
            )
            if answer is None:  # no more input: numbered from now on
                self.asking = False
                return self.auto()
            answer = answer.strip()
            if answer == "-":
                return None
            if not answer:
                return self.auto()
            if answer in {cid for cid, _ in self.cards}:
                print(f"  {answer!r} is taken in this session already", flush=True)
                continue
            if any(c in answer for c in "/\\\n\r\t"):
                print(f"  {answer!r}: no slashes or control characters", flush=True)
                continue
            if answer in self.used:
                print(f"  {answer!r} is in the deck already: it will be replaced", flush=True)
            return answer
        return self.auto()

    def auto_peek(self) -> str:
        n = self.next
        while f"card-{n:03d}" in self.used:
            n += 1
        return f"card-{n:03d}"

    @staticmethod
    def prompt(text: str) -> str | None:
        try:
            return input(text)
        except EOFError:
            return None

    def confirm(self, face: np.ndarray, like: str, similarity: float) -> bool:
        """``--duplicates ask``: whether to take a card that looks like ``like``."""
        label = self.label(like)
        where = self.show(face, f"duplicate-of-{label}")
        answer = self.prompt(
            f"\rthis card ({where}) looks like {label}: take it all the same? [y/N] "
        )
        return answer is not None and answer.strip().lower() in ("y", "yes")

    def label(self, like: str) -> str:
        """A likeness's label as the user knows it: ``#N`` -> the id given to card N."""
        if like.startswith("#") and like[1:].isdigit():
            for cid, c in self.cards:
                if c.number == int(like[1:]):
                    return cid
            return f"a card left out (#{like[1:]})"
        return like


# ---- the loop -----------------------------------------------------------------------------


def _frames(kind: str, spec: str, out: _Run) -> Iterator[tuple[np.ndarray, float | None]]:
    """(frame (H, W, 3) uint8 BGR, the source's frame rate or None for photos) from the
    source; :class:`CaptureError` when it cannot be opened or read."""
    from vision.sources import FrameGuard, Skip, SourceError

    if kind == "folder":
        yield from _photos(spec, out)
        return
    if kind == "camera":
        from vision.sources import CameraSource

        source: Any = CameraSource(int(spec) if spec.isdigit() else spec)
        what = f"camera {spec}"
    else:
        from vision.sources import VideoFileSource

        if not Path(spec).is_file():
            raise CaptureError(f"no such video file: {spec}")
        source = VideoFileSource(spec)
        what = f"video {spec}"
    try:
        source.open()
    except (SourceError, OSError) as exc:
        said = str(exc)
        raise CaptureError(
            said if said.startswith("cannot open") else f"cannot open {what}: {said}"
        ) from None
    guard = FrameGuard(name=what)
    fps = float(getattr(source, "fps", 0.0) or 0.0) or FALLBACK_FPS
    read = 0
    try:
        while True:
            raw = source.read()
            if raw is None:
                break
            frame = guard.admit(raw)
            if isinstance(frame, Skip):
                continue
            read += 1
            yield frame.image, fps
    finally:
        source.close()
    if read == 0:
        raise CaptureError(f"no frame could be read from {what}")
    if kind == "camera":
        raise CaptureError(f"{what} stopped giving frames")


def _photos(folder: str, out: _Run) -> Iterator[tuple[np.ndarray, float | None]]:
    from pictable.commands.images import read_image
    from vision.sources import ImageFolderSource, SourceError

    listing = ImageFolderSource(folder)
    try:
        listing.open()
    except SourceError as exc:
        raise CaptureError(str(exc)) from None
    paths = listing.paths
    if not paths:
        raise CaptureError(f"no images in {folder}")
    for path in paths:
        try:
            image = read_image(str(path), bgr=True)
        except ValueError as exc:
            out.problems.append(f"{path}: {exc}")
            _err(out.problems[-1])
            continue
        print(f"\r{path.name}:" + " " * 40, flush=True)
        yield image, None


def _loop(
    args: argparse.Namespace,
    kind: str,
    session: LayoutCapture,
    namer: _Namer,
    out: _Run,
    window: bool,
) -> None:
    spec = str(getattr(args, kind))
    rate_set = shown = False
    try:
        for image, fps in _frames(kind, spec, out):
            if fps is None:
                progress = session.take(image)
            else:
                if not rate_set:  # the seconds in frames, once the source's rate is known
                    session.needed = max(2, round(args.still * fps))
                    session.clear_frames = session.needed
                    rate_set = True
                progress = session.feed(image)
            _report(progress, namer, out)
            shown = True
            if window and _show(image, progress, len(namer.cards)) in (ord("q"), 27):
                break
            if namer.done():
                break
    except KeyboardInterrupt:
        pass
    finally:
        if shown:  # the progress line ends
            print(flush=True)


def _report(progress: LayoutProgress, namer: _Namer, out: _Run) -> None:
    """The terminal's progress line; every card taken named, every duplicate said."""
    for card in progress.taken:
        namer.take(card)
    for s in progress.skipped:
        label = namer.label(s.like)
        how = f"likeness {s.similarity:.2f}, {s.inliers} keypoints fit"
        print(
            f"\r  warning: a card of layout {s.layout} is {label} again ({how}): skipped",
            flush=True,
        )
        out.skipped.append({"like": label, "layout": s.layout})
    if progress.state != "captured":
        bar = "#" * round(10 * progress.fraction)
        seen = len(progress.outlines)
        text = (
            f"[{bar:<10}] layout {progress.layout}: {seen} card{'s' if seen != 1 else ''} "
            f"in view, {progress.message}; {len(namer.cards)} taken"
        )
        print(f"\r{text:<100}", end="", flush=True)


def _window() -> bool:
    """Whether OpenCV can open a window here."""
    if not (
        os.environ.get("DISPLAY")
        or os.environ.get("WAYLAND_DISPLAY")
        or sys.platform in ("win32", "darwin")
    ):
        return False
    import cv2

    try:
        cv2.namedWindow(WINDOW, cv2.WINDOW_AUTOSIZE)
    except cv2.error:
        return False
    return True


_MARK_BGR = {"new": (0, 200, 255), "taken": (40, 200, 40), "skipped": (40, 40, 230)}


def _show(image: np.ndarray, progress: LayoutProgress, n: int) -> int:
    """The frame with each card's outline (yellow: not taken yet, green: taken, red: a
    duplicate skipped) and the progress; the key pressed."""
    import cv2
    import numpy as np

    view = image.copy()
    for q, mark in zip(progress.outlines, progress.marks, strict=True):
        pts = np.round(q).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(view, [pts], True, _MARK_BGR.get(mark, (255, 255, 255)), 2)
    h = view.shape[0]
    cv2.rectangle(
        view, (10, h - 30), (10 + int(200 * progress.fraction), h - 15), (40, 200, 40), -1
    )
    cv2.rectangle(view, (10, h - 30), (210, h - 15), (255, 255, 255), 1)
    text = f"layout {progress.layout}: {progress.message}  ({n} taken, q to finish)"
    cv2.putText(
        view, text, (220, h - 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA
    )
    cv2.imshow(WINDOW, view)
    return int(cv2.waitKey(1)) & 0xFF


# ---- the contact sheet ----------------------------------------------------------------------


def write_sheet(path: str, cards: list[tuple[str, TakenCard]], picmix: bool = False) -> Path:
    """A contact sheet of the faces taken, each with its id (and its side with Picmix) and
    its warnings, :data:`SHEET_COLUMNS` across, written as ``path`` (PNG or any image OpenCV
    writes). Raises ``OSError`` when it cannot be written."""
    import cv2
    import numpy as np

    cell_w, label_h, pad = SHEET_FACE_PX, 34, 8
    rows = (len(cards) + SHEET_COLUMNS - 1) // SHEET_COLUMNS
    cols = min(SHEET_COLUMNS, len(cards))
    sheet = np.full(
        (rows * (cell_w + label_h + pad) + pad, cols * (cell_w + pad) + pad, 3), 255, np.uint8
    )
    for k, (card_id, card) in enumerate(cards):
        r, c = divmod(k, SHEET_COLUMNS)
        x0, y0 = pad + c * (cell_w + pad), pad + r * (cell_w + label_h + pad)
        face = card.face
        s = cell_w / max(face.shape[:2])
        small = cv2.resize(
            face, (max(1, round(face.shape[1] * s)), max(1, round(face.shape[0] * s))),
            interpolation=cv2.INTER_AREA,
        )  # fmt: skip
        h, w = small.shape[:2]
        ox, oy = x0 + (cell_w - w) // 2, y0 + (cell_w - h) // 2
        sheet[oy : oy + h, ox : ox + w] = small
        warn = [*card.check.warnings, *(("duplicate",) if card.duplicate_of else ())]
        colour = (0, 0, 200) if warn else (0, 0, 0)
        if warn:
            cv2.rectangle(sheet, (ox - 2, oy - 2), (ox + w + 1, oy + h + 1), (0, 0, 220), 2)
        side = ""
        if picmix:
            side = " back" if card.flipped_from is not None else " front"
        cv2.putText(
            sheet, f"{card_id}{side}", (x0, y0 + cell_w + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
            (0, 0, 0), 1, cv2.LINE_AA,
        )  # fmt: skip
        if warn:
            cv2.putText(
                sheet, ", ".join(warn), (x0, y0 + cell_w + 29), cv2.FONT_HERSHEY_SIMPLEX, 0.38,
                colour, 1, cv2.LINE_AA,
            )  # fmt: skip
    out = Path(path)
    if out.parent and not out.parent.is_dir():
        raise OSError(f"no folder {out.parent}")
    ok = cv2.imwrite(str(out), sheet)
    if not ok:
        raise OSError("OpenCV could not write it (give a .png or .jpg name)")
    print(f"contact sheet: {out}", flush=True)
    return out


# ---- saving -------------------------------------------------------------------------------


def _save_deck(args: argparse.Namespace, out: _Run, sheet: Path | None) -> int:
    """The cards taken added to the deck NAME; the summary printed. 0, or 2 when the deck
    cannot be written."""
    from vision.identify.deck import DeckError, register

    images = [(cid, card.face) for cid, card in out.cards]
    try:
        deck, replaced = register(args.name, images, args.decks)
    except (DeckError, OSError) as exc:
        _err(f"cannot save the deck: {exc}")
        _rescue(images)
        return 2
    warnings = {cid: list(card.warnings) for cid, card in out.cards if card.warnings}
    if args.json:
        doc = {
            "deck": deck.name,
            "registered": [cid for cid, _ in out.cards],
            "replaced": replaced,
            "cards": len(deck),
            "folder": str(deck.folder),
            "skipped": out.skipped,
            "warnings": warnings,
            "sheet": None if sheet is None else str(sheet),
            "errors": out.problems,
        }
        print(json.dumps(doc))
        return 0
    n = len(out.cards)
    print(
        f"deck {deck.name}: {n} card{'s' if n != 1 else ''} registered"
        + (f" ({len(replaced)} replaced: {', '.join(replaced)})" if replaced else "")
        + (
            f", {len(out.skipped)} duplicate{'s' if len(out.skipped) != 1 else ''} skipped"
            if out.skipped
            else ""
        )
        + (f", {len(warnings)} with warnings" if warnings else "")
        + f", {len(deck)} in all, in {deck.folder}"
    )
    return 0


def _rescue(images: list[tuple[str, np.ndarray]]) -> None:
    """The faces taken written to a new temporary folder as ``<id>.png`` (the deck could not
    be saved: nothing taken is lost), and the command that registers them said."""
    import cv2

    try:
        folder = Path(tempfile.mkdtemp(prefix="pictable-faces-"))
        for cid, face in images:
            cv2.imwrite(str(folder / f"{cid}.png"), face)
    except OSError as exc:
        _err(f"the faces taken could not be kept either: {exc}")
        return
    _err(
        f"the {len(images)} faces taken are in {folder}: "
        f"`pictable deck register NAME {folder}/*.png` registers them"
    )


def _save_picmix(
    args: argparse.Namespace, out: _Run, items: list[tuple[str, str]] | None, namer: _Namer
) -> int:
    """``--picmix``: the faces paired (front, then its back taken where it lay), each face's
    two items named (``--items``, ``--ask``, else numbered), written as LEFT+RIGHT.png to
    the Picmix decks folder's ``NAME-faces/``, and the deck learnt from them
    (:func:`pictable.commands.picmix_deck.run_register`)."""
    from vision.picmix.decks import decks_dir

    faces = pair_faces(out.cards)
    lonely = [cid for cid, side, _ in faces if side == "front" and not _has_back(faces, cid)]
    if lonely:
        print(f"warning: no back taken for {', '.join(lonely)}", flush=True)
    if items is not None and len(items) != len(faces):
        _err(f"--items gives {len(items)} faces' items for the {len(faces)} faces taken")
        items = items[: len(faces)] + [("", "")] * max(0, len(faces) - len(items))
        out.problems.append("--items does not match the faces taken")
    folder = decks_dir() / "picmix" / f"{args.name}-faces"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _err(f"cannot write the faces: {exc}")
        return 1
    import cv2

    written = []
    for k, (cid, side, card) in enumerate(faces):
        left, right = items[k] if items is not None else ("", "")
        if not (left and right) and namer.asking:
            left, right = _ask_items(namer, cid, side, card)
        stem = f"{left}+{right}" if left and right else f"{cid}-{side}"
        path = folder / f"{stem}.png"
        if not cv2.imwrite(str(path), card.face):
            _err(f"cannot write {path}")
            return 1
        written.append(str(path))
    print(f"{len(written)} faces written to {folder}", flush=True)
    from pictable.commands import picmix_deck

    argv = [args.name, *written, *(["--json"] if args.json else [])]
    try:
        return int(picmix_deck.run_register(argv))
    except (RuntimeError, OSError, ValueError) as exc:  # the item models: missing, unloadable
        _err(
            f"the deck's items could not be learnt ({exc}); the faces are kept in {folder}: "
            f"`pictable deck register picmix {args.name} {folder}` learns them later"
        )
        return 1


def pair_faces(cards: list[tuple[str, TakenCard]]) -> list[tuple[str, str, TakenCard]]:
    """Picmix: (card id, ``front``/``back``, face) of the faces taken, in order: a card's
    second face (taken where its first lay, turned over in place, and given its id) is its
    back."""
    seen: set[str] = set()
    out = []
    for cid, card in cards:
        out.append((cid, "back" if cid in seen else "front", card))
        seen.add(cid)
    return out


def _has_back(faces: list[tuple[str, str, TakenCard]], cid: str) -> bool:
    return any(c == cid and s == "back" for c, s, _ in faces)


def _ask_items(namer: _Namer, cid: str, side: str, card: TakenCard) -> tuple[str, str]:
    where = namer.show(card.face, f"{cid}-{side}")
    got = []
    for half in ("left", "right"):
        answer = namer.prompt(f"\r{cid} {side} ({where}): the item on its {half} half: ")
        if answer is None:
            namer.asking = False
            return ("", "")
        got.append(answer.strip().replace("+", " "))
    return got[0], got[1]


__all__: list[str] = [
    "EPILOG", "add_arguments", "attach", "pair_faces", "run", "wanted", "write_sheet"
]  # fmt: skip
