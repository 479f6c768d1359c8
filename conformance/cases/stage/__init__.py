"""The stage-operator cases (§14.1 item 7, and items 2 and 6 where they name stage
operators): one module per operator of §5E implemented here, each with ``CASES``, a list of
``(id, in, modes)``."""

from ._shifts import SHIFTS
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

__all__ = ["STAGE", "SHIFTS"]

#: Stage case lists by operator name (``stage/<name>.jsonl``).
STAGE = {
    module.__name__.rsplit(".", 1)[1]: module.CASES
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
