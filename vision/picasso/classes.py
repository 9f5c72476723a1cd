"""The class codes of the canvas's label image, and the levels they are told apart by.

``segment`` makes the label image; ``roles``, ``pale`` and the reader's steps read it. The
codes live here, in a module that imports nothing of the reader's, so that every one of them
takes the same values without importing ``segment`` (which imports them) at load time.
"""

from __future__ import annotations

# Class codes of the label image.
CANVAS = 0
WOOD = 1
DARK = 2
GREY = 3  # neutral, between canvas and dark: a grey object, or a deep shadow
OTHER = 4  # a colour that is none of the kit's
FIRST_COLOUR = 8  # shape colour k of the profile is FIRST_COLOUR + k

#: The canvas maps to this level in the normalised picture (headroom for highlights).
WHITE_LEVEL = 200.0
#: A colour is neutral (canvas, shadow, grey or dark) when its chroma is below the larger of
#: these: an absolute floor, and a share of the wood's chroma.
NEUTRAL_CHROMA = 8.0
NEUTRAL_SHARE = 0.45
