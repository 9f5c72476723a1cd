"""Start-up: ``pictable --help`` (and every command's ``--help``) loads none of the heavy
libraries nor the readers, and importing ``vision.identify`` loads only what is asked for
(issue 27: a command answers before OpenCV, numba, scipy or a model runtime would load).
The figures themselves are the benchmark's (``pictable bench --tasks startup``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.test_usage import COMMANDS

#: Top-level packages no ``--help`` may import.
HEAVY = ("cv2", "numpy", "numba", "scipy", "onnxruntime", "torch", "zxingcpp", "pyzbar", "PIL")
#: The project's packages of readers and models (``pictable.commands`` may not import them
#: before a command runs).
READERS = ("vision", "calibration", "engine", "models")

_HELP_ALL = """
import contextlib, io, json, sys
from pictable.cli import main
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            main([*argv, "--help"])
        except SystemExit:
            pass
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(code: str, *args: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def _top(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted({m.split(".")[0] for m in modules} & set(packages))


def test_help_of_pictable_and_of_every_command_loads_nothing_heavy() -> None:
    argvs = [[], *[list(c) for c in COMMANDS]]
    loaded = _modules_after(_HELP_ALL, json.dumps(argvs))
    assert _top(loaded, HEAVY) == []
    assert _top(loaded, READERS) == []


def test_the_top_level_help_alone_loads_no_command_s_readers() -> None:
    loaded = _modules_after(_HELP_ALL, json.dumps([[]]))
    assert _top(loaded, HEAVY + READERS) == []
    assert "pictable.commands.identify" in loaded  # its options listed, its readers not loaded


@pytest.mark.parametrize(
    ("code", "absent"),
    [
        ("import vision.identify", ("cv2", "numpy", "numba", "scipy", "vision.identify.deck")),
        ("from vision.identify import DeckError", ("vision.identify.identify", "vision.kit")),
        ("from vision.identify.reading import FrameCards", ("numba", "scipy", "cv2")),
    ],
)
def test_vision_identify_loads_only_what_is_asked_for(code: str, absent: tuple[str, ...]) -> None:
    loaded = _modules_after(code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))")
    assert sorted(m for m in loaded if m.split(".")[0] in absent or m in absent) == []


def test_vision_identify_names_are_still_there() -> None:
    import vision.identify as identify

    for name in identify.__all__:
        assert getattr(identify, name) is not None, name
    assert set(identify.__all__) <= set(dir(identify))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = identify.nothing
