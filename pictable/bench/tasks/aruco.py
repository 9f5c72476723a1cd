"""ArUco markers in OpenCV's tutorial photos (``opencv-aruco/*.gt.json``): markers found, ids
right, corner error.

Ground truth (README of the data folder): the dictionary (a predefined name such as
``DICT_6X6_250``, or ``tutorial_dict.yml``), the expected markers with their corners in ArUco
order, and a corner tolerance. It is OpenCV's own detector output rounded to whole pixels, so
OpenCV's baseline scores near zero error by construction; ids and counts are the solid part.
For ground truth with only ``marker_id_counts`` (the held-out diamonds photo), ids are scored by
count and no corner error is computed.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from pictable.bench.adapters import codes_adapter, entries
from pictable.bench.core import (
    CallFailed,
    DataSource,
    Metric,
    Runner,
    RunnerSpec,
    Sample,
    Score,
    Settings,
    Task,
)
from pictable.bench.data import natural_key, require_dir, spread
from pictable.bench.tasks.common import opencv_version

#: A detection is matched to an expected marker when its centre lies within this fraction of
#: the expected marker's mean side length.
MATCH_RADIUS = 0.5


def load_samples(settings: Settings) -> list[Sample]:
    """One sample per ``*.gt.json`` (natural order), with the dictionary and detector
    parameters resolved to names or file paths in ``extra``."""
    root = require_dir(settings.data_dir, "opencv-aruco")
    samples = []
    for gt_path in sorted(root.glob("*.gt.json"), key=lambda p: natural_key(p.name)):
        gt = json.loads(gt_path.read_text(encoding="utf-8"))
        dictionary = str(gt["dictionary"])
        params = str(gt.get("detector_params", "defaults"))
        extra = {
            "dictionary": dictionary,
            "dictionary_file": str(root / dictionary) if dictionary.endswith(".yml") else None,
            "params_file": None if params == "defaults" else str(root / params),
        }
        stem = gt_path.name.removesuffix(".gt.json")
        samples.append(Sample(id=stem, path=root / gt["image"], truth=gt, extra=extra))
    return spread(samples, settings.limit)


def _dictionary(extra: dict[str, Any]) -> Any:
    import cv2

    if extra["dictionary_file"]:
        dictionary = cv2.aruco.Dictionary()
        storage = cv2.FileStorage(extra["dictionary_file"], cv2.FILE_STORAGE_READ)
        if not storage.isOpened() or not dictionary.readDictionary(storage.root()):
            raise ValueError(f"cannot read ArUco dictionary {extra['dictionary_file']}")
        return dictionary
    name = extra["dictionary"]
    if not hasattr(cv2.aruco, name):
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def _parameters(extra: dict[str, Any]) -> Any:
    import cv2

    params = cv2.aruco.DetectorParameters()
    if extra["params_file"]:
        storage = cv2.FileStorage(extra["params_file"], cv2.FILE_STORAGE_READ)
        if not storage.isOpened() or not params.readDetectorParameters(storage.root()):
            raise ValueError(f"cannot read detector parameters {extra['params_file']}")
    return params


def opencv_runner(samples: Sequence[Sample]) -> Runner:
    """OpenCV alone: ``cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(frame)``, one
    detector per (dictionary, parameters) of the samples, built before timing."""
    import cv2

    detectors: dict[tuple[str, str | None], Any] = {}
    for s in samples:
        key = (s.extra["dictionary"], s.extra["params_file"])
        if key not in detectors:
            detectors[key] = cv2.aruco.ArucoDetector(_dictionary(s.extra), _parameters(s.extra))

    def run(frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        detector = detectors[(sample.extra["dictionary"], sample.extra["params_file"])]
        corners, ids, _ = detector.detectMarkers(frame)
        codes = []
        if ids is not None:
            for quad, marker_id in zip(corners, ids.ravel(), strict=True):
                codes.append(
                    {
                        "kind": "aruco",
                        "id": int(marker_id),
                        "dictionary": sample.extra["dictionary"],
                        "corners": np.asarray(quad, dtype=np.float64).reshape(4, 2).tolist(),
                    }
                )
        return {"codes": codes}

    return run


# ---- scoring -------------------------------------------------------------------------------


def _match(expected: list[dict[str, Any]], found: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Greedy nearest-centre pairs (expected index, found index) within MATCH_RADIUS."""
    exp_quads = [np.asarray(m["corners"], dtype=np.float64).reshape(4, 2) for m in expected]
    got_quads = [np.asarray(c["corners"], dtype=np.float64).reshape(-1, 2) for c in found]
    pairs = []
    for i, quad in enumerate(exp_quads):
        side = float(np.mean(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1)))
        centre = quad.mean(axis=0)
        for j, got in enumerate(got_quads):
            dist = float(np.linalg.norm(got.mean(axis=0) - centre))
            if dist <= MATCH_RADIUS * side:
                pairs.append((dist, i, j))
    pairs.sort()
    used_e: set[int] = set()
    used_f: set[int] = set()
    matched = []
    for _, i, j in pairs:
        if i not in used_e and j not in used_f:
            used_e.add(i)
            used_f.add(j)
            matched.append((i, j))
    return matched


def score(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Markers found (located), ids right, wrong ids, extra detections, corners within the
    ground truth's tolerance, and the median and largest mean-corner error (pixels) of the
    markers found with the right id."""
    expected_total = found_total = ids_right = wrong_ids = extra = within_tol = 0
    errors: list[float] = []
    per_image: list[str] = []
    for sample, output in zip(samples, outputs, strict=True):
        gt = sample.truth
        codes = [] if isinstance(output, CallFailed) else entries(output, "codes")
        found = [c for c in codes if c.get("kind") == "aruco" and c.get("id") is not None]
        if "markers" in gt:
            expected = gt["markers"]
            tol = float(gt.get("corner_tolerance_px", 1.0))
            pairs = _match(expected, [c for c in found if c.get("corners")])
            right = 0
            for i, j in pairs:
                if int(found[j]["id"]) != int(expected[i]["id"]):
                    wrong_ids += 1
                    continue
                right += 1
                diff = np.asarray(found[j]["corners"], float).reshape(4, 2) - np.asarray(
                    expected[i]["corners"], float
                )
                dist = np.linalg.norm(diff, axis=1)
                errors.append(float(dist.mean()))
                within_tol += bool(dist.max() <= tol)
            n_expected = len(expected)
            extra += len(found) - len(pairs)
            found_total += len(pairs)
        else:  # counts only
            want = Counter({int(k): int(v) for k, v in gt["marker_id_counts"].items()})
            got = Counter(int(c["id"]) for c in found)
            right = sum(min(got[k], v) for k, v in want.items())
            n_expected = sum(want.values())
            found_total += right
            extra += sum(got.values()) - right
        expected_total += n_expected
        ids_right += right
        per_image.append(f"{sample.id} {right}/{n_expected}")
    return Score(
        metrics={
            "markers": expected_total,
            "found": found_total,
            "ids_right": ids_right,
            "wrong_ids": wrong_ids,
            "extra": extra,
            "within_tol": within_tol,
            "corner_err_median_px": float(np.median(errors)) if errors else None,
            "corner_err_max_px": float(np.max(errors)) if errors else None,
        },
        notes=["ids right per image: " + ", ".join(per_image)],
    )


METRICS = (
    Metric("markers", "markers expected", "int", None),
    Metric("found", "found", "count", "higher", of="markers"),
    Metric("ids_right", "ids right", "count", "higher", of="markers"),
    Metric("wrong_ids", "wrong ids", "int", "lower"),
    Metric("extra", "extra detections", "int", "lower"),
    Metric("within_tol", "corners within tolerance", "count", "higher", of="markers"),
    Metric("corner_err_median_px", "corner error median", "px", "lower"),
    Metric("corner_err_max_px", "corner error max", "px", "lower"),
)

TASK = Task(
    name="aruco-real",
    title="ArUco markers in OpenCV's tutorial photos",
    source=DataSource("real", "opencv-aruco/*.gt.json (real photos)", load_samples),
    score=score,
    metrics=METRICS,
    runners=(
        RunnerSpec.planned("vision.codes:decode_frame", "pictable decode", codes_adapter),
        RunnerSpec.library(
            "opencv",
            "OpenCV ArucoDetector.detectMarkers (the image's dictionary, default parameters)",
            opencv_runner,
            version=opencv_version,
        ),
    ),
    description=(
        "A detection is *found* when its centre lies within half a side of an expected "
        "marker; *ids right* when that marker's id is read; *corner error* is the mean distance "
        "of its 4 corners to the truth, in ArUco corner order; *within tolerance*: every corner "
        "within the file's `corner_tolerance_px` (1 px). The truth is OpenCV's own detector "
        "output rounded to whole pixels (so OpenCV's zero error is by construction)."
    ),
)
