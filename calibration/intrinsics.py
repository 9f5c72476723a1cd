"""Camera intrinsics from views of a chessboard or ChArUco board.

Units: board geometry in millimetres, image points in pixels; ``image_size`` is (width, height).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.result import CalibrationError, Failure, check_image, to_gray
from vision.sources.limits import too_large, too_large_decoded

MIN_VIEWS = 3
# A view whose corners all lie within this many pixels of an earlier view's adds nothing.
DUPLICATE_VIEW_PX = 2.0
# A view whose own RMS error is over this many times the median, and over OUTLIER_MIN_PX, is
# an outlier (a misdetected board); a merely less sharp view (OpenCV's left02, 1.2 px) is kept.
OUTLIER_FACTOR = 3.0
OUTLIER_MIN_PX = 2.0

ARUCO_DICTIONARIES = {
    name: getattr(cv2.aruco, name) for name in dir(cv2.aruco) if name.startswith("DICT_")
}


@dataclass(frozen=True)
class BoardSpec:
    """A calibration board.

    ``chessboard:COLSxROWS[:SQUARE_MM]``: COLS x ROWS inner corners (OpenCV's convention).
    ``charuco:COLSxROWS:SQUARE_MM:MARKER_MM[:DICT]``: COLS x ROWS squares (ArUco markers in
    the white squares, default dictionary DICT_4X4_50).
    """

    kind: str
    cols: int
    rows: int
    square_mm: float = 25.0
    marker_mm: float = 0.0
    dictionary: str = "DICT_4X4_50"

    @classmethod
    def parse(cls, text: str) -> BoardSpec:
        parts = text.strip().split(":")
        kind = parts[0].lower()
        size = re.fullmatch(r"(\d+)[xX](\d+)", parts[1]) if len(parts) > 1 else None
        if kind not in ("chessboard", "charuco") or size is None:
            raise CalibrationError(
                f"board {text!r}: use chessboard:COLSxROWS[:SQUARE_MM] "
                "or charuco:COLSxROWS:SQUARE_MM:MARKER_MM[:DICT]"
            )
        cols, rows = int(size.group(1)), int(size.group(2))
        try:
            numbers = [float(p) for p in parts[2:4]]
        except ValueError:
            raise CalibrationError(f"board {text!r}: sizes must be numbers of mm") from None
        if any(not np.isfinite(n) or n <= 0 for n in numbers):
            raise CalibrationError(f"board {text!r}: sizes must be positive")
        if kind == "chessboard":
            if len(parts) > 3:
                raise CalibrationError(f"board {text!r}: chessboard:COLSxROWS[:SQUARE_MM]")
            if cols < 3 or rows < 3:
                raise CalibrationError(f"board {text!r}: at least 3x3 inner corners")
            return cls("chessboard", cols, rows, numbers[0] if numbers else 25.0)
        if len(numbers) != 2 or len(parts) > 5:
            raise CalibrationError(f"board {text!r}: charuco:COLSxROWS:SQUARE_MM:MARKER_MM[:DICT]")
        if numbers[1] >= numbers[0]:
            raise CalibrationError(f"board {text!r}: the marker must be smaller than the square")
        dictionary = parts[4].upper() if len(parts) == 5 else "DICT_4X4_50"
        if dictionary not in ARUCO_DICTIONARIES:
            raise CalibrationError(f"board {text!r}: unknown ArUco dictionary {dictionary}")
        if cols < 3 or rows < 3:
            raise CalibrationError(f"board {text!r}: at least 3x3 squares")
        return cls("charuco", cols, rows, numbers[0], numbers[1], dictionary)

    def __str__(self) -> str:
        if self.kind == "chessboard":
            return f"chessboard:{self.cols}x{self.rows}:{self.square_mm:g}"
        return (
            f"charuco:{self.cols}x{self.rows}:{self.square_mm:g}:{self.marker_mm:g}:"
            f"{self.dictionary}"
        )

    def object_points(self) -> NDArray[np.float32]:
        """(COLS*ROWS, 3) chessboard inner corners in mm, row by row, z = 0."""
        grid = np.mgrid[0 : self.cols, 0 : self.rows].T.reshape(-1, 2)
        pts = np.zeros((grid.shape[0], 3), np.float32)
        pts[:, :2] = grid * self.square_mm
        return pts

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARIES[self.dictionary])
        return cv2.aruco.CharucoBoard(
            (self.cols, self.rows), self.square_mm, self.marker_mm, dictionary
        )


@dataclass(frozen=True)
class View:
    """One usable view: its name, image points (N, 2) px and board points (N, 3) mm."""

    name: str
    image_px: NDArray[np.float32]
    object_mm: NDArray[np.float32]
    image_size: tuple[int, int]


@dataclass(frozen=True)
class Rejected:
    name: str
    reason: str


@dataclass(frozen=True)
class Intrinsics:
    """Pinhole camera with OpenCV's distortion model. ``camera_matrix`` (3, 3) float64,
    ``dist_coeffs`` (N,) float64 (k1, k2, p1, p2, k3, ...), ``image_size`` (width, height)."""

    camera_matrix: NDArray[np.float64]
    dist_coeffs: NDArray[np.float64]
    image_size: tuple[int, int]
    rms_px: float | None = None

    @property
    def fx(self) -> float:
        return float(self.camera_matrix[0, 0])

    @property
    def fy(self) -> float:
        return float(self.camera_matrix[1, 1])

    @property
    def cx(self) -> float:
        return float(self.camera_matrix[0, 2])

    @property
    def cy(self) -> float:
        return float(self.camera_matrix[1, 2])

    def scaled_to(self, size: tuple[int, int]) -> Intrinsics:
        """The same camera at another resolution of the same aspect (width, height)."""
        sx, sy = size[0] / self.image_size[0], size[1] / self.image_size[1]
        k = self.camera_matrix.copy()
        k[0, :] *= sx
        k[1, :] *= sy
        return Intrinsics(k, self.dist_coeffs.copy(), size, self.rms_px)


@dataclass(frozen=True)
class CameraCalibration:
    """The outcome of ``pictable calibrate camera``."""

    intrinsics: Intrinsics
    board: BoardSpec
    views: tuple[str, ...]
    view_rms_px: tuple[float, ...]
    rejected: tuple[Rejected, ...] = field(default_factory=tuple)
    flags: int = 0


def _subpix_window(corners: NDArray[np.float32], cols: int) -> int:
    """Half-size of the corner refinement window: under half a square, at most 11 px."""
    pts = corners.reshape(-1, 2)
    step = float(np.median(np.linalg.norm(np.diff(pts.reshape(-1, cols, 2), axis=1), axis=2)))
    return int(np.clip(step * 0.4, 2, 11))


MIN_IMAGE_PX = 32


def find_board(image: NDArray[np.uint8], board: BoardSpec, name: str = "") -> View | Failure:
    """The board's corners in one image (any size, gray or BGR), refined to sub-pixel."""
    gray = to_gray(check_image(image, name or "image"))
    h, w = gray.shape
    if min(h, w) < MIN_IMAGE_PX:
        return Failure(f"image of {w}x{h} px is too small to show a board")
    try:
        return _find_board(gray, board, name)
    except cv2.error as exc:
        return Failure(f"OpenCV could not search the image: {str(exc).strip().splitlines()[-1]}")


def _find_board(gray: NDArray[np.uint8], board: BoardSpec, name: str) -> View | Failure:
    h, w = gray.shape
    if board.kind == "chessboard":
        size = (board.cols, board.rows)
        flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
        found, corners = cv2.findChessboardCorners(gray, size, flags=flags)
        if not found:
            found, corners = cv2.findChessboardCornersSB(gray, size, flags=cv2.CALIB_CB_EXHAUSTIVE)
            if not found:
                return Failure(f"no {board.cols}x{board.rows} chessboard found")
        else:
            win = _subpix_window(np.asarray(corners, np.float32), board.cols)
            criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.001)
            corners = cv2.cornerSubPix(gray, corners, (win, win), (-1, -1), criteria)
        pts = np.asarray(corners, np.float32).reshape(-1, 2)
        return View(name, pts, board.object_points(), (w, h))
    detector = cv2.aruco.CharucoDetector(board.charuco_board())
    ch_corners, ch_ids, _, _ = detector.detectBoard(gray)
    if ch_ids is None or len(ch_ids) < 6:
        n = 0 if ch_ids is None else len(ch_ids)
        return Failure(f"ChArUco board: {n} corners found, at least 6 needed")
    all_obj = np.asarray(board.charuco_board().getChessboardCorners(), np.float32)
    ids = np.asarray(ch_ids).reshape(-1)
    return View(
        name,
        np.asarray(ch_corners, np.float32).reshape(-1, 2),
        all_obj[ids].reshape(-1, 3),
        (w, h),
    )


def _degenerate(view: View) -> str | None:
    """Why the view cannot constrain the camera, or None."""
    pts = view.image_px.astype(np.float64)
    spread = np.linalg.svd(pts - pts.mean(axis=0), compute_uv=False)
    if spread[-1] < 1e-3 * max(spread[0], 1e-9) or spread[-1] < 1.0:
        return "the board's corners are (nearly) on a line"
    return None


def calibrate(
    views: Sequence[View],
    board: BoardSpec,
    rejected: Sequence[Rejected] = (),
    flags: int = 0,
) -> CameraCalibration | Failure:
    """Intrinsics from board views; screens duplicate, degenerate and outlier views first."""
    kept: list[View] = []
    out_rejected = list(rejected)
    for view in views:
        if kept and view.image_size != kept[0].image_size:
            out_rejected.append(
                Rejected(
                    view.name,
                    f"image size {view.image_size[0]}x{view.image_size[1]} differs from "
                    f"{kept[0].image_size[0]}x{kept[0].image_size[1]}",
                )
            )
            continue
        why = _degenerate(view)
        if why is None:
            for other in kept:
                same = (
                    other.image_px.shape == view.image_px.shape
                    and float(np.max(np.linalg.norm(other.image_px - view.image_px, axis=1)))
                    < DUPLICATE_VIEW_PX
                )
                if same:
                    why = f"the same view as {other.name} (the board has not moved)"
                    break
        if why is not None:
            out_rejected.append(Rejected(view.name, why))
            continue
        kept.append(view)
    for _ in range(2):
        if len(kept) < MIN_VIEWS:
            return Failure(
                f"{len(kept)} usable view(s), at least {MIN_VIEWS} are needed: show the board "
                "in more positions and tilts"
            )
        result = _solve(kept, board, flags)
        if isinstance(result, Failure):
            return result
        errors = np.asarray(result.view_rms_px)
        bad = (errors > OUTLIER_FACTOR * np.median(errors)) & (errors > OUTLIER_MIN_PX)
        if not bad.any():
            return CameraCalibration(
                result.intrinsics,
                board,
                result.views,
                result.view_rms_px,
                tuple(out_rejected),
                flags,
            )
        for view, err, is_bad in zip(kept, errors, bad, strict=True):
            if is_bad:
                out_rejected.append(
                    Rejected(view.name, f"reprojection error {err:.2f} px, far above the others")
                )
        kept = [v for v, is_bad in zip(kept, bad, strict=True) if not is_bad]
    return Failure("the views disagree: calibration does not settle (check the board spec)")


def _solve(views: Sequence[View], board: BoardSpec, flags: int) -> CameraCalibration | Failure:
    size = views[0].image_size
    obj = [v.object_mm.astype(np.float32) for v in views]
    img = [v.image_px.reshape(-1, 1, 2).astype(np.float32) for v in views]
    try:
        rms, k, dist, rvecs, tvecs = cv2.calibrateCamera(obj, img, size, None, None, flags=flags)
    except cv2.error as exc:
        return Failure(f"OpenCV could not calibrate: {str(exc).strip().splitlines()[-1]}")
    k64: NDArray[np.float64] = np.asarray(k, np.float64)
    dist64: NDArray[np.float64] = np.asarray(dist, np.float64).reshape(-1)
    if not (np.isfinite(rms) and np.all(np.isfinite(k64)) and np.all(np.isfinite(dist64))):
        return Failure("calibration diverged (not finite): the views are too alike or too few")
    if k64[0, 0] <= 0 or k64[1, 1] <= 0:
        return Failure("calibration gave a non-positive focal length: degenerate views")
    per_view: list[float] = []
    for o, i, r, t in zip(obj, img, rvecs, tvecs, strict=True):
        proj, _ = cv2.projectPoints(o, r, t, k64, dist64)
        per_view.append(float(np.sqrt(np.mean(np.sum((proj - i) ** 2, axis=2)))))
    intr = Intrinsics(k64, dist64, size, float(rms))
    return CameraCalibration(intr, board, tuple(v.name for v in views), tuple(per_view))


def calibrate_files(
    paths: Sequence[str], board: BoardSpec, flags: int = 0
) -> CameraCalibration | Failure:
    """``calibrate`` over image files; unreadable files and views without the board are
    rejected with their reason."""
    views: list[View] = []
    rejected: list[Rejected] = []
    for path in paths:
        image = read_image(path)
        if isinstance(image, Failure):
            rejected.append(Rejected(path, image.reason))
            continue
        found = find_board(image, board, path)
        if isinstance(found, Failure):
            rejected.append(Rejected(path, found.reason))
        else:
            views.append(found)
    result = calibrate(views, board, rejected, flags)
    if isinstance(result, Failure) and rejected:
        names = "; ".join(f"{r.name}: {r.reason}" for r in rejected)
        return Failure(f"{result.reason} (rejected: {names})")
    return result


def read_image(path: str) -> NDArray[np.uint8] | Failure:
    """An image file as BGR uint8, or why it cannot be read."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        return Failure(f"cannot read: {exc.strerror or exc}")
    if data.size == 0:
        return Failure("empty file")
    problem = too_large(data, path)  # refused from its header, before a pixel is decoded
    if problem is not None:
        return Failure(problem)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        return Failure("not an image OpenCV can read")
    problem = too_large_decoded(image.shape)  # a format whose header was not read
    if problem is not None:
        return Failure(problem)
    return np.asarray(image, np.uint8)
