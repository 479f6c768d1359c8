"""The ONNX forms for a runtime that computes integer division and GEMMs through float
(``openvino-cpu``'s target): the roundings by bits and a convolution by chains of ``Mul``
and ``Add``, against Python integers at the int32 ends (on onnxruntime, whose integer kernels are
exact, and on OpenVINO where it is installed)."""

import numpy as np
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from onnx import helper

from waiexport.descriptions import target

from _helpers import examples, needs

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
FAST = settings(max_examples=examples(40), deadline=None, suppress_health_check=list(HealthCheck))


def _model(build, channels: int) -> bytes:
    """A model of one int32 input ``[1, C, 1, N]`` and what ``build(e, x)`` makes of it, its
    emitter aimed at ``openvino-cpu``."""
    from waiexport.targets.onnx.emit import I32, Emitter

    e = Emitter()
    e.target = target("openvino-cpu")
    out = build(e, "x")
    e.nodes.append(helper.make_node("Identity", [out], ["out0"]))
    g = helper.make_graph(
        e.nodes,
        "form",
        [helper.make_tensor_value_info("x", I32, [1, channels, None, None])],
        [helper.make_tensor_value_info("out0", I32, None)],
        e.inits,
    )
    return helper.make_model(
        g, opset_imports=[helper.make_opsetid("", 21)], ir_version=10
    ).SerializeToString(), {n.op_type for n in e.nodes}


def _runs(model: bytes, x: np.ndarray) -> list:
    """What onnxruntime, and OpenVINO where installed, compute for ``x``."""
    ort = needs("onnxruntime", "ort")
    out = [ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]]
    try:
        import openvino as ov
    except ImportError:
        return out
    core = ov.Core()
    compiled = core.compile_model(
        core.read_model(model=model, weights=b""), "CPU", {"INFERENCE_PRECISION_HINT": "f32"}
    )
    return out + [next(iter(compiled.create_infer_request().infer({"x": x}).values()))]


def _rounded(v: int, s: int, mode: str) -> int:
    """§2's roundings of ``v / 2^s``, written from their definitions."""
    if s == 0:
        return v
    q, r, half = v >> s, v & ((1 << s) - 1), 1 << (s - 1)
    if mode == "floor":
        return q
    return q + (r >= half if mode == "half_up" else r > half or (r == half and q % 2 == 1))


@FAST
@given(
    shifts=st.lists(st.integers(0, 30), min_size=1, max_size=3),
    values=st.lists(st.integers(I32_MIN, I32_MAX - (1 << 29)), min_size=1, max_size=6),
    mode=st.sampled_from(["floor", "half_up", "half_even"]),
)
@example(
    shifts=[0, 1, 30],
    values=[I32_MIN, I32_MAX - (1 << 29), -1, 0, 1, 3, -3, 5, -5],
    mode="half_even",
)
@example(
    shifts=[13],
    values=[I32_MIN, I32_MIN + 1, -(1 << 13), (1 << 13) - 1, 3 << 12, 5 << 12, -(3 << 12)],
    mode="half_even",
)
@example(shifts=[0, 0], values=[I32_MIN, 7], mode="half_even")
def test_the_roundings_by_bits_at_the_int32_ends(shifts, values, mode):
    from waiexport.targets.onnx.requant import requantise

    model, ops = _model(
        lambda e, x: requantise(e, x, round=mode, shifts=shifts, dtype=e.storage), len(shifts)
    )
    assert not ops & {"Div", "Mod", "BitShift", "Equal", "Greater"}
    x = np.array([[values] * len(shifts)], np.int32).reshape(1, len(shifts), 1, -1)
    want = np.array([[_rounded(v, s, mode) for v in values] for s in shifts]).reshape(x.shape)
    for got in _runs(model, x):
        assert (got.astype(np.int64) == want).all()


@FAST
@given(
    data=st.data(),
    cin=st.integers(1, 9),
    cout=st.integers(1, 4),
    k=st.sampled_from([(1, 1), (2, 3), (3, 3)]),
    stride=st.integers(1, 2),
    pad=st.integers(0, 2),
    per_position=st.sampled_from([1, 6, 512]),
    longest=st.sampled_from([2, 192]),
)
def test_the_convolution_by_chains_of_mul_and_add(
    data, cin, cout, k, stride, pad, per_position, longest
):
    """``per_position`` (the products a node forms per position) 1: a chain of one row a
    step; 6: rows in segments, summed by halves at the end; 512: these sizes' one step;
    ``longest`` (a chain's most steps) 2: longer segments than ``per_position`` gives. At
    stride 1 a tap's rows are views of the flat input (their wrapped positions cropped),
    else windows."""
    from unittest import mock

    from waiexport.targets.onnx import mac
    from waiexport.targets.onnx.emit import I32

    top = data.draw(st.sampled_from([127, 1 << 13]))
    w = np.array(
        data.draw(
            st.lists(
                st.integers(-top, top),
                min_size=cout * cin * k[0] * k[1],
                max_size=cout * cin * k[0] * k[1],
            )
        )
    ).reshape(cout, cin, *k)
    lo, hi = -(1 << 11), (1 << 11) - 1
    assume(mac.elementwise.subset_sums_fit_i32((lo, hi), w))  # else the form is not taken
    with (
        mock.patch.object(mac.elementwise, "_PER_POSITION", per_position),
        mock.patch.object(mac.elementwise, "_LONGEST", longest),
    ):
        model, ops = _model(
            lambda e, x: mac.mac_sum(
                e,
                x,
                (lo, hi),
                w,
                target("openvino-cpu"),
                groups=1,
                strides=(stride, stride),
                pads=(pad, pad, pad, pad),
                dtype=I32,
            ),
            cin,
        )
    assert not ops & {"ConvInteger", "MatMulInteger", "MatMul", "ReduceSum"}
    h, wd = data.draw(st.integers(k[0], 6)), data.draw(st.integers(k[1], 6))
    x = np.array(
        data.draw(st.lists(st.integers(lo, hi), min_size=cin * h * wd, max_size=cin * h * wd)),
        np.int32,
    ).reshape(1, cin, h, wd)
    xp = np.pad(x[0].astype(np.float64), ((0, 0), (pad, pad), (pad, pad)))
    ho, wo = (xp.shape[1] - k[0]) // stride + 1, (xp.shape[2] - k[1]) // stride + 1
    want = np.zeros((cout, ho, wo))  # float64 holds every sum here exactly (< 2^53)
    for i in range(k[0]):
        for j in range(k[1]):
            win = xp[
                :, i : i + stride * (ho - 1) + 1 : stride, j : j + stride * (wo - 1) + 1 : stride
            ]
            want += np.einsum("oc,chw->ohw", w[:, :, i, j].astype(np.float64), win)
    for got in _runs(model, x):
        assert (got[0].astype(np.int64) == want.astype(np.int64)).all()


def _direct(x: np.ndarray, w: np.ndarray, pads: tuple) -> np.ndarray:
    """A stride-1 convolution's sums ``[Cout, Ho, Wo]`` of ``x`` ``[1, Cin, H, W]``, written
    from its definition in Python integers."""
    t, left, b, r = pads
    xp = np.pad(x[0].astype(object), ((0, 0), (t, b), (left, r)))
    kh, kw = w.shape[2:]
    ho, wo = xp.shape[1] - kh + 1, xp.shape[2] - kw + 1
    out = np.zeros((w.shape[0], ho, wo), object)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum(
                "oc,chw->ohw", w[:, :, i, j].astype(object), xp[:, i : i + ho, j : j + wo]
            )
    return out


def _widest(w: np.ndarray) -> int:
    """The largest ``top`` for which the Winograd form takes ``w`` on ``x`` in ``±top``
    (0 where none)."""
    from waiexport.targets.onnx.mac.winograd import winograd_bound

    lo, hi = 0, 1 << 31
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if winograd_bound((-mid, mid), w, (1, 1)) is not None else (lo, mid)
    return lo


@FAST
@given(
    data=st.data(),
    cin=st.integers(1, 5),
    cout=st.integers(1, 3),
    k=st.sampled_from([(1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (3, 3), (1, 3)]),
    pads=st.tuples(*[st.integers(0, 2)] * 4),
    per_position=st.sampled_from([1, 16, 1024]),
    values=st.sampled_from(["between", "ends", "aligned"]),
)
def test_the_convolution_by_winograd_s_minimal_filtering(
    data, cin, cout, k, pads, per_position, values
):
    """At the widest input the form's bounds take (:func:`_widest`), each value anywhere
    between its ends, at its ends, or at its ends with a window of the signs of the first
    channel's weights (``aligned``: that sum at its bound), on even and odd sides;
    ``per_position`` 1: one input channel a step; 16: channels in segments, summed by
    halves; 1024: one step."""
    from unittest import mock

    from waiexport.targets.onnx.emit import I32
    from waiexport.targets.onnx.mac import winograd

    n = cout * cin * k[0] * k[1]
    w = np.array(data.draw(st.lists(st.integers(-(1 << 13), 1 << 13), min_size=n, max_size=n)))
    w = w.reshape(cout, cin, *k)
    with mock.patch.object(winograd, "_MIN_CHANNELS", 1):
        top = _widest(w)
    assume(top > 0)
    with mock.patch.object(winograd, "_PER_POSITION", per_position):
        model, ops = _model(
            lambda e, x: winograd.winograd_sum(
                e, x, winograd._output_bound((-top, top), w), w, pads=pads, dtype=I32
            ),
            cin,
        )
    assert not ops & {"ConvInteger", "MatMulInteger", "MatMul", "ReduceSum", "Div"}
    h = data.draw(st.integers(k[0] if values == "aligned" else max(1, k[0] - pads[0] - pads[2]), 7))
    wd = data.draw(
        st.integers(k[1] if values == "aligned" else max(1, k[1] - pads[1] - pads[3]), 7)
    )
    size = cin * h * wd
    each = st.integers(-top, top) if values == "between" else st.sampled_from([-top, top])
    x = np.array(data.draw(st.lists(each, min_size=size, max_size=size)), np.int32)
    x = x.reshape(1, cin, h, wd)
    if values == "aligned":
        x[0, :, : k[0], : k[1]] = np.where(w[0] < 0, -top, top)
    want = _direct(x, w, pads)
    for got in _runs(model, x):
        assert got.shape == (1, *want.shape)
        assert (got[0].astype(object) == want).all()


def test_the_winograd_form_is_taken_only_where_its_sums_fit_and_pay():
    """Its transformed sums grow past the convolution's own: the weights' transform adds a
    kernel's taps (``G g Gᵀ``), the input's adds four inputs (``Bᵀ d B``), so an input the
    chain of products takes can pass int32 here; and it needs enough output channels."""
    from waiexport.targets.onnx.mac.elementwise import subset_sums_fit_i32
    from waiexport.targets.onnx.mac.winograd import winograd_bound

    w = np.full((16, 1, 3, 3), 1000)
    top = (1 << 31) // (9 * 1000) - 1
    assert subset_sums_fit_i32((-top, top), w)
    assert winograd_bound((-top, top), w, (1, 1)) is None
    assert winograd_bound((-(top // 16), top // 16), w, (1, 1)) is not None
    assert winograd_bound((-(top // 16), top // 16), w[:15], (1, 1)) is None
    assert winograd_bound((-(top // 16), top // 16), w, (2, 2)) is None
