"""The item model comes through the project's one loader, whose sha256 check guards it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import models.loader as loader
from vision.picmix import model as item_model
from vision.picmix.crops import CROP_PX
from vision.picmix.model import MODEL_NAME, ItemModel


def test_manifest_entry_describes_the_model() -> None:
    spec = loader.read_manifest()[MODEL_NAME]
    assert spec.input_shape == (None, 2, CROP_PX, CROP_PX)
    assert len(spec.labels) == 83 and "sun" in spec.labels
    assert spec.raw["trained_by"] == "models/picmix_items/train.py"
    assert spec.path.stat().st_size < 1_000_000


def test_load_item_model_goes_through_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = loader.load_model

    def spy(name: str, **kw: object) -> loader.Model:
        calls.append(name)
        return real(name)

    monkeypatch.setattr(loader, "load_model", spy)
    item_model.load_item_model.cache_clear()
    try:
        m = item_model.load_item_model()
    finally:
        item_model.load_item_model.cache_clear()
    assert calls == [MODEL_NAME]
    emb, logits, bg, vis = m.run(np.zeros((3, 2, CROP_PX, CROP_PX), np.float32))
    assert emb.shape == (3, 64) and logits.shape == (3, 83) and bg.shape == vis.shape == (3,)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-4)


def test_a_changed_model_file_is_refused(tmp_path: Path) -> None:
    spec = loader.read_manifest()[MODEL_NAME]
    doc = json.loads(loader.MANIFEST.read_text(encoding="utf-8"))
    entry = doc["models"][MODEL_NAME]
    copy = tmp_path / entry["file"]
    copy.parent.mkdir(parents=True)
    shutil.copyfile(spec.path, copy)
    with copy.open("r+b") as f:  # one byte changed near the end
        f.seek(-10, 2)
        b = f.read(1)
        f.seek(-10, 2)
        f.write(bytes([b[0] ^ 0xFF]))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({**doc, "models": {MODEL_NAME: entry}}), encoding="utf-8")
    with pytest.raises(loader.ModelError, match="sha256"):
        loader.load_model(MODEL_NAME, manifest=manifest)


def test_bad_crops_are_refused(model: ItemModel) -> None:
    with pytest.raises(ValueError, match="crops must be"):
        model.run(np.zeros((2, 1, CROP_PX, CROP_PX), np.float32))
