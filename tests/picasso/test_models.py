"""The model loader: checked hashes, explicit threads, the shape model's contract."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from models.loader import MANIFEST, ModelError, load_model, read_manifest


def _copy(tmp_path: Path, sha: str | None = None) -> Path:
    entry = read_manifest()["picasso_shapes"]
    folder = tmp_path / "picasso_shapes"
    folder.mkdir()
    shutil.copy(entry.path, folder / entry.path.name)
    obj = json.loads(MANIFEST.read_text(encoding="utf-8"))
    obj["models"] = {"picasso_shapes": obj["models"]["picasso_shapes"]}
    if sha is not None:
        obj["models"]["picasso_shapes"]["sha256"] = sha
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(obj), encoding="utf-8")
    return manifest


def test_loads_and_runs_the_shape_model(tmp_path: Path) -> None:
    model = load_model("picasso_shapes", manifest=_copy(tmp_path))
    assert model.labels == ("circle", "square", "triangle", "half_circle", "not_a_shape")
    yy, xx = np.mgrid[0:32, 0:32]
    disc = (((xx - 15.5) ** 2 + (yy - 15.5) ** 2) <= (20 / 1.75) ** 2).astype(np.float32)
    p = model.run(disc.reshape(1, 1, 32, 32))
    assert p.shape == (1, 5)
    assert p.sum() == pytest.approx(1.0, abs=1e-4)
    assert model.labels[int(np.argmax(p))] == "circle"
    assert Path(model.spec.path).stat().st_size < 1_000_000


def test_refuses_a_file_whose_hash_does_not_match(tmp_path: Path) -> None:
    manifest = _copy(tmp_path, sha="0" * 64)
    with pytest.raises(ModelError, match="sha256"):
        load_model("picasso_shapes", manifest=manifest)


def test_refuses_a_changed_file(tmp_path: Path) -> None:
    manifest = _copy(tmp_path)
    path = tmp_path / "picasso_shapes" / "picasso_shapes.onnx"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="refusing"):
        load_model("picasso_shapes", manifest=manifest)


def test_unknown_model_and_missing_manifest(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no model 'nope'"):
        load_model("nope")
    with pytest.raises(ModelError, match="cannot read the model manifest"):
        load_model("picasso_shapes", manifest=tmp_path / "none.json")


def test_wrong_input_is_a_clear_value_error(tmp_path: Path) -> None:
    model = load_model("picasso_shapes", manifest=_copy(tmp_path))
    with pytest.raises(ValueError, match=r"picasso_shapes input must be \(N, 1, 32, 32\) float32"):
        model.run(np.zeros((1, 32, 32), np.float32))
    with pytest.raises(ValueError, match=r"got \(1, 1, 32, 32\) float64"):
        model.run(np.zeros((1, 1, 32, 32), np.float64))
