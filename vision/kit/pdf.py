"""A minimal PDF writer for printable pages: one full-page raster image per page, written page
by page (a long deck never sits in memory at once), with the page size in points exact.

Pages are (H, W, 3) uint8 BGR images at ``px_per_mm``; the page's MediaBox is W / px_per_mm
by H / px_per_mm millimetres, in points (1 pt = 25.4 / 72 mm). Colour pages are stored as JPEG
(``DCTDecode``), black-and-white pages losslessly (``FlateDecode``, grey). The output is
deterministic (no dates).
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, Literal

import numpy as np
from PIL import Image

from vision.kit.geometry import MM_PER_INCH

PT_PER_MM = 72.0 / MM_PER_INCH


def _num(x: float) -> bytes:
    return (f"{x:.4f}".rstrip("0").rstrip(".")).encode()


class PdfWriter:
    """Write pages to ``path``; use as a context manager, call ``add_page`` per page.

    The number of pages must be known up front (``n_pages``) so the page tree can be written
    first and each page streamed as it comes.
    """

    def __init__(
        self, path: str | Path, n_pages: int, px_per_mm: float, title: str = "pictable kit"
    ) -> None:
        if n_pages < 1:
            raise ValueError("a PDF needs at least one page")
        self.path = Path(path)
        self.n_pages = n_pages
        self.px_per_mm = px_per_mm
        self.title = title
        self._offsets: dict[int, int] = {}
        self._page = 0
        self._f: BinaryIO | None = None

    # object numbers: 1 catalog, 2 page tree, 3 info, then per page: page, image, contents
    def _ids(self, k: int) -> tuple[int, int, int]:
        return 4 + 3 * k, 5 + 3 * k, 6 + 3 * k

    def __enter__(self) -> PdfWriter:
        self._f = self.path.open("wb")
        self._f.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        kids = b" ".join(b"%d 0 R" % self._ids(k)[0] for k in range(self.n_pages))
        self._obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
        self._obj(2, b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % self.n_pages)
        title = (
            self.title.encode("ascii", "replace")
            .replace(b"\\", b"")
            .replace(b"(", b"")
            .replace(b")", b"")
        )
        self._obj(3, b"<< /Title (" + title + b") /Creator (pictable) >>")
        return self

    def _obj(self, num: int, body: bytes, stream: bytes | None = None) -> None:
        if self._f is None:
            raise RuntimeError("PdfWriter used outside its 'with' block")
        self._offsets[num] = self._f.tell()
        self._f.write(b"%d 0 obj\n" % num + body)
        if stream is not None:
            self._f.write(b"\nstream\n" + stream + b"\nendstream")
        self._f.write(b"\nendobj\n")

    def add_page(
        self, page_bgr: np.ndarray, encoding: Literal["jpeg", "flate"] = "jpeg", quality: int = 90
    ) -> None:
        """Append one page: an (H, W, 3) uint8 BGR image covering the whole page."""
        if page_bgr.ndim != 3 or page_bgr.shape[2] != 3 or page_bgr.dtype != np.uint8:
            raise ValueError(f"page must be (H, W, 3) uint8, got {page_bgr.shape} {page_bgr.dtype}")
        if self._page >= self.n_pages:
            raise ValueError(f"more than the {self.n_pages} pages announced")
        h, w = page_bgr.shape[:2]
        page_id, image_id, contents_id = self._ids(self._page)
        if encoding == "jpeg":
            # 4:2:0 chroma: the printed codes are black and white, so they keep full-resolution
            # luma; colour edges at 254 dpi lose nothing visible and the file is a quarter lighter
            buf = io.BytesIO()
            Image.fromarray(np.ascontiguousarray(page_bgr[..., ::-1])).save(
                buf, "JPEG", quality=quality, subsampling=2, optimize=False
            )
            data, filt, cs = buf.getvalue(), b"/DCTDecode", b"/DeviceRGB"
        else:
            grey = page_bgr.mean(axis=2).round().astype(np.uint8)
            data, filt, cs = zlib.compress(grey.tobytes(), 6), b"/FlateDecode", b"/DeviceGray"
        w_pt, h_pt = w / self.px_per_mm * PT_PER_MM, h / self.px_per_mm * PT_PER_MM
        self._obj(
            page_id,
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 "
            + _num(w_pt)
            + b" "
            + _num(h_pt)
            + b"] /Resources << /XObject << /Im0 %d 0 R >> >> "
            b"/Contents %d 0 R >>" % (image_id, contents_id),
        )
        self._obj(
            image_id,
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace " % (w, h)
            + cs
            + b" /BitsPerComponent 8 /Filter "
            + filt
            + b" /Length %d >>" % len(data),
            data,
        )
        content = b"q " + _num(w_pt) + b" 0 0 " + _num(h_pt) + b" 0 0 cm /Im0 Do Q"
        self._obj(contents_id, b"<< /Length %d >>" % len(content), content)
        self._page += 1

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        f = self._f
        if f is None:
            return
        try:
            if exc_type is None:
                if self._page != self.n_pages:
                    raise ValueError(f"{self._page} pages written, {self.n_pages} announced")
                xref = f.tell()
                n = max(self._offsets) + 1
                f.write(b"xref\n0 %d\n0000000000 65535 f \n" % n)
                for i in range(1, n):
                    f.write(b"%010d 00000 n \n" % self._offsets[i])
                f.write(
                    b"trailer\n<< /Size %d /Root 1 0 R /Info 3 0 R >>\nstartxref\n%d\n"
                    b"%%%%EOF\n" % (n, xref)
                )
        finally:
            f.close()
            self._f = None
