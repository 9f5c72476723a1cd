"""Small helpers shared by the built-in tasks (module-level, so tasks pickle to runner
processes)."""

from __future__ import annotations

from importlib import metadata


def dist_version(dist: str) -> str:
    """Installed version of the distribution ``dist`` (e.g. ``"zxing-cpp"``)."""
    return metadata.version(dist)


def opencv_version() -> str:
    """``cv2.__version__``."""
    import cv2

    return str(cv2.__version__)
