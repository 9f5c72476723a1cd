"""The compiled kernels load without importing scipy.linalg (numba's BLAS check, which the
kernels do not need, made with it out of reach), and scipy.linalg still imports after."""

from __future__ import annotations

import subprocess
import sys


def test_kernels_load_without_scipy_linalg_and_leave_it_importable() -> None:
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from vision.identify import kernels\n"
        "a = np.zeros((3, 32), np.uint8); b = np.ones((4, 32), np.uint8)\n"
        "first, second, nearest = kernels.two_nearest(a, b)\n"
        "assert list(first) == [32, 32, 32] and list(second) == [32, 32, 32]\n"
        "print('scipy.linalg' in sys.modules)\n"
        "import scipy.linalg\n"
        "print(scipy.linalg.det(np.eye(2)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "1.0"]
