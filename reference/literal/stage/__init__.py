"""The checker's literal stage operators (§5E), one module each, written from the text line
by line on Python integers: independent of :mod:`waiexport.reference.stage`, which the tests and the
checker set against them. Each ``run(inp, modes)`` gives a stage vector's ``expect`` or raises
:class:`waiexport.reference.stage.StageRefusal`."""

from . import (
    band_lookup,
    block_stat,
    bucket,
    coded,
    coding_order,
    dequantize,
    mans_decode,
    residual_step,
    scale_index,
)

__all__ = ["LITERAL_STAGE"]

LITERAL_STAGE = {
    module.__name__.rsplit(".", 1)[1]: module.run
    for module in (
        dequantize,
        bucket,
        coded,
        scale_index,
        block_stat,
        band_lookup,
        mans_decode,
        residual_step,
        coding_order,
    )
}
