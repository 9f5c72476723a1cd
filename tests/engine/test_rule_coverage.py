"""Every rule the engine enforces has a test, and every rule test quotes its source.

The rule tests carry ``@pytest.mark.rule(id, ...)``; ``conftest.py`` records them at
collection, before any ``-k``/``-m`` deselection. A test's quotation is its docstring's
``> `` lines: their text (with `` ... `` for elisions) must appear in the rulebooks or
CONTRACTS.md.
"""

from __future__ import annotations

import re

import pytest

from engine import rules

from .conftest import HERE, RULES_SEEN, RuleRecord
from .helpers import REPO

SHARED_CANDIDATES = [REPO.parent / "shared", REPO / "shared"]


def _record(request: pytest.FixtureRequest) -> RuleRecord:
    record = request.config.stash.get(RULES_SEEN, None)
    if record is None:
        pytest.skip("collection did not run through tests/engine/conftest.py")
    every_file = {p.name for p in HERE.glob("test_*.py")}
    if not every_file <= record.files:
        pytest.skip(
            "only part of tests/engine was collected: run the whole folder to check coverage"
        )
    return record


def _normal(text: str) -> str:
    text = text.replace("`", "").replace("\u2019", "'").replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip().lower()


def quotations(doc: str) -> list[list[str]]:
    """The docstring's quotations: each run of ``> `` lines, as its lines."""
    blocks: list[list[str]] = []
    previous = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith(">"):
            if not previous:
                blocks.append([])
            blocks[-1].append(stripped[1:].strip())
            previous = True
        else:
            previous = False
    return blocks


def _found(lines: list[str], corpus: str) -> bool:
    """Whether a quotation's text is in the corpus: its text split at `` ... `` (elisions)
    must be found piece by piece. Consecutive ``> `` lines may hold several quotations one
    after another, so the lines may be cut into consecutive groups, each found on its own."""

    def group_found(group: list[str]) -> bool:
        pieces = [_normal(piece) for piece in " ".join(group).split(" ... ")]
        return all(piece in corpus for piece in pieces if piece)

    reachable = [True] + [False] * len(lines)
    for end in range(1, len(lines) + 1):
        reachable[end] = any(
            reachable[begin] and group_found(lines[begin:end]) for begin in range(end)
        )
    return reachable[-1]


def test_every_rule_has_a_test(request: pytest.FixtureRequest) -> None:
    """Each id of ``engine.rules.ALL`` is named by at least one ``rule`` marker."""
    record = _record(request)
    missing = sorted(set(rules.ALL) - set(record.named))
    assert not missing, f"rules without a test: {missing}"


def test_rule_markers_name_real_rules(request: pytest.FixtureRequest) -> None:
    """A marker with a misspelt id would leave its rule untested without anyone noticing."""
    record = _record(request)
    unknown = {rid: nodes[:2] for rid, nodes in record.named.items() if rid not in rules.ALL}
    assert not unknown, f"markers naming no rule of engine.rules.ALL: {unknown}"


def test_rule_tests_quote_their_source(request: pytest.FixtureRequest) -> None:
    """Each rule test has a docstring with a ``> `` quotation; when the rulebooks and
    CONTRACTS.md are at hand (../shared), every quoted fragment is found in them verbatim."""
    record = _record(request)
    no_quote = sorted({n.split("[")[0] for n, doc in record.docs.items() if not quotations(doc)})
    assert not no_quote, f"rule tests without a quotation: {no_quote}"
    shared = next((p for p in SHARED_CANDIDATES if (p / "CONTRACTS.md").is_file()), None)
    if shared is None:
        pytest.skip("the rulebooks and CONTRACTS.md (../shared) are not here to check against")
    sources = [shared / "CONTRACTS.md", *sorted((shared / "rules").glob("*.txt"))]
    corpus = " ".join(_normal(p.read_text(encoding="utf-8")) for p in sources)
    wrong: dict[str, list[str]] = {}
    for node, doc in record.docs.items():
        bad = [" / ".join(block) for block in quotations(doc) if not _found(block, corpus)]
        if bad:
            wrong.setdefault(node.split("[")[0], bad)
    assert not wrong, f"quotations not found in the rulebooks or CONTRACTS.md: {wrong}"


def test_every_rule_cites_a_source() -> None:
    """Each rule of the engine carries the rulebook line or contract paragraph it enforces."""
    for rule_id, rule in rules.ALL.items():
        assert rule.id == rule_id
        assert rule.source.startswith(("CONTRACTS", "rulebook")), rule
        assert str(rule).startswith(f"{rule_id}: ")
