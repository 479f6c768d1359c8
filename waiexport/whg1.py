"""WHG1, the graph form (§10): bytes to :class:`Graph` with the load checks of §10.5 steps 1–7,
and :class:`Graph` to bytes.

``read`` runs the steps in the spec's order, each refusal a :class:`Refusal` with its code:
1. magic, version and operator set; 2. the header's reserved fields; 3. the counts against the
file's length; 4. each table's records; 5. each operator's opcode, arity, parameter length and
parameter ranges; 6. the graph rules (:mod:`waiexport.rules`); 7. the plan
(:func:`waiexport.plan.load_plan`). Step 8, the bounds pass against a profile, is
:func:`waiexport.load.load`'s, on top of this one.

No count is trusted before it is checked against the bytes that remain, so a hostile header
costs nothing.
"""

from __future__ import annotations

import struct

from . import layouts
from . import params as P
from .cursor import Cursor, Short
from .graph import POLICIES, Graph, Input, Scalar, Tensor
from .optable import BY_CODE, BY_NAME
from .plan import load_plan
from .refusal import Refusal
from .rules import check_rules
from .work import CALLS

__all__ = ["read", "write", "MAGIC", "HEADER", "SCALAR", "INPUT", "OUTPUT", "TENSOR"]

MAGIC = b"WHG1"
HEADER, SCALAR, INPUT, OUTPUT, TENSOR = 32, 16, 32, 4, 24
_OP_MIN = 8  # opcode, n_in, n_out, reserved, plen: a record with no tensors
_CAP = 1 << 26


def _mismatch(where: str, detail: str) -> Refusal:
    return Refusal("model_mismatch", where, detail)


def read(data: bytes) -> Graph:
    """Load a WHG1 file, with the checks of §10.5 steps 1–7 in order.

    Parameters
    ----------
    data : bytes
        The file's bytes.

    Returns
    -------
    Graph

    Raises
    ------
    Refusal
        ``model_mismatch`` at the first failing check, or ``too_large`` for a planned size
        past a cap (step 7).
    """
    CALLS["read"] += 1
    buf = memoryview(bytes(data))
    head = _header(buf)
    cur = Cursor(buf, HEADER)
    scalars, inputs, outputs, tensors = _tables(cur, head)
    ops = _operators(cur, head["n_ops"], tensors, scalars)
    if cur.left:
        raise _mismatch(f"byte {cur.off}", f"{cur.left} bytes follow the last operator")
    graph = Graph(
        tensors=tensors,
        inputs=inputs,
        outputs=outputs,
        ops=ops,
        scalars=scalars,
        max_elems=head["max_elems"],
    )
    check_rules(graph)
    load_plan(graph)
    return graph


def _header(buf: memoryview) -> dict:
    """Steps 1–3 on the 32-byte header (§10.1)."""
    if bytes(buf[:4]) != MAGIC:
        raise _mismatch("header byte 0", f"magic is {bytes(buf[:4])!r}, not {MAGIC!r}")
    if len(buf) < 5 or buf[4] != 1:
        raise _mismatch("header byte 4", "version is not 1")
    if len(buf) < 6 or buf[5] != 1:
        raise _mismatch("header byte 5", "operator set is not 1 (wai-ops/1)")
    if len(buf) < HEADER:
        raise _mismatch("header", f"the file has {len(buf)} bytes, the header needs {HEADER}")
    (n_tensors, n_ops, n_inputs, n_outputs, n_scalars, max_elems) = struct.unpack_from(
        "<IIHHH2xI", buf, 8
    )
    for off, size in ((6, 2), (22, 2), (28, 4)):
        if any(buf[off : off + size]):
            raise _mismatch(f"header byte {off}", "reserved field is not zero")
    for name, off, v in (
        ("n_tensors", 8, n_tensors),
        ("n_ops", 12, n_ops),
        ("n_inputs", 16, n_inputs),
        ("n_outputs", 18, n_outputs),
    ):
        if v < 1:
            raise _mismatch(f"header byte {off} ({name})", f"{name} is 0, must be at least 1")
    if not 1 <= max_elems <= _CAP:
        raise _mismatch("header byte 24 (max_elems)", f"max_elems {max_elems} is outside 1..=2^26")
    need = (
        HEADER
        + SCALAR * n_scalars
        + INPUT * n_inputs
        + OUTPUT * n_outputs
        + TENSOR * n_tensors
        + _OP_MIN * n_ops
    )
    if need > len(buf):
        raise _mismatch("header", f"the counts need at least {need} bytes, the file has {len(buf)}")
    return dict(
        n_tensors=n_tensors,
        n_ops=n_ops,
        n_inputs=n_inputs,
        n_outputs=n_outputs,
        n_scalars=n_scalars,
        max_elems=max_elems,
    )


def _tables(cur: Cursor, head: dict):
    """Step 4: the scalar, input, output and tensor tables (§10.2)."""
    n_tensors = head["n_tensors"]
    scalars = []
    for i in range(head["n_scalars"]):
        at = cur.off
        lo, hi = struct.unpack_from("<qq", cur.take(SCALAR, "scalar"))
        if lo > hi:
            raise _mismatch(f"scalar {i} (byte {at})", f"lo {lo} > hi {hi}")
        scalars.append(Scalar(lo, hi))
    inputs = []
    for i in range(head["n_inputs"]):
        at = cur.off
        tensor, max_h, max_w, kind, r0, src, r1, init = struct.unpack_from(
            "<IIIB3sIIq", cur.take(INPUT, "input")
        )
        where = f"input {i} (byte {at})"
        if any(r0) or r1:
            raise _mismatch(where, "reserved bytes are not zero")
        if tensor >= n_tensors:
            raise _mismatch(where, f"tensor {tensor} is out of range (n_tensors {n_tensors})")
        if (max_h == 0) != (max_w == 0):
            raise _mismatch(where, f"max_h {max_h} and max_w {max_w}: both or neither must be 0")
        if kind > 1:
            raise _mismatch(where, f"kind {kind} is not 0 (data) or 1 (state)")
        if kind == 0 and (src or init):
            raise _mismatch(where, "a data input has a nonzero src or init")
        inputs.append(Input(tensor, max_h, max_w, ("data", "state")[kind], src, init))
    if len({inp.max_h == 0 for inp in inputs}) > 1:
        raise _mismatch("input table", "some inputs declare their sizes and some do not")
    outputs = []
    for i in range(head["n_outputs"]):
        (tensor,) = struct.unpack_from("<I", cur.take(OUTPUT, "output"))
        if tensor >= n_tensors:
            raise _mismatch(
                f"output {i}", f"tensor {tensor} is out of range (n_tensors {n_tensors})"
            )
        outputs.append(tensor)
    tensors = []
    for i in range(n_tensors):
        at = cur.off
        channels, exponent, policy, reserved, lo, hi = struct.unpack_from(
            "<IbBHqq", cur.take(TENSOR, "tensor")
        )
        where = f"tensor {i} (byte {at})"
        if channels < 1:
            raise _mismatch(where, "channels is 0")
        if reserved:
            raise _mismatch(where, "reserved bytes are not zero")
        if policy > 2:
            raise _mismatch(where, f"policy {policy} is not 0, 1 or 2")
        if policy == 0 and (lo or hi):
            raise _mismatch(where, f"a derived tensor has lo {lo}, hi {hi}; both must be 0")
        if lo > hi:
            raise _mismatch(where, f"lo {lo} > hi {hi}")
        tensors.append(
            Tensor(channels, None if exponent == -128 else exponent, POLICIES[policy], lo, hi)
        )
    return scalars, inputs, outputs, tensors


def _operators(cur: Cursor, n_ops: int, tensors: list, scalars: list) -> list:
    """Step 5: each operator's record and parameters (§10.2, §10.4)."""
    ops = []
    for k in range(n_ops):
        at = cur.off
        where = f"operator {k} (byte {at})"
        try:
            opcode, n_in, n_out, reserved = cur.take(4, "operator record")
            info = BY_CODE.get(opcode)
            if info is None:
                raise _mismatch(where, f"opcode 0x{opcode:02X} is not a wai-ops/1 operator")
            where = f"operator {k} ({info.name}, byte {at})"
            if not info.arity_ok(n_in, n_out):
                raise _mismatch(where, f"{n_in} → {n_out} tensors; {info.name} takes {info.arity}")
            if reserved:
                raise _mismatch(where, "reserved byte is not zero")
            ids = struct.unpack_from(f"<{n_in + n_out}I", cur.take(4 * (n_in + n_out), "tensors"))
            bad = [t for t in ids if t >= len(tensors)]
            if bad:
                raise _mismatch(
                    where, f"tensor {bad[0]} is out of range (n_tensors {len(tensors)})"
                )
            plen = cur.uint(4, "plen")
            if plen > cur.left:
                raise _mismatch(
                    where, f"plen {plen} passes the end of the file ({cur.left} bytes remain)"
                )
            pcur = Cursor(cur.buf, cur.off, cur.off + plen)
            cur.off += plen
            ctx = P.LayoutCtx(tensors[ids[0]].channels, tuple(scalars))
            params = layouts.decode(info.name, pcur, ctx)
        except Short as e:
            raise _mismatch(where, str(e)) from None
        except P.ParamError as e:
            raise _mismatch(f"{where}, parameters", str(e)) from None
        ops.append((info.name, ids[:n_in], ids[n_in:], params))
    return ops


def write(graph: Graph) -> bytes:
    """The WHG1 bytes of ``graph`` (§10), tensors numbered as the graph numbers them.

    ``read(write(g)) == g`` for every graph that loads, and ``write(read(b)) == b`` for every
    file that loads. Raises ``ValueError`` if the tensor indices are not ``0..n−1`` or a value
    does not fit its field.
    """
    tensors = graph.tensors
    if list(tensors) != list(range(len(tensors))):
        raise ValueError("tensor indices must be 0..n-1; renumber the graph first")
    ops = graph.ops
    out = [
        MAGIC,
        struct.pack(
            "<BBHIIHHHHII",
            1,
            1,
            0,
            len(tensors),
            len(ops),
            len(graph.inputs),
            len(graph.outputs),
            len(graph.scalars),
            0,
            graph.max_elems,
            0,
        ),
    ]
    out += [struct.pack("<qq", s.lo, s.hi) for s in graph.scalars]
    out += [
        struct.pack(
            "<IIIB3xIIq",
            i.tensor,
            i.max_h,
            i.max_w,
            ("data", "state").index(i.kind),
            i.src,
            0,
            i.init,
        )
        for i in graph.inputs
    ]
    out += [struct.pack("<I", t) for t in graph.outputs]
    out += [
        struct.pack(
            "<IbBHqq",
            t.channels,
            -128 if t.exponent is None else t.exponent,
            POLICIES.index(t.policy),
            0,
            t.lo,
            t.hi,
        )
        for t in tensors.values()
    ]
    for op in ops:
        body = layouts.encode(op.name, op.params)
        ids = op.inputs + op.outputs
        out.append(
            struct.pack(
                f"<BBBx{len(ids)}II",
                BY_NAME[op.name].code,
                len(op.inputs),
                len(op.outputs),
                *ids,
                len(body),
            )
        )
        out.append(body)
    return b"".join(out)
