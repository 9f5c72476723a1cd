"""A stored Picasso game resumes where it was: the tracker's builder and phase are set from the
stored summary (``PicassoTurnTracker.resume_turn``), and the live view reads them."""

from __future__ import annotations

import pytest

from vision.tracker.picasso import PicassoFollower, PicassoTurnTracker

PLAYERS = ["Ana", "Ben", "Cy"]


def test_a_new_tracker_waits_for_the_first_players_draw() -> None:
    tracker = PicassoTurnTracker(PLAYERS)
    assert (tracker.builder, tracker.phase) == ("Ana", "draw")


def test_resume_with_a_card_drawn_is_a_build_under_way() -> None:
    tracker = PicassoTurnTracker(PLAYERS)
    tracker.resume_turn("Ben", "picasso-007", built=True)
    assert (tracker.builder, tracker.phase) == ("Ben", "build")


def test_resume_without_a_card_waits_for_the_draw() -> None:
    tracker = PicassoTurnTracker(PLAYERS)
    tracker.resume_turn("Cy")
    assert (tracker.builder, tracker.phase) == ("Cy", "draw")


def test_resume_refuses_a_stranger() -> None:
    tracker = PicassoTurnTracker(PLAYERS)
    with pytest.raises(ValueError, match="Dee"):
        tracker.resume_turn("Dee")
    assert (tracker.builder, tracker.phase) == ("Ana", "draw")


def test_the_follower_resumes_a_stored_turn_and_says_so() -> None:
    follower = PicassoFollower(PLAYERS)
    follower.resume({"builder": "Ben", "card": "picasso-007", "cost": 4})
    assert follower.tracker.builder == "Ben"
    assert follower.prompt() == "Ben builds; show the card again when the word is guessed"
    follower.resume({"builder": "Nobody"})  # a summary naming no player changes nothing
    assert follower.tracker.builder == "Ben"
