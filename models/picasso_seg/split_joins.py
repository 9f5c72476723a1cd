"""Make the exported pixel model cheaper to run, with the same answers: its two joins.

Where two levels of the network are joined (``train.build_net``: the eighth-resolution
level into the quarter, the quarter into the half), the coarse level is upsampled (nearest),
concatenated with the fine one, and a 1 x 1 convolution mixes them. A 1 x 1 convolution is
a sum over channels, and nearest upsampling only repeats pixels, so the two commute: the
convolution can be split in its two halves of input channels, the coarse half applied
*before* upsampling (at a quarter of the pixels), and the two results added. The network is
the same function, without the concatenations.

The upsampling is then by a constant factor of 2 (``SCALES``) instead of to the fine level's
size read from the graph: onnxruntime keeps the whole network in its blocked channel layout
only with a constant factor. So the model's input must have a height and width divisible by
8 (``vision.picasso.pixel_model.half_logits`` pads the canvas to that; with such an input,
upsampling to the fine level's size and by a factor of 2 pick the same pixels). One thread,
a 544 x 392 input: 14.5 ms a run before, 10.2 ms after.

    .venv/bin/pip install onnx                             # this step only
    .venv/bin/python -m models.picasso_seg.split_joins      # rewrites picasso_seg.onnx

``train.export`` calls ``split_joins`` on every model it writes; the command above applies it
to the file already there, checks that the answers are unchanged (``check``), and updates
the file's digest in ``models/manifest.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ONNX_FILE = HERE / "picasso_seg.onnx"
MANIFEST = ROOT / "models" / "manifest.json"
#: The name of the upsampling factor's constant (N, C, H, W).
SCALES = "join_scales"
#: The input's height and width must be multiples of this (three stride-2 levels).
MULTIPLE = 8


def split_joins(model: Any) -> Any:
    """A copy of ``model`` (an ``onnx.ModelProto``) in which every 1 x 1 convolution of a
    concatenation of a tensor and a nearest-upsampled one (``Resize``) is split as the module
    docstring says, the upsampling by a factor of 2. Raises ``ValueError`` when the graph
    has no such join."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.ModelProto.FromString(model.SerializeToString())
    g = model.graph
    made = {n.output[0]: n for n in g.node}
    inits = {t.name: t for t in g.initializer}
    consumers: dict[str, int] = {}
    for n in g.node:
        for i in n.input:
            consumers[i] = consumers.get(i, 0) + 1
    new_nodes = []
    split = 0
    for node in g.node:
        cat = made.get(node.input[0]) if node.op_type == "Conv" else None
        resize = made.get(cat.input[1]) if cat is not None and cat.op_type == "Concat" else None
        if (
            resize is None
            or resize.op_type != "Resize"
            or len(cat.input) != 2
            or consumers.get(cat.output[0], 0) != 1
            or consumers.get(resize.output[0], 0) != 1
            or not _nearest(resize)
        ):
            new_nodes.append(node)
            continue
        w = numpy_helper.to_array(inits[node.input[1]])
        if w.shape[2:] != (1, 1) or any(a.name == "group" and a.i != 1 for a in node.attribute):
            new_nodes.append(node)
            continue
        fine = _channels(g, cat.input[0], made, inits)
        if fine is None or not 0 < fine < w.shape[1]:
            new_nodes.append(node)
            continue
        base = node.name or node.output[0]
        w_fine, w_coarse = f"{base}.w_fine", f"{base}.w_coarse"
        g.initializer.extend(
            [
                numpy_helper.from_array(np.ascontiguousarray(w[:, :fine]), w_fine),
                numpy_helper.from_array(np.ascontiguousarray(w[:, fine:]), w_coarse),
            ]
        )
        if not any(t.name == SCALES for t in g.initializer):
            g.initializer.append(
                numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), SCALES)
            )
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        fine_in = [cat.input[0], w_fine] + ([node.input[2]] if len(node.input) > 2 else [])
        coarse, up = f"{base}.coarse", f"{base}.up"
        new_nodes += [
            helper.make_node("Conv", fine_in, [f"{base}.fine"], name=f"{base}.fine", **attrs),
            helper.make_node("Conv", [resize.input[0], w_coarse], [coarse], name=coarse, **attrs),
            helper.make_node(
                "Resize",
                [coarse, "", SCALES],
                [up],
                name=up,
                **{a.name: helper.get_attribute_value(a) for a in resize.attribute},
            ),
            helper.make_node("Add", [f"{base}.fine", up], [node.output[0]], name=base),
        ]
        split += 1
    if not split:
        raise ValueError("no join to split: a 1 x 1 Conv of Concat(x, Resize(y)) is looked for")
    del g.node[:]
    g.node.extend(_live(new_nodes, [o.name for o in g.output]))
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    onnx.checker.check_model(model)
    return model


def _nearest(resize: Any) -> bool:
    from onnx import helper

    attrs = {a.name: helper.get_attribute_value(a) for a in resize.attribute}
    return attrs.get("mode", b"nearest") == b"nearest" and len(resize.input) == 4


def _channels(g: Any, name: str, made: dict[str, Any], inits: dict[str, Any]) -> int | None:
    """The channel count of ``name``: the output count of the Conv it comes from (through
    element-wise activations)."""
    from onnx import numpy_helper

    node = made.get(name)
    while node is not None and node.op_type in ("Relu", "Clip", "LeakyRelu", "Sigmoid"):
        node = made.get(node.input[0])
    if node is None or node.op_type != "Conv":
        return None
    return int(numpy_helper.to_array(inits[node.input[1]]).shape[0])


def _live(nodes: list[Any], outputs: list[str]) -> list[Any]:
    """``nodes`` (in order) less those whose outputs nothing reads."""
    needed = set(outputs)
    keep = []
    for n in reversed(nodes):
        if any(o in needed for o in n.output):
            keep.append(n)
            needed.update(i for i in n.input if i)
    return keep[::-1]


def check(
    before: Any, after: Any, shapes: tuple[tuple[int, int], ...] = ((392, 544), (304, 416))
) -> float:
    """The largest difference between the two models' logits on random inputs of each
    (h, w) of ``shapes`` (multiples of ``MULTIPLE``)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    runs = [
        ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        for m in (before, after)
    ]
    rng = np.random.default_rng(0)
    worst = 0.0
    for h, w in shapes:
        x = rng.random((1, 8, h, w), np.float32)
        x[0, 3:] = x[0, 3:] > 0.7
        a, b = (r.run(None, {"canvas": x})[0] for r in runs)
        worst = max(worst, float(np.abs(a - b).max()))
    return worst


def main(argv: list[str] | None = None) -> int:
    import onnx

    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--file", type=Path, default=ONNX_FILE)
    a = ap.parse_args(argv)
    before = onnx.load(str(a.file))
    try:
        after = split_joins(before)
    except ValueError as exc:
        print(f"{a.file}: {exc}", file=sys.stderr)
        return 1
    worst = check(before, after)
    if worst > 1e-3:
        print(f"{a.file}: the split model answers differently (by {worst:.3g})", file=sys.stderr)
        return 1
    onnx.save(after, str(a.file))
    if a.file.resolve() == ONNX_FILE.resolve():
        man = json.loads(MANIFEST.read_text(encoding="utf-8"))
        man["models"]["picasso_seg"]["sha256"] = hashlib.sha256(a.file.read_bytes()).hexdigest()
        MANIFEST.write_text(json.dumps(man, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {a.file}: joins split, logits within {worst:.2g} of before")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
