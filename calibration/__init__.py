"""Calibration: camera intrinsics, the table and board planes, seats."""
