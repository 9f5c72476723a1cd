"""Picmix decks whose art pictable has never seen: items learnt from photos of the card faces.

``register_deck(name, photos)`` finds the two items of each photographed player face (the
same ink blobs and item model as the verifier), embeds them, and keeps one *prototype* per
item: the mean embedding over the photos (each photo also seen turned by quarter turns and
slightly blurred). The verifier then names items by the nearest prototype (``ItemDeck``), with
no retraining. Item names come from the photo's file name, ``LEFT+RIGHT.jpg`` (for example
``sun+fish.jpg``); otherwise they are numbered ``item-01``, ``item-02``... and the same item
photographed twice (embeddings closer than ``SAME_ITEM_COS``) is one item.

Registered decks are JSON files ``<decks dir>/picmix/<NAME>.json``: the decks dir is
``$PICTABLE_DECKS``, else ``$XDG_DATA_HOME/pictable/decks`` (``~/.local/share/...``).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.picmix.crops import blob_crops
from vision.picmix.ink import candidates, ink_map
from vision.picmix.markers import read_marker
from vision.picmix.model import ItemDeck, ItemModel, load_item_model

DECK_VERSION = 1
SAME_ITEM_COS = 0.92
CARD_LONG_PX = 150
"""A photographed face is brought to this long side (px) before its items are read, about the
size cards have at table distance (items 45-55 px)."""
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.'-]{0,39}$")


def decks_dir() -> Path:
    """``$PICTABLE_DECKS``, else ``$XDG_DATA_HOME/pictable/decks`` (``~/.local/share``)."""
    env = os.environ.get("PICTABLE_DECKS")
    if env:
        return Path(env).expanduser()
    home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(home).expanduser() / "pictable" / "decks"


def deck_path(name: str) -> Path:
    """The file of registered deck ``name`` (``ValueError`` for a name that is not allowed)."""
    if not NAME_RE.match(name) or name == "picmix":
        raise ValueError(
            f"deck name {name!r}: 1-40 letters, digits, spaces, '_', '.', \"'\" or '-', "
            "starting with a letter or digit, and not 'picmix' (the kit's deck)"
        )
    return decks_dir() / "picmix" / f"{name}.json"


def card_face(photo: np.ndarray) -> np.ndarray:
    """The card face in ``photo`` ((H, W, 3) uint8 BGR) as a landscape image ``CARD_LONG_PX``
    wide on a white margin: the largest bright quadrilateral warped flat, or the whole photo
    when none is found."""
    h, w = photo.shape[:2]
    k = 600 / max(h, w)
    small = cv2.resize(photo, None, fx=k, fy=k, interpolation=cv2.INTER_AREA) if k < 1 else photo
    k = min(k, 1.0)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    _, mask = cv2.threshold(
        cv2.GaussianBlur(grey, (5, 5), 0), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU
    )
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quad: np.ndarray | None = None
    if contours:
        c = max(contours, key=cv2.contourArea)
        area = cv2.contourArea(c)
        if 0.15 * grey.size < area < 0.98 * grey.size:
            box = cv2.boxPoints(cv2.minAreaRect(c))
            if area > 0.85 * cv2.contourArea(box):
                quad = box / k
    if quad is None:
        face = photo
    else:
        q = _order(quad)
        wq = float(np.linalg.norm(q[1] - q[0]))
        hq = float(np.linalg.norm(q[3] - q[0]))
        ow, oh = (round(wq), round(hq))
        dst = np.float32([[0, 0], [ow, 0], [ow, oh], [0, oh]])
        face = cv2.warpPerspective(photo, cv2.getPerspectiveTransform(q, dst), (ow, oh))
    if face.shape[0] > face.shape[1]:
        face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
    s = CARD_LONG_PX / face.shape[1]
    face = cv2.resize(
        face, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
    )
    return cv2.copyMakeBorder(face, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))


def _order(q: np.ndarray) -> np.ndarray:
    """(4, 2) corners ordered TL, TR, BR, BL (image coordinates)."""
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # clockwise on screen starting near -pi (left)
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0).astype(np.float32)


@dataclass(frozen=True, eq=False)
class FaceItems:
    """The two items of one photographed face: embeddings (64,) float32 of the left and
    right item, and their ink areas over the card's long side squared (``vision.picmix.area``)."""

    left: np.ndarray
    right: np.ndarray
    left_ratio: float
    right_ratio: float


def face_items(photo: np.ndarray, model: ItemModel) -> FaceItems:
    """Embed the two items of the face in ``photo``: the two largest blobs the model takes for
    items, in the flattened face and its quarter-turned and blurred variants (averaged).
    ``ValueError`` when two items are not found."""
    face = card_face(photo)
    k = len(model.labels)
    lefts: list[np.ndarray] = []
    rights: list[np.ndarray] = []
    ratios: list[tuple[float, float]] = []
    for turn in range(4):
        for blur in (0.0, 0.8):
            img = np.ascontiguousarray(np.rot90(face, turn)) if turn else face
            if blur:
                img = cv2.GaussianBlur(img, (0, 0), blur)
            im = ink_map(img)
            blobs = candidates(im)
            if not blobs:
                continue
            emb, logits, bg, _ = model.run(blob_crops(im, blobs))
            # art never seen is not named by the model's classes, so "not an item" is only
            # trusted when sure; printed markers are left out by reading them
            p_bg = 1 / (1 + np.exp(-(bg - logits.max(axis=1))))
            grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            items = [
                (b, e)
                for b, e, pb in zip(blobs, emb, p_bg, strict=True)
                if pb < 0.95 and read_marker(grey, im, b) is None
            ]
            items.sort(key=lambda t: -t[0].area_px)
            if len(items) < 2:
                continue
            a, b = items[0], items[1]
            # back to the unturned face: which of the two is left
            ca = _unturn(a[0].centre_px, turn, img.shape)
            cb = _unturn(b[0].centre_px, turn, img.shape)
            first, second = (a, b) if ca[0] <= cb[0] else (b, a)
            lefts.append(first[1])
            rights.append(second[1])
            if not blur:
                ratios.append(
                    (first[0].area_px / CARD_LONG_PX**2, second[0].area_px / CARD_LONG_PX**2)
                )
    del k
    if not lefts:
        raise ValueError("could not find the face's two items in the photo")
    lr = np.median(np.asarray(ratios), axis=0) if ratios else np.zeros(2)
    return FaceItems(
        _unit(np.mean(lefts, axis=0)),
        _unit(np.mean(rights, axis=0)),
        float(lr[0]),
        float(lr[1]),
    )


def _unturn(pt: tuple[float, float], turn: int, shape: tuple[int, ...]) -> tuple[float, float]:
    """A point of ``np.rot90(face, turn)`` (shape ``shape``) back in the face's pixels."""
    x, y = pt
    h, w = shape[:2]
    for _ in range(turn):  # undo one counter-clockwise quarter turn at a time
        x, y, h, w = w - 1 - y, x, w, h
    return x, y


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


def names_from_stem(stem: str) -> tuple[str, str] | None:
    """``"sun+fish"`` -> ("sun", "fish"); None when the stem does not name two items."""
    parts = [p.strip() for p in stem.split("+")]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    return None


def register_deck(
    name: str, photos: Sequence[tuple[str, np.ndarray]], model: ItemModel | None = None
) -> tuple[Path, ItemDeck]:
    """Learn a deck from ``photos`` ((file name, image) of player card faces), save it, and
    return (its file, the deck). ``ValueError`` for a bad name or a photo without two items."""
    path = deck_path(name)
    model = model or load_item_model()
    named: dict[str, list[np.ndarray]] = {}
    unnamed: list[tuple[np.ndarray, float]] = []
    area: dict[str, list[float]] = {}
    for fname, photo in photos:
        try:
            fi = face_items(photo, model)
        except ValueError as exc:
            raise ValueError(f"{fname}: {exc}") from None
        pair = names_from_stem(Path(fname).stem)
        if pair is None:
            unnamed.extend([(fi.left, fi.left_ratio), (fi.right, fi.right_ratio)])
        else:
            named.setdefault(pair[0], []).append(fi.left)
            named.setdefault(pair[1], []).append(fi.right)
            area.setdefault(pair[0], []).append(fi.left_ratio)
            area.setdefault(pair[1], []).append(fi.right_ratio)
    protos = {k: _unit(np.mean(v, axis=0)) for k, v in named.items()}
    counts = {k: len(v) for k, v in named.items()}
    n = 0
    for e, ratio in unnamed:
        best = max(protos, key=lambda k: float(protos[k] @ e), default=None)
        if best is not None and float(protos[best] @ e) >= SAME_ITEM_COS:
            c = counts[best]
            protos[best] = _unit(protos[best] * c + e)
            counts[best] = c + 1
            area.setdefault(best, []).append(ratio)
            continue
        n += 1
        while f"item-{n:02d}" in protos:
            n += 1
        protos[f"item-{n:02d}"] = e
        counts[f"item-{n:02d}"] = 1
        area[f"item-{n:02d}"] = [ratio]
    items = sorted(protos)
    doc = {
        "deck_version": DECK_VERSION,
        "game": "picmix",
        "name": name,
        "items": [
            {
                "name": k,
                "photos": counts[k],
                "area_ratio": round(float(np.median(area.get(k, [0.0]))), 6),
                "prototype": [round(float(x), 6) for x in protos[k]],
            }
            for k in items
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return path, _deck_from_doc(doc)


def _deck_from_doc(doc: dict[str, object]) -> ItemDeck:
    """The ``ItemDeck`` of a deck file's JSON (``ValueError`` when it is malformed)."""
    items = doc.get("items")
    if not isinstance(items, list) or not items:
        raise ValueError("deck file has no items")
    names = tuple(str(i["name"]) for i in items)
    protos = np.array([i["prototype"] for i in items], np.float32)
    if protos.ndim != 2 or protos.shape[1] != 64:
        raise ValueError(f"deck prototypes must be (K, 64), got {protos.shape}")
    protos /= np.maximum(np.linalg.norm(protos, axis=1, keepdims=True), 1e-9)
    ratios = {str(i["name"]): float(i.get("area_ratio", 0.0)) for i in items}
    ratios = {k: v for k, v in ratios.items() if v > 0}
    return ItemDeck(str(doc.get("name")), names, protos, (), {}, ratios)


def load_registered(name: str) -> ItemDeck:
    """The registered deck ``name`` (``ValueError`` when there is none or it is damaged)."""
    path = deck_path(name)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"no deck {name!r} (looked for {path}); register it with "
            f"`pictable deck register picmix {name} IMAGES...`"
        ) from None
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"deck {name!r} ({path}) cannot be read: {exc}") from None
    if not isinstance(doc, dict) or doc.get("game") != "picmix":
        raise ValueError(f"{path} is not a Picmix deck")
    return _deck_from_doc(doc)
