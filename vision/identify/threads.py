"""One thread for the readers: OpenCV's and numpy's BLAS.

The card reader's matrix products are small ((rows, 1350) by (1350, 2N)); OpenBLAS splits
them over every core anyway, and on a busy machine (other readers, the renderer, the app)
its threads wait for each other: measured here, a 64 x 1350 by 1350 x 240 product took
0.6 ms on one thread and 40 ms on two contended ones. ``single_thread()`` sets OpenCV
(``cv2.setNumThreads(1)``) and the OpenBLAS that numpy loaded to one thread; the benchmark
and ``pictable identify`` call it, and so should a live pipeline that runs one reader per
core. It is a process-wide setting (as both libraries' are), so a library function does not
call it on its own.
"""

from __future__ import annotations

import ctypes
import functools
import glob
import logging
import os

import cv2
import numpy as np

log = logging.getLogger(__name__)

#: The thread-count setters of the OpenBLAS builds numpy wheels ship (scipy-openblas, 64-bit
#: integers, symbols prefixed; older wheels: plain openblas).
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


@functools.cache
def _openblas() -> ctypes.CDLL | None:
    folder = os.path.join(os.path.dirname(np.__file__), "..", "numpy.libs")
    for path in sorted(glob.glob(os.path.join(folder, "*openblas*"))):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def single_thread() -> bool:
    """OpenCV and numpy's OpenBLAS to one thread each; returns whether OpenBLAS was found
    (the ``OPENBLAS_NUM_THREADS=1`` environment variable, set before Python starts, does the
    same for any BLAS)."""
    cv2.setNumThreads(1)
    lib = _openblas()
    if lib is None:
        log.info("numpy's OpenBLAS not found: its thread count is left as it is")
        return False
    for name in _SETTERS:
        setter = getattr(lib, name, None)
        if setter is not None:
            setter(ctypes.c_int(1))
            return True
    return False
