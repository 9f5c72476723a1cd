"""A picture of a reading for people: the rectified board with every piece outlined and
labelled, and the counts and cost in a bar above it."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.picasso.reading import BoardReading
from vision.picasso.sink import split_polyline

#: Scale of the annotated picture, pixels per millimetre (the canvas is upsampled to it).
SCALE_PX_PER_MM = 3.0
BAR_PX = 64

LONG_BGR = (20, 90, 230)  # orange-red
SHORT_BGR = (200, 110, 20)  # blue
SHAPE_BGR = (30, 30, 30)
STRING_BGR = (200, 40, 200)  # magenta
OCCLUDED_BGR = (40, 40, 220)
FONT = cv2.FONT_HERSHEY_SIMPLEX


def _label(
    img: NDArray[np.uint8],
    text: str,
    org: tuple[int, int],
    colour: tuple[int, int, int],
    scale: float = 0.5,
) -> None:
    """Text with a white halo, readable on wood, colour and canvas alike."""
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, 1)
    x = int(np.clip(org[0] - tw // 2, 2, img.shape[1] - tw - 2))
    y = int(np.clip(org[1] + th // 2, th + 2, img.shape[0] - 3))
    cv2.putText(img, text, (x, y), FONT, scale, (255, 255, 255), 4, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), FONT, scale, colour, 1, cv2.LINE_AA)


def annotate(reading: BoardReading, stick_width_mm: float = 8.0) -> NDArray[np.uint8]:
    """The annotated picture: (BAR_PX + 3 * 260, 3 * 360, 3) uint8 BGR for the default
    canvas (3 px/mm)."""
    k = SCALE_PX_PER_MM
    src = reading.canvas
    h = round(src.shape[0] / reading.px_per_mm * k)
    w = round(src.shape[1] / reading.px_per_mm * k)
    board = cv2.resize(src, (w, h), interpolation=cv2.INTER_CUBIC)
    # Fade the board a little so that the drawing stands out.
    board = cv2.addWeighted(board, 0.8, np.full_like(board, 255), 0.2, 0)

    def px(p: tuple[float, float] | NDArray[np.floating]) -> tuple[int, int]:
        return (round(float(p[0]) * k), round(float(p[1]) * k))

    if reading.occlusion is not None:
        over = board.copy()
        for outline in reading.occlusion.outlines_mm:
            pts = np.round(np.asarray(outline) * k).astype(np.int32)
            cv2.fillPoly(over, [pts], OCCLUDED_BGR)
        board = cv2.addWeighted(board, 0.6, over, 0.4, 0)
        for outline in reading.occlusion.outlines_mm:
            pts = np.round(np.asarray(outline) * k).astype(np.int32)
            cv2.polylines(board, [pts], True, OCCLUDED_BGR, 2, cv2.LINE_AA)
    if reading.string is not None:
        parts = split_polyline(reading.string.points_mm)
        for part in parts:
            pts = np.round(part * k).astype(np.int32)
            cv2.polylines(board, [pts], False, STRING_BGR, 2, cv2.LINE_AA)
        if parts:
            _label(board, "string", px(parts[0][0]), STRING_BGR)
    for sh in reading.shapes:
        pts = np.round(sh.outline_mm * k).astype(np.int32)
        cv2.polylines(board, [pts], True, (255, 255, 255), 4, cv2.LINE_AA)
        cv2.polylines(board, [pts], True, SHAPE_BGR, 2, cv2.LINE_AA)
        name = sh.shape.replace("_", "-")
        _label(board, f"{sh.colour} {name}", px(sh.centre_mm), SHAPE_BGR)
    for i, st in enumerate(reading.sticks, 1):
        colour = LONG_BGR if st.kind == "long_stick" else SHORT_BGR
        p0, p1 = np.asarray(st.p0_mm), np.asarray(st.p1_mm)
        d = p1 - p0
        n = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-6) * stick_width_mm / 2
        rect = np.array([p0 + n, p1 + n, p1 - n, p0 - n]) * k
        cv2.polylines(board, [np.round(rect).astype(np.int32)], True, colour, 2, cv2.LINE_AA)
        cv2.line(board, px(p0), px(p1), colour, 1, cv2.LINE_AA)
        tag = ("L" if st.kind == "long_stick" else "S") + str(i)
        _label(board, tag, px((p0 + p1) / 2), colour, 0.55)
    bar = np.full((BAR_PX, w, 3), 250, np.uint8)
    seen = reading.seen_counts
    text = (
        f"long {seen['long_stick']}   short {seen['short_stick']}   "
        f"shapes {seen['shape']}   string {seen['string']}"
    )
    if reading.occlusion is not None:
        head = f"OCCLUDED ({100 * reading.occlusion.covered_fraction:.0f}% covered): not counted"
        cv2.putText(bar, head, (12, 26), FONT, 0.75, OCCLUDED_BGR, 2, cv2.LINE_AA)
        cv2.putText(bar, "seen: " + text, (12, 52), FONT, 0.55, (60, 60, 60), 1, cv2.LINE_AA)
    else:
        cost = reading.cost
        head = f"cost {cost}" + ("   (over 10: the card is lost)" if (cost or 0) > 10 else "")
        cv2.putText(bar, head, (12, 26), FONT, 0.8, (20, 20, 20), 2, cv2.LINE_AA)
        cv2.putText(bar, text, (12, 52), FONT, 0.55, (60, 60, 60), 1, cv2.LINE_AA)
    if reading.warning:
        note = "no camera calibration: lens distortion not corrected"
        (tw, _), _ = cv2.getTextSize(note, FONT, 0.45, 1)
        cv2.putText(bar, note, (w - tw - 10, 52), FONT, 0.45, (0, 110, 200), 1, cv2.LINE_AA)
    if reading.doubt:
        # the reason's first clause, short enough for the bar: "the camera sees the board
        # coarsely (0.62 px/mm, ...)" -> "check the counts: the camera sees ... (0.62 px/mm)"
        head_text = reading.doubt.split(":")[0].split(", ")[0]
        note = "check the counts: " + head_text + (")" if "(" in head_text else "")
        (tw, _), _ = cv2.getTextSize(note, FONT, 0.45, 1)
        cv2.putText(bar, note, (w - tw - 10, 40), FONT, 0.45, (0, 0, 200), 1, cv2.LINE_AA)
    legend = [("L = long stick", LONG_BGR), ("S = short stick", SHORT_BGR)]
    x = w - 10
    for name, colour in reversed(legend):
        (tw, _), _ = cv2.getTextSize(name, FONT, 0.5, 1)
        x -= tw
        cv2.putText(bar, name, (x, 24), FONT, 0.5, colour, 1, cv2.LINE_AA)
        x -= 18
    cv2.line(bar, (0, BAR_PX - 1), (w, BAR_PX - 1), (180, 180, 180), 1)
    return np.vstack([bar, board])
