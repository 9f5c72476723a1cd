"""Picmix decks whose art pictable has never seen: items learnt from photos of the card faces.

``register_deck(name, photos)`` finds the two items of each photographed player face (the
same ink blobs and item model as the verifier), embeds them, and keeps *prototypes* per item:
the mean embedding over the photos at each size of ``SCALES`` (each photo also seen turned by
quarter turns and slightly blurred). The verifier then names items by the nearest prototype
(``ItemDeck``), with no retraining. Item names come from the photo's file name,
``LEFT+RIGHT.jpg`` (for example ``sun+fish.jpg``); otherwise they are numbered ``item-01``,
``item-02``... and the same item photographed twice (embeddings closer than
``SAME_ITEM_COS``) is one item. A photo named by 3 or 4 items (``sun+fish+moon.jpg``) is an
objective card's: the deck then knows that objective card (its items by name).

Registered decks are JSON files ``<decks dir>/picmix/<NAME>.json`` (``DECK_VERSION`` 2: each
item's ``prototypes`` by size, ``objectives``; version 1 files, one ``prototype`` an item, still
load): the decks dir is ``$PICTABLE_DECKS``, else ``$XDG_DATA_HOME/pictable/decks``
(``~/.local/share/...``).
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
from vision.picmix.ink import Blob, candidates, ink_map
from vision.picmix.markers import read_marker
from vision.picmix.model import ItemDeck, ItemModel, load_item_model

DECK_VERSION = 2
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
    """The two items of one photographed face: embeddings (S, 64) float32 of the left and
    right item (one unit row per size in ``SCALES``), and their ink areas over the card's long
    side squared (``vision.picmix.area``)."""

    left: np.ndarray
    right: np.ndarray
    left_ratio: float
    right_ratio: float


SCALES = (1.0, 0.8, 0.6, 0.4)
"""Sizes at which a face's items are embedded, relative to ``CARD_LONG_PX``: items on the
table are 20-35 px, smaller than in a registration photo. Each size gives its own prototype
(an item is named by the nearest of its prototypes): on art the model never saw
(``vision.picmix.newart``, 30 rendered claims) this named 85% of the player items right,
against 82% with one prototype per item."""
BORDER_PX = 40
"""White margin round the flattened face (``card_face``)."""


def _variant(face: np.ndarray, scale: float, turn: int, blur: float) -> np.ndarray:
    """``face`` (with its ``BORDER_PX`` margin) shrunk by ``scale``, turned ``turn`` quarter
    turns and blurred."""
    img = face
    if scale != 1.0:
        b = BORDER_PX
        core = cv2.resize(face[b:-b, b:-b], None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        img = cv2.copyMakeBorder(core, b, b, b, b, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    if turn:
        img = np.ascontiguousarray(np.rot90(img, turn))
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    return img


def face_items(photo: np.ndarray, model: ItemModel) -> FaceItems:
    """Embed the two items of the face in ``photo``: the two largest blobs the model takes for
    items (printed codes left out), found on the flattened face, then embedded at each size
    of ``SCALES`` (quarter turns and a slight blur averaged). ``ValueError`` when two items
    are not found."""
    face = card_face(photo)
    pair = _find_pair(face, model)
    if pair is None:
        raise ValueError("could not find the face's two items in the photo")
    rows: list[list[np.ndarray]] = [[], []]
    for scale in SCALES:
        sides: list[list[np.ndarray]] = [[], []]
        for turn in range(4):
            for blur in (0.0, 0.8):
                img = _variant(face, scale, turn, blur)
                vim = ink_map(img)
                vblobs = candidates(vim)
                if not vblobs:
                    continue
                vemb = model.run(blob_crops(vim, vblobs))[0]
                for side, want in enumerate(pair):
                    n = _nearest(vblobs, want, scale, turn, img.shape)
                    if n is not None:
                        sides[side].append(vemb[n])
        for side in (0, 1):
            if sides[side]:
                rows[side].append(_unit(np.mean(sides[side], axis=0)))
            elif rows[side]:  # lost at this size (too small): the larger size's stands in
                rows[side].append(rows[side][-1])
            else:
                raise ValueError("could not find the face's two items in the photo")
    long_px = max(face.shape[:2]) - 2 * BORDER_PX
    return FaceItems(
        np.stack(rows[0]),
        np.stack(rows[1]),
        pair[0][3] / long_px**2,
        pair[1][3] / long_px**2,
    )


_Spot = tuple[float, float, float, int]  # centre x, y (face px), longer side (px), area (px)


def _find_pair(face: np.ndarray, model: ItemModel) -> tuple[_Spot, _Spot] | None:
    """(left, right) items of the flattened face: the two largest blobs that are neither
    surely "not an item" nor a printed code, in the first of the face's quarter turns and
    blurs where there are two; None when there are never two."""
    for turn in range(4):
        for blur in (0.0, 0.8):
            img = _variant(face, 1.0, turn, blur)
            im = ink_map(img)
            blobs = candidates(im)
            if len(blobs) < 2:
                continue
            _, logits, bg, _ = model.run(blob_crops(im, blobs))
            # art never seen is not named by the model's classes, so "not an item" is only
            # trusted when sure; printed markers are left out by reading them
            p_bg = 1 / (1 + np.exp(-(bg - logits.max(axis=1))))
            grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
            items = [b for b, pb in zip(blobs, p_bg, strict=True) if pb < 0.95]
            items = [b for b in items if read_marker(grey, im, b) is None]
            if len(items) < 2:
                continue
            items.sort(key=lambda t: -t.area_px)
            spots = []
            for b in items[:2]:
                x, y = _unturn(b.centre_px, turn, img.shape)
                spots.append((x, y, float(max(b.box_xywh[2:])), b.area_px))
            spots.sort(key=lambda t: t[0])
            return spots[0], spots[1]
    return None


def _nearest(
    blobs: list[Blob], want: _Spot, scale: float, turn: int, shape: tuple[int, ...]
) -> int | None:
    """Index of the blob of a variant (``_variant``; its image shape ``shape``) that is
    ``want`` (an item of the face), or None: the nearest centre within half its size."""
    b = BORDER_PX
    best, best_d = None, 0.5 * want[2]
    for n, blob in enumerate(blobs):
        x, y = _unturn(blob.centre_px, turn, shape)
        x, y = (x - b) / scale + b, (y - b) / scale + b
        d = float(np.hypot(x - want[0], y - want[1]))
        if d < best_d:
            best, best_d = n, d
    return best


def _unturn(pt: tuple[float, float], turn: int, shape: tuple[int, ...]) -> tuple[float, float]:
    """A point of ``np.rot90(face, turn)`` (shape ``shape``) back in the face's pixels."""
    x, y = pt
    h, w = shape[:2]
    for _ in range(turn):  # undo one counter-clockwise quarter turn at a time
        x, y, h, w = h - 1 - y, x, w, h
    return x, y


def _units(rows: np.ndarray) -> np.ndarray:
    """(S, 64) rows scaled to unit length, float32."""
    return (rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)).astype(np.float32)


def _unit(v: np.ndarray) -> np.ndarray:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


def names_from_stem(stem: str) -> tuple[str, str] | None:
    """``"sun+fish"`` -> ("sun", "fish"); None when the stem does not name two items."""
    parts = [p.strip() for p in stem.split("+")]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    return None


def objective_from_stem(stem: str) -> tuple[str, ...] | None:
    """``"sun+fish+moon"`` -> its 3 or 4 distinct items (an objective card's photo); None
    for other names."""
    parts = tuple(p.strip() for p in stem.split("+"))
    if len(parts) in (3, 4) and all(parts) and len(set(parts)) == len(parts):
        return parts
    return None


def objective_items(photo: np.ndarray, model: ItemModel, n: int) -> None:
    """Check that the objective card in ``photo`` shows items (at least 2 of its ``n``: blobs
    that are neither surely "not an item" nor a printed code); ``ValueError`` otherwise."""
    face = card_face(photo)
    im = ink_map(face)
    blobs = candidates(im)
    if blobs:
        _, logits, bg, _ = model.run(blob_crops(im, blobs))
        p_bg = 1 / (1 + np.exp(-(bg - logits.max(axis=1))))
        grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        blobs = [b for b, pb in zip(blobs, p_bg, strict=True) if pb < 0.95]
        blobs = [b for b in blobs if read_marker(grey, im, b) is None]
    if len(blobs) < min(n, 2):  # an item may touch a printed code and be missed
        raise ValueError(f"could not find the objective card's {n} items in the photo")


def register_deck(
    name: str,
    photos: Sequence[tuple[str, np.ndarray]],
    model: ItemModel | None = None,
    *,
    path: Path | None = None,
) -> tuple[Path, ItemDeck]:
    """Learn a deck from ``photos`` ((file name, image) of card faces), save it, and return
    (its file, the deck). A player face's photo is named ``LEFT+RIGHT`` (or anything else:
    its items are then numbered); an objective card's photo may be added, named by its 3 or
    4 items (``sun+fish+moon.jpg``): the deck then knows its objective cards, and the
    verifier reads an objective as the one of them its items match best. ``path``: where to
    save it (default ``deck_path(name)``). ``ValueError`` for a bad name or a photo without
    its items."""
    path = path or deck_path(name)
    model = model or load_item_model()
    named: dict[str, list[np.ndarray]] = {}
    unnamed: list[tuple[np.ndarray, float]] = []
    area: dict[str, list[float]] = {}
    objectives: dict[str, tuple[str, ...]] = {}
    for fname, photo in photos:
        listed = objective_from_stem(Path(fname).stem)
        if listed is not None:
            try:
                objective_items(photo, model, len(listed))
            except ValueError as exc:
                raise ValueError(f"{fname}: {exc}") from None
            objectives[Path(fname).stem] = listed
            continue
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
    protos = {k: _units(np.mean(v, axis=0)) for k, v in named.items()}
    counts = {k: len(v) for k, v in named.items()}
    n = 0
    for e, ratio in unnamed:
        best = max(protos, key=lambda k: float(protos[k][0] @ e[0]), default=None)
        if best is not None and float(protos[best][0] @ e[0]) >= SAME_ITEM_COS:
            c = counts[best]
            protos[best] = _units(protos[best] * c + e)
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
    for card, listed in objectives.items():
        unknown = sorted(set(listed) - set(items))
        if unknown:
            raise ValueError(
                f"objective {card!r}: no player face shows {', '.join(unknown)} (photograph "
                "the player faces too, named LEFT+RIGHT)"
            )
    doc = {
        "deck_version": DECK_VERSION,
        "game": "picmix",
        "name": name,
        "items": [
            {
                "name": k,
                "photos": counts[k],
                "area_ratio": round(float(np.median(area.get(k, [0.0]))), 6),
                "prototype": [round(float(x), 6) for x in protos[k][0]],
                "prototypes": [[round(float(x), 6) for x in row] for row in protos[k]],
            }
            for k in items
        ],
        "objectives": {card: sorted(listed) for card, listed in sorted(objectives.items())},
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
    rows: list[list[float]] = []
    owner: list[int] = []
    for k, i in enumerate(items):
        # version 1 files hold one "prototype" per item; later ones one per size too
        more = i.get("prototypes") or [i["prototype"]]
        rows += more
        owner += [k] * len(more)
    protos = np.array(rows, np.float32)
    if protos.ndim != 2 or protos.shape[1] != 64:
        raise ValueError(f"deck prototypes must be (P, 64), got {protos.shape}")
    protos /= np.maximum(np.linalg.norm(protos, axis=1, keepdims=True), 1e-9)
    ratios = {str(i["name"]): float(i.get("area_ratio", 0.0)) for i in items}
    ratios = {k: v for k, v in ratios.items() if v > 0}
    raw = doc.get("objectives") or {}
    if not isinstance(raw, dict):
        raise ValueError("deck file's objectives must be an object")
    objectives = {str(k): tuple(str(i) for i in v) for k, v in raw.items()}
    return ItemDeck(
        str(doc.get("name")), names, protos, (), objectives, ratios, prototype_items=tuple(owner)
    )


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
