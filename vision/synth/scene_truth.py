"""The truth of a rendered scene (``build_truth``): every object of its spec with how much of
it the camera sees, in frame and under a hand, counted from the compositor's label buffers.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.camera import SS, Camera
from vision.synth.compositor import Counts
from vision.synth.effects import scene_effects
from vision.synth.scene_sprites import SceneBuilder, SceneSprites
from vision.synth.spec import (
    BOARD_MARKER_IDS,
    BOARD_MARKER_MM,
    CANVAS_WH_MM,
    PieceSpec,
    Pose,
    SceneSpec,
    ShapeSpec,
    StickSpec,
    StringSpec,
    on_canvas,
    piece_kind,
)
from vision.synth.truth import (
    PICMIX_VISIBLE_MIN,
    BoardTruth,
    CameraTruth,
    CardTruth,
    HalfTruth,
    HandTruth,
    MarkerTruth,
    PicmixAreaTruth,
    PicmixItemTruth,
    PieceTruth,
    Truth,
)


def _poly_area_px(camera: Camera, pts3: np.ndarray) -> float:
    px = camera.project_f64(pts3).astype(np.float32)
    return float(abs(cv2.contourArea(px)))


def _dense_rect(pose: Pose, size: tuple[float, float], n: int = 8) -> np.ndarray:
    w, h = size
    a = np.linspace(0, 1, n, endpoint=False)
    loc = np.concatenate(
        [
            np.stack([a * w, np.zeros(n)], 1),
            np.stack([np.full(n, w), a * h], 1),
            np.stack([w - a * w, np.full(n, h)], 1),
            np.stack([np.zeros(n), h - a * h], 1),
        ]
    )
    return pose.apply(loc)


def _fractions(
    camera: Camera, counts: Counts, labels: tuple[int, ...], outline3: np.ndarray
) -> tuple[float, float, float, float]:
    """(visible, in_frame, hand, area in supersampled px) for an object's labels."""
    drawn = float(sum(counts.drawn[i] for i in labels))
    w, h = camera.size_wh
    px = camera.project_f64(outline3)
    inside = bool(
        np.all(
            (px[:, 0] >= -0.5) & (px[:, 0] <= w - 0.5) & (px[:, 1] >= -0.5) & (px[:, 1] <= h - 0.5)
        )
    )
    area = drawn if inside and drawn > 0 else max(drawn, _poly_area_px(camera, outline3) * SS * SS)
    if area <= 0:
        return 0.0, 0.0, 0.0, 0.0
    vis = float(sum(counts.all[i] for i in labels)) / area
    hand = float(sum(counts.hand_cover[i] for i in labels)) / area
    return min(1.0, vis), min(1.0, drawn / area), min(1.0, hand), area


def _r(x: float) -> float:
    return round(float(x), 5)


def build_truth(
    spec: SceneSpec, ss: SceneSprites, counts: Counts, builder: SceneBuilder, seed: int
) -> Truth:
    """Assemble the ``Truth`` of a rendered scene from its spec and label counts."""
    cam = spec.camera
    cam_t = CameraTruth(
        K=cam.K.copy(),
        dist=cam.dist.copy(),
        rvec=cam.rvec.copy(),
        tvec=cam.tvec.copy(),
        image_size_wh=cam.size_wh,
        height_mm=cam.height_mm,
        tilt_deg=cam.tilt_deg,
        yaw_deg=cam.yaw_deg,
        roll_deg=cam.roll_deg,
        hfov_deg=cam.hfov_deg,
        target_mm=cam.target_mm,
    )
    cards: list[CardTruth] = []
    for c, labels, held in [
        *((c, lab, False) for c, lab in zip(spec.cards, ss.card_labels, strict=True)),
        *((c, lab, True) for c, lab in zip(spec.held_cards, ss.held_labels, strict=True)),
    ]:
        corners3 = c.pose.apply(c.corners_local())
        vis, inf, hand, area = _fractions(cam, counts, labels, _dense_rect(c.pose, c.size_wh_mm))
        halves: tuple[HalfTruth, ...] = ()
        info = builder.deck_card(c.card_id)
        items = info.face_items(c.face) if info is not None else None
        if items is not None and len(labels) == 2 and area > 0:
            halves = tuple(
                HalfTruth(name, item, _r(min(1.0, counts.all[lab] / (area / 2))))
                for name, item, lab in zip(
                    ("left", "right") if info and info.half_axis == "x" else ("top", "bottom"),
                    items,
                    labels,
                    strict=True,
                )
            )
        cards.append(
            CardTruth(
                card_id=c.card_id,
                face=c.face,
                corners_px=cam.project(corners3),
                corners_mm=corners3[:, :2].astype(np.float32),
                heights_mm=(-corners3[:, 2]).astype(np.float32),
                visible_fraction=_r(vis),
                in_frame_fraction=_r(inf),
                hand_fraction=_r(hand),
                held=held,
                area=c.area,
                halves=halves,
                items=info.items if info is not None and c.face == "front" else (),
            )
        )
    markers: list[MarkerTruth] = []
    for m, labels, margin in zip(spec.markers, ss.marker_labels, ss.marker_margins, strict=True):
        side = m.size_mm + 2 * margin
        pose = Pose.flat(m.center_mm, m.angle_deg, (side, side))
        loc = np.array(
            [
                [margin, margin],
                [margin + m.size_mm, margin],
                [margin + m.size_mm, margin + m.size_mm],
                [margin, margin + m.size_mm],
            ]
        )
        c3 = pose.apply(loc)
        inner = Pose.flat(m.center_mm, m.angle_deg, (m.size_mm, m.size_mm))
        vis, _, hand, _ = _fractions(
            cam, counts, labels, _dense_rect(inner, (m.size_mm, m.size_mm))
        )
        markers.append(
            MarkerTruth(
                m.marker_id,
                m.size_mm,
                cam.project(c3),
                c3[:, :2].astype(np.float32),
                _r(vis),
                _r(hand),
                False,
            )
        )
    board_t: BoardTruth | None = None
    b = spec.board
    if b is not None:
        cw, ch = CANVAS_WH_MM
        s = BOARD_MARKER_MM
        corners_b = [(0.0, 0.0), (cw, 0.0), (cw, ch), (0.0, ch)]
        outward = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
        for k, ((cx, cy), (sx, sy)) in enumerate(zip(corners_b, outward, strict=True)):
            x0 = cx - s if sx < 0 else cx
            y0 = cy - s if sy < 0 else cy
            sq = np.array([[x0, y0], [x0 + s, y0], [x0 + s, y0 + s], [x0, y0 + s]])
            t2 = b.to_table(sq)
            t3 = np.concatenate([t2, np.zeros((4, 1))], 1)
            lab = (ss.board_labels[2 + k],)
            dense = np.concatenate([t3, (t3 + np.roll(t3, -1, 0)) / 2])
            vis, _, hand, _ = _fractions(cam, counts, lab, dense[[0, 4, 1, 5, 2, 6, 3, 7]])
            markers.append(
                MarkerTruth(
                    BOARD_MARKER_IDS[k],
                    s,
                    cam.project(t3),
                    t2.astype(np.float32),
                    _r(vis),
                    _r(hand),
                    True,
                )
            )
        canvas_mm = b.canvas_corners_mm()
        canvas3 = np.concatenate([canvas_mm, np.zeros((4, 1))], 1)
        dense = np.concatenate(
            [
                canvas3 + (np.roll(canvas3, -1, 0) - canvas3) * t
                for t in np.linspace(0, 1, 8, endpoint=False)
            ]
        )
        order = np.argsort(np.tile(np.arange(4), 8) * 8 + np.repeat(np.arange(8), 4), kind="stable")
        vis, _, hand, _ = _fractions(cam, counts, (ss.board_labels[0],), dense[order])
        pieces: list[PieceTruth] = []
        for piece, labels in zip(b.pieces, ss.piece_labels, strict=True):
            pieces.append(_piece_truth(cam, b.to_table, piece, labels, counts))
        board_t = BoardTruth(
            canvas_corners_px=cam.project(canvas3),
            canvas_corners_mm=canvas_mm.astype(np.float32),
            center_mm=(float(b.center_mm[0]), float(b.center_mm[1])),
            angle_deg=float(b.angle_deg),
            canvas_visible_fraction=_r(vis),
            canvas_hand_fraction=_r(hand),
            pieces=tuple(pieces),
            counts=b.counts(),
            cost=b.cost(),
            glare=0.0 if b.glare is None else round(float(b.glare.strength), 3),
        )
    areas: list[PicmixAreaTruth] = []
    for a in spec.picmix_areas:
        area_items: list[PicmixItemTruth] = []
        for ct in cards:
            if ct.card_id in a.card_ids and not ct.held:
                area_items.extend(
                    PicmixItemTruth(h.item, ct.card_id, h.half, h.visible_fraction)
                    for h in ct.halves
                )
        visible = tuple(
            sorted({i.item for i in area_items if i.visible_fraction >= PICMIX_VISIBLE_MIN})
        )
        areas.append(PicmixAreaTruth(a.player, a.card_ids, tuple(area_items), visible))
    hands: list[HandTruth] = []
    total = float(cam.size_wh[0] * cam.size_wh[1] * SS * SS)
    for h, labels in zip(spec.hands, ss.hand_labels, strict=True):
        frac = float(sum(counts.all[lab] for lab in labels)) / total
        hands.append(
            HandTruth(
                (float(h.tip_mm[0]), float(h.tip_mm[1])),
                float(h.angle_deg),
                float(h.height_mm),
                _r(frac),
                h.holding,
            )
        )
    e = scene_effects(spec)  # the look's light temperature included
    effects = {
        "light_gain": e.light_gain,
        "gradient": list(e.gradient),
        "vignette": e.vignette,
        "tint_bgr": list(e.tint_bgr),
        "shadows": len(e.shadows),
        "defocus_sigma_px": e.defocus_sigma_px,
        "motion_blur_px": e.motion_blur_px,
        "motion_angle_deg": e.motion_angle_deg,
        "noise_sigma": e.noise_sigma,
        "jpeg_quality": e.jpeg_quality,
        "glare_cards": [c.card_id for c in (*spec.cards, *spec.held_cards) if c.glare is not None],
    }
    return Truth(
        image_size_wh=cam.size_wh,
        tier=spec.tier,
        seed=int(seed),
        provider=builder.provider.name,
        camera=cam_t,
        cards=tuple(cards),
        markers=tuple(markers),
        board=board_t,
        picmix_areas=tuple(areas),
        hands=tuple(hands),
        effects=effects,
    )


def _piece_truth(
    cam: Camera, to_table: object, piece: PieceSpec, labels: tuple[int, ...], counts: Counts
) -> PieceTruth:
    if not callable(to_table):
        raise TypeError("to_table must be callable")
    empty = np.zeros((0, 2), np.float32)

    def px(board_pts: np.ndarray) -> np.ndarray:
        if len(board_pts) == 0:
            return empty
        return cam.project(to_table(board_pts))

    ends = poly = line = np.zeros((0, 2))
    length = 0.0
    shape = colour = None
    if isinstance(piece, StickSpec):
        ends, poly = piece.endpoints_mm(), piece.polygon_mm()
        length = float(np.linalg.norm(ends[1] - ends[0]))
    elif isinstance(piece, ShapeSpec):
        poly = piece.polygon_mm()
        shape, colour = piece.shape, piece.colour
    elif isinstance(piece, StringSpec):
        line = piece.polyline_mm()
        length = piece.length_mm()
    drawn = float(sum(counts.drawn[i] for i in labels))
    vis = float(sum(counts.all[i] for i in labels)) / drawn if drawn > 0 else 0.0
    hand = float(sum(counts.hand_cover[i] for i in labels)) / drawn if drawn > 0 else 0.0
    return PieceTruth(
        kind=piece_kind(piece),
        shape=shape,
        colour=colour,
        on_canvas=on_canvas(piece),
        endpoints_mm=ends.astype(np.float32),
        polygon_mm=poly.astype(np.float32),
        polyline_mm=line.astype(np.float32),
        endpoints_px=px(ends),
        polygon_px=px(poly),
        polyline_px=px(line),
        length_mm=_r(length),
        visible_fraction=_r(min(1.0, vis)),
        hand_fraction=_r(min(1.0, hand)),
    )
