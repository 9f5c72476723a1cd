"""Annotated images of a Picmix reading: each item boxed and named, and the verdict."""

from __future__ import annotations

import cv2
import numpy as np

from vision.picmix.reading import ItemSighting, PicmixFailure, PicmixReading

GREEN = (40, 170, 40)
ORANGE = (0, 140, 255)
RED = (40, 40, 220)
BLUE = (200, 110, 20)
GREY = (150, 150, 150)


def _label(
    img: np.ndarray, text: str, org: tuple[int, int], colour: tuple[int, int, int], scale: float
) -> None:
    """``text`` on a filled box at ``org`` (its bottom-left), clipped to the image."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    th = max(1, round(scale * 2))
    (tw, tht), base = cv2.getTextSize(text, font, scale, th)
    x = int(np.clip(org[0], 0, max(0, img.shape[1] - tw - 2)))
    y = int(np.clip(org[1], tht + 2, img.shape[0] - base - 1))
    cv2.rectangle(img, (x - 1, y - tht - 2), (x + tw + 1, y + base), colour, -1)
    cv2.putText(img, text, (x, y), font, scale, (255, 255, 255), th, cv2.LINE_AA)


def _sighting(img: np.ndarray, s: ItemSighting, scale: float) -> None:
    x, y, w, h = s.box_xywh
    if s.on == "objective":
        colour = BLUE
    else:
        colour = {"visible": GREEN, "unsure": ORANGE, "hidden": GREY}[s.status]
    cv2.rectangle(img, (x - 2, y - 2), (x + w + 1, y + h + 1), colour, 2)
    text = s.item if s.status == "visible" else f"{s.item}? {round(100 * s.visible_share)}%"
    if s.status == "hidden":
        text = f"({s.item} {round(100 * s.visible_share)}%)"
    _label(img, text, (x - 2, y - 4), colour, scale)


def annotate(frame: np.ndarray, reading: PicmixReading | PicmixFailure) -> np.ndarray:
    """A copy of ``frame`` ((H, W, 3) uint8 BGR) with the reading drawn: player items boxed
    (green: visible, orange: unsure, grey: a covered sliver), objective items in blue, the
    objective's outline when known, and a banner with the verdict, missing and extra items."""
    out = frame.copy()
    scale = max(0.4, frame.shape[1] / 2400)
    for s in reading.sightings:
        _sighting(out, s, scale)
    if isinstance(reading, PicmixFailure):
        lines = [("UNSURE: " if reading.covered else "ERROR: ") + reading.reason]
        colour = ORANGE if reading.covered else RED
    else:
        if reading.objective_quad_px is not None:
            q = np.asarray(reading.objective_quad_px, np.int32).reshape(-1, 1, 2)
            cv2.polylines(out, [q], True, BLUE, 2, cv2.LINE_AA)
        colour = {"correct": GREEN, "wrong": RED, "unsure": ORANGE}[reading.verdict]
        obj = reading.objective_card or "objective"
        lines = [
            f"{reading.verdict.upper()}  {obj} ({reading.objective_method}): "
            + ", ".join(reading.objective_items),
            "visible: " + (", ".join(reading.visible) or "-"),
        ]
        if reading.missing:
            lines.append("missing: " + ", ".join(reading.missing))
        if reading.extra:
            lines.append("extra: " + ", ".join(reading.extra))
        if reading.unsure:
            lines.append("unsure: " + ", ".join(reading.unsure))
    big = scale * 1.3
    y = int(30 * big) + 6
    for line in lines:
        _label(out, line, (8, y), colour, big)
        y += int(34 * big) + 4
    return out
