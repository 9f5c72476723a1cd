"""The compositor: warps planar sprites onto the frame through the exact camera model.

For every supersampled output pixel the camera gives its undistorted normalised
coordinates (``Camera.normalized_grid``); each sprite's plane maps those to texture
coordinates by one homography, and ``cv2.remap`` samples the texture. Lens distortion
is therefore exact per pixel, not approximated per corner. Frames are rendered at 2x and
area-averaged down (anti-aliasing), and two label buffers record which object is on top
of every sample (with and without hands), from which the truth's fractions are counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth import sprites as sp
from vision.synth.camera import SS, Camera
from vision.synth.spec import Pose


@dataclass(eq=False)
class Placed:
    """A sprite ready to draw: texture, where its plane lies, labels per region."""

    tex: sp.SpriteTex
    pose: Pose
    labels: tuple[int, ...] = ()
    hand: bool = False
    wrap: bool = False


@dataclass(eq=False)
class Layers:
    """Supersampled buffers: colour (H2, W2, 3) uint8 and label ids (H2, W2) int16, with
    hands (``label_all``) and without them (``label_nohand``)."""

    color: np.ndarray
    label_all: np.ndarray
    label_nohand: np.ndarray


@dataclass(eq=False)
class Counts:
    """Per-label sample counts: on top (all), on top ignoring hands, hidden by a hand,
    and drawn (the object's own unoccluded in-frame samples)."""

    all: np.ndarray
    nohand: np.ndarray
    hand_cover: np.ndarray
    drawn: np.ndarray

    @classmethod
    def zeros(cls, n: int) -> Counts:
        z = np.zeros(n, np.int64)
        return cls(z.copy(), z.copy(), z.copy(), z.copy())

    def copy(self) -> Counts:
        return Counts(
            self.all.copy(), self.nohand.copy(), self.hand_cover.copy(), self.drawn.copy()
        )


class Compositor:
    """Draws ``Placed`` sprites into ``Layers`` for one camera."""

    def __init__(self, camera: Camera) -> None:
        self.camera = camera
        self.grid = camera.normalized_grid()
        self.coarse, self.step = camera.coarse_grid()
        self.h2, self.w2 = self.grid.shape[:2]
        self.R = camera.R
        self.t = camera.tvec.reshape(3)

    def new_layers(self) -> Layers:
        return Layers(
            np.zeros((self.h2, self.w2, 3), np.uint8),
            np.zeros((self.h2, self.w2), np.int16),
            np.zeros((self.h2, self.w2), np.int16),
        )

    # ---- geometry

    def plane_homography(self, pose: Pose) -> np.ndarray:
        """(3, 3) map from plane mm (u, v, 1) to normalised camera coordinates."""
        ex, ey, o = (np.asarray(v, np.float64) for v in (pose.ex, pose.ey, pose.origin_mm))
        return np.stack([self.R @ ex, self.R @ ey, self.R @ o + self.t], axis=1)

    def scale_2x(self, pose: Pose, size_mm: tuple[float, float]) -> float:
        """Largest supersampled pixels per mm over the sprite (ignoring distortion)."""
        w, h = size_mm
        loc = np.array([[0, 0], [w, 0], [w, h], [0, h], [w / 2, h / 2]], np.float64)
        g = self.plane_homography(pose)
        p = np.concatenate([loc, np.ones((5, 1))], 1) @ g.T
        z = p[:, 2]
        if np.any(z <= 1e-6):
            z = np.maximum(z, 1e-6)
        best = 0.0
        for col in (0, 1):
            d = (g[:2, col][None, :] - p[:, :2] / z[:, None] * g[2, col]) / z[:, None]
            best = max(best, float(np.linalg.norm(d, axis=1).max()))
        return best * float(self.camera.K[0, 0]) * SS

    def bbox(self, placed: Placed) -> tuple[int, int, int, int] | None:
        """Supersampled pixel box (x0, y0, x1, y1) that holds the sprite, or None."""
        if placed.wrap:
            return (0, 0, self.w2, self.h2)
        w, h = placed.tex.size_mm
        n = 12
        a = np.linspace(0, 1, n, endpoint=False)
        loc = np.concatenate(
            [
                np.stack([a * w, np.zeros(n)], 1),
                np.stack([np.full(n, w), a * h], 1),
                np.stack([w - a * w, np.full(n, h)], 1),
                np.stack([np.zeros(n), h - a * h], 1),
            ]
        )
        g = self.plane_homography(placed.pose)
        p = np.concatenate([loc, np.ones((len(loc), 1))], 1) @ g.T
        front = p[:, 2] > 1e-6
        if not np.any(front):
            return None
        if not np.all(front):
            return (0, 0, self.w2, self.h2)
        xy = p[:, :2] / p[:, 2:]
        lo, hi = xy.min(0), xy.max(0)
        c = self.coarse
        inside = (
            (c[..., 0] >= lo[0])
            & (c[..., 0] <= hi[0])
            & (c[..., 1] >= lo[1])
            & (c[..., 1] <= hi[1])
        )
        # coarse samples falling inside may be none while the box is thinner than a cell
        rows = np.flatnonzero(inside.any(1))
        cols = np.flatnonzero(inside.any(0))
        if len(rows) == 0:
            # find the nearest coarse cell to the box centre
            mid = (lo + hi) / 2
            d = np.abs(c[..., 0] - mid[0]) + np.abs(c[..., 1] - mid[1])
            r, k = np.unravel_index(int(np.argmin(d)), d.shape)
            rows, cols = np.array([r]), np.array([k])
        s = self.step
        x0 = int((cols[0] - 2 + 0.5) * s) - 1
        x1 = int((cols[-1] + 0.5) * s) + 2
        y0 = int((rows[0] - 2 + 0.5) * s) - 1
        y1 = int((rows[-1] + 0.5) * s) + 2
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.w2, x1), min(self.h2, y1)
        if x1 <= x0 or y1 <= y0:
            return None
        return (x0, y0, x1, y1)

    # ---- drawing

    def draw(
        self,
        layers: Layers,
        placed: Placed,
        window: tuple[int, int, int, int] | None = None,
        drawn: np.ndarray | None = None,
        origin: tuple[int, int] = (0, 0),
    ) -> None:
        """Composite one sprite over ``layers`` within ``window`` (full-frame
        supersampled box). ``layers`` may be a crop whose top-left is ``origin``.
        ``drawn`` (per-label counts) is increased by the sprite's own samples."""
        box = self.bbox(placed)
        if box is None:
            return
        if window is not None:
            box = (
                max(box[0], window[0]),
                max(box[1], window[1]),
                min(box[2], window[2]),
                min(box[3], window[3]),
            )
            if box[2] <= box[0] or box[3] <= box[1]:
                return
        x0, y0, x1, y1 = box
        tex = placed.tex
        th, tw = tex.bgra.shape[:2]
        sx, sy = tw / tex.size_mm[0], th / tex.size_mm[1]
        to_tex = np.array([[sx, 0, -0.5], [0, sy, -0.5], [0, 0, 1]])
        m = to_tex @ np.linalg.inv(self.plane_homography(placed.pose))
        m = m / np.abs(m).max()
        g = self.grid[y0:y1, x0:x1]
        mf = m.astype(np.float32)
        corners = g[[0, 0, -1, -1], [0, -1, 0, -1]]
        den_c = mf[2, 0] * corners[:, 0] + mf[2, 1] * corners[:, 1] + mf[2, 2]
        if np.all(den_c > 0) and _flat(placed.pose):
            # the plane is in front of the camera over the whole box: one C++ call
            uv = cv2.perspectiveTransform(g.reshape(-1, 1, 2), m).reshape(g.shape)
            mx = np.ascontiguousarray(uv[..., 0])
            my = np.ascontiguousarray(uv[..., 1])
        else:
            xn, yn = g[..., 0], g[..., 1]
            den = mf[2, 0] * xn + mf[2, 1] * yn + mf[2, 2]
            bad = den <= 0
            den = np.where(bad, np.float32(1.0), den)
            mx = (mf[0, 0] * xn + mf[0, 1] * yn + mf[0, 2]) / den
            my = (mf[1, 0] * xn + mf[1, 1] * yn + mf[1, 2]) / den
            if np.any(bad):
                mx[bad] = -1e4
                my[bad] = -1e4
        ox, oy = origin
        sl = (slice(y0 - oy, y1 - oy), slice(x0 - ox, x1 - ox))
        if placed.wrap:
            mx = np.mod(mx + 0.5, np.float32(tw)) - 0.5
            my = np.mod(my + 0.5, np.float32(th)) - 0.5
            src = cv2.remap(tex.bgra[..., :3], mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
            layers.color[sl] = src
            layers.label_all[sl] = 0
            layers.label_nohand[sl] = 0
            return
        samp = cv2.remap(
            tex.bgra, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
        )
        alpha = samp[..., 3]
        if not alpha.any():
            return
        dst = layers.color[sl]
        inv = cv2.merge([255 - alpha] * 3)
        dst[...] = cv2.add(cv2.multiply(dst, inv, scale=1 / 255), samp[..., :3])
        if not placed.labels:
            return
        mask = alpha >= 128
        if tex.regions is not None:
            reg = cv2.remap(
                tex.regions,
                mx,
                my,
                cv2.INTER_NEAREST,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=sp.NO_REGION,
            )
            mask &= reg != sp.NO_REGION
            lut = np.zeros(256, np.int16)
            lut[: len(placed.labels)] = placed.labels
            lab = lut[reg]
        else:
            lab = np.full(alpha.shape, placed.labels[0], np.int16)
        layers.label_all[sl][mask] = lab[mask]
        if not placed.hand:
            layers.label_nohand[sl][mask] = lab[mask]
        if drawn is not None:
            drawn += np.bincount(lab[mask].ravel(), minlength=len(drawn))[: len(drawn)]


def _flat(pose: Pose) -> bool:
    """True for a plane parallel to the table (then no ray meets it from behind)."""
    return abs(pose.ex[2]) < 1e-9 and abs(pose.ey[2]) < 1e-9


def count_labels(
    label_all: np.ndarray, label_nohand: np.ndarray, is_hand: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(all, nohand, hand_cover) per-label counts of a pair of (H, W) int16 label buffers."""
    la = label_all.view(np.uint16)
    ln = label_nohand.view(np.uint16)
    c_all = _hist(la, n)
    c_no = _hist(ln, n)
    hands = np.flatnonzero(is_hand[:n])
    c_hand = np.zeros(n, np.int64)
    if len(hands) and c_all[hands].any():
        mask = np.zeros(la.shape, np.uint8)
        for h in hands:
            mask |= (la == h).view(np.uint8)
        c_hand = _hist(ln, n, mask)
    return c_all, c_no, c_hand


def _hist(labels: np.ndarray, n: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Exact per-label counts of a (H, W) uint16 label image (labels < n)."""
    if labels.size == 0:
        return np.zeros(n, np.int64)
    h = cv2.calcHist([np.ascontiguousarray(labels)], [0], mask, [n], [0, n])
    return np.rint(h.ravel()).astype(np.int64)
