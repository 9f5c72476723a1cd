"""The one model loader: ``load_model(name)``.

Every model pictable runs is an ONNX file under ``models/``, listed in ``models/manifest.json``
with everything needed to use it correctly, so that no caller carries magic numbers:

```json
{
  "format": "pictable-models",
  "version": 1,
  "models": {
    "picasso_shapes": {
      "file": "picasso_shapes/picasso_shapes.onnx",
      "sha256": "<64 hex digits of the file>",
      "input": {"name": "mask", "shape": [null, 1, 32, 32], "dtype": "float32"},
      "output": {"name": "probs"},
      "normalisation": {"...": "what the input means; free-form, documented per model"},
      "labels": ["circle", "square", "triangle", "half_circle", "not_a_shape"],
      "trained_by": "models/picasso_shapes/train.py",
      "notes": "free text"
    }
  }
}
```

``load_model`` checks the file's SHA-256 against the manifest before onnxruntime sees a byte
of it (a changed or corrupted model is refused with ``ModelError``, never run), and opens it
with explicit providers (CPU) and explicit thread counts (1 intra-op, 1 inter-op by default:
the readers run per frame beside the capture thread and must not fight over cores). Nothing
is downloaded, ever; models are built by the training script beside them.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

MODELS_DIR = Path(__file__).resolve().parent
MANIFEST = MODELS_DIR / "manifest.json"
FORMAT = "pictable-models"
VERSION = 1
PROVIDERS = ("CPUExecutionProvider",)


class ModelError(RuntimeError):
    """A model cannot be used: not in the manifest, missing, or its hash does not match."""


@dataclass(frozen=True)
class ModelSpec:
    """One manifest entry (module docstring)."""

    name: str
    path: Path
    sha256: str
    input_name: str
    input_shape: tuple[int | None, ...]
    input_dtype: str
    output_name: str | None
    labels: tuple[str, ...]
    normalisation: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True, eq=False)
class Model:
    """A loaded, checked model: ``run(x)`` gives the first output for an input batch of
    ``spec.input_shape`` (checked) and ``spec.input_dtype``."""

    spec: ModelSpec
    session: Any = field(repr=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return self.spec.labels

    def run(self, x: NDArray[Any]) -> NDArray[np.float32]:
        """The model's output for ``x`` (a batch: the manifest's input shape, ``None``
        dimensions free). Raises ``ValueError`` naming the expected shape and dtype."""
        return np.asarray(
            self._run(x, [self.spec.output_name] if self.spec.output_name else None)[0], np.float32
        )

    def run_all(self, x: NDArray[Any]) -> dict[str, NDArray[Any]]:
        """Every output of the model for ``x``, by name (checked like ``run``)."""
        names = [o.name for o in self.session.get_outputs()]
        return dict(zip(names, self._run(x, names), strict=True))

    def _run(self, x: NDArray[Any], outputs: list[str] | None) -> list[NDArray[Any]]:
        self._check(x)
        return list(self.session.run(outputs, {self.spec.input_name: x}))

    def _check(self, x: NDArray[Any]) -> None:
        want = self.spec.input_shape
        ok = (
            isinstance(x, np.ndarray)
            and x.ndim == len(want)
            and all(w is None or w == d for w, d in zip(want, x.shape, strict=True))
            and x.dtype == np.dtype(self.spec.input_dtype)
        )
        if not ok:
            got = f"{x.shape} {x.dtype}" if isinstance(x, np.ndarray) else type(x).__name__
            shape = "(" + ", ".join("N" if w is None else str(w) for w in want) + ")"
            raise ValueError(
                f"{self.spec.name} input must be {shape} {self.spec.input_dtype}, got {got}"
            )


def read_manifest(path: Path = MANIFEST) -> dict[str, ModelSpec]:
    """The manifest's entries by name; ``ModelError`` when it is missing or malformed."""
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model manifest: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}: the model manifest is not JSON: {exc}") from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT or obj.get("version") != VERSION:
        raise ModelError(f"{path}: not a {FORMAT} manifest of version {VERSION}")
    entries = obj.get("models")
    if not isinstance(entries, dict):
        raise ModelError(f'{path}: "models" must be an object')
    out: dict[str, ModelSpec] = {}
    for name, e in entries.items():
        try:
            inp = e["input"]
            spec = ModelSpec(
                name=name,
                path=(path.parent / e["file"]).resolve(),
                sha256=str(e["sha256"]).lower(),
                input_name=str(inp["name"]),
                input_shape=tuple(None if d is None else int(d) for d in inp["shape"]),
                input_dtype=str(inp.get("dtype", "float32")),
                output_name=(e.get("output") or {}).get("name"),
                labels=tuple(str(v) for v in e.get("labels", [])),
                normalisation=dict(e.get("normalisation", {})),
                raw=dict(e),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"{path}: model {name!r}: malformed entry ({exc})") from None
        if len(spec.sha256) != 64 or any(c not in "0123456789abcdef" for c in spec.sha256):
            raise ModelError(f"{path}: model {name!r}: sha256 must be 64 hex digits")
        out[name] = spec
    return out


_CACHE: dict[tuple[str, str, int, int], Model] = {}
_LOCK = threading.Lock()


def load_model(
    name: str,
    *,
    manifest: Path = MANIFEST,
    intra_op_threads: int = 1,
    inter_op_threads: int = 1,
) -> Model:
    """The model ``name`` of the manifest, its file's SHA-256 checked, opened with
    onnxruntime on ``PROVIDERS`` with the given thread counts. Loaded once per process and
    settings. Raises ``ModelError`` (unknown name, missing file, hash mismatch, a file
    onnxruntime cannot load)."""
    key = (name, str(manifest), intra_op_threads, inter_op_threads)
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            return hit
        specs = read_manifest(manifest)
        if name not in specs:
            raise ModelError(f"no model {name!r} in {manifest} (known: {sorted(specs)})")
        spec = specs[name]
        if not spec.path.is_file():
            script = spec.raw.get("trained_by", "its training script")
            raise ModelError(f"model {name!r}: {spec.path} is missing (run {script})")
        data = spec.path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != spec.sha256:
            raise ModelError(
                f"model {name!r}: {spec.path} has sha256 {digest}, the manifest says "
                f"{spec.sha256}: refusing to run a file that is not the one recorded"
            )
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = intra_op_threads
        opts.inter_op_num_threads = inter_op_threads
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        try:
            # the very bytes just checked, not the path: the file cannot change in between
            session = ort.InferenceSession(data, sess_options=opts, providers=list(PROVIDERS))
        except Exception as exc:  # onnxruntime raises its own types; say which model
            raise ModelError(
                f"model {name!r}: onnxruntime cannot load {spec.path}: {exc}"
            ) from None
        model = Model(spec, session)
        _CACHE[key] = model
        return model
