"""Kit profiles: the JSON format, checked; ``kit learn picasso`` measures other kits."""

from __future__ import annotations

import json
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
