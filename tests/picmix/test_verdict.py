"""The verdict from the surely visible and the unsure items: never a confident answer that an
unsure item could overturn."""

from __future__ import annotations

import pytest

from vision.picmix.reader import UNNAMED, UNSURE_BAND, VISIBLE_MIN, _status, decide

OBJ = {"sun", "fish", "moon"}


@pytest.mark.parametrize(
    ("visible", "unsure", "verdict", "missing", "extra"),
    [
        ({"sun", "fish", "moon"}, set(), "correct", [], []),
        ({"sun", "fish", "moon", "key"}, set(), "wrong", [], ["key"]),
        ({"sun", "fish"}, set(), "wrong", ["moon"], []),
        # an extra item surely shows: wrong whatever the doubt
        ({"sun", "fish", "moon", "key"}, {"star"}, "wrong", [], ["key"]),
        # an objective item neither visible nor in doubt: wrong
        ({"sun", "fish"}, {"star"}, "wrong", ["moon"], []),
        # the only doubt is an objective item: could be missing
        ({"sun", "fish"}, {"moon"}, "unsure", ["moon"], []),
        # a doubtful other item could be an extra
        ({"sun", "fish", "moon"}, {"key"}, "unsure", [], []),
        # doubt about an item that surely shows elsewhere changes nothing
        ({"sun", "fish", "moon"}, {"sun"}, "correct", [], []),
        # an item in view whose name is in doubt could be the missing one
        ({"sun", "fish"}, {UNNAMED, "key"}, "unsure", ["moon"], []),
        # ... but not make an extra item go away
        ({"sun", "fish", "moon", "key"}, {UNNAMED}, "wrong", [], ["key"]),
    ],
)
def test_decide(
    visible: set[str], unsure: set[str], verdict: str, missing: list[str], extra: list[str]
) -> None:
    got, got_missing, got_extra, reasons = decide(OBJ, visible, unsure)
    assert (got, got_missing, got_extra) == (verdict, missing, extra)
    assert bool(reasons) == (verdict == "unsure")


def test_unsure_reasons_name_the_items() -> None:
    _, _, _, reasons = decide(OBJ, {"sun", "fish"}, {"moon", "key"})
    assert any(r.startswith("moon:") for r in reasons)
    assert any(r.startswith("key:") for r in reasons)


def test_threshold_sits_inside_the_unsure_band() -> None:
    lo, hi = UNSURE_BAND
    assert lo < VISIBLE_MIN < hi
    assert _status(VISIBLE_MIN, 0.999) == "unsure"
    assert _status(lo - 0.01, 0.999) == "hidden"
    assert _status(hi + 0.01, 0.999) == "visible"
    assert _status(hi + 0.01, 0.5) == "unsure"  # shows, but not surely named
