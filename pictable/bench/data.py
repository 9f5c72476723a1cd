"""Finding the real-photo data folder, reading frames, and the 1280x720 letterbox."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from pictable.bench.core import DataMissing

#: The environment variable that names the real-photo folder.
DATA_ENV = "PICTABLE_DATA"
#: The frame size the speed figures are quoted at.
HD_SIZE_WH = (1280, 720)

T = TypeVar("T")


def repo_root() -> Path:
    """The checkout this package lives in (the folder holding ``pictable/``)."""
    return Path(__file__).resolve().parents[2]


def find_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The real-photo data folder: ``explicit``, else ``$PICTABLE_DATA``, else
    ``<repo>/../shared/data``.

    Raises ``DataMissing`` naming every place it looked when none is a folder. An explicit
    folder or environment value that does not exist is an error even if the default would be
    found (a typo must not silently benchmark other data).
    """
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_dir():
            raise DataMissing(f"data folder {path} (from --data) does not exist")
        return path.resolve()
    env = os.environ.get(DATA_ENV)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise DataMissing(f"data folder {path} (from ${DATA_ENV}) does not exist")
        return path.resolve()
    default = repo_root().parent / "shared" / "data"
    if default.is_dir():
        return default.resolve()
    raise DataMissing(
        f"no real-photo data folder: {default} does not exist and ${DATA_ENV} is not set; "
        f"pass --data DIR (the folder holding zxing-qrcode/, opencv-aruco/, ...), or run only "
        f"the rendered tasks with --tasks 'synth-*'"
    )


def require_dir(data_dir: Path | None, sub: str) -> Path:
    """``data_dir / sub``, or ``DataMissing`` saying which folder is missing."""
    if data_dir is None:
        raise DataMissing("no real-photo data folder (pass --data DIR or set $PICTABLE_DATA)")
    path = data_dir / sub
    if not path.is_dir():
        raise DataMissing(f"{path} does not exist (this data folder has no {sub}/)")
    return path


def natural_key(text: str) -> list[Any]:
    """Sort key that orders ``"2"`` before ``"10"`` (the data set's split rule order)."""
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", text)]


def spread(items: Sequence[T], limit: int | None) -> list[T]:
    """At most ``limit`` of ``items``, evenly spaced from the first to the last and always the
    same ones (all if None)."""
    n = len(items)
    if limit is None or limit >= n:
        return list(items)
    if limit <= 0:
        return []
    if limit == 1:
        return [items[0]]
    return [items[round(i * (n - 1) / (limit - 1))] for i in range(limit)]


def read_image(path: Path) -> np.ndarray:
    """The image at ``path`` as (H, W, 3) uint8 BGR (grey, palette and alpha images are
    converted). ``ValueError`` when the file is missing or not an image."""
    import cv2

    frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError(f"cannot read image {path}")
    return np.asarray(frame, dtype=np.uint8)


def letterbox(frame: np.ndarray, size_wh: tuple[int, int] = HD_SIZE_WH) -> np.ndarray:
    """``frame`` (H, W, 3) uint8 scaled to fit ``size_wh`` keeping its aspect ratio, centred
    on a mid-grey canvas of exactly that size. Returns (size_wh[1], size_wh[0], 3) uint8.

    Used only for the speed figures at 1280x720: detectors' run time grows with the pixel
    count, so a 240x240 photo timed at its own size says little about a webcam frame.
    """
    import cv2

    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"frame must be (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
    out_w, out_h = size_wh
    h, w = frame.shape[:2]
    scale = min(out_w / w, out_h / h)
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(frame, (new_w, new_h), interpolation=interp)
    canvas = np.full((out_h, out_w, 3), 128, dtype=np.uint8)
    y0, x0 = (out_h - new_h) // 2, (out_w - new_w) // 2
    canvas[y0 : y0 + new_h, x0 : x0 + new_w] = resized
    return canvas
