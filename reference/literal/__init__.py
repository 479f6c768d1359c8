"""The literal implementation: one function per graph operator (§5), scalar loops that follow
the formulas line by line (the convolution sums as written, the transposed convolution as §5.3
defines it, not its scatter form). Slow by design, for small inputs; independent of the
vectorised reference, which the tests check against it. Same signature as
:data:`waiexport.reference.REFERENCE`.
"""

from importlib import import_module

from waiexport.optable import OPS

__all__ = ["LITERAL"]

#: Each operator's literal implementation, by the §5 table's names.
LITERAL = {op.name: import_module(f"{__name__}.{op.name}").run for op in OPS}
