"""A :class:`~vision.identify.local.KeypointIndex` as named arrays and back: how a deck folder
stores its indexes (``arrays/``, :mod:`vision.identify.deck`), so that opening a deck reads
them, memory-mapped, instead of building them (hashing every keypoint of the deck, sorting
each table and searching every possible key: 0.1-0.9 s for a deck of 120 cards, every process).

The index's fields are stored whatever they are (arrays as they are, whole numbers as 0-d
int64 arrays), so a field added to the index is stored too; a field of another kind is an
error here, not a silent loss. What the fields *mean* is the deck's ``arrays_recipe`` (its
format number and the index's hashing settings).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.identify import local


def index_arrays(prefix: str, index: local.KeypointIndex) -> dict[str, NDArray[Any]]:
    """Every field of ``index`` as arrays named ``prefix + field``, except its key lookup
    table ``_start`` (one int32 entry per possible key and table: 16 MB for the frame index's
    4 x 2^20, whatever the deck's size), stored as what it is made of: the keys of each
    table's kept entries in their order (``start_keys`` (E,) int32) and where each table's
    entries begin (``start_bounds`` (tables + 1,) int64). A deck's folder grows with its
    keypoints, not by 16 MB, and :func:`restored_index` makes the table again with one count
    and one cumulative sum per table."""
    out: dict[str, NDArray[Any]] = {}
    for name, value in vars(index).items():
        if name == "_start":
            continue
        if isinstance(value, np.ndarray):
            out[prefix + name] = value
        elif isinstance(value, int | np.integer):
            out[prefix + name] = np.asarray(value, np.int64)
        else:
            raise TypeError(f"KeypointIndex.{name} ({type(value).__name__}) cannot be stored")
    stride = int(index._stride)
    start = np.asarray(index._start, np.int64).reshape(-1, stride)
    keys = np.arange(stride - 1, dtype=np.int32)
    out[prefix + "start_keys"] = np.concatenate(
        [np.repeat(keys, np.diff(row)) for row in start] or [np.zeros(0, np.int32)]
    )
    out[prefix + "start_bounds"] = np.concatenate([start[:, 0], start[-1:, -1]]).astype(np.int64)
    return out


def restored_index(stored: Mapping[str, NDArray[Any]], prefix: str) -> local.KeypointIndex:
    """The index :func:`index_arrays` stored under ``prefix`` in ``stored``: its fields as
    they were (its arrays those given, memory-mapped when read so; nothing hashed, sorted or
    searched again), ``_start`` made again from its keys."""
    fields: dict[str, Any] = {}
    for name, value in stored.items():
        if name.startswith(prefix):
            fields[name[len(prefix) :]] = int(value) if value.ndim == 0 else value
    keys = fields.pop("start_keys")
    bounds = np.asarray(fields.pop("start_bounds"), np.int64)
    stride = int(fields["_stride"])
    # Written in place, table by table (one int32 array, no int64 copy of it: 15-40 ms for
    # the frame index's 4 x 2^20 keys where concatenating rows took 35-200).
    start = np.empty((len(bounds) - 1) * stride, np.int32)
    for t in range(len(bounds) - 1):
        row = start[t * stride : (t + 1) * stride]
        row[0] = 0
        np.cumsum(np.bincount(keys[bounds[t] : bounds[t + 1]], minlength=stride - 1), out=row[1:])
        row += np.int32(bounds[t])
    fields["_start"] = start
    index = object.__new__(local.KeypointIndex)
    index.__dict__.update(fields)
    return index
