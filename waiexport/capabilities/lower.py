"""A set in a registered form lowered (§13): its graphs by role and its certificate."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..certificate import Member, certify
from ..graph import Graph
from ..whg1 import write
from . import int_synth, jpegai

__all__ = ["lower_set", "FORMS"]

#: The registered forms this toolchain lowers.
FORMS = ("int_synth", "jpegai")


def lower_set(form: str, source: Path) -> tuple[dict[str, Graph], dict]:
    """A set in a registered form lowered (§13): its graphs by role and its certificate."""
    if form == "int_synth":
        data = source.read_bytes()
        graphs = {int_synth.ROLE: int_synth.lower_int_synth(data)}
        meta = dict(
            capability=int_synth.CAPABILITY,
            lowering=int_synth.LOWERING,
            set_sha256=hashlib.sha256(data).hexdigest(),
        )
    elif form == "jpegai":
        graphs = jpegai.lower_jpegai(source)
        # a bundle's digest is its wai.prior.set listing's, which this tool does not make
        meta = dict(capability=jpegai.CAPABILITY, lowering=jpegai.LOWERING, set_sha256=None)
    else:
        raise ValueError(f"unknown form {form!r}: int_synth or jpegai")
    members = [Member.of(role, write(g), g) for role, g in graphs.items()]
    return graphs, certify(members, **meta)
