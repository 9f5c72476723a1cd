"""Adapters between pictable's readers and the tasks' scoring.

A planned pictable runner names a callable by dotted path. The adapter here calls it and turns
what it returns into the per-image JSON object of the matching docs/formats.md section 3 command
(``{"codes": [...]}``, ``{"cards": [...]}``, ...), which is also what the plain-library runners
produce, so one scoring function serves both. Readers may return that JSON object itself, a
list of its entries, or frozen dataclasses / objects with the same field names (a ``to_json``
or ``as_dict`` method is used when present); ``corners_px`` is accepted for ``corners``.

To plug a reader in, make the dotted path in the task's registration point at it. If its
signature differs from the one an adapter calls, point the path at a thin wrapper with that
signature; nothing in the harness changes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from pictable.bench.core import NotBuiltYet, Runner, Sample


def as_plain(obj: Any) -> Any:
    """``obj`` as JSON-like data: dicts, lists, str, int, float, bool, None.

    Dataclasses become dicts, numpy arrays lists, objects with ``to_json()`` / ``as_dict()``
    what those return.
    """
    for method in ("to_json", "as_dict", "to_dict"):
        fn = getattr(obj, method, None)
        if callable(fn) and not isinstance(obj, type):
            return as_plain(fn())
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: as_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {str(k): as_plain(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, list | tuple):
        return [as_plain(v) for v in obj]
    return obj


def entries(obj: Any, key: str) -> list[dict[str, Any]]:
    """The list under ``key`` ("codes", "cards", ...) of a reader's output, as dicts.

    Accepts ``{"codes": [...]}``, an object with a ``codes`` attribute, or the bare list. A
    falsy result (a ``Failure``, None) is an empty list.
    """
    if not obj:
        return []
    if not isinstance(obj, Mapping | list | tuple) and hasattr(obj, key):
        obj = getattr(obj, key)
    plain = as_plain(obj)
    if isinstance(plain, Mapping):
        plain = plain.get(key, [])
    items: list[dict[str, Any]] = []
    for item in plain or []:
        if not isinstance(item, Mapping):
            raise TypeError(f"a {key} entry must be a mapping or dataclass, got {item!r}")
        entry = dict(item)
        if "corners" not in entry and "corners_px" in entry:
            entry["corners"] = entry["corners_px"]
        items.append(entry)
    return items


def codes_adapter(fn: Callable[..., Any], samples: Sequence[Sample]) -> Runner:
    """For ``pictable decode`` readers: ``fn(frame)`` -> ``{"codes": [...]}``."""

    def run(frame: Any, sample: Sample) -> dict[str, Any]:
        return {"codes": entries(fn(frame), "codes")}

    return run


def references_adapter(fn: Callable[..., Any], samples: Sequence[Sample]) -> Runner:
    """For ``pictable identify`` with a deck made from photos: ``fn(frame, references,
    precise=True)`` (as ``pictable identify PHOTO --deck`` reads a photo) where ``references``
    maps a card id to its (H, W, 3) uint8 BGR reference image (the sample's own one-card
    deck), -> ``{"cards": [...]}``. The references are read before timing starts."""
    from pictable.bench.data import read_image

    decks = {
        s.id: {str(s.extra["reference_id"]): read_image(s.extra["reference"])} for s in samples
    }

    def run(frame: Any, sample: Sample) -> dict[str, Any]:
        return {"cards": entries(fn(frame, decks[sample.id], precise=True), "cards")}

    return run


class _BoardThenCalibrate:
    """Runner for a two-step calibrator: each frame goes to the board finder (timed per frame),
    then the views found go to the calibration (timed once, as the set step)."""

    def __init__(self, find_board: Callable[..., Any], calibrate: Callable[..., Any], board: Any):
        self._find = find_board
        self._calibrate = calibrate
        self._board = board

    def __call__(self, frame: Any, sample: Sample) -> dict[str, Any]:
        view = self._find(frame, self._board, sample.id)
        return {"found": bool(view), "view": view if view else None}

    def finish(self, outputs: Sequence[Any], samples: Sequence[Sample]) -> dict[str, Any]:
        views = [o["view"] for o in outputs if isinstance(o, dict) and o.get("found")]
        result = self._calibrate(views, self._board)
        if not result:  # a falsy Failure: its text is the reason
            return {"failure": str(result)}
        return calibration_json(result)


def calibration_json(result: Any) -> dict[str, Any]:
    """The calibration JSON of docs/formats.md (``rms_px``, ``camera_matrix``, ``dist_coeffs``,
    ``image_size``, plus ``views_used``) from a calibration result that has those fields itself
    or under ``intrinsics``."""
    plain = as_plain(result)
    if not isinstance(plain, Mapping):
        raise TypeError(f"a calibration result must be a mapping or dataclass, got {result!r}")
    flat = dict(plain.get("intrinsics") or {})
    flat.update({k: v for k, v in plain.items() if k != "intrinsics"})
    missing = [k for k in ("rms_px", "camera_matrix") if flat.get(k) is None]
    if missing:
        raise TypeError(f"calibration result lacks {', '.join(missing)}")
    views = flat.get("views")
    if "views_used" not in flat and isinstance(views, list):
        flat["views_used"] = len(views)
    return flat


def calibration_adapter(fn: Callable[..., Any], samples: Sequence[Sample], board: str) -> Runner:
    """For ``pictable calibrate camera``. ``fn`` is the per-frame board finder,
    ``fn(frame, board, name) -> view | falsy failure``; ``calibrate(views, board)`` and
    ``BoardSpec.parse(text)`` are taken from the same module. ``board`` is the command line's
    spec, e.g. ``"chessboard:9x6:25"``. Register with
    ``functools.partial(calibration_adapter, board=...)``.
    """
    import sys

    module = sys.modules[fn.__module__]
    for name in ("calibrate", "BoardSpec"):
        if not hasattr(module, name):
            raise NotBuiltYet(f"{module.__name__} has no {name} yet")
    return _BoardThenCalibrate(fn, module.calibrate, module.BoardSpec.parse(board))
