"""Local features (ORB keypoints and binary descriptors) and their geometric verification.

Local features name a card when it is large in the frame (held up, photographed close, or a
deck of big objects such as ``box.png``); at table distance (a card 70-100 px wide) they are
too few and are used only to confirm (see :mod:`vision.identify.identify`). A match is
*verified* by a homography fitted with RANSAC: it needs :data:`MIN_INLIERS` inliers, and the
reference's outline mapped into the frame must be a convex, non-degenerate quadrilateral.

Conventions: grey images (H, W) uint8; keypoint positions (n, 2) float32 pixels (OpenCV's
convention, pixel centres at integers); descriptors (n, 32) uint8 (ORB's 256 bits).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

#: Keypoints kept per reference image, and per frame in a whole-frame search.
REFERENCE_FEATURES = 1000
FRAME_FEATURES = 2000
#: Lowe's ratio test, RANSAC reprojection threshold (px) and the inliers a match needs.
RATIO = 0.8
RANSAC_PX = 5.0
MIN_INLIERS = 12
#: Share of the ratio-test matches that must be RANSAC inliers.
MIN_INLIER_SHARE = 0.3
#: Guided matching after the first fit: search radius (px), largest descriptor distance
#: (bits of 256) and the refit's RANSAC threshold (px).
GUIDE_PX = 8.0
GUIDE_HAMMING = 64
GUIDE_RANSAC_PX = 3.0


@dataclass(frozen=True, eq=False)
class Keypoints:
    """Keypoints of one image: ``xy`` (n, 2) float32 pixels, ``desc`` (n, 32) uint8."""

    xy: NDArray[np.float32]
    desc: NDArray[np.uint8]

    def __len__(self) -> int:
        return int(self.xy.shape[0])


@dataclass(frozen=True, eq=False)
class Verified:
    """A reference found in a frame: ``homography`` (3, 3) float64 maps reference pixels to
    frame pixels; ``inliers`` and ``matches`` (those that passed the ratio test) counted."""

    homography: NDArray[np.float64]
    inliers: int
    matches: int


def _orb(n: int) -> cv2.ORB:
    return cv2.ORB_create(nfeatures=n, scaleFactor=1.2, nlevels=8, edgeThreshold=15, patchSize=31)


def detect(
    grey: NDArray[np.uint8], n: int = REFERENCE_FEATURES, mask: NDArray[np.uint8] | None = None
) -> Keypoints:
    """ORB keypoints of a (H, W) uint8 image (at most ``n``; ``mask`` limits where)."""
    kps, desc = _orb(n).detectAndCompute(grey, mask)
    if desc is None or not kps:
        return Keypoints(np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8))
    xy = np.array([k.pt for k in kps], np.float32).reshape(-1, 2)
    return Keypoints(xy, np.asarray(desc, np.uint8))


def verify(
    reference: Keypoints,
    frame: Keypoints,
    outline: NDArray[np.floating],
    *,
    min_inliers: int = MIN_INLIERS,
) -> Verified | None:
    """Match ``reference`` keypoints to ``frame`` keypoints (ratio test) and fit a homography
    (RANSAC); ``outline`` (4, 2) is the reference's outline in its own pixels, which must map
    to a plausible quadrilateral. Returns None when the reference is not found."""
    if len(reference) < 4 or len(frame) < 4:
        return None
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING)
    pairs = matcher.knnMatch(reference.desc, frame.desc, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
    if len(good) < min_inliers:
        return None
    src = reference.xy[[m.queryIdx for m in good]].reshape(-1, 1, 2)
    dst = frame.xy[[m.trainIdx for m in good]].reshape(-1, 1, 2)
    h, mask = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_PX, maxIters=2000, confidence=0.995)
    if h is None or mask is None:
        return None
    inliers = int(mask.sum())
    if inliers < min_inliers or inliers < MIN_INLIER_SHARE * len(good):
        return None
    h, inliers = _guided(reference, frame, np.asarray(h, np.float64), inliers)
    quad = cv2.perspectiveTransform(np.asarray(outline, np.float64).reshape(-1, 1, 2), h)
    if not plausible_quad(quad.reshape(4, 2)):
        return None
    return Verified(np.asarray(h, np.float64), inliers, len(good))


def _guided(
    reference: Keypoints, frame: Keypoints, h: NDArray[np.float64], inliers: int
) -> tuple[NDArray[np.float64], int]:
    """The homography refitted on guided matches: each reference keypoint paired with the
    frame keypoint of nearest descriptor among those within :data:`GUIDE_PX` of where ``h``
    puts it (far more pairs than the ratio test lets through, so a finer fit). Returns the
    refitted homography and its inliers, or ``h`` as it was when that fails."""
    projected = cv2.perspectiveTransform(reference.xy.reshape(-1, 1, 2).astype(np.float64), h)
    projected = projected.reshape(-1, 2)
    d2 = ((projected[:, None, :] - frame.xy[None, :, :]) ** 2).sum(axis=2)  # (n_ref, n_frame)
    near = d2 < GUIDE_PX**2
    rows = np.flatnonzero(near.any(axis=1))
    if len(rows) < 8:
        return h, inliers
    src, dst = [], []
    for i in rows:
        cols = np.flatnonzero(near[i])
        dist = np.unpackbits(reference.desc[i] ^ frame.desc[cols], axis=1).sum(axis=1)
        j = int(np.argmin(dist))
        if dist[j] <= GUIDE_HAMMING:
            src.append(reference.xy[i])
            dst.append(frame.xy[cols[j]])
    if len(src) < max(8, inliers):
        return h, inliers
    refit, mask = cv2.findHomography(
        np.asarray(src, np.float32), np.asarray(dst, np.float32), cv2.RANSAC, GUIDE_RANSAC_PX
    )
    if refit is None or mask is None or int(mask.sum()) < inliers:
        return h, inliers
    return np.asarray(refit, np.float64), int(mask.sum())


def plausible_quad(quad: NDArray[np.floating], min_side_px: float = 8.0) -> bool:
    """Whether a (4, 2) quad could be a flat card seen by a camera: finite, convex, every
    side at least ``min_side_px``, every angle between 20 and 160 degrees."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    if not np.isfinite(q).all():
        return False
    if not cv2.isContourConvex(q.astype(np.float32).reshape(-1, 1, 2)):
        return False
    for k in range(4):
        a = q[k - 1] - q[k]
        b = q[(k + 1) % 4] - q[k]
        la, lb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if la < min_side_px or lb < min_side_px:
            return False
        angle = float(np.degrees(np.arccos(np.clip(a @ b / (la * lb), -1.0, 1.0))))
        if not 20.0 <= angle <= 160.0:
            return False
    return True


#: ECC refinement: iterations, and the least correlation it must reach to be kept.
ECC_ITERATIONS = 50
ECC_MIN_CORRELATION = 0.5


def refine_ecc(
    reference: NDArray[np.uint8], frame: NDArray[np.uint8], homography: NDArray[np.float64]
) -> NDArray[np.float64]:
    """A reference -> frame homography (3, 3) refined by maximising the correlation of the
    reference (grey (h, w) uint8) with the frame (grey (H, W) uint8) under it (OpenCV's ECC):
    keypoints place a picture to a few pixels, its whole texture to a fraction of one.
    Returns the refined homography, or the one given when ECC fails, correlates under
    :data:`ECC_MIN_CORRELATION`, or moves a corner by more than 5% of the reference's
    size (it wandered off)."""
    h, w = reference.shape[:2]
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64).reshape(-1, 1, 2) - 0.5
    try:
        cc, warp = cv2.findTransformECC(
            reference.astype(np.float32),
            frame.astype(np.float32),
            np.asarray(homography, np.float32),
            cv2.MOTION_HOMOGRAPHY,
            (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, ECC_ITERATIONS, 1e-5),
            None,
            5,
        )
    except cv2.error:
        return homography
    refined = np.asarray(warp, np.float64)
    before = cv2.perspectiveTransform(outline, homography).reshape(4, 2)
    after = cv2.perspectiveTransform(outline, refined).reshape(4, 2)
    size = float(np.sqrt(abs(cv2.contourArea(before.astype(np.float32)))))
    if cc < ECC_MIN_CORRELATION or np.abs(after - before).max() > 0.05 * size:
        return homography
    return refined
