"""``kit learn picasso``: measure the owner's own pieces and write a kit profile.

Lay every kind of piece on the board, apart from each other (at least a finger's width
between pieces): both stick lengths, each shape kind, each colour, and the string. From one
photo (or a camera frame), ``learn_kit`` finds the board, looks at the canvas from above,
and, without assuming any colour, takes every patch that differs from the canvas:

- **sticks**: straight bars (the minimum-area rectangle is at least 3 times as long as
  wide and the patch fills it): the lengths fall into two groups, long and short (the
  largest gap between sorted lengths); the width is the median width; the wood's colour
  the median colour of their pixels;
- **the string**: thin dark patches (under a third of its bounding rectangle filled, or an
  inscribed width under 5 mm); its thickness is area / centre-line length;
- **shapes**: compact patches, named circle, square, triangle or half-circle by their
  outline (``shapes.template_geometry`` at unit size: fills and aspect do not depend on
  the size), sized from their area; colours grouped (patches within 12 L*a*b* units are
  one colour) and named after the nearest default colour when close to one, else by hue.

The profile's format is documented in ``vision.picasso.profile``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.intrinsics import Intrinsics
from calibration.result import Failure
from vision.picasso.board import PX_PER_MM, find_board
from vision.picasso.profile import (
    DEFAULT_PROFILE,
    SHAPE_KINDS,
    KitProfile,
    ShapeSize,
    StickSize,
    shape_area_mm2,
)
from vision.picasso.segment import WHITE_LEVEL, lab_of, normalise
from vision.picasso.shapes import ShapeGeometry, measure, template_geometry
from vision.sources.guard import check_frame


@dataclass(frozen=True)
class LearnedKit:
    """What ``learn_kit`` found: the ``profile``, and what it is based on: the measured
    stick lengths (mm), the shapes (kind, size mm, colour name), the string's thickness
    (mm, or None if no string was laid), and ``notes`` (what could not be measured and was
    kept from the default profile)."""

    profile: KitProfile
    stick_lengths_mm: tuple[float, ...]
    shapes: tuple[tuple[str, float, str], ...]
    string_thickness_mm: float | None
    notes: tuple[str, ...] = field(default_factory=tuple)


def _foreground(norm: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """(H, W) uint8 0/1: pixels that differ from the canvas (lighter, darker or coloured)."""
    lab = cv2.cvtColor(
        np.clip(norm.astype(np.float32) / WHITE_LEVEL, 0, 1).astype(np.float32), cv2.COLOR_BGR2Lab
    )
    big_l, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    chroma = np.hypot(a, b)
    return ((chroma > 14.0) | (big_l < 62.0)).astype(np.uint8)


def _hue_name(lab: tuple[float, float, float]) -> str:
    hue = math.degrees(math.atan2(lab[2], lab[1])) % 360
    names = [
        (15, "pink"),
        (50, "red"),
        (75, "orange"),
        (105, "yellow"),
        (200, "green"),
        (240, "cyan"),
        (300, "blue"),
        (345, "purple"),
        (360, "pink"),
    ]
    for limit, name in names:
        if hue < limit:
            return name
    return "pink"


def learn_kit(
    frame: NDArray[np.uint8],
    *,
    intrinsics: Intrinsics | None = None,
    name: str = "learned",
    source: str = "",
) -> LearnedKit | Failure:
    """Measure the pieces laid apart on the board in ``frame`` ((H, W, 3) uint8 BGR) and
    build a kit profile (module docstring). A ``Failure`` says why not: no board, or no
    sticks found (at least one long and one short stick are needed)."""
    check_frame(frame, "frame")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    view = find_board(frame, gray, intrinsics, PX_PER_MM)
    if isinstance(view, Failure):
        return view
    s = view.px_per_mm
    norm = normalise(view.canvas, s)
    fg = _foreground(norm)
    edge = round(3 * s)
    fg[:edge] = fg[-edge:] = 0
    fg[:, :edge] = fg[:, -edge:] = 0
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    sticks: list[tuple[float, float]] = []  # (length, width)
    wood_px: list[NDArray[np.float32]] = []
    string_parts: list[tuple[float, float]] = []  # (area, centre-line length) mm
    string_px: list[NDArray[np.float32]] = []
    shapes: list[tuple[ShapeGeometry, NDArray[np.float32]]] = []
    for c in contours:
        area = cv2.contourArea(c) / (s * s)
        if area < 60.0:
            continue
        mask = np.zeros(fg.shape, np.uint8)
        cv2.drawContours(mask, [c], -1, 1, cv2.FILLED)
        inner = cv2.erode(mask, np.ones((5, 5), np.uint8)).astype(bool)
        colour = lab_of(norm, inner if inner.any() else mask.astype(bool))
        (_, _), (rw, rh), _ = cv2.minAreaRect(c)
        long_side, short_side = max(rw, rh) / s, min(rw, rh) / s
        fill = area / max(long_side * short_side, 1e-6)
        radius = cv2.distanceTransform(mask, cv2.DIST_L2, 3).max() / s
        if fill < 0.35 or radius < 2.5:
            string_parts.append((area, _centre_line_mm(mask, s)))
            string_px.append(colour)
        elif long_side >= 3.0 * short_side and fill > 0.8:
            sticks.append((long_side, short_side))
            wood_px.append(colour)
        else:
            shapes.append((measure(c, s), colour))
    if len(sticks) < 2:
        return Failure(
            f"found {len(sticks)} stick(s): lay at least one long and one short stick apart "
            "on the board"
        )
    lengths = sorted(length for length, _ in sticks)
    gaps = np.diff(lengths)
    cut = int(np.argmax(gaps))
    if gaps[cut] < 0.25 * lengths[cut + 1]:
        return Failure(
            f"the sticks measure {[round(v) for v in lengths]} mm: no long and short group "
            "(lay at least one of each)"
        )
    short = float(np.median(lengths[: cut + 1]))
    long_ = float(np.median(lengths[cut + 1 :]))
    width = float(np.median([w for _, w in sticks]))
    wood = np.median(np.concatenate(wood_px), axis=0)
    notes: list[str] = []
    learned_shapes, colours, shape_report = _shapes(shapes, notes)
    if string_parts:
        area = sum(a for a, _ in string_parts)
        line = sum(length for _, length in string_parts)
        thickness: float | None = float(np.clip(area / max(line, 1.0), 0.8, 8.0))
        string_lab = tuple(float(v) for v in np.median(np.concatenate(string_px), axis=0))
    else:
        thickness = None
        string_lab = DEFAULT_PROFILE.string_lab
        notes.append("no string found: its thickness and colour are the default")
    profile = KitProfile(
        name=name,
        source=source or "learned by pictable kit learn picasso",
        sticks=(
            StickSize("long_stick", round(long_, 1), round(width, 1)),
            StickSize("short_stick", round(short, 1), round(width, 1)),
        ),
        wood_lab=(float(wood[0]), float(wood[1]), float(wood[2])),
        shapes=learned_shapes,
        colours=colours,
        string_thickness_mm=thickness
        if thickness is not None
        else DEFAULT_PROFILE.string_thickness_mm,
        string_lab=(float(string_lab[0]), float(string_lab[1]), float(string_lab[2])),
    )
    return LearnedKit(
        profile,
        tuple(round(v, 1) for v in lengths),
        tuple(shape_report),
        None if thickness is None else round(thickness, 2),
        tuple(notes),
    )


def _centre_line_mm(mask: NDArray[np.uint8], s: float) -> float:
    """Length (mm) of a thin patch's centre line: its skeleton's pixel count."""
    from skimage.morphology import skeletonize

    return float(skeletonize(mask.astype(bool)).sum()) / s


def _shapes(
    shapes: list[tuple[ShapeGeometry, NDArray[np.float32]]], notes: list[str]
) -> tuple[
    tuple[ShapeSize, ...], dict[str, tuple[float, float, float]], list[tuple[str, float, str]]
]:
    """Kinds, sizes and colours of the shape patches (module docstring)."""
    by_kind: dict[str, list[float]] = {}
    medians: list[NDArray[np.float64]] = []
    kinds: list[str] = []
    for geom, colour in shapes:
        best, best_d = "", math.inf
        for kind in SHAPE_KINDS:
            _, rf, cf, asp = template_geometry(ShapeSize(kind, 1.0, 1.0))
            d = math.hypot((geom.rect_fill - rf) / 0.08, (geom.circle_fill - cf) / 0.08)
            d = math.hypot(d, (geom.aspect - asp) / 0.12)
            if d < best_d:
                best, best_d = kind, d
        size = _size_from_area(best, geom.area_mm2)
        by_kind.setdefault(best, []).append(size)
        kinds.append(best)
        medians.append(np.median(colour, axis=0).astype(np.float64))
    learned = []
    for kind in SHAPE_KINDS:
        if kind in by_kind:
            size = float(np.median(by_kind[kind]))
            learned.append(ShapeSize(kind, round(size, 1), round(shape_area_mm2(kind, size), 1)))
    if not learned:
        notes.append("no shapes found: the default shapes and colours are kept")
        return DEFAULT_PROFILE.shapes, dict(DEFAULT_PROFILE.colours), []
    missing = [k for k in SHAPE_KINDS if k not in by_kind]
    if missing:
        notes.append(f"no {', '.join(missing)} found: those kinds are not in the profile")
    # group colours
    groups: list[list[int]] = []
    for i, m in enumerate(medians):
        for g in groups:
            if np.linalg.norm(medians[g[0]][1:] - m[1:]) < 12.0:
                g.append(i)
                break
        else:
            groups.append([i])
    colours: dict[str, tuple[float, float, float]] = {}
    names: dict[int, str] = {}
    for g in groups:
        lab = np.median(np.stack([medians[i] for i in g]), axis=0)
        near = min(
            DEFAULT_PROFILE.colours.items(),
            key=lambda kv: float(np.hypot(kv[1][1] - lab[1], kv[1][2] - lab[2])),
        )
        name = (
            near[0]
            if np.hypot(near[1][1] - lab[1], near[1][2] - lab[2]) < 35
            else _hue_name((float(lab[0]), float(lab[1]), float(lab[2])))
        )
        base, k = name, 2
        while name in colours:
            name = f"{base}{k}"
            k += 1
        colours[name] = (round(float(lab[0]), 1), round(float(lab[1]), 1), round(float(lab[2]), 1))
        for i in g:
            names[i] = name
    report = [
        (kinds[i], round(_size_from_area(kinds[i], shapes[i][0].area_mm2), 1), names[i])
        for i in range(len(shapes))
    ]
    return tuple(learned), colours, report


def _size_from_area(kind: str, area: float) -> float:
    """The diameter or side (mm) of a shape of ``kind`` with ``area`` (mm^2)."""
    return math.sqrt(area / shape_area_mm2(kind, 1.0))


def run_kit_learn(
    images: list[str],
    out: str,
    *,
    camera: str | None = None,
    calibration: str | None = None,
    name: str | None = None,
) -> int:
    """The body of ``pictable kit learn picasso IMAGE|--camera INDEX --out FILE``: learn
    from the first photo (or a frame of the camera) in which the board and its pieces are
    found, write the profile to ``out``, print what was measured. Returns the exit status:
    0 written, 1 nothing learnable, 2 bad arguments or files."""
    import sys
    from pathlib import Path

    from calibration.files import load as load_calibration
    from calibration.result import CalibrationError

    def error(message: str, code: int = 2) -> int:
        print(f"pictable kit learn picasso: {message}", file=sys.stderr)
        return code

    if bool(images) == bool(camera is not None):
        return error("give IMAGE files or --camera INDEX (one of them)")
    intr = None
    if calibration:
        try:
            intr = load_calibration(calibration).intrinsics
        except CalibrationError as exc:
            return error(str(exc))
    frames: list[tuple[str, NDArray[np.uint8] | None]] = []
    if camera is not None:
        from vision.sources import SourceError, open_source

        try:
            src = open_source(camera)
            src.open()
            try:
                for _ in range(10):  # let the exposure settle
                    got = src.read()
                frames.append((f"camera {camera}", None if got is None else got.image))
            finally:
                src.close()
        except (SourceError, OSError, ValueError) as exc:
            return error(f"camera {camera}: {exc}")
    else:
        for path in images:
            img = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
            frames.append((path, img))
    reasons = []
    for label, frame in frames:
        if frame is None:
            reasons.append(f"{label}: cannot read the image")
            continue
        result = learn_kit(
            frame, intrinsics=intr, name=name or Path(out).stem, source=f"learned from {label}"
        )
        if isinstance(result, Failure):
            reasons.append(f"{label}: {result.reason}")
            continue
        try:
            result.profile.save(out)
        except OSError as exc:
            return error(f"cannot write {out}: {exc.strerror or exc}")
        p = result.profile
        sticks = ", ".join(f"{s.kind} {s.length_mm:g} x {s.width_mm:g} mm" for s in p.sticks)
        shapes = ", ".join(f"{s.kind} {s.size_mm:g} mm" for s in p.shapes)
        print(f"{out}: learned from {label}")
        print(f"  sticks: {sticks} (measured: {list(result.stick_lengths_mm)})")
        print(f"  shapes: {shapes}; colours: {', '.join(p.colours)}")
        thick = result.string_thickness_mm
        print(f"  string: {f'{thick:.1f} mm thick' if thick else 'not found (default kept)'}")
        for note in result.notes:
            print(f"  note: {note}")
        return 0
    for r in reasons:
        print(f"pictable kit learn picasso: {r}", file=sys.stderr)
    return 1
