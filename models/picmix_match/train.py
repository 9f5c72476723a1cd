"""Train the item-matching model and export it to ONNX.

    python -m models.picmix_match.train --data DATA_DIR --out models/picmix_match \
        [--epochs 6] [--val-seeds 0] [--manifest models/manifest.json]

``DATA_DIR`` holds the shards ``make_data.py`` writes (``shard_<seed>.npz``: crops and class
ids, ``LOOKS`` looks of each class); shards whose seed is in ``--val-seeds`` hold classes
never trained on, for the figures printed at the end. Needs torch, which pictable itself
never imports: the run-time model is the ONNX file.

The network (``MatchNet``, about 2.8 M multiply-adds per crop) maps a (2, 32, 32) crop
(``vision.picmix.crops``) to an L2-normalised 64-d embedding in which two looks of one picture
lie close and looks of two pictures apart, for pictures it has never seen: a deck registered
from photos (``vision.picmix.decks``) names items by comparing their embeddings with those of
its own items' looks. Loss: CosFace (scale ``SCALE``, margin ``MARGIN``) over the training
classes (their class vectors are thrown away at export).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

EMB_DIM = 64
SCALE = 24.0
MARGIN = 0.25


class MatchNet(nn.Module):
    """Small CNN: three conv stages (16, 32, 64 channels) on 32x32, a 128-unit layer, the
    embedding (the item model's trunk, ``models/picmix_items``)."""

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
            nn.Linear(64 * 4 * 4, 128),
            nn.ReLU(),
            nn.Linear(128, EMB_DIM),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.normalize(self.features(x), dim=1)


def load_shards(data: Path, seeds: set[int] | None, exclude: set[int]) -> dict[str, np.ndarray]:
    """The shards of ``data`` (only ``seeds`` when given, never ``exclude``), concatenated."""
    crops, cls = [], []
    for path in sorted(data.glob("shard_*.npz")):
        tail = path.stem.split("_")[1]
        if not tail.isdigit():
            continue  # a shard still being written
        seed = int(tail)
        if (seeds is not None and seed not in seeds) or seed in exclude:
            continue
        z = np.load(path)
        crops.append(z["crops"])
        cls.append(z["cls"])
    if not crops:
        raise SystemExit(f"no shards in {data}")
    return {"crops": np.concatenate(crops), "cls": np.concatenate(cls)}


def evaluate(
    net: MatchNet, d: dict[str, np.ndarray], deck: int = 16, shots: int = 8
) -> dict[str, float]:
    """Few-shot naming on held-out classes: each class's first ``shots`` looks are its
    prototypes, the others are named by the mean of the 5 best cosines to each class's
    prototypes, among all held-out classes and among random decks of ``deck`` classes."""
    net.eval()
    with torch.no_grad():
        emb = torch.cat(
            [net(torch.from_numpy(d["crops"][i : i + 1024].astype(np.float32) / 255.0))
             for i in range(0, len(d["cls"]), 1024)]
        ).numpy()  # fmt: skip
    cls = d["cls"]
    ids = np.unique(cls)
    protos, queries, qcls = [], [], []
    for k in ids:
        idx = np.flatnonzero(cls == k)
        protos.append(emb[idx[:shots]])
        queries.append(emb[idx[shots:]])
        qcls += [len(protos) - 1] * len(idx[shots:])
    q = np.concatenate(queries)
    qc = np.array(qcls)
    top = min(5, shots)
    s = np.stack([np.sort(q @ p.T, axis=1)[:, -top:].mean(1) for p in protos], 1)
    acc_all = float((s.argmax(1) == qc).mean())
    rng = np.random.default_rng(0)
    hits = tot = 0
    for _ in range(50):
        pick = rng.choice(len(ids), deck, replace=False)
        m = np.isin(qc, pick)
        sub = s[m][:, pick]
        hits += int((pick[sub.argmax(1)] == qc[m]).sum())
        tot += int(m.sum())
    return {"acc_all": acc_all, f"acc_deck{deck}": hits / max(1, tot), "classes": len(ids)}


class Exported(nn.Module):
    """What the ONNX file computes: the embedding."""

    def __init__(self, net: MatchNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def export(net: MatchNet, path: Path) -> None:
    """Write the ONNX file (opset 17, batch dimension free)."""
    net.eval()
    torch.onnx.export(
        Exported(net),
        (torch.zeros(1, 2, 32, 32),),
        str(path),
        input_names=["crops"],
        output_names=["emb"],
        dynamic_axes={"crops": {0: "n"}, "emb": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )


def manifest_entry(onnx_path: Path) -> dict[str, object]:
    """The model's entry in ``models/manifest.json`` (``models.loader``)."""
    return {
        "file": f"picmix_match/{onnx_path.name}",
        "sha256": hashlib.sha256(onnx_path.read_bytes()).hexdigest(),
        "input": {"name": "crops", "shape": [None, 2, 32, 32], "dtype": "float32"},
        "output": {"name": "emb"},
        "normalisation": {
            "crops": "vision/picmix/crops.py: channel 0 ink map 0 (paper) .. 1 (black), "
            "channel 1 the blob's own pixels 0/1; centred on the blob, 1.3 x its longer side "
            "+ 4 px, resampled to 32 x 32 (the picmix_items input)",
            "emb": "L2-normalised 64-d embedding; two looks of one picture have a high cosine",
        },
        "labels": [],
        "trained_by": "models/picmix_match/train.py",
        "notes": "Picmix items of registered decks, by comparison; see its README.md",
    }


def update_manifest(onnx_path: Path, manifest: Path) -> None:
    """Write this model's entry into ``manifest``, keeping every other entry as it is (the
    file is re-read just before, and replaced atomically)."""
    doc: dict[str, object] = {"format": "pictable-models", "version": 1, "models": {}}
    if manifest.is_file():
        doc = json.loads(manifest.read_text(encoding="utf-8"))
    models = doc.setdefault("models", {})
    if not isinstance(models, dict):
        raise SystemExit(f"{manifest}: 'models' is not an object")
    models["picmix_match"] = manifest_entry(onnx_path)
    tmp = manifest.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    tmp.replace(manifest)


def main() -> None:
    """Command line: train, report, export (and update the manifest entry)."""
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--val-seeds", default="0")
    ap.add_argument("--name", default="picmix_match")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--manifest", type=Path, default=None, help="update this manifest entry")
    ap.add_argument("--init", type=Path, default=None, help="start from these weights (.pt)")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    val_seeds = {int(s) for s in args.val_seeds.split(",") if s}
    train = load_shards(args.data, None, val_seeds)
    val = load_shards(args.data, val_seeds, set())
    _, cls = np.unique(train["cls"], return_inverse=True)
    n_cls = int(cls.max()) + 1
    print(f"train {len(cls)} crops of {n_cls} classes, val {len(val['cls'])}")
    net = MatchNet()
    if args.init is not None:
        net.load_state_dict(torch.load(args.init, weights_only=True))
    proxies = nn.Parameter(torch.randn(n_cls, EMB_DIM) * 0.1)
    opt = torch.optim.AdamW([*net.parameters(), proxies], lr=3e-3, weight_decay=1e-4)
    n = len(cls)
    steps = args.epochs * math.ceil(n / 256)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    x_all = torch.from_numpy(train["crops"])
    c_all = torch.from_numpy(cls.astype(np.int64))
    for epoch in range(args.epochs):
        net.train()
        perm = torch.randperm(n)
        t0, tot = time.time(), 0.0
        for i in range(0, n, 256):
            b = perm[i : i + 256]
            x = x_all[b].float() / 255.0
            k = int(torch.randint(0, 4, (1,)))
            if k:  # quarter turns on top of the looks' own angles
                x = torch.rot90(x, k, dims=(2, 3))
            e = net(x)
            cos = e @ F.normalize(proxies, dim=1).T
            y = c_all[b]
            logits = SCALE * (cos - MARGIN * F.one_hot(y, n_cls))
            loss = F.cross_entropy(logits, y)
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
    torch.save(net.state_dict(), args.out / f"{args.name}.pt")
    export(net, onnx_path)
    report = {"val": evaluate(net, val), "train_crops": n, "classes": n_cls, "epochs": args.epochs}
    (args.out / f"{args.name}.train.json").write_text(json.dumps(report, indent=2) + "\n")
    if args.manifest is not None:
        update_manifest(onnx_path, args.manifest)
    print(onnx_path, report)


if __name__ == "__main__":
    main()
