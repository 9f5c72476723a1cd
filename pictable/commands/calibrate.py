"""``pictable calibrate camera|table``: camera intrinsics, and the table's play area and seats."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from typing import Any

CAMERA_DESCRIPTION = """\
Computes the camera's intrinsics (focal lengths, principal point, lens distortion)
from photos of a calibration board, or live from the camera. Show the board in
10 to 20 positions: near every edge and corner of the view, tilted different
ways. Writes a versioned JSON calibration file (docs/formats.md section 3: rms_px,
camera_matrix, dist_coeffs, image_size) and prints the RMS reprojection error and
every rejected view with its reason.

Boards: chessboard:COLSxROWS[:SQUARE_MM] (inner corners, as OpenCV counts them;
`pictable kit print calibration` prints one) or
charuco:COLSxROWS:SQUARE_MM:MARKER_MM[:DICT] (squares).

examples:
  pictable calibrate camera shots/*.jpg --board chessboard:9x6:25 --out cam.json
  pictable calibrate camera --camera 0 --board chessboard:9x6:25 --out cam.json
"""

TABLE_DESCRIPTION = """\
Finds the play area (markers 0-3) and the Picasso board (markers 4-7) in a photo
of the table, measures the play area, lays out the seats of the players around it
(the first player at the middle of the bottom edge as the camera sees it, the rest
clockwise) and adds them to the calibration file. --annotate writes the photo with
the planes and seat zones drawn on it.
"""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "calibrate",
        help="calibrate the camera (intrinsics) and the table (play area, seats)",
        description="Calibration: `camera` for the lens, `table` for the play area and seats.",
    )
    what = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    cam = what.add_parser(
        "camera",
        help="camera intrinsics from board photos or live",
        description=CAMERA_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cam.add_argument("images", nargs="*", metavar="IMAGE", help="photos of the board")
    cam.add_argument("--board", required=True, help="the board, e.g. chessboard:9x6:25")
    cam.add_argument("--out", required=True, metavar="FILE", help="calibration file to write")
    cam.add_argument("--camera", type=int, metavar="INDEX", help="calibrate live from this camera")
    cam.add_argument("--json", action="store_true", help="print the calibration as JSON")
    cam.add_argument("--fix-aspect", action="store_true", help="assume square pixels (fx = fy)")
    cam.set_defaults(func=run_camera)
    table = what.add_parser(
        "table",
        help="play area, board plane and seats from a photo of the table",
        description=TABLE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    table.add_argument("image", metavar="IMAGE", help="a photo of the table from the camera")
    table.add_argument("--calibration", metavar="FILE", help="camera calibration file to read")
    table.add_argument("--players", help="players in seating order, e.g. Ana,Ben,Chloe")
    table.add_argument(
        "--play-area", metavar="WxH", help="distance between marker centres in mm (no camera file)"
    )
    table.add_argument("--out", metavar="FILE", help="write the calibration file with the seats")
    table.add_argument("--annotate", metavar="FILE", help="write the annotated photo here")
    table.add_argument("--json", action="store_true", help="print the result as JSON")
    table.set_defaults(func=run_table)


def _error(message: str) -> int:
    print(f"pictable calibrate: {message}", file=sys.stderr)
    return 2


def run_camera(args: argparse.Namespace) -> int:
    import cv2

    from calibration.files import CalibrationFile
    from calibration.intrinsics import BoardSpec, calibrate_files
    from calibration.result import CalibrationError, Failure

    try:
        board = BoardSpec.parse(args.board)
    except CalibrationError as exc:
        return _error(str(exc))
    flags = cv2.CALIB_FIX_ASPECT_RATIO if args.fix_aspect else 0
    if args.camera is not None:
        result = _live(args.camera, board, flags)
    elif not args.images:
        return _error("give board photos, or --camera INDEX to calibrate live")
    else:
        result = calibrate_files(args.images, board, flags)
    if isinstance(result, Failure):
        return _error(f"calibration failed: {result.reason}")
    out = CalibrationFile.from_camera(result)
    try:
        out.save(args.out)
    except OSError as exc:
        return _error(f"cannot write {args.out}: {exc.strerror or exc}")
    if args.json:
        print(json.dumps(out.to_json(), indent=2))
        return 0
    intr = result.intrinsics
    print(f"calibrated from {len(result.views)} views: RMS reprojection error {intr.rms_px:.3f} px")
    print(f"  fx {intr.fx:.2f}  fy {intr.fy:.2f}  cx {intr.cx:.2f}  cy {intr.cy:.2f} px")
    print("  distortion " + " ".join(f"{d:+.4f}" for d in intr.dist_coeffs))
    for name, err in zip(result.views, result.view_rms_px, strict=True):
        print(f"  used      {name}: {err:.3f} px")
    for rejected in result.rejected:
        print(f"  rejected  {rejected.name}: {rejected.reason}")
    print(f"wrote {args.out}")
    return 0


def _live(index: int, board: Any, flags: int) -> Any:
    """Guided live calibration: grabs views while the board moves, shows the coverage."""
    import cv2
    import numpy as np

    from calibration.guide import GRID, CoverageGuide
    from calibration.intrinsics import calibrate, find_board
    from calibration.result import Failure

    cap = cv2.VideoCapture(index)
    if not cap.isOpened():
        return Failure(f"camera {index} cannot be opened")
    window = "pictable calibrate (space: take view now, enter: finish, esc: cancel)"
    show = True
    guide: CoverageGuide | None = None
    last_print = 0.0
    try:
        while True:
            ok, frame = cap.read()
            if not ok or frame is None:
                return Failure(f"camera {index} stopped delivering frames")
            h, w = frame.shape[:2]
            if guide is None:
                guide = CoverageGuide((w, h))
            small = cv2.resize(frame, (w // 2, h // 2)) if w > 960 else frame
            scale = w / small.shape[1]
            found = find_board(small, board, f"view {len(guide.views) + 1}")
            key = -1
            if not isinstance(found, Failure):
                view = type(found)(found.name, found.image_px * scale, found.object_mm, (w, h))
                full = find_board(frame, board, view.name)
                if not isinstance(full, Failure):
                    guide.offer(full)
            if show:
                overlay = frame.copy()
                cw, ch = w / GRID[0], h / GRID[1]
                for r in range(GRID[1]):
                    for c in range(GRID[0]):
                        if guide.covered[r, c]:
                            p0 = (int(c * cw), int(r * ch))
                            p1 = (int((c + 1) * cw), int((r + 1) * ch))
                            cv2.rectangle(overlay, p0, p1, (0, 160, 0), -1)
                frame = cv2.addWeighted(overlay, 0.3, frame, 0.7, 0)
                cv2.putText(
                    frame,
                    guide.advice(),
                    (10, 30),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.6,
                    (255, 255, 255),
                    2,
                )
                try:
                    cv2.imshow(window, frame)
                    key = cv2.waitKey(1) & 0xFF
                except cv2.error:
                    show = False  # no display: guide on the terminal instead
            now = time.monotonic()
            if now - last_print > 2.0:
                print(guide.advice(), file=sys.stderr)
                last_print = now
            if key == 27:
                return Failure("cancelled")
            if key in (10, 13) or (guide.enough and not show):
                break
            if guide.enough and show:
                cv2.putText(
                    frame,
                    "enough views: press enter",
                    (10, 60),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.7,
                    (0, 255, 0),
                    2,
                )
        assert guide is not None
        _ = np  # keep numpy imported for the view arithmetic above
        return calibrate(guide.views, board, flags=flags)
    finally:
        cap.release()
        if show:
            with contextlib.suppress(cv2.error):
                cv2.destroyAllWindows()


def run_table(args: argparse.Namespace) -> int:
    import cv2

    from calibration.files import CalibrationFile, load
    from calibration.intrinsics import read_image
    from calibration.markers import detect_fiducials
    from calibration.planes import PlaneFit, fit_board, fit_table
    from calibration.result import CalibrationError, Failure
    from calibration.seats import layout_seats

    cal = CalibrationFile()
    if args.calibration:
        try:
            cal = load(args.calibration)
        except CalibrationError as exc:
            return _error(str(exc))
    image = read_image(args.image)
    if isinstance(image, Failure):
        return _error(f"{args.image}: {image.reason}")
    intr = cal.intrinsics
    if intr is not None and intr.image_size != (image.shape[1], image.shape[0]):
        intr = intr.scaled_to((image.shape[1], image.shape[0]))
    play_area = cal.play_area_mm
    if args.play_area:
        try:
            w_s, h_s = args.play_area.lower().split("x")
            play_area = (float(w_s), float(h_s))
        except ValueError:
            return _error(f"--play-area {args.play_area!r}: use WxH in mm, e.g. 800x600")
    markers = detect_fiducials(image)
    table = fit_table(markers, intr, play_area)
    board = fit_board(markers, intr)
    result: dict[str, Any] = {"image": args.image, "markers": sorted(markers)}
    for name, fit in (("table", table), ("board", board)):
        if isinstance(fit, PlaneFit):
            result[name] = {
                "markers": list(fit.markers),
                "rms_px": round(fit.rms_px, 3),
                "size_mm": [round(v, 1) for v in fit.size_mm],
                "warning": fit.warning,
            }
        else:
            result[name] = {"error": fit.reason}
    seats = ()
    if isinstance(table, PlaneFit) and args.players:
        names = [p.strip() for p in args.players.split(",") if p.strip()]
        seats = layout_seats(names, table.size_mm)
        result["seats"] = [s.name for s in seats]
    if args.out:
        if not isinstance(table, PlaneFit):
            return _error(f"cannot write the table calibration: {table.reason}")
        updated = CalibrationFile(
            intrinsics=cal.intrinsics,
            board=cal.board,
            views=cal.views,
            view_rms_px=cal.view_rms_px,
            rejected=cal.rejected,
            play_area_mm=table.size_mm,
            seats=seats or cal.seats,
        )
        try:
            updated.save(args.out)
        except OSError as exc:
            return _error(f"cannot write {args.out}: {exc.strerror or exc}")
    if args.annotate:
        from calibration.draw import draw_planes

        ok = cv2.imwrite(args.annotate, draw_planes(image, table, board, seats))
        if not ok:
            return _error(f"cannot write {args.annotate}")
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name in ("table", "board"):
            part = result[name]
            if "error" in part:
                print(f"{name}: {part['error']}")
            else:
                w, h = part["size_mm"]
                print(
                    f"{name}: markers {part['markers']}, {w:.0f} x {h:.0f} mm, "
                    f"error {part['rms_px']} px"
                )
                if part["warning"]:
                    print(f"  warning: {part['warning']}")
        if seats:
            print("seats: " + ", ".join(s.name for s in seats))
    return 0 if isinstance(table, PlaneFit) or isinstance(board, PlaneFit) else 1
