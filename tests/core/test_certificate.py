"""The certificate's format (§8.5), the verdict, first failures, npu reasons and flags (§9.2),
admissible ranges (§8.4), and ``waiexport check``."""

import hashlib
import json

import numpy as np
from click.testing import CliRunner

from waiexport import params as P
from waiexport import write
from waiexport.admissible import admissible_range
from waiexport.bounds import certify_graph
from waiexport.builder import GraphBuilder, chscale, conv, crop, lut16, rq
from waiexport.certificate import Member, certificate_bytes, certify
from waiexport.cli import main


def cert_of(*graphs, **kw):
    members = [Member.of(f"g{i}", write(g), g) for i, g in enumerate(graphs)]
    return certify(members, **kw)


def relu_graph(lo=-5, hi=5, policy="derived"):
    b = GraphBuilder()
    b.output(
        b.op(
            "relu",
            b.input(1, lo, hi),
            policy=policy,
            lo=0 if policy != "derived" else 0,
            hi=9 if policy != "derived" else 0,
        )
    )
    return b.build()


def test_canonical_bytes_of_a_one_node_set():
    g = relu_graph()
    sha = hashlib.sha256(write(g)).hexdigest()
    assert (
        certificate_bytes(cert_of(g))
        == (
            '{"capability":null,"certificate":"wai-ops/1 bounds","graphs":[{"graph_sha256":"'
            + sha
            + '","inputs":[{"hi":"5","kind":"data","lo":"-5","max_h":"0","max_w":"0",'
            '"policy":"check","tensor":"0"}],"name":"g0","nodes":[{"acc32_params":[],'
            '"fits":["acc32","acc64"],"index":"0","intermediates":{},"npu_flags":[],"op":"relu",'
            '"out":[{"bits":"4","hi":"5","lo":"0","policy":"derived","result":{"bits":"4",'
            '"hi":"5","lo":"0"},"tensor":"1"}],"saturated":false}],"scalars":[]}],'
            '"lowering":"whg1","set_sha256":null,"verdict":{"acc32":true,"acc64":true,"npu":true,'
            '"npu_flags":[],"npu_reasons":[]}}'
        ).encode()
    )


def test_state_inputs_scalars_capability_and_set_digest():
    b = GraphBuilder()
    b.scalar(-1, 2)
    x = b.input(1, -5, 5, max_h=3, max_w=4)
    s = b.state(1, -9, 9, src=0, init=-2, max_h=3, max_w=4)
    b.output(b.op("add", [x, s], policy="clamp", lo=-9, hi=9))
    c = cert_of(b.build(), capability="wai.video.int_motion", set_sha256="ab" * 32)
    d = json.loads(certificate_bytes(c))
    assert d["capability"] == "wai.video.int_motion" and d["set_sha256"] == "ab" * 32
    assert d["graphs"][0]["inputs"][1] == {
        "hi": "9",
        "init": "-2",
        "kind": "state",
        "lo": "-9",
        "max_h": "3",
        "max_w": "4",
        "policy": "clamp",
        "src": "0",
        "tensor": "1",
    }
    assert d["graphs"][0]["scalars"] == [{"hi": "2", "index": "0", "lo": "-1"}]
    assert d["verdict"]["npu_flags"] == ["state_add"]


def test_k_c_and_mac():
    b = GraphBuilder()
    x = b.input(2, -1000, 1000)
    y = b.op("conv", x, conv(np.zeros((1, 2, 1, 1), int)))
    z = b.op("conv", x, conv([[[[1]], [[-3]]]], w_bytes=2))
    b.output(y, z)
    nodes = json.loads(certificate_bytes(cert_of(b.build())))["graphs"][0]["nodes"]
    assert nodes[0]["k_c"] == "unbounded"
    assert nodes[1]["k_c"] == str((2**31 - 1) // 3000)
    assert nodes[1]["mac"] == {"a_bits": ["11"], "w_bits": "3"}
    assert nodes[0]["mac"] == {"a_bits": ["11"], "w_bits": "1"}


def _rescale(lo, hi, layout, policy="derived"):
    b = GraphBuilder()
    b.output(
        b.op(
            "rescale",
            b.input(1, lo, hi),
            P.Rescale(layout),
            policy=policy,
            lo=-(2**40) if policy == "check" else 0,
            hi=2**40 if policy == "check" else 0,
        )
    )
    return b.build()


def test_first_failure_takes_the_most_bits_then_the_smallest_key():
    # m = 2^20 on [−2^30, 2^30]: rq.q, rq.y and out.0 need 52 bits: "out.0" sorts first.
    v = cert_of(_rescale(-(2**30), 2**30, rq(mult=2**20)))["verdict"]
    assert v["acc32_first_failure"] == {
        "bits": 52,
        "graph": "g0",
        "index": 0,
        "key": "out.0",
        "where": "node",
    }
    assert v["acc64"] is True and "acc64_first_failure" not in v
    # a pre bias of 2^40 makes rq.t the widest (42 bits), above rq.q, rq.y and out.0 (22).
    v = cert_of(_rescale(-5, 5, rq(shift=20, bias=[2**40])))["verdict"]
    assert v["acc32_first_failure"]["key"] == "rq.t" and v["acc32_first_failure"]["bits"] == 42


def test_first_failure_parameter_conditions_and_policy_check():
    v = cert_of(_rescale(0, 0, rq(mult=2**40, shift=70)))["verdict"]
    assert v["acc32_first_failure"] == {
        "graph": "g0",
        "index": 0,
        "key": "rq.mult",
        "where": "node",
    }
    v = cert_of(_rescale(-5, 5, rq(shift=1), policy="check"))["verdict"]
    assert v["acc32_first_failure"]["key"] == "policy.check" and v["acc64"]
    assert v["npu_reasons"] == ["acc32"]


def test_first_failure_on_an_input_range_and_a_scalar():
    v = cert_of(relu_graph(-(2**40), 2**40))["verdict"]
    assert v["acc32_first_failure"] == {
        "bits": 42,
        "graph": "g0",
        "index": 0,
        "key": "range",
        "where": "input",
    }
    b = GraphBuilder()
    b.scalar(0, 2**31)
    b.output(b.op("relu", b.input(1, 0, 1)))
    v = cert_of(relu_graph(), b.build())["verdict"]
    assert v["acc32_first_failure"] == {
        "bits": 33,
        "graph": "g1",
        "index": 0,
        "key": "range",
        "where": "scalar",
    }


def test_saturation_and_widest_failure():
    b = GraphBuilder()
    t = b.input(1, -(2**63), 2**63 - 1)
    for _ in range(5):
        t = b.op("rescale", t, P.Rescale(rq(mult=2**63 - 1, m_bytes=8)))
    b.output(t)
    v = cert_of(b.build())["verdict"]
    # q = t·(2^63 − 1) needs 127 bits, as do rq.y and out.0: the tie goes to "out.0".
    assert v["acc64_first_failure"] == {
        "bits": 127,
        "graph": "g0",
        "index": 0,
        "key": "out.0",
        "where": "node",
    }
    # each rescale adds 63 bits: 2^126, 2^189, 2^252, then 2^315 passes 2^255 and saturates.
    nodes = certify_graph(b.build()).nodes
    assert [n.saturated for n in nodes] == [False, False, False, True, True]


def test_npu_reasons_vocabulary():
    b = GraphBuilder()
    s = b.scalar(0, 1)
    x = b.input(4, -5, 5, max_h=4, max_w=4)
    y = b.op("conv", x, conv(np.ones((4, 2, 1, 1), int), groups=2))  # conv_groups
    z = b.op("conv", x, conv(np.ones((4, 1, 1, 1), int), groups=4))  # depthwise: fine
    w = b.op("conv", x, conv(np.ones((8, 1, 1, 1), int), groups=4))  # cout ≠ cin
    c = b.op("crop", y, crop(("scalar", s), 0, 2, 2))  # crop_scalar
    i = b.op("igdn", z, P.Igdn(0, 0, 4, P.as_array(np.eye(4, dtype=int)), P.as_array([1] * 4)))
    b.output(c, i, w)
    v = cert_of(b.build())["verdict"]
    assert v["npu_reasons"] == ["conv_groups", "crop_scalar", "op:igdn"]
    assert v["npu"] is False and v["acc32"] is True


def test_npu_flags():
    b = GraphBuilder()
    s = b.scalar(0, 1)
    x = b.input(2, -5, 5)
    y = b.op("rescale", x, P.Rescale(rq(shift=[40, 2], mult=[-3, 2], round="half_even")))
    y = b.op("rescale", y, P.Rescale(rq(shift=2, bias=[1, 2], bias_kind="post", round="half_up")))
    y = b.op("chscale", y, chscale(s, [[1, 2], [3, 4]], shift=3))
    y = b.op("lut16", b.op("clamp", y, P.Clamp(-9, 9)), lut16(np.zeros(65536, int)))
    b.output(y)
    c = json.loads(certificate_bytes(cert_of(b.build())))
    flags = [n["npu_flags"] for n in c["graphs"][0]["nodes"]]
    assert flags == [
        ["rq_half_even", "rq_neg_mult", "rq_shift_range"],
        ["rq_post_bias"],
        ["chscale", "rq_floor_mult"],
        [],
        ["lut16"],
    ]
    assert c["verdict"]["npu_flags"] == sorted({f for fl in flags for f in fl})
    assert c["verdict"]["npu"] is True


def test_admissible_range_by_hand():
    # conv w = (2, −3), no bias, acc32: acc = [−5X, 5X] must fit i32: X* = ⌊(2^31 − 1) / 5⌋.
    b = GraphBuilder()
    x = b.input(1, -5, 5)
    b.output(b.op("conv", x, conv([[[[2, -3]]]])))
    gb = certify_graph(b.build())
    assert admissible_range(gb, x, "acc32") == (-429496729, 429496729)
    assert admissible_range(gb, 1, "acc32") == (-(2**63), 2**63 - 1)  # no consumer


def test_no_admissible_range():
    b = GraphBuilder()
    x = b.input(1, -5, 5, max_h=1, max_w=4)
    b.output(b.op("softmax", x))
    assert admissible_range(certify_graph(b.build()), x, "acc32") is None


# --- the command ----------------------------------------------------------------------------


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_check_writes_the_certificate_whatever_the_verdict(tmp_path):
    path = tmp_path / "wide.whg1"
    path.write_bytes(write(relu_graph(-(2**40), 2**40)))
    out = tmp_path / "cert.json"
    r = run("check", str(path), "--certificate", str(out))
    assert r.exit_code == 1
    assert "acc32 first failure: input 0 of wide: its declared range needs 42 bits" in r.output
    blob = out.read_bytes()
    assert not blob.endswith(b"\n")
    assert json.loads(blob)["graphs"][0]["name"] == "wide"
    assert run("check", str(path), "--subset", "full").exit_code == 0  # acc64
    j = run("check", str(path), "--json", "--role", "synth")
    assert json.loads(j.output)["graphs"][0]["name"] == "synth"


def test_check_set_of_two_and_refusal(tmp_path):
    a, b = tmp_path / "a.whg1", tmp_path / "b.whg1"
    a.write_bytes(write(relu_graph()))
    b.write_bytes(write(relu_graph()))
    r = run(
        "check",
        str(a),
        str(b),
        "--role",
        "h_s",
        "--role",
        "g_s",
        "--json",
        "--capability",
        "wai.neural.int_hyper",
        "--set-sha256",
        "0" * 64,
    )
    d = json.loads(r.output)
    assert r.exit_code == 0 and [g["name"] for g in d["graphs"]] == ["h_s", "g_s"]
    assert run("check", str(a), "--role", "x", "--role", "y").exit_code == 2
    bad = tmp_path / "lut.whg1"
    g = GraphBuilder()
    g.output(g.op("lut16", g.input(1, -40000, 0), lut16(np.zeros(65536, int))))
    bad.write_bytes(write(g.build()))
    r = run("check", str(bad))
    assert r.exit_code == 2 and "model_mismatch" in r.output and "Traceback" not in r.output


def test_check_report_names_flags_and_rewrites(tmp_path):
    b = GraphBuilder()
    x = b.input(1, -5, 5)
    b.output(
        b.op(
            "rescale",
            x,
            P.Rescale(rq(shift=2, mult=3, bias=[4], bias_kind="post", round="half_up")),
        )
    )
    path = tmp_path / "r.whg1"
    path.write_bytes(write(b.build()))
    r = run("check", str(path))
    assert r.exit_code == 0
    assert "flag rq_post_bias: §9.4 post bias → pre bias" in r.output
    assert "meets acc32 and wai-ops/1-npu" in r.output
