"""LatestFrameReader: newest frame wins, reopening with back-off, corrupt frames, shutdown.

No test asserts that something happened *fast*: the tests wait on the reader's condition
(``wait_for_stats``) with generous timeouts, so a loaded machine only makes them slower.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vision.sources import (
    Backoff,
    Frame,
    LatestFrameReader,
    ReaderStats,
    SourceError,
    SyntheticSource,
)

from .conftest import WAIT_S
from .fakes import GONE, RAISE, FakeSource, img


def value(frame: Frame) -> int:
    """The identity a fake frame was filled with."""
    return int(frame.image[0, 0, 0])


def accounted(s: ReaderStats) -> bool:
    """Every captured frame is delivered, dropped, skipped or pending: none vanishes."""
    return s.captured == s.delivered + s.dropped + s.skipped_total + s.pending


def shutdown(reader: LatestFrameReader, fake: FakeSource) -> None:
    """Stop first, then unblock the fake: a live fake released before the stop would look
    like a camera that died."""
    reader.stop()
    fake.release()
    reader.close(timeout=WAIT_S)


def wait_captured(reader: LatestFrameReader, n: int) -> None:
    assert reader.wait_for_stats(lambda s: s.captured >= n, WAIT_S), reader.stats


# -- newest frame wins -------------------------------------------------------------------------
def test_slow_consumer_gets_the_newest_frame_and_drops_are_counted(make_fake, make_reader):
    fake = make_fake([img(i) for i in range(10)], live=True)
    reader = make_reader(fake)
    wait_captured(reader, 10)  # the consumer was busy while ten frames arrived

    frame = reader.read(timeout=WAIT_S)
    assert frame is not None and frame.index == 9 and value(frame) == 9
    assert reader.stats.dropped == 9 and reader.stats.delivered == 1
    # Nothing newer: the consumer waits and gets None, never the same frame twice.
    assert reader.read(timeout=0.05) is None

    fake.feed(*(img(i) for i in range(10, 13)))
    wait_captured(reader, 13)
    frame = reader.read(timeout=WAIT_S)
    assert frame is not None and frame.index == 12 and value(frame) == 12
    s = reader.stats
    assert (s.delivered, s.dropped, s.pending) == (2, 11, 0)
    assert accounted(s)
    assert threading.current_thread().name not in fake.reader_threads
    assert all(name.startswith("pictable-capture") for name in fake.reader_threads)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batches=st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=8))
def test_lag_never_grows_whatever_the_consumer_pace(make_fake, make_reader, batches):
    """However many frames arrive between two reads, the read returns the last of them."""
    fake = make_fake(live=True)
    reader = make_reader(fake)
    sent = 0
    for batch in batches:
        fake.feed(*(img(sent + i) for i in range(batch)))
        sent += batch
        wait_captured(reader, sent)
        frame = reader.read(timeout=0 if batch == 0 else WAIT_S)
        if batch == 0:
            assert frame is None
        else:
            assert frame is not None and frame.index == sent - 1
        assert accounted(reader.stats)
    shutdown(reader, fake)
    assert accounted(reader.stats) and reader.stats.pending == 0


def test_consumer_waits_with_a_timeout(make_fake, make_reader):
    fake = make_fake(live=True)
    reader = make_reader(fake)
    assert reader.read(timeout=0) is None
    threading.Timer(0.02, fake.feed, args=(img(7),)).start()
    frame = reader.read(timeout=WAIT_S)
    assert frame is not None and value(frame) == 7


# -- a camera that disappears ------------------------------------------------------------------
def test_camera_that_disappears_is_reopened_with_backoff_and_no_frame_is_lost(
    make_fake, source_log
):
    fake = FakeSource(live=True)
    backoff = Backoff(initial_s=0.01, factor=2.0, max_s=0.04)
    with LatestFrameReader(fake, backoff=backoff) as reader:
        for i in range(3):
            fake.feed(img(i))
            frame = reader.read(timeout=WAIT_S)
            assert frame is not None and frame.index == i

        fake.fail_opens = 4  # unplugged: the next four opens fail
        fake.feed(GONE)
        assert reader.wait_for_stats(lambda s: s.gap_since is not None, WAIT_S)
        # While the camera is away the consumer gets None, not an exception.
        assert reader.read(timeout=0.02) is None
        assert reader.wait_for_stats(lambda s: s.reopens == 1, WAIT_S)

        for i in range(3, 8):  # back: every frame reaches the consumer
            fake.feed(img(i))
            frame = reader.read(timeout=WAIT_S)
            assert frame is not None and frame.index == i and value(frame) == i
        s = reader.stats
        shutdown(reader, fake)

    assert fake.opens == 1 + 5  # start, four failures, one success
    assert s.reopen_attempts == 5 and s.reopens == 1
    assert (s.delivered, s.dropped, s.skipped_total) == (8, 0, 0)
    assert s.gap_since is None and len(s.gaps) == 1
    start_t, end_t = s.gaps[0]
    assert start_t <= end_t
    delays = [r.delay_s for r in source_log.records if hasattr(r, "delay_s")]
    assert delays == [0.01, 0.02, 0.04, 0.04, 0.04]  # doubling, capped
    warnings = [
        r.getMessage()
        for r in source_log.records
        if r.name == "pictable.sources" and r.levelno == logging.WARNING
    ]
    assert any("lost" in m for m in warnings)
    assert any("back after" in m for m in warnings)
    gap_logged = [r.gap for r in source_log.records if hasattr(r, "gap")]
    assert gap_logged == [s.gaps[0]]


def test_a_read_that_raises_is_a_dropout_for_a_live_source(make_fake, make_reader):
    fake = make_fake([img(0), RAISE, img(1)], live=True)
    reader = make_reader(fake)
    assert reader.wait_for_stats(lambda s: s.captured == 2 and s.reopens == 1, WAIT_S)
    assert len(reader.stats.gaps) == 1
    frame = reader.read(timeout=WAIT_S)
    assert frame is not None and value(frame) == 1


def test_a_reopened_camera_may_come_back_at_another_size(make_fake, make_reader):
    fake = make_fake([img(0), GONE, img(1, size_wh=(32, 24))], live=True)
    reader = make_reader(fake)
    wait_captured(reader, 2)
    frame = reader.read(timeout=WAIT_S)
    assert frame is not None and frame.image.shape == (24, 32, 3)
    assert reader.stats.skipped_total == 0


def test_close_during_backoff_returns_promptly_and_closes_the_gap(make_fake):
    fake = make_fake([img(0), GONE], live=True, fail_opens=0)
    reader = LatestFrameReader(fake, backoff=Backoff(initial_s=3600.0, max_s=3600.0)).start()
    assert reader.wait_for_stats(lambda s: s.reopen_attempts == 1, WAIT_S)
    reader.close(timeout=WAIT_S)  # would take an hour if the back-off wait ignored close
    assert not reader.running
    s = reader.stats
    assert s.gap_since is None and len(s.gaps) == 1 and s.ended
    assert fake.closes >= 1 and not fake.is_open


# -- corrupt frames ----------------------------------------------------------------------------
def test_corrupt_frames_are_skipped_and_counted_and_grey_and_bgra_converted(make_fake, make_reader):
    h, w = 12, 16
    bgra = np.zeros((h, w, 4), np.uint8)
    bgra[..., :3] = (10, 20, 30)
    bgra[..., 3] = 255
    cues = [
        img(1),
        None,  # empty: the driver returned nothing
        np.zeros((0, 0, 3), np.uint8),  # empty: no pixels
        np.zeros((h, w, 3), np.float32),  # dtype
        np.zeros((h, w, 3), np.uint16),  # dtype
        np.zeros((h, w, 2), np.uint8),  # shape
        np.zeros((h, w, 3, 1), np.uint8),  # shape
        "not an image",  # not_array
        img(2, size_wh=(8, 6)),  # size changed mid-stream
        np.full((h, w), 40, np.uint8),  # grey (H, W) -> BGR
        np.full((h, w, 1), 50, np.uint8),  # grey (H, W, 1) -> BGR
        bgra,  # BGRA -> BGR
        img(3)[:, ::-1],  # a non-contiguous view is fine
    ]
    fake = make_fake(cues, live=False)
    reader = make_reader(fake)
    frames = list(reader)

    assert [f.index for f in frames] == [0, 9, 10, 11, 12]
    for f in frames:
        assert f.image.shape == (h, w, 3) and f.image.dtype == np.uint8
        assert f.image.flags.c_contiguous
    assert value(frames[1]) == 40 and (frames[1].image == 40).all()
    assert (frames[2].image == 50).all()
    assert (frames[3].image == (10, 20, 30)).all()
    s = reader.stats
    assert dict(s.skipped) == {
        "empty": 2,
        "dtype": 2,
        "shape": 2,
        "not_array": 1,
        "size_changed": 1,
    }
    assert dict(s.converted) == {"gray": 2, "bgra": 1}
    assert s.captured == len(cues) and accounted(s) and s.ended


# -- files: lossless or paced -------------------------------------------------------------------
def test_a_file_is_read_losslessly_as_fast_as_the_consumer_reads(make_fake, make_reader):
    fake = make_fake([img(i) for i in range(40)], live=False)
    reader = make_reader(fake)
    # The consumer dawdles: the capture thread must wait for it, not drop.
    assert not reader.wait_for_stats(lambda s: s.captured > 2, 0.05)
    frames = list(reader)
    assert [f.index for f in frames] == list(range(40))
    s = reader.stats
    assert (s.delivered, s.dropped, s.ended) == (40, 0, True)
    assert reader.read(timeout=0) is None


def test_a_file_read_live_is_paced_at_its_timestamps(make_reader):
    times = [i * 0.02 for i in range(6)]
    source = SyntheticSource([(img(i), t) for i, t in enumerate(times)], fps=50)
    begin = time.monotonic()
    reader = make_reader(source, live=True)
    assert reader.paced
    frames = list(reader)
    # A lower bound only: pacing means the last frame cannot come before its time.
    assert time.monotonic() - begin >= times[-1] - 0.005
    assert frames[-1].index == 5 and accounted(reader.stats)


def test_a_source_failure_reaches_the_consumer_after_the_frames_before_it(make_fake, make_reader):
    fake = make_fake([img(0), img(1), RAISE], live=False)  # a file's read error is not a gap
    reader = make_reader(fake)
    assert [value(reader.read(timeout=WAIT_S)) for _ in range(2)] == [0, 1]
    with pytest.raises(OSError, match="driver error"):
        reader.read(timeout=WAIT_S)
    assert reader.ended


def test_a_malformed_synthetic_item_is_raised_to_the_consumer(make_reader):
    source = SyntheticSource([(img(0), 0.0), (img(1), 0.5), (img(2), 0.1)])
    reader = make_reader(source)
    assert reader.read(timeout=WAIT_S) is not None
    assert reader.read(timeout=WAIT_S) is not None
    with pytest.raises(ValueError, match=r"t must be a finite number >= the previous t"):
        reader.read(timeout=WAIT_S)


# -- lifecycle ---------------------------------------------------------------------------------
def test_close_joins_the_capture_thread_and_closes_the_source(make_fake):
    fake = make_fake([img(i) for i in range(5)], live=False)
    reader = LatestFrameReader(fake).start()
    assert reader.wait_for_stats(lambda s: s.pending == 1, WAIT_S)  # blocked handing over
    threads = [t for t in threading.enumerate() if t.name.startswith("pictable-capture")]
    assert len(threads) == 1 and threads[0].daemon
    reader.close(timeout=WAIT_S)
    assert not reader.running and not threads[0].is_alive()
    assert fake.closes == 1 and not fake.is_open
    s = reader.stats
    assert s.ended and s.pending == 0 and accounted(s)
    assert reader.read(timeout=0) is None  # after close: None, not an error


def test_a_thread_stuck_in_a_driver_call_is_left_as_a_daemon(make_fake, source_log):
    fake = make_fake(live=True)  # blocks in read() until released
    reader = LatestFrameReader(fake).start()
    reader.close(timeout=0.05)
    assert reader.running  # still inside read(): cannot be killed, only abandoned
    assert any("did not stop" in r.getMessage() for r in source_log.records)
    fake.release()
    reader.close(timeout=WAIT_S)
    assert not reader.running


def test_start_raises_when_the_source_cannot_be_opened(make_fake):
    fake = make_fake(live=True, fail_opens=1)
    reader = LatestFrameReader(fake)
    with pytest.raises(SourceError, match="not there"):
        reader.start()
    assert not reader.running
    with pytest.raises(RuntimeError, match="not started"):
        reader.read()


def test_start_twice_is_refused(make_fake, make_reader):
    reader = make_reader(make_fake(live=True))
    with pytest.raises(RuntimeError, match="already started"):
        reader.start()


def test_wait_for_stats_returns_false_on_timeout(make_fake, make_reader):
    reader = make_reader(make_fake(live=True))
    assert reader.wait_for_stats(lambda s: s.captured > 0, 0.01) is False


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"initial_s": 0}, "initial_s must be a finite number > 0, got 0"),
        ({"max_s": -1.0}, "max_s must be a finite number > 0, got -1.0"),
        ({"factor": 0.5}, "factor must be >= 1, got 0.5"),
        ({"factor": float("nan")}, "factor must be a finite number > 0, got nan"),
    ],
)
def test_backoff_rejects_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=f"^{message}$"):
        Backoff(**kwargs)


def test_backoff_doubles_up_to_its_cap():
    delays = Backoff().delays()
    assert [next(delays) for _ in range(7)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
