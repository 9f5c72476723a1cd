"""The tracker's building blocks: confirmation in seconds, hands, card following."""

from __future__ import annotations

import numpy as np

from vision.tracker import CardTracker, Debouncer, Sighting


def _frames(fps: float, seconds: float) -> list[float]:
    return [i / fps for i in range(int(seconds * fps))]


def test_change_confirmed_after_stable_seconds_at_any_frame_rate():
    for fps in (10.0, 30.0):
        d: Debouncer[int] = Debouncer(stable_s=0.5)
        confirmed_at = None
        for t in _frames(fps, 2.0):
            if d.update(3, t) is not None:
                confirmed_at = t
                break
        assert confirmed_at is not None
        assert 0.5 <= confirmed_at <= 0.5 + 1.5 / fps


def test_flicker_never_confirms():
    d: Debouncer[int] = Debouncer(stable_s=0.5)
    for i, t in enumerate(_frames(30, 3.0)):
        assert d.update(i % 2, t) is None or d.confirmed == 0
    assert d.confirmed in (None, 0)


def test_blocked_frames_restart_the_wait():
    d: Debouncer[str] = Debouncer(stable_s=0.5)
    out = []
    for t in _frames(30, 2.0):
        blocked = 0.3 <= t < 0.6  # a hand over the region
        r = d.update("built", t, blocked=blocked)
        if r is not None:
            out.append(t)
    assert out and out[0] >= 0.6 + 0.5 - 1e-9


def test_same_value_again_is_not_a_new_change():
    d: Debouncer[int] = Debouncer(stable_s=0.2)
    hits = [t for t in _frames(30, 2.0) if d.update(5, t) is not None]
    assert len(hits) == 1


def _confirmations(d: Debouncer[int], reads: list[tuple[float, int]], fps: float = 30.0):
    """Feeds ``d`` every frame up to 2 s, each frame carrying the last reading made (as a
    follower that reads every 0.1 s does), and returns the (t, value) confirmed."""
    out = []
    for t in _frames(fps, 2.0):
        value = [v for at, v in reads if at <= t + 1e-9][-1]
        r = d.update(value, t)
        if r is not None:
            out.append((t, r))
    return out


# 3 confirmed, then 4 read from 0.2 s but for one misreading (3) at 0.4 s
ONE_GLITCH = [(0.0, 3), (0.2, 4), (0.4, 3), (0.5, 4)]


def test_one_misreading_restarts_the_wait_without_a_glitch_allowance():
    d: Debouncer[int] = Debouncer(stable_s=0.5)
    d.reset(3)
    got = _confirmations(d, ONE_GLITCH)
    assert got and got[0][1] == 4 and got[0][0] >= 0.5 + 0.5 - 1e-9


def test_a_glitch_shorter_than_the_allowance_does_not_restart_the_wait():
    d: Debouncer[int] = Debouncer(stable_s=0.5, glitch_s=0.15)
    d.reset(3)
    got = _confirmations(d, ONE_GLITCH)
    assert got and got[0][1] == 4 and abs(got[0][0] - 0.7) < 0.04  # from 0.2 s on
    assert d.first_seen is not None and abs(d.first_seen - 0.2) < 1e-9


def test_a_longer_change_is_a_change_not_a_glitch():
    # 4 from 0.2 s, back to 3 for two readings (0.2 s), then 4 again: the wait restarts
    d: Debouncer[int] = Debouncer(stable_s=0.5, glitch_s=0.15)
    d.reset(3)
    got = _confirmations(d, [(0.0, 3), (0.2, 4), (0.4, 3), (0.6, 4)])
    assert got and got[0][0] >= 0.6 + 0.5 - 1e-9


def test_a_flickering_reading_never_confirms_even_with_a_glitch_allowance():
    d: Debouncer[int] = Debouncer(stable_s=0.5, glitch_s=0.15)
    flicker = [(k / 10, 1 + k % 2) for k in range(20)]  # 1, 2, 1, 2... every 0.1 s
    assert _confirmations(d, flicker) == []
    # one glitch in a wait is allowed, not two
    d = Debouncer(stable_s=0.5, glitch_s=0.15)
    d.reset(3)
    got = _confirmations(d, [(0.0, 3), (0.2, 4), (0.3, 3), (0.4, 4), (0.5, 3), (0.6, 4)])
    assert got and got[0][0] >= 0.6 + 0.5 - 1e-9


def test_a_blocked_frame_is_never_a_glitch():
    d: Debouncer[int] = Debouncer(stable_s=0.5, glitch_s=0.15)
    d.reset(3)
    out = []
    for t in _frames(30, 2.0):
        r = d.update(4, t, blocked=0.4 <= t < 0.45)
        if r is not None:
            out.append(t)
    assert out and out[0] >= 0.45 + 0.5 - 1e-9


def _sighting(card: str, x: float, conf: float = 1.0) -> Sighting:
    corners = np.array([[x, 0], [x + 50, 0], [x + 50, 70], [x, 70]], np.float32)
    return Sighting(card, corners, confidence=conf)


def test_card_appears_once_stable_and_survives_a_short_hide():
    tracker = CardTracker(appear_s=0.3, forget_s=1.0)
    appeared_all, dropped_all = [], []
    for t in _frames(30, 3.0):
        visible = not (1.0 <= t < 1.6)  # hidden 0.6 s: the same card afterwards
        sightings = [_sighting("pickpic-001", 100)] if visible else []
        appeared, dropped = tracker.update(sightings, t)
        appeared_all += [a.card for a in appeared]
        dropped_all += [d.card for d in dropped]
    assert appeared_all == ["pickpic-001"]
    assert dropped_all == []


def test_card_under_a_hand_is_kept_and_a_gone_card_is_dropped():
    tracker = CardTracker(appear_s=0.2, forget_s=0.5)
    for t in _frames(30, 1.0):
        tracker.update([_sighting("a", 100), _sighting("b", 400)], t)
    dropped_names = []
    for t in _frames(30, 3.0):
        t += 1.0
        _, dropped = tracker.update([], t, occluded=lambda p: p[0] < 300)
        dropped_names += [d.card for d in dropped]
    assert dropped_names == ["b"]
    assert [tr.card for tr in tracker.present()] == ["a"]


def test_low_confidence_does_not_start_a_track_but_keeps_one():
    tracker = CardTracker(appear_s=0.1, enter_conf=0.6, keep_conf=0.4)
    for t in _frames(30, 1.0):
        tracker.update([_sighting("x", 10, conf=0.5)], t)
    assert tracker.present() == []
    for t in _frames(30, 1.0):
        tracker.update([_sighting("y", 10, conf=0.9)], t)
    for t in _frames(30, 1.0):
        tracker.update([_sighting("y", 10, conf=0.5)], t + 1)
    assert [tr.card for tr in tracker.present()] == ["y"]
