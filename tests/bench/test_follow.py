"""The followers' benchmarks judge emitted events as the live session does and sum up a set of
games: a refused event is skipped and recorded, a missed or extra event is listed, a set
below 95% right does not meet the bar."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from pictable.bench.follow import diff, failure_table, judge, sets_report, summarise

START = {"type": "start", "game": "pickpic", "players": ["Ana", "Ben", "Cy"]}


def test_judge_skips_and_records_what_the_engine_refuses() -> None:
    bad = {"type": "give", "player": "Nobody", "to": "Ana", "card": "pickpic-001"}
    state, refused = judge([START, bad])
    assert len(refused) == 1 and refused[0].startswith("give:")
    assert set(state.summary()["scores"]) == {"Ana", "Ben", "Cy"}


def test_diff_lists_missed_and_extra_events_ignoring_t_and_meta() -> None:
    a = {"type": "reveal", "player": "Ana", "card": "pickpic-001", "t": 1.0}
    b = {"type": "reveal", "player": "Ben", "card": "pickpic-002", "t": 2.0}
    c = {"type": "reveal", "player": "Cy", "card": "pickpic-003", "t": 3.0}
    got = [{**a, "t": 9.0, "meta": {"x": 1}}, c]
    out = diff([a, b], got)
    assert len(out) == 2
    assert out[0].startswith("missed ") and '"Ben"' in out[0]
    assert out[1].startswith("extra ") and '"Cy"' in out[1]
    assert diff([a, b], [b, a]) == []


@dataclass
class Run:
    seed: int
    right: bool
    wrong: list[str] = field(default_factory=list)
    n_players: int = 3
    frames: int = 100
    ms_per_frame: float = 20.0
    events_true: int = 10
    events_matched: int = 10


def test_summarise_counts_the_set_and_names_what_went_wrong() -> None:
    miss = 'missed {"card": "pickpic-002", "type": "give"}'
    runs = [Run(1000 + i, True) for i in range(19)]
    runs.append(Run(1019, False, [miss], events_matched=9, ms_per_frame=30.0))
    s = summarise(runs)
    assert (s.n, s.right, s.seeds) == (20, 19, "1000..1019")
    assert s.share == pytest.approx(0.95) and s.met
    assert (s.events_matched, s.events_true) == (199, 200)
    assert s.failures == "missed give: 1"
    table = failure_table(s)
    assert len(table) == 3 and table[2].startswith("| 1019 | 3 | 100 | no |")
    worse = summarise([*runs[:18], Run(1018, False, [miss]), runs[19]])
    assert worse.right == 18 and not worse.met


def test_an_all_right_set_has_no_failure_table_and_no_set_is_refused() -> None:
    s = summarise([Run(7, True)])
    assert failure_table(s) == [] and s.failures == "none"
    with pytest.raises(ValueError):
        summarise([])


def test_sets_report_tables_each_set_and_sums_up_the_bench_set() -> None:
    miss = 'missed {"card": "pickpic-002", "type": "give"}'
    bench = summarise([Run(1000, True), Run(1001, True)])
    held = summarise([Run(12000, True), Run(12001, False, [miss], events_matched=9)])
    md, summary = sets_report(
        [("bench seeds", bench), ("held out", held)],
        game="Pick Pic",
        unit="sessions",
        outcome="the true final scores",
        events="",
    )
    assert md[2].startswith("| bench seeds | 1000..1001 | 100.0% (2/2) |")
    assert md[3].startswith("| held out | 12000..12001 | 50.0% (1/2) | 95.0% (19/20) |")
    assert "Events missed or extra in the wrong sessions (held out): missed give: 1." in md
    assert [row["met"] for row in summary[:2]] == [True, False]
    assert (
        summary[1]["figure"]
        == "Pick Pic sessions with the true final scores (held out, 12000..12001)"
    )
    assert summary[2]["figure"] == "Pick Pic true events emitted exactly (bench seeds)"
    assert summary[2]["value"] == "100.0% (20/20)"
