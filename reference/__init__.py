"""The exact Python interpreter of every operator (§2, §4, §5): the oracle every engine is
measured against. ``decode`` runs one decode; ``Decoder`` a sequence with state."""

from .decode import Decoder, apply_policy, decode
from .ops import REFERENCE

__all__ = ["decode", "Decoder", "apply_policy", "REFERENCE"]
