"""Shared fixtures: where the real photos of ../shared/data are."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path | None:
    """The shared data folder (real photos with ground truth), if present."""
    env = os.environ.get("PICTABLE_DATA")
    candidates = [Path(env)] if env else []
    candidates += [REPO.parent / "shared" / "data", REPO / "shared" / "data"]
    for c in candidates:
        if (c / "MANIFEST.tsv").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    found = data_dir()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("the shared data folder (../shared/data) is missing in CI")
        pytest.skip("the shared data folder (../shared/data) is not present")
    return found
