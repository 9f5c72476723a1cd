"""In the game: rendered claim sequences in, `reveal` and `claim` events out, judged by the
engine to the same scores as the events a perfect tracker emits."""

from __future__ import annotations

from typing import Any

import pytest

from engine.api import replay
from vision.picmix.model import ItemDeck, ItemModel
from vision.synth import render_sequence
from vision.tracker.picmix import ClaimWatcher


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


@pytest.mark.slow
def test_watcher_shows_the_objective_in_play_the_claimer_and_skips_a_claimed_card(
    model: ItemModel, deck: ItemDeck
) -> None:
    """What the live view shows (``objective_in_play``, ``claiming``) follows the events, and a
    watcher resumed with ``already_claimed`` does not reveal that objective again."""
    seq = render_sequence("picmix_claim", seed=1, tier="normal", fps=6)
    truth = list(seq.events)
    watcher = ClaimWatcher(truth[0]["players"], deck, model)
    assert watcher.objective_in_play is None and watcher.claiming is None
    revealed: dict[str, Any] | None = None
    claimed = False
    claimers: set[str] = set()
    for f in seq:
        for e in watcher.update(f.frame, f.t):
            revealed = e if e["type"] == "reveal" else revealed
            claimed = claimed or e["type"] == "claim"
        if watcher.claiming is not None:
            claimers.add(watcher.claiming)
        if revealed is None or claimed:  # the round in play ends with its claim
            assert watcher.objective_in_play is None
        else:
            in_play = watcher.objective_in_play
            assert in_play is not None
            quad, items = in_play
            assert quad.shape == (4, 2)
            assert sorted(items) == sorted(revealed["items"])
    true_claim = next(e for e in truth if e["type"] == "claim")
    assert claimers == {true_claim["player"]}
    assert revealed is not None and claimed

    resumed = ClaimWatcher(truth[0]["players"], deck, model)
    resumed.already_claimed(revealed["card"])
    again = [e for f in seq for e in resumed.update(f.frame, f.t)]
    assert not [e for e in again if e["type"] == "reveal"]
