"""The printed codes of the kit: ArUco marker ids of card faces, and QR payloads.

Marker ids
----------
Cards carry ArUco markers of OpenCV's ``DICT_4X4_1000``. Ids 0-49 are left to the table
fiducials (``DICT_4X4_50``, a prefix of ``DICT_4X4_1000``: play area 0-3, Picasso board 4-7).
Every card face has its own id, the same on both markers of the face, so one marker names the
card *and* which face is up.

The ids come from ``MARKER_ORDER``, a greedy selection over ids 50-999 (``select_marker_ids``):
each step takes the marker farthest (Hamming distance over all four rotations) from the
fiducials 0-49 and the markers already taken, and from its own rotations; ties go to the
marker that blocks the fewest remaining candidates (at distance 3 and more) or has the fewest
taken markers at that distance (at distance 2), then to the lowest id. Slots of that order are
reserved per game, so adding cards to one deck never renumbers another:

======== ===================== ============================================
game     slots of MARKER_ORDER  card k of the deck (0-based) gets
======== ===================== ============================================
pickpic  0-239                 front slot 2k, back slot 2k + 1
picmix   240-337               (objectives 01-25, then red, blue, ... sets)
picasso  338-497               (up to 80 cards)
picflip  498-717               (104 cards, then the 6 covers)
======== ===================== ============================================

Minimum Hamming distance (rotations included, fiducials 0-49 included): **2** over all 718
reserved markers (702 are used today), so a single wrong bit never turns one face's marker
into another face's or into a fiducial; **3** over the first 343, which hold all of Pick Pic
and Picmix (the games read face down or at a distance), so a reader restricted to those could
even correct one wrong bit. Every reserved marker differs from its own rotations by at least 2
bits (the first 343 by at least 4), so its orientation is never ambiguous. OpenCV's detector
with ``DICT_4X4_1000`` corrects no bits (the dictionary's own minimum distance is 2); map the
ids it reports with ``card_for_marker``, which ignores ids that are not on a card.

QR payloads
-----------
``PT1:<CARD-ID>:<F|B>``: scheme version ``PT1``, the card id in capitals (QR alphanumeric mode
keeps the code at version 1), ``F`` for the front, ``B`` for the back. Example:
``PT1:PICKPIC-007:B``. ``parse_payload`` accepts the payload as printed, in capitals (a
lower-case ``pt1:pickpic-007:b`` was printed by no kit card), with surrounding white space.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from vision.kit import geometry as g
from vision.kit.decks import GAMES, get_card, is_card_id, load_deck
from vision.kit.geometry import FACES, Face, Rect

# fmt: off
MARKER_ORDER: tuple[int, ...] = (
    696, 85, 486, 77, 220, 402, 763, 118, 320, 52, 50, 53, 59, 62, 70, 79, 86, 181, 338, 664,
    691, 65, 76, 602, 757, 55, 81, 391, 896, 51, 68, 71, 56, 58, 158, 350, 206, 291, 405, 455,
    69, 328, 82, 80, 160, 243, 282, 313, 57, 64, 105, 123, 131, 148, 187, 194, 196, 225, 234,
    237, 278, 289, 295, 309, 364, 366, 527, 634, 944, 958, 977, 67, 93, 95, 96, 100, 106, 107,
    109, 119, 134, 136, 140, 142, 143, 145, 147, 149, 154, 163, 164, 170, 175, 176, 178, 179,
    185, 189, 209, 212, 218, 221, 222, 229, 245, 248, 251, 258, 260, 262, 264, 270, 272, 275,
    290, 299, 301, 312, 314, 317, 331, 334, 335, 339, 352, 353, 355, 356, 357, 378, 380, 383,
    384, 407, 514, 535, 567, 597, 608, 672, 687, 694, 698, 725, 746, 761, 838, 860, 914, 942,
    982, 989, 54, 60, 63, 74, 97, 98, 101, 102, 104, 108, 113, 116, 120, 121, 127, 129, 130,
    132, 141, 144, 159, 161, 162, 166, 168, 169, 171, 172, 188, 190, 197, 205, 214, 224, 227,
    228, 230, 232, 236, 239, 242, 246, 247, 265, 267, 268, 274, 277, 279, 280, 284, 302, 305,
    311, 318, 319, 324, 336, 337, 344, 346, 347, 349, 351, 354, 361, 362, 363, 372, 377, 382,
    385, 387, 410, 423, 434, 436, 456, 468, 494, 547, 621, 642, 657, 665, 669, 674, 709, 717,
    730, 734, 748, 759, 769, 802, 811, 813, 815, 826, 843, 851, 943, 957, 61, 72, 99, 126, 128,
    133, 155, 157, 167, 180, 183, 186, 191, 199, 200, 203, 204, 210, 217, 226, 231, 240, 244,
    249, 253, 256, 263, 271, 273, 281, 286, 292, 296, 300, 304, 308, 310, 325, 342, 359, 360,
    367, 376, 386, 388, 390, 419, 498, 530, 577, 584, 693, 756, 784, 847, 897, 903, 934, 986,
    94, 103, 125, 135, 138, 152, 182, 184, 207, 241, 276, 315, 316, 340, 373, 428, 513, 585,
    692, 715, 777, 962, 285, 330, 358, 614, 866, 905, 880, 511, 75, 78, 84, 87, 90, 91, 111,
    112, 114, 115, 117, 122, 124, 137, 150, 165, 177, 192, 193, 195, 198, 202, 208, 213, 233,
    238, 255, 257, 259, 261, 266, 269, 287, 288, 293, 294, 297, 298, 306, 307, 322, 323, 326,
    327, 329, 332, 341, 343, 345, 348, 365, 370, 371, 374, 375, 379, 381, 393, 415, 424, 444,
    478, 497, 505, 522, 539, 549, 556, 560, 564, 566, 569, 570, 571, 575, 583, 593, 623, 630,
    649, 650, 656, 659, 678, 681, 683, 689, 714, 719, 726, 749, 770, 771, 779, 796, 798, 818,
    824, 841, 852, 855, 888, 890, 907, 909, 910, 921, 926, 928, 938, 948, 978, 994, 998, 66, 73,
    89, 92, 110, 146, 153, 156, 174, 211, 235, 252, 254, 283, 303, 321, 333, 369, 389, 394, 399,
    404, 408, 409, 411, 412, 413, 417, 427, 432, 433, 443, 453, 454, 457, 459, 461, 463, 477,
    480, 489, 490, 499, 501, 503, 504, 507, 510, 518, 526, 533, 536, 546, 562, 587, 591, 599,
    600, 601, 605, 606, 607, 609, 610, 613, 626, 629, 631, 633, 636, 675, 676, 680, 704, 713,
    716, 727, 728, 738, 745, 760, 762, 774, 780, 792, 794, 795, 800, 801, 808, 821, 857, 859,
    864, 865, 868, 883, 889, 908, 915, 924, 933, 946, 947, 952, 955, 968, 971, 983, 993, 996,
    997, 173, 201, 215, 397, 400, 416, 418, 431, 438, 440, 441, 442, 445, 448, 450, 467, 474,
    475, 476, 481, 483, 491, 495, 500, 508, 519, 520, 524, 528, 529, 531, 537, 540, 541, 542,
    553, 559, 563, 573, 582, 586, 590, 596, 603, 618, 620, 622, 635, 645, 646, 661, 662, 677,
    679, 686, 688, 695, 699, 701, 702, 711, 724, 732, 733, 736, 737, 739, 740, 754, 758, 776,
    782, 785, 786, 791, 797, 814, 817, 825, 829, 830, 839, 840, 842, 853, 856, 858, 861, 863,
    872, 876, 877, 878, 882, 891, 892, 893, 895, 898, 904, 906, 911, 916, 920, 932, 950, 964,
    974, 975, 985, 151, 219, 223, 250, 398, 401, 403, 420, 421, 425, 430, 449, 451, 460, 462,
    470, 473, 485, 487, 488, 492, 493, 496, 509, 515, 516, 521, 525, 545, 548, 552, 554, 557,
    565, 568, 572, 576, 578,
)
# fmt: on
"""Ids 50..999 in greedy order: ``select_marker_ids()`` (a test checks they agree)."""

SLOTS: dict[str, tuple[int, int]] = {
    "pickpic": (0, 240),
    "picmix": (240, 98),
    "picasso": (338, 160),
    "picflip": (498, 220),
}
"""Game -> (first slot in ``MARKER_ORDER``, number of slots)."""
N_SLOTS = 718
MIN_HAMMING_DISTANCE = 2
MIN_HAMMING_DISTANCE_FIRST_343 = 3


@functools.lru_cache(maxsize=1)
def _dictionary_bits() -> np.ndarray:
    """(1000, 4, 4) uint8 inner bits of ``DICT_4X4_1000`` (1 = white, as OpenCV stores them)."""
    import cv2

    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_1000)
    out = (
        np.stack(
            [
                cv2.aruco.Dictionary.getBitsFromByteList(d.bytesList[i : i + 1], 4)
                for i in range(d.bytesList.shape[0])
            ]
        )
        .reshape(-1, 4, 4)
        .astype(np.uint8)
    )
    out.setflags(write=False)
    return out


def marker_bits(marker_id: int) -> np.ndarray:
    """(6, 6) uint8 cells of marker ``marker_id`` of ``DICT_4X4_1000`` with its black border,
    1 = black, 0 = white, upright (row 0 at the top)."""
    bits = _dictionary_bits()
    if not 0 <= marker_id < bits.shape[0]:
        raise ValueError(f"marker id must be 0..{bits.shape[0] - 1}, got {marker_id}")
    out = np.ones((6, 6), np.uint8)
    out[1:5, 1:5] = 1 - bits[marker_id]
    return out


def marker_distances() -> tuple[np.ndarray, np.ndarray]:
    """(D, self_d): D (1000, 1000) int64, the Hamming distance between markers i and j taking
    the smaller over the four rotations of i; self_d (1000,) the distance of each marker to its
    own rotations by 90, 180 and 270 degrees."""
    bits = _dictionary_bits().astype(np.int64)
    n = bits.shape[0]
    w = 1 << np.arange(16, dtype=np.int64)
    codes = np.stack(
        [(np.rot90(bits, r, axes=(1, 2)).reshape(n, 16) * w).sum(1) for r in range(4)], axis=1
    )
    popcount = np.array([bin(i).count("1") for i in range(1 << 16)], np.int64)
    d = popcount[codes[:, :, None] ^ codes[None, :, 0][:, None, :]].min(axis=1)
    self_d = popcount[codes[:, 1:] ^ codes[:, :1]].min(axis=1)
    return d, self_d


def select_marker_ids(n: int = N_SLOTS, first: int = 50) -> tuple[int, ...]:
    """The greedy max-min-distance order of ``n`` marker ids >= ``first`` (module docstring)."""
    d, self_d = marker_distances()
    total = d.shape[0]
    levels = np.arange(17)[:, None]
    mind = np.minimum(d[:, :first].min(axis=1), self_d)
    close = (d[:first, :][:, None, :] <= levels[None]).sum(axis=0)  # (17, total)
    avail = np.zeros(total, bool)
    avail[first:] = True
    chosen: list[int] = []
    for _ in range(n):
        m = int(np.where(avail, mind, -1).max())
        if m < 0:
            raise ValueError(f"only {len(chosen)} markers available, {n} asked")
        cands = np.flatnonzero(avail & (mind == m))
        if m >= 3:
            key = (d[np.ix_(cands, np.flatnonzero(avail))] < m).sum(axis=1)
        else:
            key = close[m, cands]
        best = int(cands[int(np.argmin(key))])
        chosen.append(best)
        avail[best] = False
        mind = np.minimum(mind, d[best])
        close += d[best][None, :] <= levels
    return tuple(chosen)


def min_distance(ids: tuple[int, ...] | list[int], first: int = 50) -> int:
    """Smallest Hamming distance (rotations included) among ``ids``, to the fiducials
    0..first-1, and of each id to its own rotations."""
    d, self_d = marker_distances()
    a = np.asarray(ids)
    sub = d[np.ix_(a, a)].copy()
    np.fill_diagonal(sub, 99)
    return int(min(sub.min(), d[np.ix_(a, np.arange(first))].min(), self_d[a].min()))


# --------------------------------------------------------------------------------------------
# Card faces <-> marker ids
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def marker_table() -> dict[int, tuple[str, Face]]:
    """Marker id -> (card id, face) for every card face of the kit."""
    table: dict[int, tuple[str, Face]] = {}
    for game in GAMES:
        start, n = SLOTS[game]
        cards = load_deck(game).cards
        if 2 * len(cards) > n:
            raise ValueError(f"{game} has {len(cards)} cards, only {n // 2} marker pairs")
        for k, card in enumerate(cards):
            for f, face in enumerate(FACES):
                table[MARKER_ORDER[start + 2 * k + f]] = (card.id, face)
    return table


@functools.lru_cache(maxsize=1)
def _by_face() -> dict[tuple[str, Face], int]:
    return {v: k for k, v in marker_table().items()}


def marker_id(card_id: str, face: Face) -> int:
    """The ArUco id (``DICT_4X4_1000``) printed on ``face`` of ``card_id``."""
    try:
        return _by_face()[(card_id, face)]
    except KeyError:
        raise KeyError(f"no marker for card {card_id!r} face {face!r}") from None


def card_for_marker(marker: int) -> tuple[str, Face] | None:
    """(card id, face) of a ``DICT_4X4_1000`` marker id, or None for ids not on a card."""
    return marker_table().get(int(marker))


# --------------------------------------------------------------------------------------------
# QR payloads
# --------------------------------------------------------------------------------------------
PAYLOAD_SCHEME = "PT1"
_FACE_LETTER: dict[str, str] = {"front": "F", "back": "B"}
_LETTER_FACE: dict[str, Face] = {"F": "front", "B": "back"}
_PAYLOAD_RE = re.compile(r"PT1:([A-Z0-9]+(?:-[A-Z0-9]+)*):([FB])")
_MAX_PAYLOAD = 64


def format_payload(card_id: str, face: Face) -> str:
    """The QR text of ``face`` of ``card_id``: ``PT1:<CARD-ID>:<F|B>``."""
    if face not in _FACE_LETTER:
        raise ValueError(f"face must be 'front' or 'back', got {face!r}")
    if not is_card_id(card_id):
        raise KeyError(f"unknown card id {card_id!r}")
    return f"{PAYLOAD_SCHEME}:{card_id.upper()}:{_FACE_LETTER[face]}"


def parse_payload(text: object) -> tuple[str, Face] | None:
    """(card id, face) from a QR payload, or None when it is not one of ours.

    Accepts ``str`` or bytes-like; never raises, whatever it is given (other types, invalid
    UTF-8, huge or hostile strings all give None). The payload is read as the kit prints it
    (:func:`format_payload`): case-sensitive, in capitals, surrounding white space ignored.
    The card must exist in the kit.
    """
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("ascii")
        except UnicodeDecodeError:
            return None
    if not isinstance(text, str) or len(text) > _MAX_PAYLOAD or not text.isascii():
        return None
    m = _PAYLOAD_RE.fullmatch(text.strip())
    if m is None:
        return None
    card_id = m.group(1).lower()
    if not is_card_id(card_id):
        return None
    return card_id, _LETTER_FACE[m.group(2)]


@functools.lru_cache(maxsize=1024)
def qr_matrix(payload: str) -> np.ndarray:
    """(21, 21) uint8 modules of the version-1 QR code of ``payload`` (1 = dark), without
    quiet zone. Error correction is the highest level that still fits version 1."""
    import segno

    qr = segno.make_qr(payload, error="l", boost_error=True, version=1)
    out = np.array([list(row) for row in qr.matrix], dtype=np.uint8)
    out.setflags(write=False)
    return out


# --------------------------------------------------------------------------------------------
# What is printed where
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FaceCodes:
    """The codes printed on one card face; rectangles in face mm (``vision.kit.geometry``)."""

    card: str
    face: Face
    marker_id: int
    marker_rects: tuple[Rect, Rect]
    qr_payload: str | None
    qr_rect: Rect | None


def face_codes(card_id: str, face: Face) -> FaceCodes:
    """Where the codes of ``face`` of ``card_id`` are, and what they say.

    Every face has two markers (portrait: top-left and bottom-right; Picmix player cards:
    one per half). Portrait backs have the big centred QR; Pick Pic, Picasso and Picmix
    objective fronts a small one in the bottom-left corner; Pic Flip fronts and Picmix player
    faces none (no room).
    """
    card = get_card(card_id)
    mid = marker_id(card_id, face)
    rects = g.face_marker_rects(card_id)
    qr: Rect | None = None
    if card.kind != "player":
        if face == "back":
            qr = g.BACK_QR_RECT
        elif card.kind in ("photo", "word", "objective"):
            qr = g.FRONT_QR_RECT
    payload = format_payload(card_id, face) if qr is not None else None
    return FaceCodes(card_id, face, mid, rects, payload, qr)
