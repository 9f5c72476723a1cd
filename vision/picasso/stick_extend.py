"""A stick found shorter than a kit stick, measured again along the lines through it.

The stick search (``vision.picasso.sticks``) re-aims each stretch on its own wood. On a
coarse, blurred view a long stick crossed by others, or half under the string, shows few
clean cross-sections, and the re-aimed line may be turned a few degrees off it: the band
along that line leaves the stick's far half, and the stretch found is a short stick's
length (or two of them). The wood of the whole stick is still there.

``extend_short`` looks along lines through each stick shorter than a longer kit stick (pivoted
on its ends and its middle, turned a few degrees each way) for a stretch of the kit's width
as long as that longer stick that holds it whole. Found, the stick becomes that longer
stick, and sticks found lying inside it in the same line are taken into it. Whether two
sticks lie end to end there is then the seam test's question, as for any stretch
(``reader.split_at_seams``). A stick seen to both its ends (bare canvas just past them) is
not looked at: most are, and the lines cost a few tenths of a millisecond a stick.

Where the wood map shows no such stretch, the picture may: a wood whose dark grain the
pixel model calls the string, or the string lying along a stick's end, leave the wood map
unsure past the stick's end while the picture there is the stick's own colour
(``stick_like.lengthened``: the stick lengthened along its own line over it, when the whole
measures a longer kit stick, ends squarely and is a stick's width).

Chosen on the 14 development sets of issue 25 (both renderers, normal and hard tiers, 1,540
boards): with the seam test's shape rule (``seams.seam_cues``), failed boards 124 -> 120,
none broken; turning the lines 6 degrees and keeping the ends within 2.5 mm read none
better and one worse.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from vision.picasso.profile import KitProfile
from vision.picasso.stick_like import lengthened, on_any
from vision.picasso.stick_lines import NOT_WOOD, _Candidate, _Line, turn_between
from vision.picasso.stick_selection import _explained
from vision.picasso.stick_stretches import _measure, _sample_bands, _stretch_ranges
from vision.picasso.sticks import StickFit

#: Turns tried about each pivot, degrees.
TURNS_DEG = (-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0)
#: The stretch must measure this share of the longer kit stick (``reader.JOIN_SHARE``).
SHARE = (0.8, 1.08)
#: The stick's ends must lie this close to the new line, mm.
ON_LINE_MM = 1.5
#: Of the stretch beyond the stick, at most this share may lie on the rectangle of another
#: stick turned less than ``ALONG_DEG`` from it and not taken into it (else the stretch runs
#: along that stick, not this one).
ALONG_DEG = 12.0
ALONG_MAX = 0.3
#: Of the stretch beyond the stick and off the other sticks, at least this share of its
#: cross-sections must be wood (the rest: the string or a shadow over it). A stick's line
#: running on under the string to another stick's end shows almost none (0.05); a long
#: stick's far half, dark wood on a coarse view half called the string's colour, 0.38.
OWN_MIN = 0.25
#: A stick measuring under this share of the kit stick it is named (none of the kit's
#: lengths) may be fading into a glare: lengthened by ``stick_like.lengthened`` with ``faded``.
FADED_SHARE = 0.85
#: (off only to measure what that rule changes: the development sets, the tests)
FADED = True


def extend_short(
    fits: list[StickFit],
    explained: NDArray[np.bool_],
    wood_mp: NDArray[np.uint8],
    s: float,
    profile: KitProfile,
    normalised: NDArray[np.uint8] | None = None,
    shapes: NDArray[np.uint8] | None = None,
) -> tuple[list[StickFit], NDArray[np.bool_]]:
    """``fits`` with each stick shorter than ``SHARE[0]`` of a kit stick longer than the one
    it is named made that stick where the wood map (``stick_lines.wood_map``, at ``s``
    px/mm) shows a stretch of its length through it (module docstring), or, with the
    ``normalised`` picture, where the picture goes on in the stick's own colour along its
    line (``stick_like.lengthened``; ``shapes``: nonzero where a shape's colour is, which
    stops it), and ``explained`` (the sticks' rectangles, ``sticks.find_sticks``) with the
    lengthened sticks' rectangles added."""
    kinds = profile.sorted_sticks
    width = profile.stick_width_mm
    out = list(fits)
    k = 0
    while k < len(out):
        f = out[k]
        # the kit sticks longer than the one it is named (``sticks.stick_kind``)
        named = next((i for i, kd in enumerate(kinds) if kd.kind == f.kind), len(kinds) - 1)
        longer = [kd for kd in kinds[named + 1 :] if f.length_mm < SHARE[0] * kd.length_mm]
        got = None
        if longer and not _ends_clean(f, wood_mp, s):
            got = _extended(f, out, longer[0].length_mm, wood_mp, s, width)
            if got is None and normalised is not None:
                got = _by_colour(f, out, longer[0].length_mm, normalised, shapes, s, width)
        if (
            got is None
            and longer
            and normalised is not None
            and FADED
            and f.length_mm < FADED_SHARE * kinds[named].length_mm
        ):
            got = _by_colour(f, out, longer[0].length_mm, normalised, shapes, s, width, True)
        if got is None:
            k += 1
            continue
        line, t0, t1, taken = got
        a = (line.at(t0, s) + 0.5) / s
        b = (line.at(t1, s) + 0.5) / s
        new = StickFit(
            longer[0].kind,
            (float(a[0]), float(a[1])),
            (float(b[0]), float(b[1])),
            float(t1 - t0),
        )
        out = [g for j, g in enumerate(out) if j != k and j not in taken] + [new]
        explained = explained | _explained(
            [_Candidate(line, t0, t1)], [0], explained.shape, width, s
        )
        k = 0  # the list changed: look again from the start (each step lengthens a stick)
    return out, explained


def _extended(
    f: StickFit,
    fits: list[StickFit],
    target_mm: float,
    wood_mp: NDArray[np.uint8],
    s: float,
    width: float,
) -> tuple[_Line, float, float, set[int]] | None:
    """The line, its stretch (t0, t1 mm) and the indices of the other ``fits`` taken into
    it, for stick ``f`` made a ``target_mm`` stick; None when no line shows one."""
    p0 = np.asarray(f.p0, np.float64) * s - 0.5
    p1 = np.asarray(f.p1, np.float64) * s - 0.5
    angle = math.atan2(float(p1[1] - p0[1]), float(p1[0] - p0[0]))
    lo_len, hi_len = SHARE[0] * target_mm, SHARE[1] * target_mm
    # the lines that keep both of f's ends on them, each sampled as far past f's ends as a
    # stretch holding f could reach (and 2 mm more: a stretch that reaches the band's end
    # is longer than it measures)
    lines: list[_Line] = []
    spans: list[tuple[float, float]] = []
    for p in (p0, p1, 0.5 * (p0 + p1)):
        for d in TURNS_DEG:
            ln = _Line(float(p[0]), float(p[1]), angle + math.radians(d))
            if max(abs(_off(ln, q, s)) for q in (p0, p1)) > ON_LINE_MM:
                continue
            ta, tb = sorted((ln.t_of(p0, s), ln.t_of(p1, s)))
            more = hi_len - (tb - ta) + 2.0
            lines.append(ln)
            spans.append((ta - more, tb + more))
    half = 0.5 * width + 3.0
    bands = _sample_bands(wood_mp, lines, half, s, spans, 1.0, width)
    best: tuple[float, _Line, float, float] | None = None
    for band in bands:
        ln = band.line
        if band.t.size < 2:
            continue
        ta, tb = sorted((ln.t_of(p0, s), ln.t_of(p1, s)))
        for r0, r1 in _stretch_ranges(band, width, lo_len):
            if not (r0 - 3.0 <= ta and tb <= r1 + 3.0 and r1 - r0 <= hi_len):
                continue
            if r0 <= band.t[0] + 1.0 or r1 >= band.t[-1] - 1.0:
                continue  # cut by the band's reach: longer than it measures
            # re-aimed on its wood, or as it is (a re-aimed line may turn back onto f)
            for c in [*_measure(wood_mp, ln, r0, r1, width, s, lo_len), _Candidate(ln, r0, r1)]:
                if not lo_len <= c.length <= hi_len:
                    continue
                ca, cb = sorted((c.line.t_of(p0, s), c.line.t_of(p1, s)))
                if not (c.t0 - 3.0 <= ca and cb <= c.t1 + 3.0):
                    continue
                if max(abs(_off(c.line, p, s)) for p in (p0, p1)) > ON_LINE_MM:
                    continue
                if best is None or c.length > best[0]:
                    best = (c.length, c.line, c.t0, c.t1)
    if best is None:
        return None
    _, line, t0, t1 = best
    taken: set[int] = set()
    for j, g in enumerate(fits):
        if g is f:
            continue
        q = [np.asarray(e, np.float64) * s - 0.5 for e in (g.p0, g.p1)]
        ts = [line.t_of(e, s) for e in q]
        if all(abs(_off(line, e, s)) <= ON_LINE_MM for e in q) and (
            t0 - 3.0 <= min(ts) and max(ts) <= t1 + 3.0
        ):
            taken.add(j)
    # The stretch beyond f must be this stick's, not another's it runs along (crossing
    # sticks are what cut f short, and are expected).
    ta, tb = sorted((line.t_of(p0, s), line.t_of(p1, s)))
    beyond = np.concatenate([np.arange(t0, ta, 1.0), np.arange(tb + 1.0, t1, 1.0)])
    if beyond.size:
        pts = np.array([line.cx, line.cy]) + np.outer(beyond * s, line.d)
        free = np.ones(len(beyond), bool)
        for j, g in enumerate(fits):
            if g is f or j in taken:
                continue
            on = _on_stick(pts, g, s, width)
            if _turn_deg(g, line) <= ALONG_DEG and float(on.mean()) > ALONG_MAX:
                return None
            free &= ~on
        # ...and show wood of its own, not only what hides it (the string, a shadow)
        band = _sample_bands(wood_mp, [line], 0.5 * width + 3.0, s, [(t0, t1)], 1.0, width)[0]
        ok = band.stats[0] if band.stats is not None else None
        idx = np.clip(np.round(beyond - band.t[0]).astype(int), 0, band.t.size - 1)
        own = float(ok[idx][free].mean()) if ok is not None and free.any() else 0.0
        if own < OWN_MIN:
            return None
    return line, t0, t1, taken


def _by_colour(
    f: StickFit,
    fits: list[StickFit],
    target_mm: float,
    normalised: NDArray[np.uint8],
    shapes: NDArray[np.uint8] | None,
    s: float,
    width: float,
    faded: bool = False,
) -> tuple[_Line, float, float, set[int]] | None:
    """``_extended``'s answer where the picture, not the wood map, shows stick ``f`` going
    on along its line to a ``target_mm`` stick (``stick_like.lengthened``; with ``faded``,
    fading into a glare)."""
    ends = lengthened(f, fits, target_mm, SHARE, normalised, shapes, s, width, faded)
    if ends is None:
        return None
    a, b = (e * s - 0.5 for e in ends)
    line = _Line(float(a[0]), float(a[1]), math.atan2(float(b[1] - a[1]), float(b[0] - a[0])))
    return line, 0.0, float(np.linalg.norm(b - a)) / s, set()


def _ends_clean(f: StickFit, wood_mp: NDArray[np.uint8], s: float) -> bool:
    """Whether the wood map is bare canvas 2 to 4 mm past both of stick ``f``'s ends, on
    its line and 2 mm to either side: a stick seen to its ends, with nothing to measure
    again (most sticks; the test costs a few samples). A shadow there is not bare: dark
    wood on a coarse view reads partly as shadow."""
    p0 = np.asarray(f.p0, np.float64)
    p1 = np.asarray(f.p1, np.float64)
    length = float(np.linalg.norm(p1 - p0))
    if length <= 0:
        return True
    d = (p1 - p0) / length
    n = np.array([-d[1], d[0]])
    steps = np.array([2.0, 3.0, 4.0])
    offs = np.array([-2.0, 0.0, 2.0])
    pts = np.concatenate(
        [
            (e + sign * steps[:, None, None] * d + offs[None, :, None] * n).reshape(-1, 2)
            for e, sign in ((p0, -1.0), (p1, 1.0))
        ]
    )
    px = np.round(pts * s - 0.5).astype(int)
    h, w = wood_mp.shape
    inside = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    vals = wood_mp[px[inside, 1], px[inside, 0]]
    return bool((vals == NOT_WOOD).all())


def _off(line: _Line, p: NDArray[np.float64], s: float) -> float:
    """Signed distance of canvas pixel ``p`` from ``line``, mm."""
    return ((float(p[0]) - line.cx) * -line.sin + (float(p[1]) - line.cy) * line.cos) / s


def _turn_deg(g: StickFit, line: _Line) -> float:
    """How far stick ``g`` is turned from ``line``, degrees (0-90)."""
    a = math.atan2(g.p1[1] - g.p0[1], g.p1[0] - g.p0[0])
    return math.degrees(turn_between(a, line.angle))


def _on_stick(pts: NDArray[np.float64], g: StickFit, s: float, width: float) -> NDArray[np.bool_]:
    """Which canvas pixels ``pts`` (N, 2) lie on stick ``g``'s rectangle."""
    return on_any((np.asarray(pts, np.float64) + 0.5) / s, [g], width)
