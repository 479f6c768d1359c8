"""What a bound rule returns, and the registry the rule modules fill."""

from __future__ import annotations

from dataclasses import dataclass

from .interval import Iv, bits

__all__ = ["Result", "Rules", "Mac", "mac"]


@dataclass
class Result:
    """One node's rule outcome (§8.3): its named intermediates (exactly Table 8.5-A's keys),
    the producer result of each output, the term interval ``K_c`` is taken over (§6), and
    ``mac`` (§8.5)."""

    intermediates: dict
    results: list
    k_c: Iv | None = None
    mac: "Mac | None" = None


class Rules(dict):
    """Operator name → bound rule ``rule(op, inputs, ctx) → Result``."""

    def rule(self, *names: str):
        def register(fn):
            for name in names:
                self[name] = fn
            return fn

        return register


@dataclass(frozen=True)
class Mac:
    """§8.5 ``mac``: the exact bit width of each multiply operand, every input tensor's
    interval (``a_bits``) and the weights' (``w_bits``, where the operator has weights)."""

    a_bits: list
    w_bits: int | None = None

    def as_json(self) -> dict:
        return {"a_bits": list(self.a_bits)} | (
            {} if self.w_bits is None else {"w_bits": self.w_bits}
        )


def mac(ins: list, weights: Iv | None = None) -> Mac:
    """§8.5 ``mac``: the bits of each input's interval, and of the weights' ``[min, max]``."""
    return Mac([bits(iv) for iv in ins], None if weights is None else bits(weights))
