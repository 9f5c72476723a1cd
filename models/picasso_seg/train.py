"""Train the Picasso pixel model and write ``picasso_seg.onnx`` and its manifest entry.

    .venv/bin/python -m models.picasso_seg.make_data ...     # the data first (its docstring)
    .venv/bin/python -m models.picasso_seg.train --steps 4000

What it learns: for every pixel of the rectified, canvas-normalised board picture (the
canvas at 200 in each channel, ``vision.picasso.segment.normalise``), whether it is canvas,
a stick, the string, a shape, or something else (a hand, a card, the frame). It sees
shapes and widths, and colour only as one cue among others: every training crop has its
hues turned by a random angle and its chroma scaled, so a stick of any paint, a string of
any colour and a shape of any hue look alike to it apart from their geometry.

Training needs PyTorch (``pip install torch`` ; not a run-time dependency): the model is
exported to ONNX and run by onnxruntime.

Model: a stride-2 stem (3x3 convolutions at half resolution), a quarter-resolution and an
eighth-resolution level (a dilated convolution there: a context of about 100 px = 65 mm,
enough to see a stick's straightness across a heap), joined back at half resolution by
1 x 1 convolutions;
output: logits of the five classes at half resolution. Loss: cross-entropy at full
resolution after bilinear upsampling of the logits, classes weighted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from models.picasso_seg.make_data import CLASSES, SHAPE, STICK, STRING, data_dir  # noqa: E402
from vision.picasso.pixel_model import IN_CHANNELS, model_input  # noqa: E402
from vision.picasso.profile import DEFAULT_PROFILE  # noqa: E402
from vision.picasso.segment import classify  # noqa: E402
from vision.synth.effects import motion_kernel  # noqa: E402

ONNX_FILE = HERE / "picasso_seg.onnx"
MANIFEST = ROOT / "models" / "manifest.json"
SETS = (("normal", "dev"), ("normal", "kit"), ("hard", "dev"))
CROP = 160
WEIGHTS = (0.3, 1.0, 2.0, 1.0, 1.0)
SEED = 20261202
#: Share of training crops recoloured (the rest keep the look they were drawn in).
RECOLOUR = 0.65


def load_pairs() -> list[tuple[np.ndarray, np.ndarray]]:
    pairs = []
    for tier, looks in SETS:
        folder = data_dir(tier, looks)
        for lab in sorted(folder.glob("*.lab.png")):
            img = cv2.imread(str(lab).replace(".lab.png", ".img.png"), cv2.IMREAD_COLOR)
            cls = cv2.imread(str(lab), cv2.IMREAD_GRAYSCALE)
            if img is not None and cls is not None:
                pairs.append((img, cls))
    return pairs


def recolour(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Hues turned by a random angle, chroma scaled, lightness stretched: colour becomes a
    hint, not an answer (the canvas, neutral, stays neutral)."""
    lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    a, b = lab[..., 1], lab[..., 2]
    t = rng.uniform(0, 2 * np.pi)
    k = rng.uniform(0.4, 1.6)
    c, s = np.cos(t) * k, np.sin(t) * k
    a2, b2 = c * a - s * b, s * a + c * b
    tint = rng.normal(0, 2.0, 2)
    lab[..., 1], lab[..., 2] = a2 + tint[0], b2 + tint[1]
    gamma = rng.uniform(0.8, 1.25)
    lab[..., 0] = 100.0 * (np.clip(lab[..., 0], 0, 100) / 100.0) ** gamma * rng.uniform(0.9, 1.05)
    out = cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)
    return np.clip(out * 255.0, 0, 255).astype(np.uint8)


#: Share of training crops whose pieces are painted anew, kind by kind (``paint``): 0 in the
#: shipped model; ``--paint`` tries it (README: "Tried and left out").
PAINT = 0.0
#: Each kind (the sticks, the string, each shape) of a painted crop is painted with this
#: probability; the others keep their colour.
PAINT_KIND = 0.75
#: Lightness (CIE L*) and chroma ranges of a new paint. The lightness is kept this far from
#: the canvas's (``CANVAS_L``) when the paint is nearly grey: a grey piece of
#: the canvas's lightness cannot be seen, by a person or the model.
PAINT_L = (6.0, 96.0)
PAINT_CHROMA = (0.0, 75.0)
PAINT_APART_L = 10.0
PAINT_GREY_CHROMA = 12.0
#: The canvas's lightness once normalised (``segment.WHITE_LEVEL`` = 200 of 255), CIE L*.
CANVAS_L = 80.0


def _new_paint(rng: np.random.Generator) -> tuple[float, float, float, float, float]:
    """(L, a, b, lightness contrast, chroma contrast) of a random paint."""
    while True:
        light = rng.uniform(*PAINT_L)
        chroma = rng.uniform(*PAINT_CHROMA)
        if chroma >= PAINT_GREY_CHROMA or abs(light - CANVAS_L) >= PAINT_APART_L:
            break
    hue = rng.uniform(0, 2 * np.pi)
    return (
        light,
        chroma * np.cos(hue),
        chroma * np.sin(hue),
        rng.uniform(0.5, 1.4),
        rng.uniform(0.3, 1.2),
    )


def paint(img: np.ndarray, cls: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop with its pieces painted anew, kind by kind: every stick one paint (a kit's
    sticks are alike), the string another, each shape its own. A paint sets the pixels'
    mean lightness and colour anywhere from black to white and from grey to vivid, and keeps
    their grain and shading (the deviations from the mean, scaled), so that nothing but a
    piece's width, length, straightness and outline says what it is: a black stick, a white
    string, a honey stick beside a yellow shape. The edges blend over a pixel (the picture
    is blurred there, the classes are not)."""
    lab = cv2.cvtColor(img.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    masks = []
    for kind in (STICK, STRING):
        if rng.random() < PAINT_KIND:
            masks.append(cls == kind)
    n, parts = cv2.connectedComponents((cls == SHAPE).astype(np.uint8), connectivity=8)
    for i in range(1, n):
        if rng.random() < PAINT_KIND:
            masks.append(parts == i)
    out = lab.copy()
    touched = np.zeros(cls.shape, bool)
    for m in masks:
        if m.sum() < 4:
            continue
        light, a, b, k_l, k_c = _new_paint(rng)
        mean = lab[m].mean(axis=0)
        new = np.empty_like(lab)
        new[..., 0] = light + (lab[..., 0] - mean[0]) * k_l
        new[..., 1] = a + (lab[..., 1] - mean[1]) * k_c
        new[..., 2] = b + (lab[..., 2] - mean[2]) * k_c
        w = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 0.7)[..., None]
        w = np.maximum(w, m[..., None].astype(np.float32))
        out = out * (1.0 - w) + new * w
        touched |= w[..., 0] > 0
    out[..., 0] = np.clip(out[..., 0], 0.0, 100.0)
    bgr = cv2.cvtColor(out, cv2.COLOR_Lab2BGR)
    painted = np.clip(np.rint(bgr * 255.0), 0, 255).astype(np.uint8)
    return np.where(touched[..., None], painted, img)


#: Share of training crops seen through a worse camera (``worse_camera``): more blur than
#: the renderers' own, a glare that washes the pieces out, JPEG blocks.
WORSE_CAMERA = 0.0
#: The worse camera's ranges, at the canvas's 1.5 px/mm: a defocus of this Gaussian sigma
#: (px), a motion streak this long (px), a glare dimming the pieces' contrast to this share
#: at its peak over this radius (px), JPEG of this quality.
WORSE_DEFOCUS = (0.8, 2.6)
WORSE_MOTION = (3.0, 12.0)
WORSE_GLARE = (0.25, 0.8)
WORSE_GLARE_RADIUS = (25.0, 110.0)
WORSE_JPEG = (35, 85)


def worse_camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop as a worse camera would give it: each of defocus, a motion streak, a glare
    (the pieces' contrast to the canvas's level, 200, dimmed in a soft disc, as a bright
    spot leaves them once the canvas is normalised) and JPEG blocks, each half the time
    (one at least). The classes stay as they were: a piece is where it is, however it is
    seen."""
    x = img.astype(np.float32)
    todo = rng.random(4) < 0.5
    if not todo.any():
        todo[rng.integers(4)] = True
    if todo[0]:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(*WORSE_DEFOCUS))
    if todo[1]:
        x = cv2.filter2D(x, -1, motion_kernel(rng.uniform(*WORSE_MOTION), rng.uniform(0, 180)))
    if todo[2]:
        h, w = x.shape[:2]
        cy, cx = rng.uniform(-0.3, 1.3) * h, rng.uniform(-0.3, 1.3) * w
        r = rng.uniform(*WORSE_GLARE_RADIUS)
        yy, xx = np.mgrid[0:h, 0:w]
        dim = rng.uniform(*WORSE_GLARE)
        k = 1.0 - (1.0 - dim) * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
        x = 200.0 + (x - 200.0) * k[..., None].astype(np.float32)
    out = np.clip(np.rint(x), 0, 255).astype(np.uint8)
    if todo[3]:
        q = int(rng.integers(WORSE_JPEG[0], WORSE_JPEG[1] + 1))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def batch(pairs, idx, rng, n, paint_share=PAINT, worse_share=WORSE_CAMERA):
    xs, ys = [], []
    for _ in range(n):
        img, cls = pairs[idx[rng.integers(len(idx))]]
        h, w = cls.shape
        # Crops with pieces in them, mostly.
        for _try in range(6):
            y0, x0 = rng.integers(0, h - CROP), rng.integers(0, w - CROP)
            c = cls[y0 : y0 + CROP, x0 : x0 + CROP]
            if (c != 0).mean() > 0.03:
                break
        x = img[y0 : y0 + CROP, x0 : x0 + CROP]
        if rng.random() < paint_share:
            x = paint(x, c, rng)
        if rng.random() < RECOLOUR:
            x = recolour(x, rng)
        if rng.random() < worse_share:
            x = worse_camera(x, rng)
        elif rng.random() < 0.3:
            x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.4, 1.2))
        if rng.random() < 0.3:
            x = np.clip(x + rng.normal(0, rng.uniform(1, 5), x.shape), 0, 255).astype(np.uint8)
        k = rng.integers(4)
        x, c = np.rot90(x, k), np.rot90(c, k)
        if rng.random() < 0.5:
            x, c = x[:, ::-1], c[:, ::-1]
        x = np.ascontiguousarray(x)
        xs.append(model_input(x, classify(x, DEFAULT_PROFILE))[0])
        ys.append(np.ascontiguousarray(c))
    return np.stack(xs), np.stack(ys).astype(np.int64)


def build_net(c1: int = 16, c2: int = 32, c3: int = 32):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def cbr(i, o, s=1, d=1):
        return [nn.Conv2d(i, o, 3, stride=s, padding=d, dilation=d), nn.ReLU(inplace=True)]

    def one(i, o):
        return [nn.Conv2d(i, o, 1), nn.ReLU(inplace=True)]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.hx = nn.Sequential(*cbr(IN_CHANNELS, c1, 2), *cbr(c1, c1))
            self.qx = nn.Sequential(*cbr(c1, c2, 2), *cbr(c2, c2))
            self.ex = nn.Sequential(*cbr(c2, c3, 2), *cbr(c3, c3, 1, 2))
            self.qmix = nn.Sequential(*one(c2 + c3, c2))
            self.head = nn.Sequential(*one(c1 + c2, c1), nn.Conv2d(c1, len(CLASSES), 1))

        def forward(self, x):
            a = self.hx(x)
            b = self.qx(a)
            c = self.ex(b)
            c = F.interpolate(c, size=b.shape[2:], mode="nearest")
            b = self.qmix(torch.cat([b, c], 1))
            b = F.interpolate(b, size=a.shape[2:], mode="nearest")
            return self.head(torch.cat([a, b], 1))

    return Net()


def main(argv: list[str] | None = None) -> int:
    import torch
    import torch.nn.functional as F

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--export-only", action="store_true", help="export the saved weights")
    ap.add_argument(
        "--init", help="start from these weights: a .pt file, or an exported .onnx file"
    )
    ap.add_argument("--lr", type=float, default=3e-3, help="the one-cycle's highest rate")
    ap.add_argument("--paint", type=float, default=PAINT, help="share of crops painted anew")
    ap.add_argument(
        "--worse-camera",
        type=float,
        default=WORSE_CAMERA,
        help="share of crops seen through a worse camera (more blur, glare, JPEG)",
    )
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    if a.export_only:
        net = build_net()
        net.load_state_dict(torch.load(HERE / "picasso_seg.pt"))
        export(net)
        return 0
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    pairs = load_pairs()
    order = rng.permutation(len(pairs))
    n_val = max(1, len(pairs) // 10)
    val, train = order[:n_val], order[n_val:]
    print(f"{len(pairs)} boards: {len(train)} to train, {len(val)} to validate", flush=True)
    net = build_net()
    if a.init:
        net.load_state_dict(
            state_from_onnx(a.init) if a.init.endswith(".onnx") else torch.load(a.init)
        )
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=a.lr, total_steps=a.steps, pct_start=0.1
    )
    wt = torch.tensor(WEIGHTS)
    t0 = time.time()
    for step in range(a.steps):
        x, y = batch(pairs, train, rng, a.batch, a.paint, a.worse_camera)
        out = net(torch.from_numpy(x))
        out = F.interpolate(out, size=y.shape[1:], mode="bilinear", align_corners=False)
        loss = F.cross_entropy(out, torch.from_numpy(y), weight=wt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % 200 == 0:
            print(f"step {step + 1}: loss {loss.item():.4f} ({time.time() - t0:.0f} s)", flush=True)
            torch.save(net.state_dict(), HERE / "picasso_seg.pt")
    torch.save(net.state_dict(), HERE / "picasso_seg.pt")
    evaluate(net, [pairs[i] for i in val])
    export(net)
    return 0


def state_from_onnx(path: str) -> dict:
    """The torch weights of ``build_net`` from a model ``export`` wrote: each split join's
    two halves concatenated again (fine level first, as ``forward`` joins them), the last
    biases raised back by the log of the class weights."""
    import onnx
    import torch
    from onnx import numpy_helper

    model = onnx.load(path)
    found = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    state = {}
    for name in ("hx.0", "hx.2", "qx.0", "qx.2", "ex.0", "ex.2", "head.2"):
        state[name + ".weight"] = found[name + ".weight"]
        state[name + ".bias"] = found[name + ".bias"]
    for name, node in (("qmix.0", "/qmix/qmix.0/Conv"), ("head.0", "/head/head.0/Conv")):
        halves = (found[node + ".w_fine"], found[node + ".w_coarse"])
        state[name + ".weight"] = np.concatenate(halves, axis=1)
        state[name + ".bias"] = found[name + ".bias"]
    state["head.2.bias"] = state["head.2.bias"] + np.log(np.array(WEIGHTS, np.float32))
    return {k: torch.from_numpy(np.array(v, np.float32)) for k, v in state.items()}


def evaluate(net, pairs) -> None:
    import torch
    import torch.nn.functional as F

    fix = torch.log(torch.tensor(WEIGHTS))[None, :, None, None]

    inter = np.zeros(len(CLASSES))
    union = np.zeros(len(CLASSES))
    net.eval()
    with torch.no_grad():
        for img, cls in pairs:
            x = torch.from_numpy(model_input(img, classify(img, DEFAULT_PROFILE)))
            out = F.interpolate(net(x) - fix, size=cls.shape, mode="bilinear", align_corners=False)
            pred = out.argmax(1)[0].numpy()
            for k in range(len(CLASSES)):
                inter[k] += np.sum((pred == k) & (cls == k))
                union[k] += np.sum((pred == k) | (cls == k))
    for k, name in enumerate(CLASSES):
        print(f"IoU {name}: {inter[k] / max(union[k], 1):.3f}")


def export(net) -> None:
    """Write the ONNX file, its last layer's biases lowered by the log of the class weights
    (the weighted loss's optimum is the class probability times its weight: this undoes it,
    so that a stick's edge lies where stick and canvas are equally likely) and its joins
    split (``split_joins``), and the manifest entry."""
    import copy

    import torch

    net = copy.deepcopy(net)
    with torch.no_grad():
        net.head[-1].bias -= torch.log(torch.tensor(WEIGHTS))
    net.eval()
    x = torch.zeros(1, IN_CHANNELS, 390, 540)
    torch.onnx.export(
        net,
        x,
        str(ONNX_FILE),
        input_names=["canvas"],
        output_names=["logits"],
        dynamic_axes={"canvas": {2: "h", 3: "w"}, "logits": {2: "h2", 3: "w2"}},
        opset_version=17,
        dynamo=False,
    )
    import onnx

    from models.picasso_seg.split_joins import split_joins

    onnx.save(split_joins(onnx.load(str(ONNX_FILE))), str(ONNX_FILE))
    digest = hashlib.sha256(ONNX_FILE.read_bytes()).hexdigest()
    man = json.loads(MANIFEST.read_text(encoding="utf-8"))
    man["models"]["picasso_seg"] = {
        "file": "picasso_seg/picasso_seg.onnx",
        "sha256": digest,
        "input": {"name": "canvas", "shape": [1, IN_CHANNELS, None, None], "dtype": "float32"},
        "output": {"name": "logits"},
        "normalisation": {
            "canvas": "vision/picasso/pixel_model.py model_input(): the normalised canvas "
            "(segment.normalise, canvas = 200) as BGR / 255, then the colour table's classes "
            "(segment.classify with the kit profile) as 0/1 planes: wood, dark, grey, other, "
            "any shape colour; channels first; height and width padded to multiples of 8 "
            "by repeating the last rows and columns (the joins upsample by 2: "
            "models/picasso_seg/split_joins.py)",
            "logits": "class logits at half resolution (ceil(H / 2), ceil(W / 2))",
        },
        "labels": list(CLASSES),
    }
    MANIFEST.write_text(json.dumps(man, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {ONNX_FILE} ({ONNX_FILE.stat().st_size} bytes) and its manifest entry")


if __name__ == "__main__":
    raise SystemExit(main())
