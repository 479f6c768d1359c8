"""The lowerings of §13: every load check with its code, canonical bytes, the graphs' exact
shape, and the synth graph against an independent float64 transposed-convolution stack."""

import hashlib
import json
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from waiexport import Refusal, write
from waiexport.capabilities.examples import boundary_sets, int_synth_source, jpegai_bundle
from waiexport.capabilities.int_synth import lower_int_synth
from waiexport.capabilities.jpegai import lower_jpegai
from waiexport.files import MARK
from waiexport.capabilities.lower import lower_set
from waiexport.cli import main
from waiexport.reference import decode

from _helpers import refused, ROOT, with_extra
from _oracles import conv_transpose_f64

LAYER = {
    "in_ch": 1,
    "out_ch": 2,
    "k": 3,
    "stride": 2,
    "pad": 1,
    "out_pad": 1,
    "weight": [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[-1, 0, 1], [0, 1, 0], [2, 2, 2]]]],
    "bias": [3, -4],
    "shift": 2,
    "relu": True,
}


def synth(*layers):
    return json.dumps({"layers": list(layers)}).encode()


@pytest.mark.parametrize(
    "data, match",
    [
        (b"{", "not JSON"),
        (synth(), "at least one layer"),
        (json.dumps({"layers": {}}).encode(), "at least one layer"),
        (synth(LAYER, {**LAYER, "in_ch": 3}), "does not follow the previous layer's out_ch 2"),
        (synth({**LAYER, "bias": [1]}), "has 1 values, expected 2"),
        (synth({**LAYER, "weight": [[[[1]]]]}), "weight"),
        (synth({**LAYER, "k": 2**32}), "outside [0, 4294967295]"),
        (synth({**LAYER, "out_ch": 0, "weight": [[]], "bias": []}), "out_ch is 0"),
        (synth({**LAYER, "stride": 0}), "stride is 0"),
        (synth({**LAYER, "shift": 128}), "shift 128 is above 127"),
        (synth({**LAYER, "relu": 1}), "is not true or false"),
        (synth({**LAYER, "bias": [2**31, 0]}), "outside"),
        (boundary_sets()["int_synth_acc64_one_past.json"], "does not meet acc64"),
    ],
)
def test_int_synth_load_checks(data, match):
    refused(lambda: lower_int_synth(data), "payload_malformed", match)


def test_int_synth_graph_and_widths():
    g = lower_int_synth(
        synth(LAYER, {**LAYER, "in_ch": 2, "relu": False, "weight": LAYER["weight"] * 2})
    )
    assert [o.name for o in g.ops] == ["conv_transpose", "relu", "conv_transpose", "clamp"]
    p = g.ops[0].params
    assert (p.w_bytes, p.rq.b_bytes, p.rq.round, p.rq.bias_kind, p.rq.m_kind, p.rq.s_kind) == (
        4,
        4,
        "floor",
        "pre",
        0,
        1,
    )
    assert g.tensor(0).policy == "check" and (g.tensor(0).lo, g.tensor(0).hi) == (-128, 127)
    assert g.ops[-1].params.lo == 0 and g.ops[-1].params.hi == 255


# The lowered digests of the committed examples: a change to the canonical form shows here.
DIGESTS = {
    "synth": "0ad6a574c1670a2594387d02b58f47a38b5031223be5b3732e2667cb2cf0a226",
    "hs_y": "4a0e41ba4838ef1316c4531492ec312d21faa906454c14de69d162cf342b942c",
    "hs_uv": "e8be59a17a4402fb1d3aa03ddba26a144cc93a9f6a1fd0a8cae7eb2b204ebaf8",
}


def test_lowered_bytes_are_canonical_and_stable():
    data = (ROOT / "examples" / "int_synth.json").read_bytes()
    a, b = write(lower_int_synth(data)), write(lower_int_synth(data))
    assert a == b and hashlib.sha256(a).hexdigest() == DIGESTS["synth"]
    for role, g in lower_jpegai(ROOT / "examples" / "jpegai").items():
        assert hashlib.sha256(write(g)).hexdigest() == DIGESTS[role]


def test_synth_equals_a_float64_conv_transpose_stack():
    """Exact below 2^50: float64 sums, then the floor shift, relu and clamp."""
    data = int_synth_source((3, 4, 2), seed=9)
    layers = json.loads(data)["layers"]
    g = lower_int_synth(data)
    x = np.random.default_rng(2).integers(-128, 128, (3, 3, 4))
    t = x.astype(np.float64)
    for layer in layers:
        acc = conv_transpose_f64(
            t, np.array(layer["weight"], dtype=np.float64), (2, 2), (2, 2), (1, 1)
        )
        assert np.abs(acc).max() < 2**50
        t = np.floor((acc + np.array(layer["bias"]).reshape(-1, 1, 1)) / 2 ** layer["shift"])
        if layer["relu"]:
            t = np.maximum(t, 0)
    np.testing.assert_array_equal(decode(g, [x], [])[0], np.clip(t, 0, 255).astype(np.int64))


@pytest.fixture
def bundle(tmp_path):
    jpegai_bundle(tmp_path, c1=3, c2=2, seed=1)
    return tmp_path


def test_jpegai_graphs_are_section_13_6_1s(bundle):
    graphs = lower_jpegai(bundle)
    assert list(graphs) == ["hs_y", "hs_uv"]
    for role, cz in (("hs_y", 160), ("hs_uv", 96)):
        g = graphs[role]
        assert [o.name for o in g.ops] == [
            "clamp",
            "conv",
            "relu",
            "clamp",
            "conv",
            "relu",
            "clamp",
            "conv",
            "pixel_shuffle",
            "abs",
            "clamp",
            "rescale",
        ]
        inp = g.inputs[0]
        assert (inp.max_h, inp.max_w, g.tensor(inp.tensor).lo, g.tensor(inp.tensor).hi) == (
            4,
            4,
            -31,
            32,
        )
        convs = [o.params for o in g.ops if o.name == "conv"]
        assert [(c.kh, c.ph, c.groups, c.rq.s_kind, c.rq.bias_kind) for c in convs] == [
            (1, 0, 1, 2, "pre"),
            (3, 1, 1, 2, "pre"),
            (1, 0, 1, 2, "pre"),
        ]
        assert convs[2].cout == 16 * cz and all(c.w_bytes == 1 for c in convs)
        assert g.ops[-1].params.rq.bias_kind == "pre" and int(g.ops[-1].params.rq.shift[0]) == 0
        out = decode(g, [np.zeros((cz, 4, 4), int)], [])[0]
        assert out.shape == (cz, 16, 16)


def _edit(bundle, file, change):
    path = bundle / file
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize(
    "file, change, match",
    [
        ("norm.json", lambda d: d["pmf"].pop(), "at least 32 rows"),
        (
            "norm.json",
            lambda d: d["pmf"][3].__setitem__(0, d["pmf"][3][0] + 1),
            "does not sum to 256",
        ),
        ("norm.json", lambda d: d["pmf"][3].append(0), "rows of different widths"),
        ("norm.json", lambda d: d["bounds"].__setitem__(0, 256), "outside [0, 255]"),
        ("norm.json", lambda d: d.__setitem__("per_channel", 15), "is not 16"),
        ("norm.json", lambda d: d["cdfs_y"].__setitem__(1, -1), "outside [0, 255]"),
        ("norm.json", lambda d: d["cdfs_uv"].__setitem__(0, 255), "is not non-decreasing"),
        ("norm.json", lambda d: d["gain_uv"].pop(), "has 95 values, expected 96"),
        ("norm.json", lambda d: d.pop("bounds"), "missing member 'bounds'"),
        ("weights/hs_y.json", lambda d: d["conv1.weight"]["dims"].__setitem__(1, 159), "is not"),
        (
            "weights/hs_uv.json",
            lambda d: d["onnx::Pow_91"]["v"].__setitem__(0, 128),
            "outside 0..127",
        ),
        ("weights/hs_uv.json", lambda d: d["pointwise.bias"]["v"].pop(), "expected"),
    ],
)
def test_jpegai_load_checks(bundle, file, change, match):
    _edit(bundle, file, change)
    with pytest.raises(Refusal) as info:
        lower_jpegai(bundle)
    assert info.value.code == "model_mismatch" and match in str(info.value), str(info.value)


def test_jpegai_missing_file(bundle):
    (bundle / "weights" / "hs_uv.json").unlink()
    with pytest.raises(Refusal, match="cannot read"):
        lower_jpegai(bundle)


def test_lowered_set_certificate(bundle):
    _, cert = lower_set("jpegai", bundle)
    assert [g["name"] for g in cert["graphs"]] == ["hs_y", "hs_uv"]
    assert cert["lowering"] == "jpegai-int/1" and cert["capability"] == "wai.image.jpegai"
    data = (ROOT / "examples" / "int_synth.json").read_bytes()
    _, cert = lower_set("int_synth", ROOT / "examples" / "int_synth.json")
    assert cert["set_sha256"] == hashlib.sha256(data).hexdigest()
    assert cert["lowering"] == "int_synth/1"


def test_acc32_claim_that_fails_by_one_weight(tmp_path):
    src = tmp_path / "s.json"
    src.write_bytes(boundary_sets()["int_synth_acc32_one_weight_past.json"])
    out = tmp_path / "out"
    assert CliRunner().invoke(main, ["lower", "int_synth", str(src), "-o", str(out)]).exit_code == 0
    r = CliRunner().invoke(main, ["check", str(out / "synth.whg1"), "--profile", "acc32", "--json"])
    f = json.loads(r.output)["verdict"]["acc32_first_failure"]
    assert r.exit_code == 1 and f["bits"] == "33" and f["key"] in ("convT.acc", "rq.t", "rq.p")


def test_lower_command(tmp_path, bundle):
    r = CliRunner().invoke(main, ["lower", "jpegai", str(bundle), "-o", str(tmp_path / "o")])
    assert r.exit_code == 0
    assert {p.name for p in (tmp_path / "o").iterdir()} == {
        "hs_y.whg1",
        "hs_uv.whg1",
        "certificate.json",
        MARK,
    }
    assert not (tmp_path / "p").exists()  # refused: no folder left behind
    bad = tmp_path / "bad.json"
    bad.write_text('{"layers": []}')
    r = CliRunner().invoke(main, ["lower", "int_synth", str(bad), "-o", str(tmp_path / "p")])
    assert r.exit_code == 2 and "payload_malformed" in r.output


def test_examples_make_matches_the_committed_ones(tmp_path):
    CliRunner().invoke(main, ["examples", "make", str(tmp_path)])
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name != MARK:
            assert (
                ROOT / "examples" / path.relative_to(tmp_path)
            ).read_bytes() == path.read_bytes(), path


@with_extra("onnxruntime", "ort")
def test_examples_run_is_the_main_job(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "ex")
    r = CliRunner().invoke(main, ["examples", "run", str(tmp_path / "ex")])
    assert r.exit_code == 0, r.output
    assert r.output.count("bit-exact against the reference") == 3
    assert "every check passed" in r.output


@with_extra("onnxruntime", "ort")
def test_a_bundle_refused_at_its_lowering_fails_the_main_job_and_is_not_decoded(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "ex")
    (tmp_path / "ex" / "jpegai" / "norm.json").write_text("{}")
    r = CliRunner().invoke(main, ["examples", "run", str(tmp_path / "ex")])
    assert r.exit_code == 1, r.output
    assert "jpegai: REFUSED at its lowering" in r.output
    assert "jpegai decode: not run (the bundle was refused at its lowering)" in r.output
    assert "SOME CHECKS FAILED" in r.output


def test_the_realistic_example_makes_a_real_image(tmp_path):
    # the --full int_synth set, on a seeded batch of typical latents: most of 0..255 reached,
    # while the certified set meets acc32
    from waiexport.capabilities.lower import lower_set
    from waiexport.reference import decode

    src = tmp_path / "int_synth.json"
    src.write_bytes(int_synth_source((192, 128, 64, 3)))
    graphs, cert = lower_set("int_synth", src)
    assert cert["verdict"]["acc32"] and cert["verdict"]["npu"]
    latents = np.random.default_rng(2026).integers(-128, 128, (192, 8, 8))
    y = decode(graphs["synth"], [latents], [])[0]
    assert len(np.unique(y)) >= 200
