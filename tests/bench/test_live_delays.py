"""The live benchmark's delays (issue 27): each true event with a settle frame is matched to
the event the follower emitted for it, and its delay is counted past its stability time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pictable.bench.live import delay_rows, match_delays


@dataclass
class Rec:
    event: dict[str, Any]
    frame_t: float
    accepted: bool = True
    by: str = "camera"
    delay_ms: float = 5.0


def _give(card: str, to: str, t: float) -> dict[str, Any]:
    return {"type": "give", "from": "A", "to": to, "card": card, "t": t}


def test_an_event_is_matched_to_its_twin_before_any_nearer_one() -> None:
    truth = [{"type": "start"}, _give("c1", "B", 5.0), _give("c2", "C", 6.0), {"type": "reject"}]
    settle = [None, 4.8, 5.8, None]
    records = [
        Rec({**_give("c2", "C", 6.2), "meta": {"frames": 9}}, 6.2),  # c2's, nearer c1's settle
        Rec(_give("c9", "B", 5.3), 5.3),  # c1 misread: the same kind, near in time
        Rec(_give("c1", "B", 5.1), 5.1, accepted=False),  # refused by the engine: not counted
    ]
    d = match_delays(truth, settle, records, {"give": 0.25}, {6.2: 3.0})
    assert [x["settle_t"] for x in d] == [4.8, 5.8]
    assert d[0]["same"] is False and d[0]["over_ms"] == pytest.approx((5.3 - 4.8 - 0.25) * 1000)
    assert d[1]["same"] is True and d[1]["over_ms"] == pytest.approx(150.0)
    assert d[1]["cpu_ms"] == 3.0 and d[0]["cpu_ms"] == 5.0  # no CPU time given: the wall's


def test_an_event_never_emitted_is_missed_and_left_out_of_the_medians() -> None:
    truth = [_give("c1", "B", 5.0), _give("c2", "C", 9.0)]
    d = match_delays(truth, [4.8, 8.8], [Rec(_give("c1", "B", 5.1), 5.1)], {"give": 0.25})
    assert d[1] == {"kind": "give", "settle_t": 8.8, "missed": True}
    (row,) = delay_rows([{"game": "pickpic", "delays": d}], "pickpic")
    assert (row["kind"], row["n"], row["matched"]) == ("give", 2, 1)
    assert row["over_median"] == pytest.approx(50.0)
    assert row["total_median"] == pytest.approx(55.0)
