"""What every lowering shares: its context, and the int32 ↔ int64 passage."""

from __future__ import annotations

from dataclasses import dataclass, field

from waiexport.descriptions import DCR

from ...errors import DoesNotFit, ExportError
from ..emit import I8, I32, I64, Emitter, fits_i8
from ..probes import CLAMP
from ..requant import requantise, span

__all__ = [
    "LowerCtx",
    "wide",
    "narrow",
    "stored",
    "rounding_shift",
    "clip",
    "depth_to_space",
    "fits_i8",
    "phase_major",
    "shuffled_alone",
    "ExportError",
    "DoesNotFit",
]


@dataclass
class LowerCtx:
    """The certified interval of every tensor, the scalars' model inputs, the graph, the
    target, and the channel permutations folded into producers (tensor → the old channel
    each new channel holds)."""

    intervals: dict
    scalars: list
    graph: object
    target: object = None
    perms: dict = field(default_factory=dict)
    nodes: dict = field(default_factory=dict)  # each operator's certified intermediates
    u8s8: bool | None = None  # the u8×s8 probe's verdict on the model's provider

    def range_of(self, t: int) -> tuple[int, int]:
        return self.intervals[t]

    def produced(self, op, k: int = 0) -> tuple[int, int]:
        """The certified interval of ``op``'s ``k``-th result as its lowering forms it, before
        its tensor's policy: a ``check`` tensor's range is what the decode may keep, and an
        ``acc64`` model hands the host the unclamped values to check (§4 step 4)."""
        return self.nodes[op.index].results[k]


def phase_major(channels: int, r: int) -> list[int]:
    """The old channel each new one holds when ``pixel_shuffle``'s ``c·r² + i·r + j`` becomes
    ``(i·r + j)·C′ + c``, the order a fold into the producer gives (§9.4)."""
    c = channels // (r * r)
    return [k % c * r * r + k // c for k in range(c * r * r)]


def shuffled_alone(g, t: int):
    """The ``pixel_shuffle`` that is the one operator reading ``t``, else ``None``: where a
    ``conv`` produces ``t``, the shuffle's order can be folded into its channels (§9.4). A
    graph output may read ``t`` too: its channels are put back in the graph's order
    (:func:`..export.build_model`)."""
    readers = [g.op(uid) for uid, _ in g.consumers(t)]
    return readers[0] if len(readers) == 1 and readers[0].name == "pixel_shuffle" else None


def wide(e: Emitter, x: str, dtype: int = I64) -> str:
    """A graph tensor as ``dtype`` (int64 unless said), for arithmetic whose intermediates
    pass i32 (int32 where they are formed from limbs, :func:`..requant.product_type`)."""
    return x if e.storage == dtype else e.cast(x, dtype)


def narrow(e: Emitter, x: str) -> str:
    """An int64 result back to the type every graph tensor is stored in (it fits: the graph
    meets the storage's profile, int32 for ``acc32`` and int64 for ``acc64``)."""
    return x if e.storage == I64 else e.cast(x, I32)


def rounding_shift(e: Emitter, acc: str, op, ctx: LowerCtx, channels: int, dtype: int) -> str:
    """``gram``'s and ``apply``'s rounding shift of their sums ``acc`` (a ``dtype`` tensor;
    §5.9: one shift for every channel, no multiplier or bias), as a graph tensor."""
    y = requantise(
        e,
        acc,
        round=op.params.rq.round,
        shifts=[int(op.params.rq.shift[0])] * channels,
        dtype=dtype,
        span=span(ctx.nodes.get(op.index)),
    )
    return stored(e, y, dtype)


def stored(e: Emitter, x: str, dtype: int) -> str:
    """A result computed in ``dtype`` as a graph tensor (it fits the storage)."""
    return x if dtype == e.storage else e.cast(x, e.storage)


def clip(e: Emitter, x: str, lo: int, hi: int) -> str:
    """``Clip`` of a graph tensor to ``[lo, hi]``; a bound past the storage type becomes its
    end, which clips nothing a stored value can hold. Where the target's runtime does not
    compute ``Clip`` exactly, ``Min`` then ``Max``, each only where its bound clips a stored
    value; where it fuses such a pair into one clamp that is not exact (its probes, the
    description's :data:`~..probes.CLAMP`), a ``BitwiseOr`` with 0 stands before, between
    and after them, so neither pairs with the other nor with a neighbour's ``Min`` or ``Max``
    (a ``relu``'s), which it does not fuse through (:data:`~..probes.SPLIT_CLAMP`,
    measured)."""
    bits = 63 if e.storage == I64 else 31
    bottom, top = -(1 << bits), (1 << bits) - 1
    lo, hi = max(lo, bottom), min(hi, top)
    if e.exact("Clip", e.storage):
        return e.node("Clip", [x, e.const(lo, e.storage), e.const(hi, e.storage)])
    split = not e.exact(CLAMP, e.storage)

    def apart(v: str) -> str:
        return e.node("BitwiseOr", [v, e.const(0, e.storage)]) if split else v

    out = apart(x)
    if hi < top:  # Clip's bounds go through float32 on OpenVINO (measured)
        out = apart(e.node("Min", [out, e.const(hi, e.storage)]))
    if lo > bottom or out == x:
        out = apart(e.node("Max", [out, e.const(lo, e.storage)]))
    return out


def clamped(e: Emitter, x: str, lo: int, hi: int) -> str:
    """A ``clamp`` policy on the graph tensor ``x`` (:func:`clip`), and on its NHWC twin
    where its producer made one (:attr:`..emit.Emitter.nhwc`), so a reader of the twin reads
    the clamped values."""
    out = clip(e, x, lo, hi)
    if x in e.nhwc:
        e.nhwc[out] = clip(e, e.nhwc[x], lo, hi)
    return out


def depth_to_space(
    e: Emitter, x: str, c: int, rh: int, rw: int, in8: bool, mode: str = "CRD"
) -> str:
    """``[1, c·rh·rw, A, B]`` to ``[1, c, A·rh, B·rw]``, channel ``(c′·rh + i)·rw + j``
    (``CRD``; ``(i·rw + j)·c + c′`` for ``DCR``) to offset ``(i, j)``. ``in8``: every value
    is an int8 (the caller has it certified), so the move runs on int8. Either order is two
    4-D moves (``rw`` innermost, then ``rh`` past the rows): 3× faster than one 6-D
    ``Transpose`` and, on int8, 2.0× faster than onnxruntime's 8-bit ``DepthToSpace`` on
    ``[1, 256, 128, 128]`` (4.9 against 9.7 ms ``CRD``; 2.2 against 5.8 ms ``DCR``, where
    an int32 6-D ``Transpose`` took 23.5 and the two moves 6.9, measured). A target whose
    own depth-to-space reads ``DCR`` (a fixed-function unit) gets its ``DepthToSpace``."""
    if rh == rw == 1:
        return x
    if (
        in8
        and rh == rw
        and mode == "DCR"
        and e.target is not None
        and e.target.depth_to_space == DCR
    ):
        return e.widen(
            e.node("DepthToSpace", [e.cast(x, I8)], blocksize=rh, mode=mode), I8, e.storage
        )
    h, w = e.hw(x)
    y = e.cast(x, I8) if in8 else x
    if mode == "DCR":  # (i, j, c′, h, w) → (i, c′·h, w, j) → (c′, h, i, w·j)
        y = e.node("Transpose", [e.reshape(y, [rh, rw, e.times(h, c), w])], perm=[0, 2, 3, 1])
        y = e.node("Transpose", [e.reshape(y, [rh, c, h, e.times(w, rw)])], perm=[1, 2, 0, 3])
    else:
        y = e.node("Transpose", [e.reshape(y, [c * rh, rw, h, w])], perm=[0, 2, 3, 1])
        y = e.node("Transpose", [e.reshape(y, [c, rh, h, e.times(w, rw)])], perm=[0, 2, 1, 3])
    y = e.reshape(y, [1, c, e.times(h, rh), e.times(w, rw)])
    return e.widen(y, I8, e.storage) if in8 else y
