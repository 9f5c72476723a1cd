"""Generated codes for the code-reader tests: QR codes (segno) and ArUco scenes (cv2.aruco)."""

from __future__ import annotations

import io

import cv2
import numpy as np
import segno
from numpy.typing import NDArray


def qr_image(
    data: bytes | str,
    *,
    scale: int = 6,
    border: int = 4,
    mode: str | None = None,
    error: str = "m",
    encoding: str | None = None,
    eci: bool = False,
) -> NDArray[np.uint8]:
    """A QR code (segno, never Micro QR) as an (H, W, 3) uint8 BGR image, black on white."""
    qr = segno.make(
        data, mode=mode, error=error, micro=False, encoding=encoding, eci=eci, boost_error=False
    )
    buf = io.BytesIO()
    qr.save(buf, kind="png", scale=scale, border=border)
    grey = cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_GRAYSCALE)
    return np.ascontiguousarray(cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR))


def marker_scene(
    dictionary: str,
    ids: list[int],
    *,
    size_hw: tuple[int, int] = (480, 640),
    side_px: int = 80,
    seed: int = 0,
) -> tuple[NDArray[np.uint8], dict[int, NDArray[np.float32]]]:
    """Markers of a predefined dictionary on a light table, rotated and slightly tilted, with
    a little blur and noise. Returns the (H, W, 3) uint8 BGR image and each id's true
    (4, 2) corners in pixels (ArUco order)."""
    rng = np.random.default_rng(seed)
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    h, w = size_hw
    img = np.full((h, w), 225, np.uint8)
    truth: dict[int, NDArray[np.float32]] = {}
    cols = int(np.ceil(np.sqrt(len(ids))))
    rows = int(np.ceil(len(ids) / cols))
    for k, marker_id in enumerate(ids):
        tile = d.generateImageMarker(marker_id, side_px, borderBits=1)
        pad = side_px // 5
        tile = cv2.copyMakeBorder(tile, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        s = tile.shape[0]
        cx = (k % cols + 0.5) * w / cols
        cy = (k // cols + 0.5) * h / rows
        angle = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        src = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float32)
        dst = ((src - s / 2) @ rot.T + [cx, cy] + rng.normal(0, s * 0.03, (4, 2))).astype(
            np.float32
        )
        hom = cv2.getPerspectiveTransform(src, dst)
        mask = cv2.warpPerspective(np.full_like(tile, 255), hom, (w, h))
        warped = cv2.warpPerspective(tile, hom, (w, h))
        img[mask > 0] = warped[mask > 0]
        inner = np.array(
            [
                [pad, pad],
                [pad + side_px, pad],
                [pad + side_px, pad + side_px],
                [pad, pad + side_px],
            ],
            np.float32,
        )
        truth[marker_id] = cv2.perspectiveTransform(inner[None], hom)[0]
    img = cv2.GaussianBlur(img, (3, 3), 0.8)
    img = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR), truth
