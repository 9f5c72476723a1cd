"""The Picasso board reader: one frame in, one ``BoardReading`` (or a ``Failure``) out.

Stateless per frame (the tracker keeps time). The steps, each in its own module:

1. ``board``: markers 4-7, the board plane, the canvas rectified to ``PX_PER_MM``;
2. ``segment``: pixel classes relative to the canvas (wood, dark, grey, the shape colours),
   by the colour table where the pixel model (``pixel_model``) confirms it, else by the model;
3. ``occlusion.wide_wood``: skin-coloured patches too wide for sticks are set aside;
4. ``cord``: the string among the dark pixels;
5. ``sticks``: the smallest set of stick rectangles explaining the wood (``stick_colour``:
   a "stick" of the string's colour, not the wood's, is the string);
6. ``shapes``: colour patches named by outline (and the ONNX model, ``shape_model``);
7. ``occlusion.find_occluders``: what nothing explains and is more than a speck.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.intrinsics import Intrinsics
from calibration.result import Failure
from vision.picasso import masks
from vision.picasso import segment as seg
from vision.picasso.board import PX_PER_MM, BoardView, find_board
from vision.picasso.cord import (
    CordReading,
    faint_cord,
    find_cord,
    thin_lines,
    with_lines,
    without_shadow_lines,
)
from vision.picasso.occlusion import (
    Outside,
    dark_objects,
    entering,
    find_occluders,
    model_arms,
    stray_patches,
    wide_wood,
)
from vision.picasso.pairs import merge_pairs
from vision.picasso.profile import DEFAULT_PROFILE, KitProfile, Lab, StickSize
from vision.picasso.reading import BoardReading, Cord, Occlusion, Shape, Stick
from vision.picasso.roles import hue_name
from vision.picasso.seams import Lightness, seam_cues
from vision.picasso.shape_model import ShapeNamer, default_namer
from vision.picasso.shapes import (
    ShapePatch,
    classify_geometry,
    colour_patches,
    join_split,
    solid_shapes,
    stick_specks,
    without_nested,
)
from vision.picasso.stick_colour import string_coloured
from vision.picasso.stick_extend import extend_short
from vision.picasso.stick_like import across, middle_samples, own_colour
from vision.picasso.stick_lines import DARK_PX, blur_halo, string_fringe, wood_map
from vision.picasso.sticks import (
    STRETCH_MAX,
    StickFit,
    find_sticks,
    stick_kind,
    stick_size,
)
from vision.sources.guard import check_frame


def read_board(
    frame: NDArray[np.uint8],
    *,
    intrinsics: Intrinsics | None = None,
    profile: KitProfile = DEFAULT_PROFILE,
    namer: ShapeNamer | None = None,
) -> BoardReading | Failure:
    """Read the Picasso board in ``frame`` ((H, W, 3) uint8 BGR).

    Args:
        frame: the camera frame.
        intrinsics: the camera's calibration (lens model); None rectifies with a plain
            homography, and the reading carries a warning.
        profile: the kit's sizes and colours (``vision.picasso.profile``).
        namer: names shape kinds (geometry, the ONNX model, or both); None uses the
            default (``vision.picasso.shape_model.default_namer``).

    Returns:
        the reading, or a ``Failure`` when no board is found (markers 4-7 missing, or they
        do not fit a flat board).

    Raises:
        ValueError: ``frame`` is not (H, W, 3) uint8.
    """
    check_frame(frame, "frame")
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    view = find_board(frame, gray, intrinsics, PX_PER_MM)
    if isinstance(view, Failure):
        return view
    return read_canvas(view, profile, namer if namer is not None else default_namer())


def read_canvas(view: BoardView, profile: KitProfile, namer: ShapeNamer) -> BoardReading:
    """The pieces on a rectified canvas (steps 2-7 of the module docstring)."""
    s = view.px_per_mm
    # how finely the camera saw the canvas (frame px per mm), asked three times below
    frame_s = view.frame_px_per_mm
    sg = seg.segment(view.canvas, s, profile)
    labels = sg.labels
    wood = (labels == seg.WOOD).astype(np.uint8)
    dark = (labels == seg.DARK).astype(np.uint8)
    grey = (labels == seg.GREY).astype(np.uint8)
    other = (labels == seg.OTHER).astype(np.uint8)
    # Set aside wood-coloured patches too wide for sticks (palms, arms); those a kit shape's
    # outline fits are shapes (a pale disc under a glare, a shape of the wood's colour), and
    # so are such patches of what the classes call none of the pieces.
    wide = wide_wood(wood, s)
    solid = solid_shapes(wide | other, sg.normalised, seg.WHITE_LEVEL, s, profile)
    for p in solid:
        x, y, w, h = p.box
        for m in (wide, wood, other):
            m[y : y + h, x : x + w] &= 1 - p.mask
    cord = find_cord(dark, s, profile, grey)
    # The string by its shape, whatever its colour: thin lines of anything but canvas and
    # shadow. What they cover is the string's, not wood's or a shape's.
    ink = ((labels != seg.CANVAS) & (labels != seg.GREY)).astype(np.uint8)
    lines = thin_lines(ink, s, profile, grey)
    if lines.any():
        cord = with_lines(cord, lines, s, profile)
        labels = labels.copy()
        labels[lines > 0] = seg.DARK
        wood &= 1 - lines
        other &= 1 - lines
        dark = (labels == seg.DARK).astype(np.uint8)
    # The pixels of a shape's colour (the labels change no more).
    colour_px = (labels >= seg.FIRST_COLOUR).astype(np.uint8)
    # Hard drop shadows: thin dark lines hugging a piece's edge all along.
    cord = without_shadow_lines(cord, wood | colour_px, s, profile)
    # Shadows, dark specks that are not the string, and what the classes call none of the
    # pieces where it is too small to be a hand (a stick of a look they did not know, most
    # often): unknown, neither wood nor bare canvas.
    unsure = grey | (dark & (1 - cord.mask))
    if other.any():
        unsure |= stray_patches(other, s)
    if sg.model_classes is not None and colour_px.any():
        unsure |= stick_specks(colour_px, wood, sg.model_classes, s, profile)
    wm = wood_map(wood & (1 - wide), cord.mask, unsure)
    np.putmask(wm, wide > 0, 0)
    blur_halo(wm, cord.mask, s, frame_s)
    string_fringe(wm, cord.mask, s, profile.stick_width_mm)
    stick_fits, explained = find_sticks(
        wm, s, profile, cv2.cvtColor(sg.normalised, cv2.COLOR_BGR2GRAY)
    )
    stick_fits, explained = extend_short(
        stick_fits, explained, wm, s, profile, sg.normalised, colour_px
    )
    stick_fits = join_overlapping(stick_fits, profile)

    def joined(fits: list[StickFit], shapes: NDArray[np.uint8]) -> list[StickFit]:
        return join_in_line(
            fits, sg.normalised, s, profile, wm, frame_px_per_mm=frame_s, shapes=shapes
        )

    stick_fits = joined(stick_fits, colour_px)
    stick_fits = split_at_seams(stick_fits, sg.normalised, s, profile, wm, colour_px)
    # A "stick" of the string's colour, not the wood's, is the string (where it lies over a
    # heap or along a stick, the classes may call it wood).
    gone = set(string_coloured(stick_fits, sg.normalised, cord.mask, s, profile.stick_width_mm))
    stick_fits = [f for i, f in enumerate(stick_fits) if i not in gone]
    # Shapes: colours mended under the string.
    patches: list[ShapePatch] = []
    # Dark patches too thick for the string, unless they are the speckle of a shadow.
    thick = dark_objects(cord.thick, sg.normalised, s)
    foreign = wide | other | thick
    edge = round(2.0 * s)
    outside = Outside(view)
    for k, name in enumerate(sg.colour_names):
        code = seg.FIRST_COLOUR + k
        parts: list[ShapePatch] = []
        found, too_big = colour_patches(labels, code, name, s, profile, parts)
        found = join_split(found, labels, s, profile, parts)
        for p in found:
            # A patch cut by the canvas edge is not a piece lying on the canvas: a sleeve.
            x, y, w, h = p.box
            if (
                x <= edge
                or y <= edge
                or x + w >= labels.shape[1] - edge
                or y + h >= labels.shape[0] - edge
            ) and outside.reaches_out(p.mask > 0, x, y, edge + 1, labels.shape[:2], s):
                too_big.append(p.contour_px)
            else:
                patches.append(p)
        if too_big:
            cv2.drawContours(foreign, too_big, -1, 1, cv2.FILLED)
    for p in solid:
        x, y, w, h = p.box
        lab = seg.lab_of(sg.normalised[y : y + h, x : x + w], p.mask > 0)
        name = hue_name(lab.mean(0)) if len(lab) else "pale"
        patches.append(replace(p, colour=name))
    named = [(p, _shape(p, s, profile, namer, view.canvas)) for p in patches]
    if profile.seen is not None and profile.seen.colours:
        named = [
            (p, None if sh is None else _seen_colour(sh, p, sg.normalised, profile.seen.colours))
            for p, sh in named
        ]
    # (one shape found twice, a patch of it inside its own outline, counts once)
    shapes = without_nested([sh for _, sh in named if sh is not None])
    # (where sticks of a shape's colour cross or meet, the corner between them is theirs)
    leftovers = stick_leftovers(named, stick_fits, sg.normalised, s, profile)
    shapes = [sh for sh in shapes if id(sh) not in leftovers]
    accepted = [p for p, sh in named if sh is not None]
    for p, sh in named:
        if sh is None:  # not a shape (the model says so): something foreign
            x, y, w, h = p.box
            foreign[y : y + h, x : x + w] |= p.mask
    # Unexplained wood and colour, and what never could be a piece.
    near = cv2.dilate(
        explained.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    )
    leftover_wood = wood & (1 - near)
    shape_px = np.zeros_like(colour_px)
    for p in accepted:
        x, y, w, h = p.box
        shape_px[y : y + h, x : x + w] |= p.mask
    shape_px = cv2.dilate(shape_px, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    # Whatever comes in over the canvas edge like an arm, explained by a "stick" or not.
    shape_solid = np.zeros_like(colour_px)
    for p in accepted:
        x, y, w, h = p.box
        shape_solid[y : y + h, x : x + w] |= p.mask
    # A short stick half under a shape: its visible part too short for the stick search.
    if shapes:
        under = sticks_under_shapes(leftover_wood, shape_solid, s, profile)
        for f in under:
            stick_fits.append(f)
            _draw_stick(leftover_wood, f, s, 0, max(1, round(profile.stick_width_mm * s) + 2))
        if under:
            # a long stick passing under a shape: its part beyond the shape, found here, and
            # its part found before lie in one line across the shape
            stick_fits = joined(stick_fits, shape_solid)
    laid = np.asarray(near, np.uint8) | shape_px  # what the pieces found explain
    coming_in = entering(
        (wood | other | colour_px | thick) & (1 - shape_solid), s, sg.margins, outside, laid
    )
    candidates = foreign | leftover_wood | (colour_px & (1 - shape_px)) | coming_in
    if sg.model_classes is not None:
        candidates = candidates | model_arms(sg.model_classes, candidates.shape, s, sg.margins)
    occ = find_occluders(candidates, s)
    occlusion = None
    if occ.any:
        contours, _ = cv2.findContours(occ.mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        outlines = tuple(
            view.canvas_px_to_mm(cv2.approxPolyDP(c, 1.5, True).reshape(-1, 2)) for c in contours
        )
        occlusion = Occlusion(round(occ.fraction, 4), outlines)
    if occlusion is not None:
        # Under a hand: what "pieces" lie mostly under it are the hand itself.
        stick_fits = [f for f in stick_fits if _under(occ.mask, [f.p0, f.p1], s) < 0.3]
        shapes = [sh for sh in shapes if _under(occ.mask, sh.outline_mm, s) < 0.3]
    sticks = tuple(
        Stick(f.kind, _r2(f.p0), _r2(f.p1), round(f.length_mm, 1), f.seam) for f in stick_fits
    )
    if not cord.present and sg.model_logits is not None and occlusion is None:
        cord = _faint_string(cord, sg.model_logits, stick_fits, shape_solid, s, profile)
    string = Cord(round(cord.length_mm, 1), cord.points_mm) if cord.present else None
    odd = None
    if occlusion is None:  # (an occluded reading is asked about already)
        odd = length_doubt(stick_fits, profile, lambda f: _end_at_shape(f, shape_solid, s))
    return BoardReading(
        sticks=sticks,
        shapes=tuple(shapes),
        string=string,
        occlusion=occlusion,
        markers=view.fit.markers,
        fit_rms_px=round(view.fit.rms_px, 3),
        warning=view.fit.warning,
        canvas=view.canvas,
        px_per_mm=s,
        fit=view.fit,
        doubt=_doubt(coarse_doubt(frame_s, profile.stick_width_mm), odd),
    )


def _doubt(*reasons: str | None) -> str | None:
    """The reasons given, joined; None without any."""
    given = [r for r in reasons if r]
    return "; ".join(given) if given else None


#: Below this many frame pixels per board millimetre the counts are in doubt: a stick is
#: then under 5.6 px wide, blurred into its neighbours in a heap and into the string. Our
#: renderer's hard boards (kit look run seed 0, development looks run seeds 1 and 3; 127
#: counted boards, 2026-12-04) read exactly on 12 of 31 boards seen under 0.7 px/mm, 44 of
#: 68 at 0.7-1.0 and 27 of 28 at 1.0 or more; its normal boards are all seen at 0.82 or more.
COARSE_PX_PER_MM = 0.7

#: A shape smaller than this share of its kind's kit area, against this many of the sticks
#: found or more (their rectangles grown by this, mm), of their colour within this (levels
#: of the normalised picture) is their leftover (``stick_leftovers``). Chosen on the 18
#: development sets: 8 boards' shapes counted right that were one too many, none lost;
#: against one stick (under 0.6 of the area), a real shape under a stick of its colour was
#: lost (our hard development looks run seed 3, board 33).
LEFTOVER_AREA = 0.8
LEFTOVER_STICKS = 2
LEFTOVER_REACH_MM = 2.0
LEFTOVER_COLOUR = 25.0


def _faint_string(
    cord: CordReading,
    logits: NDArray[np.float32],
    fits: list[StickFit],
    shapes: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
) -> CordReading:
    """The string, where none was found among the classes, by the pixel model's string
    probability (``cord.faint_cord``) away from the sticks and shapes read: ``cord`` when
    that finds none either."""
    pieces = shapes.copy()
    width = max(1, round(profile.stick_width_mm * s))
    for f in fits:
        _draw_stick(pieces, f, s, 1, width)
    faint = faint_cord(logits, pieces, s, profile)
    return faint if faint.present else cord


def stick_leftovers(
    named: list[tuple[ShapePatch, Shape | None]],
    fits: list[StickFit],
    normalised: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
) -> set[int]:
    """The ``id`` of each shape of ``named`` that is the sticks' own leftover, not a shape:
    smaller than ``LEFTOVER_AREA`` of its kind's kit area, against ``LEFTOVER_STICKS`` or
    more of the sticks found (``fits``, their rectangles grown by ``LEFTOVER_REACH_MM``),
    its mean colour within ``LEFTOVER_COLOUR`` levels of theirs (the median of their own
    colours along their middles, in the ``normalised`` picture): where sticks painted in a
    shape's colour cross or meet, the corner between them."""
    out: set[int] = set()
    if len(fits) < LEFTOVER_STICKS:
        return out
    areas = {k.kind: k.area_mm2 for k in profile.shapes}
    width = max(1, round((profile.stick_width_mm + 2 * LEFTOVER_REACH_MM) * s))
    rects: list[NDArray[np.uint8]] = []
    for p, sh in named:
        if sh is None or not sh.area_mm2 < LEFTOVER_AREA * areas.get(sh.shape, 0.0):
            continue
        if not rects:
            for f in fits:
                rects.append(np.zeros(normalised.shape[:2], np.uint8))
                _draw_stick(rects[-1], f, s, 1, width)
        x, y, w, h = p.box
        touch = [
            f for f, m in zip(fits, rects, strict=True) if (m[y : y + h, x : x + w] & p.mask).any()
        ]
        if len(touch) < LEFTOVER_STICKS:
            continue
        theirs = [c for c in (own_colour(normalised, f, s) for f in touch) if c is not None]
        mine = normalised[y : y + h, x : x + w][p.mask > 0].astype(np.float32).mean(axis=0)
        if theirs and float(np.linalg.norm(np.median(theirs, axis=0) - mine)) < LEFTOVER_COLOUR:
            out.add(id(sh))
    return out


def _draw_stick(mask: NDArray[np.uint8], f: StickFit, s: float, value: int, width: int) -> None:
    """Draw stick ``f``'s centre line (board mm) into ``mask`` (at ``s`` px/mm, pixel
    centres at integer coordinates), ``width`` pixels wide, in place."""
    p0 = (round(f.p0[0] * s - 0.5), round(f.p0[1] * s - 0.5))
    p1 = (round(f.p1[0] * s - 0.5), round(f.p1[1] * s - 0.5))
    cv2.line(mask, p0, p1, value, width)


def coarse_doubt(frame_px_per_mm: float, stick_width_mm: float) -> str | None:
    """Why the counts are in doubt when the camera saw the board under
    ``COARSE_PX_PER_MM``, else None."""
    if not frame_px_per_mm < COARSE_PX_PER_MM:  # NaN too: no doubt said of a scale unknown
        return None
    return (
        f"the camera sees the board coarsely ({frame_px_per_mm:.2f} px/mm, a stick "
        f"{frame_px_per_mm * stick_width_mm:.1f} px wide): the counts may be wrong; bring the "
        "camera closer or zoom in"
    )


#: A stick measured farther than this (log of the ratio) from every kit stick's length puts
#: the counts in doubt (``length_doubt``): under 41 or over 61 mm and under 82 or over 122
#: for KIT.md's 50 and 100 mm sticks. Such a stick is a short one seen in part, a long one
#: partly hidden, or a stretch run on into a neighbour: the kind it is named may be wrong.
#: On the 14 development sets (``pictable.bench.readers.picasso_sets``; 979 counted boards,
#: 118 wrong; 2026-12-06), with the coarse view's doubt: wrong boards not in doubt 97 -> 61
#: (normal tier 23 -> 15, hard 74 -> 46), right boards in doubt 22 -> 54 (normal 0 -> 16 of
#: 665, hard 22 -> 38 of 196). Without the shape's exception, boards with such a stick: at
#: 0.2, 95 (54 wrong); at 0.15, 126 (62 wrong); at 0.25, 71 (41 wrong).
ODD_LENGTH_LOG = 0.2


#: A stick with an end this near a shape (mm) may end under it: what shows of it is
#: shorter than its kit length, and rightly so (issue 25's hard case of a shape half over a
#: stick; ``sticks_under_shapes``). Its length puts no count in doubt.
END_AT_SHAPE_MM = 3.0


def _end_at_shape(f: StickFit, shapes: NDArray[np.uint8], s: float) -> bool:
    """Whether an end of ``f`` (board mm) lies within ``END_AT_SHAPE_MM`` of a pixel of
    ``shapes`` ((H, W) uint8 0/1 at ``s`` px/mm; a square window)."""
    h, w = shapes.shape
    r = END_AT_SHAPE_MM * s
    for x, y in (f.p0, f.p1):
        cx, cy = x * s - 0.5, y * s - 0.5
        x0, x1 = max(0, math.floor(cx - r)), min(w, math.ceil(cx + r) + 1)
        y0, y1 = max(0, math.floor(cy - r)), min(h, math.ceil(cy + r) + 1)
        if x0 < x1 and y0 < y1 and shapes[y0:y1, x0:x1].any():
            return True
    return False


def length_doubt(
    fits: list[StickFit],
    profile: KitProfile,
    excused: Callable[[StickFit], bool] | None = None,
) -> str | None:
    """Why the counts are in doubt when a stick of ``fits`` measures none of the kit's
    lengths (``ODD_LENGTH_LOG``) and is not ``excused`` (asked of those sticks only; the
    reader excuses sticks that end at a shape, ``END_AT_SHAPE_MM``), else None."""
    kinds = profile.sorted_sticks
    odd = [
        f
        for f in fits
        if min(abs(math.log(max(f.length_mm, 1.0) / k.length_mm)) for k in kinds) >= ODD_LENGTH_LOG
        and (excused is None or not excused(f))
    ]
    if not odd:
        return None
    measured = " and ".join(f"{f.length_mm:.0f}" for f in sorted(odd, key=lambda f: f.length_mm))
    kit = " or ".join(f"{k.length_mm:.0f}" for k in kinds)
    return (
        f"{'a stick' if len(odd) == 1 else 'sticks'} measured {measured} mm, not a kit "
        f"stick's {kit} mm (partly hidden, or run on into a neighbour): the stick counts may "
        "be wrong"
    )


#: Two sticks found in one line that overlap along it by at least this much are one stick
#: (``join_overlapping``).
OVERLAP_MIN_MM = 5.0
#: ...when their directions are within this many degrees and each one's ends lie within
#: ``OVERLAP_OFF`` stick widths of the other's centre line (side by side, two sticks' centre
#: lines are a width apart).
OVERLAP_TURN_DEG = 6.0
OVERLAP_OFF = 0.6


def join_overlapping(fits: list[StickFit], profile: KitProfile) -> list[StickFit]:
    """Two sticks found overlapping in one line are one stick: its two halves, each fitted
    straight on its own wood where a coarse, blurred or bent view (a lens the reader was
    not given) widens and curves a long stick's wood. Two real sticks never lie one on the
    other in line; side by side, their centre lines are a stick's width apart."""
    return merge_pairs(fits, lambda a, b, _every: _overlap_join(a, b, profile))


def _overlap_join(a: StickFit, b: StickFit, profile: KitProfile) -> StickFit | None:
    """The one stick that ``a`` and ``b`` overlapping in line are (``join_overlapping``), or
    None."""
    # The direction test first, in plain floats: most pairs of sticks fail it.
    dax, day = a.p1[0] - a.p0[0], a.p1[1] - a.p0[1]
    dbx, dby = b.p1[0] - b.p0[0], b.p1[1] - b.p0[1]
    la, lb = math.hypot(dax, day), math.hypot(dbx, dby)
    if la <= 0 or lb <= 0:
        return None
    if abs(dax * dbx + day * dby) / (la * lb) < math.cos(math.radians(OVERLAP_TURN_DEG)):
        return None
    ea = np.array([a.p0, a.p1], np.float64)
    eb = np.array([b.p0, b.p1], np.float64)
    ua = np.array([dax, day]) / la
    ub = np.array([dbx, dby]) / lb
    off = OVERLAP_OFF * profile.stick_width_mm
    if np.abs((eb - ea[0]) @ np.array([-ua[1], ua[0]])).max() > off:
        return None
    if np.abs((ea - eb[0]) @ np.array([-ub[1], ub[0]])).max() > off:
        return None
    pts = np.vstack([ea, eb])
    ts = (pts - ea[0]) @ ua  # a's ends at 0 and la, b's at ts[2:]
    overlap = min(la, float(ts[2:].max())) - max(0.0, float(ts[2:].min()))
    if overlap < OVERLAP_MIN_MM:
        return None
    p0, p1 = pts[int(np.argmin(ts))], pts[int(np.argmax(ts))]
    total = float(np.linalg.norm(p1 - p0))
    return StickFit(
        stick_kind(total, profile),
        (float(p0[0]), float(p0[1])),
        (float(p1[0]), float(p1[1])),
        total,
        None,
    )


#: Two sticks in line are joined when together they measure this share of the kit stick
#: their length names (``sticks.stick_kind``): a long stick cut in two where something
#: crosses it may also have lost an end to blur or a shadow. (Within 8% of a kit length
#: before: on hard run seed 0, a long stick read as 45 + 39.5 mm with a 3.7 mm gap stayed
#: two shorts; 0.8 read 1 more board there and changed no other development, kit or hard
#: set.)
JOIN_SHARE = (0.8, 1.08)
#: ...their near ends at most this far apart (mm; the gap must still be covered, ``_bridged``).
IN_LINE_GAP_MM = 30.0

#: How far, in frame pixels, the near ends of two sticks end to end may lie off the line
#: through their far ends and still be one line (``join_in_line``) ...
IN_LINE_FRAME_PX = 3.0
#: ...and never less than this, mm: in a heap each piece of a long stick cut in two by the
#: sticks crossing it is re-aimed on its own wood, which the crossing sticks widen, and the
#: two pieces may come out a few millimetres to either side of the stick's line (a 55 and a
#: 45 mm piece of a long stick in a heap of five, wide looks run seed 4, board 83). On the
#: 18 development sets 1.5 -> 3 mm changed no board, 4 mm read that board right, 5 mm no
#: more; none read worse. The seam test still decides after. (``_in_line`` lets the two
#: directions differ by what the offset allows at each end of the shorter piece: about 10
#: degrees for a 45 mm piece.)
IN_LINE_MM = 4.0


def join_in_line(
    fits: list[StickFit],
    normalised: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    wood_mp: NDArray[np.uint8] | None = None,
    *,
    frame_px_per_mm: float | None = None,
    shapes: NDArray[np.uint8] | None = None,
) -> list[StickFit]:
    """Two sticks found end to end in one line, together as long as a kit stick, are that
    stick unless the seam test finds their joint (``vision.picasso.seams``): the stick
    search may cut a long stick it cannot see whole (under the string, in a heap) in two.

    "In one line" allows what the camera could not resolve: the near ends may lie
    ``IN_LINE_FRAME_PX`` frame pixels off the line through the far ends (at least
    ``IN_LINE_MM``),
    where ``frame_px_per_mm`` says how finely the camera saw the canvas (None: finely).
    ``shapes``: where the pixels have a shape's colour (``seams.seam_cues``)."""
    lengths = [k.length_mm for k in profile.sorted_sticks]
    off_mm = IN_LINE_MM
    if frame_px_per_mm is not None and frame_px_per_mm > 0:
        off_mm = max(off_mm, IN_LINE_FRAME_PX / frame_px_per_mm)
    gray = Lightness(normalised)

    def merge(a: StickFit, b: StickFit, every: list[StickFit]) -> StickFit | None:
        joined = _in_line(a, b, IN_LINE_GAP_MM, off_mm)
        if joined is None:
            return None
        over = max(a.length_mm, b.length_mm) >= OVERLONG_SHARE * lengths[0] or (
            min(a.length_mm, b.length_mm) < PIECE_SHARE * lengths[0]
        )
        if not _bridged(joined, a, b, wood_mp, s, normalised, over, shapes):
            return None
        p0, joint, p1 = joined
        total = float(np.hypot(*(np.asarray(p1) - np.asarray(p0))))
        kind = stick_size(total, profile)
        if not JOIN_SHARE[0] * kind.length_mm <= total <= JOIN_SHARE[1] * kind.length_mm:
            return None
        if total <= max(a.length_mm, b.length_mm) + 0.3 * min(lengths):
            return None
        at = float(np.hypot(*(np.asarray(joint) - np.asarray(p0))))
        others = [(g.p0, g.p1) for g in every if g is not a and g is not b]
        if seam_cues(gray, p0, p1, at, others, s, profile, wood_mp, shapes=shapes).seam:
            return None  # a seam: two sticks indeed
        return StickFit(kind.kind, p0, p1, total, False)

    return merge_pairs(fits, merge)


def _bridged(
    joined: tuple[tuple[float, float], tuple[float, float], tuple[float, float]],
    a: StickFit,
    b: StickFit,
    wood_mp: NDArray[np.uint8] | None,
    s: float,
    normalised: NDArray[np.uint8] | None = None,
    overlong: bool = False,
    shapes: NDArray[np.uint8] | None = None,
) -> bool:
    """Whether the gap between two sticks in line is at most 6 mm (``OVERLONG_GAP_MM`` when
    ``overlong``: one of them is longer than a short stick can measure or shorter than a
    whole one, ``PIECE_SHARE``), or is covered
    (wood, the string, a shadow, a shape (``shapes``, nonzero where a shape lies: a stick
    passes under it): anything but bare canvas along its middle). With the
    ``normalised`` picture, a place the wood map calls bare canvas is covered when the
    picture there looks more like the two sticks themselves than like the canvas
    (``_like_the_sticks``): the wood map loses the wood beside a blurred string that
    crosses the stick."""
    p0, _, p1 = (np.asarray(p, np.float64) for p in joined)
    ends = [np.asarray(p, np.float64) for p in (a.p0, a.p1, b.p0, b.p1)]
    total = float(np.linalg.norm(p1 - p0))
    d = (p1 - p0) / max(total, 1e-9)
    t_a = max(float((e - p0) @ d) for e in ends[:2])
    t_b = min(float((e - p0) @ d) for e in ends[2:])
    lo, hi = min(t_a, t_b), max(t_a, t_b)
    if hi - lo <= 6.0:
        return True
    if overlong and hi - lo <= OVERLONG_GAP_MM:
        return True
    if wood_mp is None:
        return False
    ts = np.arange(lo, hi, 0.5)
    pts = p0[None, :] + ts[:, None] * d[None, :]
    h, w = wood_mp.shape
    xs = np.clip(np.round(pts[:, 0] * s - 0.5).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[:, 1] * s - 0.5).astype(int), 0, h - 1)
    bare = wood_mp[ys, xs] == 0
    if shapes is not None:  # (a stick passes under a shape)
        bare &= shapes[ys, xs] == 0
    if normalised is not None and bare.mean() >= BARE_GAP:
        bare[bare] = ~_like_the_sticks(normalised, pts[bare], d, a, b, s)
    return float(bare.mean()) < BARE_GAP


#: A stick found longer than this share of the shortest kit stick is most likely part of a
#: longer one (KIT.md's 50 mm: 55 mm; a whole short stick reads 50 mm, rarely up to 58) ...
OVERLONG_SHARE = 1.1
#: ... and so is one shorter than this share of the shortest kit stick (KIT.md's 50 mm: 40 mm,
#: too short for a short stick seen whole): the two in line across a bare gap up to
#: ``OVERLONG_GAP_MM`` are one stick then too. A pale lilac cord over a long stick of
#: near-black wood (wide looks run seed 5, board 9) left a 44.5 mm and a 37 mm piece 7.5 mm
#: apart, two short sticks for one long. On the 18 development sets that board alone
#: changed.
PIECE_SHARE = 0.8
#: ... and when another stick lies in line with it, the two together as long as a kit stick
#: (``JOIN_SHARE``), they are one stick across a bare gap up to this (mm): what a string of
#: the canvas's own colour hides where it crosses (a white cord on a white canvas, which
#: the wood map and the picture both call canvas; 1.5-4 mm thick, crossing at a slant,
#: blurred). The seam test still decides after. Second drawer, development looks, seed 0,
#: board 49: a 58 mm and a 35 mm piece 6.5 mm apart were a short stick too many.
OVERLONG_GAP_MM = 10.0

#: A gap between two sticks in line is bare when this share of its middle is bare canvas.
BARE_GAP = 0.2


def _like_the_sticks(
    normalised: NDArray[np.uint8],
    pts_mm: NDArray[np.float64],
    along: NDArray[np.float64],
    a: StickFit,
    b: StickFit,
    s: float,
) -> NDArray[np.bool_]:
    """For each of ``pts_mm`` (in the gap between sticks ``a`` and ``b``, on their joined
    line running along the unit vector ``along``), whether the
    picture there is nearer the sticks' own colour (their median along their middles, 3 mm
    in from the ends) than the canvas's (``segment.WHITE_LEVEL`` grey once normalised):
    the sticks' colour is measured in this frame, not assumed."""
    own = [m for m in (middle_samples(normalised, f, s) for f in (a, b)) if m is not None]
    if not own:
        return np.zeros(len(pts_mm), bool)
    stick = np.median(np.concatenate(own), axis=0)
    canvas = np.full(3, seg.WHITE_LEVEL, np.float32)
    if float(np.linalg.norm(stick - canvas)) < 1e-3:
        return np.zeros(len(pts_mm), bool)
    seen = across(normalised, pts_mm, along, s)
    return np.linalg.norm(seen - stick, axis=1) < np.linalg.norm(seen - canvas, axis=1)


def _in_line(
    a: StickFit, b: StickFit, max_gap_mm: float = 6.0, off_mm: float = 1.5
) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]] | None:
    """(far end of a, joint, far end of b) when a and b lie end to end in one line (the
    near ends within ``off_mm`` of the line through the far ends, the two directions within
    4 degrees, or what ``off_mm`` at each end of the shorter allows; the near ends at most
    ``max_gap_mm`` apart), else None."""
    # The direction test first, in plain floats: most pairs of sticks fail it.
    dax, day = a.p1[0] - a.p0[0], a.p1[1] - a.p0[1]
    dbx, dby = b.p1[0] - b.p0[0], b.p1[1] - b.p0[1]
    la, lb = math.hypot(dax, day), math.hypot(dbx, dby)
    cos = abs(dax * dbx + day * dby) / max(la * lb, 1e-9)
    turn = max(4.0, math.degrees(math.atan2(2.0 * off_mm, max(min(la, lb), 1e-9))))
    if cos < math.cos(math.radians(turn)):
        return None
    ea = np.array([a.p0, a.p1], np.float64)
    eb = np.array([b.p0, b.p1], np.float64)
    gaps = [(float(np.linalg.norm(ea[i] - eb[j])), i, j) for i in (0, 1) for j in (0, 1)]
    gap, i, j = min(gaps)
    if gap > max_gap_mm:
        return None
    far_a, far_b = ea[1 - i], eb[1 - j]
    axis = far_b - far_a
    axis /= max(float(np.linalg.norm(axis)), 1e-9)
    normal = np.array([-axis[1], axis[0]])
    if max(abs(float((p - far_a) @ normal)) for p in (ea[i], eb[j])) > off_mm:
        return None
    joint = (ea[i] + eb[j]) / 2
    return (
        (float(far_a[0]), float(far_a[1])),
        (float(joint[0]), float(joint[1])),
        (float(far_b[0]), float(far_b[1])),
    )


def split_at_seams(
    fits: list[StickFit],
    normalised: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    wood_mp: NDArray[np.uint8] | None = None,
    shapes: NDArray[np.uint8] | None = None,
) -> list[StickFit]:
    """Sticks as long as two shorter kit sticks end to end, cut in two where the seam test
    (``vision.picasso.seams``; ``shapes`` as there) finds their joint. A stretch longer than
    any kit stick could measure (``sticks.STRETCH_MAX`` times the longest) is two sticks
    whether a joint shows or not: the pair of kit sticks nearest its length, cut where the
    lightness dips more (two sticks laid touching end to end may show no joint at all)."""
    kinds = profile.sorted_sticks
    pairs = [(a, b) for a in kinds for b in kinds if a.length_mm <= b.length_mm]
    gray = Lightness(normalised)
    out: list[StickFit] = []
    for f in fits:
        split = None
        for a, b in pairs:
            if abs(f.length_mm - (a.length_mm + b.length_mm)) > 0.08 * (a.length_mm + b.length_mm):
                continue
            others = [(g.p0, g.p1) for g in fits if g is not f]
            scale = f.length_mm / (a.length_mm + b.length_mm)
            for first, second in ((a, b), (b, a)):
                at = first.length_mm * scale
                cues = seam_cues(gray, f.p0, f.p1, at, others, s, profile, wood_mp, shapes=shapes)
                if cues.seam:
                    split = (first, second, at)
                    break
                if a is b:
                    break
            if split is not None:
                break
        if split is None and f.length_mm > STRETCH_MAX * kinds[-1].length_mm:
            split = _two_sticks(f, fits, pairs, gray, s, profile, wood_mp)
        if split is None:
            out.append(f)
            continue
        first, second, at = split
        p0, p1 = np.asarray(f.p0), np.asarray(f.p1)
        joint = p0 + (p1 - p0) * (at / max(f.length_mm, 1e-9))
        j = (float(joint[0]), float(joint[1]))
        out.append(StickFit(first.kind, f.p0, j, at, True))
        out.append(StickFit(second.kind, j, f.p1, f.length_mm - at, True))
    return out


#: A straight bar of leftover wood a stick wide (``UNDER_WIDTH_MM``), ``UNDER_LEN_MM`` long,
#: filled to ``UNDER_FILL``, one end of it against a shape (within ``UNDER_GAP_MM``) and the
#: other free, is a short stick whose other part lies under the shape: the stick search
#: wants 30 mm of a stick, and a short stick under a circle's edge shows 30 mm that measure
#: 28 (issue 25's hard case 5). No board of the 14 development sets (1,540) changed.
UNDER_LEN_MM = (18.0, 32.0)
UNDER_WIDTH_MM = (5.0, 11.0)
UNDER_FILL = 0.7
UNDER_GAP_MM = 2.0


def sticks_under_shapes(
    leftover: NDArray[np.uint8], shapes: NDArray[np.uint8], s: float, profile: KitProfile
) -> list[StickFit]:
    """Short sticks half under a shape (``UNDER_*``), from the wood no stick explains
    (``leftover``, (H, W) uint8 0/1) and the accepted shapes' pixels (``shapes``), at ``s``
    px/mm: each the bar's visible part, measured as it shows."""
    if not leftover.any() or not shapes.any():
        return []
    # the bar's core: slivers along sticks and round the shapes fall away
    c = 2 * round(0.5 * UNDER_WIDTH_MM[0] * s) + 1
    core = masks.opened(leftover, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (c, c)))
    n, lab, stats = masks.patches(core)
    near_shape: NDArray[np.uint8] | None = None  # made for the first bar that qualifies
    h, w = shapes.shape
    short = profile.sorted_sticks[0]
    out: list[StickFit] = []
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        if area < UNDER_LEN_MM[0] * UNDER_WIDTH_MM[0] * s * s:
            continue
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        pts = cv2.findNonZero((lab[y : y + bh, x : x + bw] == i).astype(np.uint8))
        centre, long_px, wide_px, d = seg._box_axes(cv2.minAreaRect(pts))
        centre = centre + np.array([x, y], np.float64)
        length, width = long_px / s, wide_px / s
        if not (UNDER_LEN_MM[0] <= length <= UNDER_LEN_MM[1]):
            continue
        if not (UNDER_WIDTH_MM[0] <= width <= UNDER_WIDTH_MM[1]):
            continue
        if area < UNDER_FILL * long_px * wide_px:
            continue
        if near_shape is None:
            k = 2 * round(UNDER_GAP_MM * s) + 1
            disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
            near_shape = np.asarray(cv2.dilate(shapes, disc), np.uint8)
        ends = [centre - d * 0.5 * long_px, centre + d * 0.5 * long_px]
        touch = 0
        for sign, e in zip((-1.0, 1.0), ends, strict=True):
            q = e + sign * d * (UNDER_GAP_MM * s)  # just beyond the bar's end
            qx, qy = round(float(q[0])), round(float(q[1]))
            touch += int(0 <= qx < w and 0 <= qy < h and near_shape[qy, qx] > 0)
        if touch != 1:
            continue
        p0, p1 = ((e + 0.5) / s for e in ends)
        out.append(
            StickFit(short.kind, (float(p0[0]), float(p0[1])), (float(p1[0]), float(p1[1])), length)
        )
    return out


def _two_sticks(
    f: StickFit,
    fits: list[StickFit],
    pairs: list[tuple[StickSize, StickSize]],
    gray: Lightness,
    s: float,
    profile: KitProfile,
    wood_mp: NDArray[np.uint8] | None,
) -> tuple[StickSize, StickSize, float]:
    """The two kit sticks a stretch too long for one is (``split_at_seams``): of ``pairs``,
    the one whose total is nearest its length in ratio, in the order whose joint dips
    more."""
    a, b = min(
        pairs, key=lambda ab: abs(math.log(f.length_mm / (ab[0].length_mm + ab[1].length_mm)))
    )
    scale = f.length_mm / (a.length_mm + b.length_mm)
    others = [(g.p0, g.p1) for g in fits if g is not f]
    orders = [(a, b)] if a is b else [(a, b), (b, a)]
    dips = [
        seam_cues(gray, f.p0, f.p1, first.length_mm * scale, others, s, profile, wood_mp).dip
        for first, _ in orders
    ]
    first, second = orders[int(np.argmax(dips))]
    return first, second, first.length_mm * scale


def _under(mask: NDArray[np.uint8], pts_mm: object, s: float) -> float:
    """Share of the points along ``pts_mm`` (a segment's ends, or an outline) that lie on
    ``mask``; segments are sampled every 2 mm."""
    p = np.asarray(pts_mm, np.float64).reshape(-1, 2)
    if len(p) == 2:
        n = max(2, int(np.hypot(*(p[1] - p[0])) / 2))
        p = p[0] + np.linspace(0, 1, n)[:, None] * (p[1] - p[0])
    ij = np.round(p * s - 0.5).astype(int)
    h, w = mask.shape
    ij[:, 0] = np.clip(ij[:, 0], 0, w - 1)
    ij[:, 1] = np.clip(ij[:, 1], 0, h - 1)
    return float(mask[ij[:, 1], ij[:, 0]].mean())


def _r2(p: tuple[float, float]) -> tuple[float, float]:
    return (round(p[0], 1), round(p[1], 1))


def _seen_colour(
    shape: Shape,
    patch: ShapePatch,
    normalised: NDArray[np.uint8],
    colours: tuple[tuple[str, Lab], ...],
) -> Shape:
    """``shape`` named after the nearest of a learned kit's shape colours (``KitProfile.seen``:
    L*a*b* relative to the canvas) to its patch's median colour, by the colour table's
    distance; its own name when none is within the table's reach (``seg.OTHER_DISTANCE``:
    a colour the learning photo did not show)."""
    x, y, w, h = patch.box
    lab = seg.lab_of(normalised[y : y + h, x : x + w], patch.mask > 0)
    if not len(lab):
        return shape
    median = np.median(lab, axis=0)
    dist, name = min((seg.table_distance(median, c), n) for n, c in colours)
    return replace(shape, colour=name) if dist <= seg.OTHER_DISTANCE else shape


def _shape(
    patch: ShapePatch, s: float, profile: KitProfile, namer: ShapeNamer, canvas: NDArray[np.uint8]
) -> Shape | None:
    kind, dist = classify_geometry(patch.geometry, profile)
    method = "geometry"
    confidence = float(math.exp(-0.5 * (dist / 3.0) ** 2))
    named = namer.name(patch, s, kind, dist, canvas)
    if named is not None:
        kind, confidence, method = named
    if kind == "":
        return None
    outline = cv2.approxPolyDP(patch.contour_px, 0.8 * s, True).reshape(-1, 2)
    return Shape(
        shape=kind,
        colour=patch.colour,
        centre_mm=_r2(patch.geometry.centre_mm),
        outline_mm=((outline.astype(np.float32) + 0.5) / s).astype(np.float32),
        area_mm2=round(patch.geometry.area_mm2, 1),
        method=method,
        confidence=round(confidence, 3),
    )


__all__ = ["DARK_PX", "read_board", "read_canvas"]
