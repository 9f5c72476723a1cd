"""``pictable analyze picasso IMAGE... | --video FILE --players A,B,...``: read the Picasso
board in photos (docs/formats.md section 3), or score a whole turn from a video or an image
folder (docs/formats.md section 1 events)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Reads the Picasso board in each photo: finds the board by its markers 4-7,
looks at the canvas from straight above, and reports every piece on it (sticks
long or short with their ends in millimetres, shapes with their kind and colour,
the string), the counts and the cost (stick 1, shape 2, string 3). Pieces beside
the board (the supply) are not counted. A photo where a hand or anything else
covers part of the canvas is reported "occluded" with the share covered, and is
not counted.

With --video, follows a whole turn instead and prints the game's events, one JSON
object per line (docs/formats.md section 1): start, draw (the card shown to the
camera, named by its printed code), build (each time the counts have been stable
for half a second with no hand over the board), guess (the card shown again and
laid at a player's place). `pictable replay` scores the output.

Board coordinates: millimetres from the canvas's top-left corner, x right, y down.
Without --calibration the board is rectified with a plain homography (lens
distortion not corrected, a warning says so). A board the camera sees too coarsely
to count surely (under 0.7 pixels per millimetre), or with a stick that measures
none of the kit's lengths, is still counted, with a "doubt" saying why (and a build
asked about with --video).

examples:
  pictable analyze picasso board.jpg --json
  pictable analyze picasso shots/*.png --annotate out/ --calibration cam.json
  pictable analyze picasso --video turn.mp4 --players Ana,Ben,Chloe > game.jsonl
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyze`` (with its ``picasso`` subcommand) to the CLI."""
    p = sub.add_parser(
        "analyze",
        help="read a game's table: the Picasso board (pieces, counts, cost, events)",
        description="Analyse the table of a game: `picasso` for the Picasso board.",
    )
    what = p.add_subparsers(dest="what", metavar="GAME", required=True)
    pic = what.add_parser(
        "picasso",
        help="pieces, counts and cost on the Picasso board; or a whole turn's events",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pic.add_argument("images", nargs="*", metavar="IMAGE", help="photos of the board")
    pic.add_argument("--json", action="store_true", help="print the result as JSON")
    pic.add_argument("--annotate", metavar="DIR", help="write each board, annotated, into DIR")
    pic.add_argument("--calibration", metavar="FILE", help="camera calibration file (lens, seats)")
    pic.add_argument("--kit", metavar="PROFILE", help="kit profile (`pictable kit learn picasso`)")
    pic.add_argument("--video", metavar="FILE", help="a video file or an image folder of a turn")
    pic.add_argument("--players", help="with --video: players in seating order, e.g. Ana,Ben")
    pic.add_argument(
        "--fps", type=float, default=None, help="with --video on an image folder: frames per second"
    )
    pic.set_defaults(func=run_picasso)


def _error(message: str) -> int:
    print(f"pictable analyze picasso: {message}", file=sys.stderr)
    return 2


def run_picasso(args: argparse.Namespace) -> int:
    """Run ``pictable analyze picasso``; exit 0, 1 (an image could not be analysed) or 2
    (bad arguments or files)."""
    from calibration.files import load as load_calibration
    from calibration.result import CalibrationError
    from vision.picasso.profile import DEFAULT_PROFILE, ProfileError, load_profile

    if args.video and args.images:
        return _error("give IMAGE files or --video, not both")
    if not args.video and not args.images:
        return _error("give one or more IMAGE files, or --video FILE --players A,B,...")
    if args.players and not args.video:
        return _error("--players goes with --video")
    calibration = None
    if args.calibration:
        try:
            calibration = load_calibration(args.calibration)
        except CalibrationError as exc:
            return _error(str(exc))
    profile = DEFAULT_PROFILE
    if args.kit:
        try:
            profile = load_profile(args.kit)
        except ProfileError as exc:
            return _error(str(exc))
    if args.video:
        return _run_video(args, calibration, profile)
    return _run_images(args, calibration, profile)


def _run_images(args: argparse.Namespace, calibration: Any, profile: Any) -> int:
    from pictable.commands.images import annotation_folder

    intrinsics = calibration.intrinsics if calibration is not None else None
    try:
        out_dir = annotation_folder(args.annotate)
    except ValueError as exc:
        return _error(str(exc))
    entries: list[dict[str, Any]] = []
    written: set[str] = set()
    for name in args.images:
        entry = _analyze_one(name, intrinsics, profile, out_dir, written)
        entries.append(entry)
        if not args.json:
            print(_line(entry))
    if args.json:
        json.dump({"images": entries}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 1 if any("error" in e for e in entries) else 0


def _analyze_one(
    name: str, intrinsics: Any, profile: Any, out_dir: Path | None, written: set[str]
) -> dict[str, Any]:
    """One image's JSON entry (docs/formats.md 3); it carries "error" when the image cannot be
    read or analysed, and "annotated" (or "annotation_error") with ``--annotate``."""
    from calibration.result import Failure
    from pictable.commands.images import annotation_path, open_image, write_png
    from vision.picasso.annotate import annotate
    from vision.picasso.reader import read_board
    from vision.picasso.sink import reading_to_json

    entry: dict[str, Any] = {"image": name}
    frame, problem = open_image(name, bgr=True)
    if frame is None:
        entry["error"] = problem
        return entry
    try:
        reading = read_board(frame, intrinsics=intrinsics, profile=profile)
    except Exception as exc:  # a reader bug on one image must not end the run
        entry["error"] = f"analysis failed: {type(exc).__name__}: {exc}"
        return entry
    if isinstance(reading, Failure):
        entry["error"] = reading.reason
        return entry
    entry.update(reading_to_json(reading))
    if out_dir is not None:
        target = annotation_path(out_dir, name, ".picasso.png", written)
        problem = write_png(target, annotate(reading, profile.stick_width_mm))
        if problem:
            entry["annotation_error"] = problem
        else:
            entry["annotated"] = str(target)
    return entry


def _line(entry: dict[str, Any]) -> str:
    """One human line per image."""
    name = entry["image"]
    if "error" in entry:
        return f"{name}: error: {entry['error']}"
    seen: dict[str, int] = {"long_stick": 0, "short_stick": 0, "shape": 0, "string": 0}
    for p in entry["pieces"]:
        seen[p["kind"]] = seen.get(p["kind"], 0) + 1
    text = (
        f"{seen['long_stick']} long, {seen['short_stick']} short, {seen['shape']} shape(s), "
        f"{'the string' if seen['string'] else 'no string'}"
    )
    if entry.get("occluded"):
        covered = 100 * entry["covered_fraction"]
        return f"{name}: occluded ({covered:.0f}% covered), not counted; seen {text}"
    warn = "  [no camera calibration]" if entry.get("warning") else ""
    doubt = f"\n  check the counts: {entry['doubt']}" if entry.get("doubt") else ""
    return f"{name}: cost {entry['cost']}: {text}{warn}{doubt}"


def _run_video(args: argparse.Namespace, calibration: Any, profile: Any) -> int:
    from vision.sources import SourceError, iter_frames, open_source
    from vision.tracker.picasso import PicassoTurnTracker

    players = [p.strip() for p in (args.players or "").split(",") if p.strip()]
    if len(players) < 2:
        return _error("--video needs --players with at least two names, e.g. --players Ana,Ben")
    if len(set(players)) != len(players):
        return _error(f"player names must differ: {players}")
    try:
        source = open_source(args.video, fps=args.fps)
    except (ValueError, FileNotFoundError) as exc:
        return _error(str(exc))
    tracker = PicassoTurnTracker(
        players,
        intrinsics=calibration.intrinsics if calibration is not None else None,
        profile=profile,
        seats=tuple(calibration.seats) if calibration is not None else (),
        play_area_mm=calibration.play_area_mm if calibration is not None else None,
    )
    print(json.dumps(tracker.events[0]))
    try:
        for frame in iter_frames(source):
            for event in tracker.update(frame.image, frame.t):
                print(json.dumps(event), flush=True)
        for event in tracker.finish():
            print(json.dumps(event), flush=True)
    except (SourceError, OSError) as exc:
        return _error(f"{args.video}: {exc}")
    return 0
