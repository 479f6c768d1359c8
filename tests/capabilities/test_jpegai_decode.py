"""The jpegai entropy path end to end (§13.6.1): the bundled payloads decode to the symbols
they were made from, an engine's scale path is compared with the reference's where it matters
(σ_idx, the mask, the latents), and bad input is one line."""

import json
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner

import waiexport.targets.engines as engines
from waiexport.capabilities.jpegai import lower_jpegai, read_norm
from waiexport.capabilities.jpegai_entropy import (
    PLANES,
    Plane,
    compare,
    decode_planes,
    digest,
    read_flags,
    stage_values,
)
from waiexport.cli import main
from waiexport.refusal import Refusal
from waiexport.targets.engines import engine
from waiexport.targets.engines.base import Loaded

from _helpers import ROOT, with_extra

BUNDLE = ROOT / "examples" / "jpegai"
STREAMS = BUNDLE / "streams"


def _args(out, **over):
    files = {
        "--soz": "soz.bin",
        "--sorp": "sorp.bin",
        "--sors": "sors.bin",
        "--grfs-y": "grfs_y.txt",
        "--grfs-uv": "grfs_uv.txt",
    }
    args = [str(BUNDLE)]
    for opt, name in files.items():
        args += [opt, str(over.pop(opt, STREAMS / name))]
    return args + ["-o", str(out), "--no-validate"] + [a for kv in over.items() for a in kv]


@pytest.fixture(scope="module")
def inputs():
    flags = {
        p: read_flags((STREAMS / f"grfs_{p}.txt").read_bytes(), c, p)
        for p, (_, c, *_) in PLANES.items()
    }
    latents = {s: (STREAMS / f"{s.lower()}.bin").read_bytes() for s in ("SORP", "SORS")}
    return (
        read_norm(BUNDLE),
        lower_jpegai(BUNDLE),
        (STREAMS / "soz.bin").read_bytes(),
        latents,
        flags,
    )


def _decode(eng, inputs):
    norm, graphs, soz, latents, flags = inputs
    return decode_planes(norm, graphs, lambda role, data: eng.load(data), soz, latents, flags)


def test_the_bundled_payloads_decode_to_their_symbols(inputs):
    want = json.loads((STREAMS / "streams.json").read_text())["planes"]
    for name in ("reference", "ort-cpu"):
        planes = _decode(engine(name), inputs)
        for p, pl in planes.items():
            assert pl.refused is None
            assert digest(pl.values["z"]) == want[p]["z_sha256"]
            assert digest(pl.values["y_q"]) == want[p]["y_q_sha256"]
            assert pl.values["z"].min() >= -31 and pl.values["z"].max() <= 32
            assert 0 <= pl.values["sigma_idx"].min() and pl.values["sigma_idx"].max() <= 31


@with_extra("onnxruntime", "ort")
def test_ort_cpu_compared_with_the_reference_agrees_on_every_plane(tmp_path):
    r = CliRunner().invoke(
        main, ["jpegai", "decode", *_args(tmp_path), "--engine", "ort-cpu", "--compare", "--json"]
    )
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["engine"] == "ort-cpu"
    assert all(d["agree"] for c in summary["compare"].values() for d in c.values())
    assert set(summary["compare"]["y"]) == {"z", "v", "mask", "likely", "sigma_idx", "y_q"}
    assert np.array_equal(np.load(tmp_path / "uv_y_q.npy").shape, [96, 16, 16])


@with_extra("onnxruntime", "ort")
def test_the_summary_says_whether_the_engine_passes_validate(tmp_path):
    args = [a for a in _args(tmp_path) if a != "--no-validate"]
    r = CliRunner().invoke(main, ["jpegai", "decode", *args, "--engine", "npu-int8"])
    assert r.exit_code == 0, r.output
    v = json.loads((tmp_path / "summary.json").read_text())["validated"]
    assert v["conforming"] and v["profile"] == "acc32" and int(v["failed"]) == 0
    assert "engine npu-int8: passes validate on the committed corpus for acc32" in r.output


class ScaleDouble:
    """The reference engine, except that the luma scale graph's ``v`` at ``(c, y, x)`` is
    one more: one named mistake in an accelerator's scale path."""

    profile, subset = "acc64", "full"

    def __init__(self, at):
        self.at, self.name = at, "scale-double"

    def load(self, data):
        loaded = engine("reference").load(data)
        g = loaded.graph
        if g.tensor(g.inputs[0].tensor).channels != 160:
            return loaded

        def run(inputs, scalars):
            v = loaded.run(inputs, scalars)["out0"].astype(np.int64).copy()
            v[self.at] += 1
            return {"out0": v}

        return Loaded(g, run)


def _position(inputs, changes_sigma: bool):
    """A coded luma position where ``v + 1`` changes σ_idx (next to a scale_index rounding
    boundary) or changes nothing but ``v``; ``likely`` unchanged either way."""
    ref = _decode(engine("reference"), inputs)["y"].values
    flags = inputs[4]["y"]
    v, base = ref["v"], stage_values(ref["v"], flags)
    for c, y, x in np.argwhere(base["mask"]):
        bumped = v.copy()
        bumped[c, y, x] += 1
        got = stage_values(bumped, flags)
        if not np.array_equal(got["likely"], base["likely"]) or not np.array_equal(
            got["mask"], base["mask"]
        ):
            continue
        if (got["sigma_idx"][c, y, x] != base["sigma_idx"][c, y, x]) == changes_sigma:
            return int(c), int(y), int(x)
    pytest.fail("no such position in the bundled example")


def test_an_off_by_one_that_changes_sigma_idx_is_named(inputs, tmp_path, monkeypatch):
    at = _position(inputs, changes_sigma=True)
    planes = {
        "engine": _decode(ScaleDouble(at), inputs),
        "reference": _decode(engine("reference"), inputs),
    }
    c = compare(planes["engine"]["y"], planes["reference"]["y"])
    assert c["v"]["first"] == {
        **c["v"]["first"],
        "channel": at[0],
        "y": at[1],
        "x": at[2],
        "count": 1,
    }
    assert c["v"]["first"]["engine"] == c["v"]["first"]["reference"] + 1
    s = c["sigma_idx"]["first"]
    assert (s["channel"], s["y"], s["x"], s["count"]) == (*at, 1)
    assert abs(s["engine"] - s["reference"]) == 1
    assert c["mask"]["agree"] and c["likely"]["agree"] and not c["y_q"]["agree"]
    if "first" in c["y_q"]:  # the latents from that position on, not before
        q = c["y_q"]["first"]
        assert (q["channel"], q["y"] * 16 + q["x"]) >= (at[0], at[1] * 16 + at[2])
    else:
        assert c["y_q"]["refused_on"] == "engine" and c["y_q"]["code"] == "stream_exhausted"
    assert all(
        d["agree"] for d in compare(planes["engine"]["uv"], planes["reference"]["uv"]).values()
    )
    real = engines.engine
    monkeypatch.setattr(
        engines,
        "engine",
        lambda name, **kw: ScaleDouble(at) if name == "scale-double" else real(name, **kw),
    )
    r = CliRunner().invoke(
        main, ["jpegai", "decode", *_args(tmp_path), "--engine", "scale-double", "--compare"]
    )
    assert r.exit_code == 1
    assert f"sigma_idx differs first at channel {at[0]}, position ({at[1]}, {at[2]})" in r.output
    assert "plane uv against the reference: z, v, mask, likely, sigma_idx, y_q agree" in r.output


def test_an_error_that_changes_only_v_leaves_the_rest_agreeing(inputs):
    at = _position(inputs, changes_sigma=False)
    mine, ref = _decode(ScaleDouble(at), inputs), _decode(engine("reference"), inputs)
    c = compare(mine["y"], ref["y"])
    assert not c["v"]["agree"] and c["v"]["first"]["count"] == 1
    assert all(c[k]["agree"] for k in ("z", "mask", "likely", "sigma_idx", "y_q"))


def test_an_array_of_another_shape_never_agrees():
    # one channel of zeros broadcast over three of zeros compared equal value by value
    ref = Plane("y", {"v": np.zeros((3, 4, 4), np.int64), "z": np.arange(6).reshape(1, 2, 3)})
    mine = Plane("y", {"v": np.zeros((1, 4, 4), np.int64), "z": np.arange(6).reshape(1, 3, 2)})
    c = compare(mine, ref)
    assert c == {
        "z": {"agree": False, "shapes": [[1, 3, 2], [1, 2, 3]]},
        "v": {"agree": False, "shapes": [[1, 4, 4], [3, 4, 4]]},
    }
    from waiexport.cli.jpegai import _say_decode

    r = CliRunner().invoke(
        click.command()(
            lambda: _say_decode({"planes": {}, "compare": {"y": c}, "validated": None}, Path("out"))
        )
    )
    assert r.output.splitlines()[:3] == [
        "plane y against the reference: nothing agrees",
        "  z: the engine's has shape [1, 3, 2], the reference's [1, 2, 3]",
        "  v: the engine's has shape [1, 4, 4], the reference's [3, 4, 4]",
    ]


def _one_line(r):
    assert r.exit_code == 2 and r.output.count("\n") == 1, r.output
    return r.output


def test_a_truncated_soz_payload_is_stream_exhausted(tmp_path):
    cut = tmp_path / "soz.bin"
    cut.write_bytes((STREAMS / "soz.bin").read_bytes()[200:])
    out = _one_line(
        CliRunner().invoke(main, ["jpegai", "decode", *_args(tmp_path / "o", **{"--soz": cut})])
    )
    assert "stream_exhausted: hyper-latent, position" in out


def test_a_truncated_latent_payload_is_stream_exhausted(tmp_path):
    cut = tmp_path / "sors.bin"
    cut.write_bytes((STREAMS / "sors.bin").read_bytes()[100:])
    out = _one_line(
        CliRunner().invoke(main, ["jpegai", "decode", *_args(tmp_path / "o", **{"--sors": cut})])
    )
    assert "stream_exhausted: latent of plane uv, position" in out
    assert not (tmp_path / "o" / "summary.json").exists()


@pytest.mark.parametrize(
    "text, why",
    [
        ("01" * 40, "80 GRFS flags, expected 160"),
        ("[1, 0, 2]", "not 0, 1, true or false"),
        ("01x", "not the character 0 or 1"),
    ],
)
def test_flags_of_the_wrong_form_are_model_mismatch(tmp_path, text, why):
    flags = tmp_path / "flags.txt"
    flags.write_text(text)
    out = _one_line(
        CliRunner().invoke(
            main, ["jpegai", "decode", *_args(tmp_path / "o", **{"--grfs-y": flags})]
        )
    )
    assert "model_mismatch" in out and why in out


def test_flags_as_a_json_array(tmp_path):
    flags = read_flags((STREAMS / "grfs_uv.txt").read_bytes(), 96, "uv")
    as_json = tmp_path / "grfs.json"
    as_json.write_text(json.dumps([int(f) for f in flags]))
    assert read_flags(as_json.read_bytes(), 96, "uv") == flags
    with pytest.raises(Refusal, match="96 GRFS flags, expected 160"):
        read_flags(as_json.read_bytes(), 160, "y")


def test_a_bundle_failing_a_load_check_is_one_line(tmp_path):
    import shutil

    bundle = tmp_path / "bundle"
    shutil.copytree(BUNDLE, bundle)
    norm = json.loads((bundle / "norm.json").read_text())
    norm["cdfs_uv"][5] = 300
    (bundle / "norm.json").write_text(json.dumps(norm))
    args = _args(tmp_path / "o")
    args[0] = str(bundle)
    out = _one_line(CliRunner().invoke(main, ["jpegai", "decode", *args]))
    assert "model_mismatch: norm.json cdfs_uv" in out


def test_gains_past_i32_decode_to_integer_arrays(tmp_path):
    # §13.6.1: each gain fits i64; one past i32 made likely an object array (a traceback)
    import shutil

    bundle = tmp_path / "bundle"
    shutil.copytree(BUNDLE, bundle)
    norm = json.loads((bundle / "norm.json").read_text())
    norm["gain_uv"][12] = -(2**31) - 1
    norm["gain_y"][3] = 2**40
    (bundle / "norm.json").write_text(json.dumps(norm))
    args = _args(tmp_path / "o")
    args[0] = str(bundle)
    r = CliRunner().invoke(main, ["jpegai", "decode", *args])
    assert r.exit_code == 0, r.output
    for plane, c in (("y", 160), ("uv", 96)):
        likely = np.load(tmp_path / "o" / f"{plane}_likely.npy", allow_pickle=False)
        index = np.load(tmp_path / "o" / f"{plane}_sigma_idx.npy", allow_pickle=False)
        assert likely.dtype == index.dtype == np.int64 and likely.shape == (c, 16, 16)
        assert 0 <= likely.min() and likely.max() <= 4351 and 0 <= index.min() <= index.max() < 32


def test_the_bundled_payloads_are_what_the_generator_writes(tmp_path):
    from waiexport.capabilities.examples import make

    make(tmp_path)
    for path in sorted(STREAMS.iterdir()):
        assert (tmp_path / "jpegai" / "streams" / path.name).read_bytes() == path.read_bytes()


def test_a_decode_replaces_an_earlier_one_whole_and_keeps_it_when_it_cannot_finish(tmp_path):
    import resource
    import subprocess
    import sys

    out = tmp_path / "o"
    assert CliRunner().invoke(main, ["jpegai", "decode", *_args(out)]).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (out / "y_z.npy").write_bytes(b"stale")
    assert CliRunner().invoke(main, ["jpegai", "decode", *_args(out)]).exit_code == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    (out / "y_z.npy").write_bytes(b"stale")
    # a write limit below what the outputs need: one line, the earlier folder as it was
    r = subprocess.run(
        [sys.executable, "-m", "waiexport.cli", "jpegai", "decode", *_args(out)],
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000)),
    )
    assert r.returncode == 2 and "unwritable" in r.stderr and len(r.stderr.splitlines()) == 1
    assert (out / "y_z.npy").read_bytes() == b"stale"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


@pytest.mark.parametrize("beside", [[], ["summary.json"]])
def test_a_folder_holding_other_files_is_not_replaced(tmp_path, beside):
    # alone, or beside a summary of an earlier decode
    (tmp_path / "notes.txt").write_text("mine")
    for name in beside:
        (tmp_path / name).write_text("{}")
    out = _one_line(CliRunner().invoke(main, ["jpegai", "decode", *_args(tmp_path)]))
    assert "not-empty" in out and "holds notes.txt" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["notes.txt", *beside])
