"""Second scene drawers: photos drawn with plain OpenCV from KIT.md alone, never through
``vision.synth``, so that a figure measured on both says something about the reader and
not about one renderer (``picasso_board``: the Picasso board with randomised looks)."""
