"""Kit profiles: the JSON format, checked; ``kit learn picasso`` measures other kits."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from vision.picasso.profile import (
    DEFAULT_PROFILE,
    ProfileError,
    load_profile,
    parse_profile,
)


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "kit.json"
    DEFAULT_PROFILE.save(path)
    assert load_profile(path).to_json() == DEFAULT_PROFILE.to_json()


def test_round_trip_with_the_colours_seen(tmp_path: Path) -> None:
    """``seen.colours`` (the shapes' colours as ``kit learn`` measured them, by name) is
    written and read back, in its order."""
    obj = _with(
        seen={
            "wood_lab": [80, 5, 20],
            "string_lab": [30, 0, 0],
            "string_thickness_mm": 3.0,
            "colours": {"pink": [62, 48, 4], "navy": [24, 27, -52]},
        }
    )
    profile = parse_profile(obj)
    assert profile.seen is not None
    assert profile.seen.colours == (("pink", (62.0, 48.0, 4.0)), ("navy", (24.0, 27.0, -52.0)))
    path = tmp_path / "kit.json"
    profile.save(path)
    assert load_profile(path).to_json() == profile.to_json()
    assert (
        "colours"
        not in (
            DEFAULT_PROFILE.with_changes(seen=replace(profile.seen, colours=())).to_json()["seen"]
        )
    )


def _with(**changes: Any) -> dict[str, Any]:
    obj = DEFAULT_PROFILE.to_json()
    obj.update(changes)
    return obj


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (_with(format="x"), "not a Picasso kit profile"),
        (_with(version=2), "version 2"),
        (_with(extra=1), r"unknown key\(s\) \['extra'\]"),
        (_with(sticks=[]), "sticks must be a non-empty list"),
        (
            _with(
                sticks=[
                    {"kind": "long_stick", "length_mm": 100, "width_mm": 8},
                    {"kind": "short_stick", "length_mm": 90, "width_mm": 8},
                ]
            ),
            "differ by at least 30%",
        ),
        (
            _with(sticks=[{"kind": "medium", "length_mm": 100, "width_mm": 8}]),
            "kind must be one of",
        ),
        (_with(shapes=[{"kind": "star", "size_mm": 40}]), "kind must be one of"),
        (_with(colours={"red": [50, 300, 0]}), "colours.red a must be between"),
        (_with(string={"thickness_mm": "thin"}), "string.thickness_mm must be a number"),
        (
            _with(
                seen={
                    "wood_lab": [80, 5, 20],
                    "string_lab": [30, 0, 0],
                    "string_thickness_mm": 3.0,
                    "colours": [[62, 48, 4]],
                }
            ),
            "seen.colours must be an object",
        ),
        (
            _with(
                seen={
                    "wood_lab": [80, 5, 20],
                    "string_lab": [30, 0, 0],
                    "string_thickness_mm": 3.0,
                    "colours": {"pink": [62, 480, 4]},
                }
            ),
            "seen.colours.pink a must be between",
        ),
    ],
)
def test_bad_profiles(obj: dict[str, Any], message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        parse_profile(obj)


def test_unreadable_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ProfileError, match="not JSON"):
        load_profile(bad)
    with pytest.raises(ProfileError, match="cannot read"):
        load_profile(tmp_path / "none.json")
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"x": "y" * 70000}), encoding="utf-8")
    with pytest.raises(ProfileError, match="too large"):
        load_profile(big)
