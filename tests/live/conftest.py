"""Rendered sessions for the live pipeline's tests: rendered once per test run into a
temporary cache (the same code path as ``pictable demo``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from pictable.rendered import RenderedSession, rendered_session, video_frames

__all__ = ["video_frames"]  # the tests read rendered videos with it


@pytest.fixture(scope="session")
def render_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("render-cache")


@pytest.fixture(scope="session")
def picmix_session(render_cache: Path) -> RenderedSession:
    return rendered_session("picmix", 1, cache=render_cache)


@pytest.fixture(scope="session")
def picasso_session(render_cache: Path) -> RenderedSession:
    return rendered_session("picasso", 1, cache=render_cache)


@pytest.fixture(scope="session")
def pickpic_session(render_cache: Path) -> RenderedSession:
    return rendered_session("pickpic", 1, cache=render_cache)


@pytest.fixture(scope="session")
def picflip_session(render_cache: Path) -> RenderedSession:
    return rendered_session("picflip", 1, cache=render_cache)


def video_fps(path: Path) -> float:
    """The frame rate a video file declares."""
    cap = cv2.VideoCapture(str(path))
    try:
        return float(cap.get(cv2.CAP_PROP_FPS))
    finally:
        cap.release()
