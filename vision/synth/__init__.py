"""The synthetic table camera: rendered table scenes with exact ground truth.

A scene is a ``SceneSpec`` (camera, table, markers, cards, the Picasso board and its
pieces, hands, light and sensor effects) in table millimetres; ``render_scene(spec,
seed)`` returns the frame, (H, W, 3) uint8 BGR, and its ``Truth``. Random generators draw
specs from a numpy ``Generator`` and a difficulty tier; ``render_sequence`` renders short
sequences of whole game turns with the docs/formats.md events a perfect tracker would emit;
``write_render`` writes frames and ``truth.jsonl`` to a folder. Everything is
deterministic: the same seed gives the same image bit for bit.

Geometry is exact: projection is ``cv2.projectPoints`` with the recorded camera, and
rendering inverts it per output pixel (undistort -> ray -> plane -> texture ->
``cv2.remap``), at 2x supersampling. Frames: see ``vision.synth.camera`` for the table
frame (x right, y towards the first seat, z into the table; heights positive up).

Difficulty tiers (issue figures downstream are measured on ``normal``):

| parameter                    | easy          | normal              | hard              |
|------------------------------|---------------|---------------------|-------------------|
| camera height (mm)           | 600-750       | 600-900             | 500-1200          |
| tilt from vertical (deg)     | 0-15          | 0-30                | 0-40              |
| yaw / roll (deg)             | +-5 / 0       | +-30 / +-2          | +-180 / +-5       |
| horizontal FOV (deg)         | 68-72         | 65-75               | 60-80             |
| distortion k1 / k2           | -0.05-0 / 0   | -0.15-0.05 / +-0.03 | -0.3-0.1 / +-0.08 |
| tangential p1, p2            | 0             | +-0.001             | +-0.003           |
| sensor noise sigma (8-bit)   | 0.5-1.5       | 1.5-4               | 3-9               |
| defocus sigma (px)           | 0-0.3         | 0.2-0.7             | 0.4-1.3           |
| motion blur (px)             | 0             | 0-2 (30% of frames) | 0-6 (50%)         |
| JPEG quality                 | none or 95    | 75-95               | 40-80             |
| exposure gain                | 0.95-1.05     | 0.75-1.15           | 0.5-1.3           |
| light gradient (each axis)   | +-0.05        | +-0.2               | +-0.4             |
| vignette                     | 0-0.1         | 0.05-0.3            | 0.15-0.5          |
| soft shadows                 | 0             | 0-1                 | 0-3               |
| white balance tint           | +-2%          | +-6%                | +-12%             |
| glare per card (prob, peak)  | 0             | 15%, 0.3-0.7        | 35%, 0.5-0.95     |
| glare on the Picasso board   | 0             | 0                   | 50%, 0.3-0.7      |
| hands over the scene         | 0             | 0-1                 | 1-2               |
| card overlap (max hidden)    | 0             | 30%                 | 60%               |
| card turn (deg)              | +-15          | any                 | any               |
| Picasso sticks / crossings   | 2-6 / >= 1    | 4-10 / >= 3         | 6-10 / >= 4       |
| Picasso shapes               | 0-2           | 0-4                 | 2-4               |
| Picasso string on the board  | 30%           | 50%                 | 70%               |
| Picmix cards in the row      | 2-3           | 2-4                 | 2-4               |

Card art comes through a ``TextureProvider``: the printable kit (``vision.kit``) when it
is importable and renders, stand-in art otherwise (``Truth.provider`` says which).
Fiducials always come from ``cv2.aruco`` ``DICT_4X4_50``.
"""

from vision.synth.camera import Camera
from vision.synth.card_looks import CARD_LOOK_GROUPS, card_look, random_card_look
from vision.synth.generators import (
    picasso_board_with,
    play_area_markers,
    random_cards_scene,
    random_hand,
    random_picasso_board,
    random_picmix_claim,
)
from vision.synth.io import KINDS, random_spec, write_render
from vision.synth.looks import LOOK_GROUPS, board_look, random_board_look
from vision.synth.render import FrameRenderer, render_scene
from vision.synth.sequences import SEQUENCE_KINDS, SequenceFrame, SequenceRender, render_sequence
from vision.synth.spec import (
    KIT_CARD_LOOK,
    KIT_LOOK,
    BoardLook,
    BoardSpec,
    CardLook,
    CardSpec,
    EffectsSpec,
    GlareSpec,
    HandSpec,
    MarkerSpec,
    PicmixArea,
    Pose,
    SceneSpec,
    ShadowBlob,
    ShapeSpec,
    StickSpec,
    StringSpec,
    TableSpec,
)
from vision.synth.textures import (
    DeckCard,
    KitTextures,
    StandInTextures,
    TextureProvider,
    default_provider,
)
from vision.synth.tiers import TIERS, Tier, get_tier
from vision.synth.truth import (
    BoardTruth,
    CameraTruth,
    CardTruth,
    HandTruth,
    MarkerTruth,
    PicmixAreaTruth,
    PieceTruth,
    Truth,
)

__all__ = [
    "CARD_LOOK_GROUPS",
    "KINDS",
    "KIT_CARD_LOOK",
    "KIT_LOOK",
    "LOOK_GROUPS",
    "SEQUENCE_KINDS",
    "TIERS",
    "BoardLook",
    "BoardSpec",
    "BoardTruth",
    "Camera",
    "CameraTruth",
    "CardLook",
    "CardSpec",
    "CardTruth",
    "DeckCard",
    "EffectsSpec",
    "FrameRenderer",
    "GlareSpec",
    "HandSpec",
    "HandTruth",
    "KitTextures",
    "MarkerSpec",
    "MarkerTruth",
    "PicmixArea",
    "PicmixAreaTruth",
    "PieceTruth",
    "Pose",
    "SceneSpec",
    "SequenceFrame",
    "SequenceRender",
    "ShadowBlob",
    "ShapeSpec",
    "StandInTextures",
    "StickSpec",
    "StringSpec",
    "TableSpec",
    "TextureProvider",
    "Tier",
    "Truth",
    "board_look",
    "card_look",
    "default_provider",
    "get_tier",
    "picasso_board_with",
    "play_area_markers",
    "random_board_look",
    "random_card_look",
    "random_cards_scene",
    "random_hand",
    "random_picasso_board",
    "random_picmix_claim",
    "random_spec",
    "render_scene",
    "render_sequence",
    "write_render",
]
