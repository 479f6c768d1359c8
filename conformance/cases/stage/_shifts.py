"""The shifts §14.1 item 2 names for every rounding."""

SHIFTS = (0, 1, 31, 32, 62, 63, 64, 127)
