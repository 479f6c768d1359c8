"""Shared test graphs, byte-level helpers, the one refusal helper, and the reference
against an engine."""

from __future__ import annotations

import os
import struct
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from waiexport import params as P
from waiexport import write
from waiexport.builder import (
    GraphBuilder,
    chscale,
    conv,
    conv_transpose,
    crop,
    igdn,
    layernorm,
    lut16,
    rq,
)

HEADER = 32
#: The repository's root.
ROOT = Path(__file__).resolve().parent.parent
#: Where each installed package's files live (pyproject's package-dir).
FOLDERS = {
    "waiexport": ROOT / "waiexport",
    "waiexport.reference": ROOT / "reference",
    "waiexport.rewrites": ROOT / "rewrites",
    "waiexport.targets": ROOT / "targets",
    "waiexport.conformance": ROOT / "conformance",
}


#: What each optional extra installs, as the skip reason says it.
EXTRAS = {
    "ort": "onnxruntime",
    "tosa": "tosa-tools",
    "iree": "IREE (iree-base-compiler, iree-base-runtime)",
    "vela": "Arm's Vela (ethos-u-vela)",
    "notebooks": "the notebook kernel (nbclient)",
    "openvino": "OpenVINO",
    "tract": "tract",
    "tvm": "Apache TVM",
    "qnn": "onnxruntime's QNN provider (onnxruntime-qnn)",
    "tflite": "TFLite (tflite-micro, ai-edge-litert)",
    "test": "the test extra's tools (junitparser)",
    "ray": "Ray (ray)",
    "docs": "the documentation's tools (mkdocs, mkdocs-material, mkdocstrings, mkdocs-click)",
}


def needs(module: str, extra: str):
    """``module``, imported; the calling test module (or test) skips when it is absent,
    naming the extra that installs it."""
    import pytest

    return pytest.importorskip(
        module, reason=f"needs {EXTRAS[extra]}: pip install 'waiexport[{extra}]'"
    )


def with_extra(module: str, extra: str):
    """A mark that skips a test (or a parameter) when ``module`` is absent, naming the
    extra that installs it."""
    import pytest
    from importlib.util import find_spec

    try:
        absent = find_spec(module) is None
    except ModuleNotFoundError:
        absent = True
    return pytest.mark.skipif(
        absent, reason=f"needs {EXTRAS[extra]}: pip install 'waiexport[{extra}]'"
    )


def available(fn):
    """``fn()``, or a skip of the calling test when what it needs is not installed (the
    message of ``EngineUnavailable`` names the extra)."""
    import pytest

    from waiexport.targets.errors import EngineUnavailable

    try:
        return fn()
    except EngineUnavailable as e:
        pytest.skip(str(e))


def jpegai_args(out, **given) -> list[str]:
    """``waiexport jpegai decode`` of the bundled example into ``out``, not validated: its
    streams, each replaced where ``given`` names it by its option (``soz``, ``grfs-y``, …)."""
    streams = ROOT / "examples" / "jpegai" / "streams"
    files = {
        "soz": streams / "soz.bin",
        "sorp": streams / "sorp.bin",
        "sors": streams / "sors.bin",
        "grfs-y": streams / "grfs_y.txt",
        "grfs-uv": streams / "grfs_uv.txt",
    } | given
    return [
        "jpegai",
        "decode",
        str(ROOT / "examples" / "jpegai"),
        "--no-validate",
        "-o",
        str(out),
    ] + [a for k, v in files.items() for a in (f"--{k}", str(v))]


def refused(fn, code: str, match: str = ""):
    """``fn()`` raises ``Refusal`` with ``code`` and ``match`` in its text; returns it."""
    import pytest

    from waiexport import Refusal

    with pytest.raises(Refusal) as info:
        fn()
    assert info.value.code == code, str(info.value)
    assert match in str(info.value), str(info.value)
    return info.value


def agree(g_data, inputs, scalars, other=None):
    """The reference and an onnxruntime engine (ort-cpu unless ``other``) agree: the same
    outputs or the same code, which it returns."""
    from waiexport import Refusal
    from waiexport.targets.engines import engine

    ref, ort_ = engine("reference").load(g_data), (other or engine("ort-cpu")).load(g_data)
    outcomes = []
    for loaded in (ref, ort_):
        try:
            outcomes.append([o.astype(object).tolist() for o in loaded.decode(inputs, scalars)])
        except Refusal as r:
            outcomes.append(r.code)
    assert outcomes[0] == outcomes[1]
    return outcomes[0]


def small_builder(max_h=8, max_w=8):
    """scalar [0, 3]; input 0 [4, 8, 8] check; conv 3×3 pad 1 with a pre bias; relu."""
    b = GraphBuilder()
    b.scalar(0, 3)
    x = b.input(4, -128, 127, max_h=max_h, max_w=max_w)
    y = b.op(
        "conv",
        x,
        conv(np.arange(144).reshape(4, 4, 3, 3) % 7 - 3, pad=1, rq=rq(shift=2, bias=[1, 2, 3, 4])),
    )
    b.output(b.op("relu", y))
    return b


#: small_builder()'s graph, written.
SMALL = write(small_builder().build())


def state_graph(src=0, channels=2, init=0, first_state=False):
    b = GraphBuilder()
    s = b.state(channels, -9, 9, src=src, init=init, max_h=4, max_w=4) if first_state else None
    x = b.input(2, -5, 5, max_h=4, max_w=4)
    if s is None:
        s = b.state(channels, -9, 9, src=src, init=init, max_h=4, max_w=4)
    y = b.op("add", [x, b.op("split", s, P.Split(0, 2))] if channels > 2 else [x, s])
    b.output(b.op("clamp", y, P.Clamp(-9, 9)))
    return b


def past_the_kernel(stride, pad, out_pad):
    """A graph of one 2×2 ``conv_transpose`` (2 → 3 channels, input in ``[−100, 100]``)
    whose ``stride`` may pass its kernel, its unreached positions' clamped ``rq_o(0)`` not
    zero."""
    b = GraphBuilder()
    b.output(
        b.op(
            "conv_transpose",
            b.input(2, -100, 100),
            conv_transpose(
                np.arange(24).reshape(2, 3, 2, 2) - 5,
                stride=stride,
                pad=pad,
                out_pad=out_pad,
                rq=rq(shift=1, bias=[1, -7, 3]),
            ),
            policy="clamp",
            lo=-5,
            hi=100,
        )
    )
    return b.build()


def checked(first: bool):
    """rescale → relu, with a ``check`` range inside: on the first operator's output, or
    on the last."""
    b = GraphBuilder()
    t = b.input(1, -1000, 1000)
    kw = dict(policy="check", lo=-100, hi=100)
    t = b.op("rescale", t, P.Rescale(rq(shift=1)), **(kw if first else {}))
    b.output(b.op("relu", t, **({} if first else kw)))
    return b.build()


def verdict(g) -> dict:
    """The certificate's verdict (§8.5) on one built graph: profiles, subset and reasons."""
    from waiexport.certificate import Member, verdict_of
    from waiexport.whg1 import write

    return verdict_of([Member.of("g", write(g), g)])


def every_op_builder(seed: int = 0) -> GraphBuilder:
    """A builder holding a graph that uses all 30 operators, with declared sizes, a state
    input, three scalars and several ``RQ`` layouts; it loads (§10.5 steps 1–7)."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    rows = b.scalar(0, 1)
    start = b.scalar(0, 2)
    value = b.scalar(-5, 5)
    x = b.input(4, -100, 100, max_h=8, max_w=8)
    st = b.state(2, -1000, 1000, src=1, init=3, max_h=8, max_w=8)
    c1 = b.op(
        "conv",
        x,
        conv(
            rng.integers(-300, 300, (8, 4, 3, 3)),
            pad=1,
            rq=rq(
                shift=list(range(8)),
                mult=rng.integers(-9, 9, 8),
                bias=rng.integers(-50, 50, 8),
                round="half_up",
            ),
        ),
    )
    dw = b.op(
        "conv",
        c1,
        conv(
            rng.integers(-3, 3, (8, 1, 3, 3)),
            pad=1,
            groups=8,
            rq=rq(shift=2, bias=rng.integers(-5, 5, 8), bias_kind="post"),
        ),
    )
    ct = b.op(
        "conv_transpose",
        dw,
        conv_transpose(
            rng.integers(-(2**20), 2**20, (8, 4, 4, 4)),
            stride=2,
            pad=1,
            rq=rq(shift=30, mult=3, round="half_even", m_bytes=8),
        ),
    )
    rs = b.op(
        "rescale",
        ct,
        P.Rescale(rq(shift=1, mult=[1, 2, 3, 4], bias=[1, 2, 3, 4], bias_kind="post", b_bytes=8)),
    )
    cs = b.op("chscale", rs, chscale(rows, rng.integers(-4, 4, (2, 4)), shift=1))
    cl = b.op("clamp", cs, P.Clamp(-32767, 32767))
    lt = b.op("lut16", cl, lut16(np.r_[0, rng.integers(-(2**15), 2**15, 65535)]))
    ad = b.op("add", [lt, lt])
    cc = b.op("concat", [ad, lt])
    ch = b.op("chunk_add", cc)
    b.op("split", ch, P.Split(1, 2))  # an output nothing reads
    ps = b.op("pixel_shuffle", cc, P.Factor(2))
    pu = b.op("pixel_unshuffle", ps, P.Factor(2))
    re = b.op("relu", pu)
    lk = b.op("leaky", re, P.Leaky(-3, 2))
    pr = b.op("pad_rep", lk, P.PadRep(3))
    crt = b.op("crop_to", [pr, ct])
    mu = b.op("mul", [crt, b.op("split", crt, P.Split(0, 1))], P.Mul(rq(shift=4)))
    ig = b.op("igdn", mu, igdn(rng.integers(0, 9, (8, 8)), rng.integers(1, 9, 8), gf=3, frac=2))
    ab = b.op("abs", ig)
    cr = b.op("crop", ab, crop(("scalar", start), 1, 12, 14))
    parts = b.op("subpos_split", cr, P.Subpos((3, 1, 0, 2)))
    mg = b.op("subpos_merge", parts, P.Subpos((3, 1, 0, 2)))
    fl = b.op("fill", mg, P.Fill(1, value), channels=3)
    fc = b.op("fill", fl, P.Fill(0, -7), channels=2)
    ln = b.op(
        "layernorm_c",
        mg,
        layernorm(rng.integers(-9, 9, 8), rng.integers(-9, 9, 8), eps=2**64 - 1, g_bytes=8),
    )
    l2 = b.op("l2norm", ln, P.L2Norm(5))
    sm = b.op("softmax", l2)
    sg = b.op("sigmoid", sm)
    el = b.op("elu", sg, P.Elu(-70000))
    gm = b.op("gram", [el, mg], P.Contraction(2, rq(shift=16, round="half_up")))
    ap = b.op("apply", [gm, el], P.Contraction(2, rq(shift=16)))
    su = b.op("add", [st, b.op("split", x, P.Split(0, 2))], policy="clamp", lo=-1000, hi=1000)
    b.output(ap, su, fc)
    return b


def every_op_graph(seed: int = 0):
    return every_op_builder(seed).build()


def op_offsets(data: bytes) -> list[int]:
    """The byte offset of every operator record, found by a walk independent of the reader."""
    n_tensors, n_ops, n_in, n_out, n_sc = struct.unpack_from("<IIHHH", data, 8)
    off = HEADER + 16 * n_sc + 32 * n_in + 4 * n_out + 24 * n_tensors
    offsets = []
    for _ in range(n_ops):
        offsets.append(off)
        k = data[off + 1] + data[off + 2]
        plen = struct.unpack_from("<I", data, off + 4 + 4 * k)[0]
        off += 8 + 4 * k + plen
    return offsets


def params_offset(data: bytes, k: int) -> int:
    """The byte offset of operator ``k``'s parameters."""
    off = op_offsets(data)[k]
    return off + 8 + 4 * (data[off + 1] + data[off + 2])


def table_offsets(data: bytes) -> dict:
    """Byte offsets of the scalar, input, output and tensor tables."""
    n_tensors, n_ops, n_in, n_out, n_sc = struct.unpack_from("<IIHHH", data, 8)
    scal = HEADER
    inp = scal + 16 * n_sc
    out = inp + 32 * n_in
    ten = out + 4 * n_out
    return {"scalars": scal, "inputs": inp, "outputs": out, "tensors": ten}


def patch(data: bytes, off: int, fmt: str, *values) -> bytes:
    """``data`` with ``values`` packed as ``fmt`` (little-endian) at ``off``."""
    buf = bytearray(data)
    struct.pack_into("<" + fmt, buf, off, *values)
    return bytes(buf)


def examples(n: int) -> int:
    """A property test's example count: ``n`` under the default and ``ci`` profiles, scaled
    with the loaded profile's ``max_examples`` (twenty times under ``thorough``)."""
    from hypothesis import settings

    return max(1, n * settings.default.max_examples // 100)


def mistaken(name: str, mistake):
    """The reference as an engine with one named mistake in every rounding ``R_mode(p, s)``
    it makes (the value a sum or product reaches, just before it is requantised):
    ``mistake(real, p, s, mode)``, through the reference's rounding hook."""
    from waiexport.reference import decode
    from waiexport.targets.engines.base import Loaded
    from waiexport.targets.engines.reference import ReferenceEngine
    from waiexport.targets.outputs import by_name

    class Mistaken(ReferenceEngine):
        def load(self, data):
            g = super().load(data).graph
            return Loaded(
                g,
                lambda i, s: by_name(decode(g, i, s, rounding=mistake)),
                lambda i, s: decode(g, i, s, keep=True, rounding=mistake),
            )

    engine = Mistaken()
    engine.name = name
    return engine


def in_npu_acc32(g) -> bool:
    """Whether ``g`` meets acc32 and lies in wai-ops/1-npu (a graph refused at load does
    not)."""
    from waiexport import Refusal

    try:
        v = verdict(g)
    except Refusal:
        return False
    return v["acc32"] and v["npu"]


def exact_or_refused(g, decodes, engine=None) -> bool:
    """The reference and ``engine`` (tosa-ref unless given) agree on every decode (outputs
    or code), or the export refuses naming the node; returns whether it exported."""
    from waiexport import Refusal, write
    from waiexport.reference import decode
    from waiexport.targets.engines.tosa_ref import TosaRefEngine
    from waiexport.targets.errors import DoesNotFit, ExportError, NotForEngine

    engine = engine or TosaRefEngine
    data = write(g)
    try:
        loaded = engine().load(data)
    except (DoesNotFit, NotForEngine, ExportError) as e:
        assert "node" in str(e) or "operator" in str(e) or "graph with" in str(e), str(e)
        return False
    for inputs, scalars in decodes:
        try:
            want = [o.tolist() for o in decode(g, inputs, scalars)]
        except Refusal as r:
            want = r.code
        try:
            got = [o.tolist() for o in loaded.decode(inputs, scalars)]
        except Refusal as r:
            got = r.code
        except NotForEngine as e:  # a runtime that compiles per shape declines this one
            assert "node" in str(e).lower() or "operator" in str(e), str(e)
            return False
        assert got == want
    return True


def clamped_fill(side: int, lo: int, hi: int):
    """A constant fill (4096) whose clamp policy is ``[lo, hi]``, added to an input, on
    inputs of ``side × side``, and three decodes of it, each with the reference's output:
    ``(graph, [(inputs, want)])``."""
    from waiexport.reference import decode

    b = GraphBuilder()
    x = b.input(1, -4096, 4096, max_h=side, max_w=side)
    y = b.input(2, -(1 << 20), 1 << 20, max_h=side, max_w=side)
    f = b.op("fill", x, P.Fill(0, 4096), channels=2, policy="clamp", lo=lo, hi=hi)
    b.output(b.op("add", [f, y]))
    g = b.build()
    decodes = [
        [np.zeros((1, side, side), np.int64), np.full((2, side, side), 1000 * k)] for k in (1, 2, 3)
    ]
    return g, [(d, decode(g, d, [])[0]) for d in decodes]


def accumulator():
    """out = clamp(x + state, ±50), fed back as the state; init 3; x is check [−10, 10]."""
    b = GraphBuilder()
    x = b.input(1, -10, 10)
    s = b.state(1, -50, 50, src=0, init=3)
    b.output(b.op("add", [x, s], policy="clamp", lo=-50, hi=50))
    return b.build()


@contextmanager
def nested(folder, depth: int = 1200):
    """Folders ``d/d/…`` ``depth`` deep in ``folder`` (past Python's recursion limit, and
    past what one path names: each made relative to the one above), removed afterwards the
    same way (Python 3.11's ``shutil.rmtree`` recurses, so pytest's clean-up could not)."""
    fds = [os.open(folder, os.O_RDONLY)]
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fds[-1])
            fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
        yield
    finally:
        while len(fds) > 1:
            os.close(fds.pop())
            os.rmdir("d", dir_fd=fds[-1])
        os.close(fds[0])


def takes_what_its_description_takes(target: str, fits, engine) -> None:
    """``engine`` passes exactly the committed vectors whose graph, rewritten for ``target``,
    ``fits`` (a literal reading of the target's description from the certificate), a set not
    empty; it fails, crashes and times out on none."""
    from waiexport import read, rewrite
    from waiexport.conformance.generate import CORPUS
    from waiexport.conformance.validate import files_under, read_all, validate

    files = files_under([CORPUS])
    want, loaded = set(), set()
    for _, vectors in read_all(files):
        for v in vectors:
            if "stage" in v or v["load"] != "ok" or "acc32" not in v["profiles"]:
                continue
            loaded.add(v["id"])
            try:
                out = rewrite(v["graph_bytes"], target=target)
            except Exception:  # refused at load or by the rewrite: not taken
                continue
            if out.outcome.after["verdict"]["npu"] and fits(read(out.data)):
                want.add(v["id"])
    got = {r.vid: r.status for r in validate(engine, files)}
    assert want and want == {vid for vid in loaded if got[vid] == "pass"}
    assert not {"fail", "crashed", "timed_out"} & set(got.values())


def each_operator_exact_or_refused(name: str, engines: list, examples_n: int, bits: int = 8) -> int:
    """Drawn one-operator graphs of ``name`` at ``bits``-bit values (``add``'s at one bit
    fewer, so its sum fits), each bit-exact on every engine of ``engines`` (factories) or
    refused by name: how many every engine took."""
    from hypothesis import HealthCheck, assume, given, settings

    from _strategies import NARROW, case
    from waiexport.probes import probe_inputs

    exported = 0
    top = 1 << (bits - (2 if name == "add" else 1))

    @settings(
        max_examples=examples(examples_n), deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(case(name, dict(NARROW, values=(-top, top - 1))))
    def check(drawn):
        nonlocal exported
        g, inputs, scalars = drawn
        assume(in_npu_acc32(g))
        decodes = [(inputs, scalars)] + probe_inputs(g)
        exported += all([exact_or_refused(g, decodes, e) for e in engines])

    check()
    return exported
