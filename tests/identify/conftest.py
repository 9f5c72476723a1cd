"""Rendered identification scenes with exact truth, a small deck, and a decks folder, shared by
the identification tests (each rendered once per session)."""

from __future__ import annotations

import argparse
import functools
import io
import json
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from vision.identify.deck import ReferenceDeck, build_deck
from vision.synth import (
    Camera,
    CardSpec,
    EffectsSpec,
    SceneSpec,
    TableSpec,
    Truth,
    play_area_markers,
    render_scene,
)

#: Cards of the test scenes: (card, face, centre mm, turn deg); list order is z-order.
TABLE_CARDS = (
    ("pickpic-007", "front", (-260.0, -120.0), 10.0),
    ("pickpic-031", "front", (-120.0, -110.0), -35.0),
    ("pickpic-052", "back", (20.0, -130.0), 95.0),
    ("pickpic-066", "front", (160.0, -100.0), 180.0),
    ("pickpic-088", "front", (-240.0, 60.0), 60.0),
    ("pickpic-101", "back", (-90.0, 70.0), -10.0),
    # An overlapping pair: 115 lies over a corner of 114 (under a fifth of it hidden).
    ("pickpic-114", "front", (80.0, 60.0), 20.0),
    ("pickpic-115", "front", (125.0, 100.0), -15.0),
    ("pickpic-119", "front", (250.0, 90.0), 135.0),
)
#: The unknown-card scene: Pick Pic cards and Pic Flip cards (not in a Pick Pic deck).
MIXED_CARDS = (
    ("pickpic-012", "front", (-230.0, -90.0), 5.0),
    ("picflip-003", "front", (-80.0, -100.0), -20.0),
    ("pickpic-044", "front", (70.0, -110.0), 40.0),
    ("picflip-040", "front", (220.0, -80.0), 90.0),
    ("picflip-077", "front", (-150.0, 80.0), 150.0),
    ("pickpic-099", "front", (20.0, 90.0), -60.0),
    ("picflip-101", "front", (180.0, 90.0), 0.0),
)
#: The small deck: the Pick Pic cards of both scenes and 24 others.
DECK_IDS = tuple(
    sorted(
        {c[0] for c in TABLE_CARDS + MIXED_CARDS if c[0].startswith("pickpic")}
        | {f"pickpic-{i:03d}" for i in range(1, 121, 5)}
    )
)


def camera() -> Camera:
    """A webcam 750 mm above the table, tilted 12 degrees, a little lens distortion."""
    return Camera.from_pose(
        height_mm=750.0, tilt_deg=12.0, yaw_deg=4.0, dist=(-0.05, 0.0, 0.0, 0.0, 0.0)
    )


def scene(
    cards: tuple[tuple[str, str, tuple[float, float], float], ...], table: TableSpec
) -> SceneSpec:
    cam = camera()
    return SceneSpec(
        camera=cam,
        table=table,
        markers=play_area_markers(cam),
        cards=tuple(
            CardSpec.flat(cid, face, centre, turn, height_mm=0.3 * k)  # type: ignore[arg-type]
            for k, (cid, face, centre, turn) in enumerate(cards)
        ),
        effects=EffectsSpec(
            light_gain=0.95, noise_sigma=2.0, defocus_sigma_px=0.4, jpeg_quality=90
        ),
        tier="custom",
    )


@functools.cache
def table_scene() -> tuple[np.ndarray, Truth, SceneSpec]:
    """Nine Pick Pic cards (two face down, an overlapping pair) on a wooden table."""
    spec = scene(TABLE_CARDS, TableSpec("wood", (95, 140, 185), 3))
    frame, truth = render_scene(spec, seed=11)
    return frame, truth, spec


@functools.cache
def mixed_scene() -> tuple[np.ndarray, Truth, SceneSpec]:
    """Three Pick Pic and four Pic Flip cards, face up, on a green cloth."""
    spec = scene(MIXED_CARDS, TableSpec("cloth", (60, 110, 40), 5))
    frame, truth = render_scene(spec, seed=12)
    return frame, truth, spec


def named_by_codes(frame: np.ndarray) -> dict[str, np.ndarray]:
    """The cards a frame's codes name at a Pick Pic table ("card/side" -> (4, 2) corners)."""
    from vision.identify.identify import identify_frame

    res = identify_frame(frame, None, codes="fast", game="pickpic")
    return {f"{r.card}/{r.side}": r.corners_px for r in res.cards}


@functools.cache
def small_deck() -> ReferenceDeck:
    """A Pick Pic deck of :data:`DECK_IDS` (built from the kit's faces, as the built-in)."""
    from vision.identify.deck import REFERENCE_LONG_PX
    from vision.kit import render_face

    return build_deck(
        "test-pickpic",
        {cid: render_face(cid, "front", REFERENCE_LONG_PX / 88.0) for cid in DECK_IDS},
        builtin=True,
    )


@pytest.fixture(scope="session")
def builtin_decks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A decks folder in which the built-in Pick Pic deck is built once per session."""
    from vision.identify.deck import builtin_deck

    folder = tmp_path_factory.mktemp("builtin-decks")
    builtin_deck("pickpic", folder)
    return folder


@pytest.fixture(scope="session")
def pickpic(builtin_decks: Path) -> ReferenceDeck:
    """The built-in Pick Pic deck (120 cards), as ``identify --deck pickpic`` uses it."""
    from vision.identify.deck import open_deck

    return open_deck("pickpic", builtin_decks)


@pytest.fixture
def decks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty decks folder, also as ``$PICTABLE_DECKS``."""
    folder = tmp_path / "decks"
    monkeypatch.setenv("PICTABLE_DECKS", str(folder))
    return folder


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``pictable`` with the ``identify`` and ``deck`` commands: (status, stdout, stderr)."""
    from pictable.commands import deck, identify

    parser = argparse.ArgumentParser(prog="pictable")
    sub = parser.add_subparsers(dest="command")
    identify.register(sub)
    deck.register(sub)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            args = parser.parse_args(list(argv))
            status = int(args.func(args) or 0)
        except SystemExit as exc:
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


def run_json(*argv: str) -> tuple[int, dict[str, object]]:
    status, out, err = run_cli(*argv, "--json")
    assert out, err
    return status, json.loads(out)


@pytest.fixture
def no_window(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No display: the camera registration shows its progress on the terminal."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    yield
