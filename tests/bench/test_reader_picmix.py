"""The benchmark's measures of claims no camera could judge, on hand-made truths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from pictable.bench.readers.picmix import bench_picmix
from vision.picmix.reading import PicmixFailure
from vision.synth.picmix_claims import PLAYER_SEEN_MIN, objective_hidden, player_items_hidden


def _truth(objective_seen: float, halves_seen: list[float]) -> dict[str, Any]:
    """A claim's truth (``Truth.to_json()`` keys the measures read)."""
    return {
        "cards": [{"card_id": "picmix-obj-01", "items": ["a", "b", "c"],
                   "visible_fraction": objective_seen}],
        "picmix_areas": [{"items": [{"item": f"i{k}", "visible_fraction": v}
                                    for k, v in enumerate(halves_seen)]}],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("halves", "hidden"),
    [
        ([0.0, 0.06, 0.03], True),  # every half under the arm
        ([0.27, 0.0, 0.13], True),  # a strip of paper, no item
        ([PLAYER_SEEN_MIN, 0.0], False),  # a third of a half: an item may show
        ([1.0, 0.02], False),
    ],
)
def test_player_items_hidden(halves: list[float], hidden: bool) -> None:
    assert player_items_hidden(_truth(1.0, halves)) is hidden


@pytest.mark.parametrize(("seen", "hidden"), [(0.05, True), (0.249, True), (0.25, False)])
def test_objective_hidden(seen: float, hidden: bool) -> None:
    assert objective_hidden(_truth(seen, [1.0])) is hidden


def test_bench_counts_claims_beyond_sight(tmp_path: Path) -> None:
    """``bench_picmix`` over a cache of three hand-made claims: one with its objective all
    but hidden, one with the player's cards under an arm, one in plain view."""
    folder = tmp_path / "normal-seed0"
    folder.mkdir()
    truths = [_truth(0.1, [1.0, 0.0]), _truth(1.0, [0.1, 0.2]), _truth(1.0, [1.0, 1.0])]
    for i, t in enumerate(truths):
        t["picmix_areas"][0].update(visible_items=[], card_ids=[])
        cv2.imwrite(str(folder / f"{i:04d}.png"), np.zeros((8, 8, 3), np.uint8))
        (folder / f"{i:04d}.json").write_text(json.dumps(t), encoding="utf-8")
    out = bench_picmix("normal", 3, 0, cache=tmp_path, verify=lambda f: PicmixFailure("test"))
    assert (out["objective_hidden"], out["player_items_hidden"], out["beyond_sight"]) == (1, 1, 2)


def test_claims_under_looks_keep_their_cards_on_both_drawers(tmp_path: Path) -> None:
    """Issue 26, part 7: a claim drawn in development or held-back looks shows the same
    cards as in the default look (the look has a random stream of its own), in other
    pixels; the run says which looks it measured; an unknown group is refused."""
    from pictable.bench.drawers.picmix_claims import claim_scene as drawn
    from pictable.bench.readers.identify import kit_art
    from vision.synth.picmix_claims import claim_scene

    def cards(truth: dict) -> list:
        return sorted(c["card_id"] for c in truth["cards"])

    kit_frame, kit = claim_scene("normal", 0, 0, tmp_path)
    held_frame, held = claim_scene("normal", 0, 0, tmp_path, looks="held")
    assert cards(held) == cards(kit) and not np.array_equal(held_frame, kit_frame)
    assert (tmp_path / "normal-seed0-held" / "0000.png").is_file()
    art = kit_art()
    dev_frame, dev = drawn("hard", 0, 0, art, "dev")
    held2_frame, held2 = drawn("hard", 0, 0, art, "held")
    assert dev["picmix_areas"][0]["card_ids"] == held2["picmix_areas"][0]["card_ids"]
    assert not np.array_equal(dev_frame, held2_frame)
    out = bench_picmix(
        "normal", 1, 0, cache=tmp_path, looks="held", verify=lambda f: PicmixFailure("test")
    )
    assert out["looks"] == "held" and out["unsure"] == 1
    with pytest.raises(ValueError, match="looks"):
        bench_picmix("normal", 1, 0, cache=tmp_path, looks="bogus")
    with pytest.raises(ValueError, match="looks"):  # the wide looks are the project's camera's
        bench_picmix("normal", 1, 0, looks="wide", drawer="second")
