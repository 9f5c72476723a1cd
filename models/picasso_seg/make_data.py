"""Training data of the Picasso pixel model: rendered boards in random looks, each cut into
the canvas the reader sees (``vision.picasso.board.find_board``, normalised by the canvas
model as ``vision.picasso.segment.normalise`` does) and the class of every canvas pixel,
taken from the renderer's own label buffer (which object is on top at each pixel).

    .venv/bin/python -m models.picasso_seg.make_data --n 600 --looks dev
    .venv/bin/python -m models.picasso_seg.make_data --n 200 --looks kit
    .venv/bin/python -m models.picasso_seg.make_data --n 200 --looks dev --tier hard

Boards come from run seed ``TRAIN_SEED`` (the benchmark uses run seeds 0, 1 and 2): the
pieces and the looks differ from every benchmark board. Only the kit look and the
development looks are drawn: the held-back looks and the second drawer stay unseen.

Classes (``CLASSES``): canvas, stick, string, shape, other (a hand, a card, the frame, the
table: anything that is not the canvas or a piece).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CLASSES = ("canvas", "stick", "string", "shape", "other")
CANVAS, STICK, STRING, SHAPE, OTHER = range(5)
TRAIN_SEED = 11
SEED_STRIDE = 1_000_003


def data_dir(tier: str, looks: str) -> Path:
    return ROOT / "cache" / "picasso_seg" / f"{tier}-{looks}-seed{TRAIN_SEED}"


def render_with_classes(
    scene: int, tier: str, looks: str
) -> tuple[NDArray[np.uint8], NDArray[np.uint8], float] | None:
    """(normalised canvas (H, W, 3) uint8, classes (H, W) uint8, px_per_mm) of one rendered
    board, or None when the reader finds no board in the frame."""
    from calibration.result import Failure
    from vision.picasso import segment as seg
    from vision.picasso.board import PX_PER_MM, find_board
    from vision.synth import board_look, random_picasso_board
    from vision.synth.camera import SS
    from vision.synth.compositor import Compositor
    from vision.synth.effects import apply_effects, scene_effects
    from vision.synth.scene_sprites import SceneBuilder
    from vision.synth.spec import ShapeSpec, StickSpec, StringSpec
    from vision.synth.textures import default_provider

    look = board_look(scene, None if looks == "kit" else looks)
    spec = random_picasso_board(np.random.default_rng(scene), tier, look=look)
    comp = Compositor(spec.camera)
    builder = SceneBuilder(comp, default_provider(), scene)
    ss = builder.build(spec)
    layers = comp.new_layers()
    for p in [*ss.static, *ss.dynamic]:
        comp.draw(layers, p)
    clean = cv2.resize(layers.color, (comp.w2 // SS, comp.h2 // SS), interpolation=cv2.INTER_AREA)
    frame = apply_effects(clean, scene_effects(spec), np.random.default_rng([int(scene), 7]))
    lut = np.full(int(layers.label_all.max()) + 1 + 64, OTHER, np.uint8)
    lut[ss.board_labels[0]] = CANVAS
    assert spec.board is not None
    for piece, labels in zip(spec.board.pieces, ss.piece_labels, strict=True):
        kind = (
            STICK
            if isinstance(piece, StickSpec)
            else STRING
            if isinstance(piece, StringSpec)
            else SHAPE
            if isinstance(piece, ShapeSpec)
            else OTHER
        )
        lut[list(labels)] = kind
    for labels in ss.hand_labels:
        lut[list(labels)] = OTHER
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    view = find_board(frame, gray, None, PX_PER_MM)
    if isinstance(view, Failure):
        return None
    s = view.px_per_mm
    h, w = view.canvas.shape[:2]
    us, vs = np.meshgrid(np.arange(w), np.arange(h))
    mm = np.stack([(us.ravel() + 0.5) / s, (vs.ravel() + 0.5) / s], 1)
    px = view.fit.to_px(mm).reshape(h, w, 2)
    x2 = ((px[..., 0] + 0.5) * SS - 0.5).astype(np.float32)
    y2 = ((px[..., 1] + 0.5) * SS - 0.5).astype(np.float32)
    ids = cv2.remap(
        layers.label_all.astype(np.float32),
        x2,
        y2,
        cv2.INTER_NEAREST,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=0,
    ).astype(np.int64)
    classes = lut[np.clip(ids, 0, len(lut) - 1)]
    return seg.normalise(view.canvas, s), classes, s


def _one(args: tuple[int, str, str, str]) -> bool:
    i, tier, looks, folder = args
    out = Path(folder)
    if (out / f"{i:04d}.lab.png").is_file():
        return True
    got = render_with_classes(TRAIN_SEED * SEED_STRIDE + i, tier, looks)
    if got is None:
        return False
    norm, classes, _ = got
    cv2.imwrite(str(out / f"{i:04d}.img.png"), norm)
    cv2.imwrite(str(out / f"{i:04d}.lab.png"), classes)
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--tier", default="normal", choices=("normal", "hard"))
    ap.add_argument("--looks", default="dev", choices=("kit", "dev"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    folder = data_dir(a.tier, a.looks)
    folder.mkdir(parents=True, exist_ok=True)
    jobs = [(i, a.tier, a.looks, str(folder)) for i in range(a.n)]
    ok = 0
    with ProcessPoolExecutor(a.jobs) as ex:
        for k, got in enumerate(ex.map(_one, jobs, chunksize=4)):
            ok += got
            if (k + 1) % 50 == 0:
                print(f"{k + 1}/{a.n} boards, {ok} with a board found", flush=True)
    print(f"{ok}/{a.n} boards written to {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
