"""A fixed seed gives the same image, bit for bit."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from vision.synth import StandInTextures, random_cards_scene, render_scene


def _render(seed: int, standin: StandInTextures) -> tuple[str, str]:
    spec = random_cards_scene(np.random.default_rng(seed), "hard", 6, provider=standin)
    frame, truth = render_scene(spec, seed, standin)
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8
    return hashlib.sha256(frame.tobytes()).hexdigest(), str(truth.to_json())


@pytest.fixture(scope="module")
def first(standin: StandInTextures) -> tuple[str, str]:
    return _render(11, standin)


def test_same_seed_same_bits(first: tuple[str, str], standin: StandInTextures) -> None:
    assert _render(11, standin) == first


def test_another_seed_another_image(first: tuple[str, str], standin: StandInTextures) -> None:
    assert _render(12, standin)[0] != first[0]
