"""``kit learn picasso`` writes measured looks only where the default's fail (issue 25: a
learned kit must read no look worse than the default). The learned profile keeps the
default's wood colour and string, and then its colours too, when with them the reader
already counts the pieces of the learning photo itself exactly; otherwise the measured
looks are written (``learn._looks_for_reader``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import vision.picasso.reader as reader_module
from vision.picasso.learn import _looks_for_reader
from vision.picasso.profile import DEFAULT_PROFILE, KitProfile

WANT = {"long_stick": 2, "short_stick": 2, "shape": 4, "string": 1}
#: A kit whose pieces were measured other than the default's: pale wood, a grey string,
#: pink instead of red.
LEARNED = DEFAULT_PROFILE.with_changes(
    wood_lab=(88.0, 3.0, 19.0),
    string_lab=(45.0, 1.0, 2.0),
    colours={
        **{k: v for k, v in DEFAULT_PROFILE.colours.items() if k != "red"},
        "pink": (65.0, 45.0, 5.0),
    },
)


@dataclass
class _Reading:
    seen_counts: dict[str, int]
    occlusion: Any = None


def _reads(monkeypatch: pytest.MonkeyPatch, right: Any) -> list[KitProfile]:
    """Make ``read_canvas`` count the photo right exactly for the profiles ``right(p)``
    accepts; returns the profiles it was asked with."""
    asked: list[KitProfile] = []

    def fake(view: Any, profile: KitProfile, namer: Any) -> _Reading:
        asked.append(profile)
        return _Reading(WANT if right(profile) else {**WANT, "short_stick": 1})

    monkeypatch.setattr(reader_module, "read_canvas", fake)
    return asked


def test_the_default_looks_are_kept_where_they_count_the_photo_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the default's wood and string the photo reads right: those are written, the
    measured shape colours kept (they name the shapes), and a note says why."""
    _reads(monkeypatch, lambda p: True)
    notes: list[str] = []
    out = _looks_for_reader(None, LEARNED, WANT, notes)  # type: ignore[arg-type]
    assert out.wood_lab == DEFAULT_PROFILE.wood_lab
    assert out.string_lab == DEFAULT_PROFILE.string_lab
    assert out.colours == LEARNED.colours and "pink" in out.colours
    assert any("wood and string colours are left at the default's" in n for n in notes)


def test_the_default_colours_too_when_only_they_count_it_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _reads(monkeypatch, lambda p: p.colours == DEFAULT_PROFILE.colours)
    notes: list[str] = []
    out = _looks_for_reader(None, LEARNED, WANT, notes)  # type: ignore[arg-type]
    assert out.colours == DEFAULT_PROFILE.colours
    assert out.wood_lab == DEFAULT_PROFILE.wood_lab
    assert any("colours are left at the default's" in n for n in notes)


def test_the_measured_looks_are_written_where_the_defaults_miscount(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The default's looks miss a stick of the photo: the measured ones are written."""
    asked = _reads(monkeypatch, lambda p: False)
    notes: list[str] = []
    out = _looks_for_reader(None, LEARNED, WANT, notes)  # type: ignore[arg-type]
    assert out == LEARNED and not notes
    assert len(asked) == 2  # both fall-backs were tried


def test_an_occluded_reading_is_no_right_count(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(view: Any, profile: KitProfile, namer: Any) -> _Reading:
        return _Reading(WANT, occlusion=object())

    monkeypatch.setattr(reader_module, "read_canvas", fake)
    assert _looks_for_reader(None, LEARNED, WANT, []) == LEARNED  # type: ignore[arg-type]
