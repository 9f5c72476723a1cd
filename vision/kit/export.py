"""PNG export of a deck: one image per card face, and a ``manifest.json`` describing them.

Files are ``<card-id>_<face>.png`` (RGB, with the resolution in their dpi metadata). The
manifest (``MANIFEST_VERSION``) lists, per card: its id, kind and title, its face size in mm,
and per face the file, the ArUco marker id and the rectangles of both markers (face mm), the
QR payload and rectangle (null where the face has no QR), plus the game data: Picasso word,
Pic Flip pictures, Picmix objective items, Picmix player colour and items per face and half.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

from vision.kit import geometry as g
from vision.kit.codes import PAYLOAD_SCHEME, face_codes
from vision.kit.decks import Card, load_deck, select_cards
from vision.kit.render import render_face_readonly

MANIFEST_VERSION = 1


def _rect(r: g.Rect | None) -> list[float] | None:
    return None if r is None else [round(r.x, 4), round(r.y, 4), round(r.w, 4), round(r.h, 4)]


def card_entry(card: Card, files: dict[str, str] | None = None) -> dict[str, Any]:
    """The manifest entry of ``card`` (``files``: face -> PNG file name, when exported)."""
    entry: dict[str, Any] = {
        "id": card.id,
        "kind": card.kind,
        "title": card.title,
        "size_mm": list(g.face_size_wh_mm(card.id)),
        "faces": {},
    }
    for face in g.FACES:
        fc = face_codes(card.id, face)
        fe: dict[str, Any] = {
            "marker_id": fc.marker_id,
            "markers_mm": [_rect(r) for r in fc.marker_rects],
            "qr": fc.qr_payload,
            "qr_mm": _rect(fc.qr_rect),
        }
        if files is not None:
            fe["file"] = files[face]
        if card.faces is not None:
            f = card.faces[0] if face == "front" else card.faces[1]
            fe["items"] = {"left": f.left, "right": f.right}
            fe["item_boxes_mm"] = {h: _rect(g.PICMIX_ITEM_BOXES[h]) for h in g.HALVES}
        entry["faces"][face] = fe
    if card.word is not None:
        entry["word"] = card.word
        entry["pictogram"] = card.glyph
    if card.pictures:
        entry["pictures"] = [
            {
                "glyph": p.glyph,
                "colour": p.colour,
                "background": p.background,
                "count": p.count,
                "description": p.description,
            }
            for p in card.pictures
        ]
    if card.items:
        entry["items"] = list(card.items)
    if card.colour is not None:
        entry["colour"] = card.colour
    if card.photo is not None:
        entry["photo"] = {
            "source": card.photo.source,
            "box": card.photo.box,
            "grade": card.photo.grade,
            "flip": card.photo.flip,
        }
    return entry


def manifest(
    game: str,
    px_per_mm: float = g.DEFAULT_PX_PER_MM,
    files: dict[str, dict[str, str]] | None = None,
    cards: Sequence[Card] | None = None,
) -> dict[str, Any]:
    """The manifest of ``game`` (``files``: card id -> face -> file name; ``cards``: only
    these cards, default the whole deck)."""
    deck = load_deck(game).cards if cards is None else cards
    return {
        "manifest_version": MANIFEST_VERSION,
        "game": game,
        "px_per_mm": px_per_mm,
        "dpi": round(px_per_mm * g.MM_PER_INCH, 3),
        "marker_dictionary": g.CARD_MARKER_DICTIONARY,
        "qr_payload_scheme": f"{PAYLOAD_SCHEME}:<CARD-ID>:<F|B>",
        "cards": [card_entry(c, None if files is None else files[c.id]) for c in deck],
    }


def face_file_name(card_id: str, face: str) -> str:
    return f"{card_id}_{face}.png"


def _write_face(
    card_id: str, face: g.Face, path: Path, px_per_mm: float, compress_level: int
) -> None:
    rgb = cv2.cvtColor(render_face_readonly(card_id, face, px_per_mm), cv2.COLOR_BGR2RGB)
    dpi = px_per_mm * g.MM_PER_INCH
    Image.fromarray(rgb).save(path, dpi=(dpi, dpi), compress_level=compress_level)


def export_deck(
    game: str,
    out_dir: str | Path,
    px_per_mm: float = g.DEFAULT_PX_PER_MM,
    progress: bool = False,
    compress_level: int = 1,
    workers: int | None = None,
    cards: Sequence[str] | None = None,
) -> Path:
    """Write one PNG per card face of ``game`` into ``out_dir`` (created if needed) and the
    ``manifest.json``; returns the manifest's path.

    ``progress`` shows a tqdm bar on stderr; ``workers`` threads render and encode faces in
    parallel (default: one per CPU; NumPy, OpenCV and zlib release the GIL). ``cards``
    exports only those cards (the manifest then lists only them).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chosen = select_cards(game, cards)
    jobs = [(c.id, face) for c in chosen for face in g.FACES]
    files: dict[str, dict[str, str]] = {}
    for cid, face in jobs:
        files.setdefault(cid, {})[face] = face_file_name(cid, face)
    n_workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    if n_workers == 1:  # in this thread (simpler to profile and debug)
        for cid, face in jobs:
            _write_face(cid, face, out / files[cid][face], px_per_mm, compress_level)
    else:
        _write_parallel(jobs, files, out, px_per_mm, compress_level, n_workers, progress, game)
    path = out / "manifest.json"
    path.write_text(json.dumps(manifest(game, px_per_mm, files, chosen), indent=1) + "\n")
    return path


def _write_parallel(
    jobs: list[tuple[str, g.Face]],
    files: dict[str, dict[str, str]],
    out: Path,
    px_per_mm: float,
    compress_level: int,
    n_workers: int,
    progress: bool,
    game: str,
) -> None:
    with ThreadPoolExecutor(n_workers) as pool:
        futures = [
            pool.submit(_write_face, cid, face, out / files[cid][face], px_per_mm, compress_level)
            for cid, face in jobs
        ]
        done: Iterable[Future[None]] = as_completed(futures)
        if progress:
            from tqdm import tqdm

            done = tqdm(
                done,
                total=len(futures),
                unit="face",
                desc=f"exporting {game}",
                leave=False,
                disable=None,
            )
        for fut in done:
            fut.result()  # re-raise the first failure (e.g. an unwritable directory)


SAMPLE_FACES: tuple[tuple[str, g.Face], ...] = (
    ("pickpic-002", "front"),
    ("pickpic-002", "back"),
    ("picflip-007", "front"),
    ("picasso-001", "front"),
    ("picmix-obj-02", "front"),
    ("picmix-red-2", "front"),
    ("picmix-blue-2", "back"),
)


def sample_sheet(px_per_mm: float = 3.2) -> np.ndarray:
    """A few card faces side by side on grey (the portrait ones, then the Picmix player cards
    below), as an (H, W, 3) uint8 BGR image: the picture of docs/kit-sample.png."""
    faces = [render_face_readonly(c, f, px_per_mm) for c, f in SAMPLE_FACES]
    top = [f for f in faces if f.shape[0] > f.shape[1]]
    bottom = [f for f in faces if f.shape[0] <= f.shape[1]]
    gap = 14
    widths = [sum(f.shape[1] for f in row) + gap * (len(row) + 1) for row in (top, bottom)]
    h_top, h_bottom = max(f.shape[0] for f in top), max(f.shape[0] for f in bottom)
    canvas = np.full((h_top + h_bottom + 3 * gap, max(widths), 3), 236, np.uint8)

    def put(img: np.ndarray, x: int, y: int) -> None:
        pad = 6
        m = np.zeros((img.shape[0] + 2 * pad, img.shape[1] + 2 * pad), np.float32)
        m[pad:-pad, pad:-pad] = 1
        m = cv2.GaussianBlur(m, (0, 0), 3) * 0.35  # a soft shadow
        y0, x0 = y - pad + 3, x - pad + 3
        reg = canvas[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]].astype(np.float32)
        canvas[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]] = (reg * (1 - m[..., None])).astype(
            np.uint8
        )
        canvas[y : y + img.shape[0], x : x + img.shape[1]] = img

    for row, y, width in ((top, gap, widths[0]), (bottom, h_top + 2 * gap, widths[1])):
        x = (canvas.shape[1] - width) // 2 + gap
        for f in row:
            put(f, x, y)
            x += f.shape[1] + gap
    return canvas


def write_sample(path: str | Path) -> None:
    """Write ``sample_sheet()`` as a small palette PNG (docs/kit-sample.png)."""
    rgb = cv2.cvtColor(sample_sheet(), cv2.COLOR_BGR2RGB)
    Image.fromarray(rgb).quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(
        path, optimize=True
    )
