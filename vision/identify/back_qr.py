"""A card back's big QR code read by its likeness to every back's, as blur shows it (issue
26, part 3: codes at low resolution, read with what is known).

Every portrait back carries one QR code, 34.7 mm wide (21 modules of 1.65 mm), centred
(KIT.md; :data:`vision.kit.geometry.BACK_QR_RECT`), and the backs of a game differ only
there and in their two markers: the backs' pictures are one picture, so the picture that
checks a small front's markers read by likeness cannot tell one back from another. A card
40 px wide shows its back's QR code about 22 px wide, a module a pixel: no decoder reads it,
but the blurred pattern still tells which of the game's codes it is. Where a card's two
markers are placed (an affine map of the face to the frame), the code's square and a module
of its quiet zone are sampled on a grid of :data:`SAMPLES` points a module and correlated
with each back's code as blur would show it (each blurred by each of
:data:`BLUR_MODULES`, the best blur counting). What every code shares (finder patterns,
timing, format) is taken out of the templates and of the samples first: only the modules
that tell codes apart are compared.

Measured at the true outlines of the backs of the hard codes tables (development looks,
seed 2: 147 backs of Pick Pic cards in view, 23 of them left unnamed by the reader): with
the shared pattern kept, every code correlated 0.8 or more with every back; taken out, the
card's own code led every other back's by 0.1 or more on 112 of the 124 backs named, and on
11 of the 23 unnamed."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from vision.identify.blur_read import gaussian_rows
from vision.identify.dark_squares import _sample_xy
from vision.kit import geometry as g
from vision.kit.codes import face_codes, marker_table, qr_matrix

#: Sample points a module.
SAMPLES = 2
#: Quiet-zone modules sampled round the code (white).
PAD_MODULES = 1
#: The blurs each code is drawn with: the Gaussian's sigma, in modules.
BLUR_MODULES = (0.0, 0.4, 0.7, 1.0)


def _side() -> int:
    return (g.QR_MODULES + 2 * PAD_MODULES) * SAMPLES


@functools.cache
def face_points() -> NDArray[np.float64]:
    """(p, 2) face points (mm) sampled over the back's code and its quiet zone, row by row
    (symmetric about the card's centre: turned half round, the same points reversed)."""
    r = g.BACK_QR_RECT
    module = r.w / g.QR_MODULES
    t = (np.arange(_side()) + 0.5) / SAMPLES * module - PAD_MODULES * module
    u, v = np.meshgrid(r.x + t, r.y + t)
    return np.column_stack([u.ravel(), v.ravel()])


def _blurred(light: NDArray[np.float64], sigma: float) -> NDArray[np.float64]:
    """``light`` (s, s) blurred by a Gaussian of ``sigma`` samples (cut at the edges:
    :func:`vision.identify.blur_read.gaussian_rows`)."""
    if sigma <= 0:
        return light
    x = np.arange(len(light), dtype=np.float64)
    m = gaussian_rows(x, x, sigma)
    return m @ light @ m.T


@functools.cache
def templates(
    game: str,
) -> tuple[tuple[str, ...], NDArray[np.float32], NDArray[np.float32]] | None:
    """The game's backs that carry the big code: (card ids (k,), templates (b, k, p) and
    the pattern they share (b, p)), per blur of :data:`BLUR_MODULES`: each code light 1 and
    dark 0 with its quiet zone, up-sampled, blurred, the shared pattern taken out, zero mean
    and unit norm. None when the game has no such backs."""
    cards = sorted(
        {
            card
            for card, side in marker_table().values()
            if side == "back" and card.startswith(f"{game}-")
        }
    )
    codes = [(c, face_codes(c, "back")) for c in cards]
    codes = [(c, f.qr_payload) for c, f in codes if f.qr_payload and f.qr_rect == g.BACK_QR_RECT]
    if len(codes) < 2:
        return None
    up = np.ones((SAMPLES, SAMPLES))
    lights = [
        np.kron(np.pad(1.0 - qr_matrix(p).astype(np.float64), PAD_MODULES, constant_values=1.0), up)
        for _, p in codes
    ]
    out, shared = [], []
    for sigma in BLUR_MODULES:
        t = np.stack([_blurred(light, sigma * SAMPLES).ravel() for light in lights])
        t -= t.mean(axis=1, keepdims=True)
        t /= np.linalg.norm(t, axis=1, keepdims=True) + 1e-12
        common = t.mean(axis=0)
        common /= np.linalg.norm(common) + 1e-12
        t -= np.outer(t @ common, common)
        t /= np.linalg.norm(t, axis=1, keepdims=True) + 1e-12
        out.append(t)
        shared.append(common)
    return (
        tuple(c for c, _ in codes),
        np.stack(out).astype(np.float32),
        np.stack(shared).astype(np.float32),
    )


def back_scores(
    grey: NDArray[np.uint8], maps: NDArray[np.float64], game: str
) -> tuple[tuple[str, ...], NDArray[np.float32]]:
    """The game's backs (k,) and the correlation (n, 2, k) of the code where each affine map
    ``maps`` (n, 3, 2: face mm, homogeneous, to frame px) puts the back's, as it lies (0)
    and turned half round (1), with each back's code (the best over the blurs); no backs:
    ``((), (n, 2, 0))``."""
    found = templates(game)
    n = len(maps)
    if found is None or n == 0:
        return (), np.zeros((n, 2, 0), np.float32)
    cards, t, common = found
    face = face_points()
    pts = np.hstack([face, np.ones((len(face), 1))])
    xy = np.einsum("pj,njk->npk", pts, np.asarray(maps, np.float64))
    s = _sample_xy(grey, xy[..., 0], xy[..., 1]).astype(np.float32)  # (n, p)
    s = np.stack([s, s[:, ::-1]], axis=1)  # (n, 2, p): turned half round, reversed
    s -= s.mean(axis=2, keepdims=True)
    s /= np.linalg.norm(s, axis=2, keepdims=True) + 1e-9
    best = np.full((n, 2, len(cards)), -1.0, np.float32)
    for b in range(len(t)):
        r = s - (s @ common[b])[..., None] * common[b]
        r /= np.linalg.norm(r, axis=2, keepdims=True) + 1e-9
        best = np.maximum(best, r @ t[b].T)
    return cards, best


#: A back is told by its code where its own correlates at least QR_MIN and QR_LEAD more
#: than every other back's. At the outlines of hard codes tables whose markers name a back
#: (development sets: the project's development looks seeds 2 and 3, wide looks seed 2, the
#: kit's look seed 0; 210 outlines whose best marker leads, by any margin), the 53 that named
#: a back not there led by -0.07 at most (its own at most 0.17); of the 157 on the back
#: named, 134 led by 0.05 or more.
QR_MIN = 0.3
QR_LEAD = 0.05


def confirms(
    grey: NDArray[np.uint8], face_to_frame: NDArray[np.float64], pose: int, card: str, game: str
) -> bool:
    """Whether the code where the affine map ``face_to_frame`` (3, 2) puts a back's, as it
    lies (``pose`` 0) or turned half round (1), is ``card``'s back's by :data:`QR_MIN` and
    :data:`QR_LEAD`."""
    cards, scores = back_scores(grey, face_to_frame[None], game)
    if card not in cards:
        return False
    k = cards.index(card)
    s = scores[0, pose]
    own = float(s[k])
    others = float(np.delete(s, k).max()) if len(s) > 1 else -1.0
    return own >= QR_MIN and own - others >= QR_LEAD
