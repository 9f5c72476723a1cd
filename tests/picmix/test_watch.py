"""In the game: rendered claim sequences in, `reveal` and `claim` events out, judged by the
engine to the same scores as the events a perfect tracker emits."""

from __future__ import annotations

from typing import Any

import pytest

from engine.api import replay
from vision.picmix.model import ItemDeck, ItemModel
from vision.picmix.watch import ClaimWatcher
from vision.synth import render_sequence


def _watch(
    seed: int, model: ItemModel, deck: ItemDeck
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    seq = render_sequence("picmix_claim", seed=seed, tier="normal", fps=6)
    truth = list(seq.events)
    watcher = ClaimWatcher(truth[0]["players"], deck, model)
    events = [watcher.start_event()]
    t = 0.0
    for f in seq:
        events.extend(watcher.update(f.frame, f.t))
        t = f.t
    events.extend(watcher.finish(t))
    return events, truth


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_events_replay_to_the_true_scores(seed: int, model: ItemModel, deck: ItemDeck) -> None:
    events, truth = _watch(seed, model, deck)
    assert [e["type"] for e in events] == [e["type"] for e in truth]
    mine = {e["type"]: e for e in events}
    true = {e["type"]: e for e in truth}
    assert mine["reveal"]["card"] == true["reveal"]["card"]
    assert sorted(mine["reveal"]["items"]) == sorted(true["reveal"]["items"])
    assert sorted(mine["claim"]["visible"]) == sorted(true["claim"]["visible"])
    assert mine["claim"]["player"] == true["claim"]["player"]
    assert mine["reveal"]["t"] <= mine["claim"]["t"]
    assert replay(events).summary() == replay(truth).summary()
