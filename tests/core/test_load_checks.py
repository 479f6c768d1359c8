"""Every load check of §10.5 steps 1–7: a file made to fail exactly there, and the code it gets."""

import struct

import numpy as np
import pytest

from waiexport import Input, Tensor, read, write
from waiexport import params as P
from waiexport.builder import GraphBuilder, chscale, conv, conv_transpose, crop, lut16, rq

from _helpers import SMALL, params_offset, patch, refused, small_builder, state_graph, table_offsets

T = table_offsets(SMALL)
CONV = params_offset(SMALL, 0)  # conv parameters: 8 u32, w_bytes, 3 reserved, RQ at +36
RELU = params_offset(SMALL, 1) - 16


def test_small_loads():
    g = read(SMALL)
    assert [op.name for op in g.ops] == ["conv", "relu"]


# --- step 1: magic, version, operator set ---------------------------------------------------
@pytest.mark.parametrize(
    "data, match",
    [
        (b"", "magic"),
        (b"WHG2" + SMALL[4:], "magic"),
        (SMALL[:4], "version"),
        (patch(SMALL, 4, "B", 2), "version"),
        (patch(SMALL, 5, "B", 0), "operator set"),
    ],
)
def test_step1_magic_version_operator_set(data, match):
    refused(lambda: read(data), "model_mismatch", match)


# --- step 2: reserved header fields ---------------------------------------------------------
@pytest.mark.parametrize("off", [6, 7, 22, 23, 28, 31])
def test_step2_reserved_header_fields(off):
    refused(
        lambda: read(patch(SMALL, off, "B", 1)),
        "model_mismatch",
        f"header byte {off - off % 2 if off < 28 else 28}",
    )


def test_step2_comes_before_step3():
    bad = patch(patch(SMALL, 6, "B", 1), 8, "I", 0)  # reserved and n_tensors = 0
    refused(lambda: read(bad), "model_mismatch", "reserved")


# --- step 3: counts against the file's length -----------------------------------------------
def test_step3_hostile_tensor_count_in_a_40_byte_file():
    data = patch(SMALL[:32], 8, "I", 2**32 - 1) + bytes(8)
    refused(lambda: read(data), "model_mismatch", "the counts need at least")


@pytest.mark.parametrize(
    "off, fmt, name",
    [(8, "I", "n_tensors"), (12, "I", "n_ops"), (16, "H", "n_inputs"), (18, "H", "n_outputs")],
)
def test_step3_counts_at_least_one(off, fmt, name):
    refused(lambda: read(patch(SMALL, off, fmt, 0)), "model_mismatch", f"{name} is 0")


@pytest.mark.parametrize("value", [0, 2**26 + 1, 2**32 - 1])
def test_step3_max_elems_range(value):
    refused(lambda: read(patch(SMALL, 24, "I", value)), "model_mismatch", "max_elems")


def test_step3_truncated_tables():
    refused(lambda: read(SMALL[:100]), "model_mismatch", "the counts need at least")
    refused(
        lambda: read(patch(SMALL, 20, "H", 60000)), "model_mismatch", "the counts need at least"
    )


def test_step3_header_shorter_than_32_bytes():
    refused(lambda: read(SMALL[:20]), "model_mismatch", "header needs 32")


# --- step 4: each table's records -----------------------------------------------------------
S, I, O, TT = T["scalars"], T["inputs"], T["outputs"], T["tensors"]


@pytest.mark.parametrize(
    "off, fmt, value, match",
    [
        (S, "q", 4, "scalar 0"),  # lo 4 > hi 3
        (I, "I", 3, "tensor 3 is out of range"),
        (I + 4, "I", 0, "both or neither"),  # max_h 0, max_w 8
        (I + 12, "B", 2, "kind 2"),
        (I + 13, "B", 1, "reserved"),
        (I + 20, "I", 1, "reserved"),
        (I + 16, "I", 1, "nonzero src or init"),
        (I + 24, "q", 5, "nonzero src or init"),
        (O, "I", 9, "output 0"),
        (TT, "I", 0, "channels is 0"),
        (TT + 5, "B", 3, "policy 3"),
        (TT + 6, "H", 1, "reserved"),
        (TT + 24 + 8, "q", 1, "derived tensor"),  # tensor 1 is derived
        (TT + 8, "q", 200, "lo 200 > hi 127"),
    ],
)
def test_step4_table_records(off, fmt, value, match):
    refused(lambda: read(patch(SMALL, off, fmt, value)), "model_mismatch", match)


def test_step4_inputs_declare_sizes_all_or_none():
    b = small_builder()
    b.inputs.append(Input(b.input(1, 0, 1), 0, 0))
    b.inputs.pop(-2)
    refused(lambda: read(write(b.graph())), "model_mismatch", "some inputs declare their sizes")


# --- step 5: opcode, arity, parameter length and ranges -------------------------------------
@pytest.mark.parametrize(
    "off, fmt, value, match",
    [
        (RELU, "B", 0x1F, "opcode 0x1F"),
        (RELU, "B", 0x00, "opcode 0x00"),
        (RELU + 1, "B", 2, "relu takes 1 → 1"),
        (RELU + 2, "B", 4, "relu takes 1 → 1"),
        (RELU + 3, "B", 1, "reserved byte"),
        (RELU + 4, "I", 7, "tensor 7 is out of range"),
        (RELU + 12, "I", 1, "plen 1 passes the end"),
        (CONV - 4, "I", 4 * 8, "needs"),  # plen too short for the layout
        (CONV + 4, "I", 0, "kh = 0"),
        (CONV + 16, "I", 0, "sw = 0"),
        (CONV + 28, "I", 0, "groups = 0"),
        (CONV + 28, "I", 3, "not a multiple of 3"),  # cin 4, groups 3
        (CONV + 32, "B", 3, "w_bytes = 3"),
        (CONV + 33, "B", 1, "reserved bytes"),  # a conv record's reserved byte
        (CONV + 36, "B", 3, "RQ round = 3"),
        (CONV + 37, "B", 3, "RQ bias = 3"),
        (CONV + 39, "B", 0, "RQ s_kind = 0"),
        (CONV + 40, "B", 4, "RQ m_bytes = 4"),  # m_kind 0 needs m_bytes 0
        (CONV + 41, "B", 2, "RQ b_bytes = 2"),
        (CONV + 42, "B", 1, "RQ reserved"),
        (CONV + 44, "B", 128, "shift 128"),
    ],
)
def test_step5_operator_records(off, fmt, value, match):
    refused(lambda: read(patch(SMALL, off, fmt, value)), "model_mismatch", match)


def test_step5_plen_longer_than_the_layout():
    body = SMALL[: CONV - 4] + struct.pack("<I", struct.unpack_from("<I", SMALL, CONV - 4)[0] + 1)
    data = body + SMALL[CONV:RELU] + b"\0" + SMALL[RELU:]
    refused(lambda: read(data), "model_mismatch", "plen leaves 1 bytes")


def test_step5_bytes_after_the_last_operator():
    refused(lambda: read(SMALL + b"\0"), "model_mismatch", "1 bytes follow the last operator")


def _one_op(name, params, channels=4, out_channels=None, scalars=((0, 3),), n_in=1):
    b = GraphBuilder()
    for lo, hi in scalars:
        b.scalar(lo, hi)
    ins = [b.input(channels, -100, 100, max_h=4, max_w=4) for _ in range(n_in)]
    out = b.op(name, ins, params, channels=out_channels or channels)
    b.output(*(out if isinstance(out, tuple) else (out,)))
    return write(b.graph())


LUT = np.zeros(65536, dtype=np.int64)


@pytest.mark.parametrize(
    "name, params, kw, match",
    [
        ("lut16", lut16(np.r_[1, LUT[1:]]), {}, "T[0] = 1"),
        ("chscale", chscale(0, np.ones((3, 4))), {}, "within [0, 2]"),  # scalar [0, 3], 3 rows
        ("chscale", chscale(1, np.ones((4, 4))), {}, "names scalar 1"),
        ("leaky", P.Leaky(3, 64), {}, "f = 64"),
        ("layernorm_c", P.LayerNorm(0, 4, P.as_array([1] * 4), P.as_array([0] * 4)), {}, "eps = 0"),
        ("l2norm", P.L2Norm(0), {}, "eps = 0"),
        (
            "igdn",
            P.Igdn(128, 0, 4, P.as_array(np.ones((4, 4))), P.as_array([1] * 4)),
            {},
            "gf = 128",
        ),
        ("subpos_split", P.Subpos((0, 0, 1, 2)), {"out_channels": [4] * 4}, "permutation"),
        ("fill", P.Fill(1, 5), {}, "names scalar 5"),
        ("fill", P.Fill(2, 0), {}, "kind 2"),
        ("crop", crop(("scalar", 2), 0, 1, 1), {}, "names scalar 2"),
        (
            "crop",
            P.Crop(P.Operand(2, 0), P.Operand(0, 0), P.Operand(0, 1), P.Operand(0, 1)),
            {},
            "kind 2",
        ),
        ("clamp", P.Clamp(5, 4), {}, "lo 5 > hi 4"),
        ("split", P.Split(0, 0), {}, "count = 0"),
        ("pixel_shuffle", P.Factor(0), {}, "r = 0"),
        ("pad_rep", P.PadRep(0), {}, "m = 0"),
        ("mul", P.Mul(rq(bias=[1] * 4)), {"n_in": 2}, "bias"),
        ("gram", P.Contraction(1, rq(shift=[1] * 4)), {"n_in": 2}, "s_kind 1"),
        ("apply", P.Contraction(1, rq(mult=2)), {"n_in": 2}, "m_kind 0"),
    ],
)
def test_step5_parameter_ranges(name, params, kw, match):
    refused(lambda: read(_one_op(name, params, **kw)), "model_mismatch", match)


# --- step 6: graph rules, state rules, exponent rules ---------------------------------------
def _relu_chain():
    b = GraphBuilder()
    x = b.input(2, -5, 5, max_h=4, max_w=4)
    y = b.op("relu", x)
    b.output(b.op("relu", y))
    return b


def test_step6_reads_a_later_tensor():
    b = _relu_chain()
    b.ops[0] = ("relu", [2], [1], P.NoParams())
    refused(lambda: read(write(b.graph())), "model_mismatch", "reads tensor 2")


def test_step6_tensor_written_twice():
    b = _relu_chain()
    b.ops[1] = ("relu", [1], [1], P.NoParams())
    b.outputs[0] = 1
    b.tensors.pop()
    refused(
        lambda: read(write(b.graph())),
        "model_mismatch",
        "writes tensor 1, which another operator writes",
    )


def test_step6_tensor_never_defined():
    b = _relu_chain()
    b.tensors.append(Tensor(1))
    refused(lambda: read(write(b.graph())), "model_mismatch", "tensor 3")


def test_step6_operator_writes_a_graph_input():
    b = _relu_chain()
    b.ops[1] = ("relu", [1], [0], P.NoParams())
    refused(
        lambda: read(write(b.graph())), "model_mismatch", "writes tensor 0, which is a graph input"
    )


def test_step6_duplicate_input():
    b = _relu_chain()
    b.inputs.append(b.inputs[0])
    refused(lambda: read(write(b.graph())), "model_mismatch", "already an input")


def test_step6_input_policy():
    b = _relu_chain()
    b.tensors[0] = Tensor(2)
    refused(lambda: read(write(b.graph())), "model_mismatch", "policy derived")


def test_state_graph_loads():
    g = read(write(state_graph().graph()))
    assert g.inputs[1].kind == "state"


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"src": 1}, "src 1 is out of range"),
        ({"channels": 3}, "its src output 0 has 2"),
        ({"init": 10}, "init 10 is outside"),
        ({"first_state": True}, "input 0 must be data"),
    ],
)
def test_step6_state_rules(kw, match):
    refused(lambda: read(write(state_graph(**kw).graph())), "model_mismatch", match)


def test_step6_exponents_of_add_differ():
    b = GraphBuilder()
    x = b.input(2, -5, 5, exponent=3)
    z = b.input(2, -5, 5, exponent=4)
    b.output(b.op("add", [x, z], exponent=3))
    refused(lambda: read(write(b.graph())), "model_mismatch", "exponents differ (3, 4)")


def test_step6_exponent_declared_on_some_only():
    b = GraphBuilder()
    x = b.input(4, -5, 5, exponent=3)
    b.output(b.op("chunk_add", x))
    refused(lambda: read(write(b.graph())), "model_mismatch", "exponents differ (none, 3)")


def test_exponents_all_equal_load():
    b = GraphBuilder()
    x = b.input(2, -5, 5, exponent=-7)
    b.output(b.op("concat", [x, x], exponent=-7))
    assert read(write(b.graph())).tensor(1).exponent == -7


def test_step6_lut16_exponent():
    b = GraphBuilder()
    x = b.input(1, -5, 5, exponent=2)
    b.output(b.op("lut16", x, lut16(LUT, e_in=3)))
    refused(lambda: read(write(b.graph())), "model_mismatch", "e_in 3 differs")


# --- step 7: the plan -----------------------------------------------------------------------
def test_step7_pixel_shuffle_channels_not_a_multiple_of_r2():
    refused(
        lambda: read(_one_op("pixel_shuffle", P.Factor(2), channels=6, out_channels=1)),
        "model_mismatch",
        "6 channels are not a multiple of r² = 4",
    )


def test_step7_output_channel_record():
    refused(
        lambda: read(_one_op("relu", None, channels=4, out_channels=5)),
        "model_mismatch",
        "output 0 has 4 channels; its tensor 1 records 5",
    )


def test_step7_conv_padded_side_passes_the_cap():
    b = GraphBuilder()
    x = b.input(1, -5, 5, max_h=2**26, max_w=1)
    b.output(b.op("conv", x, conv(np.ones((1, 1, 1, 1)), pad=1)))
    refused(lambda: read(write(b.graph())), "too_large", "padded height 67108866 passes 2^26")


def test_step7_conv_transpose_uncropped_output_passes_the_cap():
    b = GraphBuilder()
    x = b.input(1, -5, 5, max_h=2048, max_w=2048)
    b.output(b.op("conv_transpose", x, conv_transpose(np.ones((1, 17, 2, 2)), stride=2)))
    refused(lambda: read(write(b.graph())), "too_large", "uncropped output")


def test_step7_kernel_larger_than_the_declared_input():
    b = GraphBuilder()
    x = b.input(1, -5, 5, max_h=2, max_w=2)
    b.output(b.op("conv", x, conv(np.ones((1, 1, 5, 5)), pad=1)))
    refused(
        lambda: read(write(b.graph())),
        "model_mismatch",
        "kernel 5×5 is larger than the padded input 4×4",
    )


def test_step7_output_past_max_elems():
    b = GraphBuilder(max_elems=100)
    x = b.input(1, -5, 5, max_h=8, max_w=8)
    b.output(b.op("conv", x, conv(np.ones((4, 1, 1, 1)))))
    refused(lambda: read(write(b.graph())), "too_large", "passes max_elems 100")


def test_step7_declared_input_past_max_elems():
    b = GraphBuilder(max_elems=100)
    b.output(b.op("relu", b.input(2, -5, 5, max_h=8, max_w=8)))
    refused(lambda: read(write(b.graph())), "too_large", "input 0")


@pytest.mark.parametrize("name", ["gram", "softmax", "l2norm"])
def test_step7_sized_reductions_need_declared_sizes(name):
    b = GraphBuilder()
    xs = [b.input(2, -5, 5) for _ in range(2 if name == "gram" else 1)]
    params = {"gram": P.Contraction(1, rq()), "softmax": None, "l2norm": P.L2Norm(1)}[name]
    b.output(b.op(name, xs, params))
    refused(lambda: read(write(b.graph())), "model_mismatch", "do not declare their sizes")


def test_step7_crop_planned_on_smallest_start_and_largest_length():
    b = GraphBuilder()
    s = b.scalar(0, 100)
    b.output(b.op("crop", b.input(1, -5, 5, max_h=8, max_w=8), crop(("scalar", s), 2, 8, 6)))
    read(write(b.graph()))  # start 0 (scalar), h 8 fits; x0 2 + w 6 = 8 fits
    b.ops[0] = ("crop", [0], [1], crop(3, 2, ("scalar", s), 7))
    refused(
        lambda: read(write(b.graph())),
        "model_mismatch",
        "window at (3, 2) of 5×7 passes the input 8×8",
    )


def test_step7_comes_after_step6():
    b = GraphBuilder()
    x = b.input(1, -5, 5, max_h=2**26, max_w=1)
    b.output(b.op("conv", x, conv(np.ones((1, 1, 1, 1)), pad=1)))
    b.tensors[0] = Tensor(1)  # input policy derived: step 6, before the too_large plan
    refused(lambda: read(write(b.graph())), "model_mismatch", "policy derived")


def test_a_graph_loaded_again_after_many_others_is_not_read_again(monkeypatch):
    import waiexport.load as load_module

    reads = []
    real = load_module.read
    monkeypatch.setattr(load_module, "_MEMBERS", type(load_module._MEMBERS)())
    monkeypatch.setattr(load_module, "_HELD", 0)
    monkeypatch.setattr(load_module, "read", lambda data: reads.append(1) or real(data))

    def relu(k):
        b = GraphBuilder()
        b.output(b.op("relu", b.input(1, -k - 1, 127)))
        return write(b.build())

    files = [relu(k) for k in range(40)]  # more than the 32 that validate's engines thrashed
    members = [load_module.read_member(data) for data in files]
    assert load_module.read_member(files[0]) is members[0] and len(reads) == 40
    monkeypatch.setattr(load_module, "_KEEP_TOTAL", 2 * len(files[0]))  # room for two
    load_module.read_member(relu(40))  # keeps itself and the last used, files[0]
    assert load_module.read_member(files[0]) is members[0] and len(reads) == 41
    assert load_module.read_member(files[2]) is not members[2] and len(reads) == 42
    monkeypatch.setattr(load_module, "_KEEP_TOTAL", 32 << 20)
    monkeypatch.setattr(load_module, "_KEEP", 3)  # and a count, for many small graphs
    for data in files[3:10]:
        load_module.read_member(data)
    assert len(load_module._MEMBERS) == 3
    assert load_module._HELD == sum(len(m.data) for m in load_module._MEMBERS.values())
