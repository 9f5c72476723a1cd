"""Image files for the commands that read photos (``decode``, ``identify``, ``verify``,
``analyze``, ``deck register``): one reader with the same checks and messages, and one way
to name and write their annotated copies.

Imports of OpenCV and numpy stay inside the functions: ``pictable --help`` must not load
them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Photos a command reads with the numpy forms of the picture kernels before it loads the
#: compiled ones (see :func:`kernels_by_photo`).
PLAIN_PHOTOS = 4

#: Largest image file read, bytes (a guard against reading huge non-image files whole).
MAX_FILE_BYTES = 512 * 1024 * 1024


def read_image(path: str, *, bgr: bool = False) -> np.ndarray:
    """The image at ``path``, its EXIF orientation applied. ``bgr``: as 8-bit BGR (what the
    card and board readers take); otherwise as stored when it has alpha or 16 bits, else
    8-bit grey or BGR (``decode`` reads every code, whatever the file holds).

    Raises ``ValueError`` with the reason when it cannot be read: a folder, an empty, huge
    or unreadable file, an image over ``vision.sources.limits.MAX_IMAGE_PIXELS`` (40
    megapixels; refused from its header, before its pixels are decoded), bytes OpenCV
    cannot decode."""
    import cv2
    import numpy as np

    from vision.sources.limits import too_large, too_large_decoded

    try:
        if os.path.isdir(path):
            raise ValueError("is a directory")
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            raise ValueError(f"file too large ({size} bytes, limit {MAX_FILE_BYTES})")
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise ValueError(f"cannot read file: {exc.strerror or exc}") from None
    if data.size == 0:
        raise ValueError("empty file")
    problem = too_large(data, path)
    if problem is not None:
        raise ValueError(problem)
    try:
        if bgr:
            image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        else:
            image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
            if image is not None and _plain_eight_bit(image):
                oriented = cv2.imdecode(data, cv2.IMREAD_ANYCOLOR)  # applies EXIF orientation
                image = oriented if oriented is not None else image
    except cv2.error as exc:
        raise ValueError(f"cannot decode image: {exc.err}") from None
    if image is None:
        raise ValueError("not an image file that OpenCV can read")
    problem = too_large_decoded(image.shape)  # a format whose header was not read
    if problem is not None:
        raise ValueError(problem)
    return np.asarray(image)


def _plain_eight_bit(image: np.ndarray) -> bool:
    """8-bit grey or BGR: what OpenCV can also decode with its EXIF orientation applied."""
    import numpy as np

    return image.dtype == np.uint8 and (image.ndim == 2 or image.shape[2] in (1, 3))


def open_image(path: str, *, bgr: bool = False) -> tuple[np.ndarray | None, str | None]:
    """(image, None), or (None, why it cannot be read) for a command's per-image entry:
    :func:`read_image`, and an image too large to hold in memory."""
    try:
        return read_image(path, bgr=bgr), None
    except ValueError as exc:
        return None, str(exc)
    except MemoryError:
        return None, "image too large to load"


def annotation_path(folder: Path, path: str, suffix: str, written: set[str]) -> Path:
    """``folder/<stem><suffix>`` for the image ``path`` (``suffix`` e.g. ``.codes.png``),
    numbered ``<stem>-2<suffix>``, ... when an earlier image of the run had the same stem;
    the name is added to ``written``."""
    stem = Path(path).stem or "image"
    name = f"{stem}{suffix}"
    k = 2
    while name in written:
        name = f"{stem}-{k}{suffix}"
        k += 1
    written.add(name)
    return folder / name


def write_png(target: Path, image: np.ndarray) -> str | None:
    """Write ``image`` as PNG to ``target`` (any path, non-ASCII too); why it failed, or
    None."""
    import cv2

    try:
        ok, buf = cv2.imencode(".png", image)
        if not ok:
            return "cannot encode the annotated image"
        buf.tofile(str(target))
    except (OSError, cv2.error) as exc:
        return f"cannot write {target}: {exc}"
    return None


def annotation_folder(arg: str | None) -> Path | None:
    """The ``--annotate DIR`` folder, created if need be; None without the option.
    ``ValueError`` with the reason when it cannot be created."""
    if not arg:
        return None
    folder = Path(arg)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(f"cannot create {arg}: {exc.strerror or exc}") from None
    return folder


def kernels_by_photo(paths: Sequence[str]) -> Iterator[str]:
    """``paths`` one by one, the picture kernels' forms (``vision.identify.kernels``) chosen
    before each: the numpy forms for the first :data:`PLAIN_PHOTOS`, the compiled ones
    after; the forms in use before are restored once done. Loading numba and the compiled
    code costs about 0.4 s, once; the numpy forms cost 5-100 ms more a photo (more with more
    cards in the deck), so a command on one photo answers sooner, and one on many photos
    loses at most what loading would have cost. The readings are the same either way."""
    from vision.identify import kernels

    before = kernels.uses_plain()
    try:
        for k, path in enumerate(paths):
            kernels.use_plain(k < PLAIN_PHOTOS)
            yield path
    finally:
        kernels.use_plain(before)
