"""``pictable play`` and ``pictable demo`` end to end on rendered table sessions: the
same frame sources, follower, store and engine as at a real table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

import engine
from pictable.cli import main
from pictable.rendered import RenderedSession, truth_state
from pictable.store import EventStore


def scores(db: Path, sid: int = 1) -> dict[str, int]:
    with EventStore(db, create=False) as store:
        lines = store.export(sid)
    return dict(engine.replay([json.loads(x) for x in lines]).summary()["scores"])


def players(session: RenderedSession) -> str:
    return ",".join(session.players)


def test_play_scores_a_rendered_picmix_claim_headless(
    picmix_session: RenderedSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = tmp_path / "s.db", tmp_path / "seen.mp4"
    code = main(
        [
            "play",
            "picmix",
            "--players",
            players(picmix_session),
            "--video",
            str(picmix_session.video),
            "--headless",
            "--out",
            str(out),
            "--db",
            str(db),
            "--no-page",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert scores(db) == truth_state(picmix_session.events).summary()["scores"]
    assert "claims Picmix!" in text and "continue with: pictable play --resume 1" in text
    cap = cv2.VideoCapture(str(out))
    assert cap.isOpened() and int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) > 40
    cap.release()


def test_play_scores_a_rendered_picasso_turn_and_serves_the_page(
    picasso_session: RenderedSession, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.db"
    code = main(
        [
            "play",
            "picasso",
            "--players",
            players(picasso_session),
            "--video",
            str(picasso_session.video),
            "--headless",
            "--db",
            str(db),
            "--port",
            "0",
            "--out",
            str(tmp_path / "v.mp4"),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "scoreboard: http://127.0.0.1:" in text
    assert scores(db) == truth_state(picasso_session.events).summary()["scores"]


def test_play_refuses_bad_arguments_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "s.db")
    cases = [
        (["play", "--db", db], "name the GAME"),
        (
            ["play", "picasso", "--players", "Ana", "--db", db, "--images", str(tmp_path)],
            "at least two",
        ),
        (["play", "picasso", "--players", "Ana,Ana", "--db", db], "must differ"),
        (
            [
                "play",
                "picmix",
                "--players",
                "A,B",
                "--video",
                str(tmp_path / "nope.mp4"),
                "--db",
                db,
            ],
            "nope.mp4",
        ),
        (["play", "--resume", "99", "--db", db], "99"),
    ]
    for argv, words in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert words in err, (argv, err)
        assert "Traceback" not in err


def test_demo_plays_a_rendered_session_and_checks_it_against_the_truth(
    render_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    picmix_session: RenderedSession,
) -> None:
    # One game here (the others run the same code path; their sessions are tested by
    # `pictable play` above and by each follower's own tests).
    monkeypatch.setenv("PICTABLE_CACHE", str(render_cache))
    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "pictable.cli", "demo", "picmix", "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Picmix    OK: scores match the rendered truth" in proc.stdout
    assert "using the cached render" in proc.stdout  # the fixtures rendered them
    page = (out / "index.html").read_text("utf-8")
    assert "picmix.mp4" in page and "scores match the rendered truth" in page
    assert (out / "picmix.mp4").stat().st_size > 10_000


def test_the_picasso_view_shows_the_pieces_and_the_running_cost(
    picasso_session: RenderedSession,
) -> None:
    from tests.live.conftest import video_frames
    from vision.picasso.reader import read_board
    from vision.tracker.picasso import PicassoFollower

    frames = list(video_frames(picasso_session.video))
    follower = PicassoFollower(picasso_session.players)
    assert follower.overlay() == []  # nothing read yet
    follower.tracker.last_reading = read_board(frames[-1])
    items = follower.overlay()
    build = [e for e in picasso_session.events if e["type"] == "build"][-1]["pieces"]
    sticks = build["long_stick"] + build["short_stick"]
    assert sum(1 for i in items if i["kind"] == "line" and i["label"]) == sticks
    text = next(i["label"] for i in items if i["kind"] == "text")
    cost = build["long_stick"] + build["short_stick"] + 2 * build["shape"] + 3 * build["string"]
    assert text.startswith(f"cost {cost}")
    w, h = frames[-1].shape[1], frames[-1].shape[0]
    for item in items:
        pts = item.get("points_px") or item.get("corners_px") or [item["xy"]]
        assert all(0 <= x < w and 0 <= y < h for x, y in pts)


def test_the_demo_enters_the_table_s_vote_no_camera_sees(
    render_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rendered Pic Flip game in which the table votes a play down: the demo enters the
    # vote at its time (as players would on the page) and the game ends as its truth.
    monkeypatch.setenv("PICTABLE_CACHE", str(render_cache))
    proc = subprocess.run(
        [sys.executable, "-m", "pictable.cli", "demo", "picflip", "--out", str(tmp_path),
         "--no-video"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(the table votes the play down: play rejected)" in proc.stdout
    assert "Pic Flip  OK: scores match the rendered truth" in proc.stdout


@pytest.mark.parametrize(
    ("name", "data", "game", "players", "said"),
    [
        # OpenCV cannot open it
        ("not-a-video.mp4", b"garbage", "picmix", "A,B", "cannot open"),
        # OpenCV opens a junk .jpg (as an image sequence) and decodes nothing from it
        ("junk.jpg", b"not an image" * 20, "pickpic", "A,B,C", "no frame could be decoded"),
    ],
)
def test_a_source_that_cannot_be_read_leaves_no_empty_session(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    data: bytes,
    game: str,
    players: str,
    said: str,
) -> None:
    bad = tmp_path / name
    bad.write_bytes(data)
    db = tmp_path / "s.db"
    argv = ["play", game, "--players", players, "--video", str(bad), "--db", str(db),
            "--headless", "--no-page"]  # fmt: skip
    assert main(argv) == 2
    assert said in capsys.readouterr().err
    with EventStore(db) as store:
        assert store.sessions() == []
