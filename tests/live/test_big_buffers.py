"""``pictable play`` has the C allocator give frame-sized buffers back to the system when
they are freed (a 1080p session's peak memory: ``pictable.bench.live``)."""

from __future__ import annotations

import platform
import sys

import pytest

from pictable import live


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="glibc's allocator only",
)
def test_the_threshold_is_set_on_glibc() -> None:
    assert live.give_back_big_buffers() is True


def test_play_sets_it_before_anything_else(monkeypatch: pytest.MonkeyPatch) -> None:
    from pictable.cli import main

    called: list[bool] = []
    monkeypatch.setattr(live, "give_back_big_buffers", lambda: called.append(True) or True)
    assert main(["play"]) != 0  # no game named: an error, after the setting
    assert called == [True]
