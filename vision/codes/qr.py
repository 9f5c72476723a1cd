"""QR codes: three decoders (zxing-cpp, zbar through pyzbar, OpenCV), a ladder of
preprocessing fallbacks, and one fused answer per code.

The plan, measured on ZXing's real photos (``tests/codes/qr_bar.py`` prints the figures):

1. **Fast path**, every frame: zxing-cpp (local-average binarizer, rotations, downscaling and
   inversion on) and zbar on the grey image (on frames larger than :data:`ZBAR_MAX_PIXELS`,
   zbar reads crops around zxing-cpp's codes instead: whole, it costs 25x zxing-cpp's time).
   zxing-cpp reads the most, and reports where it located a QR code it could not decode (a
   checksum failure): that is the *evidence* used below.
2. **Cheap fallbacks** on the whole image, only when the fast path read no QR code or left
   evidence unexplained, stopping at the first that reads something and leaves no evidence
   unexplained: zxing-cpp's global-histogram binarizer (it reads qrcode-4/34, a T-shirt),
   a slight blur (qrcode-2/12, a halftone print), 2x upscaling of small images, halving of
   large ones; and, only with evidence, a median filter, CLAHE and sharpening.
3. **Expensive fallbacks**, only around unexplained evidence: crops of the located code
   given to OpenCV's detectors, including its curved-surface decoder (qrcode-4/08 and, at
   3x, 4/05: codes on a wrinkled T-shirt), and to zxing-cpp and zbar at other scales and
   contrasts.
4. **Fusion**: reads at the same place (by overlap) are one code. When decoders disagree on
   the text, the text read by the most decoders wins, then the most trustworthy decoder's
   (:data:`TRUST`). Two decoders that return the same payload bytes agree, whatever their
   text. Trust was measured (``python -m tests.codes.qr_trust``: every decoder on the 121
   photos under every whole-image step): with payload bytes decoded alike, none read a wrong
   text (zxing-cpp 858 right, zbar 803, OpenCV 476, 0 wrong each), so the order follows what
   each reads correctly that the others cannot: zxing-cpp applies ECIs and reads every QR
   mode (Hanzi included), zbar returns raw bytes, OpenCV transcodes byte mode as ISO-8859-1
   (undone here) and fails on Hanzi mode. Without that byte handling, zbar's own guess of
   the character set misreads 8 Japanese payloads of the 121 (pyzbar alone), and OpenCV's
   text is wrong for every Shift-JIS payload. When the fast path's two decoders disagree
   and OpenCV has not voted, OpenCV reads the code's surroundings as a tie-breaker.

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

from vision.codes.payload import latin1_transcoded_text, payload_text
from vision.codes.reading import Code, quad_area, same_place

log = logging.getLogger(__name__)

ZXING, ZBAR, OPENCV = "zxing-cpp", "zbar", "opencv"
#: Decoder trust, most trusted first (see the module docstring for the measurement).
TRUST: tuple[str, ...] = (ZXING, ZBAR, OPENCV)

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
    step that produced it (for debugging)."""

    decoder: str
    text: str
    payload: bytes | None
    quad: Quad
    step: str


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
        reads.append(Read(ZXING, r.text, bytes(r.bytes), quad, f"zxing-{binarizer}"))
    return reads, failed


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


#: Largest image (pixels) zbar scans whole. zbar scans every row and column, which costs
#: some 50 ms on a 1280x720 frame against 2 ms for zxing-cpp; on larger frames zbar reads
#: crops around the codes zxing-cpp found or located instead (its vote still counts).
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


def _median(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    return _u8(cv2.medianBlur(g, 3)), 1.0


def _clahe(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    return _u8(cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(g)), 1.0


def _sharpen(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
    soft = cv2.GaussianBlur(g, (0, 0), 3)
    return _u8(cv2.addWeighted(g, 1.5, soft, -0.5, 0)), 1.0


def _resize(f: float) -> Transform:
    def t(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
        interp = cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA
        h, w = g.shape
        size = (max(1, round(w * f)), max(1, round(h * f)))
        return _u8(cv2.resize(g, size, interpolation=interp)), size[0] / w

    return t


def _then(a: Transform, b: Transform) -> Transform:
    def t(g: NDArray[np.uint8]) -> tuple[NDArray[np.uint8], float]:
        g1, s1 = a(g)
        g2, s2 = b(g1)
        return g2, s1 * s2

    return t


Decoder = Callable[[NDArray[np.uint8], str], list[Read]]


def _zx(binarizer: str) -> Decoder:
    def d(g: NDArray[np.uint8], step: str) -> list[Read]:
        reads, _ = zxing_read(g, binarizer)
        return [Read(r.decoder, r.text, r.payload, r.quad, step) for r in reads]

    return d


@dataclass(frozen=True)
class Step:
    """One fallback: a transform, then decoders. ``max_side``/``min_side`` limit it by the
    image's longest side (pixels); ``needs_evidence``: run it only when zxing-cpp located a QR
    code it could not decode (frames without any QR code then skip it)."""

    name: str
    transform: Transform
    decoders: tuple[Decoder, ...]
    max_side: int | None = None
    min_side: int | None = None
    needs_evidence: bool = False

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
                reads.append(Read(r.decoder, r.text, r.payload, r.quad / np.float32(scale), r.step))
        return reads


#: Whole-image fallbacks, cheapest and most useful first. On ZXing's photos the global
#: binarizer reads a T-shirt code (qrcode-4/34) and the blur a halftone one (qrcode-2/12)
#: that nothing else reads; the others are generic (small codes, flat contrast, softness).
CHEAP_STEPS: tuple[Step, ...] = (
    Step("global-binarizer", _identity, (_zx("global"),)),
    Step("blur3", _blur(3), (_zx("local"), _zx("global"), zbar_read)),
    Step("up2", _resize(2.0), (_zx("local"), _zx("global")), max_side=800),
    Step("half", _resize(0.5), (_zx("global"), zbar_read), min_side=1000),
    Step("median3", _median, (_zx("local"), _zx("global")), needs_evidence=True),
    Step("clahe", _clahe, (_zx("local"), zbar_read), needs_evidence=True),
    Step("sharpen", _sharpen, (_zx("local"), zbar_read), needs_evidence=True),
)

#: Fallbacks on a crop around a QR code that zxing-cpp located but could not decode.
CROP_STEPS: tuple[Step, ...] = (
    Step("crop-opencv", _identity, (opencv_read, opencv_aruco_read)),
    Step("crop-curved", _identity, (opencv_curved_read,)),
    Step("crop-up2", _resize(2.0), (_zx("local"), _zx("global"), zbar_read, opencv_read)),
    Step("crop-blur5", _blur(5), (_zx("local"), _zx("global"), zbar_read)),
    # OpenCV's curved decoder can take a second on a large image: small crops only.
    Step(
        "crop-up3-blur3-curved", _then(_resize(3.0), _blur(3)), (opencv_curved_read,), max_side=320
    ),
    Step("crop-clahe", _clahe, (_zx("local"), _zx("global"), zbar_read, opencv_read)),
)


# ---- the reader ------------------------------------------------------------------------------


def read_qr(
    grey: NDArray[np.uint8], trace: QrTrace | None = None, *, fallbacks: bool = True
) -> list[Code]:
    """Every QR code in a (h, w) uint8 grey image, each once; corners in its pixels.

    See the module docstring for the steps. ``fallbacks=False`` runs the fast path only (for
    live video, where the next frame is another chance). ``trace`` (optional) collects what
    was run.
    """
    steps = trace.steps if trace is not None else []
    reads, evidence = zxing_read(grey, "local")
    if grey.size <= ZBAR_MAX_PIXELS:
        reads += zbar_read(grey, "zbar")
    else:  # zbar confirms what zxing-cpp read, on crops
        for r in list(reads):
            reads += _on_crop(grey, r.quad, zbar_read, "zbar-crop")
    steps.append("fast")

    if fallbacks and (not reads or _unexplained(evidence, reads)):
        for step in CHEAP_STEPS:
            if not step.applies(grey) or (step.needs_evidence and not evidence):
                continue
            steps.append(step.name)
            new = step.run(grey)
            reads += new
            if new and not _unexplained(evidence, reads):
                break

    for quad in _unexplained(evidence, reads) if fallbacks else []:
        for step in CROP_STEPS:
            if not step.applies(_crop(grey, quad)[2]):
                continue
            steps.append(step.name)
            new = _on_crop(grey, quad, step.decode, step.name)
            reads += new
            if any(same_place(r.quad, quad) for r in new):
                break

    codes = fuse(reads)
    contested = [c for c in codes if c.dissent and OPENCV not in c.decoders + c.dissent]
    if contested:
        # A tie-break: OpenCV reads the contested codes' surroundings.
        for c in contested:
            reads += _on_crop(grey, c.corners_px, opencv_read, "tie-break")
        codes = fuse(reads)
    if trace is not None:
        trace.reads.extend(reads)
    return codes


def _on_crop(grey: NDArray[np.uint8], quad: Quad, decode: Decoder, step: str) -> list[Read]:
    """``decode`` on the part of ``grey`` around ``quad``; reads in ``grey``'s pixels."""
    x0, y0, crop = _crop(grey, quad)
    shift = np.array([x0, y0], np.float32)
    return [Read(r.decoder, r.text, r.payload, r.quad + shift, r.step) for r in decode(crop, step)]


def _unexplained(evidence: Iterable[Quad], reads: Sequence[Read]) -> list[Quad]:
    """The evidence quads that no read lies on; overlapping evidence counted once (the
    largest outline kept: zxing-cpp also reports failed partial outlines of one code)."""
    left: list[Quad] = []
    for quad in sorted(evidence, key=quad_area, reverse=True):
        if any(same_place(quad, r.quad) for r in reads):
            continue
        if any(same_place(quad, q) for q in left):
            continue
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
    group's text chosen by vote, then by decoder trust (:data:`TRUST`)."""
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
    """The text of one place: most decoders, then most trusted decoder."""
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

    def rank(text: str) -> tuple[int, int]:
        best_trust = min(TRUST.index(d) for d in voters[text])
        return (-len(voters[text]), best_trust)

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
    )
