"""The codes a capability reports in place of §4's (§4: "A capability whose payload extension
uses fewer codes reports its own in place of these")."""

from __future__ import annotations

__all__ = ["reported_code", "CAPABILITY_CODES"]

#: Capability → the code it reports for each refusal code of §4 (absent: the code itself).
CAPABILITY_CODES = {
    # integer-payloads §8: every refusal is payload_malformed
    "wai.neural.int_synth": {
        code: "payload_malformed"
        for code in (
            "model_mismatch",
            "too_large",
            "field_range",
            "geometry_mismatch",
            "payload_malformed",
        )
    },
    # §13.6.1: the scale path reports §4's own codes
    "wai.image.jpegai": {},
}


def reported_code(capability: str | None, code: str) -> str:
    """The code ``capability`` reports for a refusal with ``code`` (unchanged without one)."""
    return CAPABILITY_CODES.get(capability, {}).get(code, code)
