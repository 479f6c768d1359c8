"""The lowerings of §13: a set in a registered form to canonical WHG1 graphs (§13.0)."""
