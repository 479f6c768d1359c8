"""What a bound rule returns, and the registry the rule modules fill."""

from __future__ import annotations

from dataclasses import dataclass

from .interval import Iv, bits

__all__ = ["Result", "Rules", "mac"]


@dataclass
class Result:
    """One node's rule outcome (§8.3): its named intermediates (exactly Table 8.5-A's keys),
    the producer result of each output, the term interval ``K_c`` is taken over (§6), and
    ``mac`` (§8.5)."""

    intermediates: dict
    results: list
    k_c: Iv | None = None
    mac: dict | None = None


class Rules(dict):
    """Operator name → bound rule ``rule(op, inputs, ctx) → Result``."""

    def rule(self, *names: str):
        def register(fn):
            for name in names:
                self[name] = fn
            return fn
        return register


def mac(ins: list, weights: Iv | None = None) -> dict:
    """§8.5 ``mac``: the bits of each input's interval, and of the weights' ``[min, max]``."""
    out = {"a_bits": [bits(iv) for iv in ins]}
    if weights is not None:
        out["w_bits"] = bits(weights)
    return out
