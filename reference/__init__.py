"""The exact Python interpreter of every operator (§2, §4, §5)."""
