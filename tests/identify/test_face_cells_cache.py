"""The kit faces' cells that codes check a card's picture against are kept on disk, so that
a command reading one photo does not render the faces again each time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vision.identify import code_cards


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("PICTABLE_CACHE", str(tmp_path))
    code_cards.face_cells_folder.cache_clear()
    code_cards.kit_face_cells.cache_clear()
    yield tmp_path
    code_cards.face_cells_folder.cache_clear()
    code_cards.kit_face_cells.cache_clear()


def test_cells_kept_are_the_cells_made(cache: Path) -> None:
    made = code_cards.kit_face_cells("pickpic-003", "front")
    folder = code_cards.face_cells_folder()
    assert folder is not None and folder.is_relative_to(cache)
    assert (folder / "pickpic-003.front.npy").is_file()
    code_cards.kit_face_cells.cache_clear()
    np.testing.assert_array_equal(code_cards.kit_face_cells("pickpic-003", "front"), made)


def test_a_file_cut_short_is_made_again(cache: Path) -> None:
    made = code_cards.kit_face_cells("pickpic-004", "front")
    folder = code_cards.face_cells_folder()
    assert folder is not None
    (folder / "pickpic-004.front.npy").write_bytes(b"\x93NUMPY")
    code_cards.kit_face_cells.cache_clear()
    np.testing.assert_array_equal(code_cards.kit_face_cells("pickpic-004", "front"), made)


def test_a_cache_that_cannot_be_written_costs_only_the_rendering(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = cache / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("PICTABLE_CACHE", str(blocked))
    code_cards.face_cells_folder.cache_clear()
    assert code_cards.face_cells_folder() is None
    assert code_cards.kit_face_cells("pickpic-005", "front").shape == (25, 18, 3)


def test_the_folder_follows_the_sources() -> None:
    # the digest in the folder's name is of the kit's and the appearance's sources
    folder = code_cards.face_cells_folder()
    assert folder is None or (folder.parent.name == "face-cells" and len(folder.name) == 16)
