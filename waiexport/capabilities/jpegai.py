"""The ``jpegai-int/1`` lowering of the scale path (§13.6.1): a bundle's ``norm.json`` and
``weights/hs_y.json``, ``weights/hs_uv.json`` to the ``hs_y`` and ``hs_uv`` graphs.

Every load check of §13.6.1 refuses with ``model_mismatch``, naming the file and member.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from waiexport import params as P
from waiexport.builder import GraphBuilder, conv, rq
from waiexport.graph import Graph
from waiexport.refusal import Refusal

from .source import Source

__all__ = [
    "lower_jpegai",
    "read_bundle",
    "read_norm",
    "ROLES",
    "CAPABILITY",
    "LOWERING",
    "SCALE_GRAPHS",
]

ROLES, CAPABILITY, LOWERING = ("hs_y", "hs_uv"), "wai.image.jpegai", "jpegai-int/1"


#: role → (weights file, gains member, Cz)
class ScaleGraph(NamedTuple):
    """One scale graph's bundle members (§13.6.1): its weights file, its gain's name in
    ``norm.json``, and the hyper-latent channels ``Cz`` it reads."""

    file: str
    gain: str
    cz: int


SCALE_GRAPHS = {
    "hs_y": ScaleGraph("hs_y.json", "gain_y", 160),
    "hs_uv": ScaleGraph("hs_uv.json", "gain_uv", 96),
}
BLOCKS = (
    ("conv1", "onnx::Pow_85", 1),
    ("depthwise", "onnx::Pow_91", 3),
    ("pointwise", "onnx::Pow_97", 1),
)


def _read(path: Path, where: str) -> Source:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise Refusal("model_mismatch", where, f"cannot read: {e.strerror}") from None
    return Source(data, where, "model_mismatch")


def _check_norm(src: Source) -> dict:
    """The §13.6.1 load checks of ``norm.json``; returns the members it reads: ``pmf``,
    ``bounds``, ``cdfs_y`` and ``cdfs_uv`` (as rows of 63), ``gain_y``, ``gain_uv``."""
    doc = src.doc
    pmf = src.member(doc, "pmf", "norm.json")
    if not isinstance(pmf, list) or len(pmf) < 32:
        raise src.refuse("norm.json pmf", "needs at least 32 rows")
    rows = [src.integers(row, f"norm.json pmf[{r}]", lo=0) for r, row in enumerate(pmf)]
    for r, values in enumerate(rows):
        if not values or sum(values) != 256:
            raise src.refuse(f"norm.json pmf[{r}]", "does not sum to 256")
    widths = {len(values) for values in rows}
    if len(widths) != 1:
        raise src.refuse("norm.json pmf", "rows of different widths")
    bounds = src.integers(src.member(doc, "bounds", "norm.json"), "norm.json bounds", lo=0, hi=255)
    if len(bounds) < 32:
        raise src.refuse("norm.json bounds", "needs at least 32 values")
    if src.integer(src.member(doc, "per_channel", "norm.json"), "norm.json per_channel") != 16:
        raise src.refuse("norm.json per_channel", "is not 16")
    out = {"pmf": rows, "bounds": bounds}
    for name, c in (("cdfs_y", 160), ("cdfs_uv", 96)):
        cdfs = src.integers(src.member(doc, name, "norm.json"), f"norm.json {name}", c * 63, 0, 255)
        out[name] = [cdfs[63 * r : 63 * r + 63] for r in range(c)]
        for r, row in enumerate(out[name]):
            if any(a > b for a, b in zip(row, row[1:])):
                raise src.refuse(f"norm.json {name} row {r}", "is not non-decreasing")
    return out | {
        name: src.integers(src.member(doc, name, "norm.json"), f"norm.json {name}", c)
        for name, c in (("gain_y", 160), ("gain_uv", 96))
    }


def read_norm(bundle: Path) -> dict:
    """The members of the bundle's ``norm.json`` that §13.6.1 reads, after its load checks."""
    return _check_norm(_read(bundle / "norm.json", "norm.json"))


def _tensor(src: Source, name: str, dims: tuple, where: str) -> np.ndarray:
    t = src.member(src.doc, name, where)
    got = src.integers(src.member(t, "dims", f"{where} {name}"), f"{where} {name}.dims", lo=0)
    if tuple(got) != dims:
        raise src.refuse(f"{where} {name}.dims", f"{got} is not {list(dims)}")
    v = src.integers(src.member(t, "v", f"{where} {name}"), f"{where} {name}.v", int(np.prod(dims)))
    return np.array(v, dtype=np.int64).reshape(dims)


def _scale_graph(src: Source, cz: int, gains: list[int], where: str) -> Graph:
    def dim(name: str, axis: int) -> int:
        d = src.member(src.member(src.doc, name, where), "dims", f"{where} {name}")
        if not isinstance(d, list) or len(d) != 4:
            raise src.refuse(f"{where} {name}.dims", "is not four sizes")
        return src.integer(d[axis], f"{where} {name}.dims", 1, 1 << 20)

    c1, c2 = dim("conv1.weight", 0), dim("depthwise.weight", 0)
    cins, couts = (cz, c1, c2), (c1, c2, 16 * cz)
    b = GraphBuilder()
    t = b.input(cz, -31, 32, max_h=4, max_w=4)
    for (block, pow_name, k), cin, cout in zip(BLOCKS, cins, couts):
        w = _tensor(src, f"{block}.weight", (cout, cin, k, k), where)
        bias = _tensor(src, f"{block}.bias", (cout,), where)
        shifts = _tensor(src, pow_name, (1, cout, 1, 1), where).reshape(-1)
        if shifts.min() < 0 or shifts.max() > 127:
            raise src.refuse(f"{where} {pow_name}", "a shift is outside 0..127")
        t = b.op("clamp", t, P.Clamp(-128, 127))
        t = b.op("conv", t, conv(w, pad=k // 2, rq=rq(shift=list(shifts), bias=bias)))
        if block != "pointwise":
            t = b.op("relu", t)
    t = b.op("pixel_shuffle", t, P.Factor(4))
    t = b.op("abs", t)
    t = b.op("clamp", t, P.Clamp(0, 3967))
    b.output(b.op("rescale", t, P.Rescale(rq(shift=0, bias=gains))))
    return b.build()


def lower_jpegai(bundle: Path) -> dict[str, Graph]:
    """The ``hs_y`` and ``hs_uv`` graphs of the bundle folder holding ``norm.json`` and
    ``weights/`` (§13.6.1), by role, in role order."""
    return read_bundle(bundle)[1]


def read_bundle(bundle: Path) -> tuple[dict, dict[str, Graph]]:
    """The bundle's ``norm.json`` members (:func:`read_norm`) and its scale graphs
    (:func:`lower_jpegai`), ``norm.json`` read once."""
    norm = read_norm(bundle)
    graphs = {}
    for role in ROLES:
        file, gain, cz = SCALE_GRAPHS[role]
        where = f"weights/{file}"
        graphs[role] = _scale_graph(_read(bundle / "weights" / file, where), cz, norm[gain], where)
    return norm, graphs
