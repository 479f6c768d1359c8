"""The stage operators of §5E: run in a capability's driver, outside any graph, on streams,
symbols and samples. One module per operator, named for it; each has the operator's typed
function (on numpy arrays where a driver applies it to a tensor) and ``run(inp, modes)``, the
operator on a stage vector's ``in`` and ``modes`` (§14.1), giving its ``expect``.

E1 ``rans64_decode``, E10 ``mc_predict``, E11 ``up2_predict`` and E12 ``rate_predict`` rest on
texts this repository does not hold (integer-payloads §2 and §3, staged-delivery A.4), so they
are not implemented: :data:`ELSEWHERE` names where each is defined.
"""

from __future__ import annotations

import importlib

from waiexport.refusal import Refusal

__all__ = ["StageRefusal", "condition", "STAGE_OPS", "ELSEWHERE", "run"]

#: The stage operators implemented here, in §5E's order.
STAGE_OPS = (
    "dequantize",
    "bucket",
    "coded",
    "scale_index",
    "block_stat",
    "band_lookup",
    "mans_decode",
    "residual_step",
    "coding_order",
)

#: The stage operators whose definitions are in texts this repository does not hold.
ELSEWHERE = {
    "rans64_decode": "integer-payloads §2",
    "mc_predict": "integer-payloads §3",
    "up2_predict": "staged-delivery Appendix A.4",
    "rate_predict": "staged-delivery Appendix A.4",
}


class StageRefusal(Refusal):
    """A stage operator's refusal with its index ``at`` (§14.1, *The refusal index*)."""

    def __init__(self, code: str, at: int, detail: str):
        super().__init__(code, f"at {at}", detail)
        self.at = at

    def __reduce__(self):
        return StageRefusal, (self.code, self.at, self.detail)


def condition(ok: bool, detail: str, code: str = "model_mismatch") -> None:
    """Refuse with ``code`` at −1 unless ``ok``: an operand, mode or table that breaks its
    operator's conditions (§5E, *Conditions and their refusals*)."""
    if not ok:
        raise StageRefusal(code, -1, detail)


def run(op: str, inp: dict, modes: dict) -> dict:
    """Stage operator ``op`` on a vector's ``in`` and ``modes``: its ``expect``; raises
    :class:`StageRefusal`, or ``KeyError`` for an operator not implemented here."""
    if op not in STAGE_OPS:
        raise KeyError(op)
    return importlib.import_module(f"{__name__}.{op}").run(inp, modes)
