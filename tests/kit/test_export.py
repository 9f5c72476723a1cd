"""PNG export: every exported face of every card decodes to its own id, with OpenCV (ArUco),
zxing-cpp and pyzbar (QR); the manifest describes the files.

The full sweep exports at 150 dpi to stay fast (the front QR modules are then 3.5 px, the
markers 118 px); the default 300 dpi is checked on the Picmix deck and a sample of the rest.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import zxingcpp
from PIL import Image
from pyzbar import pyzbar

from vision.kit import geometry as g
from vision.kit.codes import card_for_marker, parse_payload
from vision.kit.decks import GAMES, load_deck
from vision.kit.export import export_deck
from vision.kit.render import render_face

_PARAMS = cv2.aruco.DetectorParameters()
_PARAMS.minMarkerPerimeterRate = 0.6  # the markers are 20 mm on a face at most 88 mm long
_DETECTOR = cv2.aruco.ArucoDetector(
    cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000), _PARAMS
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("export")
    return {game: export_deck(game, root / game, px_per_mm=150 / 25.4).parent for game in GAMES}


def _decode(path: Path) -> dict[str, Any]:
    """Everything the three readers find in one PNG."""
    with Image.open(path) as im:
        dpi = im.info.get("dpi")
        grey = np.asarray(im.convert("L"))
    _corners, ids, _ = _DETECTOR.detectMarkers(grey)
    zx = [r.text for r in zxingcpp.read_barcodes(grey, formats=zxingcpp.BarcodeFormat.QRCode)]
    zb = [s.data for s in pyzbar.decode(grey, symbols=[pyzbar.ZBarSymbol.QRCODE])]
    return {
        "dpi": dpi,
        "shape": grey.shape,
        "aruco": [] if ids is None else sorted(int(i) for i in ids.ravel()),
        "zxing": zx,
        "pyzbar": zb,
    }


def _check_deck(folder: Path, dpi: float, ids: list[str] | None = None) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    entries = {c["id"]: c for c in manifest["cards"]}
    assert list(entries) == (ids or list(load_deck(manifest["game"]).ids))
    assert len(list(folder.glob("*.png"))) == 2 * len(entries)
    jobs = [
        (cid, face, folder / e["faces"][face]["file"])
        for cid, e in entries.items()
        for face in g.FACES
    ]
    with ThreadPoolExecutor(2) as pool:  # the readers release the GIL
        results = list(pool.map(lambda job: _decode(job[2]), jobs))
    problems = []
    for (cid, face, _), got in zip(jobs, results, strict=True):
        fe = entries[cid]["faces"][face]
        w_mm, h_mm = entries[cid]["size_mm"]
        ppm = dpi / 25.4
        if got["shape"] != (round(h_mm * ppm), round(w_mm * ppm)):
            problems.append((cid, face, "size", got["shape"]))
        if got["dpi"] is None or abs(got["dpi"][0] - dpi) > 0.05:  # PNG stores px per metre
            problems.append((cid, face, "dpi", got["dpi"]))
        if got["aruco"] != [fe["marker_id"]] * 2 or card_for_marker(fe["marker_id"]) != (cid, face):
            problems.append((cid, face, "aruco", got["aruco"]))
        want_qr = [] if fe["qr"] is None else [fe["qr"]]
        if got["zxing"] != want_qr:
            problems.append((cid, face, "zxing", got["zxing"]))
        if [b.decode() for b in got["pyzbar"]] != want_qr:
            problems.append((cid, face, "pyzbar", got["pyzbar"]))
        for text in got["zxing"] + got["pyzbar"]:
            if parse_payload(text) != (cid, face):
                problems.append((cid, face, "payload", text))
    assert not problems, problems[:20]


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_exported_face_decodes_to_its_own_id(exported: dict[str, Path], game: str) -> None:
    _check_deck(exported[game], 150.0)


def test_default_export_is_300_dpi_and_decodes(tmp_path: Path) -> None:
    some = ["picmix-obj-01", "picmix-obj-02", "picmix-red-1", "picmix-teal-4"]
    folder = export_deck("picmix", tmp_path / "picmix", cards=some).parent
    _check_deck(folder, 300.0, some)


@pytest.mark.parametrize(
    "card_id", ["pickpic-013", "picflip-052", "picflip-cover-2", "picasso-044"]
)
def test_sample_faces_decode_at_300_dpi(card_id: str) -> None:
    for face in g.FACES:
        grey = cv2.cvtColor(render_face(card_id, face), cv2.COLOR_BGR2GRAY)
        _, ids, _ = _DETECTOR.detectMarkers(grey)
        assert ids is not None and {card_for_marker(int(i)) for i in ids.ravel()} == {
            (card_id, face)
        }
        texts = [r.text for r in zxingcpp.read_barcodes(grey)]
        texts += [s.data.decode() for s in pyzbar.decode(grey)]
        assert all(parse_payload(t) == (card_id, face) for t in texts)


def test_manifest_content(exported: dict[str, Path]) -> None:
    m = json.loads((exported["picmix"] / "manifest.json").read_text())
    assert m["manifest_version"] == 1 and m["marker_dictionary"] == "DICT_4X4_1000"
    assert m["qr_payload_scheme"] == "PT1:<CARD-ID>:<F|B>"
    player = next(c for c in m["cards"] if c["id"] == "picmix-blue-1")
    assert player["size_mm"] == [88.0, 63.0] and player["colour"] == "blue"
    assert player["faces"]["front"]["items"] == {"left": "sun", "right": "fish"}
    assert player["faces"]["back"]["items"] == {"left": "key", "right": "moon"}
    assert player["faces"]["front"]["qr"] is None
    objective = next(c for c in m["cards"] if c["id"] == "picmix-obj-25")
    assert 3 <= len(objective["items"]) <= 4
    words = json.loads((exported["picasso"] / "manifest.json").read_text())["cards"]
    assert [c["word"] for c in words[:3]] == ["cat", "dog", "fish"]
    flips = json.loads((exported["picflip"] / "manifest.json").read_text())["cards"]
    assert len(flips[0]["pictures"]) == 2 and "description" in flips[0]["pictures"][0]
    photos = json.loads((exported["pickpic"] / "manifest.json").read_text())["cards"]
    assert photos[0]["faces"]["back"]["qr"] == "PT1:PICKPIC-001:B"
    assert len(list(exported["pickpic"].glob("*.png"))) == 240
