"""waiexport: check, export and validate exact-integer networks (``wai-ops/1``)."""

from .graph import Graph, Input, Scalar, Tensor
from .refusal import Refusal
from .whg1 import read, write

__all__ = ["Graph", "Input", "Scalar", "Tensor", "Refusal", "read", "write", "__version__"]
__version__ = "0.1.0"
