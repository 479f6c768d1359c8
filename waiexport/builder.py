"""A terse way to make graphs in Python, for tests, vector cases and notebooks.

>>> b = GraphBuilder()
>>> x = b.input(3, -128, 127, max_h=8, max_w=8)
>>> y = b.op("conv", x, conv(np.ones((4, 3, 3, 3), dtype=int), pad=1, rq=rq(shift=2)))
>>> b.output(b.op("relu", y))
>>> g = b.build()

Tensors are numbered as §13.0 numbers them when inputs are declared before operators: inputs
first, then each operator's outputs in operator order. ``build`` writes the graph and reads it
back, so a built graph has passed every load check of §10.5 steps 1–7.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import params as P
from .graph import MAX_ELEMS, Graph, Input, Scalar, Tensor
from .plan import SHAPES, ShapeCtx
from .whg1 import read, write

__all__ = [
    "GraphBuilder",
    "rq",
    "conv",
    "conv_transpose",
    "chscale",
    "lut16",
    "igdn",
    "layernorm",
    "crop",
    "smallest_width",
]


def smallest_width(values, allowed: Sequence[int] = (1, 2, 4, 8)) -> int:
    """The smallest byte width in ``allowed`` whose signed range holds every value (§13.0)."""
    arr = np.asarray(values)
    if arr.dtype.kind in "iu" and arr.size:  # a parameter array: numpy's own min and max
        lo, hi = int(arr.min()), int(arr.max())
    else:
        arr = np.asarray(values, dtype=object).reshape(-1)
        lo = min((int(v) for v in arr), default=0)
        hi = max((int(v) for v in arr), default=0)
    for w in allowed:
        if -(1 << (8 * w - 1)) <= lo and hi < 1 << (8 * w - 1):
            return w
    raise ValueError(f"values [{lo}, {hi}] fit none of the widths {allowed}")


def _kind(value) -> tuple[int, np.ndarray]:
    """Absent (0), one value (1) or one per channel (2), with the values."""
    if value is None:
        return 0, P.as_array([])
    if np.ndim(value) == 0:
        return 1, P.as_array([int(value)])
    return 2, P.as_array([int(v) for v in value])


def rq(
    shift=0,
    mult=None,
    bias=None,
    *,
    bias_kind: str | None = None,
    round: str = "floor",
    m_bytes: int | None = None,
    b_bytes: int | None = None,
) -> P.RQ:
    """An ``RQ`` block (§5.1). A scalar ``mult``/``shift`` is one value (kind 1), a sequence
    one per channel (kind 2); ``bias`` is per channel, ``pre`` unless ``bias_kind`` says
    ``post``. Widths default to the smallest that hold the values (§13.0)."""
    m_kind, mult_arr = _kind(mult)
    s_kind, shift_arr = _kind(shift)
    bias_arr = P.as_array([] if bias is None else [int(v) for v in np.ravel(bias)])
    if bias_kind is None:
        bias_kind = "none" if bias is None else "pre"
    return P.RQ(
        round=round,
        bias_kind=bias_kind,
        m_kind=m_kind,
        s_kind=s_kind,
        m_bytes=0 if m_kind == 0 else m_bytes or smallest_width(mult_arr, (4, 8)),
        b_bytes=0 if bias_kind == "none" else b_bytes or smallest_width(bias_arr, (4, 8)),
        mult=mult_arr,
        shift=shift_arr,
        bias=bias_arr,
    )


def conv(
    weights, *, stride=1, pad=0, groups: int = 1, rq: P.RQ | None = None, w_bytes: int | None = None
) -> P.Conv:
    """``conv`` parameters (§5.2) from ``weights[cout][cin/groups][kh][kw]``; ``stride`` and
    ``pad`` are one value or ``(h, w)``."""
    w = P.as_array(weights)
    (sh, sw), (ph, pw) = _pair(stride), _pair(pad)
    return P.Conv(
        cout=w.shape[0],
        kh=w.shape[2],
        kw=w.shape[3],
        sh=sh,
        sw=sw,
        ph=ph,
        pw=pw,
        groups=groups,
        w_bytes=w_bytes or smallest_width(w),
        rq=rq or P.RQ(),
        weights=w,
    )


def conv_transpose(
    weights, *, stride=1, pad=0, out_pad=0, rq: P.RQ | None = None, w_bytes: int | None = None
) -> P.ConvTranspose:
    """``conv_transpose`` parameters (§5.3) from ``weights[cin][cout][kh][kw]``."""
    w = P.as_array(weights)
    (sh, sw), (ph, pw), (oph, opw) = _pair(stride), _pair(pad), _pair(out_pad)
    return P.ConvTranspose(
        cout=w.shape[1],
        kh=w.shape[2],
        kw=w.shape[3],
        sh=sh,
        sw=sw,
        ph=ph,
        pw=pw,
        oph=oph,
        opw=opw,
        w_bytes=w_bytes or smallest_width(w),
        rq=rq or P.RQ(),
        weights=w,
    )


def chscale(
    scalar: int, table, *, shift: int = 0, round: str = "floor", m_bytes: int | None = None
) -> P.Chscale:
    """``chscale`` parameters (§5.4) from ``table[n_rows][C]``."""
    t = P.as_array(table)
    return P.Chscale(
        scalar=scalar,
        n_rows=t.shape[0],
        round=round,
        m_bytes=m_bytes or smallest_width(t, (4, 8)),
        shift=shift,
        table=t,
    )


def lut16(table, *, e_in: int | None = None, e_out: int | None = None) -> P.Lut16:
    """``lut16`` parameters (§5.6) from 65,536 entries, ``table[v + 32768]``."""
    return P.Lut16(e_in=e_in, e_out=e_out, table=P.as_array(table))


def igdn(gamma, beta, *, gf: int = 0, frac: int = 0, g_bytes: int | None = None) -> P.Igdn:
    """``igdn`` parameters (§5.7) from ``gamma[C][C]`` and ``beta[C]``."""
    g = P.as_array(gamma)
    return P.Igdn(
        gf=gf,
        frac=frac,
        g_bytes=g_bytes or smallest_width(g, (4, 8)),
        gamma=g,
        beta=P.as_array(beta),
    )


def layernorm(gamma, beta, *, eps: int = 1, g_bytes: int | None = None) -> P.LayerNorm:
    """``layernorm_c`` parameters (§5.7) from ``gamma[C]`` and ``beta[C]``."""
    g = P.as_array(gamma)
    return P.LayerNorm(
        eps=eps, g_bytes=g_bytes or smallest_width(g, (4, 8)), gamma=g, beta=P.as_array(beta)
    )


def crop(y0, x0, h, w) -> P.Crop:
    """``crop`` parameters (§5.10): an ``int`` is a constant, ``("scalar", k)`` scalar ``k``."""

    def operand(v):
        return P.Operand(1, v[1]) if isinstance(v, tuple) else P.Operand(0, v)

    return P.Crop(operand(y0), operand(x0), operand(h), operand(w))


def _pair(v) -> tuple[int, int]:
    return (v, v) if np.ndim(v) == 0 else (int(v[0]), int(v[1]))


class GraphBuilder:
    """Builds a :class:`Graph` operator by operator; see the module docstring."""

    def __init__(self, max_elems: int = MAX_ELEMS):
        self.max_elems = max_elems
        self.tensors: list[Tensor] = []
        self.inputs: list[Input] = []
        self.outputs: list[int] = []
        self.scalars: list[Scalar] = []
        self.ops: list = []

    def _tensor(self, rec: Tensor) -> int:
        self.tensors.append(rec)
        return len(self.tensors) - 1

    def input(
        self,
        channels: int,
        lo: int,
        hi: int,
        *,
        policy: str = "check",
        max_h: int = 0,
        max_w: int = 0,
        exponent: int | None = None,
    ) -> int:
        """A data input; returns its tensor."""
        t = self._tensor(Tensor(channels, exponent, policy, lo, hi))
        self.inputs.append(Input(t, max_h, max_w))
        return t

    def state(
        self,
        channels: int,
        lo: int,
        hi: int,
        *,
        src: int,
        init: int = 0,
        policy: str = "clamp",
        max_h: int = 0,
        max_w: int = 0,
        exponent: int | None = None,
    ) -> int:
        """A state input fed by output ``src`` (§10.2); returns its tensor."""
        t = self._tensor(Tensor(channels, exponent, policy, lo, hi))
        self.inputs.append(Input(t, max_h, max_w, "state", src, init))
        return t

    def scalar(self, lo: int, hi: int) -> int:
        """A scalar of range ``[lo, hi]``; returns its index."""
        self.scalars.append(Scalar(lo, hi))
        return len(self.scalars) - 1

    def op(
        self,
        name: str,
        inputs: int | Sequence[int],
        params: P.Params | None = None,
        *,
        policy: str = "derived",
        lo: int = 0,
        hi: int = 0,
        exponent: int | None = None,
        channels: int | Sequence[int] | None = None,
    ):
        """Append operator ``name`` reading ``inputs``; returns its output tensor (a tuple of
        four for ``subpos_split``). Output channels follow §5 unless ``channels`` is given
        (required for ``fill``); the outputs take ``policy``, ``lo``, ``hi``, ``exponent``."""
        ins = [inputs] if isinstance(inputs, int) else list(inputs)
        if channels is None:
            shapes = SHAPES[name](
                params, [(self.tensors[t].channels, None, None) for t in ins], ShapeCtx((), None)
            )
            channels = [s[0] for s in shapes]
        elif isinstance(channels, int):
            channels = [channels]
        outs = [self._tensor(Tensor(c, exponent, policy, lo, hi)) for c in channels]
        self.ops.append((name, ins, outs, params or P.NoParams()))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def output(self, *tensors: int) -> None:
        """Append graph outputs."""
        self.outputs.extend(tensors)

    def graph(self) -> Graph:
        """The graph as built, unchecked (for making invalid files on purpose)."""
        return Graph(
            tensors=self.tensors,
            inputs=self.inputs,
            outputs=self.outputs,
            ops=self.ops,
            scalars=self.scalars,
            max_elems=self.max_elems,
        )

    def build(self) -> Graph:
        """The graph, after the load checks of §10.5 steps 1–7 (raises ``Refusal``)."""
        return read(write(self.graph()))
