"""Issue 5, item 1: on ZXing's real photos the fused reader reads at least as many codes as
the best library alone (same images, same run), and misreads no ASCII payload."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from tests.codes.qr_bar import READERS, load_samples, report, score


@pytest.mark.slow
def test_fused_reader_beats_each_library_alone_and_misreads_no_ascii(shared_data: Path):
    samples = load_samples(shared_data)
    assert len(samples) >= 100, "the dev set has 121 images"
    frames = [cv2.imread(str(s.path), cv2.IMREAD_COLOR) for s in samples]
    scores = {name: score(name, reader, samples, frames) for name, reader in READERS.items()}
    table = report(scores)
    fused = scores.pop("fused")
    best = max(scores.values(), key=lambda s: s.correct)
    assert fused.correct >= best.correct, table
    assert fused.misreads_ascii == 0, table
    # Every code the best library reads, the fused reader reads too.
    assert best.correct_ids <= fused.correct_ids, table
