"""QR codes: zxing-cpp first; another decoder (zbar, through pyzbar) and preprocessing only
where a QR code was seen but not read; OpenCV to break ties; one fused answer per code.

The plan, measured on ZXing's real photos (``python -m tests.codes.qr_bar`` prints the counts,
``python -m pictable.bench.readers.decode`` the times against zxing-cpp alone, same run):

1. **Fast pass**, every frame: zxing-cpp on the whole grey image (local-average binarizer,
   rotations, downscaling and inversion on: its own defaults). It reads the most, at its own
   speed, and reports where it located a QR code it could not decode (a checksum failure).
2. **Evidence** of codes seen but not read: those located QR codes, and QR finder patterns
   (square candidates of :func:`vision.codes.aruco.candidates` whose 7 x 7 cells read as a
   finder: dark ring, light ring, dark 3 x 3 centre), two or more of a size close together,
   that no read explains. The square candidates come from the marker search when markers
   are looked for (free); otherwise they are searched only when the fast pass read and
   located nothing. A frame whose codes were all read, or that shows no code, ends here.
3. **Rescue**, on a crop around each unexplained place, stopping at the first step that reads
   a code there (:data:`RESCUE_STEPS`, cheapest first): zxing-cpp's global-histogram binarizer
   (qrcode-4/34, a T-shirt), a slight blur (qrcode-2/12, a picture made into a code), 2x
   upscaling of small crops, and zbar. OpenCV's curved-surface decoder
   (:func:`opencv_curved_read`) read two wrinkled T-shirts more but cost more than all the
   rest together; it is left out (see :data:`RESCUE_STEPS`).
4. **Fusion**: reads at the same place (by overlap) are one code. When decoders disagree on
   the text, a verified text (5.) wins, then the text read by the most decoders, then the
   most trustworthy decoder's (:data:`TRUST`). Two decoders that return the same payload
   bytes agree, whatever their text. Trust was measured (``python -m tests.codes.qr_trust``):
   with payload bytes decoded alike, none read a wrong text, so the order follows what each
   reads correctly that the others cannot: zxing-cpp applies ECIs and reads every QR mode
   (Hanzi included), zbar returns raw bytes, OpenCV transcodes byte mode as ISO-8859-1
   (undone here) and fails on Hanzi mode. When two decoders disagree and OpenCV has not
   voted, OpenCV reads the code's surroundings as a tie-breaker.
5. **Verification**: a QR text is *verified* when zxing-cpp decoded it with at least
   :data:`MIN_SPARE_EC` of the symbol's error correction unused. Every decoder here checks
   the Reed-Solomon code, so a wrong text needs a symbol damaged beyond its correction
   capacity and corrected into another valid payload, and such a mis-correction uses all of
   the capacity (it lands on the nearest wrong codeword, at the capacity's edge). zbar and
   OpenCV report no margin, and two decoders agreeing do not help: they read the same
   damaged modules and mis-correct alike. Any other text is returned with
   ``Code.verified`` False (``"unverified": true`` in ``pictable decode --json``).

zbar is driven through pyzbar's ctypes binding with ``ZBAR_CFG_BINARY`` set (zbar >= 0.23),
so it returns the payload's raw bytes instead of re-encoding them by its own guess of the
character set (which turns Shift-JIS half-width katakana into Chinese); the bytes are decoded
by :func:`vision.codes.payload.payload_text`.
"""

from __future__ import annotations

import ctypes
import functools
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import zxingcpp
from numpy.typing import NDArray

from vision.codes.aruco import candidates, cell_ratios
from vision.codes.payload import latin1_transcoded_text, payload_text
from vision.codes.reading import Code, inside, quad_area, same_place

log = logging.getLogger(__name__)

ZXING, ZBAR, OPENCV = "zxing-cpp", "zbar", "opencv"
#: Decoder trust, most trusted first (see the module docstring for the measurement).
TRUST: tuple[str, ...] = (ZXING, ZBAR, OPENCV)

#: Least share of a symbol's error correction that zxing-cpp must leave unused (its ``UEC``:
#: 1 - 2 x corrected codewords / error-correction codewords, in the worst block) for a text
#: to be *verified*. A mis-correction uses the whole capacity: at most 1/7 (0.14) is left
#: then, in the smallest blocks (7 error-correction codewords, version 1-L); one corrected
#: codeword fewer leaves 0.43 there. On ZXing's 121 development photos the fast pass reads
#: with 0.33 left at the least.
MIN_SPARE_EC = 0.15

_ZX_FORMATS = zxingcpp.barcode_formats_from_str("QRCode,MicroQRCode")
_BINARIZERS = {
    "local": zxingcpp.Binarizer.LocalAverage,
    "global": zxingcpp.Binarizer.GlobalHistogram,
}

Quad = NDArray[np.float32]  # (4, 2) float32, working-image pixels


@dataclass(frozen=True)
class Read:
    """One decoder's reading of one QR code. ``quad``: (4, 2) float32 pixels of the image
    given to :func:`read_qr`, in the code's own corner order. ``step``: the preprocessing
    step that produced it (for debugging). ``spare_ec``: the share of the symbol's error
    correction left unused (0..1), for decoders that report it (zxing-cpp), else None."""

    decoder: str
    text: str
    payload: bytes | None
    quad: Quad
    step: str
    spare_ec: float | None = None

    def moved(self, quad: Quad, step: str | None = None) -> Read:
        """This read with another quad (and step)."""
        return Read(
            self.decoder, self.text, self.payload, quad, self.step if step is None else step,
            self.spare_ec,
        )  # fmt: skip


@dataclass
class QrTrace:
    """What :func:`read_qr` did, for measurement: the steps run, and each read."""

    steps: list[str] = field(default_factory=list)
    reads: list[Read] = field(default_factory=list)


# ---- the decoders ----------------------------------------------------------------------------


def zxing_read(
    grey: NDArray[np.uint8], binarizer: str = "local", *, quick: bool = False
) -> tuple[list[Read], list[Quad]]:
    """zxing-cpp on a (h, w) uint8 image: the codes read, and the quads (pixels) of QR codes it
    located but could not decode (checksum or format errors). ``quick``: no second passes
    on the image inverted, rotated or downscaled (printed dark-on-light codes a few pixels a
    module, as on a table seen by a webcam: about half the time)."""
    try:
        found = zxingcpp.read_barcodes(
            grey,
            formats=_ZX_FORMATS,
            try_rotate=not quick,
            try_downscale=not quick,
            try_invert=not quick,
            text_mode=zxingcpp.TextMode.Plain,
            binarizer=_BINARIZERS[binarizer],
            return_errors=True,
        )
    except Exception as exc:  # a decoder bug must not end the run; the other decoders go on
        log.warning("zxing-cpp failed: %s", exc)
        return [], []
    reads: list[Read] = []
    failed: list[Quad] = []
    for r in found:
        p = r.position
        quad = np.array(
            [[c.x, c.y] for c in (p.top_left, p.top_right, p.bottom_right, p.bottom_left)],
            dtype=np.float32,
        )
        if r.error is not None or not r.valid:
            failed.append(quad)
            continue
        reads.append(Read(ZXING, r.text, bytes(r.bytes), quad, f"zxing-{binarizer}", _spare_ec(r)))
    return reads, failed


def _spare_ec(found: object) -> float | None:
    """zxing-cpp's unused error-correction share of a result (``extra["UEC"]``), or None."""
    extra = getattr(found, "extra", None)
    value = extra.get("UEC") if isinstance(extra, dict) else None
    return float(value) if isinstance(value, int | float) else None


class _Zbar:
    """zbar through pyzbar's ctypes binding, asking for raw payload bytes when it can."""

    CFG_BINARY = 4  # ZBAR_CFG_BINARY in zbar >= 0.23 (pyzbar's enum predates it)
    Y800 = 0x30303859  # fourcc of 8-bit grey

    def __init__(self) -> None:
        from pyzbar import wrapper

        self.w = wrapper
        major, minor = ctypes.c_uint(), ctypes.c_uint()
        wrapper.zbar_version(ctypes.byref(major), ctypes.byref(minor))
        self.binary = (major.value, minor.value) >= (0, 23)

    def read(self, grey: NDArray[np.uint8]) -> list[tuple[bytes, Quad, bool]]:
        """(payload, quad, raw) per QR code; ``raw`` False when zbar transcoded the payload."""
        w = self.w
        grey = np.ascontiguousarray(grey)
        h, wd = grey.shape
        out: list[tuple[bytes, Quad, bool]] = []
        scanner = w.zbar_image_scanner_create()
        try:
            w.zbar_image_scanner_set_config(scanner, 0, w.ZBarConfig.CFG_ENABLE, 0)
            qr = w.ZBarSymbol.QRCODE
            w.zbar_image_scanner_set_config(scanner, qr, w.ZBarConfig.CFG_ENABLE, 1)
            raw = (
                self.binary
                and w.zbar_image_scanner_set_config(scanner, qr, self.CFG_BINARY, 1) == 0
            )
            image = w.zbar_image_create()
            try:
                w.zbar_image_set_format(image, self.Y800)
                w.zbar_image_set_size(image, wd, h)
                buf = grey.ctypes.data_as(ctypes.c_void_p)
                w.zbar_image_set_data(image, buf, grey.size, None)
                if w.zbar_scan_image(scanner, image) > 0:
                    symbol = w.zbar_image_first_symbol(image)
                    while symbol:
                        data = ctypes.string_at(
                            w.zbar_symbol_get_data(symbol), w.zbar_symbol_get_data_length(symbol)
                        )
                        n = w.zbar_symbol_get_loc_size(symbol)
                        pts = [
                            (w.zbar_symbol_get_loc_x(symbol, i), w.zbar_symbol_get_loc_y(symbol, i))
                            for i in range(n)
                        ]
                        if len(pts) == 4:
                            out.append((data, _zbar_quad(pts), raw))
                        symbol = w.zbar_symbol_next(symbol)
            finally:
                w.zbar_image_destroy(image)
        finally:
            w.zbar_image_scanner_destroy(scanner)
        return out


def _zbar_quad(pts: Sequence[tuple[int, int]]) -> Quad:
    """zbar lists a QR code's corners as top-left, bottom-left, bottom-right, top-right (the
    code's own orientation); return them in code order TL, TR, BR, BL."""
    q = np.array(pts, dtype=np.float32)
    return np.ascontiguousarray(q[[0, 3, 2, 1]])


@functools.lru_cache(maxsize=1)
def _zbar() -> _Zbar | None:
    try:
        return _Zbar()
    except Exception as exc:  # libzbar missing or an unexpected binding: zbar is skipped
        log.warning("zbar unavailable (%s); QR codes are read without it", exc)
        return None


#: Largest image (pixels) zbar scans. zbar scans every row and column, which costs some
#: 50 ms on a 1280x720 frame against 2 ms for zxing-cpp; it only reads crops around codes
#: seen but not read, and crops larger than this are left to the other decoders.
ZBAR_MAX_PIXELS = 640 * 512


def zbar_read(grey: NDArray[np.uint8], step: str = "zbar") -> list[Read]:
    """zbar on a (h, w) uint8 image (empty when libzbar is missing or fails, or when the
    image is larger than :data:`ZBAR_MAX_PIXELS`)."""
    zb = _zbar()
    if zb is None or grey.size > ZBAR_MAX_PIXELS:
        return []
    try:
        found = zb.read(grey)
    except Exception as exc:
        log.warning("zbar failed: %s", exc)
        return []
    reads = []
    for data, quad, raw in found:
        text = payload_text(data) if raw else _transcoded_utf8(data)
        reads.append(Read(ZBAR, text, data if raw else None, quad, step))
    return reads


def _transcoded_utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return payload_text(data)


def opencv_read(grey: NDArray[np.uint8], step: str = "opencv") -> list[Read]:
    """OpenCV's ``QRCodeDetector.detectAndDecodeBytesMulti`` on a (h, w) uint8 image."""
    return _opencv_multi(cv2.QRCodeDetector, grey, step)


def opencv_aruco_read(grey: NDArray[np.uint8], step: str = "opencv-aruco") -> list[Read]:
    """OpenCV's ``QRCodeDetectorAruco`` (finder patterns found like ArUco markers)."""
    return _opencv_multi(cv2.QRCodeDetectorAruco, grey, step)


def _opencv_multi(detector: Callable[[], object], grey: NDArray[np.uint8], step: str) -> list[Read]:
    try:
        ok, datas, points, _ = detector().detectAndDecodeBytesMulti(grey)  # type: ignore[attr-defined]
    except Exception as exc:  # e.g. cv2.error "mode 13 not implemented" (Hanzi mode)
        log.debug("OpenCV QR (%s) failed: %s", step, exc)
        return []
    if not ok or points is None:
        return []
    return [
        Read(OPENCV, latin1_transcoded_text(bytes(d)), None,
             np.asarray(p, np.float32).reshape(4, 2), step)
        for d, p in zip(datas, points, strict=False)
        if d
    ]  # fmt: skip


def opencv_curved_read(grey: NDArray[np.uint8], step: str = "opencv-curved") -> list[Read]:
    """OpenCV's curved-surface QR decoder (one code) on a (h, w) uint8 image."""
    try:
        text, points, _ = cv2.QRCodeDetector().detectAndDecodeCurved(grey)
    except Exception as exc:  # a decoder failure is a miss, never the end of the run
        log.debug("OpenCV curved QR failed: %s", exc)
        return []
    if not text or points is None:
        return []
    raw = text.encode("utf-8", "surrogatepass")
    return [Read(OPENCV, latin1_transcoded_text(raw), None,
                 np.asarray(points, np.float32).reshape(4, 2), step)]  # fmt: skip


# ---- preprocessing ---------------------------------------------------------------------------

Transform = Callable[[NDArray[np.uint8]], tuple[NDArray[np.uint8], float]]
"""Image -> (processed image, scale): processed pixel coordinates / scale = input pixels."""


def _identity(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    return g, 1.0


def _u8(image: object) -> NDArray[np.uint8]:
    return np.asarray(image, dtype=np.uint8)


def _blur(k: int) -> Transform:
    def f(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
        return _u8(cv2.GaussianBlur(g, (k, k), 0)), 1.0

    return f


def _resize(f: float) -> Transform:
    def t(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
        interp = cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA
        h, w = g.shape
        size = (max(1, round(w * f)), max(1, round(h * f)))
        return _u8(cv2.resize(g, size, interpolation=interp)), size[0] / w

    return t


Decoder = Callable[[NDArray[np.uint8], str], list[Read]]


def _zx(binarizer: str) -> Decoder:
    def d(g: NDArray[np.uint8], step: str) -> list[Read]:
        reads, _ = zxing_read(g, binarizer)
        return [r.moved(r.quad, step) for r in reads]

    return d


@dataclass(frozen=True)
class Step:
    """One rescue step: a transform, then decoders, on a crop around a code seen but not read.
    ``max_side``/``min_side`` limit it by the crop's longest side (pixels)."""

    name: str
    transform: Transform
    decoders: tuple[Decoder, ...]
    max_side: int | None = None
    min_side: int | None = None

    def applies(self, grey: NDArray[np.uint8]) -> bool:
        side = max(grey.shape)
        if self.max_side is not None and side > self.max_side:
            return False
        return self.min_side is None or side >= self.min_side

    def decode(self, grey: NDArray[np.uint8], step: str) -> list[Read]:
        """:meth:`run`, with the signature of a decoder."""
        return self.run(grey)

    def run(self, grey: NDArray[np.uint8]) -> list[Read]:
        img, scale = self.transform(grey)
        img = np.ascontiguousarray(img)
        reads = []
        for decode in self.decoders:
            for r in decode(img, self.name):
                reads.append(r.moved(r.quad / np.float32(scale)))
        return reads


#: What is tried around a code seen but not read, in this order, until a step reads a code
#: there. On ZXing's 121 development photos the global binarizer reads qrcode-4/34 (0.3 ms
#: on its crop) and the blur qrcode-2/12 (0.5 ms); 2x upscaling (1-2 ms) and zbar (another
#: sampler and binarizer, about 2 ms) read none of them that the others miss, but the
#: upscaling reads small codes on rendered tables (a card's code 36 px wide, seed 0 scene 8,
#: next to another that zxing-cpp's outline ran into). Dropped for their cost, since every
#: code that will not decode pays every step (five such photos there: qrcode-4/05, 4/08,
#: 4/13, 4/31, 4/32): OpenCV's straight decoders on the crop (10-20 ms; no photo read that
#: the others miss), OpenCV's curved decoder on the crop (10-30 ms; it alone read
#: qrcode-4/08, a wrinkled T-shirt) and on the crop upscaled 3 times (about 40 ms, 0.4 s on
#: qrcode-4/31; it alone read qrcode-4/05). With the curved decoder on the crop the photos
#: took 3.3 times zxing-cpp's mean time (1.5 without), against 2 at most for issue 27
#: (``python -m pictable.bench.readers.decode``).
RESCUE_STEPS: tuple[Step, ...] = (
    Step("crop-global", _identity, (_zx("global"),)),
    Step("crop-blur3", _blur(3), (_zx("local"), _zx("global"))),
    # Codes a few pixels a module (cards on a table); crops over 480 px hold large codes.
    Step("crop-up2", _resize(2.0), (_zx("local"), _zx("global")), max_side=480),
    Step("crop-zbar", _identity, (zbar_read,)),
)


# ---- the reader ------------------------------------------------------------------------------


def read_qr(
    grey: NDArray[np.uint8],
    trace: QrTrace | None = None,
    *,
    fallbacks: bool = True,
    squares: NDArray[np.float32] | None = None,
) -> list[Code]:
    """Every QR code in a (h, w) uint8 grey image, each once; corners in its pixels.

    See the module docstring for the steps. ``fallbacks=False`` runs the fast pass only (for
    live video, where the next frame is another chance). ``squares``: the image's square
    candidates, (n, 4, 2) float32 pixels (:func:`vision.codes.aruco.candidates`), when the
    caller has them: QR finder patterns among them are evidence of codes; without them the
    squares are searched only when the fast pass reads and locates nothing. ``trace``
    (optional) collects what was run.
    """
    steps = trace.steps if trace is not None else []
    reads, located = zxing_read(grey, "local")
    located = [q for q in located if quad_area(q) >= 4.0]  # zxing-cpp gives some as (0, 0) x 4
    steps.append("fast")

    places: list[Quad] = []
    if fallbacks:
        if squares is None and not reads and not located:
            steps.append("finders")
            squares = candidates(grey)
        # Squares inside a code read or located are that code's own finder patterns.
        seen = [r.quad for r in reads] + list(located)
        finders = [] if squares is None else finder_places(grey, _outside(squares, seen))
        places = _unexplained([*located, *finders], reads)

    for quad in places:
        if any(_explains(r.quad, quad) for r in reads):
            continue  # read while rescuing another place
        x0, y0, crop = _crop(grey, quad)
        shift = np.array([x0, y0], np.float32)
        for step in RESCUE_STEPS:
            if not step.applies(crop):
                continue
            steps.append(step.name)
            new = [r.moved(r.quad + shift) for r in step.run(crop)]
            reads += new
            if any(_explains(r.quad, quad) for r in new):
                break

    codes = fuse(reads)
    contested = [c for c in codes if c.dissent and OPENCV not in c.decoders + c.dissent]
    if contested:
        # A tie-break: OpenCV reads the contested codes' surroundings.
        for c in contested:
            steps.append("tie-break")
            reads += _on_crop(grey, c.corners_px, opencv_read, "tie-break")
        codes = fuse(reads)
    if trace is not None:
        trace.reads.extend(reads)
    return codes


#: A QR finder pattern's 7 x 7 cells, True where dark (ring, light ring, dark 3 x 3 centre).
_FINDER_DARK = np.zeros((7, 7), bool)
_FINDER_DARK[[0, -1], :] = _FINDER_DARK[:, [0, -1]] = True
_FINDER_DARK[2:5, 2:5] = True
#: Cells of a finder pattern that may read wrong (blur, a corner clipped, perspective).
_FINDER_WRONG_CELLS = 3
#: Finder patterns of one code: sides within this ratio, centres this many sides apart at
#: most (version 40: 177 modules, finders 7 wide, 170 / 7 = 24 sides apart).
_FINDER_SIZE_RATIO = 1.5
_FINDER_MAX_SIDES_APART = 25.0


def finder_places(grey: NDArray[np.uint8], squares: NDArray[np.float32]) -> list[Quad]:
    """Places of QR codes whose finder patterns are among ``squares`` ((n, 4, 2) float32
    pixels of ``grey``): for each group of two or more finder patterns of a size close
    together, the (4, 2) float32 outline of their bounding box, in pixels."""
    if len(squares) == 0:
        return []
    ratios = cell_ratios(grey, squares, 7)
    wrong = ((ratios > 0.5) == _FINDER_DARK[None]).sum(axis=(1, 2))  # white where dark
    finders = squares[wrong <= _FINDER_WRONG_CELLS]
    if len(finders) < 2:
        return []
    centres = finders.mean(axis=1)
    sides = np.sqrt(((finders - finders[:, [1, 2, 3, 0]]) ** 2).sum(axis=2)).mean(axis=1)
    # Groups: finders of a size close together (union-find over the pairs that fit).
    group = np.arange(len(finders))

    def root(i: int) -> int:
        while group[i] != i:
            i = int(group[i])
        return i

    for i in range(len(finders)):
        for j in range(i + 1, len(finders)):
            small, large = sorted((float(sides[i]), float(sides[j])))
            far = float(np.linalg.norm(centres[i] - centres[j]))
            if large <= _FINDER_SIZE_RATIO * small and small < far <= (
                _FINDER_MAX_SIDES_APART * large
            ):
                group[root(i)] = root(j)
    roots = np.array([root(i) for i in range(len(finders))])
    places = []
    for r in np.unique(roots):
        members = finders[roots == r]
        centres_r = members.mean(axis=1)
        if len(np.unique(np.round(centres_r / 2), axis=0)) < 2:
            continue  # nested outlines of one finder pattern
        lo, hi = members.reshape(-1, 2).min(axis=0), members.reshape(-1, 2).max(axis=0)
        places.append(np.array([lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]], np.float32))
    return places


def _outside(squares: NDArray[np.float32], quads: Sequence[Quad]) -> NDArray[np.float32]:
    """The squares ((n, 4, 2) float32 pixels) whose centre lies in none of ``quads``."""
    if len(squares) == 0 or not quads:
        return squares
    centres = squares.mean(axis=1)
    keep = np.array([not any(inside(c, q) for q in quads) for c in centres], bool)
    return np.asarray(squares[keep], np.float32)


def _explains(read_quad: Quad, place: Quad) -> bool:
    """Whether a code read at ``read_quad`` accounts for the evidence at ``place``: the same
    place, or the evidence's centre inside the code (finder groups are smaller than it)."""
    return same_place(read_quad, place) or inside(place.mean(axis=0), read_quad)


def _on_crop(grey: NDArray[np.uint8], quad: Quad, decode: Decoder, step: str) -> list[Read]:
    """``decode`` on the part of ``grey`` around ``quad``; reads in ``grey``'s pixels."""
    x0, y0, crop = _crop(grey, quad)
    shift = np.array([x0, y0], np.float32)
    return [r.moved(r.quad + shift) for r in decode(crop, step)]


def _unexplained(evidence: Iterable[Quad], reads: Sequence[Read]) -> list[Quad]:
    """The evidence quads that no read explains; evidence of one code counted once (the
    largest outline kept: zxing-cpp also reports failed partial outlines of one code, and
    its finder patterns may be seen too)."""
    left: list[Quad] = []
    for quad in sorted(evidence, key=quad_area, reverse=True):
        if any(_explains(r.quad, quad) for r in reads):
            continue
        if any(_explains(q, quad) for q in left):
            continue  # the same code, seen twice (zxing-cpp's outlines, its finder patterns)
        left.append(quad)
    return left


def _crop(grey: NDArray[np.uint8], quad: Quad) -> tuple[int, int, NDArray[np.uint8]]:
    """The part of ``grey`` around ``quad`` with a margin of half its size (a quiet zone for
    the decoders): (x0, y0, crop)."""
    h, w = grey.shape
    lo = quad.min(axis=0)
    hi = quad.max(axis=0)
    margin = 0.5 * float(max(hi - lo)) + 8
    x0 = int(max(0, np.floor(lo[0] - margin)))
    y0 = int(max(0, np.floor(lo[1] - margin)))
    x1 = int(min(w, np.ceil(hi[0] + margin)))
    y1 = int(min(h, np.ceil(hi[1] + margin)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return 0, 0, grey
    return x0, y0, np.ascontiguousarray(grey[y0:y1, x0:x1])


def fuse(reads: Sequence[Read]) -> list[Code]:
    """One :class:`Code` per place: reads are grouped by overlap (the same place) and each
    group's text chosen by error-correction margin, then by vote, then by decoder trust
    (:data:`TRUST`)."""
    groups: list[list[Read]] = []
    for r in sorted(reads, key=lambda r: TRUST.index(r.decoder)):
        for g in groups:
            if any(same_place(r.quad, o.quad) for o in g):
                g.append(r)
                break
        else:
            groups.append([r])
    codes = []
    for g in groups:
        codes.append(_decide(g))
    codes.sort(key=lambda c: (float(c.center_px[1]), float(c.center_px[0])))
    return codes


def _decide(group: Sequence[Read]) -> Code:
    """The text of one place: a text with an error-correction margin first (verified), then
    the most decoders, then the most trusted decoder."""
    # Texts agree when equal, or when two decoders returned the same payload bytes (then the
    # more trusted decoder's text stands for both).
    canon: dict[str, str] = {}
    by_payload: dict[bytes, str] = {}
    for r in group:  # trusted first
        if r.text in canon:
            continue
        if r.payload is not None and r.payload in by_payload:
            canon[r.text] = by_payload[r.payload]
        else:
            canon[r.text] = r.text
        if r.payload is not None:
            by_payload.setdefault(r.payload, canon[r.text])
    voters: dict[str, set[str]] = {}
    for r in group:
        voters.setdefault(canon[r.text], set()).add(r.decoder)

    # A text decoded with error correction to spare is the symbol's; one without may be a
    # mis-correction, however many decoders read it (they read the same damaged modules).
    margin = {canon[r.text] for r in group if r.spare_ec is not None and r.spare_ec >= MIN_SPARE_EC}

    def rank(text: str) -> tuple[bool, int, int]:
        best_trust = min(TRUST.index(d) for d in voters[text])
        return (text not in margin, -len(voters[text]), best_trust)

    text = min(voters, key=rank)
    agreeing = sorted(voters[text], key=TRUST.index)
    dissent = sorted({r.decoder for r in group} - set(agreeing), key=TRUST.index)
    winner = next(r for r in group if canon[r.text] == text)  # most trusted reader of it
    payload = next(
        (r.payload for r in group if canon[r.text] == text and r.payload is not None), None
    )
    return Code(
        kind="qr",
        corners_px=winner.quad,
        text=text,
        payload=payload,
        decoders=tuple(agreeing),
        dissent=tuple(dissent),
        verified=text in margin,
    )
