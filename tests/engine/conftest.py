"""Shared set-up of the engine suite: the ``rule`` marker, the hypothesis profile, and the
record of which rule ids the collected tests name (checked by ``test_rule_coverage.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import settings

HERE = Path(__file__).resolve().parent

# CI runs are reproducible and leave no example database behind; `--hypothesis-profile=dev`
# explores new examples on every run.
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.register_profile("dev", database=None, deadline=None)


@dataclass
class RuleRecord:
    """What the collection saw, before any ``-k``/``-m`` deselection."""

    named: dict[str, list[str]] = field(default_factory=dict)  # rule id -> test node ids
    docs: dict[str, str] = field(default_factory=dict)  # node id -> docstring
    files: set[str] = field(default_factory=set)  # test files of this folder collected


RULES_SEEN = pytest.StashKey[RuleRecord]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "rule(*ids): the engine rule ids (engine.rules.ALL) a test checks; every id needs one",
    )
    if not config.getoption("hypothesis_profile", None):
        settings.load_profile("ci")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    record = config.stash.setdefault(RULES_SEEN, RuleRecord())
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.parent != HERE:
            continue
        record.files.add(path.name)
        marks = list(item.iter_markers("rule"))
        for mark in marks:
            for rule_id in mark.args:
                record.named.setdefault(rule_id, []).append(item.nodeid)
        if marks:
            obj = getattr(item, "obj", None)
            record.docs[item.nodeid] = (getattr(obj, "__doc__", None) or "").strip()
