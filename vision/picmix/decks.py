"""Picmix decks whose art pictable has never seen: items learnt from photos of the card faces.

``register_deck(name, photos)`` finds the two items of each photographed player face (the
same ink blobs and item model as the verifier) and draws each again under many looks
(``vision.picmix.looks``: the sizes, turns, tilts, lights, blur and JPEG of a camera over the
table); the *matching model* (``models/picmix_match``) embeds every look, and those embeddings
are the item's *prototypes*. The photographed objective cards' items (black and smaller, told
apart by matching them with the faces' items) are drawn under looks of their own and add
prototypes to their items. The verifier then names a blob by its likeness to each item's
prototypes (``vision.picmix.model``), with no retraining. Item names come from the photo's
file name, ``LEFT+RIGHT.jpg`` (for example ``sun+fish.jpg``); otherwise they are numbered
``item-01``, ``item-02``... and the same item photographed twice (item-model embeddings closer
than ``SAME_ITEM_COS``) is one item. A photo named by 3 or 4 items (``sun+fish+moon.jpg``) is
an objective card's: the deck then knows that objective card (its items by name).

Registered decks are JSON files ``<decks dir>/picmix/<NAME>.json`` (``DECK_VERSION`` 3: each
item's ``looks``, the matching model's embeddings, with that model's sha256, and, as in
version 2, the item model's ``prototypes`` by size; each item's ``outlines``, its crops as the
face photos show them (``vision.picmix.shapes``; files written before have none and are read
without); ``objectives``. Version 2 files, and
version 1 files with one ``prototype`` an item, still load and name items by the item model's
embeddings): the decks dir is ``$PICTABLE_DECKS``, else ``$XDG_DATA_HOME/pictable/decks``
(``~/.local/share/...``).
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.picmix import shapes
from vision.picmix.crops import blob_crops
from vision.picmix.ink import Blob, candidates, ink_map
from vision.picmix.looks import item_looks
from vision.picmix.markers import read_marker
from vision.picmix.model import (
    MATCH_MODEL_NAME,
    ItemDeck,
    ItemModel,
    load_item_model,
    match_model_sha256,
)

DECK_VERSION = 3
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


def card_face(photo: np.ndarray, long_px: int = CARD_LONG_PX) -> np.ndarray:
    """The card face in ``photo`` ((H, W, 3) uint8 BGR) as a landscape image ``long_px``
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
    s = long_px / face.shape[1]
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
    face: np.ndarray | None = None
    """The flattened face (``card_face``) the items were found on."""
    spots: tuple[tuple[float, float, float], ...] = ()
    """(centre x, y, longer side) px of the left and right item on ``face``."""


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
        face,
        tuple((x, y, side) for x, y, side, _ in pair),
    )


LOOKS_FACE = 96
"""Looks (``vision.picmix.looks``) drawn of each item of a player face's photo."""
LOOKS_OBJECTIVE = 16
"""Looks drawn of each item of an objective card's photo (an item is on several cards)."""
OBJECTIVE_LONG_PX = 300
"""An objective card's photo is flattened to this long side (px) before its items are looked
for: its items are smaller than a player face's and lie close to its printed codes."""
OBJECTIVE_LIKENESS_MIN = 0.5
"""An item of an objective card's photo is kept (its looks added to the item's prototypes)
only when its likeness to the player faces' looks of the item its card lists reaches this."""


def outline_crops(
    face: np.ndarray, spots: tuple[tuple[float, float, float], ...]
) -> list[list[np.ndarray]]:
    """For each item at ``spots`` (centre x, y, longer side px) of the flattened ``face``, its
    crop as the verifier would take it (``vision.picmix.crops``): the blob found nearest its
    centre, within half its size (none when there is none), for ``vision.picmix.shapes``."""
    im = ink_map(face)
    blobs = candidates(im)
    out: list[list[np.ndarray]] = []
    for x, y, side in spots:
        n = _nearest(blobs, (x, y, side, 0), 1.0, 0, face.shape)
        out.append([] if n is None else [blob_crops(im, [blobs[n]])[0]])
    return out


def _seed(*parts: object) -> int:
    """A stable seed for the looks of one item of one photo."""
    return zlib.crc32("|".join(str(p) for p in parts).encode("utf-8"))


def _looks_rows(
    model: ItemModel, face: np.ndarray, spot: tuple[float, float, float], n: int, seed: int
) -> np.ndarray:
    """(M, 64) matching-model embeddings of ``n`` looks of the item at ``spot`` of ``face``."""
    return model.match(item_looks(face, spot, n, seed))


def _likeness(emb: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """(N,) mean of the 5 best cosines of each embedding (N, 64) with ``rows`` (M, 64)."""
    cos = emb @ rows.T
    top = min(5, rows.shape[0])
    return np.asarray(np.sort(cos, axis=1)[:, -top:].mean(axis=1), np.float64)


def objective_looks(
    photo: np.ndarray,
    listed: tuple[str, ...],
    model: ItemModel,
    looks: dict[str, np.ndarray],
    seed: int,
) -> dict[str, np.ndarray]:
    """Matching-model embeddings of looks of the items of the objective card in ``photo``
    (its items ``listed``), by item: the card's blobs (printed codes and surely "not an item"
    left out) are given the listed items whose player-face ``looks`` they are most like, all
    at once (an assignment); an item whose blob is not like it (``OBJECTIVE_LIKENESS_MIN``;
    merged with a code, say) gives none."""
    from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]

    names = [n for n in listed if n in looks]
    face = card_face(photo, OBJECTIVE_LONG_PX)
    im = ink_map(face)
    blobs = candidates(im)
    if not blobs or not names:
        return {}
    crops = blob_crops(im, blobs)
    _, logits, bg, _ = model.run(crops)
    p_bg = 1 / (1 + np.exp(-(bg - logits.max(axis=1))))
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    keep = [
        i
        for i, (b, pb) in enumerate(zip(blobs, p_bg, strict=True))
        if pb < 0.99
        and max(b.box_xywh[2:]) <= 3 * min(b.box_xywh[2:])
        and read_marker(grey, im, b) is None
    ]
    if not keep:
        return {}
    emb = model.match(crops[keep])
    like = np.stack([_likeness(emb, looks[n]) for n in names], axis=1)
    rows, cols = linear_sum_assignment(-like)
    out: dict[str, np.ndarray] = {}
    for r, c in zip(rows, cols, strict=True):
        if like[r, c] < OBJECTIVE_LIKENESS_MIN:
            continue
        b = blobs[keep[r]]
        spot = (b.centre_px[0], b.centre_px[1], float(max(b.box_xywh[2:])))
        out[names[c]] = _looks_rows(model, face, spot, LOOKS_OBJECTIVE, _seed(seed, names[c]))
    return out


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
    unnamed: list[tuple[np.ndarray, float, np.ndarray, list[np.ndarray]]] = []
    outlines: dict[str, list[np.ndarray]] = {}
    area: dict[str, list[float]] = {}
    looks: dict[str, list[np.ndarray]] = {}
    objectives: dict[str, tuple[str, ...]] = {}
    objective_photos: list[tuple[str, tuple[str, ...], np.ndarray]] = []
    for fname, photo in photos:
        listed = objective_from_stem(Path(fname).stem)
        if listed is not None:
            try:
                objective_items(photo, model, len(listed))
            except ValueError as exc:
                raise ValueError(f"{fname}: {exc}") from None
            objectives[Path(fname).stem] = listed
            objective_photos.append((fname, listed, photo))
            continue
        try:
            fi = face_items(photo, model)
        except ValueError as exc:
            raise ValueError(f"{fname}: {exc}") from None
        face = fi.face if fi.face is not None else card_face(photo)  # face_items sets it
        seen = [
            _looks_rows(model, face, spot, LOOKS_FACE, _seed(Path(fname).name, side))
            for side, spot in enumerate(fi.spots)
        ]
        drawn = outline_crops(face, fi.spots)
        pair = names_from_stem(Path(fname).stem)
        if pair is None:
            unnamed.extend(
                [
                    (fi.left, fi.left_ratio, seen[0], drawn[0]),
                    (fi.right, fi.right_ratio, seen[1], drawn[1]),
                ]
            )
        else:
            for item, e, ratio, rows, crop in zip(
                pair,
                (fi.left, fi.right),
                (fi.left_ratio, fi.right_ratio),
                seen,
                drawn,
                strict=True,
            ):
                named.setdefault(item, []).append(e)
                area.setdefault(item, []).append(ratio)
                looks.setdefault(item, []).append(rows)
                outlines.setdefault(item, []).extend(crop)
    protos = {k: _units(np.mean(v, axis=0)) for k, v in named.items()}
    counts = {k: len(v) for k, v in named.items()}
    n = 0
    for e, ratio, rows, crop in unnamed:
        best = max(protos, key=lambda k: float(protos[k][0] @ e[0]), default=None)
        if best is not None and float(protos[best][0] @ e[0]) >= SAME_ITEM_COS:
            c = counts[best]
            protos[best] = _units(protos[best] * c + e)
            counts[best] = c + 1
            area.setdefault(best, []).append(ratio)
            looks.setdefault(best, []).append(rows)
            outlines.setdefault(best, []).extend(crop)
            continue
        n += 1
        while f"item-{n:02d}" in protos:
            n += 1
        protos[f"item-{n:02d}"] = e
        counts[f"item-{n:02d}"] = 1
        area[f"item-{n:02d}"] = [ratio]
        looks[f"item-{n:02d}"] = [rows]
        outlines[f"item-{n:02d}"] = list(crop)
    items = sorted(protos)
    for card, listed in objectives.items():
        unknown = sorted(set(listed) - set(items))
        if unknown:
            raise ValueError(
                f"objective {card!r}: no player face shows {', '.join(unknown)} (photograph "
                "the player faces too, named LEFT+RIGHT)"
            )
    face_looks = {k: np.concatenate(v) for k, v in looks.items()}
    obj_looks: dict[str, list[np.ndarray]] = {}
    for fname, listed, photo in objective_photos:
        seed = _seed(Path(fname).name)
        for item, rows in objective_looks(photo, listed, model, face_looks, seed).items():
            obj_looks.setdefault(item, []).append(rows)

    def rounded(rows: list[np.ndarray]) -> list[list[float]]:
        return [[round(float(x), 4) for x in row] for r in rows for row in r]

    doc = {
        "deck_version": DECK_VERSION,
        "game": "picmix",
        "name": name,
        "matcher": {"model": MATCH_MODEL_NAME, "sha256": match_model_sha256()},
        "items": [
            {
                "name": k,
                "photos": counts[k],
                "area_ratio": round(float(np.median(area.get(k, [0.0]))), 6),
                "prototype": [round(float(x), 6) for x in protos[k][0]],
                "prototypes": [[round(float(x), 6) for x in row] for row in protos[k]],
                "looks": {
                    "face": rounded(looks.get(k, [])),
                    "objective": rounded(obj_looks.get(k, [])),
                },
                "outlines": [shapes.encode(c) for c in outlines.get(k, [])],
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
    matcher = _matcher_of(doc)
    rows: list[list[float]] = []
    owner: list[int] = []
    look_rows: list[list[float]] = []
    look_owner: list[int] = []
    outlines: list[np.ndarray] = []
    for k, i in enumerate(items):
        drawn = i.get("outlines") or []
        if not isinstance(drawn, list) or not all(isinstance(t, str) for t in drawn):
            raise ValueError(f"deck item {i['name']!r}: outlines must be a list of strings")
        outlines.append(shapes.templates([shapes.decode(t) for t in drawn]))
        # version 1 files hold one "prototype" per item; later ones one per size too
        more = i.get("prototypes") or [i["prototype"]]
        rows += more
        owner += [k] * len(more)
        if matcher is not None:  # version 3: the looks' matching-model embeddings
            seen = i.get("looks") or {}
            more = list(seen.get("face") or []) + list(seen.get("objective") or [])
            if not more:
                raise ValueError(f"deck item {i['name']!r} has no looks")
            look_rows += more
            look_owner += [k] * len(more)
    looks = None
    if matcher is not None:
        looks = np.array(look_rows, np.float32)
        if looks.ndim != 2 or looks.shape[1] != 64:
            raise ValueError(f"deck looks must be (L, 64), got {looks.shape}")
        looks /= np.maximum(np.linalg.norm(looks, axis=1, keepdims=True), 1e-9)
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
        str(doc.get("name")),
        names,
        protos,
        (),
        objectives,
        ratios,
        prototype_items=tuple(owner),
        matcher=matcher,
        looks=looks,
        look_items=tuple(look_owner),
        shapes=tuple(outlines) if any(len(t) for t in outlines) else (),
    )


def _matcher_of(doc: dict[str, object]) -> str | None:
    """The matching model a deck file's looks were embedded with (None: a version 1 or 2
    file, named by the item model). ``ValueError`` when it is not the model pictable has
    now: its embeddings would not compare."""
    m = doc.get("matcher")
    if m is None:
        return None
    if not isinstance(m, dict) or m.get("model") != MATCH_MODEL_NAME:
        raise ValueError(f"deck file's matcher must be {{'model': {MATCH_MODEL_NAME!r}, ...}}")
    if m.get("sha256") != match_model_sha256():
        raise ValueError(
            f"deck {doc.get('name')!r} was registered with another {MATCH_MODEL_NAME} model "
            "than this pictable's: register it again from its photos"
        )
    return MATCH_MODEL_NAME


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
