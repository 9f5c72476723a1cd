"""Finding a known picture in a scene by local features (``opencv-features``): ``box.png`` in
``box_in_scene.png`` and ``graf1.png`` in ``graf3.png`` (truth: ``H1to3p.xml``).

This is what identifying a registered card by its picture does: the reference's features are
computed once before timing (like a registered deck), and each timed call detects features in
the scene, matches them (Lowe's ratio test, 0.75), and fits a homography with RANSAC
(reprojection threshold 5 px). The homography is *found* with at least ``MIN_INLIERS`` inliers
and a convex, non-degenerate outline of the reference in the scene. For graf, the corner error
is the mean distance between the reference's 4 image corners mapped by the found homography
and by the true one, in scene pixels. The box pair has no ground truth beyond "the box is in
the scene once".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from pictable.bench.adapters import entries, references_adapter
from pictable.bench.core import (
    CallFailed,
    DataMissing,
    DataSource,
    Metric,
    RunnerSpec,
    Sample,
    Score,
    Settings,
    Task,
)
from pictable.bench.data import read_image, require_dir, spread
from pictable.bench.tasks.common import opencv_version

MIN_INLIERS = 10
RATIO = 0.75
RANSAC_PX = 5.0
#: (reference, scene, ground-truth file or None, FileStorage node)
PAIRS = (
    ("box.png", "box_in_scene.png", None, None),
    ("graf1.png", "graf3.png", "H1to3p.xml", "H13"),
)


def _read_homography(path: str, node: str) -> list[list[float]]:
    import cv2

    storage = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
    matrix = storage.getNode(node).mat() if storage.isOpened() else None
    if matrix is None or matrix.shape != (3, 3):
        raise DataMissing(f"{path} has no 3x3 matrix {node!r}")
    rows: list[list[float]] = np.asarray(matrix, dtype=np.float64).tolist()
    return rows


def load_samples(settings: Settings) -> list[Sample]:
    """One sample per pair present in ``opencv-features``: the scene image, the reference in
    ``extra``, the true homography (reference -> scene pixels) or None as truth."""
    root = require_dir(settings.data_dir, "opencv-features")
    samples = []
    for ref, scene, truth_file, node in PAIRS:
        if not (root / ref).is_file() or not (root / scene).is_file():
            continue
        truth = None
        if truth_file is not None and node is not None:
            truth = {"H": _read_homography(str(root / truth_file), node)}
        ref_id = ref.rsplit(".", 1)[0]
        samples.append(
            Sample(
                id=f"{ref_id} in {scene.rsplit('.', 1)[0]}",
                path=root / scene,
                truth=truth,
                extra={"reference": root / ref, "reference_id": ref_id},
            )
        )
    return spread(samples, settings.limit)


def _outline(shape: tuple[int, ...]) -> np.ndarray:
    h, w = shape[:2]
    return np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float64)


def _project(h_matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.hstack([points, np.ones((len(points), 1))]) @ h_matrix.T
    projected: np.ndarray = pts[:, :2] / pts[:, 2:3]
    return projected


class LocalFeatures:
    """OpenCV alone: ORB (1000 features, Hamming) or SIFT (defaults, L2), brute-force k=2
    matching with the ratio test, ``findHomography(RANSAC, 5 px)``."""

    def __init__(self, samples: Sequence[Sample], method: str = "orb") -> None:
        import cv2

        self._cv2 = cv2
        self._detector: Any  # cv2.ORB or cv2.SIFT: both detectAndCompute
        if method == "orb":
            self._detector = cv2.ORB.create(nfeatures=1000)
            self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
        elif method == "sift":
            self._detector = cv2.SIFT.create()
            self._matcher = cv2.BFMatcher(cv2.NORM_L2)
        else:
            raise ValueError(f"method must be 'orb' or 'sift', got {method!r}")
        self._refs: dict[str, tuple[Any, Any, tuple[int, ...]]] = {}
        for s in samples:  # the "registered deck": computed before timing
            key = str(s.extra["reference"])
            if key not in self._refs:
                grey = cv2.cvtColor(read_image(s.extra["reference"]), cv2.COLOR_BGR2GRAY)
                kps, desc = self._detector.detectAndCompute(grey, None)
                self._refs[key] = (kps, desc, grey.shape)

    def __call__(self, frame: np.ndarray, sample: Sample) -> dict[str, Any]:
        cv2 = self._cv2
        ref_kps, ref_desc, ref_shape = self._refs[str(sample.extra["reference"])]
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        kps, desc = self._detector.detectAndCompute(grey, None)
        if desc is None or ref_desc is None or len(kps) < 2:
            return {"cards": []}
        good = [
            pair[0]
            for pair in self._matcher.knnMatch(ref_desc, desc, k=2)
            if len(pair) == 2 and pair[0].distance < RATIO * pair[1].distance
        ]
        if len(good) < 4:
            return {"cards": []}
        src = np.asarray([ref_kps[m.queryIdx].pt for m in good], np.float32).reshape(-1, 1, 2)
        dst = np.asarray([kps[m.trainIdx].pt for m in good], np.float32).reshape(-1, 1, 2)
        h_matrix, mask = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_PX)
        if h_matrix is None:
            return {"cards": []}
        inliers = int(mask.sum())
        if inliers < MIN_INLIERS:
            return {"cards": []}
        corners = _project(h_matrix, _outline(ref_shape))
        return {
            "cards": [
                {
                    "card": sample.extra["reference_id"],
                    "corners": corners.tolist(),
                    "homography": h_matrix.tolist(),
                    "inliers": inliers,
                    "matches": len(good),
                }
            ]
        }


def _plausible(quad: np.ndarray) -> bool:
    """A convex quadrilateral of non-trivial area (a degenerate RANSAC fit is not a find)."""
    import cv2

    if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
        return False
    contour = quad.astype(np.float32).reshape(-1, 1, 2)
    return bool(cv2.isContourConvex(contour)) and cv2.contourArea(contour) > 100.0


def score(samples: Sequence[Sample], outputs: Sequence[Any], finished: Any) -> Score:
    """Pairs where the reference was found; mean corner error against the true homography."""
    found = 0
    errors: list[float] = []
    notes: list[str] = []
    for sample, output in zip(samples, outputs, strict=True):
        cards = [] if isinstance(output, CallFailed) else entries(output, "cards")
        ref_id = sample.extra["reference_id"]
        card = next((c for c in cards if str(c.get("card")) == ref_id), None)
        quad = (
            np.asarray(card["corners"], dtype=np.float64) if card and card.get("corners") else None
        )
        ok = quad is not None and _plausible(quad)
        found += ok
        line = f"{sample.id}: " + ("found" if ok else "not found")
        if ok and card is not None and "inliers" in card:
            line += f", {card['inliers']} inliers of {card.get('matches', '?')} matches"
        if ok and quad is not None and sample.truth is not None:
            ref_shape = read_image(sample.extra["reference"]).shape
            true_quad = _project(
                np.asarray(sample.truth["H"], dtype=np.float64), _outline(ref_shape)
            )
            err = float(np.linalg.norm(quad - true_quad, axis=1).mean())
            errors.append(err)
            line += f", corner error {err:.2f} px"
        notes.append(line)
    return Score(
        metrics={
            "found": found,
            "corner_err_px": float(np.mean(errors)) if errors else None,
        },
        notes=["; ".join(notes)],
    )


METRICS = (
    Metric("found", "homography found", "count", "higher", of="samples"),
    Metric("corner_err_px", "graf corner error", "px", "lower"),
)

TASK = Task(
    name="features-real",
    title="A known picture in a scene by local features (box, graf)",
    source=DataSource("real", "opencv-features (box, graf1->graf3)", load_samples),
    score=score,
    metrics=METRICS,
    runners=(
        RunnerSpec.planned(
            "vision.identify:identify_frame",
            "pictable identify (one-card deck)",
            references_adapter,
        ),
        RunnerSpec.library(
            "opencv-orb",
            "OpenCV ORB (1000) + ratio test + RANSAC",
            functools.partial(LocalFeatures, method="orb"),
            version=opencv_version,
        ),
        RunnerSpec.library(
            "opencv-sift",
            "OpenCV SIFT + ratio test + RANSAC",
            functools.partial(LocalFeatures, method="sift"),
            version=opencv_version,
        ),
    ),
    description=(
        "The reference's features are computed before timing (a registered deck); a timed call "
        "covers the scene's features, matching and RANSAC. *homography found*: at least "
        f"{MIN_INLIERS} RANSAC inliers and a convex outline; *graf corner error*: mean distance "
        "of graf1's corners mapped by the found and by the true homography (H1to3p), scene px."
    ),
)
