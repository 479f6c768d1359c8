"""Operator parameters as §10.4 lays them out: each operator's byte layout declared once, in
:data:`LAYOUTS`, as a list of fields (:mod:`.fields`); the reader (:func:`decode`), the
writer (:func:`encode`) and the validator (:func:`check`) all walk that one declaration, so a
layout cannot drift between reading and writing."""

from __future__ import annotations

from . import param_rules as rules
from .fields import Arr, Enum, Layout, Opnd, Rq, S, Tuple, U, Z, divided
from .params import (
    ROUNDS,
    Chscale,
    Clamp,
    Contraction,
    Conv,
    ConvTranspose,
    Crop,
    Elu,
    Factor,
    Fill,
    Igdn,
    L2Norm,
    LayerNorm,
    LayoutCtx,
    Leaky,
    Lut16,
    Mul,
    NoParams,
    PadRep,
    ParamError,
    Params,
    Rescale,
    Split,
    Subpos,
)

__all__ = ["LAYOUTS", "decode", "encode", "check"]


_WIDTHS = (1, 2, 4, 8)
_CONV_HEAD = (
    U("cout", 4, 1),
    U("kh", 4, 1),
    U("kw", 4, 1),
    U("sh", 4, 1),
    U("sw", 4, 1),
    U("ph", 4),
    U("pw", 4),
)
_W = (U("w_bytes", 1, among=_WIDTHS), Z(3), Rq(lambda v, c: v["cout"]))
_CIN = Rq(lambda v, c: c.cin)

#: The §10.4 layout of every operator, by name.
LAYOUTS: dict[str, Layout] = {
    "conv": Layout(
        Conv,
        _CONV_HEAD
        + (U("groups", 4, 1),)
        + _W
        + (
            Arr(
                "weights",
                "w_bytes",
                lambda v, c: (
                    v["cout"],
                    divided(c.cin, v["groups"], "conv input channels / groups"),
                    v["kh"],
                    v["kw"],
                ),
            ),
        ),
    ),
    "conv_transpose": Layout(
        ConvTranspose,
        _CONV_HEAD
        + (U("oph", 4), U("opw", 4))
        + _W
        + (Arr("weights", "w_bytes", lambda v, c: (c.cin, v["cout"], v["kh"], v["kw"])),),
    ),
    "rescale": Layout(Rescale, (_CIN,)),
    "chscale": Layout(
        Chscale,
        (
            U("scalar", 4),
            U("n_rows", 4, 1),
            Enum("round", ROUNDS),
            U("m_bytes", 1, among=(4, 8)),
            U("shift", 1, hi=127),
            Z(1),
            Arr("table", "m_bytes", lambda v, c: (v["n_rows"], c.cin)),
        ),
        rules.chscale,
    ),
    "lut16": Layout(
        Lut16,
        (
            S("e_in", 1, exponent=True),
            S("e_out", 1, exponent=True),
            Z(2),
            Arr("table", 2, lambda v, c: (65536,)),
        ),
        rules.lut16,
    ),
    "add": Layout(NoParams, ()),
    "concat": Layout(NoParams, ()),
    "chunk_add": Layout(NoParams, ()),
    "split": Layout(Split, (U("start", 4), U("count", 4, 1))),
    "pixel_shuffle": Layout(Factor, (U("r", 4, 1),)),
    "pixel_unshuffle": Layout(Factor, (U("r", 4, 1),)),
    "clamp": Layout(Clamp, (S("lo", 8), S("hi", 8)), rules.clamp),
    "relu": Layout(NoParams, ()),
    "leaky": Layout(Leaky, (S("a", 8), U("f", 4, hi=63))),
    "pad_rep": Layout(PadRep, (U("m", 4, 1),)),
    "crop_to": Layout(NoParams, ()),
    "mul": Layout(Mul, (_CIN,), rules.mul),
    "igdn": Layout(
        Igdn,
        (
            U("gf", 4, hi=127),
            U("frac", 4, hi=127),
            U("g_bytes", 1, among=(4, 8)),
            Z(7),
            Arr("gamma", "g_bytes", lambda v, c: (c.cin, c.cin)),
            Arr("beta", 8, lambda v, c: (c.cin,)),
        ),
    ),
    "abs": Layout(NoParams, ()),
    "crop": Layout(Crop, (Opnd("y0"), Opnd("x0"), Opnd("h"), Opnd("w")), rules.crop),
    "subpos_split": Layout(Subpos, (Tuple("order", 4, 1),), rules.subpos),
    "subpos_merge": Layout(Subpos, (Tuple("order", 4, 1),), rules.subpos),
    "fill": Layout(Fill, (U("kind", 1), Z(7), S("value", 8)), rules.fill),
    "layernorm_c": Layout(
        LayerNorm,
        (
            U("eps", 8, 1),
            U("g_bytes", 1, among=(4, 8)),
            Z(7),
            Arr("gamma", "g_bytes", lambda v, c: (c.cin,)),
            Arr("beta", 8, lambda v, c: (c.cin,)),
        ),
    ),
    "l2norm": Layout(L2Norm, (U("eps", 8, 1),)),
    "softmax": Layout(NoParams, ()),
    "sigmoid": Layout(NoParams, ()),
    "elu": Layout(Elu, (S("alpha", 8),)),
    "gram": Layout(Contraction, (U("groups", 4, 1), _CIN), rules.contraction),
    "apply": Layout(Contraction, (U("groups", 4, 1), _CIN), rules.contraction),
}


# --- walking a layout ----------------------------------------------------------------------


def decode(name: str, cur, ctx: LayoutCtx) -> Params:
    """Read operator ``name``'s parameters from ``cur`` (which ends at ``plen``) and check
    them (§10.4, §10.5 step 5). Raises :class:`ParamError` or ``cursor.Short``."""
    layout = LAYOUTS[name]
    values: dict = {}
    for f in layout.fields:
        f.read(cur, values, ctx)
    if cur.left:
        raise ParamError(f"plen leaves {cur.left} bytes after the last parameter")
    params = layout.cls(**values)
    check(name, params, ctx)
    return params


def encode(name: str, params: Params) -> bytes:
    """The §10.4 bytes of ``params`` (``plen`` bytes, without the ``plen`` field)."""
    out: list = []
    for f in LAYOUTS[name].fields:
        f.write(vars(params), out)
    return b"".join(out)


def check(name: str, params: Params, ctx: LayoutCtx) -> None:
    """Check ``params`` as the reader would (§10.5 step 5): the type matches ``name``, every
    field is in range, arrays have the shapes and widths the layout gives, and the operator's
    cross-field rule holds. Raises :class:`ParamError`."""
    layout = LAYOUTS[name]
    if type(params) is not layout.cls:
        raise ParamError(
            f"{name} takes {layout.cls.__name__} parameters, not {type(params).__name__}"
        )
    for f in layout.fields:
        f.check(vars(params), ctx)
    if layout.rule:
        layout.rule(params, ctx)
