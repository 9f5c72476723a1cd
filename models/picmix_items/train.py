"""Train the Picmix item model and export it to ONNX.

    python -m models.picmix_items.train --data DATA_DIR --out models/picmix_items [--epochs 14]

``DATA_DIR`` holds the shards ``make_data.py`` writes (``shard_<seed>.npz``: crops, classes,
visible shares of the blobs of composed scenes); shards whose seed is in ``--val-seeds`` are
held out for the figures printed at the end. Needs torch (``pip install torch``), which
pictable itself never imports: the run-time model is the ONNX file.

The network (``ItemNet``, about 2.9 M multiply-adds per crop) reads a (2, 32, 32) crop
(``vision.picmix.crops``) and gives

- ``emb`` (N, 64): an L2-normalised embedding; the 83 pictograms' class vectors are its
  prototypes (``logits`` = ``SCALE`` x cosine), and a registered deck's prototypes are mean
  embeddings of its photographed items, so new art needs no retraining;
- ``bg`` (N, 1): the logit of "not an item" (markers, text, hands, table), compared with the
  cosine logits in one softmax;
- ``visible`` (N, 1): the share (0..1) of the item's printed area that shows in the blob.

Losses: CosFace (margin ``MARGIN``) cross-entropy over the 83 classes plus background, each
item sample weighted by min(1, visible / 0.4) so that slivers teach little; smooth-L1 on
``visible`` (0 for background).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.kit.pictograms import GLYPH_NAMES

EMB_DIM = 64
HIDDEN = 128
SCALE = 16.0
MARGIN = 0.15
N_CLASSES = len(GLYPH_NAMES)


class ItemNet(nn.Module):
    """Small CNN: three conv stages (16, 32, 64 channels) on 32x32, a 128-unit layer, heads."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()
            )

        self.features = nn.Sequential(
            block(2, 16),
            nn.MaxPool2d(2),
            block(16, 32),
            nn.MaxPool2d(2),
            block(32, 64),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(64 * 4 * 4, HIDDEN),
            nn.ReLU(),
        )
        self.emb = nn.Linear(HIDDEN, EMB_DIM)
        self.bg = nn.Linear(HIDDEN, 1)
        self.vis = nn.Linear(HIDDEN, 1)
        self.classes = nn.Parameter(torch.randn(N_CLASSES, EMB_DIM) * 0.1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = self.features(x)
        e = F.normalize(self.emb(h), dim=1)
        cos = e @ F.normalize(self.classes, dim=1).T
        return e, cos, self.bg(h), torch.sigmoid(self.vis(h))


class Exported(nn.Module):
    """What the ONNX file computes: emb, logits (SCALE x cosine), bg, visible."""

    def __init__(self, net: ItemNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        e, cos, bg, vis = self.net(x)
        return e, SCALE * cos, bg, vis


def load_shards(data: Path, seeds: set[int] | None, exclude: set[int]) -> dict[str, np.ndarray]:
    """The shards of ``data`` (only ``seeds`` when given, never ``exclude``), concatenated."""
    parts: dict[str, list[np.ndarray]] = {"crops": [], "cls": [], "visible": []}
    for path in sorted(data.glob("shard_*.npz")):
        if not path.stem.split("_")[1].isdigit():
            continue  # a shard still being written
        seed = int(path.stem.split("_")[1])
        if (seeds is not None and seed not in seeds) or seed in exclude:
            continue
        z = np.load(path)
        for k in parts:
            parts[k].append(z[k])
    if not parts["crops"]:
        raise SystemExit(f"no shards in {data}")
    return {k: np.concatenate(v) for k, v in parts.items()}


def losses(
    net: ItemNet, x: torch.Tensor, cls: torch.Tensor, vis: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(class loss, visible-share loss) of a batch: crops x (B, 2, 32, 32), classes (B,)
    (-1 background), visible shares (B,)."""
    _, cos, bg, pv = net(x)
    is_item = cls >= 0
    target = torch.where(is_item, cls, torch.full_like(cls, N_CLASSES))
    margin = torch.zeros_like(cos)
    idx = torch.nonzero(is_item).squeeze(1)
    margin[idx, cls[idx]] = MARGIN
    logits = torch.cat([SCALE * (cos - margin), bg], dim=1)
    weight = torch.where(is_item, torch.clamp(vis / 0.4, max=1.0), torch.ones_like(vis))
    ce = (F.cross_entropy(logits, target, reduction="none") * weight).sum() / weight.sum()
    reg = F.smooth_l1_loss(pv.squeeze(1), vis, beta=0.1)
    return ce, reg


def augment(x: torch.Tensor) -> torch.Tensor:
    """Random quarter turns (cards lie at any angle)."""
    k = int(torch.randint(0, 4, (1,)))
    return torch.rot90(x, k, dims=(2, 3)) if k else x


def evaluate(net: ItemNet, d: dict[str, np.ndarray]) -> dict[str, float]:
    """Held-out figures: naming accuracy of items at least 60% visible, background accuracy,
    mean absolute error of the visible share."""
    net.eval()
    with torch.no_grad():
        x = torch.from_numpy(d["crops"].astype(np.float32) / 255.0)
        _, cos, bg, pv = net(x)
        logits = torch.cat([SCALE * cos, bg], dim=1)
        pred = logits.argmax(1).numpy()
    cls, vis = d["cls"], d["visible"]
    pv_np = pv.squeeze(1).numpy()
    whole = (cls >= 0) & (vis >= 0.6)
    bgm = cls < 0
    return {
        "item_acc_vis>=0.6": float((pred[whole] == cls[whole]).mean()),
        "bg_acc": float((pred[bgm] == N_CLASSES).mean()),
        "vis_mae_items": float(np.abs(pv_np[cls >= 0] - vis[cls >= 0]).mean()),
        "vis_mae_bg": float(np.abs(pv_np[bgm]).mean()),
        "n_items": int((cls >= 0).sum()),
        "n_bg": int(bgm.sum()),
    }


def export(net: ItemNet, path: Path) -> None:
    """Write the ONNX file (opset 17, batch dimension free)."""
    net.eval()
    model = Exported(net)
    dummy = torch.zeros(1, 2, 32, 32)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        input_names=["crops"],
        output_names=["emb", "logits", "bg", "visible"],
        dynamic_axes={k: {0: "n"} for k in ("crops", "emb", "logits", "bg", "visible")},
        opset_version=17,
        dynamo=False,
    )


def manifest_entry(onnx_path: Path) -> dict[str, object]:
    """The model's entry in ``models/manifest.json`` (``models.loader``)."""
    import hashlib

    return {
        "file": f"picmix_items/{onnx_path.name}",
        "sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
        "input": {"name": "crops", "shape": [None, 2, 32, 32], "dtype": "float32"},
        "output": {"name": "logits"},
        "outputs": ["emb", "logits", "bg", "visible"],
        "normalisation": {
            "crops": "vision/picmix/crops.py: channel 0 ink map 0 (paper) .. 1 (black), "
            "channel 1 the blob's own pixels 0/1; centred on the blob, 1.3 x its longer side "
            "+ 4 px, resampled to 32 x 32",
            "logits": f"{SCALE} x cosine between emb and each label's class vector",
            "bg": "logit of 'not an item', in the same softmax as the logits",
            "visible": "share 0..1 of the item's printed area showing in the blob",
        },
        "labels": list(GLYPH_NAMES),
        "trained_by": "models/picmix_items/train.py",
        "notes": "Picmix items by their look; see models/picmix_items/README.md",
    }


def update_manifest(onnx_path: Path, manifest: Path) -> None:
    """Write this model's entry into ``manifest``, keeping every other entry as it is (the
    file is re-read just before, and replaced atomically)."""
    doc: dict[str, object] = {"format": "pictable-models", "version": 1, "models": {}}
    if manifest.is_file():
        doc = json.loads(manifest.read_text(encoding="utf-8"))
    models = doc.setdefault("models", {})
    assert isinstance(models, dict)
    models["picmix_items"] = manifest_entry(onnx_path)
    tmp = manifest.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    tmp.replace(manifest)


def main() -> None:
    """Command line: train, report, export (and update the manifest entry)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--val-seeds", default="1")
    ap.add_argument("--exclude-classes", default="", help="comma-separated glyphs left out")
    ap.add_argument("--name", default="picmix_items")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bg-keep", type=float, default=0.5, help="share of background blobs used")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--manifest", type=Path, default=None, help="update this models/manifest.json entry"
    )
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    val_seeds = {int(s) for s in args.val_seeds.split(",") if s}
    train = load_shards(args.data, None, val_seeds)
    val = load_shards(args.data, val_seeds, set())
    rng = np.random.default_rng(args.seed)
    keep = (train["cls"] >= 0) | (rng.random(len(train["cls"])) < args.bg_keep)
    train = {k: v[keep] for k, v in train.items()}
    excluded = {GLYPH_NAMES.index(n) for n in args.exclude_classes.split(",") if n}
    if excluded:  # unseen-art experiment: those items never reach training
        keep = ~np.isin(train["cls"], sorted(excluded))
        train = {k: v[keep] for k, v in train.items()}
    n_items = int((train["cls"] >= 0).sum())
    print(f"train {len(train['cls'])} blobs ({n_items} items), val {len(val['cls'])}")
    net = ItemNet()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    n = len(train["cls"])
    steps = args.epochs * math.ceil(n / 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    x_all = torch.from_numpy(train["crops"])
    c_all = torch.from_numpy(train["cls"])
    v_all = torch.from_numpy(train["visible"])
    for epoch in range(args.epochs):
        net.train()
        perm = torch.randperm(n)
        t0, tot = time.time(), 0.0
        for i in range(0, n, 256):
            b = perm[i : i + 256]
            x = augment(x_all[b].float() / 255.0)
            ce, reg = losses(net, x, c_all[b], v_all[b])
            loss = ce + 4.0 * reg
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(b)
        print(
            f"epoch {epoch}: loss {tot / n:.4f} ({time.time() - t0:.0f} s) val {evaluate(net, val)}"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    onnx_path = args.out / f"{args.name}.onnx"
    export(net, onnx_path)
    report = {"val": evaluate(net, val), "train_blobs": n, "epochs": args.epochs}
    (args.out / f"{args.name}.train.json").write_text(json.dumps(report, indent=2) + "\n")
    if args.manifest is not None:
        update_manifest(onnx_path, args.manifest)
    print(onnx_path, report)


if __name__ == "__main__":
    main()
