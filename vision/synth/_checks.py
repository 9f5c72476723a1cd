"""Input checks at the synth package's boundaries: one helper, one message shape."""

from __future__ import annotations

import numpy as np


def describe(arr: object) -> str:
    """``(480, 640) float64`` for an array, the type name for anything else."""
    if isinstance(arr, np.ndarray):
        return f"{arr.shape} {arr.dtype}"
    return type(arr).__name__


def check_array(
    name: str,
    arr: object,
    *,
    shape: tuple[int | None, ...],
    dtype: type | tuple[type, ...] | None = None,
) -> np.ndarray:
    """Return ``arr`` if it is an ndarray of ``shape`` (``None`` = any size) and ``dtype``.

    Raises ``ValueError("frame must be (H, W, 3) uint8, got (480, 640) float64")``.
    ``dtype`` may be a numpy scalar type, a tuple of them, or ``np.floating`` for any float.
    """
    want_shape = "(" + ", ".join("N" if s is None else str(s) for s in shape) + ")"
    if len(shape) == 1:
        want_shape = want_shape[:-1] + ",)"
    want = want_shape if dtype is None else f"{want_shape} {_dtype_name(dtype)}"
    if not isinstance(arr, np.ndarray) or arr.ndim != len(shape):
        raise ValueError(f"{name} must be {want}, got {describe(arr)}")
    ok = all(s is None or s == a for s, a in zip(shape, arr.shape, strict=True))
    if ok and dtype is not None:
        types = dtype if isinstance(dtype, tuple) else (dtype,)
        ok = any(np.issubdtype(arr.dtype, t) for t in types)
    if not ok:
        raise ValueError(f"{name} must be {want}, got {describe(arr)}")
    return arr


def check_frame(frame: object, name: str = "frame") -> np.ndarray:
    """Check a BGR frame: (H, W, 3) uint8."""
    want = "(H, W, 3) uint8"
    if not (
        isinstance(frame, np.ndarray)
        and frame.ndim == 3
        and frame.shape[2] == 3
        and frame.dtype == np.uint8
    ):
        raise ValueError(f"{name} must be {want}, got {describe(frame)}")
    return frame


def as_points(points: object, name: str = "points", *, dims: tuple[int, ...] = (2,)) -> np.ndarray:
    """Check (N, D) real points with D in ``dims`` and return them as float64."""
    arr = np.asarray(points) if isinstance(points, list | tuple) else points
    if not (
        isinstance(arr, np.ndarray)
        and arr.ndim == 2
        and arr.shape[1] in dims
        and (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer))
    ):
        want = " or ".join(f"(N, {d})" for d in dims)
        raise ValueError(f"{name} must be {want} float, got {describe(arr)}")
    return arr.astype(np.float64)


def _dtype_name(dtype: type | tuple[type, ...]) -> str:
    types = dtype if isinstance(dtype, tuple) else (dtype,)
    return "|".join("float" if t is np.floating else np.dtype(t).name for t in types)
