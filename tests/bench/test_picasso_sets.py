"""The Picasso reader's development sets (pictable.bench.readers.picasso_sets): only looks
tuning may use, saved runs compared board by board, and the command on a few boards."""

from __future__ import annotations

import json

import pytest

from pictable.bench.readers import picasso_sets as ps


def _run(fails: dict[int, dict[str, object]], counted: int = 10) -> dict[str, object]:
    failures = [{"index": i, **f} for i, f in sorted(fails.items())]
    return {"counted": counted, "counts_right": counted - len(fails), "failures": failures}


MISSED_SHORT = {"want": {"short_stick": 3}, "got": {"short_stick": 2}}
LONG_AS_SHORTS = {"want": {"long_stick": 1, "short_stick": 0}, "got": {"short_stick": 2}}


def test_development_sets_never_use_held_back_looks() -> None:
    assert ps.SETS and ps.MORE_SETS
    for name, spec in ps.ALL_SETS.items():
        assert spec.looks in ps.DEVELOPMENT_LOOKS, name
        assert spec.looks != "held"
        assert spec.drawer in ("ours", "second")
        assert spec.tier in ("normal", "hard")


def test_more_sets_run_only_when_named(monkeypatch, tmp_path) -> None:
    asked: list[str] = []

    def fake_run_sets(names, n, out, jobs):
        asked.extend(names)
        return {name: _run({}) for name in names}

    monkeypatch.setattr(ps, "run_sets", fake_run_sets)
    assert ps.main(["--out", str(tmp_path)]) == 0
    assert asked == list(ps.SETS) and not set(ps.MORE_SETS) & set(asked)
    asked.clear()
    assert ps.main(["--out", str(tmp_path), "--sets", "kn0,more"]) == 0
    assert asked == ["kn0", "wn3", "wn4", "wn5", "wn6"]
    with pytest.raises(SystemExit):
        ps.main(["--out", str(tmp_path), "--sets", "wn9"])
    (tmp_path / "wn5.json").write_text(json.dumps(_run({})))
    assert "wn5" in ps.load_run(tmp_path)


def test_compare_names_the_boards_fixed_and_broken() -> None:
    base = {"kn0": _run({3: MISSED_SHORT, 7: MISSED_SHORT}), "dn1": _run({})}
    new = {"kn0": _run({7: MISSED_SHORT, 9: LONG_AS_SHORTS}), "dn1": _run({}), "sk0": _run({})}
    changes = {c.name: c for c in ps.compare(base, new)}
    assert set(changes) == {"kn0", "dn1"}  # sk0 is not in the saved run
    assert changes["kn0"].fixed == (3,)
    assert changes["kn0"].broken == (9,)
    assert (changes["kn0"].before, changes["kn0"].after) == (2, 2)
    assert changes["dn1"].fixed == changes["dn1"].broken == ()


def test_kind_totals_count_each_board_once_per_kind() -> None:
    runs = {
        "kn0": _run({1: MISSED_SHORT, 2: LONG_AS_SHORTS}),
        "sh0": _run({4: {"occlusion_missed": True}, 5: {"error": "no board"}}),
    }
    totals = ps.kind_totals(runs)
    assert totals == {
        "missed short": 1,
        "extra short": 1,
        "missed long": 1,
        "hand not reported": 1,
        "no board": 1,
    }
    lines = ps.summary_lines(runs, base={"kn0": _run({1: MISSED_SHORT})})
    assert lines[0] == "failed boards over 2 sets: 4"
    assert "against the saved run (1 sets): 1 -> 2" in lines
    assert any(line.strip().startswith("kn0: 1 -> 2, fixed [], broken [2]") for line in lines)


def test_summary_of_a_clean_run() -> None:
    assert ps.summary_lines({"kn0": _run({})})[:2] == ["failed boards over 1 sets: 0", "by kind: -"]


def test_a_saved_run_is_read_back_and_compared(tmp_path, capsys) -> None:
    """Both renderers, two boards each, in one process; the second run compares with the
    first and finds the same boards."""
    out = tmp_path / "a"
    assert ps.main(["--out", str(out), "--sets", "kn0,sk0", "--n", "2", "--jobs", "1"]) == 0
    saved = ps.load_run(out)
    assert set(saved) == {"kn0", "sk0"}
    for res in saved.values():
        assert res["boards"] == 2
        assert res["counted"] <= 2
        assert "scales" not in res
        assert isinstance(res["failures"], list)
    first = capsys.readouterr().out
    assert "[2/2]" in first and "failed boards over 2 sets" in first
    again = tmp_path / "b"
    assert (
        ps.main(
            ["--out", str(again), "--sets", "kn0", "--n", "2", "--jobs", "1", "--compare", str(out)]
        )
        == 0
    )
    text = capsys.readouterr().out
    assert "against the saved run (1 sets)" in text
    n = len(saved["kn0"]["failures"])
    assert f"{n} -> {n}" in text
    assert json.loads((again / "kn0.json").read_text())["failures"] == saved["kn0"]["failures"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--sets", "kn0,hn1"],  # a held-back set is no development set
        ["--sets", ""],
        ["--n", "0"],
        ["--jobs", "0"],
        ["--compare", "/nonexistent/run"],
    ],
)
def test_bad_arguments_are_refused(tmp_path, argv, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        ps.main(["--out", str(tmp_path / "x"), *argv])
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # nothing run, nothing written
