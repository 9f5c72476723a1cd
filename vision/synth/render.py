"""The renderer: a scene spec in, the frame and its truth out (``render_scene``);
``FrameRenderer`` renders many frames of one camera, keeping the static layer (table,
markers, board, cards laid down) between frames and drawing hands and held cards over it.

The steps: ``scene_sprites`` turns the spec into sprites, ``compositor`` warps them onto the
frame through the exact camera model at 2x (colour and two label buffers), the frame is
area-averaged down and ``effects`` adds light and sensor effects, and ``scene_truth``
counts the truth from the label buffers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.camera import SS, Camera
from vision.synth.compositor import Compositor, Counts, Layers, Placed, count_labels
from vision.synth.effects import apply_effects, scene_effects
from vision.synth.scene_sprites import SceneBuilder
from vision.synth.scene_truth import build_truth
from vision.synth.spec import SceneSpec
from vision.synth.textures import TextureProvider, default_provider
from vision.synth.truth import Truth


@dataclass(eq=False)
class StaticLayer:
    """A cached render of the static sprites: supersampled layers, the clean 1x frame,
    and the label counts."""

    layers: Layers
    frame: np.ndarray
    counts: Counts


def render_static(
    comp: Compositor, sprites: Sequence[Placed], n_labels: int, is_hand: np.ndarray
) -> StaticLayer:
    """Draw ``sprites`` bottom to top over the whole frame."""
    layers = comp.new_layers()
    drawn = np.zeros(n_labels, np.int64)
    for p in sprites:
        comp.draw(layers, p, drawn=drawn)
    c_all, c_no, c_hand = count_labels(layers.label_all, layers.label_nohand, is_hand, n_labels)
    frame = cv2.resize(layers.color, (comp.w2 // SS, comp.h2 // SS), interpolation=cv2.INTER_AREA)
    return StaticLayer(layers, frame, Counts(c_all, c_no, c_hand, drawn))


def render_over(
    comp: Compositor,
    static: StaticLayer,
    sprites: Sequence[Placed],
    n_labels: int,
    is_hand: np.ndarray,
) -> tuple[np.ndarray, Counts]:
    """Draw ``sprites`` over a cached static layer, touching only their bounding box.

    Returns (clean 1x frame (H, W, 3) uint8, counts)."""
    frame = static.frame.copy()
    counts = static.counts.copy()
    if len(counts.all) > n_labels:
        # The static layer was drawn when the scene had more labels (a card held or carried
        # then, gone now): those were dynamic, so the static layer holds none of them.
        counts = Counts(
            *(
                c[:n_labels].copy()
                for c in (counts.all, counts.nohand, counts.hand_cover, counts.drawn)
            )
        )
    if len(counts.all) < n_labels:
        pad = n_labels - len(counts.all)
        counts = Counts(
            *(
                np.concatenate([c, np.zeros(pad, np.int64)])
                for c in (counts.all, counts.nohand, counts.hand_cover, counts.drawn)
            )
        )
    boxes = [b for b in (comp.bbox(p) for p in sprites) if b is not None]
    if not boxes:
        return frame, counts
    x0 = min(b[0] for b in boxes) // SS * SS
    y0 = min(b[1] for b in boxes) // SS * SS
    x1 = min(comp.w2, -(-max(b[2] for b in boxes) // SS) * SS)
    y1 = min(comp.h2, -(-max(b[3] for b in boxes) // SS) * SS)
    sl = (slice(y0, y1), slice(x0, x1))
    src = static.layers
    old = count_labels(src.label_all[sl], src.label_nohand[sl], is_hand, n_labels)
    crop = Layers(src.color[sl].copy(), src.label_all[sl].copy(), src.label_nohand[sl].copy())
    for p in sprites:
        comp.draw(crop, p, window=(x0, y0, x1, y1), drawn=counts.drawn, origin=(x0, y0))
    new = count_labels(crop.label_all, crop.label_nohand, is_hand, n_labels)
    counts.all += new[0] - old[0]
    counts.nohand += new[1] - old[1]
    counts.hand_cover += new[2] - old[2]
    small = cv2.resize(crop.color, ((x1 - x0) // SS, (y1 - y0) // SS), interpolation=cv2.INTER_AREA)
    frame[y0 // SS : y1 // SS, x0 // SS : x1 // SS] = small
    return frame, counts


def render_scene(
    spec: SceneSpec, seed: int, provider: TextureProvider | None = None
) -> tuple[np.ndarray, Truth]:
    """Render one frame of ``spec`` and its ground truth.

    Args:
        spec: the scene (camera, table, objects, effects).
        seed: seeds the sensor noise and the procedural textures; the same spec and seed
            give the same frame bit for bit.
        provider: card art; ``default_provider()`` when None.

    Returns:
        (frame (H, W, 3) uint8 BGR, Truth).
    """
    provider = provider or default_provider()
    comp = Compositor(spec.camera)
    builder = SceneBuilder(comp, provider, seed)
    ss = builder.build(spec)
    n = ss.registry.n
    is_hand = ss.registry.is_hand()
    static = render_static(comp, ss.static, n, is_hand)
    clean, counts = render_over(comp, static, ss.dynamic, n, is_hand)
    rng = np.random.default_rng([int(seed), 7])
    frame = apply_effects(clean, scene_effects(spec), rng)
    return frame, build_truth(spec, ss, counts, builder, seed)


def extend_static(
    comp: Compositor,
    static: StaticLayer,
    sprites: Sequence[Placed],
    n_labels: int,
    is_hand: np.ndarray,
) -> StaticLayer:
    """Draw more sprites on top of a cached static layer (in place, within their box)."""
    if len(static.counts.all) < n_labels:
        pad = n_labels - len(static.counts.all)
        static.counts = Counts(
            *(
                np.concatenate([c, np.zeros(pad, np.int64)])
                for c in (
                    static.counts.all,
                    static.counts.nohand,
                    static.counts.hand_cover,
                    static.counts.drawn,
                )
            )
        )
    boxes = [b for b in (comp.bbox(p) for p in sprites) if b is not None]
    if not boxes:
        return static
    x0 = min(b[0] for b in boxes) // SS * SS
    y0 = min(b[1] for b in boxes) // SS * SS
    x1 = min(comp.w2, -(-max(b[2] for b in boxes) // SS) * SS)
    y1 = min(comp.h2, -(-max(b[3] for b in boxes) // SS) * SS)
    sl = (slice(y0, y1), slice(x0, x1))
    lay = static.layers
    old = count_labels(lay.label_all[sl], lay.label_nohand[sl], is_hand, n_labels)
    view = Layers(lay.color[sl], lay.label_all[sl], lay.label_nohand[sl])
    for p in sprites:
        comp.draw(view, p, window=(x0, y0, x1, y1), drawn=static.counts.drawn, origin=(x0, y0))
    new = count_labels(view.label_all, view.label_nohand, is_hand, n_labels)
    static.counts.all += new[0] - old[0]
    static.counts.nohand += new[1] - old[1]
    static.counts.hand_cover += new[2] - old[2]
    static.frame[y0 // SS : y1 // SS, x0 // SS : x1 // SS] = cv2.resize(
        view.color, ((x1 - x0) // SS, (y1 - y0) // SS), interpolation=cv2.INTER_AREA
    )
    return static


def sprite_key(p: Placed) -> tuple[object, ...]:
    """Identity of a placed sprite across frames (textures are cached objects)."""
    return (id(p.tex), p.pose, p.labels, p.hand, p.wrap)


class FrameRenderer:
    """Renders many frames of one camera, caching the static layer between frames.

    Static sprites that extend the cached list are drawn incrementally; any other change
    re-renders the static layer. Hands and held cards are drawn per frame over it.
    """

    def __init__(self, camera: Camera, provider: TextureProvider, seed: int) -> None:
        self.comp = Compositor(camera)
        self.builder = SceneBuilder(self.comp, provider, seed)
        self.seed = seed
        self._static: StaticLayer | None = None
        self._keys: list[tuple[object, ...]] = []

    def render_clean(self, spec: SceneSpec) -> tuple[np.ndarray, Truth]:
        """The clean frame (no light or sensor effects) and its truth."""
        if spec.camera is not self.comp.camera:
            raise ValueError("FrameRenderer renders one camera; build another for a new camera")
        ss = self.builder.build(spec)
        n = ss.registry.n
        is_hand = ss.registry.is_hand()
        keys = [sprite_key(p) for p in ss.static]
        if self._static is not None and keys[: len(self._keys)] == self._keys:
            if len(keys) > len(self._keys):
                self._static = extend_static(
                    self.comp, self._static, ss.static[len(self._keys) :], n, is_hand
                )
        else:
            self._static = render_static(self.comp, ss.static, n, is_hand)
        self._keys = keys
        clean, counts = render_over(self.comp, self._static, ss.dynamic, n, is_hand)
        return clean, build_truth(spec, ss, counts, self.builder, self.seed)
