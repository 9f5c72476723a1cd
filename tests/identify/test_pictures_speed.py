"""The picture path's faster pieces give what the slower ones gave: rectification by one warp
per outline, the vectorised cell agreement, and the k-d tree behind the guided refit of a
whole-frame keypoint match."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.identify import appearance, local


def _agreement_reference(
    observed: np.ndarray, reference: np.ndarray, mask: np.ndarray
) -> np.ndarray:
    """The agreement written plainly, one pair at a time (the definition the fast one keeps)."""
    out = []
    for o, r, m in zip(observed, reference, mask, strict=True):
        o = o.reshape(-1, 3).astype(np.float64)
        r = r.reshape(-1, 3).astype(np.float64)
        inside = m.ravel()
        w = inside.astype(np.float64)
        for _ in range(4):
            sw = w.sum() + 1e-9
            mr, mo = (w * r[:, 0]).sum() / sw, (w * o[:, 0]).sum() / sw
            var = (w * (r[:, 0] - mr) ** 2).sum()
            cov = (w * (r[:, 0] - mr) * (o[:, 0] - mo)).sum()
            gain = float(np.clip(cov / var if var > 1e-6 else 1.0, 0.4, 2.5))
            off_ab = (w[:, None] * (o[:, 1:] - r[:, 1:])).sum(axis=0) / sw
            res_l = o[:, 0] - (gain * r[:, 0] + mo - gain * mr)
            res = np.sqrt(res_l**2 + ((o[:, 1:] - r[:, 1:] - off_ab) ** 2).sum(axis=1))
            w = inside * ((res < 15.0) + 1e-3)
        out.append(((res < 10.0) & inside).sum() / max(inside.sum(), 1))
    return np.array(out)


def test_agreement_matches_its_plain_definition() -> None:
    rng = np.random.default_rng(3)
    k = 12
    reference = rng.uniform(0, 100, (k, 25, 18, 3)).astype(np.float32)
    observed = reference * rng.uniform(0.6, 1.4, (k, 1, 1, 1)).astype(np.float32)
    observed += rng.normal(0, 6, observed.shape).astype(np.float32)
    observed[: k // 2, :10] = rng.uniform(0, 100, (k // 2, 10, 18, 3))  # half covered
    mask = rng.random((k, 25, 18)) < 0.8
    fast = appearance.agreement(observed, reference, mask)
    np.testing.assert_allclose(fast, _agreement_reference(observed, reference, mask), atol=0.01)
    np.testing.assert_array_equal(appearance.agreement(reference, reference, mask), 1.0)


def test_rectify_puts_the_outline_on_the_image() -> None:
    frame = np.zeros((200, 300, 3), np.uint8)
    frame[50:150, 100:160] = (0, 0, 255)
    frame[50:100, 100:130] = (255, 0, 0)  # the top-left quarter
    quad = np.array([[[99.5, 49.5], [159.5, 49.5], [159.5, 149.5], [99.5, 149.5]]])
    turned = np.roll(quad, 2, axis=1)  # the same card upside down
    out = appearance.rectify(frame, np.concatenate([quad, turned]), (30, 50))
    assert out.shape == (2, 50, 30, 3)
    assert (out[0, 2:23, 2:13] == (255, 0, 0)).all()
    assert (out[0, 27:, 17:] == (0, 0, 255)).all()
    np.testing.assert_array_equal(out[1], out[0, ::-1, ::-1])
    assert appearance.rectify(frame, np.zeros((0, 4, 2))).shape == (0, 75, 54, 3)


def _guided_reference(
    reference: local.Keypoints, frame: local.Keypoints, h: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The guided pairs written plainly: each reference keypoint's nearest descriptor among
    the frame keypoints within GUIDE_PX of where ``h`` puts it (first of equals)."""
    projected = cv2.perspectiveTransform(reference.xy.reshape(-1, 1, 2).astype(np.float64), h)
    src, dst = [], []
    for i, p in enumerate(projected.reshape(-1, 2)):
        cols = np.flatnonzero(np.linalg.norm(frame.xy - p, axis=1) < local.GUIDE_PX)
        if len(cols) == 0:
            continue
        dist = np.unpackbits(reference.desc[i] ^ frame.desc[cols], axis=1).sum(axis=1)
        j = int(np.argmin(dist))
        if dist[j] <= local.GUIDE_HAMMING:
            src.append(reference.xy[i])
            dst.append(frame.xy[cols[j]])
    return np.asarray(src), np.asarray(dst)


def test_guided_refit_pairs_and_finds_the_box(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = cv2.imread(str(shared_data / "opencv-features" / "box.png"), cv2.IMREAD_GRAYSCALE)
    scene = cv2.imread(
        str(shared_data / "opencv-features" / "box_in_scene.png"), cv2.IMREAD_GRAYSCALE
    )
    ref, frame = local.detect(box), local.detect(scene, local.FRAME_FEATURES)
    h, w = box.shape
    outline = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64) - 0.5
    found = local.verify(ref, frame, outline)
    assert found is not None and found.inliers >= 100
    corners = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), found.homography).reshape(4, 2)
    assert local.plausible_quad(corners)
    # The pairs the guided refit is fitted on are those of the plain definition.
    fitted: list[tuple[np.ndarray, np.ndarray]] = []
    find = cv2.findHomography

    def spy(src: np.ndarray, dst: np.ndarray, *args: object, **kw: object) -> object:
        fitted.append((np.asarray(src).reshape(-1, 2), np.asarray(dst).reshape(-1, 2)))
        return find(src, dst, *args, **kw)

    monkeypatch.setattr(local.cv2, "findHomography", spy)
    local._guided(ref, frame, found.homography, 0)
    src, dst = _guided_reference(ref, frame, found.homography)
    assert len(fitted) == 1 and len(src) >= 100
    np.testing.assert_array_equal(fitted[0][0], src)
    np.testing.assert_array_equal(fitted[0][1], dst)
