"""ArUco and AprilTag markers: OpenCV's real photos (ids and corners against their
ground truth), a custom dictionary file, several dictionaries at once, parity with OpenCV's
own detector, and no false markers in the QR photos."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.codes.helpers import marker_scene, qr_image
from vision.codes import DEFAULT_DICTIONARIES, decode_frame, load_dictionary


def _gt_cases(root: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(root.glob("*.gt.json"))]


def test_real_aruco_photos_match_ground_truth(shared_data: Path):
    """Every expected marker found with its id, corners within the stated tolerance; the
    custom 6x6 dictionary (gboriginal) is read from its .yml file."""
    root = shared_data / "opencv-aruco"
    cases = [gt for gt in _gt_cases(root) if gt.get("markers")]
    assert cases
    for gt in cases:
        image = cv2.imread(str(root / gt["image"]))
        spec = gt["dictionary"]
        dictionaries = [root / spec] if spec.endswith(".yml") else None  # None: the defaults
        codes = [c for c in decode_frame(image, dictionaries) if c.kind == "aruco"]
        tol = float(gt["corner_tolerance_px"])
        own = [c for c in codes if c.dictionary == spec]  # a custom file is named by its name
        assert len(own) == gt["expected_marker_count"], (gt["image"], len(own))
        for m in gt["markers"]:
            found = [c for c in own if c.id == m["id"]]
            assert len(found) == 1, (gt["image"], m["id"])
            err = np.abs(found[0].corners_px - np.array(m["corners"], np.float32)).max()
            assert err <= tol, (gt["image"], m["id"], err)


def test_same_ids_and_corners_as_opencv_on_real_photos(shared_data: Path):
    """Parity with OpenCV's own ArucoDetector (default parameters) on the real photos."""
    root = shared_data / "opencv-aruco"
    for gt in _gt_cases(root):
        image = cv2.imread(str(root / gt["image"]))
        spec = gt["dictionary"]
        if spec.endswith(".yml"):
            ref_dict = cv2.aruco.Dictionary()
            storage = cv2.FileStorage(str(root / spec), cv2.FILE_STORAGE_READ)
            assert ref_dict.readDictionary(storage.root())
            mine = decode_frame(image, [root / spec], qr=False)
        else:
            ref_dict = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec))
            mine = decode_frame(image, [spec], qr=False)
        corners, ids, _ = cv2.aruco.ArucoDetector(ref_dict).detectMarkers(image)
        ref = {int(i): c.reshape(4, 2) for i, c in zip(np.ravel(ids), corners, strict=True)}
        assert sorted(ref) == sorted(c.id for c in mine), gt["image"]
        for c in mine:
            assert np.array_equal(c.corners_px, ref[c.id]), (gt["image"], c.id)


def test_kit_dictionary_alone_and_ids_of_a_prefix_dictionary(shared_data: Path):
    """The 6x6 photo read with DICT_6X6_1000 gives the same ids as with DICT_6X6_250 (a
    prefix), reported under the dictionary asked for; with only the kit's DICT_4X4_50 no
    6x6 marker is reported."""
    image = cv2.imread(str(shared_data / "opencv-aruco" / "singlemarkersoriginal.jpg"))
    a = {c.id for c in decode_frame(image, ["DICT_6X6_250"], qr=False)}
    b = decode_frame(image, ["dict_6x6_1000"], qr=False)
    assert a == {c.id for c in b} == {23, 40, 62, 98, 124, 203}
    assert {c.dictionary for c in b} == {"DICT_6X6_1000"}
    kit = decode_frame(image, ["DICT_4X4_50"], qr=False)
    assert all(c.dictionary == "DICT_4X4_50" for c in kit)
    # Only the packaging icon on the box, a known false 4x4 marker (see DEFAULT_DICTIONARIES).
    assert {c.id for c in kit} <= {17}


@pytest.mark.parametrize(
    "dictionary",
    [
        "DICT_4X4_50",
        "DICT_4X4_1000",
        "DICT_5X5_250",
        "DICT_6X6_250",
        "DICT_7X7_1000",
        "DICT_APRILTAG_36h11",
        "DICT_ARUCO_ORIGINAL",
    ],
)
def test_generated_markers_round_trip_like_opencv(dictionary: str):
    """Generated markers come back with their ids and corners (ArUco order, within 2 px: the
    corners are contour corners, unrefined, as OpenCV's default detector gives them), and the
    ids equal those of OpenCV's own ArucoDetector on the same image."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = int(d.bytesList.shape[0])
    ids = sorted({0, 1, n // 3, n // 2, n - 2})  # (ARUCO_ORIGINAL 1023 is 180° symmetric)
    image, truth = marker_scene(dictionary, ids, seed=len(dictionary))
    codes = decode_frame(image, [dictionary], qr=False)
    assert sorted(c.id for c in codes) == ids
    for c in codes:
        assert c.kind == "aruco" and c.dictionary == dictionary and c.text is None
        assert c.corners_px.shape == (4, 2) and c.corners_px.dtype == np.float32
        assert np.abs(c.corners_px - truth[c.id]).max() < 2.0, (c.id, c.corners_px, truth[c.id])
    _, ref_ids, _ = cv2.aruco.ArucoDetector(d).detectMarkers(image)
    assert sorted(np.asarray(ref_ids).ravel().tolist()) == ids


def test_several_dictionaries_at_once_each_marker_once():
    a, _truth_a = marker_scene("DICT_4X4_50", [3, 7], seed=1)
    b, _truth_b = marker_scene("DICT_APRILTAG_36h11", [5, 100], seed=2)
    both = np.hstack([a, b])
    codes = decode_frame(both, ["DICT_4X4_50", "DICT_APRILTAG_36h11", "DICT_6X6_250"], qr=False)
    got = sorted((c.dictionary, c.id) for c in codes)
    assert got == [
        ("DICT_4X4_50", 3),
        ("DICT_4X4_50", 7),
        ("DICT_APRILTAG_36h11", 5),
        ("DICT_APRILTAG_36h11", 100),
    ]


def test_qr_and_markers_in_one_frame():
    qr = qr_image("card:pickpic:042", scale=5)
    qr = cv2.copyMakeBorder(qr, 0, 0, 0, 640 - qr.shape[1], cv2.BORDER_CONSTANT, value=(255,) * 3)
    markers, _ = marker_scene("DICT_4X4_50", [0, 1, 2, 3], size_hw=(360, 640), side_px=60)
    codes = decode_frame(np.vstack([qr, markers]))
    assert [c.kind for c in codes] == ["qr", "aruco", "aruco", "aruco", "aruco"]
    assert codes[0].text == "card:pickpic:042" and codes[0].id is None
    assert [c.id for c in codes[1:]] == [0, 1, 2, 3]


def test_default_dictionaries_find_no_false_marker_in_qr_photos(shared_data: Path):
    """The measurement behind DEFAULT_DICTIONARIES, on every other QR photo (for time)."""
    from tests.codes.qr_bar import load_samples

    samples = load_samples(shared_data)[::2]
    dictionaries = [load_dictionary(n) for n in DEFAULT_DICTIONARIES]
    false = [
        (s.id, c.dictionary, c.id)
        for s in samples
        for c in decode_frame(cv2.imread(str(s.path)), dictionaries, qr=False)
    ]
    assert false == []


def test_dictionary_names_and_errors(tmp_path: Path):
    assert load_dictionary("apriltag_36H11").name == "DICT_APRILTAG_36h11"
    assert load_dictionary("DICT_4X4_50") is load_dictionary("dict_4x4_50")
    with pytest.raises(ValueError, match="unknown marker dictionary 'DICT_9X9_50'"):
        load_dictionary("DICT_9X9_50")
    with pytest.raises(ValueError, match="cannot read marker dictionary file"):
        load_dictionary(tmp_path / "missing.yml")
    bad = tmp_path / "bad.yml"
    bad.write_text("%YAML:1.0\n---\nfoo: 1\n")
    with pytest.raises(ValueError, match="not an OpenCV marker dictionary"):
        load_dictionary(bad)
    with pytest.raises(ValueError, match="single string"):
        decode_frame(np.zeros((8, 8), np.uint8), "DICT_4X4_50")  # type: ignore[arg-type]
