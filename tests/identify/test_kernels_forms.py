"""The two forms of :mod:`vision.identify.kernels` give the same results: every call the
readers make on rendered tables (codes and pictures, the built-in 120-card deck and a small
one) and on a real photograph (graf3 against graf1) is made again with the numpy forms and
compared, exactly (the appearance sums to float rounding); a whole reading is the same either
way; and a command that uses the numpy forms never imports numba."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import data_dir
from tests.identify.conftest import mixed_scene, small_deck, table_scene
from vision.identify import kernels, kernels_compiled, kernels_plain
from vision.identify.deck import ReferenceDeck, build_deck
from vision.identify.identify import identify_frame

NAMES = (
    "two_nearest",
    "lsh_keys",
    "index_nearest",
    "densest",
    "most_near",
    "side_lines",
    "line_rectangles",
    "describe_cells",
    "cell_agreement",
)
#: Results compared to float rounding (sums in float64, in order against pairwise).
ROUNDED = {"describe_cells": 1e-6, "cell_agreement": 1e-12}


def _graf(data_dir: Path) -> tuple[np.ndarray, ReferenceDeck] | None:
    import cv2

    folder = data_dir / "opencv-features"
    ref, photo = cv2.imread(str(folder / "graf1.png")), cv2.imread(str(folder / "graf3.png"))
    if ref is None or photo is None:
        return None
    return photo, build_deck("graf", {"graf1": ref})


def _readings(frame: np.ndarray, deck: ReferenceDeck | None, codes: str | None) -> list[Any]:
    found = identify_frame(frame, deck, codes=codes)  # type: ignore[arg-type]
    cards = found.cards
    return [(c.card, c.face, np.asarray(c.corners_px).tolist(), c.confidence) for c in cards]


def _scenes(pickpic: ReferenceDeck, data_dir: Path | None) -> list[tuple[np.ndarray, Any, str]]:
    scenes: list[tuple[np.ndarray, Any, str]] = [
        (table_scene()[0], pickpic, "fast"),
        (mixed_scene()[0], small_deck(), None),
    ]
    graf = None if data_dir is None else _graf(data_dir)
    if graf is not None:
        scenes.append((graf[0], graf[1], None))
    return scenes


@pytest.fixture(scope="module")
def recorded(pickpic: ReferenceDeck) -> dict[str, list[Any]]:
    """Every kernel call (arguments copied, compiled result) while the scenes are read with
    the compiled forms, and each scene's readings (graf3 only where the shared data is)."""
    scenes = _scenes(pickpic, data_dir())
    seen: dict[str, list[Any]] = defaultdict(list)

    def recorder(name: str) -> Any:
        fn = getattr(kernels_compiled, name)

        def record(*args: Any) -> Any:
            copied = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
            out = fn(*args)
            seen[name].append((copied, out))
            return out

        return record

    readings = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernels, "_plain", False)
        for name in NAMES:
            mp.setattr(kernels_compiled, name, recorder(name))
        for frame, deck, codes in scenes:
            readings.append(_readings(frame, deck, codes))
    seen["readings"] = readings
    seen["scenes"] = scenes
    return seen


def _same(name: str, got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _same(name, g, w)
        return
    if isinstance(want, np.ndarray):
        got = np.asarray(got)
        assert got.shape == want.shape, name
        if name in ROUNDED:
            np.testing.assert_allclose(got, want, atol=ROUNDED[name], rtol=0)
        else:
            np.testing.assert_array_equal(got, want)
            assert got.dtype.kind == want.dtype.kind, name
        return
    assert got == want, name


@pytest.mark.parametrize("name", NAMES)
def test_numpy_form_gives_what_the_compiled_one_gave_on_every_call(
    recorded: dict[str, list[Any]], name: str
) -> None:
    calls = recorded[name]
    if name == "two_nearest" and not calls:
        pytest.skip("the features photos are missing (two_nearest verifies a photo's card)")
    assert calls, f"{name} was not called"
    for args, want in calls:
        _same(name, getattr(kernels_plain, name)(*args), want)


def test_readings_are_the_same_with_either_form(
    recorded: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kernels, "_plain", True)
    got = [_readings(frame, deck, codes) for frame, deck, codes in recorded["scenes"]]
    assert got == recorded["readings"]
    assert any(r for r in got)


def test_edge_cases_agree() -> None:
    rng = np.random.default_rng(11)
    desc = rng.integers(0, 256, (0, 32), dtype=np.uint8)
    bits = np.stack([rng.choice(256, 12, replace=False) for _ in range(3)]).astype(np.int64)
    for form in (kernels_plain, kernels_compiled):
        assert form.lsh_keys(desc, bits).shape == (3, 0)
        first, second, nearest = form.two_nearest(desc, rng.integers(0, 256, (5, 32), np.uint8))
        assert len(first) == len(second) == len(nearest) == 0
        # Two lines only, not parallel: no quad.
        rho = np.array([10.0, 20.0])
        normal = np.array([[1.0, 0.0], [0.0, 1.0]])
        assert form.line_rectangles(rho, normal, 10, 100, 0.7, 0.99, 0.98, 0.5, 0.9).shape == (
            0,
            4,
            2,
        )
    # One column: no second nearest, the same in both forms.
    a1 = rng.integers(0, 256, (6, 32), dtype=np.uint8)
    b1 = rng.integers(0, 256, (1, 32), dtype=np.uint8)
    _same("two_nearest", kernels_plain.two_nearest(a1, b1), kernels_compiled.two_nearest(a1, b1))
    # Descriptors with many ties: the lowest index is the nearest in both forms.
    a = rng.integers(0, 256, (300, 32), dtype=np.uint8)
    b = np.repeat(rng.integers(0, 256, (20, 32), dtype=np.uint8), 3, axis=0)
    _same("two_nearest", kernels_plain.two_nearest(a, b), kernels_compiled.two_nearest(a, b))


def test_a_command_with_the_numpy_forms_never_imports_numba(tmp_path: Path) -> None:
    import cv2

    frame = table_scene()[0]
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), frame)
    code = (
        "import sys\n"
        "from pictable.cli import main\n"
        f"rc = main(['identify', {str(photo)!r}, '--json'])\n"
        "print('numba' in sys.modules, file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "False"
    assert '"cards"' in out.stdout


def test_a_command_reads_its_first_photos_with_the_numpy_forms_then_restores_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pictable.commands.images import PLAIN_PHOTOS, kernels_by_photo

    seen = []
    monkeypatch.setattr(kernels, "_plain", False)
    for _ in kernels_by_photo([f"p{k}.jpg" for k in range(PLAIN_PHOTOS + 2)]):
        seen.append(kernels.uses_plain())
    assert seen == [True] * PLAIN_PHOTOS + [False, False]
    assert kernels.uses_plain() is False  # as it was
    # the command itself: one photo, then the process as it was
    import cv2

    from pictable.cli import main

    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), table_scene()[0])
    assert main(["identify", str(photo), "--json"]) == 0
    assert kernels.uses_plain() is False
