"""The Picasso kit profile: what the pieces measure and what colour they are.

A profile is a small JSON file (format ``pictable-picasso-kit``, version 1) that the board
reader uses for every size and colour it compares against. The default profile is KIT.md's
table; ``pictable kit learn picasso`` measures the owner's own pieces and writes one (see
``vision.picasso.learn``). The format, field by field (sizes in millimetres):

```json
{
  "format": "pictable-picasso-kit",
  "version": 1,
  "name": "default",
  "source": "KIT.md default profile",
  "canvas_mm": [360, 260],
  "sticks": [
    {"kind": "long_stick", "length_mm": 100, "width_mm": 8},
    {"kind": "short_stick", "length_mm": 50, "width_mm": 8}
  ],
  "wood_lab": [77, 7, 30],
  "shapes": [
    {"kind": "circle", "size_mm": 40, "area_mm2": 1256.6},
    {"kind": "square", "size_mm": 35, "area_mm2": 1225.0},
    {"kind": "triangle", "size_mm": 40, "area_mm2": 692.8},
    {"kind": "half_circle", "size_mm": 40, "area_mm2": 628.3}
  ],
  "colours": {"red": [45, 62, 42], "blue": [40, 15, -55],
              "yellow": [85, -3, 80], "green": [55, -50, 38]},
  "string": {"thickness_mm": 2.5, "lab": [30, 0, 0]},
  "seen": {"wood_lab": [40, 15, 18], "string_lab": [20, 0, 10], "string_thickness_mm": 3.6,
           "colours": {"pink": [62, 48, 4], "blue": [40, 15, -55]}}
}
```

- ``sticks``: one entry per stick kind (``long_stick`` and ``short_stick``, the docs/formats.md
  count keys), with its length and width.
- ``shapes``: one entry per shape kind: ``size_mm`` is the circle's and half-circle's
  diameter, the square's and the triangle's side; ``area_mm2`` the area of its outline.
- Colours are CIE L*a*b* (OpenCV's float convention: L 0-100) *relative to the canvas*: the
  picture is white-balanced so that the canvas reads (100, 0, 0), so a profile learned under
  one lamp holds under another. ``wood_lab`` is the sticks' colour, ``colours`` the shapes'
  (any names: they are reported as the piece's ``colour``), ``string.lab`` the string's.
  The reader builds its colour classes from these (``segment``: the string's lightness is
  its dark threshold).
- ``seen`` (optional; ``kit learn picasso`` writes it): the colours the sticks and the string
  were measured to have, and the string's width at half contrast, for the record and for a
  reader that can use them; ``colours`` (optional), the shapes' colours as measured, by
  name: the reader names each shape after the nearest of them, and its colour classes stay
  ``colours`` above (learned colours there had split a dark shape's pale rim into a shape of
  its own). ``kit learn`` writes the fields above from these only where that
  helps the reader (``vision.picasso.learn``: the sticks' paint when it is a shape's colour,
  for one, would make the reader worse); a profile without ``seen`` is read as before.

Unknown keys are refused (typos must not pass silently), like the event logs.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

FORMAT = "pictable-picasso-kit"
VERSION = 1
MAX_FILE_BYTES = 1 << 16

STICK_KINDS = ("long_stick", "short_stick")
SHAPE_KINDS = ("circle", "square", "triangle", "half_circle")


class ProfileError(ValueError):
    """A kit profile that cannot be used: not JSON, wrong format or version, bad values."""


@dataclass(frozen=True)
class StickSize:
    """One stick kind: ``length_mm`` x ``width_mm``."""

    kind: str
    length_mm: float
    width_mm: float


@dataclass(frozen=True)
class ShapeSize:
    """One shape kind: ``size_mm`` (diameter or side) and ``area_mm2``."""

    kind: str
    size_mm: float
    area_mm2: float


def shape_area_mm2(kind: str, size_mm: float) -> float:
    """Area (mm^2) of a kit shape of ``kind`` with diameter/side ``size_mm``."""
    if kind == "circle":
        return math.pi * size_mm**2 / 4
    if kind == "square":
        return size_mm**2
    if kind == "triangle":
        return math.sqrt(3) / 4 * size_mm**2
    if kind == "half_circle":
        return math.pi * size_mm**2 / 8
    raise ProfileError(f"unknown shape kind {kind!r}; expected one of {list(SHAPE_KINDS)}")


Lab = tuple[float, float, float]


@dataclass(frozen=True)
class SeenLook:
    """What ``kit learn picasso`` measured of the sticks and the string (the profile's
    ``seen``: module docstring): their colours, L*a*b* relative to the canvas, and the
    string's width (mm) at half contrast; and the shapes' colours as measured, by name
    (``colours``: the reader names each shape after the nearest of them)."""

    wood_lab: Lab
    string_lab: Lab
    string_thickness_mm: float
    colours: tuple[tuple[str, Lab], ...] = ()


@dataclass(frozen=True)
class KitProfile:
    """The sizes and colours of a Picasso kit (module docstring: the JSON format)."""

    name: str = "default"
    source: str = "KIT.md default profile"
    canvas_mm: tuple[float, float] = (360.0, 260.0)
    sticks: tuple[StickSize, ...] = (
        StickSize("long_stick", 100.0, 8.0),
        StickSize("short_stick", 50.0, 8.0),
    )
    wood_lab: Lab = (77.0, 7.0, 30.0)
    shapes: tuple[ShapeSize, ...] = tuple(
        ShapeSize(k, s, round(shape_area_mm2(k, s), 1))
        for k, s in (("circle", 40.0), ("square", 35.0), ("triangle", 40.0), ("half_circle", 40.0))
    )
    colours: dict[str, Lab] = field(
        default_factory=lambda: {
            "red": (45.0, 62.0, 42.0),
            "blue": (40.0, 15.0, -55.0),
            "yellow": (85.0, -3.0, 80.0),
            "green": (55.0, -50.0, 38.0),
        }
    )
    string_thickness_mm: float = 2.5
    string_lab: Lab = (30.0, 0.0, 0.0)
    seen: SeenLook | None = None

    # ------------------------------------------------------------------ derived sizes
    @property
    def stick_width_mm(self) -> float:
        """The widest stick's width (the reader looks for bands this wide)."""
        return max(s.width_mm for s in self.sticks)

    @property
    def sorted_sticks(self) -> tuple[StickSize, ...]:
        """Stick kinds, shortest first."""
        return tuple(sorted(self.sticks, key=lambda s: s.length_mm))

    def stick(self, kind: str) -> StickSize:
        for s in self.sticks:
            if s.kind == kind:
                return s
        raise KeyError(kind)

    @property
    def largest_shape_mm(self) -> float:
        """The largest extent of any shape (its diameter or diagonal), mm."""
        out = 0.0
        for s in self.shapes:
            out = max(out, s.size_mm * (math.sqrt(2) if s.kind == "square" else 1.0))
        return out

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """The profile as the JSON object of the module docstring (``seen`` only when
        known)."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "name": self.name,
            "source": self.source,
            "canvas_mm": [self.canvas_mm[0], self.canvas_mm[1]],
            "sticks": [
                {
                    "kind": s.kind,
                    "length_mm": round(s.length_mm, 1),
                    "width_mm": round(s.width_mm, 1),
                }
                for s in self.sticks
            ],
            "wood_lab": [round(v, 1) for v in self.wood_lab],
            "shapes": [
                {"kind": s.kind, "size_mm": round(s.size_mm, 1), "area_mm2": round(s.area_mm2, 1)}
                for s in self.shapes
            ],
            "colours": {k: [round(v, 1) for v in lab] for k, lab in self.colours.items()},
            "string": {
                "thickness_mm": round(self.string_thickness_mm, 2),
                "lab": [round(v, 1) for v in self.string_lab],
            },
        }
        if self.seen is not None:
            out["seen"] = {
                "wood_lab": [round(v, 1) for v in self.seen.wood_lab],
                "string_lab": [round(v, 1) for v in self.seen.string_lab],
                "string_thickness_mm": round(self.seen.string_thickness_mm, 2),
            }
            if self.seen.colours:
                out["seen"]["colours"] = {
                    k: [round(v, 1) for v in lab] for k, lab in self.seen.colours
                }
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the profile atomically (a temporary file renamed over ``path``)."""
        text = json.dumps(self.to_json(), indent=2) + "\n"
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".kit-", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def with_changes(self, **changes: Any) -> KitProfile:
        """A copy with some fields replaced."""
        return replace(self, **changes)


DEFAULT_PROFILE = KitProfile()


def _num(value: Any, what: str, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ProfileError(f"{what} must be a number, got {value!r}")
    if not lo <= float(value) <= hi:
        raise ProfileError(f"{what} must be between {lo:g} and {hi:g}, got {value!r}")
    return float(value)


def _lab(value: Any, what: str) -> Lab:
    if not isinstance(value, list) or len(value) != 3:
        raise ProfileError(f"{what} must be [L, a, b], got {value!r}")
    return (
        _num(value[0], f"{what} L", 0, 100),
        _num(value[1], f"{what} a", -128, 128),
        _num(value[2], f"{what} b", -128, 128),
    )


def _keys(obj: Any, what: str, allowed: set[str], required: set[str]) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ProfileError(f"{what} must be a JSON object")
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise ProfileError(f"{what}: unknown key(s) {unknown}")
    missing = sorted(required - set(obj))
    if missing:
        raise ProfileError(f"{what}: missing key(s) {missing}")
    return obj


def parse_profile(obj: Any) -> KitProfile:
    """A profile from its JSON object, checked; ``ProfileError`` says what is wrong."""
    top = _keys(
        obj,
        "kit profile",
        {
            "format",
            "version",
            "name",
            "source",
            "canvas_mm",
            "sticks",
            "wood_lab",
            "shapes",
            "colours",
            "string",
            "seen",
        },
        {"format", "version", "sticks", "shapes", "colours"},
    )
    if top["format"] != FORMAT:
        raise ProfileError(f"not a Picasso kit profile (format {top['format']!r})")
    if top["version"] != VERSION:
        raise ProfileError(f"kit profile version {top['version']!r}; this pictable reads {VERSION}")
    canvas = top.get("canvas_mm", [360.0, 260.0])
    if not isinstance(canvas, list) or len(canvas) != 2:
        raise ProfileError("canvas_mm must be [width, height]")
    canvas_mm = (
        _num(canvas[0], "canvas width", 50, 2000),
        _num(canvas[1], "canvas height", 50, 2000),
    )
    sticks_raw = top["sticks"]
    if not isinstance(sticks_raw, list) or not sticks_raw:
        raise ProfileError("sticks must be a non-empty list")
    sticks = []
    for i, s in enumerate(sticks_raw):
        s = _keys(
            s, f"sticks[{i}]", {"kind", "length_mm", "width_mm"}, {"kind", "length_mm", "width_mm"}
        )
        if s["kind"] not in STICK_KINDS:
            raise ProfileError(f"sticks[{i}].kind must be one of {list(STICK_KINDS)}")
        sticks.append(
            StickSize(
                s["kind"],
                _num(s["length_mm"], f"sticks[{i}].length_mm", 15, 400),
                _num(s["width_mm"], f"sticks[{i}].width_mm", 2, 30),
            )
        )
    if len({s.kind for s in sticks}) != len(sticks):
        raise ProfileError("sticks: each kind may appear once")
    lengths = sorted(s.length_mm for s in sticks)
    if any(b < 1.3 * a for a, b in itertools.pairwise(lengths)):
        raise ProfileError("sticks: the kinds' lengths must differ by at least 30%")
    shapes_raw = top["shapes"]
    if not isinstance(shapes_raw, list):
        raise ProfileError("shapes must be a list")
    shapes = []
    for i, s in enumerate(shapes_raw):
        s = _keys(s, f"shapes[{i}]", {"kind", "size_mm", "area_mm2"}, {"kind", "size_mm"})
        if s["kind"] not in SHAPE_KINDS:
            raise ProfileError(f"shapes[{i}].kind must be one of {list(SHAPE_KINDS)}")
        size = _num(s["size_mm"], f"shapes[{i}].size_mm", 5, 200)
        area = s.get("area_mm2")
        shapes.append(
            ShapeSize(
                s["kind"],
                size,
                shape_area_mm2(s["kind"], size)
                if area is None
                else _num(area, f"shapes[{i}].area_mm2", 10, 40000),
            )
        )
    colours_raw = top["colours"]
    if not isinstance(colours_raw, dict):
        raise ProfileError("colours must be an object: name -> [L, a, b]")
    colours = {str(k): _lab(v, f"colours.{k}") for k, v in colours_raw.items()}
    string = _keys(top.get("string", {}), "string", {"thickness_mm", "lab"}, set())
    seen = None
    if "seen" in top:
        raw = _keys(
            top["seen"],
            "seen",
            {"wood_lab", "string_lab", "string_thickness_mm", "colours"},
            {"wood_lab", "string_lab", "string_thickness_mm"},
        )
        seen_colours = raw.get("colours", {})
        if not isinstance(seen_colours, dict):
            raise ProfileError("seen.colours must be an object: name -> [L, a, b]")
        seen = SeenLook(
            _lab(raw["wood_lab"], "seen.wood_lab"),
            _lab(raw["string_lab"], "seen.string_lab"),
            _num(raw["string_thickness_mm"], "seen.string_thickness_mm", 0, 50),
            tuple((str(k), _lab(v, f"seen.colours.{k}")) for k, v in seen_colours.items()),
        )
    return KitProfile(
        name=str(top.get("name", "custom")),
        source=str(top.get("source", "")),
        canvas_mm=canvas_mm,
        sticks=tuple(sticks),
        wood_lab=_lab(top.get("wood_lab", list(DEFAULT_PROFILE.wood_lab)), "wood_lab"),
        shapes=tuple(shapes),
        colours=colours,
        string_thickness_mm=_num(string.get("thickness_mm", 2.5), "string.thickness_mm", 0.5, 10),
        string_lab=_lab(string.get("lab", list(DEFAULT_PROFILE.string_lab)), "string.lab"),
        seen=seen,
    )


def load_profile(path: str | os.PathLike[str]) -> KitProfile:
    """Read a profile file; any problem is a ``ProfileError`` naming the file."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ProfileError(f"{p}: {size} bytes is too large for a kit profile")
        obj = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"{p}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ProfileError(f"{p}: not a kit profile (not JSON: {exc})") from None
    try:
        return parse_profile(obj)
    except ProfileError as exc:
        raise ProfileError(f"{p}: {exc}") from None
