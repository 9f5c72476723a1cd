"""Vision: stateless per-frame readers (codes, cards, Picasso board, Picmix items), the tracker
(the only stateful piece), the printable kit and the synthetic table camera.

Conventions (written once, followed everywhere):
- frames are ``np.ndarray`` of shape (H, W, 3), dtype uint8, BGR;
- points are (N, 2) float32 arrays of (x, y) in pixels;
- table and board coordinates are in millimetres; names carry order and unit
  (``corners_px``, ``size_wh``, ``length_mm``).
"""
