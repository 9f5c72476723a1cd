"""Frame sources behind one protocol, and a capture thread that hands over the newest frame.

Sources (``FrameSource``): ``CameraSource`` (a local camera), ``StreamSource`` (RTSP/HTTP
through OpenCV), ``VideoFileSource``, ``ImageFolderSource``, ``SyntheticSource`` (any
iterable of ``(image, t)``, such as a rendered synthetic session); ``open_source(spec)``
picks one from a command-line string. Tests pass their own fakes the same way, the way httpx
tests pass a ``MockTransport``.

Consumers: ``LatestFrameReader`` (a capture thread, newest-frame handover, reopening with
back-off, gaps and skips counted in ``ReaderStats``) and ``iter_frames`` (offline, in the
calling thread). Both hand over ``Frame``s whose ``image`` is (H, W, 3) uint8 BGR, ``t`` in
seconds; ``FrameGuard`` converts grey and BGRA frames and skips, with a counted reason, the
ones that cannot be used.

Logging goes to the ``pictable.sources`` logger.
"""

from vision.sources.base import Frame, FrameSource, SourceError, check_positive
from vision.sources.capture import (
    DEFAULT_CAMERA_SIZE_WH,
    FALLBACK_FPS,
    CameraSource,
    StreamSource,
    VideoFileSource,
    redact_url,
)
from vision.sources.folder import IMAGE_SUFFIXES, ImageFolderSource, natural_key
from vision.sources.guard import (
    Convert,
    FrameGuard,
    Skip,
    check_frame,
    describe_array,
    normalise_image,
)
from vision.sources.limits import MAX_IMAGE_PIXELS, header_size_wh, too_large
from vision.sources.reader import Backoff, LatestFrameReader, ReaderStats, iter_frames
from vision.sources.spec import STREAM_SCHEMES, open_source
from vision.sources.synthetic import SyntheticSource

__all__ = [
    "DEFAULT_CAMERA_SIZE_WH",
    "FALLBACK_FPS",
    "IMAGE_SUFFIXES",
    "MAX_IMAGE_PIXELS",
    "STREAM_SCHEMES",
    "Backoff",
    "CameraSource",
    "Convert",
    "Frame",
    "FrameGuard",
    "FrameSource",
    "ImageFolderSource",
    "LatestFrameReader",
    "ReaderStats",
    "Skip",
    "SourceError",
    "StreamSource",
    "SyntheticSource",
    "VideoFileSource",
    "check_frame",
    "check_positive",
    "describe_array",
    "header_size_wh",
    "iter_frames",
    "natural_key",
    "normalise_image",
    "open_source",
    "redact_url",
    "too_large",
]
