"""Where the fiducials sit, in millimetres (KIT.md "Fiducials"). The one place these numbers
live: the printable kit, the synthetic camera and the plane fits all read them from here."""

from __future__ import annotations

ARUCO_DICTIONARY = "DICT_4X4_50"

# Play area: markers 0, 1, 2, 3 at its corners, clockwise from the top-left as seen from the
# first seat. Table coordinates put the origin at marker 0's centre, x towards marker 1's
# centre, y towards marker 3's centre.
PLAY_AREA_MARKERS = (0, 1, 2, 3)
PLAY_AREA_MARKER_MM = 40.0

# Picasso board: canvas 360 x 260, markers 4 (top-left), 5 (top-right), 6 (bottom-right),
# 7 (bottom-left), 30 mm, outside the canvas, each with its corner nearest the canvas centre
# on the canvas corner. Board coordinates: origin at the canvas top-left, x right, y down.
BOARD_MARKERS = (4, 5, 6, 7)
BOARD_MARKER_MM = 30.0
CANVAS_W_MM = 360.0
CANVAS_H_MM = 260.0
BOARD_PX_PER_MM = 2.0  # scale of the rectified board image


def board_marker_square(marker_id: int) -> list[tuple[float, float]]:
    """The four corners (mm, board frame) of a board marker's square, starting at the corner
    on the canvas corner and going clockwise on screen (y down)."""
    s = BOARD_MARKER_MM
    w, h = CANVAS_W_MM, CANVAS_H_MM
    # (canvas corner, direction of the square outwards in x, in y)
    corner, sx, sy = {
        4: ((0.0, 0.0), -1.0, -1.0),
        5: ((w, 0.0), 1.0, -1.0),
        6: ((w, h), 1.0, 1.0),
        7: ((0.0, h), -1.0, 1.0),
    }[marker_id]
    x0, y0 = corner
    square = [(x0, y0), (x0 + sx * s, y0), (x0 + sx * s, y0 + sy * s), (x0, y0 + sy * s)]
    # Clockwise on screen means the signed area (shoelace, y down) is positive.
    area = sum(
        square[i][0] * square[(i + 1) % 4][1] - square[(i + 1) % 4][0] * square[i][1]
        for i in range(4)
    )
    if area < 0:
        square = [square[0], square[3], square[2], square[1]]
    return square
